// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: dispatching requests to pooled connections (FPS steps 4, 6).
 *
 * Each framed request head is dispatched on its own: the director picks
 * a real server (weighted least outstanding requests), takes one of its
 * idle pooled connections, sends it a copy of the buffered request bytes
 * (resent until acknowledged) and maps everything after them through a
 * new binding.  When the response has been framed to its end and the
 * client has acknowledged all of it, the pooled connection goes back to
 * the pool with its sequence and timestamp state, ready for any client.
 *
 * A client connection carries one request at a time: a pipelined head
 * is held until the response before it is complete, which keeps the
 * responses in request order whatever servers they come from.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/tcp.h>

#include "ip_vs_l7.h"
#include "ip_vs_l7_trace.h"


/*
 * How many buffered bytes after the framed head belong to the request:
 * its body, as far as it is here, framed by @body.  False if they are
 * not a body the director can frame: then nothing of the request may
 * reach a server.
 */
static bool l7_body_buffered(struct l7_conn *c, struct l7_http_body *body,
			     u32 *used)
{
	const u8 *rest = c->head + c->req.head_len;
	u32 avail = c->head_len - c->req.head_len;
	size_t n = 0;

	l7_http_body_init(body, NULL, c->req.body == L7_HTTP_BODY_CHUNKED,
			  c->req.body == L7_HTTP_BODY_LENGTH ?
			  c->req.content_length : 0);
	if (l7_http_body_feed(body, rest, avail, &n) == L7_BODY_ERROR)
		return false;
	*used = n;
	return true;
}

/*
 * The director's copy of the framed head (core/head_copy.c) and of the
 * @body_len buffered body bytes after it, into b->copy, followed by the
 * client's bytes it was made from.  @fwd: the header for the client's
 * address, as l7_route() found it for the service.
 */
static void l7_binding_copy(struct l7_conn *c, struct l7_binding *b,
			    u32 body_len, enum l7_fwd_mode fwd)
{
	char addr[L7_ADDR_TEXT_MAX + 1];
	struct l7_copy_opts o = {
		.fwd = fwd,
		.client = addr,
		.keep_alive = true,	/* the pooled connection goes on */
	};
	u32 head_len = c->req.head_len;

	/* printed per request only where a field carries it */
	if (fwd != L7_FWD_OFF)
		o.client_len = l7_addr_print(addr, sizeof(addr), c->af,
					     &c->caddr);
	o.client_v6 = c->af == AF_INET6;
	b->copy_len = l7_head_copy(b->copy, c->head, &c->req, &o);
	memcpy(b->copy + b->copy_len, c->head + head_len, body_len);
	b->copy_len += body_len;
	b->client_len = head_len + body_len;
	memcpy(b->copy + b->copy_len, c->head, b->client_len);
}

/*
 * A binding with @room bytes for the copy and the client's bytes, then
 * for the response head if the director takes it (@take), then the
 * request guard's log if the body goes on after the copy (@log): a
 * request that came whole - most do - fits a smaller object, which
 * init_on_alloc zeroes whole.
 */
static struct l7_binding *l7_binding_alloc(u32 room, bool take, bool log,
					   struct l7_guard_log **logp)
{
	size_t size = struct_size_t(struct l7_binding, copy, room), log_at;
	struct l7_binding *b;

	if (take)
		size += 2 * L7_RSP_HEAD_MAX + L7_RSP_HEAD_GROWTH;
	log_at = ALIGN(size, __alignof__(struct l7_guard_log));
	if (log)
		size = log_at + sizeof(struct l7_guard_log);
	b = kmalloc(size, GFP_ATOMIC);
	if (!b)
		return NULL;
	/* the map, the guards and the copy are written whole by l7_bind() */
	memset(b, 0, offsetof(struct l7_binding, map));
	if (take)
		b->rsp_head = b->copy + room;
	*logp = log ? (struct l7_guard_log *)((u8 *)b + log_at) : NULL;
	return b;
}

/*
 * Where the next response starts on C: after everything sent, and never
 * inside the range of the response before, which may end past what went
 * out - a segment the guard framed to the end and that was then dropped
 * (no memory to cut it, or it straddled its binding's start).  Its server
 * sends those bytes again, through its own map; the ranges never overlap.
 */
static u32 l7_next_rsp_start(const struct l7_conn *c)
{
	const struct l7_binding *last;

	if (list_empty(&c->bindings))
		return c->d_snd_nxt;
	last = list_last_entry(&c->bindings, struct l7_binding, node);
	if (last->map.rsp_range.closed &&
	    after(last->map.rsp_range.end, c->d_snd_nxt))
		return last->map.rsp_range.end;
	return c->d_snd_nxt;
}

/*
 * A binding for @c's head and @body_len buffered body bytes, on the
 * pooled connection its route picks, or NULL and *@res says why
 * (*@status: the HTTP status the director answers instead, l7_route()).
 */
static struct l7_binding *l7_binding_route(struct l7_conn *c, u32 body_len,
					   bool body_done,
					   struct l7_guard_log **log,
					   enum l7_fwd_mode *fwd,
					   struct l7_routed *rt,
					   enum l7_bind_res *res, int *status)
{
	/* room for the copy, then the client's bytes */
	u32 room = 2 * (c->req.head_len + body_len) + L7_COPY_GROWTH;
	struct l7_binding *b;

	b = l7_binding_alloc(room, l7_rsp_copy_wanted(c), !body_done, log);
	if (!b) {
		*res = L7_BIND_NOMEM;
		return NULL;
	}
	if (!l7_source_pooled_get(c)) {
		kfree(b);
		l7_service_count(c->ls, source_capped);
		*res = L7_BIND_CAPPED;
		return NULL;
	}
	b->pc = l7_route(c, status, fwd, rt);
	if (!b->pc) {
		l7_source_pooled_put(c);
		kfree(b);
		*res = *status ? L7_BIND_STATUS : L7_BIND_NONE;
		return NULL;
	}
	return b;
}

/*
 * @b's numbers on both connections, from where each stands.  The copy
 * and the client's bytes may differ in length: the mapping is anchored
 * where both end, and the binding starts there (what is before is the
 * director's, on both connections).
 */
static void l7_binding_numbers(struct l7_conn *c, struct l7_binding *b)
{
	struct l7_pconn *pc = b->pc;
	struct l7_binding_params p = {
		.c_seq = c->c_seq0 + b->client_len,
		.b_seq = pc->tcp.snd_nxt + b->copy_len,
		.b_rcv = pc->tcp.rcv_nxt,
		.c_snd = l7_next_rsp_start(c),
		.c_tsval = c->c_tsval,
		.b_ts_floor = pc->tcp.ts_last + 1,
		.b_tsval = pc->tcp.ts_recent,
		.c_ts_floor = c->d_ts_last + 1,
		.c_wscale = c->c_wscale,
		.cd_wscale = c->d_wscale,
		.b_wscale = pc->tcp.snd_wscale,
		.bd_wscale = pc->tcp.rcv_wscale,
		.c_ts = c->c_ts,
		.b_ts = pc->tcp.ts,
		.c_sack = c->c_sack,
		.b_sack = pc->tcp.sack,
	};

	l7_binding_init(&b->map, &p, NULL);
	b->b_tsval = pc->tcp.ts_recent;
	b->ts_sent = pc->tcp.ts_last;
	b->b_acked = pc->tcp.snd_nxt;
	b->b_snd_nxt = pc->tcp.snd_nxt + b->copy_len;
	b->c_ack_passed = p.c_snd;
	b->rsp_last_pkt = pc->tcp.rcv_nxt;
	/* what the server was told before, as far as it can have been */
	b->b_rcv_wup = pc->tcp.rcv_nxt;
	b->b_rcv_edge = pc->tcp.rcv_nxt;
	l7_binding_announced(b, pc->tcp.rcv_nxt, pc->tcp.win);
	b->b_wl1 = pc->tcp.rcv_nxt;
	b->b_wnd = 0;
	b->b_max_win = l7_win_bytes(U16_MAX, pc->tcp.snd_wscale);
}

/* The response guard of @b, as its request asked. */
static void l7_binding_rsp_init(struct l7_conn *c, struct l7_binding *b)
{
	struct l7_pconn *pc = b->pc;

	/* an HTTP/1.1 client that goes on must not see the server close */
	l7_rsp_guard_init(&b->rsp_guard, pc->tcp.rcv_nxt, b->method,
			  !b->close_after && c->req.version_minor >= 1);
	l7_rsp_guard_asked(&b->rsp_guard, pc->tcp.snd_nxt);
	/*
	 * an HTTP/1.0 one must hear keep-alive, an HTTP/1.1 one that asked
	 * to close must hear close: the head may be ours
	 */
	if (b->rsp_head)
		l7_rsp_guard_take(&b->rsp_guard, b->rsp_head,
				  !c->req.keep_alive);
}

/*
 * @b is the request under way: the head leaves the buffer, the copy goes
 * to the server, and the body, if any, follows through the guard.
 */
static void l7_binding_begin(struct l7_conn *c, struct l7_binding *b,
			     const struct l7_routed *rt, bool body_done)
{
	struct l7_pconn *pc = b->pc;

	/* l7_pool_take() counted the request in pool->outstanding */
	list_add_tail(&b->node, &c->bindings);
	c->nr_bindings++;
	c->cur = b;
	WRITE_ONCE(pc->conn, c);
	if (c->requests++)
		l7_service_count(c->ls, rebinds);
	c->retries = 0;
	trace_l7_request(c, b, rt);
	l7_head_consume(c, b->client_len);
	/* the client may have closed after a pipelined request */
	c->c_rcv_nxt = c->c_seq0 + c->head_len + c->c_fin;
	if (body_done) {
		l7_binding_req_end(c, b, c->c_seq0);
		c->state = L7C_HEAD;
	} else {
		c->state = L7C_BODY;
		l7_floor_body_start(c);
	}
	this_cpu_add(pc->pool->bytes->to_server, b->copy_len);
	l7_binding_send_copy(c, b);
	l7_conn_due_in(c, L7_CLK_REQ_COPY, L7_RTO);
	/* pipelined heads behind it: held, as this one is under way */
	if (c->state == L7C_HEAD && l7_head_frame(c))
		l7_head_ready(c);
}

/*
 * c->lock held, head framed, nothing under way: bind, or say why not
 * (*@status: the HTTP status of L7_BIND_STATUS, l7_route()).
 */
static enum l7_bind_res l7_bind(struct l7_conn *c, int *status)
{
	struct l7_guard_log *log;
	struct l7_http_body body;
	struct l7_binding *b;
	enum l7_fwd_mode fwd;
	struct l7_routed rt;
	enum l7_bind_res res;
	u32 body_len;
	bool body_done;

	lockdep_assert_held(&c->lock);

	c->want = NULL;
	if (!l7_body_buffered(c, &body, &body_len))
		return L7_BIND_BAD_BODY;
	body_done = l7_http_body_done(&body);
	b = l7_binding_route(c, body_len, body_done, &log, &fwd, &rt, &res,
			     status);
	if (!b)
		return res;
	b->bound_ns = l7_trace_clock();
	l7_binding_copy(c, b, body_len, fwd);
	/* what follows the copy in the client's stream is the guard's */
	l7_req_guard_init(&b->req_guard, c->c_seq0 + b->client_len, &body,
			  body_done, log);
	b->method = c->req.method;
	b->upgrade = c->req.upgrade;
	b->tries = c->tries_next;
	c->tries_next = 0;
	b->close_after = !c->req.keep_alive;
	l7_binding_numbers(c, b);
	l7_binding_rsp_init(c, b);
	l7_binding_begin(c, b, &rt, body_done);
	return L7_BIND_OK;
}

/* c->lock held: the request of @b ends at client seq @end. */
void l7_binding_req_end(struct l7_conn *c, struct l7_binding *b, u32 end)
{
	lockdep_assert_held(&c->lock);

	b->req_done = true;
	l7_range_close(&b->map.req_range, end);
	b->b_req_end = l7_seq_fwd(&b->map.req, end);
}

static void l7_queue_want(struct l7_conn *c);
static bool l7_queue_add(struct l7_conn *c);
static struct l7_csm_bound l7_queue_retry(struct l7_conn *c);

/* What core/conn_sm.c made of a bind: the director's answer, if any. */
static void l7_bound_answer(struct l7_conn *c, const struct l7_csm_bound *d)
{
	if (d->act == L7_CSM_BOUND_ANSWER)
		l7_reply(c, d->status, d->why);
}

/*
 * c->lock held, a head framed (or refused) and nothing under way: send
 * it on, let it wait for a pooled connection, or answer it ourselves
 * (core/conn_sm.c decides which).
 */
static void l7_dispatch(struct l7_conn *c)
{
	struct l7_csm_bound d;
	int status = 0;

	lockdep_assert_held(&c->lock);

	c->dispatch_ns = l7_trace_clock();
	if (c->bad_status) {
		l7_reply(c, c->bad_status, "bad_head");
		return;
	}
	d = l7_csm_bound(l7_bind(c, &status), status, false);
	if (d.act == L7_CSM_BOUND_QUEUE) {
		if (l7_queue_add(c))
			d = l7_queue_retry(c);
		else
			d = l7_csm_bound(L7_BIND_QUEUE_FULL, 0, false);
	}
	if (d.act == L7_CSM_BOUND_WAIT)
		l7_queue_want(c);
	l7_bound_answer(c, &d);
}

/*
 * c->lock held: a head was framed (or refused).  It goes on now, or is
 * held until the response before it is done (core/conn_sm.c decides;
 * l7_bindings_finish_acked(), l7_cur_end_if_done() send it then).
 */
void l7_head_ready(struct l7_conn *c)
{
	struct l7_csm m = l7_csm_of(c);

	lockdep_assert_held(&c->lock);

	switch (l7_csm_head_ready(&m)) {
	case L7_CSM_HOLD:
		c->state = L7C_HELD;
		l7_service_count(c->ls, held);
		break;
	case L7_CSM_DISPATCH:
		l7_dispatch(c);
		break;
	}
}

/*
 * Requests framed while no pooled connection was idle wait here, in
 * order, for the pool to grow or a connection to come back (a bounded
 * queue and a bounded wait: 503 past either).  Called with c->lock held.
 * False: the queue is full.
 */
static bool l7_queue_add(struct l7_conn *c)
{
	struct l7_service *ls = c->ls;
	bool added = false;

	lockdep_assert_held(&c->lock);

	spin_lock_bh(&ls->waitq_lock);
	if (ls->waitq_len < l7_queue_max) {
		list_add_tail(&c->wait_node, &ls->waitq);
		ls->waitq_len++;
		added = true;
	}
	spin_unlock_bh(&ls->waitq_lock);
	if (added) {
		l7_service_count(ls, queued);
		c->state = L7C_QUEUED;	/* L7_CLK_QUEUE bounds the wait */
	}
	return added;
}

/*
 * c->lock held, under RCU, @c waits: without pre-forked pools, ask the
 * server dispatch chose for a connection - only now, so that the work
 * that opens it finds the request in the queue.
 */
static void l7_queue_want(struct l7_conn *c)
{
	lockdep_assert_held(&c->lock);

	if (c->want)
		l7_pool_want(c->want);
	c->want = NULL;
}

/*
 * Any context; a no-op unless @c waits.  Every connection's teardown
 * comes here, so the service's queue lock is taken only when @c is in
 * the queue: an entry is added only under c->lock, which the callers
 * hold or own a dead @c; one that l7_queue_pop() takes off without it
 * is either seen still linked (and checked again under the lock) or
 * already off, and the kick puts back only a live one.
 */
void l7_queue_del(struct l7_conn *c)
{
	struct l7_service *ls = c->ls;

	if (list_empty(&c->wait_node))
		return;
	spin_lock_bh(&ls->waitq_lock);
	if (!list_empty(&c->wait_node)) {
		list_del_init(&c->wait_node);
		ls->waitq_len--;
	}
	spin_unlock_bh(&ls->waitq_lock);
}

/*
 * c->lock held, under RCU, @c just (re)queued after a bind that found no
 * room.  A request that ended on a capped server between that bind's look
 * at its count and the queueing saw nobody waiting and woke nobody
 * (l7_pool_req_done()); now that @c is in the queue, one more try finds
 * that slot - the barrier pairs with the one after the decrement.  Only
 * services with an upper threshold pay for it.  Unless @c waits on, it
 * is out of the queue (a kick that dequeued it meanwhile finds it no
 * longer queued).
 */
static struct l7_csm_bound l7_queue_retry(struct l7_conn *c)
{
	struct l7_csm_bound d;
	int status = 0;

	lockdep_assert_held(&c->lock);

	if (!READ_ONCE(c->ls->capped))
		return l7_csm_bound(L7_BIND_NONE, 0, true);
	smp_mb();	/* the queue, then the counts */
	d = l7_csm_bound(l7_bind(c, &status), status, true);
	if (d.act != L7_CSM_BOUND_WAIT)
		l7_queue_del(c);
	return d;
}

/*
 * Process context, under RCU: the connection at the front of @ls's
 * queue, taken off it for l7_queue_kick(), or NULL.
 */
struct l7_conn *l7_queue_pop(struct l7_service *ls)
{
	struct l7_conn *c;

	spin_lock_bh(&ls->waitq_lock);
	c = list_first_entry_or_null(&ls->waitq, struct l7_conn, wait_node);
	if (c) {
		list_del_init(&c->wait_node);
		ls->waitq_len--;
	}
	spin_unlock_bh(&ls->waitq_lock);
	return c;
}

/*
 * c->lock held, under RCU: @c came off the front of its service's queue
 * (l7_queue_pop()).  Bind it if it still waits.  False when it found no
 * room after all and went back to the front: the kick stops there.
 */
bool l7_queue_bind(struct l7_conn *c)
{
	struct l7_csm_bound d = { .act = L7_CSM_BOUND };
	struct l7_service *ls = c->ls;
	bool more = true;
	int status = 0;

	lockdep_assert_held(&c->lock);

	/*
	 * Between the dequeue and the lock a dispatch's own retry may have
	 * bound @c, and a next request of it may be queued again: it is
	 * then in the queue already.
	 */
	if (!c->dead && c->state == L7C_QUEUED)
		d = l7_csm_bound(l7_bind(c, &status), status, true);
	if (d.act == L7_CSM_BOUND_WAIT) {
		/* none idle or no room after all: back to the front */
		spin_lock_bh(&ls->waitq_lock);
		if (list_empty(&c->wait_node)) {
			list_add(&c->wait_node, &ls->waitq);
			ls->waitq_len++;
		}
		spin_unlock_bh(&ls->waitq_lock);
		d = l7_queue_retry(c);
		if (d.act == L7_CSM_BOUND_WAIT) {
			l7_queue_want(c);
			more = false;
		}
	} else {
		l7_queue_del(c);	/* bound, answered or gone */
	}
	l7_bound_answer(c, &d);
	return more;
}

/* c->lock held: the binding of @c whose pooled connection is @pc. */
struct l7_binding *l7_binding_of(struct l7_conn *c, const struct l7_pconn *pc)
{
	struct l7_binding *b;

	lockdep_assert_held(&c->lock);

	list_for_each_entry(b, &c->bindings, node)
		if (b->pc == pc)
			return b;
	if (c->probed && c->probed->pc == pc)
		return c->probed;
	return NULL;
}

static void l7_binding_free(struct l7_conn *c, struct l7_binding *b)
{
	l7_source_pooled_put(c);
	if (!b->rsp_guard.done)
		l7_pool_req_done(b->pc->pool);
	if (b->tunnel)
		l7_service_tunnel_end(c->ls);
	if (c->cur == b)
		c->cur = NULL;
	if (c->probed == b) {
		c->probed = NULL;	/* off the list already */
	} else {
		list_del(&b->node);
		c->nr_bindings--;
	}
	kfree(b);
}

/*
 * The part of the client's duplicate @dup (director's seq on C) that is
 * @b's server's, in its seq, in *@out.
 */
static bool l7_binding_dup(const struct l7_binding *b,
			   const struct l7_tcp_sack_block *dup,
			   struct l7_tcp_sack_block *out)
{
	if (!dup)
		return false;
	*out = *dup;
	return l7_sack_c2b(&b->map, out, 1) == 1;
}

/*
 * c->lock held: the client has all of @b's response (core/binding_life.h
 * decides what follows).  The pooled connection goes back - with the
 * numbers it continues from - or its server is reset.  Its server learns
 * that the response arrived from us, not from the client's ACK (which
 * may go to another binding): now, with the client's report of a resend
 * as a duplicate (@dup, on C) passed on, or from the next request's copy
 * on this connection or the pool's delayed ACK (l7_pool_release()).
 */
static void l7_binding_finish(struct l7_conn *c, struct l7_binding *b,
			      const struct l7_tcp_sack_block *dup)
{
	struct l7_bl bl = l7_bl_of(c, b);
	struct l7_tcp_sack_block b_dup;
	struct l7_pconn *pc = b->pc;
	bool has_dup = l7_binding_dup(b, dup, &b_dup);
	struct l7_bl_end e = l7_bl_finish(&bl, has_dup);

	lockdep_assert_held(&c->lock);

	if (e.keep) {
		pc->tcp.snd_nxt = b->b_req_end;
		pc->tcp.rcv_nxt = l7_seq_inv(&b->map.rsp, b->map.rsp_range.end);
		pc->tcp.ts_recent = b->b_tsval;
		pc->tcp.ts_last = b->ts_sent;
		pc->tcp.win = l7_win_to_backend(c, b);
	}
	if (e.ack_now)	/* still ours: the pool lock is not needed */
		l7_pconn_send_ack(pc, &pc->tcp, has_dup ? &b_dup : NULL);
	if (e.reset)
		l7_binding_reset(c, b);
	WRITE_ONCE(pc->conn, NULL);
	l7_pool_release(pc, e.keep, e.ack_owed);
	l7_binding_free(c, b);
}

/*
 * c->lock held: @b ends before its time (the client or server went
 * away, a framing error): reset the server unless it reset us, and
 * retire the pooled connection.
 */
void l7_binding_abort(struct l7_conn *c, struct l7_binding *b)
{
	struct l7_bl bl = l7_bl_of(c, b);
	struct l7_bl_end e = l7_bl_abort(&bl, c->c_fin &&
					 c->state == L7C_TUNNEL);

	lockdep_assert_held(&c->lock);

	if (e.reset)
		l7_binding_reset(c, b);
	if (e.error)
		l7_pool_count_error(b->pc->pool);
	WRITE_ONCE(b->pc->conn, NULL);
	l7_pool_release(b->pc, false, false);
	l7_binding_free(c, b);
}

/*
 * c->lock held: end every binding, as the connection is going away.  A
 * probed one is done with already.
 */
void l7_binding_abort_all(struct l7_conn *c)
{
	struct l7_binding *b, *next;

	lockdep_assert_held(&c->lock);

	if (c->probed)
		l7_binding_finish(c, c->probed, NULL);
	list_for_each_entry_safe(b, next, &c->bindings, node)
		l7_binding_abort(c, b);
}

/*
 * c->lock held: the client has all of @b's response, but its server
 * resent some of it, most likely a tail loss probe the client's ACK
 * crossed.  The server counts the probe as a repair, and shrinks its
 * window, unless it hears the client report it as a duplicate before it
 * hears of more data.  That report (a D-SACK) follows the ACK, so @b
 * keeps its pooled connection and mapping, out of ->bindings, for
 * L7_DUP_WAIT; the server has the ACK meanwhile.  One at a time: an
 * earlier one is finished.
 */
static void l7_binding_hold_for_dup(struct l7_conn *c, struct l7_binding *b)
{
	lockdep_assert_held(&c->lock);

	if (c->probed)
		l7_binding_finish(c, c->probed, NULL);
	list_del(&b->node);
	c->nr_bindings--;
	c->probed = b;
	b->c_ack_passed = b->map.rsp_range.end;
	l7_binding_send_ack(c, b, l7_seq_inv(&b->map.rsp, b->c_ack_passed));
	l7_conn_due_in(c, L7_CLK_DUP_WAIT, L7_DUP_WAIT);
}

/* L7_CLK_DUP_WAIT: a probed binding waited long enough. */
void l7_binding_dup_wait_over(struct l7_conn *c)
{
	lockdep_assert_held(&c->lock);

	if (c->probed)
		l7_binding_finish(c, c->probed, NULL);
}

/*
 * c->lock held: the client acknowledged up to @ack (director's seq on
 * C), reporting @dup as a duplicate (or NULL).  Bindings whose whole
 * response it has are finished, passing @dup on to the one it is of.
 */
void l7_bindings_finish_acked(struct l7_conn *c, u32 ack,
			      const struct l7_tcp_sack_block *dup)
{
	struct l7_tcp_sack_block b_dup;
	struct l7_binding *b, *next;
	bool freed = false;

	lockdep_assert_held(&c->lock);

	if (c->probed && l7_binding_dup(c->probed, dup, &b_dup))
		l7_binding_finish(c, c->probed, dup);
	list_for_each_entry_safe(b, next, &c->bindings, node) {
		struct l7_bl bl = l7_bl_of(c, b);

		switch (l7_bl_client_acked(&bl, ack,
					   l7_binding_dup(b, dup, &b_dup))) {
		case L7_BL_NOT_DONE:
			/* in order: later ones are not acked either */
			goto out;
		case L7_BL_HOLD_FOR_DUP:
			l7_binding_hold_for_dup(c, b);
			break;
		case L7_BL_FINISH:
			l7_binding_finish(c, b, dup);
			break;
		}
		freed = true;
	}
out:
	if (freed)	/* most ACKs free none: nothing to ask */
		l7_held_dispatch(c);
}

/*
 * c->lock held, bindings just went: a pipelined head that waited for
 * room goes on, if core/conn_sm.c says it now may.
 */
void l7_held_dispatch(struct l7_conn *c)
{
	struct l7_csm m = l7_csm_of(c);

	lockdep_assert_held(&c->lock);

	if (l7_csm_acked(&m, true))
		l7_dispatch(c);
}

/*
 * L7_CLK_REQ_COPY: the current binding's server has not acknowledged
 * our copy: resend it, or end the connection (core/conn_sm.c).
 */
void l7_binding_copy_due(struct l7_conn *c)
{
	struct l7_binding *b = c->cur;
	struct l7_csm_resend r;

	lockdep_assert_held(&c->lock);

	if (!b)
		return;
	r = l7_csm_req_copy_due(!b->head_acked, b->retries);
	b->retries = r.tries;
	if (r.give_up) {
		c->end = L7_END_HEAD_LOST;
		c->dead = true;
	} else if (r.send) {
		l7_binding_send_copy(c, b);
		l7_conn_due_in(c, L7_CLK_REQ_COPY, L7_RTO << b->retries);
	}
}

/* L7_CLK_QUEUE: no pooled connection came free within queue_timeout. */
void l7_queue_late(struct l7_conn *c)
{
	struct l7_csm m = l7_csm_of(c);

	lockdep_assert_held(&c->lock);

	if (l7_csm_queue_late(&m) != L7_CSM_CLOSE_ANSWER)
		return;
	l7_queue_del(c);
	l7_reply(c, 503, "queue_timeout");
}

/*
 * The server closed or reset the pooled connection before answering -
 * it was closing it (Timeout, KeepAliveTimeout) just when we bound it.
 * If the whole request was our own copy and the method is idempotent,
 * the request goes back in front of ->head and is dispatched once more;
 * the client never sees the first try.  Otherwise it gets a 502.
 * c->lock held, @b current, no response byte sent.
 */
void l7_binding_lost(struct l7_conn *c, struct l7_binding *b)
{
	struct l7_bl bl = l7_bl_of(c, b);
	bool again = l7_bl_retry(&bl) &&
		     l7_head_reserve(c, c->head_len + b->client_len);
	u32 n = b->client_len;

	lockdep_assert_held(&c->lock);

	if (again) {
		memmove(c->head + n, c->head, c->head_len);
		memcpy(c->head, l7_binding_client_bytes(b), n);
		c->head_len += n;
		c->c_seq0 -= n;
	}
	c->end = L7_END_SERVER_RST;
	l7_binding_abort(c, b);
	if (!again) {
		l7_reply(c, 502, "server_closed");
		return;
	}
	l7_service_count(c->ls, retried);
	c->requests--;
	c->tries_next = b->tries + 1;
	c->state = L7C_HEAD;
	if (l7_head_reframe(c))
		l7_head_ready(c);
}
