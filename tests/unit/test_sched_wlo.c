// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/sched_wlo.c, the service-wide scheduler: the
 * fewest outstanding requests per weight wins; equals take turns in
 * proportion to their weights; a server that was away counts from the
 * service's clock, not from its old pass; a server that cannot take the
 * request now (weight 0, down, full, no idle connection unless any will
 * do) is never picked.
 */
#include "sched_wlo.h"
#include "l7_test.h"

#define N	4

struct service {
	uint64_t clock;
	struct l7_wlo_cand s[N];
	unsigned int n;
};

static struct service service(unsigned int n, const int32_t *weights)
{
	struct service v = { .n = n };
	unsigned int i;

	for (i = 0; i < n; i++)
		v.s[i] = (struct l7_wlo_cand){ .weight = weights[i],
					       .idle = true };
	return v;
}

/* One pick as the glue makes it: the winner's index, or -1. */
static int pick(struct service *v, bool any)
{
	struct l7_wlo w;
	unsigned int i;
	int best = -1;

	l7_wlo_begin(&w, v->clock, any);
	for (i = 0; i < v->n; i++)
		if (l7_wlo_offer(&w, &v->s[i]))
			best = (int)i;
	CHECK(l7_wlo_found(&w) == (best >= 0), "found");
	if (best >= 0) {
		v->clock = l7_wlo_clock(&w);
		v->s[best].pass = l7_wlo_next_pass(&w);
	}
	return best;
}

/* Nothing outstanding (one request at a time): equals alternate. */
static void equals_take_turns(void)
{
	static const int32_t w[] = { 1, 1, 1 };
	struct service v = service(3, w);
	unsigned int count[3] = { 0 }, i;
	int last = -1, m;

	for (i = 0; i < 300; i++) {
		m = pick(&v, false);
		CHECK(m >= 0 && m != last, "pick %u: %d after %d", i, m, last);
		count[m]++;
		last = m;
	}
	CHECK(count[0] == 100 && count[1] == 100 && count[2] == 100,
	      "%u %u %u", count[0], count[1], count[2]);
}

/* Ties in proportion to the weights, 3:1. */
static void ties_by_weight(void)
{
	static const int32_t w[] = { 3, 1 };
	struct service v = service(2, w);
	unsigned int count[2] = { 0 }, i;

	for (i = 0; i < 400; i++)
		count[pick(&v, false)]++;
	CHECK(count[0] == 300 && count[1] == 100, "%u %u", count[0],
	      count[1]);
}

/* Outstanding requests per weight decide before turns. */
static void fewest_per_weight(void)
{
	static const int32_t w[] = { 2, 1 };
	struct service v = service(2, w);

	v.s[0].outstanding = 3;		/* 1.5 per weight */
	v.s[1].outstanding = 1;		/* 1 */
	CHECK(pick(&v, false) == 1, "the less loaded");
	v.s[1].outstanding = 2;		/* 2 per weight */
	CHECK(pick(&v, false) == 0, "then the other");
	v.s[0].outstanding = 4;		/* equal: 2 each, turns */
	v.s[0].pass = 0;
	v.s[1].pass = 0;
	v.clock = 0;
	CHECK(pick(&v, false) == 0 && pick(&v, false) == 1,
	      "equal loads in turn");
	/* a negative count (a race's) is none, not 2^64 */
	v.s[0].outstanding = -1;
	v.s[1].outstanding = 0;
	v.s[0].pass = v.s[1].pass = v.clock;
	CHECK(pick(&v, false) == 0, "negative as zero");
}

/*
 * A server away for 1000 picks comes back at the service's clock: it
 * takes its turn among equals, not the 1000 it missed.
 */
static void return_is_no_flood(void)
{
	static const int32_t w[] = { 1, 1 };
	struct service v = service(2, w);
	unsigned int count[2] = { 0 }, i;

	v.s[1].down = true;
	for (i = 0; i < 1000; i++)
		CHECK(pick(&v, false) == 0, "only the one up");
	v.s[1].down = false;
	for (i = 0; i < 10; i++)
		count[pick(&v, false)]++;
	CHECK(count[0] == 5 && count[1] == 5, "after its return: %u %u",
	      count[0], count[1]);
}

static void not_eligible(void)
{
	static const int32_t w[] = { 0, -1, 1, 1 };
	struct service v = service(4, w);
	unsigned int i;

	v.s[2].full = true;
	v.s[3].idle = false;
	CHECK(pick(&v, false) == -1, "weight 0 or below, full, none idle");
	CHECK(v.clock == 0, "no pick moves no clock");
	CHECK(pick(&v, true) == 3, "any: one without an idle connection");
	v.s[3].down = true;
	CHECK(pick(&v, true) == -1, "never one that is down");
	for (i = 0; i < 4; i++)
		v.s[i] = (struct l7_wlo_cand){ 0 };
	v.n = 0;
	CHECK(pick(&v, true) == -1, "no server");
}

/* Random loads: the pick is always a least loaded eligible server. */
static void random_loads_least(void)
{
	unsigned int round, i;

	for (round = 0; round < 20000; round++) {
		struct service v = { .n = N, .clock = l7_rand() % 8 };
		int m;

		for (i = 0; i < N; i++)
			v.s[i] = (struct l7_wlo_cand){
				.weight = (int32_t)(l7_rand() % 5) - 1,
				.outstanding = (int32_t)(l7_rand() % 6),
				.pass = l7_rand() % 16,
				.down = !(l7_rand() % 7),
				.full = !(l7_rand() % 7),
				.idle = l7_rand() % 3,
			};
		m = pick(&v, round & 1);
		for (i = 0; i < N; i++) {
			const struct l7_wlo_cand *c = &v.s[i];
			bool ok = c->weight > 0 && !c->down && !c->full &&
				  ((round & 1) || c->idle);

			if (!ok)
				continue;
			CHECK(m >= 0, "round %u: none picked", round);
			if (m < 0)
				return;
			CHECK((uint64_t)v.s[m].outstanding * (uint64_t)c->weight <=
			      (uint64_t)c->outstanding * (uint64_t)v.s[m].weight,
			      "round %u: %d over %u", round, m, i);
		}
	}
}

/*
 * The peers' words on a server: only those younger than the freshness
 * count (a silent peer's stop counting), across the clock's wrap.
 */
static void peers_fresh_only(void)
{
	struct l7_peer_load pl[4] = {
		{ .outstanding = 3, .at_ms = 0xfffffff0u },	/* 20 ms old */
		{ .outstanding = 5, .at_ms = 0xffffff00u - 1000 }, /* stale */
		{ .outstanding = 7, .at_ms = 4 },		/* just now */
		{ 0 },
	};

	CHECK(l7_wlo_peers(pl, 4, 4, 1000) == 10, "sum %u",
	      l7_wlo_peers(pl, 4, 4, 1000));
	CHECK(l7_wlo_peers(pl, 4, 4 + 1000, 1000) == 0, "all stale");
	CHECK(l7_wlo_peers(pl, 0, 4, 1000) == 0, "no peer");
}

/*
 * Side by side: a server the peers load counts as loaded here too - the
 * pick goes around it though this director sent it nothing.
 */
static void peers_load_steers(void)
{
	static const int32_t w[] = { 1, 1, 1 };
	struct service v = service(3, w);
	struct l7_peer_load pl[2] = { { 2, 100 }, { 1, 150 } };
	unsigned int i;

	v.s[0].outstanding = (int32_t)l7_wlo_peers(pl, 2, 200, 1000);
	for (i = 0; i < 6; i++) {
		int m = pick(&v, false);

		CHECK(m == 1 || m == 2, "pick %u: the server the peers load", i);
		if (m > 0)
			v.s[m].outstanding++;
	}
	CHECK(pick(&v, false) == 0, "equal again: its turn");
}

/*
 * Passes left behind the clock (a server that lost picks on load) take
 * the next ties in the order they fell behind, not in the list's order.
 */
static void behind_in_their_order(void)
{
	static const int32_t w[] = { 1, 1, 1 };
	struct service v = service(3, w);

	v.clock = 10 * L7_WLO_STRIDE;
	v.s[0].pass = 7 * L7_WLO_STRIDE;
	v.s[1].pass = 3 * L7_WLO_STRIDE;	/* behind the longest */
	v.s[2].pass = 5 * L7_WLO_STRIDE;
	CHECK(pick(&v, false) == 1, "the longest behind first");
	CHECK(pick(&v, false) == 2, "then the next");
	CHECK(pick(&v, false) == 0, "then the last");
	CHECK(v.s[1].pass == 11 * L7_WLO_STRIDE, "counted from the clock: %llu",
	      (unsigned long long)(v.s[1].pass / L7_WLO_STRIDE));
}

int main(void)
{
	RUN(equals_take_turns);
	RUN(ties_by_weight);
	RUN(fewest_per_weight);
	RUN(return_is_no_flood);
	RUN(not_eligible);
	RUN(random_loads_least);
	RUN(peers_fresh_only);
	RUN(peers_load_steers);
	RUN(behind_in_their_order);
	return l7_test_summary("sched_wlo");
}
