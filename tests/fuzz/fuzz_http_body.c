// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for core/http_body.c.
 *
 * Control bytes: [0] bit 0 chunked, bits 1-2 the Content-Length (see
 * length_of()), bit 7 small limits; [1] [2] two cut points; [3] the
 * limits and the step of the "every k bytes" split.  The rest is the
 * stream after a request or response head.
 *
 * Whatever the segmentation, and whether the skippable bytes are fed or
 * skipped unread, the framer must end or fail at the same byte with the
 * same status; every feed must use no more than it was given and move
 * ->pos by exactly what it used.  The bytes it skipped must not matter:
 * overwriting them changes nothing.  A chunked body must be read as
 * ref_chunked() reads it, and a Content-Length body must end exactly
 * @length bytes in.
 */
#include "http_body.h"
#include "fuzz_util.h"

#define MAX_LEN (1 << 16)

struct result {
	enum l7_body_status st;
	enum l7_body_err err;
	uint64_t pos;
	size_t consumed;	/* total of *used and of bytes skipped */
};

/* Marks of the bytes skipped unread by the last run() that skipped. */
static uint8_t skipped[MAX_LEN];

static uint64_t length_of(uint8_t ctl, uint8_t k, size_t len)
{
	switch ((ctl >> 1) & 3) {
	case 0:
		return k;
	case 1:
		return len;
	case 2:
		return len + 1;		/* never ends in this input */
	}
	return (1ull << 63) + k;
}

/* Byte budgets: the error stops before the first byte over them. */
static bool budget_err(enum l7_body_err e)
{
	return e == L7_BODY_E_CHUNK_LINE_TOO_LARGE ||
	       e == L7_BODY_E_TRAILER_TOO_LARGE;
}

/* Errors ref_chunked() knows nothing of. */
static bool limit_err(enum l7_body_err e)
{
	return budget_err(e) || e == L7_BODY_E_TOO_MANY_TRAILERS;
}

/* One feed(): what it used, and how ->pos moved. */
static enum l7_body_status feed(struct l7_http_body *b, const uint8_t *d,
				size_t n, size_t *used)
{
	uint64_t pos = b->pos;
	enum l7_body_status st = l7_http_body_feed(b, d, n, used);

	FUZZ_ASSERT(*used <= n);
	FUZZ_ASSERT(b->pos >= pos);
	if (st == L7_BODY_MORE)
		FUZZ_ASSERT(*used == n);
	/* a syntax error's byte is used, but ->pos stays on it */
	if (st == L7_BODY_ERROR && !budget_err(b->err))
		FUZZ_ASSERT(*used && b->pos == pos + *used - 1);
	else
		FUZZ_ASSERT(b->pos == pos + *used);
	FUZZ_ASSERT((st == L7_BODY_ERROR) == (b->err != L7_BODY_E_NONE));
	FUZZ_ASSERT((st == L7_BODY_DONE) == l7_http_body_done(b));
	return st;
}

/* Skip what is skippable in [*from, to), marking it in skipped[]. */
static void skip(struct l7_http_body *b, size_t *from, size_t to)
{
	uint64_t n = l7_http_body_skippable(b), pos = b->pos;

	if (n > to - *from)
		n = to - *from;
	l7_http_body_skip(b, n);
	FUZZ_ASSERT(b->pos == pos + n);
	memset(skipped + *from, 1, n);
	*from += n;
}

static void run(const uint8_t *d, size_t len, const struct fuzz_split *s,
		const struct l7_http_body_limits *lim, bool chunked,
		uint64_t length, bool skipping, struct result *res)
{
	enum l7_body_status st = L7_BODY_MORE;
	struct l7_http_body b;
	size_t from = 0, used;
	int seg;

	l7_http_body_init(&b, lim, chunked, length);
	if (l7_http_body_done(&b))
		st = L7_BODY_DONE;
	if (skipping)
		memset(skipped, 0, len);
	for (seg = 0; seg <= s->ncuts && st == L7_BODY_MORE; seg++) {
		size_t to = seg < s->ncuts ? s->cuts[seg] : len;

		while (from < to && st == L7_BODY_MORE) {
			if (skipping && l7_http_body_skippable(&b)) {
				skip(&b, &from, to);
				if (l7_http_body_done(&b))
					st = L7_BODY_DONE;
				continue;
			}
			st = feed(&b, d + from, to - from, &used);
			from += used;
		}
	}
	res->st = st;
	res->err = b.err;
	res->pos = b.pos;
	res->consumed = from;
	if (st != L7_BODY_MORE) {
		/* an ended framer takes nothing more */
		FUZZ_ASSERT(l7_http_body_feed(&b, d, len, &used) == st &&
			    used == 0);
		FUZZ_ASSERT(l7_http_body_skippable(&b) == 0);
	}
}

/* What must hold of a result, whatever the segmentation. */
static void check(const struct result *r, const uint8_t *d, size_t len,
		  bool chunked, uint64_t length)
{
	size_t at = 0;
	int ref;

	if (!chunked) {
		FUZZ_ASSERT(r->st != L7_BODY_ERROR);
		FUZZ_ASSERT(r->consumed == (length < len ? length : len));
		FUZZ_ASSERT((r->st == L7_BODY_DONE) == (length <= len));
		return;
	}
	if (r->st == L7_BODY_ERROR && limit_err(r->err))
		return;
	ref = ref_chunked(d, len, &at);
	switch (r->st) {
	case L7_BODY_DONE:
		FUZZ_ASSERT(ref == 1 && at == r->consumed && at == r->pos);
		break;
	case L7_BODY_MORE:
		FUZZ_ASSERT(ref == 0 && r->consumed == len);
		break;
	default:
		FUZZ_ASSERT(ref == -1 && at == r->pos &&
			    r->consumed == r->pos + 1);
		break;
	}
}

static void same(const struct result *a, const struct result *b)
{
	FUZZ_ASSERT(a->st == b->st && a->err == b->err &&
		    a->pos == b->pos && a->consumed == b->consumed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_split split;
	static struct result whole, other;
	static uint8_t copy[MAX_LEN];
	struct l7_http_body_limits lim = {
		.max_trailer = L7_BODY_DEFAULT_MAX_TRAILER,
		.max_trailers = L7_BODY_DEFAULT_MAX_TRAILERS,
		.max_chunk_line = L7_BODY_DEFAULT_MAX_CHUNK_LINE,
	};
	const uint8_t *d = data + FUZZ_CTL_BYTES;
	uint64_t length;
	bool chunked;
	size_t len, i;

	if (size < FUZZ_CTL_BYTES || size - FUZZ_CTL_BYTES > MAX_LEN)
		return 0;
	len = size - FUZZ_CTL_BYTES;
	chunked = data[0] & 1;
	length = length_of(data[0], data[3], len);
	if (data[0] & 0x80) {
		lim.max_trailer = data[3] % 64;
		lim.max_trailers = data[3] % 8;
		lim.max_chunk_line = 1 + data[3] % 16;
	}

	split.ncuts = 0;
	run(d, len, &split, &lim, chunked, length, false, &whole);
	check(&whole, d, len, chunked, length);
	fuzz_two_cuts(&split, len, data[1], data[2]);
	run(d, len, &split, &lim, chunked, length, false, &other);
	same(&whole, &other);
	fuzz_every(&split, len, 1 + data[3] % 5);
	run(d, len, &split, &lim, chunked, length, false, &other);
	same(&whole, &other);

	/* skipping unread what is skippable changes nothing ... */
	fuzz_two_cuts(&split, len, data[1], data[2]);
	run(d, len, &split, &lim, chunked, length, true, &other);
	same(&whole, &other);
	/* ... and neither does what those bytes were */
	memcpy(copy, d, len);
	for (i = 0; i < len; i++)
		if (skipped[i])
			copy[i] = '\n';
	split.ncuts = 0;
	run(copy, len, &split, &lim, chunked, length, false, &other);
	same(&whole, &other);
	return 0;
}
