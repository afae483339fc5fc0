// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: the director's copy of a response head (see rsp_head.h).
 *
 * The head was framed to its end, so it is well formed: CRLF line ends,
 * a name and ':' on every field line, no folding (the framer refuses
 * obs-fold).  The copy walks it line by line; no line is cut or merged.
 */

#include "rsp_head.h"
#include "http_field.h"

static const char keep_alive_field[] = "Connection: keep-alive\r\n";
static const char close_field[] = "Connection: close\r\n";

bool l7_rsp_head_keeps_client(const struct l7_http_resp *r, bool close)
{
	if (r->body == L7_RESP_BODY_CLOSE)
		return true;
	return close ? !r->keep_alive : r->conn_keep_alive;
}

/* A field line about the pooled connection: left out of the copy. */
static bool line_dropped(const uint8_t *p, uint32_t len)
{
	uint32_t n = l7_line_name_len(p, len);

	if (n == len)
		return false;
	return l7_name_is(p, n, "connection") ||
	       l7_name_is(p, n, "keep-alive");
}

static uint32_t put(uint8_t *out, uint32_t at, const uint8_t *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		out[at + i] = p[i];
	return at + n;
}

uint32_t l7_rsp_head_copy(uint8_t *out, const uint8_t *head, uint32_t len,
			  const struct l7_http_resp *r, bool close)
{
	uint32_t i = (uint32_t)r->start, end, at, fields = 0;
	bool first = true;

	if (l7_rsp_head_keeps_client(r, close) || r->start + r->head_len != len ||
	    r->head_len < 4)
		return put(out, 0, head, len);
	/* interim heads as they came */
	at = put(out, 0, head, i);
	end = len - 2;	/* the final CRLF */
	while (i < end) {
		uint32_t from = i;

		while (i < end && head[i] != '\n')
			i++;
		if (i < end)
			i++;
		/* the status line is never a field line */
		if (first || !line_dropped(head + from, i - from)) {
			at = put(out, at, head + from, i - from);
			fields += !first;
		}
		first = false;
	}
	/*
	 * The copy's own field must fit the limit the server's head was
	 * framed by, or a client with the same limit refuses the copy.
	 */
	if (fields >= r->lim.max_headers)
		return 0;
	if (close)
		at = put(out, at, (const uint8_t *)close_field,
			 sizeof(close_field) - 1);
	else
		at = put(out, at, (const uint8_t *)keep_alive_field,
			 sizeof(keep_alive_field) - 1);
	return put(out, at, (const uint8_t *)"\r\n", 2);
}
