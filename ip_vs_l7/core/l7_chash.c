// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: picking a pool member - weighted least-outstanding,
 * smooth weighted round robin, consistent hashing with bounded loads - and
 * SipHash-2-4, written from the paper (see l7_chash.h).
 */
#include "l7_chash.h"

/* ---- SipHash-2-4 ---- */

static uint64_t rotl64(uint64_t x, unsigned int b)
{
	return (x << b) | (x >> (64 - b));
}

struct sip {
	uint64_t v0, v1, v2, v3;
};

static void sip_round(struct sip *s)
{
	s->v0 += s->v1;
	s->v1 = rotl64(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = rotl64(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = rotl64(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = rotl64(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = rotl64(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = rotl64(s->v2, 32);
}

static void sip_word(struct sip *s, uint64_t m)
{
	s->v3 ^= m;
	sip_round(s);
	sip_round(s);
	s->v0 ^= m;
}

/* Up to 8 bytes, little-endian: the message words of the paper. */
static uint64_t load_le(const uint8_t *p, size_t n)
{
	uint64_t w = 0;

	while (n--)
		w = w << 8 | p[n];
	return w;
}

uint64_t l7_siphash(uint64_t k0, uint64_t k1, const void *data, size_t len)
{
	const uint8_t *p = data;
	struct sip s = {
		k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull,
		k0 ^ 0x6c7967656e657261ull, k1 ^ 0x7465646279746573ull,
	};
	size_t i;

	for (i = 0; i + 8 <= len; i += 8)
		sip_word(&s, load_le(p + i, 8));
	sip_word(&s, load_le(p + i, len - i) | (uint64_t)(len & 0xff) << 56);
	s.v2 ^= 0xff;
	sip_round(&s);
	sip_round(&s);
	sip_round(&s);
	sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

/* Public on purpose: two directors must hash alike (see l7_chash.h). */
#define L7_HASH_K0	0x6970766c37636861ull	/* "ipvl7cha" */
#define L7_HASH_K1	0x7368626f756e6473ull	/* "shbounds" */

uint64_t l7_hash_bytes(const void *data, size_t len)
{
	return l7_siphash(L7_HASH_K0, L7_HASH_K1, data, len);
}

uint64_t l7_chash_member_id(const void *name, size_t len)
{
	return l7_siphash(L7_HASH_K1, L7_HASH_K0, name, len);
}

/* ---- weighted least-outstanding ---- */

int l7_pick_wlo(const struct l7_member_load *m, unsigned int n)
{
	int best = -1;
	unsigned int i;

	for (i = 0; i < n; i++) {
		/* o_i / w_i < o_b / w_b; both products fit in 64 bits */
		if (m[i].weight &&
		    (best < 0 || (uint64_t)m[i].outstanding * m[best].weight <
				 (uint64_t)m[best].outstanding * m[i].weight))
			best = (int)i;
	}
	return best;
}

/* ---- smooth weighted round robin ---- */

int l7_pick_wrr(struct l7_wrr *s, const struct l7_member_load *m,
		unsigned int n)
{
	int64_t total = 0;
	int best = -1;
	unsigned int i;

	if (n > L7_POOL_MEMBERS_MAX)
		n = L7_POOL_MEMBERS_MAX;
	for (i = 0; i < n; i++) {
		if (!m[i].weight)
			continue;
		s->credit[i] += m[i].weight;
		total += m[i].weight;
		if (best < 0 || s->credit[i] > s->credit[best])
			best = (int)i;
	}
	if (best >= 0)
		s->credit[best] -= total;
	return best;
}

/* ---- the ring ---- */

/* Points of a member of weight @w at scale @shift. */
static uint32_t chash_points(uint32_t w, unsigned int shift)
{
	uint64_t p = ((uint64_t)w * L7_CHASH_VNODES) >> shift;

	if (!w)
		return 0;
	return p ? (uint32_t)p : 1;
}

/* Point @j of member @id: where it sits on the ring. */
static uint32_t chash_pos(uint64_t id, uint32_t j)
{
	uint8_t b[12];
	int k;

	for (k = 0; k < 8; k++)
		b[k] = (uint8_t)(id >> (8 * k));
	for (k = 0; k < 4; k++)
		b[8 + k] = (uint8_t)(j >> (8 * k));
	return (uint32_t)l7_hash_bytes(b, sizeof(b));
}

/*
 * Ring order: position, then the member's identity (its rank among the
 * ids), so that ties do not depend on the order members are listed in.
 */
static bool point_less(const struct l7_chash_point *a,
		       const struct l7_chash_point *b)
{
	return a->pos < b->pos || (a->pos == b->pos && a->tie < b->tie);
}

static void sift_down(struct l7_chash_point *r, unsigned int at,
		      unsigned int n)
{
	for (;;) {
		unsigned int c = 2 * at + 1;
		struct l7_chash_point t;

		if (c >= n)
			return;
		if (c + 1 < n && point_less(&r[c], &r[c + 1]))
			c++;
		if (!point_less(&r[at], &r[c]))
			return;
		t = r[at];
		r[at] = r[c];
		r[c] = t;
		at = c;
	}
}

/* Heapsort: O(n log n), no recursion, no allocation. */
static void ring_sort(struct l7_chash_point *r, unsigned int n)
{
	unsigned int i;

	for (i = n / 2; i-- > 0;)
		sift_down(r, i, n);
	while (n > 1) {
		struct l7_chash_point t = r[0];

		r[0] = r[n - 1];
		r[n - 1] = t;
		sift_down(r, 0, --n);
	}
}

/* How many members have a smaller id (or the same id and a lower index). */
static uint16_t id_rank(const struct l7_chash_member *m, unsigned int n,
			unsigned int i)
{
	uint16_t rank = 0;
	unsigned int j;

	for (j = 0; j < n; j++)
		rank += m[j].id < m[i].id || (m[j].id == m[i].id && j < i);
	return rank;
}

unsigned int l7_chash_build(struct l7_chash_point *ring,
			    const struct l7_chash_member *m, unsigned int n)
{
	unsigned int shift = 0, i, k = 0;
	uint64_t total;

	if (n > L7_POOL_MEMBERS_MAX)
		n = L7_POOL_MEMBERS_MAX;
	/* at most 64 points at the largest shift: it always fits */
	for (;; shift++) {
		total = 0;
		for (i = 0; i < n; i++)
			total += chash_points(m[i].weight, shift);
		if (total <= L7_CHASH_POINTS_MAX)
			break;
	}
	for (i = 0; i < n; i++) {
		uint32_t j, p = chash_points(m[i].weight, shift);
		uint16_t tie = id_rank(m, n, i);

		for (j = 0; j < p; j++) {
			ring[k].pos = chash_pos(m[i].id, j);
			ring[k].member = (uint16_t)i;
			ring[k].tie = tie;
			k++;
		}
	}
	ring_sort(ring, k);
	return k;
}

/* First point at or after @h, wrapping to 0. */
static unsigned int ring_find(const struct l7_chash_point *r, unsigned int n,
			      uint32_t h)
{
	unsigned int lo = 0, hi = n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (r[mid].pos < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == n ? 0 : lo;
}

/*
 * Weights and counts scaled so that the bound's products fit in 64 bits
 * whatever IPVS hands us: weights below 2^24, counts capped at 2^24.
 */
#define L7_CHASH_SCALE_BITS	24

struct chash_load {
	unsigned int shift;	/* weights >> shift < 2^24 */
	uint64_t total_w, total_o;
	uint64_t eligible;	/* bit per member */
};

static uint64_t scaled_w(const struct chash_load *l,
			 const struct l7_member_load *m)
{
	uint64_t w = m->weight >> l->shift;

	return w || !m->weight ? w : 1;
}

static uint64_t scaled_o(const struct l7_member_load *m)
{
	return m->outstanding < (1u << L7_CHASH_SCALE_BITS) ?
	       m->outstanding : (1u << L7_CHASH_SCALE_BITS);
}

static void chash_load(struct chash_load *l, const struct l7_member_load *m,
		       unsigned int n)
{
	uint32_t wmax = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		wmax = m[i].weight > wmax ? m[i].weight : wmax;
	l->shift = 0;
	while ((wmax >> l->shift) >= (1u << L7_CHASH_SCALE_BITS))
		l->shift++;
	l->total_w = 0;
	l->total_o = 0;
	l->eligible = 0;
	for (i = 0; i < n; i++) {
		if (!m[i].weight)
			continue;
		l->eligible |= 1ull << i;
		l->total_w += scaled_w(l, &m[i]);
		l->total_o += scaled_o(&m[i]);
	}
}

/* o_i < 1.25 * (L + 1) * w_i / W, in integers */
static bool below_bound(const struct chash_load *l,
			const struct l7_member_load *m)
{
	return scaled_o(m) * L7_CHASH_BALANCE_DEN * l->total_w <
	       L7_CHASH_BALANCE_NUM * (l->total_o + 1) * scaled_w(l, m);
}

int l7_pick_chash(const struct l7_chash_point *ring, unsigned int npoints,
		  const struct l7_member_load *m, unsigned int n,
		  uint64_t hash)
{
	struct chash_load l;
	uint64_t seen = 0;
	unsigned int at, k;

	if (n > L7_POOL_MEMBERS_MAX)
		n = L7_POOL_MEMBERS_MAX;
	chash_load(&l, m, n);
	if (!l.eligible)
		return -1;
	at = npoints ? ring_find(ring, npoints, (uint32_t)(hash >> 32)) : 0;
	for (k = 0; k < npoints && seen != l.eligible; k++) {
		unsigned int i = ring[at].member;

		at = at + 1 == npoints ? 0 : at + 1;
		if (i >= n || !(l.eligible & ~seen & (1ull << i)))
			continue;
		if (below_bound(&l, &m[i]))
			return (int)i;
		seen |= 1ull << i;
	}
	/*
	 * Only members without points (weight 0 when the ring was built)
	 * can be below their bound now: least outstanding per weight.
	 */
	return l7_pick_wlo(m, n);
}
