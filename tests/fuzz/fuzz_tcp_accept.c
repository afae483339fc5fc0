// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for core/tcp_accept.c, differential: the director's
 * acceptability predicate against linux_rcv(), a model of what a Linux
 * receiver (6.1 net/ipv4/tcp_input.c) does with a segment in ESTABLISHED:
 * the flags test of tcp_rcv_established(), tcp_validate_incoming() with
 * tcp_paws_discard() and tcp_sequence(), then tcp_ack() with
 * tcp_replace_ts_recent() and tcp_ack_update_window().  The model is
 * written from that code, not from tcp_accept.c.
 *
 * Input: [0] the peer's window shift (0-14, or none), [1] timestamps
 * agreed (bit 0); then records of 12 bytes, each one event:
 *   op 0: the director sends n bytes (snd_nxt moves);
 *   op 1: the director acknowledges what it has (rcv_wup, window edge);
 *   op 2: the peer sends a genuine segment: in the window, an ACK of
 *         what it was sent, its own clock - it must be accepted, with the
 *         very updates Linux makes;
 *   op 3: a forged segment, every field from the input (or near the
 *         right numbers): whatever Linux refuses, the director refuses
 *         and changes nothing; what the director accepts, Linux accepts
 *         with the same changes;
 *   op 4: a segment to an idle pooled connection: the director retires
 *         it only where a Linux receiver would act on it.
 *
 * A refused segment that asks for a challenge ACK gets one that reports
 * as a duplicate only bytes acknowledged already (check_challenge()).
 *
 * Linux's state is made from the director's before each segment (a
 * Linux receiver in the director's place), so the two never drift.
 */
#include "tcp_accept.h"
#include "tcp_guard.h"
#include "tcp_map.h"
#include "fuzz_util.h"

#define REC_LEN		12
#define PAWS_WINDOW	1	/* TCP_PAWS_WINDOW */

/* The fields of struct tcp_sock that the model reads and writes. */
struct linux_sock {
	uint32_t rcv_nxt, rcv_wup, rcv_wnd;
	uint32_t snd_una, snd_nxt, snd_wl1, snd_wnd, max_window;
	uint64_t bytes_acked;
	uint32_t ts_recent;
	int snd_wscale;
	bool tstamp_ok, fin_in;
};

enum linux_outcome { LX_DISCARD, LX_RESET, LX_ACCEPT };

static bool lx_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static bool lx_after(uint32_t a, uint32_t b)
{
	return lx_before(b, a);
}

static uint32_t lx_receive_window(const struct linux_sock *tp)
{
	int32_t win = (int32_t)(tp->rcv_wup + tp->rcv_wnd - tp->rcv_nxt);

	return win < 0 ? 0 : (uint32_t)win;
}

static bool lx_paws_check(const struct linux_sock *tp, uint32_t tsval,
			  int paws_win)
{
	return (int32_t)(tp->ts_recent - tsval) <= paws_win || !tp->ts_recent;
}

static bool lx_may_update_window(const struct linux_sock *tp, uint32_t ack,
				 uint32_t ack_seq, uint32_t nwin)
{
	return lx_after(ack, tp->snd_una) || lx_after(ack_seq, tp->snd_wl1) ||
	       (ack_seq == tp->snd_wl1 && nwin > tp->snd_wnd);
}

static bool lx_disordered_ack(const struct linux_sock *tp,
			      const struct l7_tcp_in *s)
{
	uint32_t nwin = (uint32_t)s->win << (tp->snd_wscale > 0 ?
					     tp->snd_wscale : 0);

	/* the RTO term: any replay window; the rest decides */
	return (s->flags & L7_TCPF_ACK) && !s->len && s->seq == tp->rcv_nxt &&
	       s->ack == tp->snd_una &&
	       !lx_may_update_window(tp, s->ack, s->seq, nwin) &&
	       (int32_t)(tp->ts_recent - s->tsval) <= 200;
}

static void lx_replace_ts_recent(struct linux_sock *tp,
				 const struct l7_tcp_in *s, bool saw_tstamp)
{
	if (saw_tstamp && !lx_after(s->seq, tp->rcv_wup) &&
	    lx_paws_check(tp, s->tsval, 0))
		tp->ts_recent = s->tsval;
}

/* tcp_ack(): -1 refused, 0 old, 1 new */
static int lx_ack(struct linux_sock *tp, const struct l7_tcp_in *s,
		  bool saw_tstamp)
{
	uint32_t nwin = (uint32_t)s->win << (tp->snd_wscale > 0 ?
					     tp->snd_wscale : 0);

	if (lx_before(s->ack, tp->snd_una)) {
		uint32_t max_window = tp->max_window < tp->bytes_acked ?
				      tp->max_window :
				      (uint32_t)tp->bytes_acked;

		if (lx_before(s->ack, tp->snd_una - max_window))
			return -1;
		lx_replace_ts_recent(tp, s, saw_tstamp);
		return 0;
	}
	if (lx_after(s->ack, tp->snd_nxt))
		return -1;
	lx_replace_ts_recent(tp, s, saw_tstamp);
	if (lx_may_update_window(tp, s->ack, s->seq, nwin)) {
		tp->snd_wl1 = s->seq;
		tp->snd_wnd = nwin;
		if (nwin > tp->max_window)
			tp->max_window = nwin;
	}
	tp->bytes_acked += s->ack - tp->snd_una;
	tp->snd_una = s->ack;
	return 1;
}

static enum linux_outcome linux_rcv(struct linux_sock *tp,
				    const struct l7_tcp_in *s)
{
	bool rst = s->flags & L7_TCPF_RST, syn = s->flags & L7_TCPF_SYN;
	bool saw_tstamp = tp->tstamp_ok && s->ts;
	bool reset_check = tp->fin_in && s->seq == tp->rcv_nxt - 1;

	if (!(s->flags & L7_TCPF_ACK) && !rst && !syn)
		return LX_DISCARD;
	if (saw_tstamp && !lx_paws_check(tp, s->tsval, PAWS_WINDOW) &&
	    !lx_disordered_ack(tp, s) && !rst)
		return LX_DISCARD;
	if (lx_before(s->seq + s->len, tp->rcv_wup) ||
	    lx_after(s->seq, tp->rcv_nxt + lx_receive_window(tp)))
		return rst && reset_check ? LX_RESET : LX_DISCARD;
	if (rst)
		return s->seq == tp->rcv_nxt || reset_check ? LX_RESET :
							      LX_DISCARD;
	if (syn)
		return LX_DISCARD;
	return lx_ack(tp, s, saw_tstamp) < 0 ? LX_DISCARD : LX_ACCEPT;
}

/* A Linux receiver in the director's place. */
static struct linux_sock linux_of(const struct l7_tcp_endpoint *e)
{
	return (struct linux_sock){
		.rcv_nxt = e->rcv_nxt, .rcv_wup = e->rcv_wup,
		.rcv_wnd = e->rcv_edge - e->rcv_wup,
		.snd_una = e->snd_una, .snd_nxt = e->snd_nxt,
		.snd_wl1 = e->snd_wl1, .snd_wnd = e->snd_wnd,
		.max_window = e->max_window,
		.bytes_acked = e->snd_una - e->snd_isn,
		.ts_recent = e->ts_recent, .snd_wscale = e->snd_wscale,
		.tstamp_ok = e->ts, .fin_in = e->fin_in,
	};
}

/* The fields the predicate may change agree with Linux's. */
static bool same_updates(const struct l7_tcp_endpoint *e,
			 const struct linux_sock *tp)
{
	return e->snd_una == tp->snd_una && e->snd_wnd == tp->snd_wnd &&
	       e->snd_wl1 == tp->snd_wl1 && e->max_window == tp->max_window &&
	       e->ts_recent == tp->ts_recent;
}

static bool unchanged(const struct l7_tcp_endpoint *a,
		      const struct l7_tcp_endpoint *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* The sender at the other end, as far as genuine segments need it. */
struct peer {
	uint32_t acked;		/* its newest ACK */
	uint32_t clock;		/* its TSval */
	uint16_t win;
};

struct run {
	struct l7_tcp_endpoint e;
	struct peer p;
	uint32_t announced;	/* the director's window, bytes */
	bool tainted;		/* a forged segment was accepted */
	bool over;		/* the connection was reset */
};

static uint32_t get32(const uint8_t *r)
{
	return (uint32_t)r[0] << 24 | (uint32_t)r[1] << 16 |
	       (uint32_t)r[2] << 8 | r[3];
}

static uint16_t get16(const uint8_t *r)
{
	return (uint16_t)(r[0] << 8 | r[1]);
}

/* In-order data the receiver took: rcv_nxt moves past it. */
static void take_data(struct l7_tcp_endpoint *e, const struct l7_tcp_in *s)
{
	uint32_t end = s->seq + s->len;
	uint32_t edge = e->rcv_nxt + (uint32_t)((int32_t)(e->rcv_edge -
					 e->rcv_nxt) > 0 ?
					 e->rcv_edge - e->rcv_nxt : 0);

	if (l7_seq_after(end, edge))
		end = edge;
	if (!l7_seq_after(s->seq, e->rcv_nxt) && l7_seq_after(end, e->rcv_nxt))
		e->rcv_nxt = end;
}

/*
 * The challenge ACK to a refused segment: at rcv_nxt for a RST or SYN,
 * else the ACK last sent; a duplicate it reports is the segment's own
 * bytes, all of them acknowledged already - never one the receiver
 * lacks, which its sender would then never resend.
 */
static void check_challenge(const struct l7_tcp_endpoint *e,
			    const struct l7_tcp_in *s)
{
	struct l7_tcp_challenge ch = l7_tcp_challenge(e, s);

	if (s->flags & (L7_TCPF_RST | L7_TCPF_SYN)) {
		FUZZ_ASSERT(!ch.dsack && ch.ack == e->rcv_nxt);
		return;
	}
	FUZZ_ASSERT(ch.ack == e->rcv_wup);
	if (!ch.dsack)
		return;
	FUZZ_ASSERT(ch.dup.start == s->seq && ch.dup.end != ch.dup.start);
	FUZZ_ASSERT(l7_seq_between(ch.dup.end, s->seq, s->seq + s->len));
	FUZZ_ASSERT(!l7_seq_after(ch.dup.end, e->rcv_wup));
}

/* Judge @s both ways and check the director against Linux. */
static void deliver(struct run *r, const struct l7_tcp_in *s, bool genuine)
{
	struct linux_sock tp = linux_of(&r->e);
	struct l7_tcp_endpoint before = r->e;
	enum linux_outcome lx = linux_rcv(&tp, s);
	struct l7_tcp_accept v = l7_tcp_accept(&r->e, s);

	l7_tcp_accept_apply(&r->e, s, &v);
	if (lx == LX_DISCARD) {
		/* refused by Linux: never acted on, nothing changes */
		FUZZ_ASSERT(v.act == L7_ACC_DROP || v.act == L7_ACC_CHALLENGE);
		FUZZ_ASSERT(unchanged(&r->e, &before));
	}
	if (v.act == L7_ACC_RESET)
		FUZZ_ASSERT(lx == LX_RESET);
	if (v.act == L7_ACC_OK) {
		FUZZ_ASSERT(lx == LX_ACCEPT);
		FUZZ_ASSERT(same_updates(&r->e, &tp));
		/* an ACK passed on is one of data the director sent */
		FUZZ_ASSERT(!v.ack_ok ||
			    l7_seq_between(s->ack, before.snd_una,
					   before.snd_nxt));
	}
	if (v.act != L7_ACC_OK)
		FUZZ_ASSERT(unchanged(&r->e, &before));
	if (v.act == L7_ACC_CHALLENGE)
		check_challenge(&before, s);
	if (genuine && !r->tainted)
		FUZZ_ASSERT(v.act == L7_ACC_OK);
	if (!genuine && (v.act == L7_ACC_OK || v.act == L7_ACC_RESET))
		r->tainted = true;
	if (v.act == L7_ACC_RESET)
		r->over = true;
	if (v.act == L7_ACC_OK)
		take_data(&r->e, s);
}

/* op 2: what the peer really sends. */
static struct l7_tcp_in genuine(struct run *r, const uint8_t *b)
{
	struct l7_tcp_endpoint *e = &r->e;
	uint32_t unacked = e->snd_nxt - r->p.acked;
	uint32_t room = e->rcv_edge - e->rcv_nxt;
	uint32_t back = e->rcv_nxt - e->rcv_wup;
	struct l7_tcp_in s = { .flags = L7_TCPF_ACK, .ts = e->ts };

	if ((int32_t)room < 0)
		room = 0;
	/* from the ACK point or later: a resend or new bytes */
	s.seq = e->rcv_nxt - (back ? get16(b) % (back + 1) : 0);
	s.len = get16(b + 2) % 1461;
	if (s.len > e->rcv_nxt + room - s.seq)
		s.len = e->rcv_nxt + room - s.seq;
	if (s.len)
		s.flags |= L7_TCPF_PSH;
	/* its ACKs only move forward, up to what it was sent */
	r->p.acked += unacked ? get32(b + 4) % (unacked + 1) : 0;
	s.ack = r->p.acked;
	r->p.clock += b[8] % 4;
	s.tsval = r->p.clock;
	if (b[9] & 1)
		r->p.win = get16(b + 9);
	s.win = r->p.win;
	return s;
}

/* op 3: a forged segment, blind or near the right numbers. */
static struct l7_tcp_in forged(const struct run *r, const uint8_t *b)
{
	const struct l7_tcp_endpoint *e = &r->e;
	struct l7_tcp_in s = {
		.flags = b[0] & 0x3f,
		.len = get16(b + 1) % 2000,
		.win = get16(b + 3),
		.ts = !(b[5] & 0x80),
	};
	uint32_t x = get32(b + 6);

	switch (b[5] & 3) {
	case 0:		/* blind */
		s.seq = x;
		s.ack = x * 2654435761u;
		s.tsval = x ^ 0x5a5a5a5a;
		break;
	case 1:		/* half the space away: the classic pair */
		s.seq = e->rcv_nxt + ((x & 1) ? 0x80000000u : 0);
		s.ack = e->snd_una + ((x & 2) ? 0x80000000u : 0);
		s.tsval = e->ts_recent + ((x & 4) ? 0x80000000u : 0);
		break;
	default:	/* near the right numbers */
		s.seq = e->rcv_nxt + (int8_t)b[6] * 64;
		s.ack = e->snd_una + (int8_t)b[7] * 256;
		s.tsval = e->ts_recent + (int8_t)b[8];
		break;
	}
	if (s.flags & L7_TCPF_SYN)
		s.len++;
	if (s.flags & L7_TCPF_FIN)
		s.len++;
	return s;
}

/* A Linux socket with nothing outstanding: does it act on @s? */
static bool linux_idle_acts(const struct l7_tcp_idle *p,
			    const struct l7_tcp_in *s)
{
	struct linux_sock tp = {
		.rcv_nxt = p->rcv_nxt, .rcv_wup = p->rcv_nxt,
		.rcv_wnd = p->rcv_wnd, .snd_una = p->snd_nxt,
		.snd_nxt = p->snd_nxt, .snd_wl1 = p->rcv_nxt,
		.max_window = p->max_window, .bytes_acked = UINT32_MAX,
	};
	struct l7_tcp_in t = *s;
	uint32_t end = s->seq + s->len;

	t.ts = false;
	switch (linux_rcv(&tp, &t)) {
	case LX_RESET:
		return true;
	case LX_DISCARD:
		return false;
	default:
		/* data or FIN that reach rcv_nxt: the stream moves */
		return !l7_seq_after(s->seq, p->rcv_nxt) &&
		       l7_seq_after(end, p->rcv_nxt);
	}
}

static void idle(const uint8_t *b)
{
	const struct l7_tcp_idle p = {
		.rcv_nxt = get32(b), .rcv_wnd = get16(b + 4) << (b[6] % 8),
		.snd_nxt = get32(b + 7), .max_window = 65535u << (b[6] % 8),
	};
	struct l7_tcp_in s = forged(&(struct run){ .e = {
		.rcv_nxt = p.rcv_nxt, .snd_una = p.snd_nxt,
	} }, b + 1);
	enum l7_tcp_idle_act act = l7_tcp_accept_idle(&p, &s);

	if (act == L7_IDLE_RETIRE)
		FUZZ_ASSERT(linux_idle_acts(&p, &s));
	/* a resend ACKed again lies wholly below rcv_nxt */
	if (act == L7_IDLE_ACK)
		FUZZ_ASSERT(l7_seq_before(s.seq, p.rcv_nxt) &&
			    !l7_seq_after(s.seq + s.len, p.rcv_nxt));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run r = { 0 };
	struct l7_tcp_in s;
	size_t at;

	if (size < 2)
		return 0;
	r.e.snd_wscale = data[0] % 16 == 15 ? L7_WS_NONE : data[0] % 15;
	r.e.ts = data[1] & 1;
	/* just after the handshake: nothing sent, nothing received */
	r.e.rcv_nxt = r.e.rcv_wup = 0xfffff000u;
	r.announced = 65535;
	r.e.rcv_edge = r.e.rcv_nxt + r.announced;
	r.e.snd_isn = r.e.snd_una = r.e.snd_nxt = 0x7ffff000u;
	r.e.snd_wl1 = r.e.rcv_nxt;
	r.p.win = 502;
	r.e.snd_wnd = r.e.max_window = (uint32_t)r.p.win <<
		(r.e.snd_wscale > 0 ? r.e.snd_wscale : 0);
	r.p.clock = r.e.ts_recent = 1000;
	r.p.acked = r.e.snd_una;

	for (at = 2; at + REC_LEN <= size && !r.over; at += REC_LEN) {
		const uint8_t *b = data + at;

		switch (b[0] % 5) {
		case 0:
			/* never more in flight than a window can hold */
			if (r.e.snd_nxt - r.e.snd_una < 1u << 30)
				r.e.snd_nxt += get16(b + 1);
			break;
		case 1:
			r.e.rcv_wup = r.e.rcv_nxt;
			if (b[1] & 1)
				r.announced = get16(b + 2);
			if (l7_seq_after(r.e.rcv_nxt + r.announced,
					 r.e.rcv_edge))
				r.e.rcv_edge = r.e.rcv_nxt + r.announced;
			break;
		case 2:
			s = genuine(&r, b + 1);
			deliver(&r, &s, true);
			break;
		case 3:
			s = forged(&r, b + 1);
			deliver(&r, &s, false);
			break;
		default:
			idle(b + 1);
			break;
		}
	}
	return 0;
}
