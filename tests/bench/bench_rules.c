// SPDX-License-Identifier: GPL-2.0
/*
 * Host micro-benchmark of content-rule matching (core/l7_rule.c,
 * core/l7_rule_index.c): the bench's rule sets - N-1 path prefixes
 * /static/rK that W1's request never matches, then /static, which it
 * does - decided for W1's request walking the rules and through their
 * index, ns per request printed for N = 0 (the view alone), 10, 100 and
 * 1,000.  Built -O2 without sanitizers by "make bench-core".  Every
 * decision is checked to pick the last rule, so a matcher that stopped
 * early cannot look fast.
 *
 * usage: bench_rules [ROUNDS [REQUESTS_PER_ROUND]]; the fastest round is
 * printed, as bench_framers does.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http_req.h"
#include "l7_rule.h"
#include "l7_rule_index.h"

static const char req_wrk[] =
	"GET /static/1k.bin HTTP/1.1\r\n"
	"Host: 192.0.2.10\r\n"
	"\r\n";

static struct l7_rule rules[L7_RULES_MAX];
static struct l7_req_view view;
static char path_buf[256];

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void rule_prefix(struct l7_rule *r, const char *path, uint16_t pool)
{
	memset(r, 0, sizeof(*r));
	r->path_kind = L7_PATH_PREFIX;
	r->pool = pool;
	r->path.len = (uint8_t)strlen(path);
	memcpy(r->path.s, path, r->path.len);
}

static void rule_set(unsigned int n)
{
	char p[32];
	unsigned int k;

	for (k = 1; k < n; k++) {
		snprintf(p, sizeof(p), "/static/r%u", k);
		rule_prefix(&rules[k - 1], p, 0);
	}
	if (n)
		rule_prefix(&rules[n - 1], "/static", 0);
	for (k = 0; k < n; k++) {
		if (l7_rule_invalid(&rules[k], 1)) {
			fprintf(stderr, "bench_rules: rule %u invalid\n", k);
			exit(1);
		}
	}
}

static bool ready(void *ctx, unsigned int pool)
{
	(void)ctx;
	(void)pool;
	return true;
}

/* One request: view, then decision; the last rule must decide it. */
static void one(unsigned int n, const struct l7_rule_index *ix,
		const struct l7_http_req *req, size_t len)
{
	struct l7_verdict v;

	if (l7_req_view_build(&view, (const uint8_t *)req_wrk, len, req,
			      path_buf, sizeof(path_buf))) {
		fprintf(stderr, "bench_rules: view refused\n");
		exit(1);
	}
	l7_rules_decide(rules, n, ix, &view, ready, NULL, &v);
	if (v.rule != (int)n - 1) {
		fprintf(stderr, "bench_rules: rule %d decided, not %u\n",
			v.rule, n - 1);
		exit(1);
	}
}

static double best_ns(unsigned int n, const struct l7_rule_index *ix,
		      const struct l7_http_req *req, size_t len,
		      unsigned int rounds, unsigned int per_round)
{
	double best = 1e300;
	unsigned int r, i;

	for (r = 0; r < rounds; r++) {
		double t0 = now_ns(), ns;

		for (i = 0; i < per_round; i++)
			one(n, ix, req, len);
		ns = (now_ns() - t0) / per_round;
		if (ns < best)
			best = ns;
	}
	return best;
}

int main(int argc, char **argv)
{
	static const unsigned int sizes[] = { 0, 10, 100, 1000 };
	unsigned int rounds = argc > 1 ? atoi(argv[1]) : 50;
	unsigned int per_round = argc > 2 ? atoi(argv[2]) : 2000;
	struct l7_http_req req;
	size_t len = strlen(req_wrk), used;
	unsigned int s;

	l7_http_req_init(&req, NULL);
	if (l7_http_req_feed(&req, (const uint8_t *)req_wrk, len, &used) !=
	    L7_HTTP_DONE || used != len) {
		fprintf(stderr, "bench_rules: request not framed\n");
		return 1;
	}
	printf("%-6s %12s %12s\n", "rules", "walked ns", "indexed ns");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		unsigned int n = sizes[s];
		struct l7_rule_index *ix = malloc(l7_rule_index_size(n));
		double walked, indexed;

		rule_set(n);
		l7_rule_index_build(ix, rules, n);
		walked = best_ns(n, NULL, &req, len, rounds, per_round);
		indexed = best_ns(n, ix, &req, len, rounds, per_round);
		printf("%-6u %12.0f %12.0f\n", n, walked, indexed);
		free(ix);
	}
	return 0;
}
