// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for core/http_req.c.
 *
 * Control bytes: [0] bit 7 small limits, [1] [2] two cut points, [3] the
 * limits and the step of the "every k bytes" split.  The rest is a
 * client stream; after each head the framer is started again on the
 * bytes that follow, as for pipelined requests (up to 4 heads).
 *
 * The stream fed whole goes through the framer's whole-line path; fed a
 * byte at a time, through its byte path alone, the reference it is held
 * to: every verdict, error offset and span must be the same.
 *
 * A head the framer takes must be one Apache 2.4 takes without closing,
 * as far as apache_refuses(), a model of its reading, can tell.
 */
#include "http_req.h"
#include "fuzz_util.h"

#define MAX_HEADS 4

struct head_result {
	enum l7_http_status st;
	enum l7_http_err err;
	uint32_t err_off;
	uint32_t head_len;
	enum l7_http_method method;
	enum l7_http_target_form form;
	enum l7_http_req_body body;
	struct l7_http_span method_span, target, host;
	uint64_t content_length;
	uint16_t header_count;
	uint8_t major, minor;
	bool has_host, keep_alive, expect_continue, upgrade;
	size_t start;		/* where in the stream the head began */
};

struct trace {
	int n;
	struct head_result h[MAX_HEADS];
};

static void record(struct head_result *h, const struct l7_http_req *r,
		   enum l7_http_status st, size_t start)
{
	memset(h, 0, sizeof(*h));
	h->st = st;
	h->err = r->err;
	h->err_off = r->err_off;
	h->start = start;
	if (st != L7_HTTP_DONE)
		return;
	h->head_len = r->head_len;
	h->method = r->method;
	h->form = r->target_form;
	h->body = r->body;
	h->method_span = r->method_span;
	h->target = r->target;
	h->host = r->host;
	h->content_length = r->content_length;
	h->header_count = r->header_count;
	h->major = r->version_major;
	h->minor = r->version_minor;
	h->has_host = r->has_host;
	h->keep_alive = r->keep_alive;
	h->expect_continue = r->expect_continue;
	h->upgrade = r->upgrade;
}

static bool ci_equal(const uint8_t *p, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n && s[i]; i++)
		if (l7_to_lower(p[i]) != (uint8_t)s[i])
			return false;
	return i == n && !s[i];
}

/* Apache's ap_parse_strict_length(): digits only, below 2^63. */
static bool apache_length(const uint8_t *v, size_t n)
{
	uint64_t x = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!l7_is_digit(v[i]) || x > (UINT64_MAX >> 1) / 10)
			return false;
		x = x * 10 + (v[i] - '0');
		if (x >> 63)
			return false;
	}
	return n > 0;
}

/*
 * Apache's ap_is_chunked() on the Transfer-Encoding fields merged as it
 * merges them (values trimmed, joined with ", "): "chunked" last, with
 * nothing after it and a blank, ',' or nothing before it.
 */
static bool apache_chunked(const uint8_t *m, size_t n)
{
	if (n < 7 || !ci_equal(m + n - 7, 7, "chunked"))
		return false;
	return n == 7 || m[n - 8] == ' ' || m[n - 8] == '\t' || m[n - 8] == ',';
}

/*
 * Where Apache refuses a head the framer framed (well-formed lines, so
 * read simply) and closes: more than 10 empty lines first, Content-Length
 * repeated (Apache merges it into a list) or not one length below 2^63,
 * Transfer-Encoding not ending in chunked.  NULL if it takes it.
 */
static const char *apache_refuses(const uint8_t *p, uint32_t len)
{
	static uint8_t te[2 * L7_HTTP_DEFAULT_MAX_HEAD + 512];
	size_t i = 0, nte = 0, lines = 0, ncl = 0, nfields_te = 0;

	for (; i + 1 < len && p[i] == '\r' && p[i + 1] == '\n'; i += 2)
		lines++;
	if (lines > 10)
		return "more than 10 empty lines first";
	while (i < len && p[i] != '\n')
		i++;
	for (i++; i + 2 < len; ) {
		size_t name = i, colon, v, e, next;

		for (colon = i; p[colon] != ':'; colon++)
			;
		for (next = colon; p[next] != '\n'; next++)
			;
		for (v = colon + 1; l7_is_ows(p[v]); v++)
			;
		for (e = next - 1; e > v && l7_is_ows(p[e - 1]); e--)
			;
		if (ci_equal(p + name, colon - name, "content-length") &&
		    (++ncl > 1 || !apache_length(p + v, e - v)))
			return "Content-Length repeated or not one length";
		if (ci_equal(p + name, colon - name, "transfer-encoding")) {
			if (nfields_te++) {
				memcpy(te + nte, ", ", 2);
				nte += 2;
			}
			memcpy(te + nte, p + v, e - v);
			nte += e - v;
		}
		i = next + 1;
	}
	if (nfields_te && !apache_chunked(te, nte))
		return "Transfer-Encoding not ending in chunked";
	return NULL;
}

static void check_span(struct l7_http_span s, uint32_t head_len)
{
	FUZZ_ASSERT(s.off <= head_len && s.len <= head_len - s.off);
}

/* What must hold of one head, whatever the segmentation. */
static void check_head(const struct head_result *h, const uint8_t *d,
		       size_t consumed, const struct l7_http_limits *lim)
{
	const uint8_t *p = d + h->start;
	uint32_t i;

	FUZZ_ASSERT(consumed <= lim->max_head + (size_t)1);
	if (h->st == L7_HTTP_MORE)
		return;
	if (h->st == L7_HTTP_ERROR) {
		int code = l7_http_err_status(h->err);

		FUZZ_ASSERT(h->err > L7_HTTP_E_NONE &&
			    h->err < L7_HTTP_E_COUNT);
		FUZZ_ASSERT(code == 400 || code == 417 || code == 431 ||
			    code == 501 || code == 505);
		/* the offending byte is consumed, except past the limit */
		FUZZ_ASSERT(consumed == (size_t)h->err_off +
			    (h->err != L7_HTTP_E_HEAD_TOO_LARGE));
		return;
	}
	FUZZ_ASSERT(h->st == L7_HTTP_DONE);
	FUZZ_ASSERT(consumed == h->head_len);
	FUZZ_ASSERT(h->head_len <= lim->max_head);
	FUZZ_ASSERT(h->header_count <= lim->max_headers);
	FUZZ_ASSERT(h->head_len >= 4 && !memcmp(p + h->head_len - 4,
						"\r\n\r\n", 4));
	FUZZ_ASSERT(h->major == 1);
	check_span(h->method_span, h->head_len);
	check_span(h->target, h->head_len);
	FUZZ_ASSERT(h->method_span.len > 0 && h->target.len > 0);
	FUZZ_ASSERT(h->method != L7_HTTP_M_CONNECT);
	for (i = 0; i < h->target.len; i++) {
		uint8_t c = p[h->target.off + i];

		FUZZ_ASSERT(c > 0x20 && c < 0x7f && c != '#');
	}
	if (h->has_host) {
		check_span(h->host, h->head_len);
		for (i = 0; i < h->host.len; i++)
			FUZZ_ASSERT(p[h->host.off + i] != ' ' &&
				    p[h->host.off + i] != '\t');
	}
	if (h->minor >= 1)
		FUZZ_ASSERT(h->has_host);
	if (h->body == L7_HTTP_BODY_CHUNKED)
		FUZZ_ASSERT(h->minor >= 1);
	if (h->expect_continue)
		FUZZ_ASSERT(h->minor >= 1);
	FUZZ_ASSERT(!apache_refuses(p, h->head_len));
}

static void run(const uint8_t *d, size_t len, const struct fuzz_split *s,
		const struct l7_http_limits *lim, struct trace *t)
{
	enum l7_http_status st = L7_HTTP_MORE;
	struct l7_http_req r;
	size_t from = 0, start = 0;
	int seg;

	memset(t, 0, sizeof(*t));
	l7_http_req_init(&r, lim);
	for (seg = 0; seg <= s->ncuts; seg++) {
		size_t to = seg < s->ncuts ? s->cuts[seg] : len;

		while (from < to || to == len) {
			size_t used;

			st = l7_http_req_feed(&r, d + from, to - from, &used);
			FUZZ_ASSERT(used <= to - from);
			from += used;
			if (st == L7_HTTP_MORE) {
				FUZZ_ASSERT(from == to);
				break;
			}
			record(&t->h[t->n], &r, st, start);
			check_head(&t->h[t->n], d, from - start, lim);
			t->n++;
			/* a framer that ended takes nothing more */
			FUZZ_ASSERT(l7_http_req_feed(&r, d, len, &used) == st &&
				    used == 0);
			if (st == L7_HTTP_ERROR || t->n == MAX_HEADS)
				return;
			start = from;
			l7_http_req_init(&r, lim);
			if (from == to)
				break;
		}
	}
	/* the stream ended inside a head (or before one) */
	record(&t->h[t->n], &r, L7_HTTP_MORE, start);
	t->h[t->n].err_off = (uint32_t)(from - start);
	t->n++;
}

static void same(const struct trace *a, const struct trace *b)
{
	FUZZ_ASSERT(a->n == b->n);
	FUZZ_ASSERT(!memcmp(a->h, b->h, sizeof(a->h[0]) * a->n));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_split split;
	static struct trace whole, two, every;
	struct l7_http_limits lim = {
		.max_head = L7_HTTP_DEFAULT_MAX_HEAD,
		.max_headers = L7_HTTP_DEFAULT_MAX_HEADERS,
	};
	const uint8_t *d = data + FUZZ_CTL_BYTES;
	size_t len;

	if (size < FUZZ_CTL_BYTES)
		return 0;
	len = size - FUZZ_CTL_BYTES;
	if (data[0] & 0x80) {
		lim.max_head = 16 + data[3];
		lim.max_headers = data[3] % 8;
	}

	split.ncuts = 0;
	run(d, len, &split, &lim, &whole);
	fuzz_two_cuts(&split, len, data[1], data[2]);
	run(d, len, &split, &lim, &two);
	same(&whole, &two);
	fuzz_every(&split, len, 1 + data[3] % 5);
	run(d, len, &split, &lim, &every);
	same(&whole, &every);
	fuzz_every(&split, len, 1);
	run(d, len, &split, &lim, &every);
	same(&whole, &every);
	return 0;
}
