// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: where a client connection's events come in - a client
 * segment, a server segment on one of its bindings, its timer, a pooled
 * connection for a waiting request, the end of its service or server.
 * Each takes the connection's lock, hands the event to the state
 * functions below (ip_vs_l7_client.c, ip_vs_l7_dispatch.c, the deadline
 * handlers), then lets the clock follow what the connection does now
 * (l7_conn_settle()); a connection that died is torn down here.  Nothing
 * below calls up into this file: the timer, the hooks and the pool's
 * work are the only ways in.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/jiffies.h>
#include <linux/wait_bit.h>
#include <net/tcp.h>

#include "ip_vs_l7.h"
#include "ip_vs_l7_sync.h"
#include "ip_vs_l7_trace.h"

/* After an event: the floors and the clock follow what @c does now. */
void l7_conn_settle(struct l7_conn *c)
{
	struct l7_clock_rule r = l7_conn_clock_rule();
	struct l7_clock_facts f = {
		.bound = !list_empty(&c->bindings),
		.queued = c->state == L7C_QUEUED,
		.tunnel = c->state == L7C_TUNNEL,
		.closing = c->state == L7C_CLOSING,
		.boundary = l7_conn_at_boundary(c),
	};
	bool began;

	lockdep_assert_held(&c->lock);

	if (c->dead)
		return;
	f.unrecorded = !c->ckpt_gen && (f.bound || f.queued);
	began = f.boundary && !c->clock.was.boundary;
	r.sync = l7_sync_idle(c->net);
	l7_floor_update(c);
	l7_clock_settle(&c->clock, &f, &r, jiffies);
	l7_conn_timer_arm(c);
	/*
	 * The record of a boundary goes when it begins, as the response's
	 * last byte leaves (the channel batches it with others for a few
	 * ms): a client may send its next request to the other director
	 * any time after it has the response.  SYNC, sync_idle later,
	 * sends it again if the boundary lasts, with what the client's
	 * ACK of the response brought (its window, its timestamp), and in
	 * case the first datagram was lost.
	 */
	if (began && r.sync)
		l7_conn_checkpoint(c);
}

/*
 * No progress for idle_timeout (tunnel_timeout): the connection ends, or
 * with nothing under way is answered as a late head.
 */
static void l7_idle_late(struct l7_conn *c)
{
	struct l7_csm m = l7_csm_of(c);

	if (l7_csm_idle(&m) == L7_CSM_LATE_HEAD) {
		l7_head_late(c);
		return;
	}
	c->end = L7_END_IDLE;
	c->dead = true;
}

/*
 * The client's request body fell below body_minrate: its server waits
 * for what does not come, holding a pooled connection.  The director
 * answers 408, or the connection ends (core/conn_sm.c).
 */
static void l7_slow_body(struct l7_conn *c)
{
	struct l7_csm m = l7_csm_of(c);

	l7_service_count(c->ls, slow_request);
	if (l7_csm_slow_body(&m) == L7_CSM_LATE_END) {
		c->end = L7_END_BAD_REQUEST;
		c->dead = true;
		return;
	}
	l7_binding_abort(c, c->cur);
	l7_reply(c, 408, "slow_request");
}

/* L7_CLK_FLOOR: a client that fell below a floor ends (floor.c). */
static void l7_floor_late(struct l7_conn *c)
{
	switch (l7_floor_due(c)) {
	case L7_FLOOR_SLOW_BODY:
		l7_slow_body(c);
		break;
	case L7_FLOOR_SLOW_READER:
		c->end = L7_END_SLOW_READER;
		c->dead = true;
		break;
	case L7_FLOOR_HOLDS:
		break;
	}
}

static void l7_clock_fire(struct l7_conn *c, enum l7_clock_slot s)
{
	switch (s) {
	case L7_CLK_END:
		c->dead = true;
		break;
	case L7_CLK_ACK:
		l7_ack_due(c);
		break;
	case L7_CLK_RSP_COPY:
		l7_rsp_copy_due(c);
		break;
	case L7_CLK_DUP_WAIT:
		l7_binding_dup_wait_over(c);
		break;
	case L7_CLK_REQ_COPY:
		l7_binding_copy_due(c);
		break;
	case L7_CLK_REPLY:
		l7_reply_due(c);
		break;
	case L7_CLK_HEAD:
		l7_head_late(c);
		break;
	case L7_CLK_QUEUE:
		l7_queue_late(c);
		break;
	case L7_CLK_FLOOR:
		l7_floor_late(c);
		break;
	case L7_CLK_CLOSE:
		l7_close_late(c);
		break;
	case L7_CLK_SYNC:
		l7_conn_checkpoint_again(c);
		break;
	case L7_CLK_BUSY:
		l7_conn_checkpoint_busy(c);
		break;
	case L7_CLK_IDLE:
		l7_idle_late(c);
		break;
	case L7_CLK_NR:
		break;
	}
}

/* The connection timer: every deadline that is due, in order. */
static void l7_conn_tick(struct l7_conn *c)
{
	u32 now = jiffies;
	int s;

	lockdep_assert_held(&c->lock);

	for (s = 0; s < L7_CLK_NR && !c->dead; s++) {
		if (!l7_clock_due(&c->clock, s, now))
			continue;
		l7_clock_stop(&c->clock, s);
		l7_clock_fire(c, s);
	}
	if (c->dead)
		return;
	/* the timer ran: whatever is next must set it again */
	c->clock.moved = true;
	l7_conn_settle(c);
}

/*
 * @c is dead and owned by the caller: out of the table, its client and
 * servers told what they must hear, its bindings and record ended, and
 * freed after RCU.
 */
static void l7_conn_destroy(struct l7_conn *c)
{
	struct l7_csm m;

	l7_conn_unhash(c);
	spin_lock_bh(&c->lock);
	/*
	 * A binding left means the client did not get all: reset it
	 * (core/conn_sm.c).  It takes a RST only at exactly its rcv_nxt
	 * (RFC 5961), which is where its last ACK pointed unless our bytes
	 * after it arrived, or where we stopped if they all did: both, as
	 * for a server.
	 */
	m = l7_csm_of(c);
	if (l7_csm_end_resets(&m)) {
		l7_send_client(c, TCPHDR_RST, c->d_snd_una, NULL, 0);
		if (c->d_snd_una != c->d_snd_nxt)
			l7_send_client(c, TCPHDR_RST, c->d_snd_nxt, NULL, 0);
	}
	trace_l7_conn_end(c);
	l7_conn_sync_end(c);
	if (c->requests)
		l7_service_count(c->ls, ended[c->end]);
	l7_binding_abort_all(c);
	spin_unlock_bh(&c->lock);
	l7_queue_del(c);
	l7_conn_release(c);
}

/* The connection's timer: its deadlines, and its end. */
void l7_conn_timer_fn(struct timer_list *t)
{
	struct l7_conn *c = from_timer(c, t, timer);
	bool destroy = false;

	spin_lock(&c->lock);
	if (!c->dead) {
		l7_conn_tick(c);
		if (c->dead) {
			/* a handler may have re-armed us before we set dead */
			timer_delete(&c->timer);
			destroy = true;
		}
	}
	spin_unlock(&c->lock);
	if (destroy)
		l7_conn_destroy(c);
}

/*
 * Process context: kill every connection of @ls (bound to a connection
 * of @pool, if not NULL) and wait until all are freed, including the
 * ones whose own timer is freeing them right now.  For a whole service,
 * packets must already be unable to find it.
 */
void l7_conn_flush(struct l7_service *ls, struct l7_pool *pool)
{
	unsigned int h = 0;
	struct l7_conn *c;

	while ((c = l7_conn_kill_next(ls, pool, &h))) {
		timer_delete_sync(&c->timer);
		l7_conn_destroy(c);
	}
	if (pool)
		wait_var_event(&pool->n_busy, !READ_ONCE(pool->n_busy));
	else
		wait_var_event(&ls->nr_conns, !atomic_read(&ls->nr_conns));
}

/* A segment from a server on a pooled connection bound to @c. */
bool l7_backend_packet(struct l7_conn *c, struct l7_pconn *pc,
		       struct sk_buff *skb, unsigned int *verdict)
{
	struct l7_binding *b = NULL;

	spin_lock_bh(&c->lock);
	if (!c->dead)
		b = l7_binding_of(c, pc);
	if (b) {
		*verdict = l7_server_segment(c, b, skb);
		l7_conn_settle(c);
	}
	spin_unlock_bh(&c->lock);
	return b;
}

/* A segment from the client of @c. */
unsigned int l7_client_packet(struct l7_conn *c, struct sk_buff *skb)
{
	unsigned int verdict = NF_DROP;

	spin_lock_bh(&c->lock);
	if (!c->dead) {
		verdict = l7_client_segment(c, skb);
		l7_conn_settle(c);
	}
	spin_unlock_bh(&c->lock);
	return verdict;
}

/*
 * Process context, pooled connections became idle or a capped server
 * has room again: bind waiters, in order, until one finds none.
 */
void l7_queue_kick(struct l7_service *ls)
{
	struct l7_conn *c;
	bool more = true;

	while (more) {
		rcu_read_lock();	/* a dequeued conn is freed by RCU */
		c = l7_queue_pop(ls);
		if (!c) {
			rcu_read_unlock();
			break;
		}
		spin_lock_bh(&c->lock);
		more = l7_queue_bind(c);
		l7_conn_settle(c);
		spin_unlock_bh(&c->lock);
		rcu_read_unlock();
	}
}
