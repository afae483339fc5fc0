// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: binding a request to a pooled connection (FPS steps 5-6).
 *
 * The director picks a real server (the route: content rules and the
 * pool's policy), takes one of its idle pooled connections, sends it a
 * copy of the buffered request bytes (resent until acknowledged) and
 * maps everything after them through a new binding, whose numbers,
 * guards and response head copy start here.  Which head is bound when
 * is ip_vs_l7_dispatch.c's; how a binding ends, ip_vs_l7_bind_life.c's.
 * All under the client connection's lock.
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

/* Where the next response starts on C (l7_rsp_start()). */
static u32 l7_next_rsp_start(const struct l7_conn *c)
{
	const struct l7_binding *last;

	if (list_empty(&c->bindings))
		return c->d_snd_nxt;
	last = list_last_entry(&c->bindings, struct l7_binding, node);
	return l7_rsp_start(c->d_snd_nxt, &last->map.rsp_range);
}

/*
 * A binding for @c's head and @body_len buffered body bytes, on the
 * pooled connection its route picks, or NULL and *@r says why (with the
 * HTTP status the director answers instead, l7_route()).
 */
static struct l7_binding *l7_binding_route(struct l7_conn *c, u32 body_len,
					   bool body_done,
					   struct l7_guard_log **log,
					   enum l7_fwd_mode *fwd,
					   struct l7_routed *rt,
					   struct l7_bind_result *r)
{
	/* room for the copy, then the client's bytes */
	u32 room = 2 * (c->req.head_len + body_len) + L7_COPY_GROWTH;
	struct l7_binding *b;

	b = l7_binding_alloc(room, l7_rsp_copy_wanted(c), !body_done, log);
	if (!b) {
		r->res = L7_BIND_NOMEM;
		return NULL;
	}
	if (!l7_source_pooled_get(c)) {
		l7_binding_mem_free(b);
		l7_service_count(c->ls, source_capped);
		r->res = L7_BIND_CAPPED;
		return NULL;
	}
	b->pc = l7_route(c, &r->status, fwd, rt);
	if (!b->pc) {
		l7_source_pooled_put(c);
		l7_binding_mem_free(b);
		r->res = r->status ? L7_BIND_STATUS : L7_BIND_NONE;
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
		.c_tsval = l7_client_tsval(c),
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
 * to the server - or waits for the client segment being taken, which
 * may carry it (l7_client_took_head()) - and the body, if any, follows
 * through the guard.  Resent on L7_CLK_REQ_COPY until the server has it.
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
	if (c->seg_whole_head) {	/* the segment in hand may carry it */
		c->seg_whole_head = false;
		c->copy_waits = b;
	} else {
		l7_binding_send_first(c, b);
	}
	l7_conn_due_in(c, L7_CLK_REQ_COPY, L7_RTO);
}

/*
 * c->lock held, head framed, nothing under way: bind, or say why not
 * (with the HTTP status of L7_BIND_STATUS, l7_route()).
 */
struct l7_bind_result l7_bind(struct l7_conn *c)
{
	struct l7_guard_log *log;
	struct l7_http_body body;
	struct l7_binding *b;
	enum l7_fwd_mode fwd;
	struct l7_routed rt;
	struct l7_bind_result r = { L7_BIND_OK };
	u32 body_len;
	bool body_done;

	lockdep_assert_held(&c->lock);

	c->want = NULL;
	if (!l7_body_buffered(c, &body, &body_len))
		return (struct l7_bind_result){ L7_BIND_BAD_BODY };
	body_done = l7_http_body_done(&body);
	b = l7_binding_route(c, body_len, body_done, &log, &fwd, &rt, &r);
	if (!b)
		return r;
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
	return r;
}

/* c->lock held: the request of @b ends at client seq @end. */
void l7_binding_req_end(struct l7_conn *c, struct l7_binding *b, u32 end)
{
	lockdep_assert_held(&c->lock);

	b->req_done = true;
	l7_range_close(&b->map.req_range, end);
	b->b_req_end = l7_seq_fwd(&b->map.req, end);
}

