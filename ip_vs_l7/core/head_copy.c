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

/*
 * A Connection value that says only how long the connection lasts:
 * "close" and "keep-alive" tokens, nothing else (no "upgrade", no
 * hop-by-hop field names).  Such a field is the client's business.
 */
static bool connection_only_persistence(const uint8_t *v, uint32_t len)
{
	uint32_t i = 0, start;
	bool any = false;

	while (i < len) {
		while (i < len && (l7_is_ows(v[i]) || v[i] == ','))
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && l7_is_tchar(v[i]))
			i++;
		if (!l7_name_is(v + start, i - start, "close") &&
		    !l7_name_is(v + start, i - start, "keep-alive"))
			return false;
		any = true;
		while (i < len && l7_is_ows(v[i]))
			i++;
		if (i < len && v[i] != ',')
			return false;
	}
	return any;
}

/* Whether the field line @l of @head stays out of the copy. */
static bool line_dropped(const uint8_t *head, struct line l,
			 const struct l7_copy_opts *o)
{
	const uint8_t *p = head + l.off;
	uint32_t n = l7_line_name_len(p, l.len);

	if (n + 3 > l.len)
		return false;	/* not a field line: the framer saw to that */
	if (o->fwd == L7_FWD_XFF_REPLACE && l7_name_is(p, n, "x-forwarded-for"))
		return true;
	return o->keep_alive && l7_name_is(p, n, "connection") &&
	       connection_only_persistence(p + n + 1, l.len - n - 3);
}

static uint32_t put(uint8_t *out, uint32_t at, const char *s, uint32_t n)
{
	__builtin_memcpy(out + at, s, n);	/* no libc here */
	return at + n;
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
		if (!first && line_dropped(head, l, o))
			continue;
		at = put(out, at, (const char *)head + l.off, l.len);
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
