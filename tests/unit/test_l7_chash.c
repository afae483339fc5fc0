// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/l7_chash.c: SipHash-2-4 against the paper's
 * test vectors, weighted least-outstanding, smooth WRR, and consistent
 * hashing with bounded loads - affinity, what moves when a member leaves,
 * and the load bound under a skewed key mix.
 */
#include <stdlib.h>
#include <string.h>

#include "l7_chash.h"
#include "l7_test.h"

#define NKEYS	10000

static struct l7_chash_point ring[L7_CHASH_POINTS_MAX];

static uint64_t key_hash(unsigned int k)
{
	char b[32];

	return l7_hash_bytes(b, snprintf(b, sizeof(b), "/objects/%u", k));
}

static void members(struct l7_chash_member *m, unsigned int n,
		    const uint32_t *w)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		char name[32];

		m[i].id = l7_chash_member_id(name,
			snprintf(name, sizeof(name), "192.0.2.%u:80", i + 10));
		m[i].weight = w ? w[i] : 1;
	}
}

static void loads(struct l7_member_load *l, const struct l7_chash_member *m,
		  unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		l[i] = (struct l7_member_load){ m[i].weight, 0 };
}

/* SipHash-2-4 vectors: key 00..0f, message 00..(len-1) (paper, App. A). */
static void test_siphash_vectors(void)
{
	static const struct {
		size_t len;
		uint64_t want;
	} v[] = {
		{ 0, 0x726fdb47dd0e0e31ull },
		{ 8, 0x93f5f5799a932462ull },
		{ 15, 0xa129ca6149be45e5ull },
	};
	uint8_t msg[64];
	unsigned int i;

	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)i;
	for (i = 0; i < L7_ARRAY_SIZE(v); i++) {
		uint64_t h = l7_siphash(0x0706050403020100ull,
					0x0f0e0d0c0b0a0908ull, msg, v[i].len);

		CHECK(h == v[i].want, "len %zu: %016llx", v[i].len,
		      (unsigned long long)h);
	}
}

static void test_wlo(void)
{
	struct l7_member_load m[4] = {
		{ 1, 5 }, { 2, 8 }, { 0, 0 }, { 3, 13 },
	};

	/* 5/1, 8/2 = 4, ineligible, 13/3 = 4.33 */
	CHECK(l7_pick_wlo(m, 4) == 1, "least per weight");
	m[1].outstanding = 15;
	CHECK(l7_pick_wlo(m, 4) == 3, "then 3");
	m[0].weight = 0;
	m[3].weight = 0;
	m[1].weight = 0;
	CHECK(l7_pick_wlo(m, 4) == -1, "none eligible");
	m[0] = (struct l7_member_load){ 0xffffffffu, 0xffffffffu };
	m[1] = (struct l7_member_load){ 1, 0xfffffffeu };
	CHECK(l7_pick_wlo(m, 2) == 0, "no overflow");
}

static void test_wrr_smooth(void)
{
	struct l7_member_load m[3] = { { 5, 0 }, { 1, 0 }, { 1, 0 } };
	struct l7_wrr s = { { 0 } };
	static const int want[7] = { 0, 0, 1, 0, 2, 0, 0 };	/* nginx's */
	int count[3] = { 0 };
	unsigned int i;

	for (i = 0; i < 7; i++) {
		int p = l7_pick_wrr(&s, m, 3);

		CHECK(p == want[i], "pick %u: %d, want %d", i, p, want[i]);
	}
	for (i = 0; i < 700; i++)
		count[l7_pick_wrr(&s, m, 3)]++;
	CHECK(count[0] == 500 && count[1] == 100 && count[2] == 100,
	      "%d %d %d", count[0], count[1], count[2]);
	m[0].weight = 0;
	for (i = 0; i < 10; i++)
		CHECK(l7_pick_wrr(&s, m, 3) != 0, "ineligible picked");
	m[1].weight = 0;
	m[2].weight = 0;
	CHECK(l7_pick_wrr(&s, m, 3) == -1, "none eligible");
}

static void test_chash_affinity_and_spread(void)
{
	struct l7_chash_member m[10];
	struct l7_member_load l[10];
	int count[10] = { 0 };
	unsigned int n, k, i;

	members(m, 10, NULL);
	loads(l, m, 10);
	n = l7_chash_build(ring, m, 10);
	CHECK(n == 10 * L7_CHASH_VNODES, "points %u", n);
	for (k = 0; k < NKEYS; k++) {
		int a = l7_pick_chash(ring, n, l, 10, key_hash(k));

		CHECK(a >= 0 && a == l7_pick_chash(ring, n, l, 10, key_hash(k)),
		      "key %u: %d", k, a);
		count[a]++;
	}
	for (i = 0; i < 10; i++)
		CHECK(count[i] > NKEYS / 10 / 2 && count[i] < NKEYS / 10 * 3 / 2,
		      "member %u holds %d keys", i, count[i]);
}

static void test_chash_weights(void)
{
	static const uint32_t w[3] = { 1, 2, 4 };
	struct l7_chash_member m[3];
	struct l7_member_load l[3];
	int count[3] = { 0 };
	unsigned int n, k;

	members(m, 3, w);
	loads(l, m, 3);
	n = l7_chash_build(ring, m, 3);
	CHECK(n == 7 * L7_CHASH_VNODES, "points %u", n);
	for (k = 0; k < NKEYS; k++)
		count[l7_pick_chash(ring, n, l, 3, key_hash(k))]++;
	/* shares 1/7, 2/7, 4/7, within a quarter of each */
	CHECK(count[0] > 1428 * 3 / 4 && count[0] < 1428 * 5 / 4, "w1 %d",
	      count[0]);
	CHECK(count[1] > 2857 * 3 / 4 && count[1] < 2857 * 5 / 4, "w2 %d",
	      count[1]);
	CHECK(count[2] > 5714 * 3 / 4 && count[2] < 5714 * 5 / 4, "w4 %d",
	      count[2]);
}

/*
 * Member 3 of 10 leaves, first by turning ineligible, then by a rebuild
 * without it: exactly its keys move, to the others, and nothing else.
 */
static void test_chash_member_leaves(void)
{
	static int before[NKEYS];
	struct l7_chash_member m[10], m9[9];
	struct l7_member_load l[10];
	unsigned int n, k, i, moved = 0, held = 0;

	members(m, 10, NULL);
	loads(l, m, 10);
	n = l7_chash_build(ring, m, 10);
	for (k = 0; k < NKEYS; k++) {
		before[k] = l7_pick_chash(ring, n, l, 10, key_hash(k));
		held += before[k] == 3;
	}
	l[3].weight = 0;
	for (k = 0; k < NKEYS; k++) {
		int a = l7_pick_chash(ring, n, l, 10, key_hash(k));

		CHECK(a != 3, "key %u still on the leaver", k);
		if (before[k] != 3)
			CHECK(a == before[k], "key %u moved %d -> %d", k,
			      before[k], a);
		moved += a != before[k];
	}
	CHECK(moved == held && held > NKEYS / 20 && held < NKEYS / 5,
	      "moved %u, held %u", moved, held);

	/* back: it takes its keys back, exactly */
	l[3].weight = 1;
	for (k = 0; k < NKEYS; k++)
		CHECK(l7_pick_chash(ring, n, l, 10, key_hash(k)) == before[k],
		      "key %u after return", k);

	/* removed from the pool: ring rebuilt, indices shift, ids stay */
	for (i = 0; i < 9; i++)
		m9[i] = m[i < 3 ? i : i + 1];
	loads(l, m9, 9);
	n = l7_chash_build(ring, m9, 9);
	moved = 0;
	for (k = 0; k < NKEYS; k++) {
		int a = l7_pick_chash(ring, n, l, 9, key_hash(k));
		int was = a < 3 ? a : a + 1;

		if (before[k] != 3)
			CHECK(was == before[k], "rebuild moved key %u", k);
		moved += was != before[k];
	}
	CHECK(moved == held, "rebuild moved %u, held %u", moved, held);
}

/*
 * Skewed keys (a third of requests on one key, then a Zipf-like tail),
 * requests completing at random: after every pick no member holds more
 * than 1.25 times its weighted share of what is outstanding, plus one.
 */
static void bounded_run(const uint32_t *w, unsigned int nm, int *hot_spread)
{
	struct l7_chash_member m[8];
	struct l7_member_load l[8];
	unsigned int n, r, i, hot_home;
	uint64_t total_w = 0;
	int hot_count[8] = { 0 };

	members(m, nm, w);
	loads(l, m, nm);
	for (i = 0; i < nm; i++)
		total_w += w[i];
	n = l7_chash_build(ring, m, nm);
	hot_home = l7_pick_chash(ring, n, l, nm, key_hash(0));

	for (r = 0; r < 20000; r++) {
		uint64_t x = l7_rand();
		unsigned int key = x % 3 == 0 ? 0 : (unsigned int)(
			1000 / (1 + (x >> 8) % 1000));	/* 1/x-like */
		uint64_t total_o = 0;
		int a;

		/* about 100 outstanding: complete one at random */
		if (r > 100) {
			i = l7_rand() % nm;
			while (!l[i].outstanding)
				i = (i + 1) % nm;
			l[i].outstanding--;
		}
		a = l7_pick_chash(ring, n, l, nm, key_hash(key));
		CHECK(a >= 0, "pick");
		if (a < 0)
			return;
		l[a].outstanding++;
		if (key == 0)
			hot_count[a]++;
		for (i = 0; i < nm; i++)
			total_o += l[i].outstanding;
		for (i = 0; i < nm; i++) {
			/* o_i <= 1.25 * L * w_i / W + 1 */
			CHECK(l[i].outstanding * 4 * total_w <=
			      5 * total_o * w[i] + 4 * total_w,
			      "request %u: member %u holds %u of %llu", r, i,
			      l[i].outstanding, (unsigned long long)total_o);
		}
	}
	*hot_spread = 0;
	for (i = 0; i < nm; i++)
		*hot_spread += i != hot_home && hot_count[i];
}

static void test_chash_bounded_load(void)
{
	static const uint32_t equal[5] = { 1, 1, 1, 1, 1 };
	static const uint32_t weighted[4] = { 1, 1, 2, 4 };
	int spread;

	bounded_run(equal, 5, &spread);
	/* the hot key alone is more than any share: it had to spill */
	CHECK(spread > 0, "hot key never left its home: no bound applied?");
	bounded_run(weighted, 4, &spread);
	CHECK(spread > 0, "weighted: hot key never spilled");
}

static void test_chash_edges(void)
{
	struct l7_chash_member m[3];
	struct l7_member_load l[3];
	static const uint32_t huge[3] = { 0x7fffffff, 1, 0 };
	unsigned int n, k;
	int count[3] = { 0 };

	members(m, 3, huge);
	loads(l, m, 3);
	n = l7_chash_build(ring, m, 3);
	CHECK(n <= L7_CHASH_POINTS_MAX && n > 2, "scaled ring %u", n);
	for (k = 0; k < 1000; k++) {
		int a = l7_pick_chash(ring, n, l, 3, key_hash(k));

		CHECK(a == 0 || a == 1, "pick %d", a);
		if (a < 0)
			return;
		count[a]++;
		l[a].outstanding++;
	}
	/* the bound keeps member 1 at about 1/2^31 of the load plus one */
	CHECK(count[1] <= 1, "weight 1 beside 2^31-1 took %d", count[1]);

	/* eligible now, no points (weight 0 at build): still picked */
	l[0].weight = 0;
	l[1].weight = 0;
	l[2].weight = 5;
	CHECK(l7_pick_chash(ring, n, l, 3, key_hash(1)) == 2, "pointless");
	l[2].weight = 0;
	CHECK(l7_pick_chash(ring, n, l, 3, key_hash(1)) == -1, "none");
	CHECK(l7_pick_chash(ring, 0, l, 0, 42) == -1, "empty");

	/* full pool of large weights fits the ring */
	{
		struct l7_chash_member big[L7_POOL_MEMBERS_MAX];
		uint32_t wb[L7_POOL_MEMBERS_MAX];

		for (k = 0; k < L7_POOL_MEMBERS_MAX; k++)
			wb[k] = 1000 + k;
		members(big, L7_POOL_MEMBERS_MAX, wb);
		n = l7_chash_build(ring, big, L7_POOL_MEMBERS_MAX);
		CHECK(n <= L7_CHASH_POINTS_MAX && n >= L7_CHASH_POINTS_MAX / 2,
		      "64 members: %u points", n);
		for (k = 1; k < n; k++)
			CHECK(ring[k - 1].pos <= ring[k].pos, "sorted at %u", k);
	}
}

int main(void)
{
	RUN(test_siphash_vectors);
	RUN(test_wlo);
	RUN(test_wrr_smooth);
	RUN(test_chash_affinity_and_spread);
	RUN(test_chash_weights);
	RUN(test_chash_member_leaves);
	RUN(test_chash_bounded_load);
	RUN(test_chash_edges);
	return l7_test_summary("l7_chash");
}
