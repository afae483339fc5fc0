// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the director's copy of a response head, for an HTTP/1.0
 * client that asked for keep-alive (core/rsp_head.h says why and what).
 *
 * Such a client closes unless a response says "Connection: keep-alive",
 * and a server says so only about its own connection.  So the response
 * guard takes the head (core/rsp_guard.c, bounded by L7_RSP_HEAD_MAX),
 * the director acknowledges the taken bytes to the server as it takes
 * them - as it does with a client's request head - and, once the head is
 * whole, sends the client its own copy, which says keep-alive, resent
 * until acknowledged.  The rest of the response is mapped right after
 * the copy (core/tcp_map.c, l7_binding_rsp_copy()).  Only this case
 * takes the head: an HTTP/1.1 client, or a response whose head came in
 * one segment and keeps the client as it is, passes as before.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <net/tcp.h>

#include "ip_vs_l7.h"

/*
 * c->lock held, at bind: whether the framed request's response head is
 * the director's to take - an HTTP/1.0 request that asked for
 * keep-alive, or an HTTP/1.1 one that asked to close (core/rsp_head.h);
 * not for an upgrade: no tunnel starts from a taken head.
 */
bool l7_rsp_copy_wanted(const struct l7_conn *c)
{
	lockdep_assert_held(&c->lock);

	if (c->req.version_major != 1 || c->req.upgrade)
		return false;
	return c->req.version_minor == 0 ? c->req.keep_alive :
					   !c->req.keep_alive;
}

/* The guard took head bytes of @b: the server has them off its hands. */
void l7_rsp_copy_taken(struct l7_conn *c, struct l7_binding *b)
{
	lockdep_assert_held(&c->lock);

	l7_binding_send_ack(c, b, l7_rsp_guard_taken_end(&b->rsp_guard));
}

static bool l7_rsp_copy_unacked(const struct l7_conn *c,
				const struct l7_binding *b)
{
	return b->rsp_copy &&
	       before(c->d_snd_una, b->rsp_copy_seq + b->rsp_copy_len);
}

/* (Re)send what the client lacks of @b's copy, cut to its MSS. */
static void l7_rsp_copy_xmit(struct l7_conn *c, const struct l7_binding *b)
{
	u32 mss = c->c_mss - (c->c_ts ? L7_TS_OPT_LEN : 0), off, n;

	/* a connection's MSS is floored (l7_conn_restore()): n never 0 */
	if (WARN_ON_ONCE(!mss))
		return;
	for (off = 0; off < b->rsp_copy_len; off += n) {
		n = min(mss, b->rsp_copy_len - off);
		if (!before(c->d_snd_una, b->rsp_copy_seq + off + n))
			continue;	/* the client has it */
		l7_send_client(c, off + n == b->rsp_copy_len ? TCPHDR_PSH : 0,
			       b->rsp_copy_seq + off, b->rsp_copy + off, n);
	}
}

/* The next resend of a copy. */
static void l7_rsp_copy_arm(struct l7_conn *c)
{
	l7_conn_due_in(c, L7_CLK_RSP_COPY, L7_RTO << c->copy_retries);
}

/*
 * c->lock held: the guard's taking of @b's head ended.  The copy (the
 * head rewritten, or as it came when it keeps the client, was too long
 * to take whole or has no room for the copy's field - then the client's
 * connection closes after the response, as before) goes first, and the
 * rest of the response maps after it.
 */
void l7_rsp_copy_start(struct l7_conn *c, struct l7_binding *b)
{
	const struct l7_rsp_guard *g = &b->rsp_guard;
	u32 end;

	lockdep_assert_held(&c->lock);

	b->rsp_copy = b->rsp_head + L7_RSP_HEAD_MAX;
	b->rsp_copy_len = 0;
	if (g->taken_whole)
		b->rsp_copy_len = l7_rsp_head_copy(b->rsp_copy, g->head,
						   g->taken, &g->resp,
						   g->take_close);
	if (!b->rsp_copy_len) {
		memcpy(b->rsp_copy, g->head, g->taken);
		b->rsp_copy_len = g->taken;
		b->close_after = true;
	}
	b->rsp_copy_seq = b->map.rsp_range.start;
	l7_binding_rsp_copy(&b->map, l7_rsp_guard_taken_end(g),
			    b->rsp_copy_len);
	b->rsp_seen = true;
	end = b->map.rsp_range.start;
	if (after(end, c->d_snd_nxt))
		c->d_snd_nxt = end;
	l7_conn_progress(c);
	this_cpu_add(b->pc->pool->bytes->from_server, g->taken);
	l7_rsp_copy_xmit(c, b);
	c->copy_retries = 0;
	l7_rsp_copy_arm(c);
}

/* L7_CLK_RSP_COPY, c->lock held: resend the copies the client lacks. */
void l7_rsp_copy_due(struct l7_conn *c)
{
	struct l7_csm_resend r;
	struct l7_binding *b;
	bool pending = false;

	lockdep_assert_held(&c->lock);

	list_for_each_entry(b, &c->bindings, node) {
		if (l7_rsp_copy_unacked(c, b)) {
			l7_rsp_copy_xmit(c, b);
			pending = true;
		}
	}
	r = l7_csm_rsp_copy_due(pending, c->copy_retries);
	c->copy_retries = r.tries;
	if (r.send)
		l7_rsp_copy_arm(c);
}
