// SPDX-License-Identifier: GPL-2.0
/*
 * Host micro-benchmark of the head framers alone (core/http_req.c,
 * core/http_resp.c): realistic heads fed many times, each whole and in
 * three segments cut at awkward places (inside a CRLF, inside a field
 * name), ns per head printed.  Built -O2 without sanitizers by
 * "make bench-core".  Every feed is checked to end the head where it
 * should, so a framer that stopped early cannot look fast.
 *
 * usage: bench_framers [ROUNDS [HEADS_PER_ROUND]]; the fastest round is
 * printed: on a shared host a round is only ever slowed by others, and
 * many short rounds let some of them run undisturbed.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http_req.h"
#include "http_resp.h"

#define MAX_ROUNDS	1000

/* wrk's request, as the bench's W1 sends it */
static const char req_wrk[] =
	"GET /static/1k.bin HTTP/1.1\r\n"
	"Host: 192.0.2.10\r\n"
	"\r\n";

/* a browser's request: ten fields, a ~200-byte Cookie */
static const char req_browser[] =
	"GET /catalog/item/42?ref=home&lang=en HTTP/1.1\r\n"
	"Host: shop.example.com\r\n"
	"User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) "
	"Gecko/20100101 Firefox/128.0\r\n"
	"Accept: text/html,application/xhtml+xml,application/xml;q=0.9,"
	"image/avif,image/webp,*/*;q=0.8\r\n"
	"Accept-Language: en-US,en;q=0.5\r\n"
	"Accept-Encoding: gzip, deflate, br, zstd\r\n"
	"Referer: https://shop.example.com/catalog\r\n"
	"Cookie: session=4f9c2b7e8a1d4c6f9e3b2a1c5d7e9f01; "
	"cart=eyJpdGVtcyI6WzQyLDE3LDk5XSwidG90YWwiOjMxOX0; "
	"prefs=theme%3Ddark%26currency%3DEUR%26region%3Deu-west; "
	"_ga=GA1.2.1234567890.1732780800; consent=analytics:1|ads:0\r\n"
	"Upgrade-Insecure-Requests: 1\r\n"
	"Sec-Fetch-Mode: navigate\r\n"
	"Connection: keep-alive\r\n"
	"\r\n";

/* Apache 2.4's head for a static file on a keep-alive connection */
static const char resp_apache[] =
	"HTTP/1.1 200 OK\r\n"
	"Date: Sat, 28 Nov 2026 08:00:00 GMT\r\n"
	"Server: Apache/2.4.62 (Debian)\r\n"
	"Last-Modified: Tue, 24 Nov 2026 10:15:42 GMT\r\n"
	"ETag: \"400-5f1b2c3d4e5f6\"\r\n"
	"Accept-Ranges: bytes\r\n"
	"Content-Length: 1024\r\n"
	"Keep-Alive: timeout=5, max=100\r\n"
	"Connection: Keep-Alive\r\n"
	"Content-Type: application/octet-stream\r\n"
	"\r\n";

struct bench_case {
	const char *name;
	const char *head;
	bool response;
	/* two cuts: just after the first byte of @cut[i] in the head */
	const char *cut[2];
};

/*
 * Cuts between the CR and LF of the first line, and inside a field name
 * the framer has to recognise (the hardest places to resume from).
 */
static const struct bench_case cases[] = {
	{ "wrk request",      req_wrk,     false, { "\r\nHost", "ost:" } },
	{ "browser request",  req_browser, false, { "\r\nHost", "nnection:" } },
	{ "Apache response",  resp_apache, true,  { "\r\nDate", "ntent-Length" } },
};

static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what, const char *name)
{
	fprintf(stderr, "bench_framers: %s: %s\n", name, what);
	exit(1);
}

/* One head through the request framer in @nseg segments; its length. */
static uint32_t feed_req(const uint8_t *p, const size_t *seg, int nseg)
{
	struct l7_http_req r;
	enum l7_http_status st = L7_HTTP_MORE;
	size_t used, off = 0;
	int i;

	l7_http_req_init(&r, NULL);
	for (i = 0; i < nseg; i++) {
		st = l7_http_req_feed(&r, p + off, seg[i], &used);
		off += used;
	}
	return st == L7_HTTP_DONE ? r.head_len + r.host.len : 0;
}

static uint32_t feed_resp(const uint8_t *p, const size_t *seg, int nseg)
{
	struct l7_http_resp r;
	enum l7_resp_status st = L7_RESP_MORE;
	size_t used, off = 0;
	int i;

	l7_http_resp_init(&r, NULL, L7_HTTP_M_GET);
	for (i = 0; i < nseg; i++) {
		st = l7_http_resp_feed(&r, p + off, seg[i], &used);
		off += used;
	}
	return st == L7_RESP_HEAD ? r.head_len + r.status_code : 0;
}

static uint32_t feed(const struct bench_case *c, const size_t *seg, int nseg)
{
	const uint8_t *p = (const uint8_t *)c->head;

	return c->response ? feed_resp(p, seg, nseg) : feed_req(p, seg, nseg);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The fastest of @rounds rounds of @n heads, in ns per head. */
static double time_case(const struct bench_case *c, const size_t *seg,
			int nseg, int rounds, long n)
{
	uint64_t t[MAX_ROUNDS];
	uint32_t want = feed(c, seg, nseg);
	int k;

	if (!want)
		die("the framer did not take the head", c->name);
	for (k = 0; k < rounds; k++) {
		uint64_t t0 = now_ns(), acc = 0;
		long i;

		for (i = 0; i < n; i++)
			acc += feed(c, seg, nseg);
		t[k] = now_ns() - t0;
		if (acc != (uint64_t)want * (uint64_t)n)
			die("a result changed between feeds", c->name);
		sink += acc;
	}
	qsort(t, (size_t)rounds, sizeof(t[0]), cmp_u64);
	return (double)t[0] / (double)n;
}

/* Segment lengths of @c cut in three at its two cut points. */
static void split3(const struct bench_case *c, size_t seg[3])
{
	size_t len = strlen(c->head), at[2];
	int i;

	for (i = 0; i < 2; i++) {
		const char *s = strstr(c->head, c->cut[i]);

		if (!s)
			die("cut point not in the head", c->name);
		at[i] = (size_t)(s - c->head) + 1;
	}
	if (at[0] >= at[1])
		die("cut points out of order", c->name);
	seg[0] = at[0];
	seg[1] = at[1] - at[0];
	seg[2] = len - at[1];
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	long n = argc > 2 ? atol(argv[2]) : 5000;
	size_t i;

	if (rounds < 1 || rounds > MAX_ROUNDS || n < 1) {
		fprintf(stderr, "usage: %s [ROUNDS (1-%d) [HEADS]]\n",
			argv[0], MAX_ROUNDS);
		return 2;
	}
	printf("%-18s %6s %10s %10s\n", "head", "bytes", "whole ns",
	       "3 segs ns");
	for (i = 0; i < L7_ARRAY_SIZE(cases); i++) {
		const struct bench_case *c = &cases[i];
		size_t whole = strlen(c->head), seg[3];
		double a, b;

		split3(c, seg);
		a = time_case(c, &whole, 1, rounds, n);
		b = time_case(c, seg, 3, rounds, n);
		printf("%-18s %6zu %10.1f %10.1f\n", c->name, whole, a, b);
	}
	return 0;
}
