// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/conn_clock.c: each wait of a client
 * connection gets its bound when it begins and loses it when it ends,
 * whatever else happens; IDLE never stops; the timer is never late.
 */
#include "conn_clock.h"
#include "l7_test.h"

#define HZ 100u
static const struct l7_clock_rule rule = {
	.head = 30 * HZ, .queue = 5 * HZ, .idle = 900 * HZ,
	.tunnel = 3600 * HZ, .close = 30 * HZ, .floor_look = 10 * HZ,
};

static const struct l7_clock_facts awaiting = { 0 };
static const struct l7_clock_facts bound = { .bound = true };
static const struct l7_clock_facts queued = { .queued = true };

/* A new connection: IDLE only, then a head is due head_timeout later. */
static void new_conn_awaits_head(void)
{
	struct l7_clock k;
	uint32_t t0 = 0xffffff00u, next;	/* across the wrap */

	l7_clock_init(&k, &rule, t0);
	CHECK(k.armed == 1u << L7_CLK_IDLE, "armed %#x", k.armed);
	l7_clock_settle(&k, &awaiting, &rule, t0);
	CHECK(l7_clock_armed(&k, L7_CLK_HEAD), "head armed");
	CHECK(k.at[L7_CLK_HEAD] == t0 + 30 * HZ, "head at %u", k.at[L7_CLK_HEAD]);
	CHECK(l7_clock_next(&k, &next) && next == t0 + 30 * HZ, "next %u",
	      next);
	/* head bytes trickling in do not push it back */
	l7_clock_progress(&k, t0 + 10 * HZ);
	l7_clock_settle(&k, &awaiting, &rule, t0 + 10 * HZ);
	CHECK(k.at[L7_CLK_HEAD] == t0 + 30 * HZ, "moved to %u",
	      k.at[L7_CLK_HEAD]);
	CHECK(!l7_clock_due(&k, L7_CLK_HEAD, t0 + 30 * HZ - 1), "early");
	CHECK(l7_clock_due(&k, L7_CLK_HEAD, t0 + 30 * HZ), "due");
}

/*
 * The head deadline stops while anything is bound, and starts afresh
 * when the last response is done - not from the request's end.
 */
static void head_counts_from_last_response(void)
{
	struct l7_clock k;

	l7_clock_init(&k, &rule, 0);
	l7_clock_settle(&k, &awaiting, &rule, 0);
	l7_clock_settle(&k, &bound, &rule, 5 * HZ);
	CHECK(!l7_clock_armed(&k, L7_CLK_HEAD), "head stopped while bound");
	CHECK(l7_clock_armed(&k, L7_CLK_FLOOR) &&
	      k.at[L7_CLK_FLOOR] == 15 * HZ, "floor at %u", k.at[L7_CLK_FLOOR]);
	l7_clock_settle(&k, &awaiting, &rule, 100 * HZ);
	CHECK(k.at[L7_CLK_HEAD] == 130 * HZ, "head at %u", k.at[L7_CLK_HEAD]);
	CHECK(!l7_clock_armed(&k, L7_CLK_FLOOR), "floor stopped");
}

/* Queued: queue_timeout from the queueing; a bind ends it. */
static void queue_bounded(void)
{
	struct l7_clock k;

	l7_clock_init(&k, &rule, 0);
	l7_clock_settle(&k, &awaiting, &rule, 0);
	l7_clock_settle(&k, &queued, &rule, HZ);
	CHECK(l7_clock_armed(&k, L7_CLK_QUEUE) &&
	      k.at[L7_CLK_QUEUE] == 6 * HZ, "queue at %u", k.at[L7_CLK_QUEUE]);
	CHECK(!l7_clock_armed(&k, L7_CLK_HEAD), "head stopped");
	l7_clock_settle(&k, &bound, &rule, 2 * HZ);
	CHECK(!l7_clock_armed(&k, L7_CLK_QUEUE), "queue stopped");
}

/*
 * Closing with a response under way: the response's bounds (IDLE, the
 * floors) hold it; CLOSE counts from when nothing of it is left.
 */
static void close_counts_after_response(void)
{
	struct l7_clock_facts f = { .bound = true, .closing = true };
	struct l7_clock k;

	l7_clock_init(&k, &rule, 0);
	l7_clock_settle(&k, &bound, &rule, 0);
	l7_clock_settle(&k, &f, &rule, HZ);
	CHECK(!l7_clock_armed(&k, L7_CLK_CLOSE), "close while bound");
	CHECK(l7_clock_armed(&k, L7_CLK_FLOOR), "floor while bound");
	f.bound = false;
	l7_clock_settle(&k, &f, &rule, 50 * HZ);
	CHECK(l7_clock_armed(&k, L7_CLK_CLOSE) &&
	      k.at[L7_CLK_CLOSE] == 80 * HZ, "close at %u", k.at[L7_CLK_CLOSE]);
	CHECK(!l7_clock_armed(&k, L7_CLK_HEAD), "no head when closing");
	/* the client's segments do not push it back */
	l7_clock_progress(&k, 70 * HZ);
	l7_clock_settle(&k, &f, &rule, 70 * HZ);
	CHECK(k.at[L7_CLK_CLOSE] == 80 * HZ, "close moved to %u",
	      k.at[L7_CLK_CLOSE]);
}

/* A tunnel idles tunnel_timeout from its last progress, not idle_timeout. */
static void tunnel_idles_longer(void)
{
	struct l7_clock_facts t = { .bound = true, .tunnel = true };
	struct l7_clock k;

	l7_clock_init(&k, &rule, 0);
	l7_clock_settle(&k, &bound, &rule, 0);
	l7_clock_progress(&k, 10 * HZ);
	CHECK(k.at[L7_CLK_IDLE] == 910 * HZ, "idle at %u", k.at[L7_CLK_IDLE]);
	l7_clock_settle(&k, &t, &rule, 20 * HZ);
	CHECK(k.at[L7_CLK_IDLE] == 3610 * HZ, "tunnel idle at %u",
	      k.at[L7_CLK_IDLE]);
	l7_clock_progress(&k, 100 * HZ);
	CHECK(k.at[L7_CLK_IDLE] == 3700 * HZ, "after progress %u",
	      k.at[L7_CLK_IDLE]);
}

/*
 * A deadline that fired and was not set again by its handler while its
 * wait goes on is set again by the next settle: no wait stays unbounded.
 */
static void fired_wait_rearmed(void)
{
	struct l7_clock k;

	l7_clock_init(&k, &rule, 0);
	l7_clock_settle(&k, &bound, &rule, 0);
	l7_clock_stop(&k, L7_CLK_FLOOR);
	l7_clock_settle(&k, &bound, &rule, 10 * HZ);
	CHECK(l7_clock_armed(&k, L7_CLK_FLOOR) &&
	      k.at[L7_CLK_FLOOR] == 20 * HZ, "floor at %u", k.at[L7_CLK_FLOOR]);
}

/*
 * SYNC: sync_idle after a boundary began, once: after it fired the same
 * boundary arms nothing; the next request stops it, the boundary after
 * it arms it again; a boundary left sooner never fires.
 */
static void sync_once_per_boundary(void)
{
	struct l7_clock_rule r = rule;
	struct l7_clock_facts at = { .boundary = true };
	struct l7_clock k;

	r.sync = 20;
	l7_clock_init(&k, &r, 0);
	l7_clock_settle(&k, &at, &r, 0);
	CHECK(l7_clock_armed(&k, L7_CLK_SYNC) && k.at[L7_CLK_SYNC] == 20,
	      "sync at %u", k.at[L7_CLK_SYNC]);
	/* a pure ACK at the boundary does not push it back */
	l7_clock_settle(&k, &at, &r, 10);
	CHECK(k.at[L7_CLK_SYNC] == 20, "moved to %u", k.at[L7_CLK_SYNC]);
	CHECK(l7_clock_due(&k, L7_CLK_SYNC, 20), "due");
	l7_clock_stop(&k, L7_CLK_SYNC);		/* it fired */
	l7_clock_settle(&k, &at, &r, 20);
	l7_clock_settle(&k, &at, &r, 500);
	CHECK(!l7_clock_armed(&k, L7_CLK_SYNC), "armed again, same boundary");
	l7_clock_settle(&k, &bound, &r, 600);
	l7_clock_settle(&k, &at, &r, 700);
	CHECK(l7_clock_armed(&k, L7_CLK_SYNC) && k.at[L7_CLK_SYNC] == 720,
	      "next boundary at %u", k.at[L7_CLK_SYNC]);
	l7_clock_settle(&k, &bound, &r, 710);
	CHECK(!l7_clock_armed(&k, L7_CLK_SYNC), "busy: stopped");
	/* checkpoints off: never armed */
	r.sync = 0;
	l7_clock_settle(&k, &at, &r, 800);
	CHECK(!l7_clock_armed(&k, L7_CLK_SYNC), "armed without sync_idle");
}

/*
 * BUSY: sync_idle after a request of an unrecorded connection began; not
 * pushed back while it lasts; stopped when the request ends or a record
 * goes; armed again from its firing while the connection is unrecorded
 * (the record was not queued); never without sync_idle.
 */
static void busy_once_per_request(void)
{
	struct l7_clock_facts busy = { .bound = true, .unrecorded = true };
	struct l7_clock_rule r = rule;
	struct l7_clock k;

	r.sync = 20;
	l7_clock_init(&k, &r, 0);
	l7_clock_settle(&k, &busy, &r, 5);
	CHECK(l7_clock_armed(&k, L7_CLK_BUSY) && k.at[L7_CLK_BUSY] == 25,
	      "busy at %u", k.at[L7_CLK_BUSY]);
	l7_clock_settle(&k, &busy, &r, 15);
	CHECK(k.at[L7_CLK_BUSY] == 25, "moved to %u", k.at[L7_CLK_BUSY]);
	l7_clock_settle(&k, &bound, &r, 20);
	CHECK(!l7_clock_armed(&k, L7_CLK_BUSY), "recorded: stopped");
	l7_clock_settle(&k, &busy, &r, 30);
	CHECK(k.at[L7_CLK_BUSY] == 50, "next request at %u",
	      k.at[L7_CLK_BUSY]);
	l7_clock_stop(&k, L7_CLK_BUSY);		/* it fired, nothing queued */
	l7_clock_settle(&k, &busy, &r, 50);
	CHECK(l7_clock_armed(&k, L7_CLK_BUSY) && k.at[L7_CLK_BUSY] == 70,
	      "again at %u", k.at[L7_CLK_BUSY]);
	r.sync = 0;
	l7_clock_settle(&k, &busy, &r, 60);
	CHECK(!l7_clock_armed(&k, L7_CLK_BUSY), "armed without sync_idle");
}

/*
 * ->moved is set when the earliest deadline may have changed: a deadline
 * sooner than it, the earliest one moved on or stopped - not a later one
 * set or stopped behind it.
 */
static void moved_when_earliest_changes(void)
{
	struct l7_clock k;

	l7_clock_init(&k, &rule, 0);
	k.moved = false;
	l7_clock_set(&k, L7_CLK_REPLY, 1000 * HZ);
	CHECK(!k.moved, "later than IDLE: the timer need not move");
	l7_clock_stop(&k, L7_CLK_REPLY);
	CHECK(!k.moved, "a later one stopped: the timer need not move");
	l7_clock_set(&k, L7_CLK_ACK, 1);
	CHECK(k.moved, "earlier: it must");
	k.moved = false;
	l7_clock_set(&k, L7_CLK_ACK, 5);
	CHECK(k.moved, "the earliest moved on: it may");
	k.moved = false;
	l7_clock_stop(&k, L7_CLK_ACK);
	CHECK(k.moved, "the earliest stopped: it may");
	k.moved = false;
	l7_clock_stop(&k, L7_CLK_ACK);
	CHECK(!k.moved, "stopped twice: nothing changed");
}

/*
 * The timer goes to the earliest deadline when it is off or late, and
 * back to it when the deadline it was set for stopped - unless it would
 * fire no more than the slack early.
 */
static void rearm_follows_earliest(void)
{
	struct l7_clock k;
	uint32_t t0 = 0xfffffff0u, at;	/* across the wrap */

	l7_clock_init(&k, &rule, t0);
	l7_clock_settle(&k, &awaiting, &rule, t0);
	CHECK(l7_clock_rearm(&k, false, 0, 10, &at) && at == t0 + 30 * HZ,
	      "off: set to head's %u", at);
	/* a request: ACK owed in 4 ticks, the timer brought forward */
	l7_clock_settle(&k, &bound, &rule, t0);
	l7_clock_set(&k, L7_CLK_ACK, t0 + 4);
	CHECK(l7_clock_rearm(&k, true, t0 + 30 * HZ, 10, &at) && at == t0 + 4,
	      "forward to the ACK: %u", at);
	/* the response carried the ACK: the timer goes back */
	l7_clock_stop(&k, L7_CLK_ACK);
	CHECK(l7_clock_rearm(&k, true, t0 + 4, 10, &at) &&
	      at == t0 + 10 * HZ, "back to the floor's %u", at);
	/* IDLE moved on a little: the timer stays */
	CHECK(!l7_clock_rearm(&k, true, t0 + 10 * HZ - 10, 10, &at),
	      "within the slack: left");
	CHECK(l7_clock_rearm(&k, true, t0 + 10 * HZ - 11, 10, &at),
	      "past it: moved");
	CHECK(!l7_clock_rearm(&k, true, t0 + 10 * HZ, 10, &at), "already there");
}

int main(void)
{
	RUN(new_conn_awaits_head);
	RUN(head_counts_from_last_response);
	RUN(queue_bounded);
	RUN(close_counts_after_response);
	RUN(tunnel_idles_longer);
	RUN(fired_wait_rearmed);
	RUN(moved_when_earliest_changes);
	RUN(rearm_follows_earliest);
	RUN(sync_once_per_boundary);
	RUN(busy_once_per_request);
	return l7_test_summary("conn_clock");
}
