// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/http_reply.c: every canned response is a
 * complete, correctly framed HTTP/1.1 response, as the response framer
 * reads it, with the status asked for and Connection: close.
 */
#include <string.h>

#include "http_reply.h"
#include "http_resp.h"
#include "l7_test.h"

static void test_every_reply_frames(void)
{
	static const int codes[] = { 400, 403, 404, 408, 417, 431, 501, 502, 503, 505 };
	unsigned int i;

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		struct l7_http_resp r;
		enum l7_resp_status st;
		const char *text;
		uint32_t len;
		size_t used, total = 0;

		text = l7_http_reply(codes[i], &len);
		CHECK(len == strlen(text) && len <= 536, "%d: len %u",
		      codes[i], len);
		l7_http_resp_init(&r, NULL, L7_HTTP_M_GET);
		do {
			st = l7_http_resp_feed(&r, (const uint8_t *)text + total,
					       len - total, &used);
			total += used;
		} while (st == L7_RESP_HEAD);
		CHECK(st == L7_RESP_DONE && total == len,
		      "%d: status %d, framed %zu of %u", codes[i], st, total,
		      len);
		CHECK(r.status_code == codes[i] && !r.keep_alive, "%d: got %d",
		      codes[i], r.status_code);
	}
}

static void test_unknown_status_is_400(void)
{
	uint32_t len;

	CHECK(!strncmp(l7_http_reply(299, &len), "HTTP/1.1 400 ", 13),
	      "fallback");
}

int main(void)
{
	RUN(test_every_reply_frames);
	RUN(test_unknown_status_is_400);
	return l7_test_summary("http_reply");
}
