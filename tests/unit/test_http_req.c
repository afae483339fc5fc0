// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/http_req.c, the incremental request-head framer.
 *
 * Every request is fed whole, byte by byte, and split at every point (and
 * at every pair of points for the short ones): the framer must reach the
 * same result whatever the segmentation.  Bytes after the head (a body or
 * a pipelined request) must be left unconsumed.
 */
#include <stdlib.h>
#include <string.h>

#include "http_req.h"
#include "l7_test.h"

/* An error's name in failure messages: its enum member's. */
#define E(x)	[L7_HTTP_E_##x] = #x
static const char *const err_names[L7_HTTP_E_COUNT] = {
	E(NONE), E(METHOD), E(METHOD_UNSUPPORTED), E(TARGET), E(VERSION),
	E(VERSION_UNSUPPORTED), E(LINE_END), E(HEADER_NAME), E(OBS_FOLD),
	E(HEADER_VALUE), E(HOST), E(CONTENT_LENGTH), E(TE_AND_CL),
	E(TRANSFER_ENCODING), E(BLANK_LINES), E(EXPECT), E(HEAD_TOO_LARGE),
	E(TOO_MANY_HEADERS),
};
#undef E

static const char *err_name(enum l7_http_err e)
{
	if ((unsigned int)e >= L7_HTTP_E_COUNT || !err_names[e])
		return "?";
	return err_names[e];
}

struct expect {
	enum l7_http_method method;
	const char *method_str;
	const char *target;
	enum l7_http_target_form form;
	int minor;
	const char *host;	/* NULL: no Host header */
	enum l7_http_req_body body;
	uint64_t content_length;
	bool keep_alive;
	bool expect_continue;
	bool upgrade;
	int headers;
};

struct good_case {
	const char *name;
	const char *head;
	struct expect e;
};

static const struct good_case good[] = {
	{ "curl GET",
	  "GET /static/1k.bin HTTP/1.1\r\nHost: 198.51.100.1\r\n"
	  "User-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n",
	  { L7_HTTP_M_GET, "GET", "/static/1k.bin", L7_HTTP_T_ORIGIN, 1,
	    "198.51.100.1", L7_HTTP_BODY_NONE, 0, true, false, false, 3 } },
	{ "httperf GET",
	  "GET /cgi-bin/burn?ms=5 HTTP/1.1\r\nUser-Agent: httperf/0.9.0\r\n"
	  "Host: 198.51.100.1\r\n\r\n",
	  { L7_HTTP_M_GET, "GET", "/cgi-bin/burn?ms=5", L7_HTTP_T_ORIGIN, 1,
	    "198.51.100.1", L7_HTTP_BODY_NONE, 0, true, false, false, 2 } },
	{ "browser GET",
	  "GET /index.html?a=1&b=%20x HTTP/1.1\r\n"
	  "Host: www.example.com:8080\r\n"
	  "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0\r\n"
	  "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n"
	  "Accept-Language: en-US,en;q=0.5\r\n"
	  "Accept-Encoding: gzip, deflate, br, zstd\r\n"
	  "Connection: keep-alive\r\n"
	  "Cookie: session=abc123; theme=dark\r\n"
	  "Upgrade-Insecure-Requests: 1\r\n"
	  "Sec-Fetch-Dest: document\r\n"
	  "If-None-Match: \"5d8-61f2\"\r\n"
	  "Priority: u=0, i\r\n\r\n",
	  { L7_HTTP_M_GET, "GET", "/index.html?a=1&b=%20x", L7_HTTP_T_ORIGIN,
	    1, "www.example.com:8080", L7_HTTP_BODY_NONE, 0, true, false,
	    false, 11 } },
	{ "POST with Content-Length",
	  "POST /cgi-bin/echo HTTP/1.1\r\nHost: h\r\n"
	  "Content-Type: application/octet-stream\r\n"
	  "Content-Length: 65536\r\n\r\n",
	  { L7_HTTP_M_POST, "POST", "/cgi-bin/echo", L7_HTTP_T_ORIGIN, 1, "h",
	    L7_HTTP_BODY_LENGTH, 65536, true, false, false, 3 } },
	{ "curl POST with Expect",
	  "POST /cgi-bin/echo HTTP/1.1\r\nHost: 198.51.100.1\r\n"
	  "User-Agent: curl/7.88.1\r\nAccept: */*\r\n"
	  "Content-Length: 1048576\r\n"
	  "Content-Type: application/x-www-form-urlencoded\r\n"
	  "Expect: 100-continue\r\n\r\n",
	  { L7_HTTP_M_POST, "POST", "/cgi-bin/echo", L7_HTTP_T_ORIGIN, 1,
	    "198.51.100.1", L7_HTTP_BODY_LENGTH, 1048576, true, true, false,
	    6 } },
	{ "chunked PUT, mixed case names and tokens",
	  "PUT /upload HTTP/1.1\r\nhOsT:   h:80  \r\n"
	  "TRANSFER-ENCODING:  gzip ,Chunked\t\r\nExpect: 100-Continue\r\n\r\n",
	  { L7_HTTP_M_PUT, "PUT", "/upload", L7_HTTP_T_ORIGIN, 1, "h:80",
	    L7_HTTP_BODY_CHUNKED, 0, true, true, false, 3 } },
	{ "Transfer-Encoding over two fields",
	  "POST /x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n"
	  "Transfer-Encoding: chunked\r\n\r\n",
	  { L7_HTTP_M_POST, "POST", "/x", L7_HTTP_T_ORIGIN, 1, "h",
	    L7_HTTP_BODY_CHUNKED, 0, true, false, false, 3 } },
	{ "Connection: close",
	  "GET /close/x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
	  { L7_HTTP_M_GET, "GET", "/close/x", L7_HTTP_T_ORIGIN, 1, "h",
	    L7_HTTP_BODY_NONE, 0, false, false, false, 2 } },
	{ "Connection list with upgrade",
	  "GET /ws HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, Upgrade\r\n"
	  "Upgrade: websocket\r\n\r\n",
	  { L7_HTTP_M_GET, "GET", "/ws", L7_HTTP_T_ORIGIN, 1, "h",
	    L7_HTTP_BODY_NONE, 0, true, false, true, 3 } },
	{ "HTTP/1.0 without Host closes",
	  "GET / HTTP/1.0\r\n\r\n",
	  { L7_HTTP_M_GET, "GET", "/", L7_HTTP_T_ORIGIN, 0, NULL,
	    L7_HTTP_BODY_NONE, 0, false, false, false, 0 } },
	{ "HTTP/1.0 keep-alive, Expect ignored",
	  "HEAD /a HTTP/1.0\r\nConnection: Keep-Alive\r\n"
	  "Expect: 100-continue\r\n\r\n",
	  { L7_HTTP_M_HEAD, "HEAD", "/a", L7_HTTP_T_ORIGIN, 0, NULL,
	    L7_HTTP_BODY_NONE, 0, true, false, false, 2 } },
	{ "leading empty lines, absolute-form",
	  "\r\n\r\nGET http://h.example/p?q HTTP/1.1\r\nHost: h.example\r\n\r\n",
	  { L7_HTTP_M_GET, "GET", "http://h.example/p?q", L7_HTTP_T_ABSOLUTE,
	    1, "h.example", L7_HTTP_BODY_NONE, 0, true, false, false, 1 } },
	{ "OPTIONS *",
	  "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
	  { L7_HTTP_M_OPTIONS, "OPTIONS", "*", L7_HTTP_T_ASTERISK, 1, "h",
	    L7_HTTP_BODY_NONE, 0, true, false, false, 1 } },
	{ "unknown method, HTTP/1.9 treated as 1.x",
	  "PROPFIND /dav/ HTTP/1.9\r\nHost: h\r\nDepth: 1\r\n\r\n",
	  { L7_HTTP_M_OTHER, "PROPFIND", "/dav/", L7_HTTP_T_ORIGIN, 9, "h",
	    L7_HTTP_BODY_NONE, 0, true, false, false, 2 } },
	{ "method that is a prefix of a known one",
	  "GE / HTTP/1.1\r\nHost: h\r\n\r\n",
	  { L7_HTTP_M_OTHER, "GE", "/", L7_HTTP_T_ORIGIN, 1, "h",
	    L7_HTTP_BODY_NONE, 0, true, false, false, 1 } },
	{ "empty Host, Content-Length with leading zeros and OWS",
	  "POST / HTTP/1.1\r\nHost:\r\nContent-Length: \t005 \r\n\r\n",
	  { L7_HTTP_M_POST, "POST", "/", L7_HTTP_T_ORIGIN, 1, "",
	    L7_HTTP_BODY_LENGTH, 5, true, false, false, 2 } },
	{ "10 empty lines first (Apache's most)",
	  "\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n"
	  "GET / HTTP/1.1\r\nHost: h\r\n\r\n",
	  { L7_HTTP_M_GET, "GET", "/", L7_HTTP_T_ORIGIN, 1, "h",
	    L7_HTTP_BODY_NONE, 0, true, false, false, 1 } },
	{ "chunked last, OWS after it",
	  "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip,chunked \t\r\n"
	  "X: chunked ,\r\n\r\n",
	  { L7_HTTP_M_POST, "POST", "/", L7_HTTP_T_ORIGIN, 1, "h",
	    L7_HTTP_BODY_CHUNKED, 0, true, false, false, 3 } },
	{ "names that extend known ones are not them",
	  "GET / HTTP/1.1\r\nHost: h\r\nHosts: x y\r\nContent-Lengths: zz\r\n"
	  "Connection-X: close\r\nX-Transfer-Encoding: foo\r\n\r\n",
	  { L7_HTTP_M_GET, "GET", "/", L7_HTTP_T_ORIGIN, 1, "h",
	    L7_HTTP_BODY_NONE, 0, true, false, false, 5 } },
	{ "obs-text and HTAB in other values",
	  "GET / HTTP/1.1\r\nHost: h\r\nX-Name: caf\xc3\xa9\tbar\r\n\r\n",
	  { L7_HTTP_M_GET, "GET", "/", L7_HTTP_T_ORIGIN, 1, "h",
	    L7_HTTP_BODY_NONE, 0, true, false, false, 2 } },
	{ "Content-Length 2^63 - 1 (Apache's most)",
	  "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 9223372036854775807\r\n\r\n",
	  { L7_HTTP_M_POST, "POST", "/", L7_HTTP_T_ORIGIN, 1, "h",
	    L7_HTTP_BODY_LENGTH, 9223372036854775807ull, true, false, false,
	    2 } },
};

struct bad_case {
	const char *name;
	const char *head;
	enum l7_http_err err;
	int status;
	size_t len;	/* 0: strlen(head); set where the head holds a NUL */
};

#define NUL_IN_VALUE "GET / HTTP/1.1\r\nHost: h\r\nX: a\0b\r\n\r\n"

static const struct bad_case bad[] = {
	{ "binary garbage", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
	  L7_HTTP_E_METHOD, 400 },
	{ "leading space", " GET / HTTP/1.1\r\n", L7_HTTP_E_METHOD, 400 },
	{ "bare LF before request", "\nGET / HTTP/1.1\r\n",
	  L7_HTTP_E_LINE_END, 400 },
	{ "double space after method", "GET  / HTTP/1.1\r\n",
	  L7_HTTP_E_TARGET, 400 },
	{ "CONNECT", "CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n",
	  L7_HTTP_E_METHOD_UNSUPPORTED, 501 },
	{ "HTTP/0.9", "GET /\r\n", L7_HTTP_E_VERSION, 400 },
	{ "control byte in target", "GET /a\x01 HTTP/1.1\r\n",
	  L7_HTTP_E_TARGET, 400 },
	{ "non-ASCII target", "GET /caf\xc3\xa9 HTTP/1.1\r\n",
	  L7_HTTP_E_TARGET, 400 },
	{ "fragment in target", "GET /a#b HTTP/1.1\r\n", L7_HTTP_E_TARGET,
	  400 },
	{ "asterisk for GET", "GET * HTTP/1.1\r\n", L7_HTTP_E_TARGET, 400 },
	{ "asterisk with more", "OPTIONS *x HTTP/1.1\r\n", L7_HTTP_E_TARGET,
	  400 },
	{ "scheme without colon", "GET http HTTP/1.1\r\n", L7_HTTP_E_TARGET,
	  400 },
	{ "lower-case version", "GET / http/1.1\r\n", L7_HTTP_E_VERSION, 400 },
	{ "two-digit minor", "GET / HTTP/1.10\r\n", L7_HTTP_E_VERSION, 400 },
	{ "HTTP/2.0", "GET / HTTP/2.0\r\nHost: h\r\n\r\n",
	  L7_HTTP_E_VERSION_UNSUPPORTED, 505 },
	{ "bare LF after request line", "GET / HTTP/1.1\nHost: h\n\n",
	  L7_HTTP_E_VERSION, 400 },
	{ "bare CR in header line", "GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n",
	  L7_HTTP_E_LINE_END, 400 },
	{ "bare LF ending a value", "GET / HTTP/1.1\r\nHost: h\n\r\n",
	  L7_HTTP_E_LINE_END, 400 },
	{ "space before colon", "GET / HTTP/1.1\r\nHost : h\r\n\r\n",
	  L7_HTTP_E_HEADER_NAME, 400 },
	{ "empty header name", "GET / HTTP/1.1\r\n: h\r\n\r\n",
	  L7_HTTP_E_HEADER_NAME, 400 },
	{ "obs-fold", "GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n",
	  L7_HTTP_E_OBS_FOLD, 400 },
	{ "whitespace-led first line", "GET / HTTP/1.1\r\n Host: h\r\n\r\n",
	  L7_HTTP_E_OBS_FOLD, 400 },
	{ "NUL in value", NUL_IN_VALUE, L7_HTTP_E_HEADER_VALUE, 400,
	  sizeof(NUL_IN_VALUE) - 1 },
	{ "missing Host in 1.1", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n",
	  L7_HTTP_E_HOST, 400 },
	{ "two Host fields", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
	  L7_HTTP_E_HOST, 400 },
	{ "space inside Host", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n",
	  L7_HTTP_E_HOST, 400 },
	{ "conflicting Content-Length",
	  "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n"
	  "Content-Length: 6\r\n\r\n", L7_HTTP_E_CONTENT_LENGTH, 400 },
	{ "conflicting Content-Length list",
	  "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5,6\r\n\r\n",
	  L7_HTTP_E_CONTENT_LENGTH, 400 },
	{ "signed Content-Length",
	  "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +5\r\n\r\n",
	  L7_HTTP_E_CONTENT_LENGTH, 400 },
	{ "split Content-Length digits",
	  "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1 2\r\n\r\n",
	  L7_HTTP_E_CONTENT_LENGTH, 400 },
	{ "empty Content-Length",
	  "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: \r\n\r\n",
	  L7_HTTP_E_CONTENT_LENGTH, 400 },
	{ "trailing comma in Content-Length",
	  "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5,\r\n\r\n",
	  L7_HTTP_E_CONTENT_LENGTH, 400 },
	{ "Content-Length overflow",
	  "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 18446744073709551616\r\n\r\n",
	  L7_HTTP_E_CONTENT_LENGTH, 400 },
	{ "Content-Length 2^63 (Apache's off_t)",
	  "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 9223372036854775808\r\n\r\n",
	  L7_HTTP_E_CONTENT_LENGTH, 400 },
	{ "repeated equal Content-Length (Apache: a list)",
	  "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n"
	  "content-length: 5\r\n\r\n", L7_HTTP_E_CONTENT_LENGTH, 400 },
	{ "equal Content-Length list",
	  "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 5\r\n\r\n",
	  L7_HTTP_E_CONTENT_LENGTH, 400 },
	{ "11 empty lines first",
	  "\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n"
	  "GET / HTTP/1.1\r\nHost: h\r\n\r\n", L7_HTTP_E_BLANK_LINES, 400 },
	{ "TE and CL",
	  "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n"
	  "Transfer-Encoding: chunked\r\n\r\n", L7_HTTP_E_TE_AND_CL, 400 },
	{ "chunked not last",
	  "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
	  L7_HTTP_E_TRANSFER_ENCODING, 400 },
	{ "chunked twice",
	  "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n"
	  "Transfer-Encoding: chunked\r\n\r\n",
	  L7_HTTP_E_TRANSFER_ENCODING, 400 },
	{ "comma after chunked",
	  "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked ,\r\n\r\n",
	  L7_HTTP_E_TRANSFER_ENCODING, 400 },
	{ "comma right after chunked",
	  "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked,\r\n\r\n",
	  L7_HTTP_E_TRANSFER_ENCODING, 400 },
	{ "empty Transfer-Encoding after chunked (Apache: \"chunked, \")",
	  "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n"
	  "Transfer-Encoding:\r\n\r\n", L7_HTTP_E_TRANSFER_ENCODING, 400 },
	{ "chunked with parameter",
	  "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked;x=1\r\n\r\n",
	  L7_HTTP_E_TRANSFER_ENCODING, 400 },
	{ "quoted coding parameter",
	  "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: foo;x=\"a,chunked\"\r\n\r\n",
	  L7_HTTP_E_TRANSFER_ENCODING, 400 },
	{ "codings without comma",
	  "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip chunked\r\n\r\n",
	  L7_HTTP_E_TRANSFER_ENCODING, 400 },
	{ "empty Transfer-Encoding",
	  "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding:\r\n\r\n",
	  L7_HTTP_E_TRANSFER_ENCODING, 400 },
	{ "chunked in HTTP/1.0",
	  "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
	  L7_HTTP_E_TRANSFER_ENCODING, 400 },
	{ "Transfer-Encoding: xchunked",
	  "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: xchunked\r\n\r\n",
	  L7_HTTP_E_TRANSFER_ENCODING, 400 },
	{ "unknown expectation",
	  "GET / HTTP/1.1\r\nHost: h\r\nExpect: 200-ok\r\n\r\n",
	  L7_HTTP_E_EXPECT, 417 },
	{ "bad byte in Connection",
	  "GET / HTTP/1.1\r\nHost: h\r\nConnection: close;x\r\n\r\n",
	  L7_HTTP_E_HEADER_VALUE, 400 },
	{ "tokens without comma in Connection",
	  "GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive close\r\n\r\n",
	  L7_HTTP_E_HEADER_VALUE, 400 },
};

static const char *span_str(const char *head, struct l7_http_span s,
			    char *buf, size_t n)
{
	size_t len = s.len < n - 1 ? s.len : n - 1;

	memcpy(buf, head + s.off, len);
	buf[len] = '\0';
	return buf;
}

/*
 * Feed @len bytes of @data cut at the @ncuts sorted offsets in @cuts.
 * Returns the final status; *consumed is the total of *used.
 */
static enum l7_http_status feed_split(struct l7_http_req *r,
				      const uint8_t *data, size_t len,
				      const size_t *cuts, int ncuts,
				      size_t *consumed)
{
	enum l7_http_status st = L7_HTTP_MORE;
	size_t from = 0;
	int i;

	*consumed = 0;
	for (i = 0; i <= ncuts && st == L7_HTTP_MORE; i++) {
		size_t to = i < ncuts ? cuts[i] : len;
		size_t used;

		st = l7_http_req_feed(r, data + from, to - from, &used);
		*consumed += used;
		from = to;
	}
	return st;
}

static void check_good(const struct good_case *g, const struct l7_http_req *r,
		       enum l7_http_status st, size_t consumed, size_t head_len,
		       const char *how)
{
	const struct expect *e = &g->e;
	char buf[256];

	CHECK(st == L7_HTTP_DONE, "%s [%s]: status %d err %s at %u", g->name,
	      how, st, err_name(r->err), r->err_off);
	if (st != L7_HTTP_DONE)
		return;
	CHECK(consumed == head_len && r->head_len == head_len,
	      "%s [%s]: consumed %zu head_len %u want %zu", g->name, how,
	      consumed, r->head_len, head_len);
	CHECK(r->method == e->method, "%s: method %d", g->name, r->method);
	CHECK(!strcmp(span_str(g->head, r->method_span, buf, sizeof(buf)),
		      e->method_str), "%s: method '%s'", g->name, buf);
	CHECK(!strcmp(span_str(g->head, r->target, buf, sizeof(buf)),
		      e->target), "%s [%s]: target '%s'", g->name, how, buf);
	CHECK(r->target_form == e->form, "%s: form %d", g->name,
	      r->target_form);
	CHECK(r->version_major == 1 && r->version_minor == e->minor,
	      "%s: version %d.%d", g->name, r->version_major,
	      r->version_minor);
	CHECK(r->has_host == (e->host != NULL), "%s: has_host", g->name);
	if (e->host)
		CHECK(!strcmp(span_str(g->head, r->host, buf, sizeof(buf)),
			      e->host), "%s [%s]: host '%s'", g->name, how,
		      buf);
	CHECK(r->body == e->body, "%s: body %d", g->name, r->body);
	if (e->body == L7_HTTP_BODY_LENGTH)
		CHECK(r->content_length == e->content_length,
		      "%s: content_length %llu", g->name,
		      (unsigned long long)r->content_length);
	CHECK(r->keep_alive == e->keep_alive, "%s: keep_alive", g->name);
	CHECK(r->expect_continue == e->expect_continue, "%s: expect",
	      g->name);
	CHECK(r->upgrade == e->upgrade, "%s: upgrade", g->name);
	CHECK(r->header_count == e->headers, "%s: headers %d", g->name,
	      r->header_count);
}

/* Head + trailing bytes that are not part of it. */
static uint8_t *with_tail(const char *head, size_t head_len, size_t *len)
{
	static const char tail[] = "BODY-OR-NEXT-REQUEST";
	uint8_t *buf = malloc(head_len + sizeof(tail));

	memcpy(buf, head, head_len);
	memcpy(buf + head_len, tail, sizeof(tail) - 1);
	*len = head_len + sizeof(tail) - 1;
	return buf;
}

static void test_good_whole_and_every_split(void)
{
	size_t i, a, b;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		const struct good_case *g = &good[i];
		size_t head_len = strlen(g->head), len, consumed;
		uint8_t *data = with_tail(g->head, head_len, &len);
		struct l7_http_req r;
		enum l7_http_status st;
		size_t cuts[2];

		l7_http_req_init(&r, NULL);
		st = feed_split(&r, data, len, NULL, 0, &consumed);
		check_good(g, &r, st, consumed, head_len, "whole");

		for (a = 0; a <= len; a++) {
			cuts[0] = a;
			l7_http_req_init(&r, NULL);
			st = feed_split(&r, data, len, cuts, 1, &consumed);
			check_good(g, &r, st, consumed, head_len, "split1");
		}
		/* every pair of cut points within the head */
		for (a = 0; a <= head_len; a++) {
			for (b = a; b <= head_len; b++) {
				cuts[0] = a;
				cuts[1] = b;
				l7_http_req_init(&r, NULL);
				st = feed_split(&r, data, len, cuts, 2,
						&consumed);
				if (st != L7_HTTP_DONE ||
				    r.head_len != head_len)
					check_good(g, &r, st, consumed,
						   head_len, "split2");
			}
		}
		free(data);
	}
}

static void test_good_byte_at_a_time(void)
{
	size_t i, k;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		const struct good_case *g = &good[i];
		size_t head_len = strlen(g->head), len, consumed = 0, used;
		uint8_t *data = with_tail(g->head, head_len, &len);
		enum l7_http_status st = L7_HTTP_MORE;
		struct l7_http_req r;

		l7_http_req_init(&r, NULL);
		for (k = 0; k < len && st == L7_HTTP_MORE; k++) {
			st = l7_http_req_feed(&r, data + k, 1, &used);
			consumed += used;
		}
		check_good(g, &r, st, consumed, head_len, "bytewise");
		/* once done, the framer takes nothing more */
		st = l7_http_req_feed(&r, data, len, &used);
		CHECK(st == L7_HTTP_DONE && used == 0, "%s: feed after done",
		      g->name);
		free(data);
	}
}

static void test_bad_every_split(void)
{
	size_t i, a;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct bad_case *b = &bad[i];
		size_t len = b->len ? b->len : strlen(b->head);
		struct l7_http_req r;
		enum l7_http_status st;
		size_t consumed, cut;
		uint32_t err_off;

		l7_http_req_init(&r, NULL);
		st = feed_split(&r, (const uint8_t *)b->head, len, NULL, 0,
				&consumed);
		CHECK(st == L7_HTTP_ERROR && r.err == b->err,
		      "%s: status %d err '%s' want '%s'", b->name, st,
		      err_name(r.err), err_name(b->err));
		CHECK(l7_http_err_status(r.err) == b->status,
		      "%s: status code %d", b->name,
		      l7_http_err_status(r.err));
		CHECK(consumed == (size_t)r.err_off + 1,
		      "%s: consumed %zu err_off %u", b->name, consumed,
		      r.err_off);
		err_off = r.err_off;

		for (a = 0; a <= len; a++) {
			cut = a;
			l7_http_req_init(&r, NULL);
			st = feed_split(&r, (const uint8_t *)b->head, len, &cut,
					1, &consumed);
			CHECK(st == L7_HTTP_ERROR && r.err == b->err &&
			      r.err_off == err_off,
			      "%s: split at %zu: status %d err '%s' at %u",
			      b->name, a, st, err_name(r.err),
			      r.err_off);
		}
		/* the framer stays failed */
		st = l7_http_req_feed(&r, (const uint8_t *)"GET", 3, &consumed);
		CHECK(st == L7_HTTP_ERROR && consumed == 0, "%s: sticky",
		      b->name);
	}
}

/* A head of exactly max_head bytes passes; one byte more is a 431. */
static void test_head_size_limit(void)
{
	struct l7_http_limits lim = { .max_head = 200, .max_headers = 100 };
	char head[512];
	struct l7_http_req r;
	enum l7_http_status st;
	size_t used, pad;
	int n;

	for (pad = 0; pad < 2; pad++) {
		n = snprintf(head, sizeof(head),
			     "GET / HTTP/1.1\r\nHost: h\r\nX: %0*d\r\n\r\n",
			     (int)(200 - 32 + pad), 7);
		CHECK(n == (int)(200 + pad), "built %d bytes", n);
		l7_http_req_init(&r, &lim);
		st = l7_http_req_feed(&r, (const uint8_t *)head, n, &used);
		if (pad == 0) {
			CHECK(st == L7_HTTP_DONE && r.head_len == 200,
			      "exact limit: status %d err %s", st,
			      err_name(r.err));
		} else {
			CHECK(st == L7_HTTP_ERROR &&
			      r.err == L7_HTTP_E_HEAD_TOO_LARGE &&
			      l7_http_err_status(r.err) == 431 && used == 200,
			      "over limit: status %d err %s used %zu", st,
			      err_name(r.err), used);
		}
	}

	/* an endless header line is cut off at the limit, not later */
	l7_http_req_init(&r, NULL);
	memset(head, 'a', sizeof(head));
	memcpy(head, "GET / HTTP/1.1\r\nX: ", 19);
	st = l7_http_req_feed(&r, (const uint8_t *)head, sizeof(head), &used);
	for (n = 0; n < 100 && st == L7_HTTP_MORE; n++) {
		memset(head, 'a', sizeof(head));
		st = l7_http_req_feed(&r, (const uint8_t *)head, sizeof(head),
				      &used);
	}
	CHECK(st == L7_HTTP_ERROR && r.err == L7_HTTP_E_HEAD_TOO_LARGE &&
	      r.err_off == L7_HTTP_DEFAULT_MAX_HEAD,
	      "endless line: status %d err %s at %u", st,
	      err_name(r.err), r.err_off);
}

static void test_header_count_limit(void)
{
	struct l7_http_limits lim = { .max_head = 8192, .max_headers = 3 };
	static const char three[] =
		"GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\n\r\n";
	static const char four[] =
		"GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n";
	struct l7_http_req r;
	enum l7_http_status st;
	size_t used;

	l7_http_req_init(&r, &lim);
	st = l7_http_req_feed(&r, (const uint8_t *)three, sizeof(three) - 1,
			      &used);
	CHECK(st == L7_HTTP_DONE && r.header_count == 3, "three headers");

	l7_http_req_init(&r, &lim);
	st = l7_http_req_feed(&r, (const uint8_t *)four, sizeof(four) - 1,
			      &used);
	CHECK(st == L7_HTTP_ERROR && r.err == L7_HTTP_E_TOO_MANY_HEADERS &&
	      l7_http_err_status(r.err) == 431, "four headers: %s",
	      err_name(r.err));
}

/* Two pipelined requests in one buffer: the framer stops at the first. */
static void test_pipelined_pair(void)
{
#define FIRST "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"
	static const char two[] =
		FIRST "GET /bb HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n";
	const size_t first = sizeof(FIRST) - 1;
	const uint8_t *p = (const uint8_t *)two;
	size_t len = sizeof(two) - 1, used;
	struct l7_http_req r;
	enum l7_http_status st;
	char buf[16];

	l7_http_req_init(&r, NULL);
	st = l7_http_req_feed(&r, p, len, &used);
	CHECK(st == L7_HTTP_DONE && used == first, "first: used %zu", used);
	CHECK(!strcmp(span_str(two, r.target, buf, sizeof(buf)), "/a"),
	      "first target");

	l7_http_req_init(&r, NULL);
	st = l7_http_req_feed(&r, p + used, len - used, &used);
	CHECK(st == L7_HTTP_DONE && used == len - first && !r.keep_alive,
	      "second: used %zu", used);
	CHECK(!strcmp(span_str(two + first, r.target, buf, sizeof(buf)), "/bb"),
	      "second target");
}

static void test_method_idempotent(void)
{
	CHECK(l7_http_method_idempotent(L7_HTTP_M_GET) &&
	      l7_http_method_idempotent(L7_HTTP_M_PUT) &&
	      !l7_http_method_idempotent(L7_HTTP_M_POST) &&
	      !l7_http_method_idempotent(L7_HTTP_M_PATCH) &&
	      !l7_http_method_idempotent(L7_HTTP_M_OTHER), "idempotency");
}

/*
 * The target is taken eight bytes at a time: every byte value, at every
 * place of a long target, must end or fail it exactly where a byte-at-a-
 * time reading would (a space ends it; CR or LF is an HTTP/0.9 request;
 * another control byte, DEL, a non-ASCII byte or '#' fails it there).
 */
static void test_target_every_byte(void)
{
	char head[64];
	size_t pos, used, len;
	int c;

	for (pos = 5; pos < 5 + 20; pos++) {
		for (c = 0; c < 256; c++) {
			struct l7_http_req r;
			enum l7_http_status st;
			bool ok = c > 0x20 && c < 0x7f && c != '#';

			len = (size_t)snprintf(head, sizeof(head),
					       "GET /%s HTTP/1.1\r\n",
					       "abcdefghijklmnopqrstuvwxyz");
			head[pos] = (char)c;
			l7_http_req_init(&r, NULL);
			st = l7_http_req_feed(&r, (const uint8_t *)head, len,
					      &used);
			if (ok) {
				CHECK(st == L7_HTTP_MORE &&
				      r.target.len == 27,
				      "byte %zu = 0x%02x: status %d", pos, c,
				      st);
			} else if (c == ' ') {
				/* the target ends there: the rest is no version */
				CHECK(r.target.len == pos - 4 &&
				      r.err == L7_HTTP_E_VERSION,
				      "space at %zu: len %u err %d", pos,
				      r.target.len, r.err);
			} else {
				CHECK(st == L7_HTTP_ERROR &&
				      r.err == (c == '\r' || c == '\n' ?
						L7_HTTP_E_VERSION :
						L7_HTTP_E_TARGET) &&
				      r.err_off == pos,
				      "byte %zu = 0x%02x: status %d err %d at %u",
				      pos, c, st, r.err, r.err_off);
			}
		}
	}
}

int main(void)
{
	RUN(test_good_whole_and_every_split);
	RUN(test_good_byte_at_a_time);
	RUN(test_bad_every_split);
	RUN(test_head_size_limit);
	RUN(test_header_count_limit);
	RUN(test_pipelined_pair);
	RUN(test_method_idempotent);
	RUN(test_target_every_byte);
	return l7_test_summary("http_req");
}
