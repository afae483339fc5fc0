// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: canned director responses.  Each fits one segment at
 * the smallest MSS a client may announce (536 bytes); the unit tests
 * frame every one with the response framer, so a wrong Content-Length
 * cannot slip in.
 */
#include "http_reply.h"

#define L7_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct l7_reply {
	int status;
	const char *text;
};

static const struct l7_reply replies[] = {
	{ 400, "HTTP/1.1 400 Bad Request\r\n"
		"Content-Type: text/plain\r\n"
		"Content-Length: 12\r\n"
		"Connection: close\r\n\r\n"
		"bad request\n" },
	{ 403, "HTTP/1.1 403 Forbidden\r\n"
		"Content-Type: text/plain\r\n"
		"Content-Length: 10\r\n"
		"Connection: close\r\n\r\n"
		"forbidden\n" },
	{ 404, "HTTP/1.1 404 Not Found\r\n"
		"Content-Type: text/plain\r\n"
		"Content-Length: 10\r\n"
		"Connection: close\r\n\r\n"
		"not found\n" },
	{ 408, "HTTP/1.1 408 Request Timeout\r\n"
		"Content-Type: text/plain\r\n"
		"Content-Length: 16\r\n"
		"Connection: close\r\n\r\n"
		"request timeout\n" },
	{ 417, "HTTP/1.1 417 Expectation Failed\r\n"
		"Content-Type: text/plain\r\n"
		"Content-Length: 19\r\n"
		"Connection: close\r\n\r\n"
		"expectation failed\n" },
	{ 431, "HTTP/1.1 431 Request Header Fields Too Large\r\n"
		"Content-Type: text/plain\r\n"
		"Content-Length: 32\r\n"
		"Connection: close\r\n\r\n"
		"request header fields too large\n" },
	{ 501, "HTTP/1.1 501 Not Implemented\r\n"
		"Content-Type: text/plain\r\n"
		"Content-Length: 16\r\n"
		"Connection: close\r\n\r\n"
		"not implemented\n" },
	{ 502, "HTTP/1.1 502 Bad Gateway\r\n"
		"Content-Type: text/plain\r\n"
		"Content-Length: 32\r\n"
		"Connection: close\r\n\r\n"
		"real server closed, no response\n" },
	{ 503, "HTTP/1.1 503 Service Unavailable\r\n"
		"Content-Type: text/plain\r\n"
		"Content-Length: 25\r\n"
		"Connection: close\r\n\r\n"
		"no real server available\n" },
	{ 505, "HTTP/1.1 505 HTTP Version Not Supported\r\n"
		"Content-Type: text/plain\r\n"
		"Content-Length: 27\r\n"
		"Connection: close\r\n\r\n"
		"HTTP version not supported\n" },
};

static uint32_t str_len(const char *s)
{
	uint32_t n = 0;

	while (s[n])
		n++;
	return n;
}

const char *l7_http_reply(int status, uint32_t *len)
{
	unsigned int i;

	for (i = 0; i < L7_ARRAY_SIZE(replies); i++) {
		if (replies[i].status == status) {
			*len = str_len(replies[i].text);
			return replies[i].text;
		}
	}
	*len = str_len(replies[0].text);
	return replies[0].text;
}
