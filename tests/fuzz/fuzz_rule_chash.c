// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for core/l7_chash.c: the pool pickers.
 *
 * Input: [0] member count (1..64), then per member a weight byte (0:
 * ineligible now, 255: a weight near 2^31, else the byte) and a starting
 * outstanding count byte; then up to MAX_OPS operations, two bytes each:
 *   op % 4 == 0: a request for key ARG (hash of the byte);
 *   op % 4 == 1: member ARG toggles eligible / ineligible;
 *   op % 4 == 2: member ARG's oldest request completes;
 *   op % 4 == 3: member ARG leaves the pool: the ring is rebuilt
 *               (MAX_REBUILDS times at most).
 *
 * Invariants: chash, wlo and wrr return an eligible member, or -1 exactly
 * when none is; chash is deterministic; the member chosen was below its
 * bound (o * 4 * W < 5 * (L + 1) * w, checked exactly where the weights
 * need no scaling); with nothing outstanding a key's member does not
 * change when another member turns ineligible; the ring is sorted, no
 * larger than L7_CHASH_POINTS_MAX, and holds every weighted member.
 */
#include "l7_chash.h"
#include "fuzz_util.h"

#define MAX_OPS		1024
#define MAX_REBUILDS	2

static struct l7_chash_point ring[L7_CHASH_POINTS_MAX];

/*
 * The build is deterministic and sorts thousands of points: most inputs
 * differ from the last one in their operations only, so the ring of the
 * last member set is kept and reused (the rebuild after a member leaves
 * is always run).
 */
static struct l7_chash_point cached[L7_CHASH_POINTS_MAX];
static struct l7_chash_member cached_m[L7_POOL_MEMBERS_MAX];
static unsigned int cached_n, cached_np;

static unsigned int build(const struct l7_chash_member *m, unsigned int n)
{
	if (n != cached_n || memcmp(m, cached_m, n * sizeof(*m))) {
		cached_np = l7_chash_build(cached, m, n);
		memcpy(cached_m, m, n * sizeof(*m));
		cached_n = n;
	}
	memcpy(ring, cached, cached_np * sizeof(*ring));
	return cached_np;
}

static void check_ring(unsigned int np, const struct l7_chash_member *m,
		       unsigned int n)
{
	uint64_t seen = 0, want = 0;
	unsigned int i;

	FUZZ_ASSERT(np <= L7_CHASH_POINTS_MAX);
	for (i = 0; i < np; i++) {
		FUZZ_ASSERT(ring[i].member < n);
		FUZZ_ASSERT(!i || ring[i - 1].pos <= ring[i].pos);
		seen |= 1ull << ring[i].member;
	}
	for (i = 0; i < n; i++)
		want |= (uint64_t)(m[i].weight != 0) << i;
	FUZZ_ASSERT(seen == want);
}

static bool any_eligible(const struct l7_member_load *l, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (l[i].weight)
			return true;
	}
	return false;
}

static void check_pick(int a, const struct l7_member_load *l, unsigned int n)
{
	if (!any_eligible(l, n)) {
		FUZZ_ASSERT(a == -1);
		return;
	}
	FUZZ_ASSERT(a >= 0 && a < (int)n && l[a].weight);
}

/* Below its bound before the pick, where no scaling is involved. */
static void check_bound(int a, const struct l7_member_load *l, unsigned int n,
			bool ring_has_a)
{
	unsigned __int128 total_w = 0, total_o = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!l[i].weight)
			continue;
		if (l[i].weight >= 1u << 24 || l[i].outstanding >= 1u << 24)
			return;
		total_w += l[i].weight;
		total_o += l[i].outstanding;
	}
	if (a < 0 || !ring_has_a)
		return;
	FUZZ_ASSERT((unsigned __int128)l[a].outstanding * 4 * total_w <
		    5 * (total_o + 1) * l[a].weight);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct l7_chash_member m[L7_POOL_MEMBERS_MAX];
	struct l7_member_load l[L7_POOL_MEMBERS_MAX];
	uint32_t conf_w[L7_POOL_MEMBERS_MAX];
	struct l7_wrr wrr = { { 0 } };
	unsigned int n, i, np, rebuilds = 0;
	size_t at;

	if (size < 1)
		return 0;
	n = data[0] % L7_POOL_MEMBERS_MAX + 1;
	memset(m, 0, sizeof(m));	/* padding too: build() compares bytes */
	if (size < 1 + 2 * (size_t)n)
		return 0;
	for (i = 0; i < n; i++) {
		uint8_t w = data[1 + 2 * i];
		uint8_t b[2] = { (uint8_t)i, 0x5a };

		conf_w[i] = w == 255 ? 0x7ffffff0u + (i & 7) : w;
		m[i].id = l7_chash_member_id(b, sizeof(b));
		m[i].weight = conf_w[i];
		l[i].weight = conf_w[i];
		l[i].outstanding = data[2 + 2 * i];
	}
	np = build(m, n);
	check_ring(np, m, n);

	/* a rebuild sorts the ring: a few per input keep runs fast */
	for (at = 1 + 2 * (size_t)n; at + 1 < size && at < MAX_OPS * 2; at += 2) {
		uint8_t op = data[at] % 4, arg = data[at + 1];
		unsigned int who = arg % n;
		uint64_t h = l7_hash_bytes(&arg, 1);
		int a;

		switch (op) {
		case 0:
			a = l7_pick_chash(ring, np, l, n, h);
			check_pick(a, l, n);
			FUZZ_ASSERT(a == l7_pick_chash(ring, np, l, n, h));
			check_bound(a, l, n, a >= 0 && m[a].weight);
			check_pick(l7_pick_wlo(l, n), l, n);
			check_pick(l7_pick_wrr(&wrr, l, n), l, n);
			if (a >= 0)
				l[a].outstanding++;
			break;
		case 1:
			l[who].weight = l[who].weight ? 0 : conf_w[who];
			break;
		case 2:
			if (l[who].outstanding)
				l[who].outstanding--;
			break;
		case 3:
			if (rebuilds++ >= MAX_REBUILDS)
				break;
			/* out of the pool: no points, never eligible */
			m[who].weight = 0;
			conf_w[who] = 0;
			l[who].weight = 0;
			np = l7_chash_build(ring, m, n);
			check_ring(np, m, n);
			break;
		}
	}

	/* nothing outstanding: another member leaving moves no key */
	for (i = 0; i < n; i++)
		l[i] = (struct l7_member_load){ m[i].weight, 0 };
	for (i = 0; i < 16; i++) {
		uint64_t h = l7_hash_bytes(&i, sizeof(i));
		int a = l7_pick_chash(ring, np, l, n, h), b;
		unsigned int other = (unsigned int)(h % n);

		if (a < 0 || (int)other == a || !l[other].weight)
			continue;
		l[other].weight = 0;
		b = l7_pick_chash(ring, np, l, n, h);
		l[other].weight = m[other].weight;
		FUZZ_ASSERT(a == b);
	}
	return 0;
}
