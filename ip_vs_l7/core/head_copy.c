// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: the director's copy of a request head (see head_copy.h).
 *
 * The head was framed to DONE, so it is well formed: CRLF line ends, a
 * name and ':' on every field line, no folding.  The copy walks it line
 * by line; no line is ever cut or merged.
 */

#include "head_copy.h"
#include "http_field.h"

struct line {
	uint32_t off;	/* first byte */
	uint32_t len;	/* bytes, CRLF included */
};

static uint32_t put(uint8_t *out, uint32_t at, const char *s, uint32_t n)
{
	__builtin_memcpy(out + at, s, n);	/* no libc here */
	return at + n;
}

/*
 * Whether the server would keep to itself an Expect field of @req:
 * Apache clears its "expecting 100" only when it starts reading a body,
 * and closes the connection after a response to a request that still
 * expects one - one without a body, or any HTTP/1.0 request (whose
 * client cannot take a 100, RFC 9110 10.1.1).
 */
static bool expect_left_pending(const struct l7_http_req *req)
{
	return req->version_minor == 0 || req->body == L7_HTTP_BODY_NONE ||
	       (req->body == L7_HTTP_BODY_LENGTH && !req->content_length);
}

/* Whether the field line @l of @head stays out of the copy. */
static bool line_dropped(const uint8_t *head, struct line l,
			 const struct l7_http_req *req,
			 const struct l7_copy_opts *o)
{
	const uint8_t *p = head + l.off;
	uint32_t n = l7_line_name_len(p, l.len);

	if (n + 3 > l.len)
		return false;	/* not a field line: the framer saw to that */
	if (o->fwd == L7_FWD_XFF_REPLACE && l7_name_is(p, n, "x-forwarded-for"))
		return true;
	return o->keep_alive && l7_name_is(p, n, "expect") &&
	       expect_left_pending(req);
}

/* A Connection token that says how long the connection lasts. */
static bool persistence_token(const uint8_t *t, uint32_t len)
{
	return l7_name_is(t, len, "close") || l7_name_is(t, len, "keep-alive");
}

/*
 * The Connection field line @p (@len bytes, the name @n of them) at @at,
 * for a copy that keeps the connection: without its "close" and
 * "keep-alive" tokens (Apache closes on "close, x" as on "close"), and
 * left out if no other token is left.  The other tokens, and the
 * separators after each but the last, stay as they were; the framer saw
 * to it that the value is tokens, OWS and commas.
 */
static uint32_t put_connection(uint8_t *out, uint32_t at, const uint8_t *p,
			       uint32_t n, uint32_t len)
{
	const uint8_t *v = p + n + 1;
	uint32_t vlen = len - n - 3, i = 0, start = at, end = 0;
	bool dropped = false;

	while (i < vlen && !l7_is_tchar(v[i]))
		i++;
	at = put(out, at, (const char *)p, n + 1 + i);	/* name ':' OWS */
	while (i < vlen) {
		uint32_t tok = i, sep;

		while (i < vlen && l7_is_tchar(v[i]))
			i++;
		sep = i;
		while (i < vlen && !l7_is_tchar(v[i]))
			i++;
		if (persistence_token(v + tok, sep - tok)) {
			dropped = true;
			continue;
		}
		end = put(out, at, (const char *)v + tok, sep - tok);
		at = put(out, end, (const char *)v + sep, i - sep);
	}
	if (!dropped)
		return put(out, start, (const char *)p, len);
	if (!end)
		return start;
	return put(out, end, "\r\n", 2);
}

/* The field line @l of @head at @at, as the copy has it. */
static uint32_t put_line(uint8_t *out, uint32_t at, const uint8_t *head,
			 struct line l, const struct l7_copy_opts *o)
{
	const uint8_t *p = head + l.off;
	uint32_t n = l7_line_name_len(p, l.len);

	if (o->keep_alive && n + 3 <= l.len && l7_name_is(p, n, "connection"))
		return put_connection(out, at, p, n, l.len);
	return put(out, at, (const char *)p, l.len);
}

static uint32_t put_str(uint8_t *out, uint32_t at, const char *s)
{
	uint32_t n = 0;

	while (s[n])
		n++;
	return put(out, at, s, n);
}

/* The field that carries the client's address, CRLF included. */
static uint32_t put_forwarded(uint8_t *out, uint32_t at,
			      const struct l7_copy_opts *o)
{
	uint32_t n = o->client_len < L7_ADDR_TEXT_MAX ? o->client_len :
						      L7_ADDR_TEXT_MAX;

	if (o->fwd == L7_FWD_FORWARDED) {
		/* RFC 7239 6: an IPv6 address is quoted and bracketed */
		at = put_str(out, at, o->client_v6 ? "Forwarded: for=\"[" :
						     "Forwarded: for=");
		at = put(out, at, o->client, n);
		if (o->client_v6)
			at = put_str(out, at, "]\"");
	} else {
		at = put_str(out, at, "X-Forwarded-For: ");
		at = put(out, at, o->client, n);
	}
	return put_str(out, at, "\r\n");
}

uint32_t l7_head_copy(uint8_t *out, const uint8_t *head,
		      const struct l7_http_req *req,
		      const struct l7_copy_opts *o)
{
	uint32_t end = req->head_len - 2;	/* the final CRLF */
	uint32_t at = 0, i = 0;
	bool first = true;

	while (i < end) {
		struct line l = { .off = i };

		/* framed: a line's only control byte but HTAB is its CR */
		i += (uint32_t)l7_value_run(head + i, end - i);
		while (head[i] != '\n')
			i++;
		l.len = ++i - l.off;
		/* the request line is never a field line */
		if (first)
			at = put(out, at, (const char *)head + l.off, l.len);
		else if (!line_dropped(head, l, req, o))
			at = put_line(out, at, head, l, o);
		first = false;
	}
	/* HTTP/1.0 closes by default: a pooled connection must not */
	if (o->keep_alive && req->version_minor == 0)
		at = put_str(out, at, "Connection: keep-alive\r\n");
	if (o->fwd != L7_FWD_OFF && o->fwd < L7_FWD_COUNT)
		at = put_forwarded(out, at, o);
	return put_str(out, at, "\r\n");
}

const char *l7_fwd_mode_name(enum l7_fwd_mode m)
{
	static const char *const names[L7_FWD_COUNT] = {
		[L7_FWD_OFF] = "off",
		[L7_FWD_XFF] = "x-forwarded-for",
		[L7_FWD_XFF_REPLACE] = "x-forwarded-for-replace",
		[L7_FWD_FORWARDED] = "forwarded",
	};

	return m < L7_FWD_COUNT ? names[m] : "?";
}
