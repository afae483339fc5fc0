// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for core/http_resp.c.
 *
 * Control bytes: [0] low 3 bits pick the request methods (bit i: the
 * i-th request was HEAD), bit 7 small limits; [1] [2] two cut points;
 * [3] the limits and the step of the "every k bytes" split.  The rest is
 * a backend stream: after each response the framer starts again on the
 * bytes that follow, as on a keep-alive connection, and when the stream
 * ends the connection is closed (eof()).
 *
 * The stream fed whole goes through the framer's whole-line path; fed a
 * byte at a time, through its byte path alone, the reference it is held
 * to: every event, offset, span and Connection name must be the same.
 *
 * Beyond identical results for every segmentation, each event must be
 * consistent with the stream: a response ends exactly head_len +
 * content_length bytes after it began, a head ends in CRLF CRLF, and
 * the bytes of a Content-Length body never change any result.
 */
#include "http_resp.h"
#include "fuzz_util.h"

#define MAX_EVENTS 16
#define MAX_RESPONSES 6

struct event {
	enum l7_resp_status st;
	enum l7_resp_err err;
	enum l7_resp_body body;
	uint64_t err_off;
	uint64_t content_length;
	uint64_t at;		/* stream offset just after the event */
	uint64_t start;		/* where the response began */
	struct l7_http_span reason;
	uint32_t head_len;
	uint32_t header_count;
	uint64_t conn_name_at[L7_RESP_CONN_NAMES];
	uint16_t code;
	uint8_t major, minor, conn_names;
	bool has_body, keep_alive, conn_keep_alive, conn_names_over;
};

struct trace {
	int n;
	struct event ev[MAX_EVENTS];
	/* the first Content-Length body seen: [body_from, body_to) */
	uint64_t body_from, body_to;
};

static enum l7_http_method method_of(uint8_t ctl, int i)
{
	return (i < 3 && (ctl >> i) & 1) ? L7_HTTP_M_HEAD : L7_HTTP_M_GET;
}

static bool budget_err(enum l7_resp_err e)
{
	return e == L7_RESP_E_HEAD_TOO_LARGE ||
	       e == L7_RESP_E_CHUNK_LINE_TOO_LARGE ||
	       e == L7_RESP_E_TRAILER_TOO_LARGE;
}

/* What must hold of one event, whatever the segmentation. */
static void check_event(const struct event *e, const uint8_t *d,
			const struct l7_http_resp_limits *lim,
			enum l7_http_method method)
{
	uint64_t rel = e->at - e->start;
	const uint8_t *p = d + e->start;
	uint32_t i;

	if (e->st == L7_RESP_ERROR) {
		FUZZ_ASSERT(e->err > L7_RESP_E_NONE &&
			    e->err < L7_RESP_E_COUNT);
		if (e->err == L7_RESP_E_TRUNCATED ||
		    e->err == L7_RESP_E_CLOSED || budget_err(e->err))
			FUZZ_ASSERT(rel == e->err_off);
		else
			FUZZ_ASSERT(rel == e->err_off + 1);
		if (e->err == L7_RESP_E_CLOSED)
			FUZZ_ASSERT(rel == 0);
		return;
	}
	FUZZ_ASSERT(e->err == L7_RESP_E_NONE);
	FUZZ_ASSERT(e->head_len <= lim->max_head);
	FUZZ_ASSERT(e->header_count <= lim->max_headers);
	FUZZ_ASSERT(e->head_len >= 4 && !memcmp(p + e->head_len - 4,
						"\r\n\r\n", 4));
	FUZZ_ASSERT(!memcmp(p, "HTTP/1.", 7));
	FUZZ_ASSERT(e->reason.off <= e->head_len &&
		    e->reason.len <= e->head_len - e->reason.off);
	for (i = 0; i < e->reason.len; i++) {
		uint8_t c = p[e->reason.off + i];

		FUZZ_ASSERT(c == '\t' || (c >= 0x20 && c != 0x7f));
	}
	FUZZ_ASSERT(e->code >= 100 && e->code <= 599);
	if (e->body == L7_RESP_BODY_CLOSE)
		FUZZ_ASSERT(!e->keep_alive && e->has_body);
	if (e->body == L7_RESP_BODY_NONE)
		FUZZ_ASSERT(!e->has_body);
	if (method == L7_HTTP_M_HEAD || e->code == 204 || e->code == 304)
		FUZZ_ASSERT(e->body == L7_RESP_BODY_NONE);
	if (e->body == L7_RESP_BODY_CHUNKED)
		FUZZ_ASSERT(e->minor >= 1);

	switch (e->st) {
	case L7_RESP_INTERIM:
		FUZZ_ASSERT(e->code < 200 && e->code != 101);
		FUZZ_ASSERT(rel == e->head_len);
		break;
	case L7_RESP_UPGRADE:
		FUZZ_ASSERT(e->code == 101 && !e->keep_alive);
		FUZZ_ASSERT(rel == e->head_len);
		break;
	case L7_RESP_HEAD:
		FUZZ_ASSERT(e->code >= 200 && e->has_body);
		FUZZ_ASSERT(rel == e->head_len);
		if (e->body == L7_RESP_BODY_LENGTH)
			FUZZ_ASSERT(e->content_length > 0);
		break;
	case L7_RESP_DONE:
		FUZZ_ASSERT(e->code >= 200);
		if (!e->has_body)
			FUZZ_ASSERT(rel == e->head_len);
		else if (e->body == L7_RESP_BODY_LENGTH)
			FUZZ_ASSERT(rel == e->head_len + e->content_length);
		else if (e->body == L7_RESP_BODY_CHUNKED)
			FUZZ_ASSERT(rel >= e->head_len + 5 &&
				    !memcmp(p + rel - 2, "\r\n", 2));
		break;
	default:
		FUZZ_ASSERT(0);
	}
}

/*
 * Where the framer ended or failed in a chunked body, the reference must
 * agree; where the stream ran out inside one, so must the reference.
 * Only with the default limits, which no input here can exceed except
 * by the number of trailer fields.
 */
static void check_chunked(const struct l7_http_resp *r, enum l7_resp_status st,
			  const uint8_t *d, size_t len, size_t start,
			  size_t at)
{
	const uint8_t *body = d + start + r->head_len;
	size_t n = len - start - r->head_len, end = 0;
	int ref;

	if (r->body != L7_RESP_BODY_CHUNKED || !r->head_len ||
	    r->err == L7_RESP_E_TOO_MANY_HEADERS || budget_err(r->err))
		return;
	ref = ref_chunked(body, n, &end);
	if (st == L7_RESP_DONE)
		FUZZ_ASSERT(ref == 1 && start + r->head_len + end == at);
	else if (r->err == L7_RESP_E_TRUNCATED)
		FUZZ_ASSERT(ref == 0);
	else if (st == L7_RESP_ERROR)
		FUZZ_ASSERT(ref == -1 && r->head_len + end == r->err_off);
}

static void record(struct trace *t, const struct l7_http_resp *r,
		   enum l7_resp_status st, size_t at, size_t start)
{
	struct event *e = &t->ev[t->n++];

	memset(e, 0, sizeof(*e));
	e->st = st;
	e->err = r->err;
	e->err_off = r->err_off;
	e->at = at;
	e->start = start;
	if (st == L7_RESP_ERROR)
		return;
	e->body = r->body;
	e->content_length = r->content_length;
	e->reason = r->reason;
	e->head_len = r->head_len;
	e->header_count = r->header_count;
	e->code = r->status_code;
	e->major = r->version_major;
	e->minor = r->version_minor;
	e->has_body = r->has_body;
	e->keep_alive = r->keep_alive;
	e->conn_keep_alive = r->conn_keep_alive;
	e->conn_names = r->conn_names;
	e->conn_names_over = r->conn_names_over;
	memcpy(e->conn_name_at, r->conn_name_at, sizeof(e->conn_name_at));
	if (st == L7_RESP_HEAD && r->body == L7_RESP_BODY_LENGTH &&
	    !t->body_to) {
		t->body_from = at;
		t->body_to = at + r->content_length;
	}
}

static void run(const uint8_t *d, size_t len, const struct fuzz_split *s,
		const struct l7_http_resp_limits *lim, uint8_t ctl,
		struct trace *t)
{
	enum l7_resp_status st = L7_RESP_MORE;
	size_t from = 0, start = 0;
	struct l7_http_resp r;
	int seg, nresp = 0;

	memset(t, 0, sizeof(*t));
	l7_http_resp_init(&r, lim, method_of(ctl, 0));
	for (seg = 0; seg <= s->ncuts; seg++) {
		size_t to = seg < s->ncuts ? s->cuts[seg] : len;

		while (from < to || to == len) {
			size_t used;

			st = l7_http_resp_feed(&r, d + from, to - from, &used);
			FUZZ_ASSERT(used <= to - from);
			from += used;
			if (st == L7_RESP_MORE) {
				FUZZ_ASSERT(from == to);
				break;
			}
			record(t, &r, st, from, start);
			check_event(&t->ev[t->n - 1], d, lim,
				    method_of(ctl, nresp));
			if (!(ctl & 0x80))
				check_chunked(&r, st, d, len, start, from);
			if (t->n == MAX_EVENTS)
				return;
			if (st == L7_RESP_INTERIM) {
				start = from;
				continue;
			}
			if (st == L7_RESP_HEAD) {
				if (from == to)
					break;
				continue;
			}
			/* an ended framer takes nothing more */
			FUZZ_ASSERT(l7_http_resp_feed(&r, d, len, &used) == st &&
				    used == 0);
			if (st != L7_RESP_DONE || ++nresp == MAX_RESPONSES)
				return;
			start = from;
			l7_http_resp_init(&r, lim, method_of(ctl, nresp));
			if (from == to)
				break;
		}
	}
	st = l7_http_resp_eof(&r);
	record(t, &r, st, from, start);
	check_event(&t->ev[t->n - 1], d, lim, method_of(ctl, nresp));
	if (!(ctl & 0x80))
		check_chunked(&r, st, d, len, start, from);
	FUZZ_ASSERT(st == L7_RESP_DONE || st == L7_RESP_ERROR);
}

static void same(const struct trace *a, const struct trace *b)
{
	FUZZ_ASSERT(a->n == b->n);
	FUZZ_ASSERT(!memcmp(a->ev, b->ev, sizeof(a->ev[0]) * a->n));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_split split;
	static struct trace whole, other;
	static uint8_t copy[1 << 16];
	struct l7_http_resp_limits lim = {
		.max_head = L7_RESP_DEFAULT_MAX_HEAD,
		.max_headers = L7_RESP_DEFAULT_MAX_HEADERS,
		.max_trailer = L7_RESP_DEFAULT_MAX_TRAILER,
		.max_chunk_line = L7_RESP_DEFAULT_MAX_CHUNK_LINE,
	};
	const uint8_t *d = data + FUZZ_CTL_BYTES;
	uint8_t ctl;
	size_t len;

	if (size < FUZZ_CTL_BYTES || size - FUZZ_CTL_BYTES > sizeof(copy))
		return 0;
	len = size - FUZZ_CTL_BYTES;
	ctl = data[0];
	if (ctl & 0x80) {
		lim.max_head = 16 + data[3];
		lim.max_headers = data[3] % 8;
		lim.max_trailer = data[3] % 64;
		lim.max_chunk_line = 1 + data[3] % 16;
	}

	split.ncuts = 0;
	run(d, len, &split, &lim, ctl, &whole);
	fuzz_two_cuts(&split, len, data[1], data[2]);
	run(d, len, &split, &lim, ctl, &other);
	same(&whole, &other);
	fuzz_every(&split, len, 1 + data[3] % 5);
	run(d, len, &split, &lim, ctl, &other);
	same(&whole, &other);
	fuzz_every(&split, len, 1);
	run(d, len, &split, &lim, ctl, &other);
	same(&whole, &other);

	/* the framer never looks into a Content-Length body */
	if (whole.body_to > whole.body_from) {
		size_t to = whole.body_to < len ? whole.body_to : len;

		memcpy(copy, d, len);
		memset(copy + whole.body_from, '\n', to - whole.body_from);
		split.ncuts = 0;
		run(copy, len, &split, &lim, ctl, &other);
		same(&whole, &other);
	}
	return 0;
}
