// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for core/client_seg.c: the plan for a client segment,
 * played against a model of the director's client stream and of the
 * servers behind it.
 *
 * Control bytes: [0] how many requests (1..8), then per request a head
 * length (1..64) and a body length (0..63); the stream starts just before
 * 2^32 so that it wraps.  The rest is a script, two bytes an event: the
 * client sends new bytes, resends from where it was acknowledged or from
 * anywhere near it (maybe with its FIN), a server acknowledges some of
 * the body bytes it has, or forwarded bytes are lost on their way to it.
 *
 * The model takes what the plans say into a bounded head buffer,
 * dispatches a complete head at once (its buffered body goes with it, as
 * the director's copy), hands body bytes to a guard that frames in order
 * up to the body's end and forwards them, and acknowledges where
 * l7_cseg_ack() says.  Invariants:
 *
 *  - a TAKE never takes a byte twice and never skips one, and in-order
 *    head bytes (and a FIN) are taken even while a body before them is
 *    not acknowledged by its server - also when they come in the
 *    segment that ends that body;
 *  - every ACK the client gets covers only bytes the director stored
 *    (heads, copies) or whose server acknowledged them;
 *  - the director's ACKs never go backwards, and one a server's ACK
 *    makes due tells the client something new;
 *  - once the servers acknowledge every body byte they were sent, the
 *    client has been acknowledged everything the director took: nothing
 *    it took waits for the client's retransmission timeout;
 *  - a segment carries the copy of the head it dispatched only when it
 *    is exactly the copy's bytes, and one that is a whole head alone
 *    does.
 */
#include "client_seg.h"
#include "tcp_map.h"
#include "fuzz_util.h"

#define MAX_REQ		8
#define HEAD_ROOM	100	/* the model's head buffer */
#define BASE		0xffffff00u

struct req {
	uint32_t head, lo, end;	/* head start, body start, body end */
};

struct model {
	struct req req[MAX_REQ];
	int nreq;
	uint32_t stream_end;	/* the client's last byte + 1 */

	/* the director */
	enum l7_conn_state state;
	uint32_t rcv_nxt, acked, seq0;
	bool fin;
	int cur;		/* request whose head or body is next */
	uint32_t g_nxt;		/* the current body framed up to here */
	uint32_t sent[MAX_REQ];	/* body bytes forwarded, up to here */
	uint32_t have[MAX_REQ];	/* ... that reached the server */
	uint32_t srv_ack[MAX_REQ];
	bool bound[MAX_REQ];

	/* the client */
	uint32_t snd_una, snd_nxt;
	bool fin_sent;
	bool reset;
};

static bool m_may_ack(const struct model *m)
{
	int k;

	for (k = 0; k < m->nreq; k++)
		if (m->bound[k] && l7_seq_before(m->srv_ack[k], m->sent[k]))
			return false;
	return true;
}

static struct l7_cseg_ctx m_ctx(const struct model *m)
{
	return (struct l7_cseg_ctx){
		.state = m->state,
		.rcv_nxt = m->rcv_nxt,
		.acked = m->acked,
		.fin = m->fin,
		.may_ack = m_may_ack(m),
		.idle = true,
	};
}

/* The client learns it may forget everything below @a. */
static void client_acked(struct model *m, uint32_t a)
{
	if (l7_seq_after(a, m->snd_una))
		m->snd_una = a;
}

/* The director acknowledges: check what the ACK covers. */
static void m_ack(struct model *m)
{
	struct l7_cseg_ctx x = m_ctx(m);
	uint32_t a = l7_cseg_ack(&x);
	int k;

	FUZZ_ASSERT(!l7_seq_before(a, m->acked));
	FUZZ_ASSERT(!l7_seq_after(a, m->rcv_nxt));
	for (k = 0; k < m->nreq; k++) {
		uint32_t top;

		if (!m->bound[k] || !l7_seq_before(m->req[k].lo, a))
			continue;
		/* body bytes below the ACK: its server has them */
		top = l7_seq_before(a, m->sent[k]) ? a : m->sent[k];
		FUZZ_ASSERT(!l7_seq_before(m->srv_ack[k], top));
	}
	m->acked = a;
	client_acked(m, a);
}

/* A server acknowledges: its ACK goes to the client as it is. */
static void server_ack(struct model *m, int k, uint32_t n)
{
	uint32_t to = m->srv_ack[k] + n;
	struct l7_cseg_ctx x;

	if (l7_seq_after(to, m->have[k]))
		to = m->have[k];
	if (!l7_seq_after(to, m->srv_ack[k]))
		return;
	m->srv_ack[k] = to;
	client_acked(m, to);
	/* ip_vs_l7_client_tcp.c: l7_client_server_acked() */
	x = m_ctx(m);
	if (l7_cseg_server_acked(&x,
				 !l7_seq_before(m->sent[k], m->req[k].end),
				 m->req[k].end)) {
		/* never an ACK that tells nothing: a duplicate to the client */
		FUZZ_ASSERT(l7_seq_after(l7_cseg_ack(&x), m->acked));
		m_ack(m);
	}
}

/* Forward body bytes [s, e) of request @k (resent or new). */
static void forward(struct model *m, int k, uint32_t s, uint32_t e,
		    bool lost)
{
	if (l7_seq_after(e, m->sent[k]))
		m->sent[k] = e;
	if (!lost && !l7_seq_after(s, m->have[k]) &&
	    l7_seq_after(e, m->have[k]))
		m->have[k] = e;
}

static void take_rest(struct model *m, uint32_t seq, uint32_t len, bool fin,
		      uint32_t skip, bool lost);

/* Heads complete in the buffer are dispatched; may enter BODY. */
static void dispatch(struct model *m)
{
	while (m->state == L7C_HEAD && m->cur < m->nreq &&
	       !l7_seq_before(m->rcv_nxt - m->fin, m->req[m->cur].lo)) {
		struct req *r = &m->req[m->cur];
		uint32_t buffered = m->rcv_nxt - m->fin;

		m->bound[m->cur] = true;
		/* the copy holds the head and the body bytes buffered */
		if (!l7_seq_before(buffered, r->end)) {
			m->sent[m->cur] = m->have[m->cur] = r->end;
			m->srv_ack[m->cur] = r->end;
			m->seq0 = r->end;
			m->cur++;
			continue;
		}
		m->sent[m->cur] = m->have[m->cur] = buffered;
		m->srv_ack[m->cur] = buffered;
		m->g_nxt = buffered;
		m->state = L7C_BODY;
	}
}

/* The body guard of the current request, for a segment in BODY. */
static void body_seg(struct model *m, uint32_t seq, uint32_t len, bool fin,
		     bool lost)
{
	struct req *r = &m->req[m->cur];
	uint32_t end = seq + len, top;
	struct l7_cseg_ctx x;
	struct l7_cseg_plan p;
	struct l7_cseg s = { seq, len, fin };

	if (l7_seq_after(seq, m->g_nxt))
		return;		/* early: dropped */
	top = l7_seq_before(end, r->end) ? end : r->end;
	if (l7_seq_after(top, m->g_nxt)) {
		forward(m, m->cur, m->g_nxt, top, lost);
		m->g_nxt = top;
		m->rcv_nxt = top;
	}
	if (fin && end == m->g_nxt && m->g_nxt != r->end) {
		m->reset = true;	/* FIN in a body */
		return;
	}
	if (m->g_nxt != r->end)
		return;
	/* ended: what follows is taken */
	m->state = L7C_HEAD;
	m->seq0 = r->end;
	m->cur++;
	x = m_ctx(m);
	p = l7_cseg_after_body(&x, &s);
	/* ... so are the bytes and FIN after a body's end */
	FUZZ_ASSERT((p.act == L7_CSEG_TAKE) ==
		    (l7_seq_after(end, r->end) || fin));
	if (p.act == L7_CSEG_TAKE) {
		FUZZ_ASSERT(seq + p.skip == m->rcv_nxt);
		take_rest(m, seq, len, fin, p.skip, lost);
	} else {
		FUZZ_ASSERT(p.act == L7_CSEG_PASS && !p.ack);
	}
}

/*
 * A head dispatched by the TAKE of [seq, seq + len) from @skip on, @n
 * bytes taken, @held buffered before: the segment may carry its copy
 * (l7_cseg_carries_copy()) only when it is exactly the copy's bytes -
 * the head and the body bytes dispatched with it - and a head that came
 * whole and alone is carried.
 */
static void check_carrier(const struct model *m, const struct req *r,
			  const struct l7_cseg *s, uint32_t skip, uint32_t n,
			  uint32_t held, enum l7_cseg_act after)
{
	uint32_t top = l7_seq_before(m->rcv_nxt, r->end) ? m->rcv_nxt : r->end;
	struct l7_copy_carrier k = {
		.skip = skip,
		.buffered = held,
		.client_len = top - r->head,
		.same = true,
		.bindings = 1,
		.after = after,
	};
	bool whole = s->seq == r->head && s->len == k.client_len && !s->fin;

	if (l7_cseg_carries_copy(s, &k))
		FUZZ_ASSERT(whole && !skip && !held && n == s->len);
	if (whole && !held && after == L7_CSEG_PASS)
		FUZZ_ASSERT(l7_cseg_carries_copy(s, &k));
	k.same = false;
	FUZZ_ASSERT(!l7_cseg_carries_copy(s, &k));
}

/* TAKE from @skip on, then what l7_cseg_after_take() says. */
static void take_rest(struct model *m, uint32_t seq, uint32_t len, bool fin,
		      uint32_t skip, bool lost)
{
	struct l7_cseg s = { seq, len, fin };
	struct l7_cseg_plan p;
	struct l7_cseg_ctx x;
	uint32_t n = len > skip ? len - skip : 0;
	uint32_t held = m->rcv_nxt - m->seq0;
	uint32_t room = HEAD_ROOM - held;
	int first = m->cur;
	bool was = first < m->nreq && m->bound[first];

	FUZZ_ASSERT(!m->fin);
	if (n > room)
		n = room;
	m->rcv_nxt += n;
	dispatch(m);
	x = m_ctx(m);
	p = l7_cseg_after_take(&x, &s);
	if (first < m->nreq && !was && m->bound[first])
		check_carrier(m, &m->req[first], &s, skip, n, held, p.act);
	if (p.take_fin) {
		FUZZ_ASSERT(fin && seq + len == m->rcv_nxt);
		m->fin = true;
		m->rcv_nxt++;
	}
	if (p.ack)
		m_ack(m);
	if (p.act == L7_CSEG_BODY) {
		FUZZ_ASSERT(m->state == L7C_BODY);
		body_seg(m, seq, len, fin, lost);
	}
}

/* A resend of framed bytes: body bytes go to their guard again. */
static void old_seg(struct model *m, uint32_t seq, uint32_t len, bool lost)
{
	uint32_t end = seq + len;
	bool any = false;
	int k;

	for (k = 0; k < m->nreq; k++) {
		uint32_t s = seq, e = end;

		if (!m->bound[k])
			continue;
		if (l7_seq_before(s, m->req[k].lo))
			s = m->req[k].lo;
		if (l7_seq_after(e, m->sent[k]))
			e = m->sent[k];
		if (l7_seq_before(s, e)) {
			forward(m, k, s, e, lost);
			any = true;
		}
	}
	if (!any && m_may_ack(m))
		m_ack(m);
}

static void client_seg(struct model *m, uint32_t seq, uint32_t len, bool fin,
		       bool lost)
{
	struct l7_cseg s = { seq, len, fin };
	struct l7_cseg_ctx x = m_ctx(m);
	struct l7_cseg_plan p = l7_cseg_plan(&x, &s);

	/* in-order head bytes are taken, whatever body is on its way */
	if (m->state == L7C_HEAD && seq == m->rcv_nxt && !m->fin &&
	    (len || fin))
		FUZZ_ASSERT(p.act == L7_CSEG_TAKE);
	switch (p.act) {
	case L7_CSEG_BODY:
		body_seg(m, seq, len, fin, lost);
		break;
	case L7_CSEG_OLD:
		FUZZ_ASSERT(l7_seq_before(seq, m->rcv_nxt));
		old_seg(m, seq, len, lost);
		break;
	case L7_CSEG_TAKE:
		/* never a byte twice, never a gap */
		FUZZ_ASSERT(seq + p.skip == m->rcv_nxt);
		FUZZ_ASSERT(!l7_seq_after(seq, m->rcv_nxt));
		take_rest(m, seq, len, fin, p.skip, lost);
		break;
	case L7_CSEG_PASS:
		if (p.ack)
			m_ack(m);
		break;
	default:
		FUZZ_ASSERT(p.act == L7_CSEG_DROP);
		break;
	}
}

/* One scripted event. */
static void event(struct model *m, uint8_t op, uint8_t arg)
{
	uint32_t len = 1 + arg % 48, seq;
	bool lost = arg & 0x80;
	int k;

	switch (op % 5) {
	case 0:		/* new bytes */
	case 1:
		seq = m->snd_nxt;
		break;
	case 2:		/* a resend from the client's snd_una */
		seq = m->snd_una;
		break;
	case 3:		/* from anywhere near it */
		seq = m->snd_una + (arg % 64) - 32;
		break;
	default:	/* a server acknowledges, or nothing arrives */
		for (k = 0; k < m->nreq; k++)
			if (m->bound[k])
				server_ack(m, k, arg % 32);
		return;
	}
	if (l7_seq_after(seq + len, m->stream_end))
		len = l7_seq_after(m->stream_end, seq) ?
		      m->stream_end - seq : 0;
	if (l7_seq_after(seq, m->stream_end) || (!len && !(op & 0x40)))
		return;
	/* only the client's last byte may carry its FIN */
	client_seg(m, seq, len, (op & 0x40) && seq + len == m->stream_end,
		   lost && (op & 0x20));
	if (l7_seq_after(seq + len, m->snd_nxt))
		m->snd_nxt = seq + len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model m = { .state = L7C_HEAD };
	uint32_t at = BASE;
	size_t i = 1;
	int k;

	if (size < 3)
		return 0;
	m.nreq = 1 + data[0] % MAX_REQ;
	for (k = 0; k < m.nreq; k++, i += 2) {
		uint8_t h = i < size ? data[i] : 10;
		uint8_t b = i + 1 < size ? data[i + 1] : 0;

		m.req[k].head = at;
		m.req[k].lo = at + 1 + h % 64;
		m.req[k].end = m.req[k].lo + b % 64;
		at = m.req[k].end;
	}
	m.stream_end = at;
	m.rcv_nxt = m.acked = m.seq0 = m.snd_una = m.snd_nxt = BASE;

	for (; i + 1 < size && !m.reset; i += 2)
		event(&m, data[i], data[i + 1]);
	if (m.reset)
		return 0;

	/*
	 * Everything forwarded reaches its server, which acknowledges it:
	 * the client then has an ACK of all the director took.
	 */
	for (k = 0; k < m.nreq; k++) {
		if (!m.bound[k])
			continue;
		m.have[k] = m.sent[k];
		server_ack(&m, k, m.sent[k] - m.srv_ack[k]);
	}
	FUZZ_ASSERT(m_may_ack(&m));
	FUZZ_ASSERT(!l7_seq_before(m.snd_una, m.rcv_nxt) ||
		    m.state == L7C_BODY);
	return 0;
}
