// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: a client connection's timer, set at its clock's earliest
 * deadline (core/conn_clock.h).  Arming a deadline is all anyone below
 * the connection's events does with time: the timer's handler, which
 * runs each deadline that fell due, and l7_conn_settle() are
 * ip_vs_l7_events.c's.  A leaf.  All under c->lock.
 */

#include <linux/jiffies.h>

#include "ip_vs_l7.h"

/* The least time a client has to close after the director did. */
#define L7_CLOSING_MIN		(10 * HZ)

/* The spans of the deadlines, from the module's parameters now. */
struct l7_clock_rule l7_conn_clock_rule(void)
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
	struct l7_clock_rule r = l7_conn_clock_rule();

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
void l7_conn_timer_arm(struct l7_conn *c)
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

/* c->lock held: the connection ends at once, from its timer. */
void l7_conn_end(struct l7_conn *c, enum l7_end end, const char *reason)
{
	lockdep_assert_held(&c->lock);

	c->end = end;
	c->dead_reason = reason;
	l7_conn_due_in(c, L7_CLK_END, 0);
}
