// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/rate_floor.c: how far a peer may fall behind
 * a minimum rate - a stopped peer, a trickle, a fast one, pauses.
 */
#include "rate_floor.h"
#include "l7_test.h"

#define HZ 100u
/* a 10 s bucket, 500 bytes/s: Apache's mod_reqtimeout body=10,minrate=500 */
static const struct l7_rate_rule body = { 10 * HZ, 500, HZ };

/* With nothing moving, the bucket lasts exactly its size. */
static void stopped_peer_lasts_the_bucket(void)
{
	struct l7_rate_floor f;
	uint32_t t0 = 0xfffffff0u;	/* across the clock's wrap */

	l7_rate_floor_init(&f, &body, t0);
	l7_rate_floor_wait(&f, t0, true);
	CHECK(l7_rate_floor_left(&f, &body, t0) == 10 * HZ, "start %u",
	      l7_rate_floor_left(&f, &body, t0));
	CHECK(l7_rate_floor_left(&f, &body, t0 + 10 * HZ - 1) == 1, "%u",
	      l7_rate_floor_left(&f, &body, t0 + 10 * HZ - 1));
	CHECK(l7_rate_floor_left(&f, &body, t0 + 10 * HZ) == 0, "%u",
	      l7_rate_floor_left(&f, &body, t0 + 10 * HZ));
	CHECK(l7_rate_floor_left(&f, &body, t0 + 99 * HZ) == 0, "stays empty");
}

/* One byte now and then buys almost nothing: a trickle runs out. */
static void trickle_runs_out(void)
{
	struct l7_rate_floor f;
	uint32_t t = 0, i;

	l7_rate_floor_init(&f, &body, t);
	l7_rate_floor_wait(&f, t, true);
	for (i = 0; i < 100; i++) {
		t += 3 * HZ;
		if (!l7_rate_floor_left(&f, &body, t))
			break;
		l7_rate_floor_moved(&f, &body, t, 1);
	}
	/* 1 byte per 3 s refills 0.2 ticks: out after ~10 s, not never */
	CHECK(i == 3, "ran out after %u steps", i);
}

/* At the floor rate or above, the bucket never empties. */
static void at_minrate_never_runs_out(void)
{
	struct l7_rate_floor f;
	uint32_t t = 0, i;

	l7_rate_floor_init(&f, &body, t);
	l7_rate_floor_wait(&f, t, true);
	for (i = 0; i < 1000; i++) {
		t += HZ;
		l7_rate_floor_moved(&f, &body, t, 500);
		CHECK(l7_rate_floor_left(&f, &body, t) == 10 * HZ, "step %u: %u",
		      i, l7_rate_floor_left(&f, &body, t));
	}
}

/* A fast start does not buy more than the bucket: capped at its size. */
static void fast_start_is_capped(void)
{
	struct l7_rate_floor f;

	l7_rate_floor_init(&f, &body, 0);
	l7_rate_floor_wait(&f, 0, true);
	l7_rate_floor_moved(&f, &body, HZ, 100u << 20);
	CHECK(l7_rate_floor_left(&f, &body, HZ) == 10 * HZ, "%u",
	      l7_rate_floor_left(&f, &body, HZ));
	CHECK(l7_rate_floor_left(&f, &body, 11 * HZ) == 0, "then stops: %u",
	      l7_rate_floor_left(&f, &body, 11 * HZ));
	/* more bytes than 32 bits count: still capped, no overflow */
	l7_rate_floor_moved(&f, &body, 11 * HZ, UINT64_MAX);
	CHECK(l7_rate_floor_left(&f, &body, 11 * HZ) == 10 * HZ, "%u",
	      l7_rate_floor_left(&f, &body, 11 * HZ));
}

/* Time the director does not wait on the peer costs it nothing. */
static void only_waiting_drains(void)
{
	struct l7_rate_floor f;

	l7_rate_floor_init(&f, &body, 0);
	CHECK(l7_rate_floor_left(&f, &body, 50 * HZ) == L7_RATE_FLOOR_NONE,
	      "not waiting: %u", l7_rate_floor_left(&f, &body, 50 * HZ));
	l7_rate_floor_wait(&f, 50 * HZ, true);
	l7_rate_floor_wait(&f, 54 * HZ, false);	/* 4 s spent */
	l7_rate_floor_wait(&f, 90 * HZ, true);
	CHECK(l7_rate_floor_left(&f, &body, 90 * HZ) == 6 * HZ, "%u",
	      l7_rate_floor_left(&f, &body, 90 * HZ));
}

/* size 0: no floor at all. */
static void no_floor(void)
{
	static const struct l7_rate_rule off = { 0, 500, HZ };
	struct l7_rate_floor f;

	l7_rate_floor_init(&f, &off, 0);
	l7_rate_floor_wait(&f, 0, true);
	CHECK(l7_rate_floor_left(&f, &off, 1000 * HZ) == L7_RATE_FLOOR_NONE,
	      "%u", l7_rate_floor_left(&f, &off, 1000 * HZ));
}

/* minrate 0: an idle timer - any byte fills the bucket again. */
static void no_rate_is_an_idle_timer(void)
{
	static const struct l7_rate_rule idle = { 10 * HZ, 0, HZ };
	struct l7_rate_floor f;

	l7_rate_floor_init(&f, &idle, 0);
	l7_rate_floor_wait(&f, 0, true);
	l7_rate_floor_moved(&f, &idle, 9 * HZ, 1);
	CHECK(l7_rate_floor_left(&f, &idle, 9 * HZ) == 10 * HZ, "%u",
	      l7_rate_floor_left(&f, &idle, 9 * HZ));
	l7_rate_floor_moved(&f, &idle, 12 * HZ, 0);
	CHECK(l7_rate_floor_left(&f, &idle, 12 * HZ) == 7 * HZ,
	      "nothing moved: %u", l7_rate_floor_left(&f, &idle, 12 * HZ));
}

int main(void)
{
	RUN(stopped_peer_lasts_the_bucket);
	RUN(trickle_runs_out);
	RUN(at_minrate_never_runs_out);
	RUN(fast_start_is_capped);
	RUN(only_waiting_drains);
	RUN(no_floor);
	RUN(no_rate_is_an_idle_timer);
	return l7_test_summary("rate_floor");
}
