// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/http_resp.c, the incremental response framer.
 *
 * Every response is fed whole, byte by byte, split at every point (and at
 * every pair of points for the short ones), and the framer must find the
 * same head and end at the same byte whatever the segmentation.  The start
 * of a next response follows each one and must be left unconsumed.
 */
#include <stdlib.h>
#include <string.h>

#include "http_resp.h"
#include "l7_test.h"

/* An error's name in failure messages: its enum member's. */
#define E(x)	[L7_RESP_E_##x] = #x
static const char *const err_names[L7_RESP_E_COUNT] = {
	E(NONE), E(VERSION), E(VERSION_UNSUPPORTED), E(STATUS), E(REASON),
	E(LINE_END), E(HEADER_NAME), E(OBS_FOLD), E(HEADER_VALUE),
	E(CONTENT_LENGTH), E(TE_AND_CL), E(TRANSFER_ENCODING),
	E(HEAD_TOO_LARGE), E(TOO_MANY_HEADERS), E(CHUNK_SIZE), E(CHUNK_EXT),
	E(CHUNK_LINE_TOO_LARGE), E(CHUNK_DATA_END), E(TRAILER_TOO_LARGE),
	E(TRUNCATED), E(CLOSED),
};
#undef E

static const char *err_name(enum l7_resp_err e)
{
	if ((unsigned int)e >= L7_RESP_E_COUNT || !err_names[e])
		return "?";
	return err_names[e];
}

#define NEXT "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

/* How a case ends: DONE, UPGRADE, or DONE only once eof() is called. */
enum end { END_DONE, END_UPGRADE, END_EOF };

struct expect {
	int code;
	int minor;
	const char *reason;
	enum l7_resp_body body;
	uint64_t content_length;
	bool has_body;
	bool keep_alive;
	int headers;
	int interims;		/* 1xx responses before the final one */
	enum end end;
};

struct good_case {
	const char *name;
	enum l7_http_method method;
	const char *resp;
	struct expect e;
};

static const struct good_case good[] = {
	{ "Apache static file", L7_HTTP_M_GET,
	  "HTTP/1.1 200 OK\r\n"
	  "Date: Sat, 21 Nov 2026 05:58:16 GMT\r\n"
	  "Server: Apache/2.4.62 (Debian)\r\n"
	  "Last-Modified: Fri, 20 Nov 2026 10:00:00 GMT\r\n"
	  "ETag: \"10-5f1c2b3a4d5e6\"\r\n"
	  "Accept-Ranges: bytes\r\n"
	  "Content-Length: 18\r\n"
	  "X-Backend: s1\r\n"
	  "Keep-Alive: timeout=5, max=100\r\n"
	  "Connection: Keep-Alive\r\n"
	  "Content-Type: application/octet-stream\r\n\r\n"
	  "\r\n\r\nHTTP/1.1 200\r\n",	/* body bytes are never parsed */
	  { 200, 1, "OK", L7_RESP_BODY_LENGTH, 18, true, true, 10, 0,
	    END_DONE } },
	{ "Apache CGI, chunked", L7_HTTP_M_GET,
	  "HTTP/1.1 200 OK\r\n"
	  "Date: Sat, 21 Nov 2026 05:58:16 GMT\r\n"
	  "Server: Apache/2.4.62 (Debian)\r\n"
	  "X-Backend: s2\r\n"
	  "Keep-Alive: timeout=5, max=99\r\n"
	  "Connection: Keep-Alive\r\n"
	  "Transfer-Encoding: chunked\r\n"
	  "Content-Type: text/plain\r\n\r\n"
	  "19\r\nbackend=s2 iters=10 x=42\n\r\n"
	  "5\r\nline\n\r\n"
	  "000A\r\n0123456789\r\n"
	  "0\r\n\r\n",
	  { 200, 1, "OK", L7_RESP_BODY_CHUNKED, 0, true, true, 7, 0,
	    END_DONE } },
	{ "chunk extensions and trailers", L7_HTTP_M_GET,
	  "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n"
	  "Trailer: Expires, X-Checksum\r\n\r\n"
	  "4;name=value\r\nWiki\r\n"
	  "5 ; a = \"q\\\"x;y\" ;b\t;c=d\r\npedia\r\n"
	  "E;e=\"\"\r\n in\r\n\r\nchunks.\r\n"
	  "0;last\r\n"
	  "Expires: Wed, 21 Oct 2015 07:28:00 GMT\r\n"
	  "X-Checksum: abc\r\n\r\n",
	  { 200, 1, "OK", L7_RESP_BODY_CHUNKED, 0, true, true, 2, 0,
	    END_DONE } },
	{ "100 Continue, then 200", L7_HTTP_M_POST,
	  "HTTP/1.1 100 Continue\r\n\r\n"
	  "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
	  { 200, 1, "OK", L7_RESP_BODY_LENGTH, 5, true, true, 1, 1,
	    END_DONE } },
	{ "100 and 103 Early Hints, then chunked 201", L7_HTTP_M_POST,
	  "HTTP/1.1 100 Continue\r\nServer: x\r\n\r\n"
	  "HTTP/1.1 103 Early Hints\r\n"
	  "Link: </style.css>; rel=preload; as=style\r\n\r\n"
	  "HTTP/1.1 201 Created\r\nLocation: /x\r\n"
	  "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
	  { 201, 1, "Created", L7_RESP_BODY_CHUNKED, 0, true, true, 2, 2,
	    END_DONE } },
	{ "101 Switching Protocols", L7_HTTP_M_GET,
	  "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
	  "Connection: Upgrade\r\n"
	  "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n",
	  { 101, 1, "Switching Protocols", L7_RESP_BODY_NONE, 0, false, false,
	    3, 0, END_UPGRADE } },
	{ "response to HEAD", L7_HTTP_M_HEAD,
	  "HTTP/1.1 200 OK\r\nServer: Apache/2.4.62 (Debian)\r\n"
	  "Content-Length: 1048576\r\nContent-Type: application/octet-stream\r\n\r\n",
	  { 200, 1, "OK", L7_RESP_BODY_NONE, 1048576, false, true, 3, 0,
	    END_DONE } },
	{ "largest Content-Length, to HEAD", L7_HTTP_M_HEAD,
	  "HTTP/1.1 200 OK\r\nContent-Length: 18446744073709551615\r\n\r\n",
	  { 200, 1, "OK", L7_RESP_BODY_NONE, 18446744073709551615ull, false,
	    true, 1, 0, END_DONE } },
	{ "chunked response to HEAD", L7_HTTP_M_HEAD,
	  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
	  { 200, 1, "OK", L7_RESP_BODY_NONE, 0, false, true, 1, 0,
	    END_DONE } },
	{ "204 No Content", L7_HTTP_M_GET,
	  "HTTP/1.1 204 No Content\r\nServer: Apache/2.4.62 (Debian)\r\n"
	  "X-Backend: s3\r\n\r\n",
	  { 204, 1, "No Content", L7_RESP_BODY_NONE, 0, false, true, 2, 0,
	    END_DONE } },
	{ "304 with Content-Length", L7_HTTP_M_GET,
	  "HTTP/1.1 304 Not Modified\r\nETag: \"400-5f1c\"\r\n"
	  "Content-Length: 1024\r\n\r\n",
	  { 304, 1, "Not Modified", L7_RESP_BODY_NONE, 1024, false, true, 2,
	    0, END_DONE } },
	{ "HTTP/1.0, close-delimited", L7_HTTP_M_GET,
	  "HTTP/1.0 200 OK\r\nServer: SimpleHTTP/0.6 Python/3.11.2\r\n"
	  "Content-type: text/html\r\n\r\n<html>\r\n\r\nHTTP/1.1 200 OK\r\n",
	  { 200, 0, "OK", L7_RESP_BODY_CLOSE, 0, true, false, 2, 0,
	    END_EOF } },
	{ "HTTP/1.1 without length, Connection: close", L7_HTTP_M_GET,
	  "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it",
	  { 200, 1, "OK", L7_RESP_BODY_CLOSE, 0, true, false, 1, 0,
	    END_EOF } },
	{ "final coding not chunked: close-delimited", L7_HTTP_M_GET,
	  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n\x1f\x8b",
	  { 200, 1, "OK", L7_RESP_BODY_CLOSE, 0, true, false, 1, 0,
	    END_EOF } },
	{ "Content-Length: 0", L7_HTTP_M_GET,
	  "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
	  { 200, 1, "OK", L7_RESP_BODY_LENGTH, 0, false, true, 1, 0,
	    END_DONE } },
	{ "HTTP/1.0 keep-alive with length", L7_HTTP_M_GET,
	  "HTTP/1.0 404 Not Found\r\nConnection: keep-alive\r\n"
	  "Content-Length: 3\r\n\r\n404",
	  { 404, 0, "Not Found", L7_RESP_BODY_LENGTH, 3, true, true, 2, 0,
	    END_DONE } },
	{ "Connection: close with length", L7_HTTP_M_GET,
	  "HTTP/1.1 500 Internal Server Error\r\nConnection: Close\r\n"
	  "Content-Length: 3, 3\r\ncontent-length: 3\r\n\r\nerr",
	  { 500, 1, "Internal Server Error", L7_RESP_BODY_LENGTH, 3, true,
	    false, 3, 0, END_DONE } },
	{ "no reason phrase", L7_HTTP_M_GET,
	  "HTTP/1.1 503\r\nContent-Length: 0\r\n\r\n",
	  { 503, 1, "", L7_RESP_BODY_LENGTH, 0, false, true, 1, 0,
	    END_DONE } },
	{ "empty reason, odd but valid bytes", L7_HTTP_M_GET,
	  "HTTP/1.1 302 \r\nLocation: /caf\xc3\xa9\r\nX-Empty:\r\n"
	  "Content-Lengths: zz\r\nContent-Length:1\r\n\r\n.",
	  { 302, 1, "", L7_RESP_BODY_LENGTH, 1, true, true, 4, 0,
	    END_DONE } },
};

struct run {
	enum l7_resp_status st;
	size_t consumed;	/* total of *used */
	size_t start;		/* where the final response began */
	int interims;
	int interim_code[4];
};

/*
 * Feed @len bytes of @data cut at the @ncuts sorted offsets in @cuts, the
 * way the director would: after HEAD or INTERIM, the rest of the segment
 * is fed again.  With @eof, the connection closes after the last byte.
 */
static void feed_split(struct l7_http_resp *r, const uint8_t *data,
		       size_t len, const size_t *cuts, int ncuts, bool eof,
		       struct run *run)
{
	enum l7_resp_status st = L7_RESP_MORE;
	size_t from = 0;
	int i;

	memset(run, 0, sizeof(*run));
	for (i = 0; i <= ncuts; i++) {
		size_t to = i < ncuts ? cuts[i] : len;

		for (;;) {
			size_t used;

			st = l7_http_resp_feed(r, data + from, to - from,
					       &used);
			from += used;
			run->consumed += used;
			if (st == L7_RESP_INTERIM) {
				if (run->interims < 4)
					run->interim_code[run->interims] =
						r->status_code;
				run->interims++;
				run->start = run->consumed;
				continue;
			}
			if (st != L7_RESP_HEAD || from == to)
				break;
		}
		if (st != L7_RESP_MORE && st != L7_RESP_HEAD)
			break;
	}
	if (eof && (st == L7_RESP_MORE || st == L7_RESP_HEAD))
		st = l7_http_resp_eof(r);
	run->st = st;
}

static const char *span_str(const char *base, struct l7_http_span s,
			    char *buf, size_t n)
{
	size_t len = s.len < n - 1 ? s.len : n - 1;

	memcpy(buf, base + s.off, len);
	buf[len] = '\0';
	return buf;
}

static void check_good(const struct good_case *g, const struct l7_http_resp *r,
		       const struct run *run, size_t resp_len, const char *how)
{
	const struct expect *e = &g->e;
	enum l7_resp_status want = e->end == END_UPGRADE ? L7_RESP_UPGRADE :
							   L7_RESP_DONE;
	const char *final = g->resp + run->start;
	char buf[256];
	int k;

	CHECK(run->st == want, "%s [%s]: status %d err %s at %llu", g->name,
	      how, run->st, err_name(r->err),
	      (unsigned long long)r->err_off);
	if (run->st != want)
		return;
	CHECK(run->interims == e->interims, "%s [%s]: %d interims", g->name,
	      how, run->interims);
	for (k = 0; k < run->interims && k < 4; k++)
		CHECK(run->interim_code[k] >= 100 &&
		      run->interim_code[k] < 200, "%s: interim %d", g->name,
		      run->interim_code[k]);
	/* upgraded: the head ends where the other protocol starts */
	CHECK(run->consumed == (e->end == END_UPGRADE ?
				run->start + r->head_len : resp_len),
	      "%s [%s]: consumed %zu want %zu", g->name, how, run->consumed,
	      resp_len);
	CHECK(r->head_len >= 4 && !memcmp(final + r->head_len - 4,
					  "\r\n\r\n", 4),
	      "%s [%s]: head_len %u", g->name, how, r->head_len);
	CHECK(r->status_code == e->code, "%s: code %d", g->name,
	      r->status_code);
	CHECK(r->version_major == 1 && r->version_minor == e->minor,
	      "%s: version %d.%d", g->name, r->version_major,
	      r->version_minor);
	CHECK(!strcmp(span_str(final, r->reason, buf, sizeof(buf)),
		      e->reason), "%s [%s]: reason '%s'", g->name, how, buf);
	CHECK(r->body == e->body, "%s: body %d", g->name, r->body);
	CHECK(r->content_length == e->content_length,
	      "%s: content_length %llu", g->name,
	      (unsigned long long)r->content_length);
	CHECK(r->has_body == e->has_body, "%s: has_body", g->name);
	CHECK(r->keep_alive == e->keep_alive, "%s: keep_alive", g->name);
	CHECK(r->header_count == (uint32_t)e->headers, "%s: headers %u",
	      g->name, r->header_count);
	CHECK(r->err == L7_RESP_E_NONE, "%s: err", g->name);
}

/* Response + the start of the next one, unless the body runs to close. */
static uint8_t *with_tail(const struct good_case *g, size_t resp_len,
			  size_t *len)
{
	size_t tail = g->e.end == END_EOF ? 0 : sizeof(NEXT) - 1;
	uint8_t *buf = malloc(resp_len + sizeof(NEXT));

	memcpy(buf, g->resp, resp_len);
	memcpy(buf + resp_len, NEXT, tail);
	*len = resp_len + tail;
	return buf;
}

static void test_good_whole_and_every_split(void)
{
	size_t i, a, b;

	for (i = 0; i < L7_ARRAY_SIZE(good); i++) {
		const struct good_case *g = &good[i];
		size_t resp_len = strlen(g->resp), len, cuts[2];
		uint8_t *data = with_tail(g, resp_len, &len);
		bool eof = g->e.end == END_EOF;
		struct l7_http_resp r;
		struct run run;

		l7_http_resp_init(&r, NULL, g->method);
		feed_split(&r, data, len, NULL, 0, eof, &run);
		check_good(g, &r, &run, resp_len, "whole");

		for (a = 0; a <= len; a++) {
			cuts[0] = a;
			l7_http_resp_init(&r, NULL, g->method);
			feed_split(&r, data, len, cuts, 1, eof, &run);
			check_good(g, &r, &run, resp_len, "split1");
		}
		for (a = 0; a <= len; a++) {
			for (b = a; b <= len; b++) {
				cuts[0] = a;
				cuts[1] = b;
				l7_http_resp_init(&r, NULL, g->method);
				feed_split(&r, data, len, cuts, 2, eof, &run);
				check_good(g, &r, &run, resp_len, "split2");
			}
		}
		free(data);
	}
}

static void test_good_byte_at_a_time(void)
{
	size_t i, k, cuts[2048];

	for (i = 0; i < L7_ARRAY_SIZE(good); i++) {
		const struct good_case *g = &good[i];
		size_t resp_len = strlen(g->resp), len, used;
		uint8_t *data = with_tail(g, resp_len, &len);
		struct l7_http_resp r;
		enum l7_resp_status st;
		struct run run;

		for (k = 0; k + 1 < len; k++)
			cuts[k] = k + 1;
		l7_http_resp_init(&r, NULL, g->method);
		feed_split(&r, data, len, cuts, (int)k, g->e.end == END_EOF,
			   &run);
		check_good(g, &r, &run, resp_len, "bytewise");
		/* once done or upgraded, the framer takes nothing more */
		st = l7_http_resp_feed(&r, data, len, &used);
		CHECK(st == run.st && used == 0, "%s: feed after end",
		      g->name);
		free(data);
	}
}

/* Responses back to back on one connection, each after its request. */
static void test_connection_sequence(void)
{
	static const struct {
		enum l7_http_method method;
		const char *resp;
		int code;
	} seq[] = {
		{ L7_HTTP_M_GET, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked"
		  "\r\n\r\n2\r\nab\r\n0\r\n\r\n", 200 },
		{ L7_HTTP_M_HEAD, "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n",
		  200 },
		{ L7_HTTP_M_DELETE, "HTTP/1.1 204 No Content\r\n\r\n", 204 },
		{ L7_HTTP_M_GET, "HTTP/1.1 304 Not Modified\r\n\r\n", 304 },
		{ L7_HTTP_M_POST, "HTTP/1.1 100 Continue\r\n\r\n"
		  "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc", 200 },
		{ L7_HTTP_M_GET, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nz",
		  200 },
	};
	char all[1024];
	size_t ends[L7_ARRAY_SIZE(seq)], len = 0, i, a, cut;

	for (i = 0; i < L7_ARRAY_SIZE(seq); i++) {
		memcpy(all + len, seq[i].resp, strlen(seq[i].resp));
		len += strlen(seq[i].resp);
		ends[i] = len;
	}
	for (a = 0; a <= len; a++) {
		const uint8_t *p = (const uint8_t *)all;
		size_t off = 0;

		for (i = 0; i < L7_ARRAY_SIZE(seq); i++) {
			struct l7_http_resp r;
			struct run run;

			/* one cut at a, relative to where this one starts */
			cut = a > off ? a - off : 0;
			if (cut > len - off)
				cut = len - off;
			l7_http_resp_init(&r, NULL, seq[i].method);
			feed_split(&r, p + off, len - off, &cut, 1, false,
				   &run);
			CHECK(run.st == L7_RESP_DONE &&
			      off + run.consumed == ends[i] &&
			      r.status_code == seq[i].code,
			      "cut %zu, response %zu: status %d ends %zu want %zu",
			      a, i, run.st, off + run.consumed, ends[i]);
			off += run.consumed;
		}
	}
}

struct bad_case {
	const char *name;
	enum l7_http_method method;
	const char *resp;
	enum l7_resp_err err;
	size_t len;	/* 0: strlen(resp); set where it holds a NUL */
};

#define NUL_IN_VALUE "HTTP/1.1 200 OK\r\nX: a\0b\r\n\r\n"
#define CH "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"

static const struct bad_case bad[] = {
	{ "not HTTP", L7_HTTP_M_GET, "SSH-2.0-OpenSSH_9.2\r\n",
	  L7_RESP_E_VERSION },
	{ "lower-case version", L7_HTTP_M_GET, "http/1.1 200 OK\r\n",
	  L7_RESP_E_VERSION },
	{ "HTTP/2 without minor", L7_HTTP_M_GET, "HTTP/2 200 OK\r\n",
	  L7_RESP_E_VERSION },
	{ "HTTP/2.0", L7_HTTP_M_GET, "HTTP/2.0 200 OK\r\n\r\n",
	  L7_RESP_E_VERSION_UNSUPPORTED },
	{ "leading empty line", L7_HTTP_M_GET, "\r\nHTTP/1.1 200 OK\r\n",
	  L7_RESP_E_VERSION },
	{ "two spaces after version", L7_HTTP_M_GET, "HTTP/1.1  200 OK\r\n",
	  L7_RESP_E_STATUS },
	{ "two-digit status", L7_HTTP_M_GET, "HTTP/1.1 20 OK\r\n",
	  L7_RESP_E_STATUS },
	{ "four-digit status", L7_HTTP_M_GET, "HTTP/1.1 2000 OK\r\n",
	  L7_RESP_E_STATUS },
	{ "status 099", L7_HTTP_M_GET, "HTTP/1.1 099 x\r\n",
	  L7_RESP_E_STATUS },
	{ "status 600", L7_HTTP_M_GET, "HTTP/1.1 600 x\r\n",
	  L7_RESP_E_STATUS },
	{ "control byte in reason", L7_HTTP_M_GET,
	  "HTTP/1.1 200 O\x01K\r\n", L7_RESP_E_REASON },
	{ "bare LF line ends", L7_HTTP_M_GET,
	  "HTTP/1.1 200 OK\nContent-Length: 0\n\n", L7_RESP_E_LINE_END },
	{ "bare CR in header line", L7_HTTP_M_GET,
	  "HTTP/1.1 200 OK\r\nX: a\rY: b\r\n\r\n", L7_RESP_E_LINE_END },
	{ "space before colon", L7_HTTP_M_GET,
	  "HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\nhello",
	  L7_RESP_E_HEADER_NAME },
	{ "obs-fold", L7_HTTP_M_GET,
	  "HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n", L7_RESP_E_OBS_FOLD },
	{ "NUL in value", L7_HTTP_M_GET, NUL_IN_VALUE,
	  L7_RESP_E_HEADER_VALUE, sizeof(NUL_IN_VALUE) - 1 },
	{ "conflicting Content-Length", L7_HTTP_M_GET,
	  "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
	  L7_RESP_E_CONTENT_LENGTH },
	{ "conflicting Content-Length list", L7_HTTP_M_GET,
	  "HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n",
	  L7_RESP_E_CONTENT_LENGTH },
	{ "non-digit Content-Length", L7_HTTP_M_GET,
	  "HTTP/1.1 200 OK\r\nContent-Length: 0x10\r\n\r\n",
	  L7_RESP_E_CONTENT_LENGTH },
	{ "Content-Length overflow", L7_HTTP_M_GET,
	  "HTTP/1.1 200 OK\r\nContent-Length: 18446744073709551616\r\n\r\n",
	  L7_RESP_E_CONTENT_LENGTH },
	{ "conflicting Content-Length on HEAD", L7_HTTP_M_HEAD,
	  "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
	  L7_RESP_E_CONTENT_LENGTH },
	{ "TE and CL", L7_HTTP_M_GET,
	  "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
	  "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
	  L7_RESP_E_TE_AND_CL },
	{ "chunked twice", L7_HTTP_M_GET,
	  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
	  "Transfer-Encoding: chunked\r\n\r\n", L7_RESP_E_TRANSFER_ENCODING },
	{ "TE in HTTP/1.0", L7_HTTP_M_GET,
	  "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
	  L7_RESP_E_TRANSFER_ENCODING },
	{ "empty TE", L7_HTTP_M_GET,
	  "HTTP/1.1 200 OK\r\nTransfer-Encoding: \r\n\r\n",
	  L7_RESP_E_TRANSFER_ENCODING },
	{ "quoted coding parameter", L7_HTTP_M_GET,
	  "HTTP/1.1 200 OK\r\nTransfer-Encoding: foo;x=\"a,chunked\"\r\n\r\n",
	  L7_RESP_E_TRANSFER_ENCODING },
	{ "bad byte in Connection", L7_HTTP_M_GET,
	  "HTTP/1.1 200 OK\r\nConnection: close;x\r\n\r\n",
	  L7_RESP_E_HEADER_VALUE },
	{ "chunk size not hex", L7_HTTP_M_GET, CH "g\r\n",
	  L7_RESP_E_CHUNK_SIZE },
	{ "empty chunk size", L7_HTTP_M_GET, CH "\r\n",
	  L7_RESP_E_CHUNK_SIZE },
	{ "signed chunk size", L7_HTTP_M_GET, CH "-1\r\n",
	  L7_RESP_E_CHUNK_SIZE },
	{ "chunk size overflow", L7_HTTP_M_GET, CH "10000000000000000\r\n",
	  L7_RESP_E_CHUNK_SIZE },
	{ "space inside chunk size", L7_HTTP_M_GET, CH "1 0\r\n",
	  L7_RESP_E_CHUNK_EXT },
	{ "extension without name", L7_HTTP_M_GET, CH "1;\r\nx\r\n",
	  L7_RESP_E_CHUNK_EXT },
	{ "extension without value", L7_HTTP_M_GET, CH "1;a=\r\nx\r\n",
	  L7_RESP_E_CHUNK_EXT },
	{ "extension names without ';'", L7_HTTP_M_GET, CH "1;a b\r\n",
	  L7_RESP_E_CHUNK_EXT },
	{ "CR in quoted extension", L7_HTTP_M_GET, CH "1;a=\"x\r\n",
	  L7_RESP_E_CHUNK_EXT },
	{ "bare LF after chunk size", L7_HTTP_M_GET, CH "3\nabc\r\n",
	  L7_RESP_E_LINE_END },
	{ "bare LF in extension", L7_HTTP_M_GET, CH "3;a\nabc\r\n",
	  L7_RESP_E_LINE_END },
	{ "chunk data too long", L7_HTTP_M_GET, CH "3\r\nabcd\r\n",
	  L7_RESP_E_CHUNK_DATA_END },
	{ "chunk data without LF", L7_HTTP_M_GET, CH "3\r\nabc\rX",
	  L7_RESP_E_CHUNK_DATA_END },
	{ "obs-fold in trailer", L7_HTTP_M_GET,
	  CH "0\r\nX: a\r\n b\r\n\r\n", L7_RESP_E_OBS_FOLD },
	{ "bad trailer name", L7_HTTP_M_GET, CH "0\r\nX Y: a\r\n\r\n",
	  L7_RESP_E_HEADER_NAME },
	{ "bare LF ending trailers", L7_HTTP_M_GET, CH "0\r\n\n",
	  L7_RESP_E_LINE_END },
};

static void test_bad_every_split(void)
{
	size_t i, a;

	for (i = 0; i < L7_ARRAY_SIZE(bad); i++) {
		const struct bad_case *b = &bad[i];
		size_t len = b->len ? b->len : strlen(b->resp), cut;
		const uint8_t *p = (const uint8_t *)b->resp;
		struct l7_http_resp r;
		uint64_t err_off;
		struct run run;

		l7_http_resp_init(&r, NULL, b->method);
		feed_split(&r, p, len, NULL, 0, false, &run);
		CHECK(run.st == L7_RESP_ERROR && r.err == b->err,
		      "%s: status %d err '%s' want '%s'", b->name, run.st,
		      err_name(r.err), err_name(b->err));
		CHECK(run.consumed == r.err_off + 1,
		      "%s: consumed %zu err_off %llu", b->name, run.consumed,
		      (unsigned long long)r.err_off);
		err_off = r.err_off;

		for (a = 0; a <= len; a++) {
			cut = a;
			l7_http_resp_init(&r, NULL, b->method);
			feed_split(&r, p, len, &cut, 1, false, &run);
			CHECK(run.st == L7_RESP_ERROR && r.err == b->err &&
			      r.err_off == err_off,
			      "%s: split at %zu: status %d err '%s' at %llu",
			      b->name, a, run.st, err_name(r.err),
			      (unsigned long long)r.err_off);
		}
		/* the framer stays failed */
		CHECK(l7_http_resp_feed(&r, p, len, &cut) == L7_RESP_ERROR &&
		      cut == 0 && l7_http_resp_eof(&r) == L7_RESP_ERROR,
		      "%s: sticky", b->name);
	}
}

/* The connection closes: only a close-delimited body ends that way. */
static void test_eof(void)
{
	static const char *const cut_short[] = {
		"H",
		"HTTP/1.1 200 OK\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
		CH "3\r\nab",
		CH "0\r\n",
		"HTTP/1.1 100 Continue\r\n\r\n",
	};
	struct l7_http_resp r;
	struct run run;
	size_t i;

	l7_http_resp_init(&r, NULL, L7_HTTP_M_GET);
	CHECK(l7_http_resp_eof(&r) == L7_RESP_ERROR &&
	      r.err == L7_RESP_E_CLOSED, "idle close: %s",
	      err_name(r.err));

	for (i = 0; i < L7_ARRAY_SIZE(cut_short); i++) {
		l7_http_resp_init(&r, NULL, L7_HTTP_M_GET);
		feed_split(&r, (const uint8_t *)cut_short[i],
			   strlen(cut_short[i]), NULL, 0, true, &run);
		CHECK(run.st == L7_RESP_ERROR && r.err == L7_RESP_E_TRUNCATED,
		      "truncated %zu: status %d err %s", i, run.st,
		      err_name(r.err));
	}

	/* close right after the head: an empty close-delimited body */
	l7_http_resp_init(&r, NULL, L7_HTTP_M_GET);
	feed_split(&r, (const uint8_t *)"HTTP/1.0 200 OK\r\n\r\n", 19, NULL, 0,
		   true, &run);
	CHECK(run.st == L7_RESP_DONE && run.consumed == 19 && r.has_body,
	      "empty close-delimited body: status %d", run.st);
	CHECK(l7_http_resp_eof(&r) == L7_RESP_DONE, "eof after done");
}

/*
 * Bodies are skipped by count: an 8 GiB + 7 body is fed as the same
 * 1 MiB buffer over and over, which the framer must never look into.
 */
static void test_large_content_length(void)
{
	static const char head[] =
		"HTTP/1.1 200 OK\r\nContent-Length: 8589934599\r\n\r\n";
	const size_t seg = 1 << 20;
	uint8_t *junk = malloc(seg);
	uint64_t left = 8589934599ull;
	enum l7_resp_status st;
	struct l7_http_resp r;
	size_t used;

	memset(junk, '\n', seg);
	l7_http_resp_init(&r, NULL, L7_HTTP_M_GET);
	st = l7_http_resp_feed(&r, (const uint8_t *)head, sizeof(head) - 1,
			       &used);
	CHECK(st == L7_RESP_HEAD && used == sizeof(head) - 1 &&
	      r.body == L7_RESP_BODY_LENGTH &&
	      r.content_length == 8589934599ull, "head: status %d", st);
	while (left > seg) {
		st = l7_http_resp_feed(&r, junk, seg, &used);
		if (st != L7_RESP_MORE || used != seg)
			break;
		left -= seg;
	}
	CHECK(left == 7, "skipped to %llu", (unsigned long long)left);
	st = l7_http_resp_feed(&r, junk, seg, &used);
	CHECK(st == L7_RESP_DONE && used == 7, "end: status %d used %zu", st,
	      used);

	/* and a chunk of the largest size Apache takes, 2^63 - 1 */
	l7_http_resp_init(&r, NULL, L7_HTTP_M_GET);
	st = l7_http_resp_feed(&r, (const uint8_t *)CH "7fffffffffffffff\r\n",
			       sizeof(CH) + 17, &used);
	CHECK(st == L7_RESP_HEAD, "chunked head");
	st = l7_http_resp_feed(&r, (const uint8_t *)"7fffffffffffffff\r\n",
			       18, &used);
	CHECK(st == L7_RESP_MORE && used == 18, "max chunk size: status %d %s",
	      st, err_name(r.err));
	free(junk);
}

/* Every bound: exactly at the limit passes, one byte more fails. */
static void test_limits(void)
{
	struct l7_http_resp_limits lim = {
		.max_head = 64, .max_headers = 2, .max_trailer = 16,
		.max_chunk_line = 8,
	};
	static const struct {
		const char *resp;
		enum l7_resp_err err;	/* NONE: must end DONE */
	} cases[] = {
		/* a head of exactly 64 bytes, then 65 */
		{ "HTTP/1.1 200 OK\r\nX: 123456789012345678901\r\n"
		  "Content-Length: 0\r\n\r\n", L7_RESP_E_NONE },
		{ "HTTP/1.1 200 OK\r\nX: 1234567890123456789012\r\n"
		  "Content-Length: 0\r\n\r\n", L7_RESP_E_HEAD_TOO_LARGE },
		{ "HTTP/1.1 204 OK\r\nA: 1\r\nB: 2\r\n\r\n", L7_RESP_E_NONE },
		{ "HTTP/1.1 204 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n",
		  L7_RESP_E_TOO_MANY_HEADERS },
		/* chunk-size lines (with CRLF) of 8 bytes and of 9 */
		{ CH "1;ab=c\r\nx\r\n1;ab=c\r\nx\r\n0\r\n\r\n", L7_RESP_E_NONE },
		{ CH "1;abc=d\r\nx\r\n0\r\n\r\n",
		  L7_RESP_E_CHUNK_LINE_TOO_LARGE },
		{ CH "1\r\nx\r\n1;abc=d\r\nx\r\n0\r\n\r\n",
		  L7_RESP_E_CHUNK_LINE_TOO_LARGE },
		/* trailer sections of 16 bytes and of 17 */
		{ CH "0\r\nA: 1\r\nB: 234\r\n\r\n", L7_RESP_E_NONE },
		{ CH "0\r\nA: 1\r\nB: 2345\r\n\r\n",
		  L7_RESP_E_TRAILER_TOO_LARGE },
		{ CH "0\r\nA:\r\nB:\r\nC:\r\n\r\n", L7_RESP_E_TOO_MANY_HEADERS },
	};
	size_t i, a, len, cut;

	for (i = 0; i < L7_ARRAY_SIZE(cases); i++) {
		const uint8_t *p = (const uint8_t *)cases[i].resp;
		struct l7_http_resp r;
		struct run run;

		len = strlen(cases[i].resp);
		for (a = 0; a <= len; a++) {
			cut = a;
			l7_http_resp_init(&r, &lim, L7_HTTP_M_GET);
			feed_split(&r, p, len, &cut, 1, false, &run);
			if (cases[i].err == L7_RESP_E_NONE)
				CHECK(run.st == L7_RESP_DONE &&
				      run.consumed == len,
				      "limits %zu cut %zu: status %d err %s",
				      i, a, run.st, err_name(r.err));
			else
				CHECK(run.st == L7_RESP_ERROR &&
				      r.err == cases[i].err,
				      "limits %zu cut %zu: status %d err %s",
				      i, a, run.st, err_name(r.err));
		}
	}
}

/* skip() advances over body bytes unread, as feeding them would. */
static void test_skip(void)
{
	static const char cl[] = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n";
	static const char close[] = "HTTP/1.0 200 OK\r\n\r\n";
	static const uint8_t rest[] = "9\r\n0\r\n\r\n" NEXT;
	struct l7_http_resp r;
	size_t used;

	l7_http_resp_init(&r, NULL, L7_HTTP_M_GET);
	CHECK(l7_http_resp_skippable(&r) == 0, "head: nothing to skip");
	l7_http_resp_feed(&r, (const uint8_t *)cl, sizeof(cl) - 1, &used);
	CHECK(l7_http_resp_skippable(&r) == 10, "length: skippable");
	l7_http_resp_skip(&r, 8);
	CHECK(l7_http_resp_skippable(&r) == 2, "length: after skip");
	CHECK(l7_http_resp_feed(&r, rest, sizeof(rest) - 1, &used) ==
	      L7_RESP_DONE && used == 2, "length: end, used %zu", used);
	/* skipping the last byte ends it: feed() then says so */
	l7_http_resp_init(&r, NULL, L7_HTTP_M_GET);
	l7_http_resp_feed(&r, (const uint8_t *)cl, sizeof(cl) - 1, &used);
	l7_http_resp_skip(&r, 10);
	CHECK(l7_http_resp_skippable(&r) == 0 &&
	      l7_http_resp_feed(&r, rest, 0, &used) == L7_RESP_DONE &&
	      used == 0, "length: skipped to the end");

	/* chunked: only chunk data is skippable */
	l7_http_resp_init(&r, NULL, L7_HTTP_M_GET);
	l7_http_resp_feed(&r, (const uint8_t *)CH, sizeof(CH) - 1, &used);
	CHECK(l7_http_resp_skippable(&r) == 0, "chunk: size line to read");
	l7_http_resp_feed(&r, (const uint8_t *)"a\r\n", 3, &used);
	CHECK(l7_http_resp_skippable(&r) == 10, "chunk: skippable");
	l7_http_resp_skip(&r, 9);
	CHECK(l7_http_resp_feed(&r, rest, 1, &used) == L7_RESP_MORE &&
	      l7_http_resp_skippable(&r) == 0, "chunk: CRLF to read");
	CHECK(l7_http_resp_feed(&r, (const uint8_t *)"\r\n0\r\n\r\n", 7,
				&used) == L7_RESP_DONE && used == 7 &&
	      r.err == L7_RESP_E_NONE, "chunk: end");

	/* close-delimited: all there will be */
	l7_http_resp_init(&r, NULL, L7_HTTP_M_GET);
	l7_http_resp_feed(&r, (const uint8_t *)close, sizeof(close) - 1,
			  &used);
	CHECK(l7_http_resp_skippable(&r) == ~(uint64_t)0, "close: skippable");
	l7_http_resp_skip(&r, 1 << 20);
	CHECK(l7_http_resp_eof(&r) == L7_RESP_DONE, "close: eof");
}

int main(void)
{
	RUN(test_good_whole_and_every_split);
	RUN(test_good_byte_at_a_time);
	RUN(test_connection_sequence);
	RUN(test_bad_every_split);
	RUN(test_eof);
	RUN(test_large_content_length);
	RUN(test_limits);
	RUN(test_skip);
	return l7_test_summary("http_resp");
}
