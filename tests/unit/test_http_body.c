// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/http_body.c, the incremental body framer.
 *
 * Every chunked body is fed whole, byte by byte, split at every point and
 * at every pair of points, and with the skippable bytes skipped unread the
 * way the kernel advances over payload: the framer must end (or fail) at
 * the same byte whatever the segmentation.  The start of a next request
 * follows each body and must be left unconsumed.
 */
#include <stdlib.h>
#include <string.h>

#include "http_body.h"
#include "http_chars.h"
#include "l7_test.h"

/* An error's name in failure messages: its enum member's. */
#define E(x)	[L7_BODY_E_##x] = #x
static const char *const err_names[L7_BODY_E_COUNT] = {
	E(NONE), E(CHUNK_SIZE), E(CHUNK_EXT), E(CHUNK_LINE_TOO_LARGE),
	E(CHUNK_DATA_END), E(LINE_END), E(TRAILER), E(TRAILER_VALUE),
	E(OBS_FOLD), E(TRAILER_TOO_LARGE), E(TOO_MANY_TRAILERS),
};
#undef E

static const char *err_name(enum l7_body_err e)
{
	if ((unsigned int)e >= L7_BODY_E_COUNT || !err_names[e])
		return "?";
	return err_names[e];
}

#define NEXT "POST /next HTTP/1.1\r\n"
#define U64_MAX (~(uint64_t)0)

struct result {
	enum l7_body_status st;
	enum l7_body_err err;
	size_t consumed;	/* total of *used and of bytes skipped */
	uint64_t pos;
};

/*
 * Feed @len bytes of @d cut at the @ncuts sorted offsets in @cuts, each
 * segment preceded by an empty feed.  With @skip, whatever is skippable
 * is skipped unread before each feed.  Checks the invariants that hold
 * at every step: *used within the segment, ->pos moving forward by
 * exactly what was taken.
 */
static void run(const uint8_t *d, size_t len, const size_t *cuts, int ncuts,
		const struct l7_http_body_limits *lim, bool skip,
		struct result *res)
{
	enum l7_body_status st = L7_BODY_MORE;
	struct l7_http_body b;
	size_t from = 0, used;
	int seg;

	l7_http_body_init(&b, lim, true, 0);
	for (seg = 0; seg <= ncuts && st == L7_BODY_MORE; seg++) {
		size_t to = seg < ncuts ? cuts[seg] : len;

		st = l7_http_body_feed(&b, d + from, 0, &used);
		CHECK(st == L7_BODY_MORE && used == 0, "empty feed: %d", st);
		while (from < to && st == L7_BODY_MORE) {
			uint64_t n = skip ? l7_http_body_skippable(&b) : 0;
			uint64_t pos = b.pos;

			if (n) {
				if (n > to - from)
					n = to - from;
				l7_http_body_skip(&b, n);
				from += n;
				st = l7_http_body_done(&b) ? L7_BODY_DONE :
							     L7_BODY_MORE;
				CHECK(b.pos == pos + n, "skip moved pos");
				continue;
			}
			st = l7_http_body_feed(&b, d + from, to - from, &used);
			CHECK(used <= to - from, "used %zu of %zu", used,
			      to - from);
			CHECK(st != L7_BODY_MORE || used == to - from,
			      "MORE with %zu of %zu used", used, to - from);
			CHECK(b.pos == pos + used ||
			      (st == L7_BODY_ERROR && b.pos + 1 == pos + used),
			      "pos %llu after %llu + %zu",
			      (unsigned long long)b.pos,
			      (unsigned long long)pos, used);
			from += used;
		}
	}
	res->st = st;
	res->err = b.err;
	res->consumed = from;
	res->pos = b.pos;
	/* an ended framer takes nothing more, and skips nothing */
	if (st != L7_BODY_MORE) {
		CHECK(l7_http_body_feed(&b, d, len, &used) == st && used == 0,
		      "feed after end");
		CHECK(l7_http_body_skippable(&b) == 0, "skippable after end");
	}
}

static bool same(const struct result *a, const struct result *b)
{
	return a->st == b->st && a->err == b->err &&
	       a->consumed == b->consumed && a->pos == b->pos;
}

/* ---- Content-Length ---- */

static void test_length_zero_and_one(void)
{
	static const uint8_t next[] = NEXT;
	struct l7_http_body b;
	size_t used;

	/* an empty body is done before any byte */
	l7_http_body_init(&b, NULL, false, 0);
	CHECK(l7_http_body_done(&b) && l7_http_body_skippable(&b) == 0,
	      "length 0: done at once");
	CHECK(l7_http_body_feed(&b, next, sizeof(next) - 1, &used) ==
	      L7_BODY_DONE && used == 0 && b.pos == 0, "length 0: feed");

	l7_http_body_init(&b, NULL, false, 1);
	CHECK(!l7_http_body_done(&b) && l7_http_body_skippable(&b) == 1,
	      "length 1: skippable");
	CHECK(l7_http_body_feed(&b, next, 0, &used) == L7_BODY_MORE &&
	      used == 0, "length 1: empty feed");
	CHECK(l7_http_body_feed(&b, next, sizeof(next) - 1, &used) ==
	      L7_BODY_DONE && used == 1 && b.pos == 1, "length 1: used %zu",
	      used);
	CHECK(l7_http_body_feed(&b, next, 1, &used) == L7_BODY_DONE &&
	      used == 0, "length 1: after done");
}

/* Lengths near and at the top of 64 bits, skipped and fed by count. */
static void test_length_large(void)
{
	static const uint64_t lens[] = {
		(1ull << 63) - 1, 1ull << 63, (1ull << 63) + 3, U64_MAX,
	};
	static const uint8_t next[] = NEXT;
	struct l7_http_body b;
	size_t i, used;

	for (i = 0; i < L7_ARRAY_SIZE(lens); i++) {
		uint64_t len = lens[i];

		l7_http_body_init(&b, NULL, false, len);
		CHECK(l7_http_body_skippable(&b) == len, "%zu: skippable", i);
		l7_http_body_skip(&b, len - 5);
		CHECK(l7_http_body_skippable(&b) == 5 && b.pos == len - 5 &&
		      !l7_http_body_done(&b), "%zu: after skip", i);
		l7_http_body_skip(&b, 0);
		CHECK(b.pos == len - 5, "%zu: skip 0", i);
		CHECK(l7_http_body_feed(&b, next, 3, &used) == L7_BODY_MORE &&
		      used == 3 && b.pos == len - 2, "%zu: feed 3", i);
		CHECK(l7_http_body_feed(&b, next, sizeof(next) - 1, &used) ==
		      L7_BODY_DONE && used == 2 && b.pos == len,
		      "%zu: end: used %zu", i, used);
	}

	/* skipping the very last byte ends the body */
	l7_http_body_init(&b, NULL, false, U64_MAX);
	l7_http_body_skip(&b, U64_MAX);
	CHECK(l7_http_body_done(&b) && b.pos == U64_MAX &&
	      l7_http_body_skippable(&b) == 0, "skip all of U64_MAX");
}

/* A body of 3 MiB + 7 fed as the same 1 MiB buffer: never looked into. */
static void test_length_fed(void)
{
	const size_t seg = 1 << 20;
	uint64_t left = 3 * (uint64_t)seg + 7;
	uint8_t *junk = malloc(seg);
	struct l7_http_body b;
	size_t used;

	memset(junk, '\n', seg);
	l7_http_body_init(&b, NULL, false, left);
	while (left > seg &&
	       l7_http_body_feed(&b, junk, seg, &used) == L7_BODY_MORE &&
	       used == seg)
		left -= seg;
	CHECK(left == 7, "fed to %llu", (unsigned long long)left);
	CHECK(l7_http_body_feed(&b, junk, seg, &used) == L7_BODY_DONE &&
	      used == 7, "end: used %zu", used);
	free(junk);
}

/* ---- chunked: bodies the framer must accept ---- */

static const struct {
	const char *name;
	const char *body;
} good[] = {
	{ "last chunk only", "0\r\n\r\n" },
	{ "Apache CGI",
	  "19\r\nbackend=s2 iters=10 x=42\n\r\n5\r\nline\n\r\n0\r\n\r\n" },
	{ "upper-case hex, leading zeros",
	  "000A\r\n0123456789\r\nF\r\n0123456789abcde\r\n"
	  "00000000000000000000000000001\r\nz\r\n0000\r\n\r\n" },
	{ "data holding CRLF and chunk lines",
	  "a\r\n0\r\n\r\n0\r\n\r\n\r\n0\r\n\r\n" },
	{ "extensions",
	  "4;name=value\r\nWiki\r\n"
	  "5 ; a = \"q\\\"x;y\" ;b\t;c=d\r\npedia\r\n"
	  "E;e=\"\"\r\n in\r\n\r\nchunks.\r\n"
	  "1;a;b;c=\"\\\\\" \t\r\n!\r\n"
	  "0;last\r\n\r\n" },
	{ "10 blanks after a size (Apache's most), any after extensions",
	  "3          \r\nabc\r\n"
	  "2\t \t \t \t \t ;a           \r\nde\r\n"
	  "1;b=c \t \t \t \t \t \t ;d           \r\nf\r\n"
	  "0          \r\n\r\n" },
	{ "trailers",
	  "3\r\nabc\r\n0\r\n"
	  "Expires: Wed, 21 Oct 2015 07:28:00 GMT\r\n"
	  "X-Checksum:abc\r\nX-Empty:\r\nX-Odd: caf\xc3\xa9\t \r\n\r\n" },
};

/* @body + NEXT: the framer must end exactly where NEXT begins. */
static uint8_t *with_next(const char *body, size_t *len)
{
	size_t n = strlen(body);
	uint8_t *d = malloc(n + sizeof(NEXT));

	memcpy(d, body, n);
	memcpy(d + n, NEXT, sizeof(NEXT));
	*len = n + sizeof(NEXT) - 1;
	return d;
}

static void check_good(size_t i, const struct result *r, const char *how)
{
	CHECK(r->st == L7_BODY_DONE && r->consumed == strlen(good[i].body) &&
	      r->pos == r->consumed && r->err == L7_BODY_E_NONE,
	      "%s [%s]: status %d err '%s' consumed %zu", good[i].name, how,
	      r->st, err_name(r->err), r->consumed);
}

static void test_chunked_good_every_split(void)
{
	size_t i, a, b, len, cuts[2];
	struct result r;

	for (i = 0; i < L7_ARRAY_SIZE(good); i++) {
		uint8_t *d = with_next(good[i].body, &len);

		run(d, len, NULL, 0, NULL, false, &r);
		check_good(i, &r, "whole");
		for (a = 0; a <= len; a++) {
			cuts[0] = a;
			run(d, len, cuts, 1, NULL, false, &r);
			check_good(i, &r, "split1");
			run(d, len, cuts, 1, NULL, true, &r);
			check_good(i, &r, "split1 skip");
			for (b = a; b <= len; b++) {
				cuts[1] = b;
				run(d, len, cuts, 2, NULL, false, &r);
				check_good(i, &r, "split2");
			}
		}
		free(d);
	}
}

static void test_chunked_good_byte_at_a_time(void)
{
	size_t i, k, len, cuts[512];
	struct result r;

	for (i = 0; i < L7_ARRAY_SIZE(good); i++) {
		uint8_t *d = with_next(good[i].body, &len);

		for (k = 0; k + 1 < len && k < L7_ARRAY_SIZE(cuts); k++)
			cuts[k] = k + 1;
		run(d, len, cuts, (int)k, NULL, false, &r);
		check_good(i, &r, "bytewise");
		run(d, len, cuts, (int)k, NULL, true, &r);
		check_good(i, &r, "bytewise skip");
		free(d);
	}
}

/* What is skippable is exactly the data of the chunk being read. */
static void test_chunked_skippable(void)
{
	static const char body[] = "5;x=y\r\nhello\r\n0\r\nA: b\r\n\r\n";
	static const struct {
		size_t at;	/* bytes fed */
		uint64_t skippable;
	} steps[] = {
		{ 0, 0 }, { 6, 0 }, { 7, 5 }, { 9, 3 }, { 12, 0 }, { 14, 0 },
		{ 17, 0 }, { 23, 0 }, { 25, 0 },
	};
	struct l7_http_body b;
	size_t i, from = 0, used;

	l7_http_body_init(&b, NULL, true, 12345);
	for (i = 0; i < L7_ARRAY_SIZE(steps); i++) {
		l7_http_body_feed(&b, (const uint8_t *)body + from,
				  steps[i].at - from, &used);
		from += used;
		CHECK(from == steps[i].at &&
		      l7_http_body_skippable(&b) == steps[i].skippable,
		      "after %zu: skippable %llu", steps[i].at,
		      (unsigned long long)l7_http_body_skippable(&b));
	}
	CHECK(l7_http_body_done(&b), "done");

	/* the largest chunk size (Apache's), skipped but for one byte */
	l7_http_body_init(&b, NULL, true, 0);
	l7_http_body_feed(&b, (const uint8_t *)"7fffffffffffffff\r\n", 18,
			  &used);
	CHECK(used == 18 && l7_http_body_skippable(&b) == U64_MAX >> 1,
	      "max chunk: skippable");
	l7_http_body_skip(&b, (U64_MAX >> 1) - 1);
	CHECK(l7_http_body_feed(&b, (const uint8_t *)"x\r\n0\r\n\r\n" NEXT,
				8 + sizeof(NEXT) - 1, &used) == L7_BODY_DONE &&
	      used == 8 && b.pos == (U64_MAX >> 1) - 1 + 18 + 8,
	      "max chunk: end, used %zu", used);
}

/* ---- chunked: bodies the framer must reject ---- */

static const struct {
	const char *name;
	const char *ok;		/* bytes accepted before the offending one */
	const char *bad;	/* the offending byte and what follows */
	enum l7_body_err err;
} bad[] = {
	{ "empty chunk size", "", "\r\n", L7_BODY_E_CHUNK_SIZE },
	{ "not hex", "", "g\r\n", L7_BODY_E_CHUNK_SIZE },
	{ "signed", "", "-1\r\n", L7_BODY_E_CHUNK_SIZE },
	{ "0x prefix", "0", "x1\r\n", L7_BODY_E_CHUNK_SIZE },
	{ "overflow", "1000000000000000", "0\r\n", L7_BODY_E_CHUNK_SIZE },
	{ "overflow after zeros", "0001000000000000000", "0\r\n",
	  L7_BODY_E_CHUNK_SIZE },
	{ "size 2^63 (Apache's off_t)", "800000000000000", "0\r\n",
	  L7_BODY_E_CHUNK_SIZE },
	{ "size 2^64 - 1", "000fffffffffffffff", "f\r\n",
	  L7_BODY_E_CHUNK_SIZE },
	{ "11 blanks after size", "5          ", " \r\nhello\r\n",
	  L7_BODY_E_CHUNK_SIZE },
	{ "11 blanks and tabs after size", "0\t \t \t \t \t ", "\t;a\r\n",
	  L7_BODY_E_CHUNK_SIZE },
	{ "space inside size", "1 ", "0\r\n", L7_BODY_E_CHUNK_EXT },
	{ "extension without name", "1;", "\r\nx\r\n", L7_BODY_E_CHUNK_EXT },
	{ "extension without value", "1;a=", "\r\nx\r\n",
	  L7_BODY_E_CHUNK_EXT },
	{ "names without ';'", "1;a ", "b\r\n", L7_BODY_E_CHUNK_EXT },
	{ "CR in quoted value", "1;a=\"x", "\r\n", L7_BODY_E_CHUNK_EXT },
	{ "control byte in quoted value", "1;a=\"", "\x01\"\r\n",
	  L7_BODY_E_CHUNK_EXT },
	{ "'=' twice", "1;a=", "=b\r\n", L7_BODY_E_CHUNK_EXT },
	{ "bare LF after size", "3", "\nabc\r\n", L7_BODY_E_LINE_END },
	{ "bare LF in extension", "3;a", "\nabc\r\n", L7_BODY_E_LINE_END },
	{ "bare CR after size", "3\r", "abc\r\n", L7_BODY_E_LINE_END },
	{ "data longer than size", "3\r\nabc", "d\r\n",
	  L7_BODY_E_CHUNK_DATA_END },
	{ "data without CRLF", "3\r\nabc", "0\r\n\r\n",
	  L7_BODY_E_CHUNK_DATA_END },
	{ "data ends in bare LF", "3\r\nabc", "\n0\r\n\r\n",
	  L7_BODY_E_CHUNK_DATA_END },
	{ "data ends in bare CR", "3\r\nabc\r", "0\r\n\r\n",
	  L7_BODY_E_CHUNK_DATA_END },
	{ "bare LF ending trailers", "0\r\n", "\n", L7_BODY_E_LINE_END },
	{ "bare CR ending trailers", "0\r\n\r", "\r\n", L7_BODY_E_LINE_END },
	{ "bare LF after trailer", "0\r\nX: a", "\n\r\n", L7_BODY_E_LINE_END },
	{ "bare CR after trailer", "0\r\nX: a\r", "Y: b\r\n\r\n",
	  L7_BODY_E_LINE_END },
	{ "obs-fold in trailer", "0\r\nX: a\r\n", " b\r\n\r\n",
	  L7_BODY_E_OBS_FOLD },
	{ "space before colon", "0\r\nX", " : a\r\n\r\n", L7_BODY_E_TRAILER },
	{ "trailer without colon", "0\r\nX", "\r\n\r\n", L7_BODY_E_TRAILER },
	{ "empty trailer name", "0\r\n", ": a\r\n\r\n", L7_BODY_E_TRAILER },
	{ "DEL in trailer value", "0\r\nX: a", "\x7f\r\n\r\n",
	  L7_BODY_E_TRAILER_VALUE },
};

static void test_chunked_bad_every_split(void)
{
	size_t i, a, ok, len, cut;
	struct result whole, r;
	uint8_t d[128];

	for (i = 0; i < L7_ARRAY_SIZE(bad); i++) {
		ok = strlen(bad[i].ok);
		len = ok + strlen(bad[i].bad);
		memcpy(d, bad[i].ok, ok);
		memcpy(d + ok, bad[i].bad, len - ok);

		run(d, len, NULL, 0, NULL, false, &whole);
		CHECK(whole.st == L7_BODY_ERROR && whole.err == bad[i].err &&
		      whole.pos == ok && whole.consumed == ok + 1,
		      "%s: status %d err '%s' want '%s' at %llu want %zu",
		      bad[i].name, whole.st, err_name(whole.err),
		      err_name(bad[i].err),
		      (unsigned long long)whole.pos, ok);
		for (a = 0; a <= len; a++) {
			cut = a;
			run(d, len, &cut, 1, NULL, false, &r);
			CHECK(same(&r, &whole), "%s: split at %zu: status %d",
			      bad[i].name, a, r.st);
			run(d, len, &cut, 1, NULL, true, &r);
			CHECK(same(&r, &whole), "%s: skip, split at %zu",
			      bad[i].name, a);
		}
	}
}

/* ---- limits: exactly at one passes, one byte more fails ---- */

static const struct l7_http_body_limits small = {
	.max_trailer = 16, .max_trailers = 2, .max_chunk_line = 8,
};

static const struct {
	const char *body;
	enum l7_body_err err;	/* NONE: must end DONE */
	size_t at;		/* offset of the first byte over the limit */
} limit_cases[] = {
	/* chunk-size lines (with CRLF) of 8 bytes and of 9 */
	{ "1;ab=c\r\nx\r\n1;ab=c\r\nx\r\n0\r\n\r\n", L7_BODY_E_NONE, 0 },
	{ "1;abc=d\r\nx\r\n0\r\n\r\n", L7_BODY_E_CHUNK_LINE_TOO_LARGE, 8 },
	{ "1\r\nx\r\n1;abc=d\r\nx\r\n0\r\n\r\n",
	  L7_BODY_E_CHUNK_LINE_TOO_LARGE, 14 },
	/* leading zeros count against the line too */
	{ "0000001\r\nx\r\n0\r\n\r\n", L7_BODY_E_CHUNK_LINE_TOO_LARGE, 8 },
	/* trailer sections of 16 bytes and of 17 */
	{ "0\r\nA: 1\r\nB: 234\r\n\r\n", L7_BODY_E_NONE, 0 },
	{ "0\r\nA: 1\r\nB: 2345\r\n\r\n", L7_BODY_E_TRAILER_TOO_LARGE, 19 },
	/* two trailer fields, then three */
	{ "0\r\nA:\r\nB:\r\n\r\n", L7_BODY_E_NONE, 0 },
	{ "0\r\nA:\r\nB:\r\nC:\r\n\r\n", L7_BODY_E_TOO_MANY_TRAILERS, 11 },
};

static void test_limits(void)
{
	size_t i, a, len, cut, used;
	struct l7_http_body b;
	struct result r;

	for (i = 0; i < L7_ARRAY_SIZE(limit_cases); i++) {
		const uint8_t *p = (const uint8_t *)limit_cases[i].body;
		enum l7_body_err err = limit_cases[i].err;
		/* a limit stops before its byte, a syntax error after it */
		size_t want = err == L7_BODY_E_TOO_MANY_TRAILERS ?
			      limit_cases[i].at + 1 : limit_cases[i].at;

		len = strlen(limit_cases[i].body);
		for (a = 0; a <= len; a++) {
			cut = a;
			run(p, len, &cut, 1, &small, a & 1, &r);
			if (err == L7_BODY_E_NONE)
				CHECK(r.st == L7_BODY_DONE && r.consumed == len,
				      "limits %zu cut %zu: status %d err %s",
				      i, a, r.st, err_name(r.err));
			else
				CHECK(r.st == L7_BODY_ERROR && r.err == err &&
				      r.pos == limit_cases[i].at &&
				      r.consumed == want,
				      "limits %zu cut %zu: status %d err %s at %llu",
				      i, a, r.st, err_name(r.err),
				      (unsigned long long)r.pos);
		}
	}

	/* zero limits: not even the last chunk fits */
	l7_http_body_init(&b, &(struct l7_http_body_limits){ 0 }, true, 0);
	CHECK(l7_http_body_feed(&b, (const uint8_t *)"0\r\n\r\n", 5, &used) ==
	      L7_BODY_ERROR && b.err == L7_BODY_E_CHUNK_LINE_TOO_LARGE &&
	      used == 0, "zero limits");
}

/* An extension @ext_len bytes long after "1;", with the defaults. */
static enum l7_body_status long_line(size_t ext_len)
{
	uint8_t *d = malloc(ext_len + 16);
	struct l7_http_body b;
	size_t len = 0, used;
	enum l7_body_status st;

	d[len++] = '1';
	d[len++] = ';';
	memset(d + len, 'e', ext_len);
	len += ext_len;
	memcpy(d + len, "\r\nx\r\n0\r\n\r\n", 10);
	len += 10;
	l7_http_body_init(&b, NULL, true, 0);
	st = l7_http_body_feed(&b, d, len, &used);
	free(d);
	return st;
}

/* Trailer fields "X:" @n times, with the defaults. */
static enum l7_body_status many_trailers(size_t n, size_t pad)
{
	uint8_t *d = malloc(n * 4 + pad + 16);
	struct l7_http_body b;
	size_t len = 0, used, i;
	enum l7_body_status st;

	memcpy(d, "0\r\n", 3);
	len += 3;
	for (i = 0; i < n; i++, len += 4)
		memcpy(d + len, "X:\r\n", 4);
	memcpy(d + len, "Y:", 2);
	len += 2;
	memset(d + len, 'p', pad);
	len += pad;
	memcpy(d + len, "\r\n\r\n", 4);
	len += 4;
	l7_http_body_init(&b, NULL, true, 0);
	st = l7_http_body_feed(&b, d, len, &used);
	free(d);
	return st;
}

static void test_default_limits(void)
{
	/* "1;" + ext + CRLF: 4096 bytes pass, 4097 do not */
	CHECK(long_line(L7_BODY_DEFAULT_MAX_CHUNK_LINE - 4) == L7_BODY_DONE,
	      "chunk line at the limit");
	CHECK(long_line(L7_BODY_DEFAULT_MAX_CHUNK_LINE - 3) == L7_BODY_ERROR,
	      "chunk line over the limit");
	/* 99 + "Y:": 100 trailer fields pass, 101 do not */
	CHECK(many_trailers(L7_BODY_DEFAULT_MAX_TRAILERS - 1, 0) ==
	      L7_BODY_DONE, "trailer fields at the limit");
	CHECK(many_trailers(L7_BODY_DEFAULT_MAX_TRAILERS, 0) ==
	      L7_BODY_ERROR, "trailer fields over the limit");
	/* 10 * 4 + "Y:" + pad + CRLF CRLF: 4096 bytes pass, 4097 do not */
	CHECK(many_trailers(10, L7_BODY_DEFAULT_MAX_TRAILER - 46) ==
	      L7_BODY_DONE, "trailer section at the limit");
	CHECK(many_trailers(10, L7_BODY_DEFAULT_MAX_TRAILER - 45) ==
	      L7_BODY_ERROR, "trailer section over the limit");
}

/* Once failed, the framer stays failed, with the first error. */
static void test_sticky(void)
{
	static const uint8_t d[] = "3\r\nabcX\r\n0\r\n\r\n";
	struct l7_http_body b;
	size_t used;

	l7_http_body_init(&b, NULL, true, 0);
	CHECK(l7_http_body_feed(&b, d, sizeof(d) - 1, &used) ==
	      L7_BODY_ERROR && used == 7 && b.pos == 6, "error: used %zu",
	      used);
	CHECK(l7_http_body_feed(&b, d, sizeof(d) - 1, &used) ==
	      L7_BODY_ERROR && used == 0 && b.pos == 6 &&
	      b.err == L7_BODY_E_CHUNK_DATA_END && !l7_http_body_done(&b),
	      "sticky");
	l7_http_body_skip(&b, 10);
	CHECK(b.pos == 6 && l7_http_body_skippable(&b) == 0,
	      "skip in error");
}

int main(void)
{
	RUN(test_length_zero_and_one);
	RUN(test_length_large);
	RUN(test_length_fed);
	RUN(test_chunked_good_every_split);
	RUN(test_chunked_good_byte_at_a_time);
	RUN(test_chunked_skippable);
	RUN(test_chunked_bad_every_split);
	RUN(test_limits);
	RUN(test_default_limits);
	RUN(test_sticky);
	return l7_test_summary("http_body");
}
