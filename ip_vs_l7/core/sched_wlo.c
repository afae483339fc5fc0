// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: the service-wide scheduler (sched_wlo.h).
 */
#include "sched_wlo.h"

/* a before b: fewer per unit of weight, by cross-multiplying */
static bool fewer_weighted(uint64_t a, uint64_t wa, uint64_t b, uint64_t wb)
{
	return a * wb < b * wa;
}

void l7_wlo_begin(struct l7_wlo *s, uint64_t clock, bool any)
{
	*s = (struct l7_wlo){ .clock = clock, .any = any, .weight = 1 };
}

/*
 * Among equals, the lower pass; among passes left behind the clock (all
 * counted as the clock), the one left furthest behind - the server that
 * has waited longest - not the first offered, which would favour the
 * first servers of the list whenever loads differ and passes fall behind.
 */
static bool earlier_turn(uint64_t pass, uint64_t raw, const struct l7_wlo *s)
{
	return pass < s->pass || (pass == s->pass && raw < s->raw);
}

bool l7_wlo_offer(struct l7_wlo *s, const struct l7_wlo_cand *c)
{
	uint64_t out = c->outstanding > 0 ? (uint64_t)c->outstanding : 0;
	uint64_t pass = c->pass > s->clock ? c->pass : s->clock;
	uint64_t w = c->weight > 0 ? (uint64_t)c->weight : 0;

	if (!w || c->down || c->full || (!s->any && !c->idle))
		return false;
	if (s->found && !fewer_weighted(out, w, s->out, s->weight) &&
	    (fewer_weighted(s->out, s->weight, out, w) ||
	     !earlier_turn(pass, c->pass, s)))
		return false;
	s->found = true;
	s->out = out;
	s->weight = w;
	s->pass = pass;
	s->raw = c->pass;
	return true;
}

uint64_t l7_wlo_next_pass(const struct l7_wlo *s)
{
	return s->pass + L7_WLO_STRIDE / s->weight;
}

uint32_t l7_wlo_peers(const struct l7_peer_load *pl, unsigned int n,
		      uint32_t now_ms, uint32_t fresh_ms)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (pl[i].outstanding && now_ms - pl[i].at_ms < fresh_ms)
			sum += pl[i].outstanding;
	return sum;
}
