// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/rsp_head.c and the guard's taking of a
 * response head (core/rsp_guard.c, l7_rsp_guard_take()): an HTTP/1.0
 * keep-alive client gets a head that says keep-alive, with the same
 * framing, whatever the server said about its own connection and however
 * it cut the head into segments; and the mapping carries the offset.
 */
#include <string.h>

#include "rsp_guard.h"
#include "tcp_map.h"
#include "l7_test.h"

/* bounds that vouch for every value: the binding alone decides */
static const struct l7_seg_bounds any = {
	.ack = { 0, 0xffffffff },
	.seq = { 0, 0xffffffff },
};

#define S0 0xfffffff0u	/* backend seq of the response: wraps inside it */

static uint8_t out[L7_RSP_HEAD_MAX + L7_RSP_HEAD_GROWTH + 1];

/* Frame @head (complete) with a fresh framer; *st: how it ended. */
static bool frame(const char *head, enum l7_http_method m,
		  struct l7_http_resp *r)
{
	size_t used, at = 0, n = strlen(head);
	enum l7_resp_status st;

	l7_http_resp_init(r, NULL, m);
	for (;;) {
		st = l7_http_resp_feed(r, (const uint8_t *)head + at, n - at,
				       &used);
		at += used;
		if (st != L7_RESP_INTERIM)
			break;
	}
	return (st == L7_RESP_HEAD || st == L7_RESP_DONE) && at == n;
}

/*
 * The copy of @head as a string, for a client that must hear close
 * (@close) or keep-alive, or NULL if @head does not frame.
 */
static const char *copy_for(const char *head, enum l7_http_method m,
			    bool close)
{
	struct l7_http_resp r;
	uint32_t n;

	if (!frame(head, m, &r))
		return NULL;
	n = l7_rsp_head_copy(out, (const uint8_t *)head, strlen(head), &r,
			     close);
	out[n] = 0;
	return (const char *)out;
}

static const char *copy(const char *head, enum l7_http_method m)
{
	return copy_for(head, m, false);
}

static bool copy_for_is(const char *head, bool close, const char *want)
{
	const char *got = copy_for(head, L7_HTTP_M_GET, close);

	if (!got || strcmp(got, want)) {
		fprintf(stderr, "  copy of %s\n  is %s\n", head,
			got ? got : "(no frame)");
		return false;
	}
	return true;
}

static bool copy_is(const char *head, const char *want)
{
	const char *got = copy(head, L7_HTTP_M_GET);

	if (!got || strcmp(got, want)) {
		fprintf(stderr, "  copy of %s\n  is %s\n", head,
			got ? got : "(no frame)");
		return false;
	}
	return true;
}

static void server_close_becomes_keep_alive(void)
{
	CHECK(copy_is("HTTP/1.1 200 OK\r\nDate: x\r\nConnection: close\r\n"
		      "Content-Length: 5\r\n\r\n",
		      "HTTP/1.1 200 OK\r\nDate: x\r\nContent-Length: 5\r\n"
		      "Connection: keep-alive\r\n\r\n"), "close");
	/* any case, no space, both tokens, more than one field */
	CHECK(copy_is("HTTP/1.1 200 OK\r\nCONNECTION:Close\r\n"
		      "connection: keep-alive, close\r\nContent-Length: 0\r\n"
		      "\r\n",
		      "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n"
		      "Connection: keep-alive\r\n\r\n"), "case");
	/* nothing said: HTTP/1.0 closes by default */
	CHECK(copy_is("HTTP/1.0 404 Not Found\r\nContent-Length: 3\r\n\r\n",
		      "HTTP/1.0 404 Not Found\r\nContent-Length: 3\r\n"
		      "Connection: keep-alive\r\n\r\n"), "none");
	/* the status line alone */
	CHECK(copy_is("HTTP/1.1 204 No Content\r\n\r\n",
		      "HTTP/1.1 204 No Content\r\n"
		      "Connection: keep-alive\r\n\r\n"), "no fields");
	/* chunked: framing stays */
	CHECK(copy_is("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
		      "Connection: close\r\n\r\n",
		      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
		      "Connection: keep-alive\r\n\r\n"), "chunked");
}

/*
 * An HTTP/1.1 client that asked to close is closed after the response:
 * a server that goes on (it was not asked) is made to say so.
 */
static void close_client_hears_close(void)
{
	static const char said[] = "HTTP/1.1 200 OK\r\nConnection: close\r\n"
				   "Content-Length: 2\r\n\r\n";
	struct l7_http_resp r;

	CHECK(copy_for_is("HTTP/1.1 200 OK\r\nDate: x\r\nKeep-Alive: "
			  "timeout=5, max=99\r\nConnection: Keep-Alive\r\n"
			  "Content-Length: 2\r\n\r\n", true,
			  "HTTP/1.1 200 OK\r\nDate: x\r\nContent-Length: 2\r\n"
			  "Connection: close\r\n\r\n"), "keep-alive");
	/* HTTP/1.1 goes on unless told: nothing said becomes close */
	CHECK(copy_for_is("HTTP/1.1 304 Not Modified\r\n\r\n", true,
			  "HTTP/1.1 304 Not Modified\r\n"
			  "Connection: close\r\n\r\n"), "nothing said");
	/* says close already: passes unchanged */
	CHECK(frame(said, L7_HTTP_M_GET, &r) &&
	      l7_rsp_head_keeps_client(&r, true) &&
	      !l7_rsp_head_keeps_client(&r, false), "close keeps");
	CHECK(copy_for_is(said, true, said), "unchanged");
	/* an HTTP/1.0 response without keep-alive says close */
	CHECK(copy_for_is("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n",
			  true, "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"),
	      "1.0 response");
}

/* The server's Keep-Alive parameters are about the pooled connection. */
static void server_keep_alive_fields(void)
{
	static const char ka[] = "HTTP/1.1 200 OK\r\nKeep-Alive: timeout=5, "
				 "max=100\r\nConnection: Keep-Alive\r\n"
				 "Content-Length: 1\r\n\r\n";
	struct l7_http_resp r;

	/* says keep-alive: it passes unchanged */
	CHECK(frame(ka, L7_HTTP_M_GET, &r) && l7_rsp_head_keeps_client(&r, false),
	      "keeps");
	CHECK(copy_is(ka, ka), "unchanged");
	/* Keep-Alive without Connection: keep-alive does not keep a 1.0 one */
	CHECK(copy_is("HTTP/1.1 200 OK\r\nkeep-alive: timeout=5\r\n"
		      "Content-Length: 1\r\n\r\n",
		      "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n"
		      "Connection: keep-alive\r\n\r\n"), "Keep-Alive alone");
	/* a field whose name only starts like one stays */
	CHECK(copy_is("HTTP/1.1 200 OK\r\nConnection-X: close\r\n"
		      "Keep-Alive2: 1\r\nConnection: close\r\n"
		      "Content-Length: 1\r\n\r\n",
		      "HTTP/1.1 200 OK\r\nConnection-X: close\r\n"
		      "Keep-Alive2: 1\r\nContent-Length: 1\r\n"
		      "Connection: keep-alive\r\n\r\n"), "prefix names");
}

/* A close-delimited body ends the client's connection as today. */
static void close_delimited_unchanged(void)
{
	static const char h[] = "HTTP/1.0 200 OK\r\nConnection: close\r\n\r\n";
	struct l7_http_resp r;

	CHECK(frame(h, L7_HTTP_M_GET, &r) && l7_rsp_head_keeps_client(&r, false),
	      "close-delimited keeps as it is");
	CHECK(copy_is(h, h), "unchanged");
}

/* "HTTP/1.1 200 OK", @filler fields "a:", then @last, into @buf. */
static const char *fields_head(char *buf, unsigned int filler,
			       const char *last)
{
	unsigned int i;

	strcpy(buf, "HTTP/1.1 200 OK\r\n");
	for (i = 0; i < filler; i++)
		strcat(buf, "a:\r\n");
	return strcat(strcat(buf, last), "\r\n");
}

/*
 * The copy never has more fields than the framer's limit: a head at the
 * limit with nothing to leave out gets no copy (0; it passes as it came),
 * one that drops a field, or is below the limit, gets one that frames.
 */
static void copy_within_field_limit(void)
{
	static char h[L7_RSP_HEAD_MAX];
	const unsigned int max = L7_RESP_DEFAULT_MAX_HEADERS;
	struct l7_http_resp r;
	const char *got;

	fields_head(h, max - 1, "Content-Length: 0\r\n");
	CHECK(frame(h, L7_HTTP_M_GET, &r) && r.header_count == max &&
	      !l7_rsp_head_copy(out, (const uint8_t *)h, strlen(h), &r,
				false) &&
	      !l7_rsp_head_copy(out, (const uint8_t *)h, strlen(h), &r, true),
	      "at the limit: no copy");
	fields_head(h, max - 2, "Connection: close\r\nContent-Length: 0\r\n");
	got = copy(h, L7_HTTP_M_GET);
	CHECK(got && frame(got, L7_HTTP_M_GET, &r) && r.header_count == max &&
	      r.conn_keep_alive, "a field left out makes room");
	fields_head(h, max - 2, "Content-Length: 0\r\n");
	got = copy(h, L7_HTTP_M_GET);
	CHECK(got && frame(got, L7_HTTP_M_GET, &r) && r.header_count == max &&
	      r.conn_keep_alive, "one below the limit");
}

/* Folding is refused by the framer: never copied. */
static void folding_refused(void)
{
	CHECK(!copy("HTTP/1.1 200 OK\r\nConnection:\r\n close\r\n"
		    "Content-Length: 0\r\n\r\n", L7_HTTP_M_GET), "obs-fold");
}

/* Interim heads before the final one go as they came. */
static void interim_first(void)
{
	CHECK(copy_is("HTTP/1.1 100 Continue\r\nConnection: close\r\n\r\n"
		      "HTTP/1.1 200 OK\r\nConnection: close\r\n"
		      "Content-Length: 0\r\n\r\n",
		      "HTTP/1.1 100 Continue\r\nConnection: close\r\n\r\n"
		      "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n"
		      "Connection: keep-alive\r\n\r\n"), "100 first");
}

/* ---- the guard taking a head ---- */

static const uint8_t *peek_mem(const void *ctx, uint32_t off, uint32_t n,
			       uint8_t *buf)
{
	(void)n;
	(void)buf;
	return (const uint8_t *)ctx + off;
}

static bool poke_none(const void *ctx, uint32_t off, const uint8_t *p,
		      uint32_t n)
{
	(void)ctx;
	(void)off;
	(void)p;
	(void)n;
	return false;
}

static struct l7_rsp_verdict seg(struct l7_rsp_guard *g, uint32_t at,
				 const char *data, uint32_t len, bool fin)
{
	struct l7_rsp_seg s = {
		.seq = S0 + at,
		.len = len,
		.fin = fin,
		.peek = peek_mem,
		.poke = poke_none,
		.ctx = data + at,
	};

	return l7_rsp_guard_seg(g, &s);
}

static uint8_t buf[L7_RSP_HEAD_MAX];

static const char last5[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
			    "Connection: close\r\nContent-Type: text/plain\r\n"
			    "\r\nhello";

/*
 * The head in segments of every size from 1 byte up: taken whole, never
 * forwarded, the body after it forwarded; the taking ends exactly once.
 */
static void head_across_segments(void)
{
	uint32_t head = (uint32_t)(strlen(last5) - 5), step;

	for (step = 1; step <= strlen(last5); step++) {
		struct l7_rsp_guard g;
		uint32_t at = 0, took = 0, fwd = 0;
		bool ended = false;

		l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
		l7_rsp_guard_take(&g, buf, false);
		while (at < strlen(last5)) {
			uint32_t n = strlen(last5) - at < step ?
				     (uint32_t)strlen(last5) - at : step;
			struct l7_rsp_verdict v = seg(&g, at, last5, n, false);

			CHECK(v.act == L7_RSP_FORWARD, "step %u at %u", step,
			      at);
			took += v.took;
			ended |= v.ended;
			CHECK(v.skip == (at >= head ? 0 :
					 (head - at < n ? head - at : n)),
			      "step %u at %u skip %u", step, at, v.skip);
			fwd += n - v.skip;
			/* a resend of it: the taken part is skipped again */
			v = seg(&g, at, last5, n, false);
			CHECK(!v.took && v.skip == (at >= head ? 0 :
				(head - at < n ? head - at : n)), "resend");
			at += n;
		}
		CHECK(took == 1 && ended && fwd == 5, "step %u: took %u fwd %u",
		      step, took, fwd);
		CHECK(g.taken == head && g.taken_whole &&
		      !memcmp(buf, last5, head), "step %u: taken %u", step,
		      g.taken);
		CHECK(l7_rsp_guard_taken_end(&g) == S0 + head, "end");
	}
}

/* A head that says keep-alive, whole in one segment: not taken at all. */
static void keep_alive_head_passes(void)
{
	static const char ka[] = "HTTP/1.1 200 OK\r\nConnection: Keep-Alive\r\n"
				 "Content-Length: 2\r\n\r\nhi";
	struct l7_rsp_guard g;
	struct l7_rsp_verdict v;

	l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
	l7_rsp_guard_take(&g, buf, false);
	v = seg(&g, 0, ka, strlen(ka), false);
	CHECK(v.act == L7_RSP_FORWARD && v.ended && !v.took && !v.skip,
	      "passes: took %d skip %u", v.took, v.skip);
	CHECK(!g.taken && !g.take, "nothing taken");

	/* in two segments it is taken (the copy is the same bytes) */
	l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
	l7_rsp_guard_take(&g, buf, false);
	v = seg(&g, 0, ka, 10, false);
	CHECK(v.act == L7_RSP_FORWARD && !v.took && v.skip == 10, "first");
	v = seg(&g, 10, ka, strlen(ka) - 10, false);
	CHECK(v.act == L7_RSP_FORWARD && v.took && v.ended &&
	      v.skip == strlen(ka) - 2 - 10, "second: skip %u", v.skip);
}

/* A head longer than L7_RSP_HEAD_MAX: taken up to there, then passes. */
static void head_over_limit(void)
{
	static char big[L7_RSP_HEAD_MAX + 200];
	struct l7_rsp_guard g;
	struct l7_rsp_verdict v;
	size_t n;

	strcpy(big, "HTTP/1.1 200 OK\r\nX-Pad: ");
	n = strlen(big);
	memset(big + n, 'a', L7_RSP_HEAD_MAX);
	strcpy(big + n + L7_RSP_HEAD_MAX,
	       "\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
	l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
	l7_rsp_guard_take(&g, buf, false);
	v = seg(&g, 0, big, 1000, false);
	CHECK(v.act == L7_RSP_FORWARD && !v.took && v.skip == 1000, "first");
	v = seg(&g, 1000, big, strlen(big) - 1000, false);
	CHECK(v.act == L7_RSP_FORWARD && v.took && v.ended &&
	      g.take_over && !g.taken_whole, "over: took %d", v.took);
	CHECK(g.taken == L7_RSP_HEAD_MAX &&
	      v.skip == L7_RSP_HEAD_MAX - 1000, "skip %u", v.skip);
}

/* A head cut short by the server's FIN: nothing reached the client. */
static void fin_inside_taken_head(void)
{
	struct l7_rsp_guard g;
	struct l7_rsp_verdict v;

	l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
	l7_rsp_guard_take(&g, buf, false);
	v = seg(&g, 0, last5, 20, true);
	CHECK(v.act == L7_RSP_BAD && v.closed, "act %d", v.act);
}

/* A 101 cannot come from a head the director took. */
static void upgrade_refused(void)
{
	static const char up[] = "HTTP/1.1 101 Switching Protocols\r\n"
				 "Upgrade: x\r\nConnection: upgrade\r\n\r\n";
	struct l7_rsp_guard g;
	struct l7_rsp_verdict v;

	l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
	l7_rsp_guard_take(&g, buf, false);
	v = seg(&g, 0, up, strlen(up), false);
	CHECK(v.act == L7_RSP_BAD, "act %d", v.act);
}

/* The mapping: the copy first, then the rest one offset further. */
static void map_carries_offset(void)
{
	struct l7_binding_params p = {
		.c_seq = 100, .b_seq = 200, .b_rcv = S0, .c_snd = 0xfffffffa,
	};
	struct l7_binding_map m;
	struct l7_tcp_seg s = { .seq = S0 + 60, .len = 5, .ack = 200 };
	struct l7_tcp_sack_block blk[2] = {
		{ 0xfffffffa, 0xfffffffa + 10 },	/* in the copy */
		{ 0xfffffffa + 84, 0xfffffffa + 89 },	/* body */
	};
	unsigned int flags, n;

	l7_binding_init(&m, &p, NULL);
	/* 60 head bytes taken, 84 sent instead */
	l7_binding_rsp_copy(&m, S0 + 60, 84);
	flags = l7_map_b2c(&m, &s);
	CHECK(!(flags & L7_SEG_SEQ_OUTSIDE) && s.seq == 0xfffffffa + 84,
	      "body seq %x", s.seq);
	/* a resend of the head maps below the range: not forwarded */
	s = (struct l7_tcp_seg){ .seq = S0, .len = 60, .ack = 200 };
	CHECK(l7_map_b2c(&m, &s) & L7_SEG_SEQ_OUTSIDE, "head resend");
	/* a client ACK inside the copy: the head's end, acked already */
	s = (struct l7_tcp_seg){ .seq = 100, .ack = 0xfffffffa + 30 };
	l7_map_c2b(&m, &s, &any);
	CHECK(s.ack == S0 + 60, "ack %x", s.ack);
	s = (struct l7_tcp_seg){ .seq = 100, .ack = 0xfffffffa + 89 };
	l7_map_c2b(&m, &s, &any);
	CHECK(s.ack == S0 + 65, "ack %x", s.ack);
	/* SACK: the copy's block goes, the body's maps back */
	m.b_sack = true;
	n = l7_sack_c2b(&m, blk, 2);
	CHECK(n == 1 && blk[0].start == S0 + 60 && blk[0].end == S0 + 65,
	      "sack %u %x-%x", n, blk[0].start, blk[0].end);
	/* the end of the response maps back and forth the same way */
	l7_range_close(&m.rsp_range, l7_seq_fwd(&m.rsp, S0 + 65));
	CHECK(l7_seq_inv(&m.rsp, m.rsp_range.end) == S0 + 65, "end");
}

int main(void)
{
	RUN(server_close_becomes_keep_alive);
	RUN(server_keep_alive_fields);
	RUN(close_client_hears_close);
	RUN(close_delimited_unchanged);
	RUN(copy_within_field_limit);
	RUN(folding_refused);
	RUN(interim_first);
	RUN(head_across_segments);
	RUN(keep_alive_head_passes);
	RUN(head_over_limit);
	RUN(fin_inside_taken_head);
	RUN(upgrade_refused);
	RUN(map_carries_offset);
	return l7_test_summary("rsp_head");
}
