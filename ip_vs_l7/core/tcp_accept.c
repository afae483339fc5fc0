// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: which segments of a connection the director may act on.
 */
#include "tcp_accept.h"
#include "tcp_guard.h"

static const struct l7_tcp_accept refuse_drop = { L7_ACC_DROP };
static const struct l7_tcp_accept refuse_challenge = { L7_ACC_CHALLENGE };

/* The window the peer may send into, from rcv_nxt: never below zero. */
static uint32_t rcv_window(const struct l7_tcp_endpoint *e)
{
	int32_t w = (int32_t)(e->rcv_edge - e->rcv_nxt);

	return w > 0 ? (uint32_t)w : 0;
}

/*
 * In the receive window (RFC 9293 3.10.7.4, as Linux's tcp_sequence()):
 * it ends at or after the point last acknowledged - a peer whose ACK of
 * it is still to come may send from there - and starts no later than the
 * window's right edge.
 */
static bool in_window(const struct l7_tcp_endpoint *e,
		      const struct l7_tcp_in *s)
{
	return !l7_seq_before(s->seq + s->len, e->rcv_wup) &&
	       !l7_seq_after(s->seq, e->rcv_nxt + rcv_window(e));
}

/* PAWS (RFC 7323 5.3); a RST is judged by its sequence number alone. */
static bool paws_ok(const struct l7_tcp_endpoint *e, const struct l7_tcp_in *s)
{
	struct l7_tcp_opts o = {
		.present = s->ts ? L7_TCPO_TS : 0,
		.tsval = s->tsval,
	};

	return l7_tcp_paws_ok(e->ts, s->flags & L7_TCPF_RST, &o, e->ts_recent);
}

/* A RST in the window: exact, or a challenge (RFC 5961 3.2). */
static struct l7_tcp_accept judge_rst(const struct l7_tcp_endpoint *e,
				      const struct l7_tcp_in *s)
{
	switch (l7_tcp_rst_check(s->seq, e->rcv_nxt, rcv_window(e),
				 e->fin_in)) {
	case L7_RST_ACCEPT:
		return (struct l7_tcp_accept){ L7_ACC_RESET };
	case L7_RST_CHALLENGE:
		return refuse_challenge;
	default:
		return refuse_drop;
	}
}

/*
 * How far below snd_una an ACK may lie and still be only old (RFC 5961
 * 5.2: MAX.SND.WND), never below the first byte: Linux bounds it by the
 * bytes acknowledged so far.
 */
static uint32_t old_ack_span(const struct l7_tcp_endpoint *e)
{
	uint32_t acked = e->snd_una - e->snd_isn;

	return e->max_window < acked ? e->max_window : acked;
}

/* Linux's tcp_may_update_window(), for an ACK in [snd_una, snd_nxt]. */
static bool may_update_window(const struct l7_tcp_endpoint *e,
			      const struct l7_tcp_in *s)
{
	uint32_t nwin = l7_win_bytes(s->win, e->snd_wscale);

	return l7_seq_after(s->ack, e->snd_una) ||
	       l7_seq_after(s->seq, e->snd_wl1) ||
	       (s->seq == e->snd_wl1 && nwin > e->snd_wnd);
}

/*
 * TS.Recent moves only with a segment that covers the point last
 * acknowledged (RFC 7323 4.3: SEG.SEQ <= Last.ACK.sent; the segment is
 * in the window, so it ends at or after it) and is no older.
 */
static bool takes_ts(const struct l7_tcp_endpoint *e, const struct l7_tcp_in *s)
{
	return e->ts && s->ts && !l7_seq_after(s->seq, e->rcv_wup) &&
	       (int32_t)(s->tsval - e->ts_recent) >= 0;
}

struct l7_tcp_accept l7_tcp_accept(const struct l7_tcp_endpoint *e,
				   const struct l7_tcp_in *s)
{
	enum l7_tcp_flags_verdict fv = l7_tcp_flags_check(s->flags, true);
	struct l7_tcp_accept v = { L7_ACC_OK };

	if (fv == L7_FLAGS_DROP)
		return refuse_drop;
	if (!paws_ok(e, s))
		return s->ts ? refuse_challenge : refuse_drop;
	if (!in_window(e, s)) {
		if (fv != L7_FLAGS_RST)
			return refuse_challenge;
		/* a RST on the peer's FIN, after it closed: as Linux */
		if (e->fin_in && s->seq == e->rcv_nxt - 1)
			return (struct l7_tcp_accept){ L7_ACC_RESET };
		return refuse_drop;
	}
	if (fv == L7_FLAGS_RST)
		return judge_rst(e, s);
	if (fv == L7_FLAGS_CHALLENGE)
		return refuse_challenge;	/* a SYN (RFC 5961 4.2) */

	if (l7_seq_before(s->ack, e->snd_una)) {
		if (l7_seq_before(s->ack, e->snd_una - old_ack_span(e)))
			return refuse_challenge;
		v.ts_recent = takes_ts(e, s);	/* an old ACK, new data */
		return v;
	}
	if (l7_seq_after(s->ack, e->snd_nxt))
		return refuse_challenge;	/* ACK of data never sent */
	v.ack_ok = true;
	v.ts_recent = takes_ts(e, s);
	v.window = may_update_window(e, s);
	return v;
}

void l7_tcp_accept_apply(struct l7_tcp_endpoint *e, const struct l7_tcp_in *s,
			 const struct l7_tcp_accept *v)
{
	if (v->act != L7_ACC_OK)
		return;
	if (v->ts_recent)
		e->ts_recent = s->tsval;
	if (v->window) {
		e->snd_wnd = l7_win_bytes(s->win, e->snd_wscale);
		e->snd_wl1 = s->seq;
		if (e->snd_wnd > e->max_window)
			e->max_window = e->snd_wnd;
	}
	if (v->ack_ok && l7_seq_after(s->ack, e->snd_una))
		e->snd_una = s->ack;
}

/*
 * The seq of an acceptable segment lies at most a window before the
 * point last acknowledged (its end reaches that point), and no later
 * than the window's right edge.  A splice may see a segment after its
 * payload was taken and cut, so it can only hold its seq to that.
 */
struct l7_seg_bounds l7_tcp_accept_bounds(const struct l7_tcp_endpoint *e)
{
	uint32_t edge = e->rcv_nxt + rcv_window(e);

	return (struct l7_seg_bounds){
		.ack = { e->snd_una - old_ack_span(e), e->snd_nxt },
		.seq = { e->rcv_wup - (edge - e->rcv_wup), edge },
	};
}

enum l7_tcp_idle_act l7_tcp_accept_idle(const struct l7_tcp_idle *p,
					const struct l7_tcp_in *s)
{
	uint32_t end = s->seq + s->len;

	if (l7_tcp_flags_check(s->flags, true) == L7_FLAGS_DROP)
		return L7_IDLE_DROP;
	if (s->flags & L7_TCPF_RST) {
		switch (l7_tcp_rst_check(s->seq, p->rcv_nxt, p->rcv_wnd,
					 false)) {
		case L7_RST_ACCEPT:
			return L7_IDLE_RETIRE;
		case L7_RST_CHALLENGE:
			return L7_IDLE_CHALLENGE;
		default:
			return L7_IDLE_DROP;
		}
	}
	if (s->flags & L7_TCPF_SYN)
		return L7_IDLE_CHALLENGE;
	if (!s->len)
		return L7_IDLE_DROP;	/* an ACK or window update */
	if (l7_seq_before(s->seq, p->rcv_nxt) &&
	    !l7_seq_after(end, p->rcv_nxt) && !(s->flags & L7_TCPF_FIN))
		return L7_IDLE_ACK;	/* a resend, or a keepalive probe */
	if (l7_seq_after(s->seq, p->rcv_nxt))
		return s->seq - p->rcv_nxt < p->rcv_wnd ? L7_IDLE_CHALLENGE :
							 L7_IDLE_DROP;
	if (!l7_seq_after(end, p->rcv_nxt))
		return L7_IDLE_DROP;	/* a FIN behind rcv_nxt */
	/* it covers rcv_nxt: if its ACK is of something the director sent */
	if (l7_seq_after(s->ack, p->snd_nxt) ||
	    l7_seq_before(s->ack, p->snd_nxt - p->max_window))
		return L7_IDLE_CHALLENGE;
	return L7_IDLE_RETIRE;
}

struct l7_tcp_challenge l7_tcp_challenge(const struct l7_tcp_endpoint *e,
					 const struct l7_tcp_in *in)
{
	struct l7_tcp_challenge ch = { .ack = e->rcv_wup };
	uint32_t end = in->seq + in->len - !!(in->flags & L7_TCPF_FIN);

	if (in->flags & (L7_TCPF_RST | L7_TCPF_SYN)) {
		ch.ack = e->rcv_nxt;
	} else if (end != in->seq && !l7_seq_after(end, e->rcv_wup)) {
		ch.dsack = true;
		ch.dup = (struct l7_tcp_sack_block){ in->seq, end };
	}
	return ch;
}
