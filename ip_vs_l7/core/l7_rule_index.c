// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: the content rules' index (see l7_rule_index.h).
 *
 * An open-addressing table of keys, each with the ascending list of the
 * rules filed under it.  Built in three passes over the rules (count,
 * place, fill) so that no sort and no allocation is needed; read with no
 * writes but to the caller's bitmap.
 */
#include "l7_rule_index.h"
#include "http_chars.h"

/* FNV-1a: keys are short and chosen by the operator, not the client */
#define RK_BASIS	2166136261u
#define RK_PRIME	16777619u

#define RK_PATH_KINDS	(1u << L7_RK_PATH_EXACT | 1u << L7_RK_PATH_PREFIX)
#define RK_HOST_KINDS	(1u << L7_RK_HOST | 1u << L7_RK_HOST_SUFFIX)

static uint32_t rk_step(uint32_t h, uint8_t c)
{
	return (h ^ c) * RK_PRIME;
}

static uint32_t index_slots(unsigned int n)
{
	uint32_t s = 8;

	while (s < 2 * n)
		s <<= 1;
	return s;
}

static uint16_t *index_order(const struct l7_rule_index *ix)
{
	return (uint16_t *)(ix->slots + ix->nslots);
}

size_t l7_rule_index_size(unsigned int n)
{
	return sizeof(struct l7_rule_index) +
	       index_slots(n) * sizeof(struct l7_rule_slot) +
	       n * sizeof(uint16_t);
}

static uint32_t slot_home(const struct l7_rule_index *ix, uint8_t kind,
			  uint8_t len, uint32_t hash)
{
	uint32_t h = (hash ^ ((uint32_t)len << 8 | kind)) * 0x9e3779b1u;

	return (h ^ h >> 16) & (ix->nslots - 1);
}

/*
 * The slot of the key, or the empty slot where it would go.  The table
 * is never full (twice the keys), so the probe ends.
 */
static uint32_t slot_probe(const struct l7_rule_index *ix, uint8_t kind,
			   uint8_t len, uint32_t hash)
{
	uint32_t i = slot_home(ix, kind, len, hash);
	const struct l7_rule_slot *s;

	for (;; i = (i + 1) & (ix->nslots - 1)) {
		s = &ix->slots[i];
		if (s->kind == L7_RK_NONE ||
		    (s->kind == kind && s->len == len && s->hash == hash))
			return i;
	}
}

/* The slot of the key, claimed if it was free. */
static struct l7_rule_slot *slot_claim(struct l7_rule_index *ix, uint8_t kind,
				       uint8_t len, uint32_t hash)
{
	struct l7_rule_slot *s = &ix->slots[slot_probe(ix, kind, len, hash)];

	if (s->kind == L7_RK_NONE)
		*s = (struct l7_rule_slot){ .kind = kind, .len = len,
					    .hash = hash };
	return s;
}

static void cand_set(uint64_t *cand, uint32_t i)
{
	cand[i / 64] |= 1ull << (i % 64);
}

/*
 * The key rule @r is filed under: the one test of it that narrows best
 * and can be looked up from the request's bytes alone.
 */
static uint8_t rule_key(const struct l7_rule *r, uint8_t *len, uint32_t *hash)
{
	const char *s = r->host.s;
	uint32_t h = RK_BASIS, n, i;

	n = r->path.len;
	if (r->path_kind != L7_PATH_ANY && n && n <= L7_RULE_VALUE_MAX &&
	    !(r->flags & L7_RULE_F_PATH_NOCASE)) {
		for (i = 0; i < n; i++)
			h = rk_step(h, r->path.s[i]);
		*len = n;
		*hash = h;
		return r->path_kind == L7_PATH_EXACT ? L7_RK_PATH_EXACT :
						       L7_RK_PATH_PREFIX;
	}
	n = r->host.len;
	if (!n || n > L7_RULE_VALUE_MAX)
		return L7_RK_NONE;
	if (n >= 2 && s[0] == '*' && s[1] == '.') {
		/* ".domain", hashed from its end as a request's suffixes are */
		for (i = n; i-- > 1;)
			h = rk_step(h, l7_to_lower(s[i]));
		*len = n - 1;
		*hash = h;
		return L7_RK_HOST_SUFFIX;
	}
	for (i = 0; i < n; i++)
		h = rk_step(h, l7_to_lower(s[i]));
	*len = n;
	*hash = h;
	return L7_RK_HOST;
}

void l7_rule_index_build(struct l7_rule_index *ix,
			 const struct l7_rule *rules, unsigned int n)
{
	struct l7_rule_slot *s;
	uint16_t *order;
	uint32_t i, hash, at = 0;
	uint8_t kind, len;

	if (n > L7_RULES_MAX)
		n = 0;	/* never usable: l7_rules_decide() walks them */
	ix->nslots = index_slots(n);
	ix->nrules = n;
	ix->kinds = 0;
	for (i = 0; i < L7_RULE_WORDS; i++)
		ix->always[i] = 0;
	for (i = 0; i < ix->nslots; i++)
		ix->slots[i] = (struct l7_rule_slot){ .kind = L7_RK_NONE };

	/* count each key's rules */
	for (i = 0; i < n; i++) {
		kind = rule_key(&rules[i], &len, &hash);
		if (kind == L7_RK_NONE) {
			cand_set(ix->always, i);
			continue;
		}
		slot_claim(ix, kind, len, hash)->count++;
		ix->kinds |= 1u << kind;
	}
	/* place each key's list */
	for (i = 0; i < ix->nslots; i++) {
		s = &ix->slots[i];
		s->first = at;
		at += s->count;
		s->count = 0;
	}
	/* fill them, in rule order */
	order = index_order(ix);
	for (i = 0; i < n; i++) {
		kind = rule_key(&rules[i], &len, &hash);
		if (kind == L7_RK_NONE)
			continue;
		s = slot_claim(ix, kind, len, hash);
		order[s->first + s->count++] = i;
	}
}

/* Every rule filed under the key (at most L7_RULE_VALUE_MAX bytes). */
static void gather(const struct l7_rule_index *ix, uint8_t kind, uint32_t len,
		   uint32_t hash, uint64_t *cand)
{
	const struct l7_rule_slot *s =
		&ix->slots[slot_probe(ix, kind, (uint8_t)len, hash)];
	const uint16_t *order = index_order(ix);
	uint32_t k;

	if (s->kind == L7_RK_NONE)
		return;
	for (k = 0; k < s->count; k++)
		cand_set(cand, order[s->first + k]);
}

/*
 * A prefix rule of length L matches a path that starts with its bytes
 * where the path ends at L, or byte L-1 or byte L is '/' (the rule
 * ended with one, or the path's next segment starts there).
 */
static void path_keys(const struct l7_rule_index *ix,
		      const struct l7_req_view *v, uint64_t *cand)
{
	const uint8_t *p = (const uint8_t *)v->path;
	uint32_t n = v->path_len, h = RK_BASIS, l;

	for (l = 1; l <= n && l <= L7_RULE_VALUE_MAX; l++) {
		h = rk_step(h, p[l - 1]);
		if (l == n) {
			gather(ix, L7_RK_PATH_EXACT, l, h, cand);
			gather(ix, L7_RK_PATH_PREFIX, l, h, cand);
		} else if (p[l - 1] == '/' || p[l] == '/') {
			gather(ix, L7_RK_PATH_PREFIX, l, h, cand);
		}
	}
}

/* the host, and each of its suffixes that starts at a '.' after a byte */
static void host_keys(const struct l7_rule_index *ix,
		      const struct l7_req_view *v, uint64_t *cand)
{
	const uint8_t *p = (const uint8_t *)v->host;
	uint32_t n = v->host_len, h = RK_BASIS, j;

	if (!n)
		return;
	if (n <= L7_RULE_VALUE_MAX && ix->kinds & 1u << L7_RK_HOST) {
		for (j = 0; j < n; j++)
			h = rk_step(h, l7_to_lower(p[j]));
		gather(ix, L7_RK_HOST, n, h, cand);
	}
	if (!(ix->kinds & 1u << L7_RK_HOST_SUFFIX))
		return;
	h = RK_BASIS;
	for (j = n; j-- > 1 && n - j <= L7_RULE_VALUE_MAX;) {
		h = rk_step(h, l7_to_lower(p[j]));
		if (p[j] == '.')
			gather(ix, L7_RK_HOST_SUFFIX, n - j, h, cand);
	}
}

void l7_rule_candidates(const struct l7_rule_index *ix,
			const struct l7_req_view *v, uint64_t *cand)
{
	unsigned int i;

	for (i = 0; i < L7_RULE_WORDS; i++)
		cand[i] = ix->always[i];
	if (ix->kinds & RK_PATH_KINDS)
		path_keys(ix, v, cand);
	if (ix->kinds & RK_HOST_KINDS)
		host_keys(ix, v, cand);
}
