/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: the service-wide scheduler - weighted least outstanding
 * requests, ties taken in turn by stride scheduling.
 *
 * A request without a content rule's pool goes to the real server with
 * the fewest requests outstanding per unit of weight (ip_vs_wlc.c's rule,
 * with requests in place of connections), among those that can take it
 * now: weight above 0, up, below their upper threshold (ipvsadm -x) and,
 * unless the caller asks for any, with an idle pooled connection.
 *
 * One request at a time leaves every server with nothing outstanding, so
 * ties are the usual case, and "the first of equals" would send them all
 * to one server.  They go by stride scheduling (Waldspurger and Weihl,
 * 1995): each server has a pass; among equals the lowest pass wins, and
 * its pass then moves on by L7_WLO_STRIDE / weight, so equals take turns
 * in proportion to their weights.  A pass left behind - a server that was
 * down, or new - counts from the service's clock, the pass of the last
 * pick, so its return is not a flood of turns it missed; of several left
 * behind, the one left furthest goes first, whatever their order.
 *
 * The glue offers each candidate in turn with what it reads of it at that
 * moment (racily: a lost update costs one turn), and after the last one
 * writes back the service's clock and the winner's next pass.
 */
#ifndef _IP_VS_L7_CORE_SCHED_WLO_H
#define _IP_VS_L7_CORE_SCHED_WLO_H

#include "l7_types.h"

#define L7_WLO_STRIDE	(1ULL << 32)	/* a pick's pass, divided by weight */

/*
 * Directors side by side each see only their own outstanding requests;
 * every L7_LOAD_SHARE_MS each tells the others its count on each real
 * server (a LOAD record, conn_ckpt.h), and a real server's count for the
 * pick is its own plus the peers' - of each peer its last word, while
 * younger than @fresh_ms: a peer silent that long (dead, cut off, its
 * channel stopped) has no requests there that this director should
 * steer around.
 */
#define L7_LOAD_SHARE_MS	100
#define L7_LOAD_FRESH_MS	1000	/* as long as a silent peer is lost */

/* One peer's last word on one real server. */
struct l7_peer_load {
	uint32_t outstanding;
	uint32_t at_ms;		/* when it came */
};

/* The fresh outstanding counts of @n peers' words @pl at @now_ms. */
uint32_t l7_wlo_peers(const struct l7_peer_load *pl, unsigned int n,
		      uint32_t now_ms, uint32_t fresh_ms);

/* A real server as the scheduler sees it at the moment of a pick. */
struct l7_wlo_cand {
	int32_t weight;		/* IPVS's; 0 or below: not eligible */
	int32_t outstanding;	/* requests sent and not yet answered */
	uint64_t pass;		/* its next turn among equals */
	bool down;		/* its pool cannot connect */
	bool full;		/* at its upper threshold */
	bool idle;		/* it has an idle pooled connection */
};

/* One pick under way. */
struct l7_wlo {
	uint64_t clock;		/* the service's, when the pick began */
	bool any;		/* a server without an idle connection will do */
	bool found;
	uint64_t out;		/* of the best so far */
	uint64_t weight;
	uint64_t pass;		/* its pass, at least the clock */
	uint64_t raw;		/* its pass as offered */
};

/* Start a pick at the service's pass clock @clock. */
void l7_wlo_begin(struct l7_wlo *s, uint64_t clock, bool any);

/* Offer @c: true if it is the best so far (the caller keeps which). */
bool l7_wlo_offer(struct l7_wlo *s, const struct l7_wlo_cand *c);

/* After the last offer: whether any was eligible. */
static inline bool l7_wlo_found(const struct l7_wlo *s)
{
	return s->found;
}

/* The service's clock after the pick: the winner's pass. */
static inline uint64_t l7_wlo_clock(const struct l7_wlo *s)
{
	return s->pass;
}

/* The winner's next pass: one stride, divided by its weight, on. */
uint64_t l7_wlo_next_pass(const struct l7_wlo *s);

#endif /* _IP_VS_L7_CORE_SCHED_WLO_H */
