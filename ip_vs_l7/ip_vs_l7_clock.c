// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: a client connection's timer, driven by its clock
 * (core/conn_clock.h).  Each deadline means one thing and has one
 * handler; the timer fires at the earliest and runs every handler that
 * is due, in the clock's order.  After every event that may have begun
 * or ended a wait (a segment either way, a bind from the queue, a tick)
 * l7_conn_settle() lets the clock start and stop the bounds on holding.
 * All under c->lock.
 */

#include <linux/jiffies.h>

#include "ip_vs_l7.h"
#include "ip_vs_l7_sync.h"

/* The least time a client has to close after the director did. */
#define L7_CLOSING_MIN		(10 * HZ)

static struct l7_clock_rule l7_clock_rule(void)
{
	u32 head = READ_ONCE(l7_head_timeout) * HZ;

	return (struct l7_clock_rule){
		.head = head,
		.queue = msecs_to_jiffies(READ_ONCE(l7_queue_timeout)),
		.idle = READ_ONCE(l7_idle_timeout) * HZ,
		.tunnel = READ_ONCE(l7_tunnel_timeout) * HZ,
		.close = max_t(u32, head, L7_CLOSING_MIN),
		/* a floor cannot run out sooner than its bucket's size */
		.floor_look = min_not_zero(READ_ONCE(l7_body_timeout),
					   READ_ONCE(l7_ack_timeout)) * HZ,
	};
}

/* A new connection: only IDLE runs until its first settle. */
void l7_conn_clock_start(struct l7_conn *c)
{
	struct l7_clock_rule r = l7_clock_rule();

	l7_clock_init(&c->clock, &r, jiffies);
}

/*
 * How much sooner than the clock's earliest deadline the timer may stay
 * set: IDLE moves on with progress, and a timer moved for each segment
 * would cost more than the rare early tick.
 */
#define L7_TIMER_SLACK		(HZ / 10)

/*
 * The timer at the clock's earliest deadline: brought forward, and put
 * back once the deadlines it was set for stopped (l7_clock_rearm()).
 */
static void l7_conn_timer_arm(struct l7_conn *c)
{
	u32 at;

	if (!c->clock.moved)
		return;
	c->clock.moved = false;
	if (l7_clock_rearm(&c->clock, timer_pending(&c->timer),
			   (u32)c->timer.expires, L7_TIMER_SLACK, &at))
		mod_timer(&c->timer, jiffies + (s32)(at - (u32)jiffies));
}

/* @s falls due @delay from now. */
void l7_conn_due_in(struct l7_conn *c, enum l7_clock_slot s,
		    unsigned long delay)
{
	lockdep_assert_held(&c->lock);

	l7_clock_set(&c->clock, s, jiffies + delay);
	l7_conn_timer_arm(c);
}

/* After an event: the floors and the clock follow what @c does now. */
void l7_conn_settle(struct l7_conn *c)
{
	struct l7_clock_rule r = l7_clock_rule();
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

/* No progress for idle_timeout (tunnel_timeout): the connection ends. */
static void l7_idle_late(struct l7_conn *c)
{
	if (c->state == L7C_HEAD && list_empty(&c->bindings)) {
		l7_head_late(c);	/* nothing under way: as a late head */
		return;
	}
	c->end = L7_END_IDLE;
	c->dead = true;
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
		l7_floor_due(c);
		break;
	case L7_CLK_CLOSE:
		l7_close_late(c);
		break;
	case L7_CLK_SYNC:
		l7_conn_checkpoint(c);
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
void l7_conn_tick(struct l7_conn *c)
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
