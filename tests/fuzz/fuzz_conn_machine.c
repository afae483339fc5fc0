// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for a client connection's machine: core/conn_sm.c
 * (what the connection does between requests) with core/binding_life.c
 * (each binding's own life), driven by any sequence of events - the
 * client's heads (keep-alive or close, with a body or not, idempotent or
 * not, pipelined), its body's end, ACKs and FIN; the server's response
 * beginning and ending (kept or closing, before the body ended or
 * after), a FIN or RST before it answered, a RST later; what a bind
 * finds (a pooled connection, none, no memory, a body it cannot frame,
 * a capped client address, a rule's status, a full queue), at a head's
 * first try or queued; the idle, slow-body and
 * queue deadlines; the director's own segments (its copy of a request,
 * its reply and FIN, its response head copies) acknowledged or resent.  The model here is the glue's double: it asks core exactly
 * where the glue does and carries out the plans in the glue's order.
 * After every event it checks what a client must see:
 *   - requests are answered in the order they came, each at most once,
 *     by its server or by the director;
 *   - a request goes to a server only with nothing under way and room
 *     for one more pooled connection, never after the director closed;
 *     it is queued only when no pooled connection was found, waits on
 *     only when queued, and is answered only with a 4xx or 5xx when it
 *     can go nowhere;
 *   - a held head is held for a reason: a request under way, or the
 *     client's pooled connections at client_max_pooled;
 *   - a request that asked to close, answered whole, leaves the
 *     connection closed; so does the client's FIN with nothing left;
 *   - a lost request goes again at most L7_BL_RETRIES times, only when
 *     that is safe, else the director answers 502;
 *   - a torn-down connection resets its client exactly when a binding
 *     is left, unless it was a tunnel both ends closed in order or
 *     another director took it over (a peer's newer record, at any
 *     point: its client has everything);
 *   - a 101 makes a tunnel only for the request under way that asked
 *     for it with nothing pipelined behind; a tunnel ends in order
 *     once both ends sent FIN;
 *   - what the director sends itself goes again only while it is not
 *     acknowledged, L7_COPY_TRIES times for a request's copy and
 *     L7_REPLY_TRIES for a reply to a client whose response stands
 *     still, then the connection ends; response head copies back off no
 *     further than L7_COPY_BACKOFF_MAX.
 *
 * Input: 1 control byte (client_max_pooled 1-4), then records of 2
 * bytes: op and argument.
 */
#include "conn_sm.h"
#include "binding_life.h"
#include "fuzz_util.h"

#define MAX_REQS	24
#define REC_LEN		2

enum fate { F_PENDING, F_BOUND, F_ANSWERED, F_VOID };

struct req {
	bool keep, body, idem, upgrade;
	uint8_t tries;		/* times it was lost */
	uint8_t sent;		/* times it went to a server */
	enum fate fate;
};

struct bnd {
	int req;
	bool req_done, rsp_done, rsp_seen, rsp_fin, srv_rst, lost;
	bool close_after, acked;
	bool copy_acked;	/* its server has the director's copy */
	unsigned int copy_tries, copy_sends;
};

struct model {
	struct req r[MAX_REQS];
	int nreq;		/* requests the client sent */
	int next;		/* the oldest not yet bound: the next head */
	struct bnd b[MAX_REQS];
	int nb;			/* bindings, oldest first */
	bool cur;		/* b[nb - 1] is under way */
	enum l7_conn_state state;
	unsigned int max_pooled;
	uint8_t pool;		/* what the pool answers the next bind */
	int answered;		/* requests answered, all before ->next */
	bool c_fin, closed, dead, reset;
	bool handed_over;	/* another director took it over */
	bool tunnel;		/* the request under way switched protocols */
	/* the director's reply and FIN, resent until acknowledged */
	bool replied, reply_acked;
	unsigned int reply_tries, reply_quiet;
	unsigned int rsp_copy_tries;	/* response head copies' backoff */
};

static struct l7_csm m_view(const struct model *m)
{
	struct l7_csm v = {
		.state = m->state,
		.bindings = (unsigned int)m->nb,
		.max_pooled = m->max_pooled,
		.c_fin = m->c_fin,
		.dead = m->dead,
		.reset = m->reset,
		.handed_over = m->handed_over,
	};

	if (m->cur) {
		const struct bnd *b = &m->b[m->nb - 1];

		v.cur = true;
		v.cur_req_done = b->req_done;
		v.cur_rsp_done = b->rsp_done;
		v.cur_rsp_seen = b->rsp_seen;
		v.cur_close_after = b->close_after;
		v.cur_lost = b->lost;
		v.cur_rsp_fin = b->rsp_fin;
		v.cur_srv_rst = b->srv_rst;
		v.cur_upgrade = m->r[b->req].upgrade;
	}
	v.head_pending = m->next < m->nreq;
	return v;
}

/* A binding as core/binding_life.h reads it: the numbers stand in. */
static struct l7_bl bl_view(const struct model *m, int i)
{
	const struct bnd *b = &m->b[i];
	const struct req *r = &m->r[b->req];

	return (struct l7_bl){
		.req_end = r->body ? 200 : 100,
		.copy_end = 100,
		.acked = 100, .snd_nxt = 100,
		.rsp_end = 1000,
		.req_done = b->req_done,
		.rsp_done = b->rsp_done,
		.rsp_fin = b->rsp_fin,
		.srv_rst = b->srv_rst,
		.rsp_seen = b->rsp_seen,
		.keep = !b->rsp_fin,
		.tries = r->tries,
		.idempotent = r->idem,
		.under_way = m->cur && i == m->nb - 1,
		.tunnel = m->tunnel && m->cur && i == m->nb - 1,
	};
}

/* Request @i is answered whole: in order, once. */
static void answer(struct model *m, int i)
{
	FUZZ_ASSERT(i == m->answered);
	FUZZ_ASSERT(m->r[i].fate != F_ANSWERED && m->r[i].fate != F_VOID);
	m->r[i].fate = F_ANSWERED;
	m->answered++;
}

static void m_close(struct model *m)
{
	int i;

	m->closed = true;
	m->state = L7C_CLOSING;
	for (i = m->next; i < m->nreq; i++)
		if (m->r[i].fate == F_PENDING)
			m->r[i].fate = F_VOID;
	m->next = m->nreq;
}

/* The director answers the head at ->next (if any) and closes. */
static void reply(struct model *m)
{
	m->replied = true;
	m->reply_acked = false;
	m->reply_tries = 0;
	m->reply_quiet = 0;
	if (m->next < m->nreq) {
		answer(m, m->next);
		m->next++;
	}
	m_close(m);
}

static void drop_binding(struct model *m, int i)
{
	if (m->cur && i == m->nb - 1)
		m->cur = false;
	memmove(&m->b[i], &m->b[i + 1], (m->nb - i - 1) * sizeof(m->b[0]));
	m->nb--;
}

static void frame(struct model *m);

static void bind(struct model *m)
{
	struct req *r = &m->r[m->next];
	struct bnd *b;

	FUZZ_ASSERT(!m->cur && m->nb < (int)m->max_pooled);
	FUZZ_ASSERT(!m->closed && !m->dead);
	FUZZ_ASSERT(m->next == m->answered);	/* all before it answered */
	FUZZ_ASSERT(r->sent == r->tries);	/* once, and once a loss */
	r->sent++;
	r->fate = F_BOUND;
	b = &m->b[m->nb++];
	*b = (struct bnd){
		.req = m->next,
		.req_done = !r->body,
		.close_after = !r->keep,
	};
	m->cur = true;
	m->next++;
	m->state = r->body ? L7C_BODY : L7C_HEAD;
}

/* What the pool and the rules make of a bind, as the glue reports it. */
static const enum l7_bind_res bind_res[] = {
	L7_BIND_OK, L7_BIND_OK, L7_BIND_NONE, L7_BIND_NOMEM,
	L7_BIND_BAD_BODY, L7_BIND_CAPPED, L7_BIND_STATUS,
};

/* A bind's result, as core/conn_sm.c says: bound, queued or answered. */
static void bound(struct model *m, enum l7_bind_res res, bool queued)
{
	int rule = m->pool & 1 ? 403 : 404;	/* a rule's, with STATUS */
	struct l7_csm_bound d;

	d = l7_csm_bound((struct l7_bind_result){
		res, res == L7_BIND_STATUS ? rule : 0 }, queued);
	if (d.act == L7_CSM_BOUND_QUEUE && (m->pool & 0x80)) {
		FUZZ_ASSERT(!queued);
		res = L7_BIND_QUEUE_FULL;	/* the queue is full */
		d = l7_csm_bound((struct l7_bind_result){ res }, false);
	}
	switch (d.act) {
	case L7_CSM_BOUND:
		FUZZ_ASSERT(res == L7_BIND_OK);
		m->state = L7C_HEAD;
		bind(m);
		frame(m);
		break;
	case L7_CSM_BOUND_QUEUE:
		FUZZ_ASSERT(res == L7_BIND_NONE && !queued);
		m->state = L7C_QUEUED;
		break;
	case L7_CSM_BOUND_WAIT:
		FUZZ_ASSERT(queued && (res == L7_BIND_NONE ||
				       res == L7_BIND_NOMEM));
		break;
	case L7_CSM_BOUND_ANSWER:
		FUZZ_ASSERT(res != L7_BIND_OK && res != L7_BIND_NONE);
		FUZZ_ASSERT(d.status >= 400 && d.status <= 599 && d.why);
		/* the rule's own status, never another */
		FUZZ_ASSERT((res == L7_BIND_STATUS) == (d.status == rule &&
							!strcmp(d.why, "rule")));
		reply(m);	/* a rule's status, 400, 503 */
		break;
	}
}

static void dispatch(struct model *m)
{
	bound(m, bind_res[m->pool % 7], false);
}

/* The head at ->next is framed while nothing is held: send or hold. */
static void frame(struct model *m)
{
	struct l7_csm v;

	if (m->closed || m->dead || m->state != L7C_HEAD || m->next >= m->nreq)
		return;
	v = m_view(m);
	if (l7_csm_head_ready(&v) == L7_CSM_HOLD)
		m->state = L7C_HELD;
	else
		dispatch(m);
}

/* Bindings whose whole response the client has go, oldest first. */
static void finish_acked(struct model *m)
{
	bool freed = false;
	struct l7_csm v;

	while (m->nb && m->b[0].req_done && m->b[0].rsp_done &&
	       m->b[0].acked) {
		drop_binding(m, 0);
		freed = true;
	}
	v = m_view(m);
	if (l7_csm_acked(&v, freed))
		dispatch(m);
}

static void lost(struct model *m)
{
	int i = m->nb - 1;
	struct l7_bl bl = bl_view(m, i);
	struct req *r = &m->r[m->b[i].req];
	bool again = l7_bl_retry(&bl);

	if (again)
		FUZZ_ASSERT(r->idem && !r->body && r->tries < L7_BL_RETRIES);
	drop_binding(m, i);
	m->next = (int)(r - m->r);
	if (!again) {
		reply(m);	/* 502 */
		return;
	}
	r->tries++;
	r->fate = F_PENDING;
	m->state = L7C_HEAD;
	frame(m);
}

/* ip_vs_l7_client.c's l7_csm_apply(), on the model. */
static void apply(struct model *m, const struct l7_csm_plan *p)
{
	struct l7_csm v;

	if (p->lost) {
		lost(m);
		return;
	}
	if (p->req_end) {
		m->b[m->nb - 1].req_done = true;
		m->b[m->nb - 1].close_after = true;
		m->state = L7C_HEAD;
	}
	if (p->cur_done) {
		FUZZ_ASSERT(m->cur);
		m->cur = false;
	}
	if (p->close) {
		FUZZ_ASSERT(p->cur_done);
		m_close(m);
	}
	if (p->finish_acked)
		finish_acked(m);
	if (p->dispatch_held) {
		v = m_view(m);
		if (l7_csm_acked(&v, true))
			dispatch(m);
	}
	if (p->close_fin)
		m_close(m);
}

static void rsp_moved(struct model *m)
{
	struct l7_csm v = m_view(m);
	struct l7_csm_plan p = l7_csm_rsp_moved(&v);

	apply(m, &p);
}

static void cur_end(struct model *m)
{
	struct l7_csm v = m_view(m);
	struct l7_csm_plan p = l7_csm_cur_end(&v);

	apply(m, &p);
}

static void server_rst(struct model *m, int i);

/* Both ends of a tunnel sent FIN, in order. */
static bool tunnel_ended(const struct model *m)
{
	return m->tunnel && m->c_fin && m->cur && m->b[m->nb - 1].rsp_fin;
}

static void die(struct model *m)
{
	struct l7_csm v = m_view(m);

	m->dead = true;
	FUZZ_ASSERT(l7_csm_end_resets(&v) ==
		    (m->nb > 0 && !m->reset && !m->handed_over &&
		     !tunnel_ended(m)));
}

/* After a FIN either way through a tunnel: both in, it lingers, over. */
static void tunnel_track_close(struct model *m)
{
	struct l7_csm v = m_view(m);
	bool closed = l7_csm_tunnel_closed(&v);

	FUZZ_ASSERT(closed == (tunnel_ended(m) && !m->closed));
	if (closed)
		m->closed = true;
}

/*
 * A 101 as the response's first bytes: a tunnel for a request that
 * asked, under way, with nothing pipelined behind it; else the director
 * resets both ends (a response it cannot follow).
 */
static void server_101(struct model *m)
{
	struct bnd *b = &m->b[m->nb - 1];
	struct l7_csm v = m_view(m);
	bool ok = l7_csm_upgrade(&v, true);

	FUZZ_ASSERT(!l7_csm_upgrade(&v, false));	/* not the current */
	FUZZ_ASSERT(ok == (m->r[b->req].upgrade && m->next >= m->nreq));
	if (!ok) {
		die(m);
		return;
	}
	b->rsp_seen = true;
	b->copy_acked = true;
	answer(m, b->req);	/* the 101 answers it */
	m->tunnel = true;
	m->state = L7C_TUNNEL;
}

/* A server segment through the tunnel: bytes, FIN or RST. */
static void server_tunnel(struct model *m, uint8_t arg)
{
	struct bnd *b = &m->b[m->nb - 1];

	switch (arg % 4) {
	case 1:
		if (b->rsp_fin)
			return;
		b->rsp_fin = true;
		tunnel_track_close(m);
		break;
	case 3:
		if (!b->srv_rst)
			server_rst(m, m->nb - 1);
		return;
	default:
		return;
	}
	rsp_moved(m);
}

/* A server's RST on binding @i. */
static void server_rst(struct model *m, int i)
{
	struct bnd *b = &m->b[i];
	struct l7_bl bl;

	b->srv_rst = true;
	bl = bl_view(m, i);
	switch (l7_bl_server_rst(&bl, b->acked ? 1000 : 999)) {
	case L7_BL_RST_RETIRE:
		FUZZ_ASSERT(b->rsp_done && b->acked);
		break;
	case L7_BL_RST_LOST:
		FUZZ_ASSERT(!b->rsp_seen && m->cur && i == m->nb - 1);
		b->lost = true;
		break;
	case L7_BL_RST_CLIENT:
		m->reset = true;
		die(m);
		return;
	}
	rsp_moved(m);
}

/* The server of the request under way answers, closes or resets. */
static void server_event(struct model *m, uint8_t arg)
{
	struct bnd *b;
	struct l7_bl bl;

	if (!m->cur) {
		if (m->nb && (arg & 0x80))
			server_rst(m, arg % m->nb);
		return;
	}
	b = &m->b[m->nb - 1];
	if (b->lost || m->dead)
		return;
	if (m->tunnel) {
		server_tunnel(m, arg);
		return;
	}
	if ((arg & 0x40) && !b->rsp_seen && !m->closed) {
		server_101(m);
		return;
	}
	if (b->rsp_done) {	/* answered early: a RST while the body comes */
		if (arg % 4 == 3 && !b->srv_rst)
			server_rst(m, m->nb - 1);
		return;
	}
	switch (arg % 4) {
	case 0:		/* the response's first bytes */
		b->rsp_seen = true;
		b->copy_acked = true;
		return;
	case 1:		/* its last: kept, or with FIN */
		b->rsp_seen = true;
		b->copy_acked = true;
		b->rsp_done = true;
		b->rsp_fin = arg & 4;
		answer(m, b->req);
		break;
	case 2:		/* FIN before a byte of an answer */
		if (b->rsp_seen)
			return;
		b->rsp_fin = true;
		bl = bl_view(m, m->nb - 1);
		if (!l7_bl_refused_lost(&bl, true)) {
			die(m);
			return;
		}
		b->lost = true;
		break;
	default:
		server_rst(m, m->nb - 1);
		return;
	}
	rsp_moved(m);
}

static void client_head(struct model *m, uint8_t arg)
{
	struct req *r;

	if (m->nreq >= MAX_REQS || m->c_fin || m->tunnel)
		return;		/* a tunnel's bytes are no heads */
	r = &m->r[m->nreq++];
	*r = (struct req){
		.keep = !(arg & 1),
		.body = arg & 2,
		.idem = !(arg & 4),
		.upgrade = arg & 8,
		.fate = m->closed ? F_VOID : F_PENDING,
	};
	if (m->closed)
		m->next = m->nreq;
	m->pool = arg >> 4;
	frame(m);
}

static void client_body_end(struct model *m)
{
	struct bnd *b;

	if (!m->cur || m->state != L7C_BODY)
		return;
	b = &m->b[m->nb - 1];
	b->req_done = true;
	m->state = L7C_HEAD;
	frame(m);	/* what follows the body: the next heads */
	cur_end(m);
}

static void client_ack(struct model *m, uint8_t arg)
{
	int i, n = arg % 4 + 1;

	for (i = 0; i < m->nb && n; i++)
		if (m->b[i].rsp_done && !m->b[i].acked) {
			m->b[i].acked = true;
			n--;
		}
	finish_acked(m);
}

static void client_fin(struct model *m)
{
	if (m->c_fin)
		return;
	m->c_fin = true;
	if (m->tunnel) {
		tunnel_track_close(m);
		return;
	}
	if (!m->closed && !m->cur && m->state == L7C_HEAD &&
	    m->next >= m->nreq)
		m_close(m);	/* nothing under way: close too */
}

static void deadline(struct model *m, uint8_t arg)
{
	struct l7_csm v = m_view(m);

	if (m->closed) {
		if (tunnel_ended(m))
			die(m);	/* the tunnel's linger is over */
		return;
	}
	if (arg & 1) {		/* idle_timeout */
		if (l7_csm_idle(&v) == L7_CSM_LATE_HEAD) {
			FUZZ_ASSERT(!m->nb);
			m_close(m);	/* 408 for a head that never came */
		} else {
			die(m);
		}
		return;
	}
	if (m->state != L7C_BODY)	/* body_minrate: a body under way */
		return;
	if (l7_csm_slow_body(&v) == L7_CSM_LATE_END) {
		die(m);
		return;
	}
	FUZZ_ASSERT(m->cur && !m->b[m->nb - 1].rsp_seen);
	m->next = m->b[m->nb - 1].req;
	drop_binding(m, m->nb - 1);
	reply(m);		/* 408 */
}

/* L7_CLK_REQ_COPY: the copy of the request under way, resent */
static void req_copy_due(struct model *m)
{
	struct l7_csm_resend r;
	struct bnd *b;

	if (!m->cur)
		return;
	b = &m->b[m->nb - 1];
	r = l7_csm_req_copy_due(!b->copy_acked, b->copy_tries);
	b->copy_tries = r.tries;
	FUZZ_ASSERT(!(r.send && r.give_up));
	FUZZ_ASSERT(!b->copy_acked || (!r.send && !r.give_up));
	if (r.send)
		FUZZ_ASSERT(++b->copy_sends <= L7_COPY_TRIES);
	if (r.give_up) {
		FUZZ_ASSERT(b->copy_sends == L7_COPY_TRIES);
		die(m);
	}
}

/*
 * L7_CLK_REPLY: the reply and FIN, resent; a response still moving
 * (@moving) lets the client take its time.
 */
static void reply_due(struct model *m, bool moving)
{
	struct l7_csm_resend r;

	if (!m->replied)
		return;
	moving = moving && m->nb;
	r = l7_csm_reply_due(!m->reply_acked, moving, m->reply_tries);
	m->reply_tries = r.tries;
	FUZZ_ASSERT(!(r.send && r.give_up));
	FUZZ_ASSERT(!m->reply_acked || (!r.send && !r.give_up));
	if (moving && !m->reply_acked)
		m->reply_quiet = 0;
	if (r.send)
		FUZZ_ASSERT(++m->reply_quiet <= L7_REPLY_TRIES);
	if (r.give_up) {
		FUZZ_ASSERT(m->reply_quiet == L7_REPLY_TRIES);
		die(m);
	}
}

/* The director's own segments: acknowledged, or their deadlines. */
static void resend(struct model *m, uint8_t arg)
{
	struct l7_csm_resend r;
	struct l7_csm v;

	switch (arg % 6) {
	case 0:		/* the server acknowledges the copy */
		if (m->cur)
			m->b[m->nb - 1].copy_acked = true;
		break;
	case 1:
		req_copy_due(m);
		break;
	case 2:		/* the client acknowledges the reply and FIN */
		m->reply_acked = m->replied;
		break;
	case 3:
		reply_due(m, arg & 0x10);
		break;
	case 4:		/* L7_CLK_RSP_COPY, copies pending or not */
		r = l7_csm_rsp_copy_due(arg & 0x10, m->rsp_copy_tries);
		FUZZ_ASSERT(r.send == !!(arg & 0x10) && !r.give_up);
		FUZZ_ASSERT(r.tries >= m->rsp_copy_tries &&
			    r.tries <= L7_COPY_BACKOFF_MAX);
		m->rsp_copy_tries = arg & 0x20 ? 0 : r.tries;	/* a new copy */
		break;
	default:	/* L7_CLK_QUEUE: a queued request waited too long */
		v = m_view(m);
		if (l7_csm_queue_late(&v) == L7_CSM_CLOSE_ANSWER) {
			FUZZ_ASSERT(m->state == L7C_QUEUED && !m->closed);
			reply(m);	/* 503 */
		} else {
			FUZZ_ASSERT(m->state != L7C_QUEUED);
		}
		break;
	}
}

/* What must hold between events. */
static void check(const struct model *m)
{
	int i;

	FUZZ_ASSERT(m->nb <= (int)m->max_pooled);
	for (i = 0; i < m->nb; i++) {
		if (i)
			FUZZ_ASSERT(m->b[i].req > m->b[i - 1].req);
		if (!(m->cur && i == m->nb - 1))
			FUZZ_ASSERT(m->b[i].req_done && m->b[i].rsp_done);
		/* asked to close, answered whole: closed */
		if (m->b[i].close_after && m->b[i].req_done &&
		    m->b[i].rsp_done)
			FUZZ_ASSERT(m->closed);
	}
	for (i = 0; i < m->nreq; i++)
		FUZZ_ASSERT(m->r[i].tries <= L7_BL_RETRIES);
	if (m->closed)
		return;
	if (m->state == L7C_HELD)
		FUZZ_ASSERT(m->cur || m->nb >= (int)m->max_pooled);
	if (m->state == L7C_HEAD)
		FUZZ_ASSERT(m->next >= m->nreq);	/* no head left behind */
	if (m->c_fin && !m->cur && m->state == L7C_HEAD)
		FUZZ_ASSERT(0);	/* the client's FIN, nothing left: closed */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model m;
	size_t off;

	if (size < 1)
		return 0;
	memset(&m, 0, sizeof(m));
	m.max_pooled = data[0] % 4 + 1;
	m.state = L7C_HEAD;
	for (off = 1; off + REC_LEN <= size && !m.dead; off += REC_LEN) {
		uint8_t op = data[off], arg = data[off + 1];

		switch (op % 10) {
		case 0:
			client_head(&m, arg);
			break;
		case 1:
			client_body_end(&m);
			break;
		case 2:
			server_event(&m, arg);
			break;
		case 3:
			client_ack(&m, arg);
			break;
		case 4:
			client_fin(&m);
			break;
		case 5:
			deadline(&m, arg);
			break;
		case 6:		/* a kick binds a queued request again */
			if (m.state == L7C_QUEUED && !m.closed) {
				m.pool = arg & 0x7f;
				bound(&m, bind_res[arg % 7], true);
			}
			break;
		case 7:
			resend(&m, arg);
			break;
		case 8:		/* a peer's newer record: taken over there */
			m.handed_over = true;
			die(&m);
			break;
		default:
			m.pool = arg;
			break;
		}
		if (!m.dead)
			check(&m);
	}
	return 0;
}
