// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for core/l7_rule.c: path and host normalisation, the
 * request view, lookups and the rule matcher.
 *
 * Input: [0] which pools are ready (a bit each), [1] bit 0: read the rule
 * section as raw struct l7_rule bytes instead of text; then the rule
 * section up to the first NUL; then a request head.
 *
 * Text rules, one per line, space-separated key=value tokens:
 *   h=HOST  p=PREFIX  e=EXACT  m=METHODBITS  x=NAME:V1|V2  c=NAME:VALUE
 *   r=STATUS  P=POOL  F (fallthrough)  N (path nocase)
 * Rules l7_rule_invalid() refuses are dropped (after it has read them).
 *
 * Invariants: no crash or sanitizer report; a normalised path is "*" or
 * starts with '/', holds no "//", "/./", "/../", final "/." or "/..",
 * no %2F, %00, %-escape of an unreserved byte or lower-case escape, and
 * normalises to itself; normalising never lengthens; the host is
 * lower-case, without port or final dot; the rule matched is the first
 * one that matches alone, and agrees with an independent reading of the
 * host and path tests; the verdict follows from it, and is the same
 * through the rules' index as walking them (every rule that matches is
 * among the index's candidates).
 */
#include "l7_rule.h"
#include "l7_rule_index.h"
#include "fuzz_util.h"

#define MAX_RULES	16

static struct l7_rule rules[MAX_RULES];
static struct l7_req_view view;

static bool is_unres(uint8_t c)
{
	return l7_is_alpha(c) || l7_is_digit(c) || c == '-' || c == '.' ||
	       c == '_' || c == '~';
}

static bool has(const char *p, size_t n, const char *s)
{
	size_t k = strlen(s), i;

	for (i = 0; i + k <= n; i++) {
		if (!memcmp(p + i, s, k))
			return true;
	}
	return false;
}

static bool ends(const char *p, size_t n, const char *s)
{
	size_t k = strlen(s);

	return n >= k && !memcmp(p + n - k, s, k);
}

/* A path the normaliser produced. */
static void check_normal(const char *p, size_t n)
{
	char *again = malloc(n ? n : 1);
	size_t i;
	int m;

	FUZZ_ASSERT(n > 0 && p[0] == '/');
	FUZZ_ASSERT(!has(p, n, "//") && !has(p, n, "/./") &&
		    !has(p, n, "/../") && !ends(p, n, "/.") &&
		    !ends(p, n, "/.."));
	for (i = 0; i < n; i++) {
		FUZZ_ASSERT(p[i] > 0x20 && p[i] < 0x7f && p[i] != '?' &&
			    p[i] != '#');
		if (p[i] == '%') {
			int hi, lo;

			FUZZ_ASSERT(n - i >= 3);
			hi = l7_hex_val(p[i + 1]);
			lo = l7_hex_val(p[i + 2]);
			FUZZ_ASSERT(hi >= 0 && lo >= 0);
			FUZZ_ASSERT(!l7_is_alpha(p[i + 1]) ||
				    (p[i + 1] >= 'A' && p[i + 1] <= 'F'));
			FUZZ_ASSERT(!l7_is_alpha(p[i + 2]) ||
				    (p[i + 2] >= 'A' && p[i + 2] <= 'F'));
			FUZZ_ASSERT(hi << 4 | lo);
			FUZZ_ASSERT((hi << 4 | lo) != '/');
			FUZZ_ASSERT(!is_unres((uint8_t)(hi << 4 | lo)));
		}
	}
	m = l7_path_normalise(p, n, again);
	FUZZ_ASSERT(m == (int)n && !memcmp(p, again, n));
	free(again);
}

/* Normalise arbitrary bytes into a buffer of exactly their size. */
static void fuzz_normalise(const uint8_t *d, size_t n)
{
	char *out;
	int m;

	if (!n)
		return;
	out = malloc(n);
	m = l7_path_normalise((const char *)d, n, out);
	FUZZ_ASSERT(m <= (int)n);
	if (m >= 0)
		check_normal(out, m);
	free(out);
}

static void check_host(void)
{
	unsigned int i;

	FUZZ_ASSERT(view.host_len <= L7_HOST_MAX);
	for (i = 0; i < view.host_len; i++)
		FUZZ_ASSERT(!(view.host[i] >= 'A' && view.host[i] <= 'Z'));
	if (!view.host_len)
		return;
	FUZZ_ASSERT(view.host[view.host_len - 1] != '.');
	if (view.host[0] != '[')
		FUZZ_ASSERT(!memchr(view.host, ':', view.host_len));
}

/* ---- rule section ---- */

static void copy_value(struct l7_rule_value *v, const char *s, size_t n)
{
	v->len = n > L7_RULE_VALUE_MAX ? L7_RULE_VALUE_MAX : n;
	memcpy(v->s, s, v->len);
}

static void copy_name(struct l7_rule_name *v, const char *s, size_t n)
{
	v->len = n > L7_RULE_NAME_MAX ? L7_RULE_NAME_MAX : n;
	memcpy(v->s, s, v->len);
}

/* "NAME:REST" */
static void split_colon(const char *s, size_t n, size_t *at)
{
	for (*at = 0; *at < n && s[*at] != ':'; (*at)++)
		;
}

static void parse_token(struct l7_rule *r, const char *t, size_t n)
{
	const char *v = t + 2;
	size_t vn = n >= 2 ? n - 2 : 0, c;

	if (n == 1 && t[0] == 'F')
		r->flags |= L7_RULE_F_FALLTHROUGH;
	if (n == 1 && t[0] == 'N')
		r->flags |= L7_RULE_F_PATH_NOCASE;
	if (n < 2 || t[1] != '=')
		return;
	switch (t[0]) {
	case 'h':
		copy_value(&r->host, v, vn);
		break;
	case 'p':
	case 'e':
		r->path_kind = t[0] == 'p' ? L7_PATH_PREFIX : L7_PATH_EXACT;
		copy_value(&r->path, v, vn);
		break;
	case 'm':
		r->methods = (uint16_t)strtoul(v, NULL, 10);
		break;
	case 'r':
		r->action = L7_ACT_REJECT;
		r->status = (uint16_t)strtoul(v, NULL, 10);
		break;
	case 'P':
		r->pool = (uint16_t)strtoul(v, NULL, 10);
		break;
	case 'x':
		if (r->nhdr == L7_RULE_HDR_TESTS)
			break;
		split_colon(v, vn, &c);
		copy_name(&r->hdr[r->nhdr].name, v, c);
		copy_value(&r->hdr[r->nhdr].values, v + c + (c < vn),
			   vn - c - (c < vn));
		r->nhdr++;
		break;
	case 'c':
		split_colon(v, vn, &c);
		copy_name(&r->cookie.name, v, c);
		copy_value(&r->cookie.value, v + c + (c < vn),
			   vn - c - (c < vn));
		break;
	}
}

/* strtoul needs a NUL: tokens are copied out first */
static void parse_line(struct l7_rule *r, const char *s, size_t n)
{
	char tok[512];
	size_t a = 0, b;

	memset(r, 0, sizeof(*r));
	while (a < n) {
		for (b = a; b < n && s[b] != ' '; b++)
			;
		if (b - a < sizeof(tok)) {
			memcpy(tok, s + a, b - a);
			tok[b - a] = '\0';
			parse_token(r, tok, b - a);
		}
		a = b + 1;
	}
}

static unsigned int text_rules(const uint8_t *d, size_t n)
{
	unsigned int nr = 0;
	size_t a = 0, b;

	while (a < n && nr < MAX_RULES) {
		for (b = a; b < n && d[b] != '\n'; b++)
			;
		parse_line(&rules[nr], (const char *)d + a, b - a);
		if (!l7_rule_invalid(&rules[nr], 4))
			nr++;
		a = b + 1;
	}
	return nr;
}

static unsigned int raw_rules(const uint8_t *d, size_t n)
{
	unsigned int nr = 0;

	while (n >= sizeof(struct l7_rule) && nr < MAX_RULES) {
		memcpy(&rules[nr], d, sizeof(struct l7_rule));
		d += sizeof(struct l7_rule);
		n -= sizeof(struct l7_rule);
		if (!l7_rule_invalid(&rules[nr], 4))
			nr++;
	}
	return nr;
}

/* ---- an independent reading of the host and path tests ---- */

static bool ref_ieq(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (l7_to_lower(a[i]) != l7_to_lower(b[i]))
			return false;
	}
	return true;
}

static bool ref_host(const struct l7_rule *r)
{
	const char *h = view.host;
	size_t hn = view.host_len, rn = r->host.len;

	if (!rn)
		return true;
	if (rn > 2 && r->host.s[0] == '*') {
		/* some label(s), then '.', then the domain */
		rn -= 2;
		return hn > rn + 1 && h[hn - rn - 1] == '.' &&
		       ref_ieq(h + hn - rn, r->host.s + 2, rn);
	}
	return hn == rn && ref_ieq(h, r->host.s, rn);
}

static bool ref_path(const struct l7_rule *r)
{
	const char *p = view.path;
	size_t pn = view.path_len, rn = r->path.len;
	bool nc = r->flags & L7_RULE_F_PATH_NOCASE;
	bool same = pn >= rn && (nc ? ref_ieq(p, r->path.s, rn) :
				      !memcmp(p, r->path.s, rn));

	switch (r->path_kind) {
	case L7_PATH_EXACT:
		return same && pn == rn;
	case L7_PATH_PREFIX:
		/* the next byte starts a segment, or the rule ended in one */
		return same && (pn == rn || p[rn] == '/' ||
				r->path.s[rn - 1] == '/');
	}
	return true;
}

static bool ready(void *ctx, unsigned int pool)
{
	return *(uint8_t *)ctx & (1u << pool);
}

/*
 * The index finds every rule that matches, and decides as the walk did
 * (@walked).
 */
static void check_index(unsigned int nr, uint8_t ready_bits,
			const struct l7_verdict *walked)
{
	struct l7_rule_index *ix = malloc(l7_rule_index_size(nr));
	uint64_t cand[L7_RULE_WORDS];
	struct l7_verdict indexed;
	unsigned int j;

	l7_rule_index_build(ix, rules, nr);
	l7_rule_candidates(ix, &view, cand);
	for (j = 0; j < L7_RULES_MAX; j++) {
		bool is_cand = cand[j / 64] >> (j % 64) & 1;

		FUZZ_ASSERT(j < nr || !is_cand);
		if (j < nr && l7_rules_match(&rules[j], 1, 0, &view) == 0)
			FUZZ_ASSERT(is_cand);
	}
	l7_rules_decide(rules, nr, ix, &view, ready, &ready_bits, &indexed);
	FUZZ_ASSERT(walked->kind == indexed.kind &&
		    walked->rule == indexed.rule &&
		    walked->status == indexed.status &&
		    walked->pool == indexed.pool);
	free(ix);
}

static void check_match(unsigned int nr, uint8_t ready_bits)
{
	struct l7_verdict v;
	unsigned int j;
	int first = l7_rules_match(rules, nr, 0, &view);

	FUZZ_ASSERT(first >= -1 && first < (int)nr);
	for (j = 0; j < nr; j++) {
		bool alone = l7_rules_match(&rules[j], 1, 0, &view) == 0;

		if ((int)j < first || first < 0)
			FUZZ_ASSERT(!alone);
		if ((int)j == first)
			FUZZ_ASSERT(alone);
		if (alone)
			FUZZ_ASSERT(ref_host(&rules[j]) && ref_path(&rules[j]));
		else if (!rules[j].methods && !rules[j].nhdr &&
			 !rules[j].cookie.name.len)
			FUZZ_ASSERT(!(ref_host(&rules[j]) &&
				      ref_path(&rules[j])));
	}
	l7_rules_decide(rules, nr, NULL, &view, ready, &ready_bits, &v);
	check_index(nr, ready_bits, &v);
	if (first < 0) {
		FUZZ_ASSERT(v.kind == L7_V_SERVICE && v.rule == -1);
		return;
	}
	FUZZ_ASSERT(v.rule >= first && v.rule < (int)nr);
	if (v.kind == L7_V_POOL)
		FUZZ_ASSERT(ready(&ready_bits, v.pool) &&
			    v.pool == rules[v.rule].pool);
	if (v.kind == L7_V_REJECT)
		FUZZ_ASSERT(v.status == 403 || v.status == 404 ||
			    v.status == 503);
}

static void check_keys(void)
{
	static const char *const names[] = { "cookie", "x-a", "sid", "host" };
	struct l7_pool_policy p = { .policy = L7_POLICY_HASH };
	const uint8_t *k;
	uint32_t len;
	unsigned int i;

	for (p.key = L7_KEY_URI; p.key <= L7_KEY_HEADER; p.key++) {
		for (i = 0; i < L7_ARRAY_SIZE(names); i++) {
			copy_name(&p.key_name, names[i], strlen(names[i]));
			if (!l7_view_hash_key(&view, &p, &k, &len))
				continue;
			/* inside the head, the path or the host */
			FUZZ_ASSERT((k >= view.head &&
				     k + len <= view.head + view.head_len) ||
				    ((const char *)k == view.path &&
				     len == view.path_len) ||
				    ((const char *)k == view.host &&
				     len == view.host_len));
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct l7_http_req req;
	const uint8_t *head, *nul;
	unsigned int nr;
	size_t hn, used;
	char *path;
	int st;

	if (size < 2)
		return 0;
	nul = memchr(data + 2, 0, size - 2);
	if (!nul)
		return 0;
	nr = data[1] & 1 ? raw_rules(data + 2, nul - data - 2) :
			   text_rules(data + 2, nul - data - 2);
	head = nul + 1;
	hn = size - (head - data);

	fuzz_normalise(head, hn);

	l7_http_req_init(&req, NULL);
	if (l7_http_req_feed(&req, head, hn, &used) != L7_HTTP_DONE)
		return 0;
	/* the head alone, in a buffer of its exact size */
	path = malloc(req.target.len + 1);
	st = l7_req_view_build(&view, head, used, &req, path,
			       req.target.len + 1);
	FUZZ_ASSERT(st == 0 || st == 400 || st == 431);
	if (st == 0) {
		FUZZ_ASSERT(view.path_len <= req.target.len + 1);
		if (req.target_form == L7_HTTP_T_ASTERISK)
			FUZZ_ASSERT(view.path_len == 1 && view.path[0] == '*');
		else
			check_normal(view.path, view.path_len);
		check_host();
		check_match(nr, data[0]);
		check_keys();
	}
	free(path);
	return 0;
}
