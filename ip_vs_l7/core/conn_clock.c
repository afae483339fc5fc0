// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: the one clock of a client connection (conn_clock.h).
 */
#include "conn_clock.h"

static bool clock_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

void l7_clock_init(struct l7_clock *k, const struct l7_clock_rule *r,
		   uint32_t now)
{
	*k = (struct l7_clock){ .progress = now, .idle_span = r->idle };
	l7_clock_set(k, L7_CLK_IDLE, now + r->idle);
}

void l7_clock_set(struct l7_clock *k, enum l7_clock_slot s, uint32_t at)
{
	uint32_t next;

	/* sooner than the earliest, or the earliest moved on */
	if (!l7_clock_next(k, &next) || clock_before(at, next) ||
	    (l7_clock_armed(k, s) && k->at[s] == next && at != next))
		k->moved = true;
	k->at[s] = at;
	k->armed |= 1u << s;
}

void l7_clock_stop(struct l7_clock *k, enum l7_clock_slot s)
{
	uint32_t next;

	if (l7_clock_armed(k, s) && l7_clock_next(k, &next) && k->at[s] == next)
		k->moved = true;
	k->armed &= ~(1u << s);
}

void l7_clock_progress(struct l7_clock *k, uint32_t now)
{
	k->progress = now;
	k->at[L7_CLK_IDLE] = now + k->idle_span;
}

/* @s is armed from @now for @span while @wait holds, else stopped. */
static void clock_follow(struct l7_clock *k, enum l7_clock_slot s, bool wait,
			 bool waited, uint32_t now, uint32_t span)
{
	if (!wait)
		l7_clock_stop(k, s);
	else if (!waited || !l7_clock_armed(k, s))
		l7_clock_set(k, s, now + span);
}

static bool clock_awaits_head(const struct l7_clock_facts *f)
{
	return !f->bound && !f->queued && !f->tunnel && !f->closing;
}

void l7_clock_settle(struct l7_clock *k, const struct l7_clock_facts *f,
		     const struct l7_clock_rule *r, uint32_t now)
{
	const struct l7_clock_facts was = k->was;
	uint32_t idle_span = f->tunnel ? r->tunnel : r->idle;

	/* a head is due from when nothing else is under way */
	clock_follow(k, L7_CLK_HEAD, clock_awaits_head(f),
		     clock_awaits_head(&was), now, r->head);
	clock_follow(k, L7_CLK_QUEUE, f->queued, was.queued, now, r->queue);
	/* the floors bound what a pooled connection waits on the client */
	clock_follow(k, L7_CLK_FLOOR, f->bound && r->floor_look, was.bound,
		     now, r->floor_look);
	/*
	 * Once the director closed and nothing of a response is left, the
	 * client has r->close to take our FIN and send its own; a response
	 * still under way is bounded by IDLE and the floors.
	 */
	clock_follow(k, L7_CLK_CLOSE, f->closing && !f->bound,
		     was.closing && !was.bound, now, r->close);
	/*
	 * Once per boundary, from its start: after it fired, the same
	 * boundary arms nothing more (a checkpoint of it is sent).  A
	 * boundary that began while checkpoints were off is not armed.
	 */
	if (!f->boundary || !r->sync)
		l7_clock_stop(k, L7_CLK_SYNC);
	else if (!was.boundary)
		l7_clock_set(k, L7_CLK_SYNC, now + r->sync);
	clock_follow(k, L7_CLK_BUSY, f->unrecorded && r->sync, was.unrecorded,
		     now, r->sync);
	k->was = *f;
	/* a tunnel may idle longer; a new setting counts from progress */
	if (idle_span != k->idle_span) {
		k->idle_span = idle_span;
		l7_clock_set(k, L7_CLK_IDLE, k->progress + idle_span);
	}
}

bool l7_clock_due(const struct l7_clock *k, enum l7_clock_slot s,
		  uint32_t now)
{
	return l7_clock_armed(k, s) && !clock_before(now, k->at[s]);
}

bool l7_clock_next(const struct l7_clock *k, uint32_t *at)
{
	bool any = false;
	int s;

	for (s = 0; s < L7_CLK_NR; s++) {
		if (!l7_clock_armed(k, s))
			continue;
		if (!any || clock_before(k->at[s], *at))
			*at = k->at[s];
		any = true;
	}
	return any;
}

bool l7_clock_rearm(const struct l7_clock *k, bool on, uint32_t timer,
		    uint32_t slack, uint32_t *at)
{
	if (!l7_clock_next(k, at))
		return false;
	return !on || clock_before(*at, timer) ||
	       clock_before(timer + slack, *at);
}
