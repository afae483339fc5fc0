// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/head_copy.c: the director's copy of a request
 * head carries the client's address and never asks or leads the server
 * to close, and frames exactly as the client's head does.
 */
#define _GNU_SOURCE	/* strcasestr() */
#include <stdio.h>
#include <string.h>

#include "head_copy.h"
#include "l7_test.h"

static struct l7_http_req req;
static uint8_t out[8192 + L7_COPY_GROWTH];
static char text[8192 + L7_COPY_GROWTH + 1];

static bool frame(const char *head, struct l7_http_req *r)
{
	size_t used;

	l7_http_req_init(r, NULL);
	return l7_http_req_feed(r, (const uint8_t *)head, strlen(head),
				&used) == L7_HTTP_DONE &&
	       used == strlen(head);
}

/* The copy of @head with @o, as a string; NULL if @head is not a head. */
static const char *copy(const char *head, const struct l7_copy_opts *o)
{
	uint32_t n;

	if (!frame(head, &req))
		return NULL;
	n = l7_head_copy(out, (const uint8_t *)head, &req, o);
	memcpy(text, out, n);
	text[n] = 0;
	return text;
}

static const struct l7_copy_opts xff = {
	.fwd = L7_FWD_XFF, .client = "192.0.2.7", .client_len = 9,
	.keep_alive = true,
};

static void xff_appended(void)
{
	const char *c = copy("GET / HTTP/1.1\r\nHost: a\r\n\r\n", &xff);

	CHECK(c && !strcmp(c, "GET / HTTP/1.1\r\nHost: a\r\n"
			      "X-Forwarded-For: 192.0.2.7\r\n\r\n"), "%s", c);
	/* after the client's own, which stays */
	c = copy("GET / HTTP/1.1\r\nX-Forwarded-For: 10.0.0.1\r\nHost: a\r\n\r\n",
		 &xff);
	CHECK(c && !strcmp(c, "GET / HTTP/1.1\r\nX-Forwarded-For: 10.0.0.1\r\n"
			      "Host: a\r\nX-Forwarded-For: 192.0.2.7\r\n\r\n"),
	      "%s", c);
}

static void xff_replaced(void)
{
	struct l7_copy_opts o = xff;
	const char *c;

	o.fwd = L7_FWD_XFF_REPLACE;
	c = copy("GET / HTTP/1.1\r\nx-forwarded-FOR: 6.6.6.6\r\nHost: a\r\n"
		 "X-Forwarded-For:1.1.1.1, 2.2.2.2\r\n\r\n", &o);
	CHECK(c && !strcmp(c, "GET / HTTP/1.1\r\nHost: a\r\n"
			      "X-Forwarded-For: 192.0.2.7\r\n\r\n"), "%s", c);
	/* a look-alike name stays */
	c = copy("GET / HTTP/1.1\r\nX-Forwarded-Forx: 1\r\nHost: a\r\n\r\n", &o);
	CHECK(c && strstr(c, "X-Forwarded-Forx: 1\r\n"), "%s", c);
}

static void forwarded_v6(void)
{
	struct l7_copy_opts o = {
		.fwd = L7_FWD_FORWARDED, .client = "2001:db8::5",
		.client_len = 11, .client_v6 = true,
	};
	const char *c = copy("GET / HTTP/1.1\r\nHost: a\r\n\r\n", &o);

	CHECK(c && strstr(c, "\r\nForwarded: for=\"[2001:db8::5]\"\r\n\r\n"),
	      "%s", c);
}

/* The server keeps the pooled connection; the client's wish is ours. */
static void never_asks_to_close(void)
{
	struct l7_copy_opts o = { .keep_alive = true };
	struct l7_http_req again;
	const char *c;

	c = copy("GET / HTTP/1.1\r\nConnection: close\r\nHost: a\r\n\r\n", &o);
	CHECK(c && !strcmp(c, "GET / HTTP/1.1\r\nHost: a\r\n\r\n"), "%s", c);
	CHECK(!req.keep_alive && frame(c, &again) && again.keep_alive,
	      "keep-alive in the copy");
	/* HTTP/1.0 asks for it */
	c = copy("GET / HTTP/1.0\r\n\r\n", &o);
	CHECK(c && !strcmp(c, "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"),
	      "%s", c);
	CHECK(frame(c, &again) && again.keep_alive, "1.0 keep-alive");
	c = copy("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", &o);
	CHECK(c && !strcmp(c, "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"),
	      "once: %s", c);
	/* other tokens (an upgrade, hop-by-hop names) stay, without close */
	c = copy("GET / HTTP/1.1\r\nConnection: close, upgrade\r\n"
		 "Upgrade: websocket\r\nHost: a\r\n\r\n", &o);
	CHECK(c && strstr(c, "\r\nConnection: upgrade\r\nUpgrade"), "%s", c);
	CHECK(frame(c, &again) && again.upgrade && again.keep_alive,
	      "upgrade kept");
	/* a field without close or keep-alive: byte for byte */
	c = copy("GET / HTTP/1.1\r\nConnection: ,upgrade ,\t\r\n"
		 "Upgrade: websocket\r\nHost: a\r\n\r\n", &o);
	CHECK(c && strstr(c, "\r\nConnection: ,upgrade ,\t\r\n"), "%s", c);
	/* off: byte for byte */
	o.keep_alive = false;
	c = copy("GET / HTTP/1.1\r\nConnection: close\r\nHost: a\r\n\r\n", &o);
	CHECK(c && !strcmp(c, "GET / HTTP/1.1\r\nConnection: close\r\n"
			      "Host: a\r\n\r\n"), "%s", c);
}

/*
 * Apache closes on "close" among other tokens too: the copy keeps the
 * others and their separators, and the client still gets its close.
 */
static void close_among_other_tokens(void)
{
	static const struct {
		const char *field, *copied;	/* NULL: left out */
	} cases[] = {
		{ "Connection: close, x", "Connection: x" },
		{ "Connection: x, close", "Connection: x" },
		{ "Connection:close,x", "Connection:x" },
		{ "connection: a,  CLOSE,b\t", "connection: a,  b" },
		{ "Connection: keep-alive, close , te,close ", "Connection: te" },
		{ "Connection: ,close, ,keep-alive,", NULL },
	};
	struct l7_copy_opts o = { .keep_alive = true };
	struct l7_http_req again;
	char head[128], want[128];
	const char *c;
	size_t i;

	for (i = 0; i < L7_ARRAY_SIZE(cases); i++) {
		snprintf(head, sizeof(head),
			 "GET / HTTP/1.1\r\nHost: a\r\n%s\r\nX: y\r\n\r\n",
			 cases[i].field);
		snprintf(want, sizeof(want),
			 "GET / HTTP/1.1\r\nHost: a\r\n%s%sX: y\r\n\r\n",
			 cases[i].copied ?: "", cases[i].copied ? "\r\n" : "");
		c = copy(head, &o);
		CHECK(c && !strcmp(c, want), "%s: copy %s", cases[i].field, c);
		CHECK(!req.keep_alive && frame(c, &again) && again.keep_alive,
		      "%s: the client closes, the server keeps it",
		      cases[i].field);
	}
}

/*
 * Apache closes after a request that left it expecting to send a 100:
 * one without a body, or any HTTP/1.0 request.  Their Expect fields stay
 * out of the copy; one a body follows is the server's to answer.
 */
static void expect_only_with_a_body(void)
{
	static const struct {
		const char *head;
		bool kept;
	} cases[] = {
		{ "GET / HTTP/1.1\r\nExpect: 100-continue\r\nHost: a\r\n\r\n",
		  false },
		{ "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n"
		  "expect:100-Continue\r\n\r\n", false },
		{ "POST / HTTP/1.0\r\nContent-Length: 5\r\n"
		  "Expect: 100-continue\r\n\r\n", false },
		{ "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n"
		  "Expect: 100-continue\r\n\r\n", true },
		{ "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n"
		  "Expect: 100-continue\r\n\r\n", true },
	};
	struct l7_copy_opts o = { .keep_alive = true };
	struct l7_http_req again;
	const char *c;
	size_t i;

	for (i = 0; i < L7_ARRAY_SIZE(cases); i++) {
		c = copy(cases[i].head, &o);
		CHECK(c && frame(c, &again) && again.body == req.body &&
		      again.content_length == req.content_length,
		      "case %zu: %s", i, c);
		CHECK(!strcasestr(c, "\r\nExpect:") == !cases[i].kept,
		      "case %zu: %s", i, c);
		CHECK(again.expect_continue == (cases[i].kept &&
						req.expect_continue),
		      "case %zu: expect_continue %d", i, again.expect_continue);
	}
	/* off: byte for byte */
	o.keep_alive = false;
	c = copy(cases[0].head, &o);
	CHECK(c && !strcmp(c, cases[0].head), "%s", c);
}

/* Framing fields are copied as they are, and frame the same. */
static void framing_unchanged(void)
{
	struct l7_http_req again;
	const char *c;

	c = copy("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\n"
		 "Connection: close\r\n\r\n", &xff);
	CHECK(c && frame(c, &again), "%s", c);
	CHECK(again.body == L7_HTTP_BODY_LENGTH && again.content_length == 12 &&
	      again.method == L7_HTTP_M_POST, "body %d len %llu", again.body,
	      (unsigned long long)again.content_length);
	c = copy("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\nHost: a\r\n\r\n",
		 &xff);
	CHECK(c && frame(c, &again) && again.body == L7_HTTP_BODY_CHUNKED,
	      "%s", c);
}

int main(void)
{
	RUN(xff_appended);
	RUN(xff_replaced);
	RUN(forwarded_v6);
	RUN(never_asks_to_close);
	RUN(close_among_other_tokens);
	RUN(expect_only_with_a_body);
	RUN(framing_unchanged);
	return l7_test_summary("head_copy");
}
