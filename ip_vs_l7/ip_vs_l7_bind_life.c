// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the end of each binding (FPS step 7).  When the response has
 * been framed to its end and the client has acknowledged all of it, the
 * pooled connection goes back to the pool with its sequence and
 * timestamp state, ready for any client, or is retired; a binding whose
 * server resent part of a response waits for the client's report of the
 * duplicate; a request whose server let it go is sent again or answered
 * 502; the director's copy of a request is resent until acknowledged.
 * What becomes of each is core/binding_life.c's; this carries it out.
 * All under the client connection's lock.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/slab.h>
#include <net/tcp.h>

#include "ip_vs_l7.h"
#include "ip_vs_l7_trace.h"

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
	l7_binding_mem_free(b);
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
