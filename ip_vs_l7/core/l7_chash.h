/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: choosing a member of a pool - weighted least-outstanding,
 * smooth weighted round robin, and consistent hashing with bounded loads -
 * and the keyed hash they use (SipHash-2-4).
 *
 * The glue describes a pool's members, in the pool's order, as an array of
 * struct l7_member_load it fills at the moment of the choice: weight 0
 * means "not eligible now" (not a real server of the service, weight 0 in
 * IPVS, or down in the pool), so keepalived's health checks keep deciding
 * who serves.  Every pick returns an index into that array, or -1 when no
 * member is eligible.
 *
 * Consistent hashing with bounded loads (Mirrokni, Thorup, Zadimoghaddam,
 * "Consistent Hashing with Bounded Loads", SODA 2018): a ring of points,
 * each member owning a number of points proportional to its weight; a key
 * goes to the owner of the first point at or after the key's hash, walking
 * on past members that are not eligible or whose outstanding requests are
 * not below their bound
 *
 *	bound_i = 1.25 * (L + 1) * w_i / W
 *
 * (L: outstanding requests of all eligible members, W: their weights;
 * L7_CHASH_BALANCE_NUM / _DEN).  Since the bounds add up to more than L,
 * some member is always below its bound: the walk ends, and after a pick no
 * member holds more than 1.25 times its weighted share, plus one.  A
 * member that stops being eligible moves only the keys it held; a member
 * that comes back takes them back.  Rebuilding the ring (members added or
 * removed, weights changed) keeps every other member's points as long as
 * the ring's scale (L7_CHASH_POINTS_MAX) does not force a new one.
 *
 * The ring is built by the control plane (it sorts; bounded by
 * L7_CHASH_POINTS_MAX), stored with the pool, and read without locks.  A
 * pick walks at most the whole ring, and stops early once every eligible
 * member has been seen.
 */
#ifndef _IP_VS_L7_CORE_L7_CHASH_H
#define _IP_VS_L7_CORE_L7_CHASH_H

#include "l7_rule.h"

#define L7_CHASH_BALANCE_NUM	5	/* load bound factor 5/4 = 1.25 */
#define L7_CHASH_BALANCE_DEN	4
#define L7_CHASH_VNODES		64	/* points per unit of weight */
#define L7_CHASH_POINTS_MAX	(L7_POOL_MEMBERS_MAX * L7_CHASH_VNODES * 2)

/* A member's state at the moment of a pick. */
struct l7_member_load {
	uint32_t weight;	/* 0: not eligible now */
	uint32_t outstanding;	/* requests sent and not yet answered */
};

/* ---- weighted least-outstanding ---- */

/*
 * The eligible member with the smallest outstanding/weight (compared by
 * cross-multiplication in 64 bits); the first of equals.
 */
int l7_pick_wlo(const struct l7_member_load *m, unsigned int n);

/* ---- smooth weighted round robin ---- */

/*
 * State of one pool (nginx's smooth WRR): each pick adds every eligible
 * member's weight to its credit, takes the member with most credit and
 * takes the sum of the weights from it.  Over W picks a member of weight
 * w is picked w times, spread out.  Not atomic: the glue serialises picks
 * (a spinlock per pool) and zeroes the state when the pool changes.
 */
struct l7_wrr {
	int64_t credit[L7_POOL_MEMBERS_MAX];
};

int l7_pick_wrr(struct l7_wrr *s, const struct l7_member_load *m,
		unsigned int n);

/* ---- consistent hashing with bounded loads ---- */

/* A member as the ring sees it. */
struct l7_chash_member {
	uint64_t id;		/* stable identity: l7_chash_member_id() */
	uint32_t weight;	/* configured weight (0: no points) */
};

struct l7_chash_point {
	uint32_t pos;		/* position on the ring */
	uint16_t member;	/* index into the pool's members */
};

/*
 * A stable identity for a member, from the bytes that name it (the glue
 * passes address family, address and port, in network order): the same
 * server gets the same points whatever its index and whatever its
 * neighbours.
 */
uint64_t l7_chash_member_id(const void *name, size_t len);

/*
 * Fill @ring (room for L7_CHASH_POINTS_MAX points) with the points of
 * @n members (n <= L7_POOL_MEMBERS_MAX) and sort it.  Member i gets
 * VNODES * weight_i points, halved as often as needed to fit, at least 1
 * if its weight is not 0.  Returns the number of points.
 */
unsigned int l7_chash_build(struct l7_chash_point *ring,
			    const struct l7_chash_member *m, unsigned int n);

/*
 * The member for a key whose hash is @hash (l7_hash_bytes()): the owner of
 * the first point at or after it that is eligible in @m and below its
 * bound.  -1 if no member is eligible (or the ring is empty).
 */
int l7_pick_chash(const struct l7_chash_point *ring, unsigned int npoints,
		  const struct l7_member_load *m, unsigned int n,
		  uint64_t hash);

/* ---- hashing ---- */

/*
 * SipHash-2-4 (Aumasson, Bernstein, "SipHash: a fast short-input PRF",
 * 2012) of @len bytes under the 128-bit key @k0, @k1.
 */
uint64_t l7_siphash(uint64_t k0, uint64_t k1, const void *data, size_t len);

/*
 * The hash of a request key (l7_view_hash_key()) under a fixed, public
 * key: two directors hash alike, so affinity survives a fail-over.  A
 * client choosing keys to load one member is held off by the bound.
 */
uint64_t l7_hash_bytes(const void *data, size_t len);

#endif /* _IP_VS_L7_CORE_L7_CHASH_H */
