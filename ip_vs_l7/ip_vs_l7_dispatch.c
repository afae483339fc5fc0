// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: dispatching each framed request head (FPS step 4).
 *
 * A head goes on at once - bound to an idle pooled connection
 * (ip_vs_l7_bind.c) - or is held until the response before it is done,
 * which keeps the responses in request order whatever servers they come
 * from; a head no pooled connection was idle for waits in its service's
 * queue, in order, for the pool to grow or a connection to come back.
 * What a bind's result means - under way, queued, waiting on, or
 * answered by the director with which status - is core/conn_sm.c's.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include "ip_vs_l7.h"
#include "ip_vs_l7_trace.h"


/* What core/conn_sm.c made of a bind: the director's answer, if any. */
static void l7_bound_answer(struct l7_conn *c, const struct l7_csm_bound *d)
{
	if (d->act == L7_CSM_BOUND_ANSWER)
		l7_reply(c, d->status, d->why);
}

/*
 * A bind, and what core/conn_sm.c makes of its result (@queued: @c waits
 * in the queue already).  Pipelined heads behind a request that went on
 * are held: it is under way.
 */
static struct l7_csm_bound l7_bind_head(struct l7_conn *c, bool queued)
{
	struct l7_csm_bound d = l7_csm_bound(l7_bind(c), queued);

	if (d.act == L7_CSM_BOUND && c->state == L7C_HEAD && l7_head_frame(c))
		l7_head_ready(c);
	return d;
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

	lockdep_assert_held(&c->lock);

	if (!READ_ONCE(c->ls->capped))
		return l7_csm_bound((struct l7_bind_result){ L7_BIND_NONE },
				    true);
	smp_mb();	/* the queue, then the counts */
	d = l7_bind_head(c, true);
	if (d.act != L7_CSM_BOUND_WAIT)
		l7_queue_del(c);
	return d;
}

/*
 * c->lock held, a head framed (or refused) and nothing under way: send
 * it on, let it wait for a pooled connection, or answer it ourselves
 * (core/conn_sm.c decides which).
 */
static void l7_dispatch(struct l7_conn *c)
{
	struct l7_csm_bound d;

	lockdep_assert_held(&c->lock);

	c->dispatch_ns = l7_trace_clock();
	if (c->bad_status) {
		l7_reply(c, c->bad_status, "bad_head");
		return;
	}
	d = l7_bind_head(c, false);
	if (d.act == L7_CSM_BOUND_QUEUE) {
		if (l7_queue_add(c))
			d = l7_queue_retry(c);
		else
			d = l7_csm_bound((struct l7_bind_result){
						L7_BIND_QUEUE_FULL }, false);
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

	lockdep_assert_held(&c->lock);

	/*
	 * Between the dequeue and the lock a dispatch's own retry may have
	 * bound @c, and a next request of it may be queued again: it is
	 * then in the queue already.
	 */
	if (!c->dead && c->state == L7C_QUEUED)
		d = l7_bind_head(c, true);
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
