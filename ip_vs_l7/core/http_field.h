/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: what the request, response and body framers share about
 * field lines (RFC 9112 5), so that the three read them the same way:
 *
 * - the field-line lexer, one byte at a time: name token, ':', value
 *   without control characters, CRLF, the empty line ending the section,
 *   and the errors (bare CR or LF, obs-fold, bad name or value byte);
 *   and l7_field_line(), which takes a whole line the lexer would take
 *   without an error, in one pass;
 * - the fields that decide framing in both directions: Content-Length
 *   (a list whose elements must agree), Transfer-Encoding and Connection,
 *   plus Host and Expect, which only the request framer asks for;
 * - the HTTP-version of a request or status line.
 *
 * Everything is static inline: it runs per byte or per line in softirq,
 * and each framer's switch on the events below folds into its own step().  The
 * framers keep what is theirs: which fields they ask for, their error
 * codes and their limits.
 */
#ifndef _IP_VS_L7_CORE_HTTP_FIELD_H
#define _IP_VS_L7_CORE_HTTP_FIELD_H

#include "http_chars.h"

/* ---- field-line lexer ---- */

enum {
	L7_FL_LINE,	/* start of a field line, or of the final CRLF */
	L7_FL_NAME,
	L7_FL_VALUE,
	L7_FL_LF,	/* CR seen at the end of a line */
	L7_FL_END_LF,	/* CR of the empty line seen */
};

enum l7_fl_ev {
	L7_FL_MORE,		/* nothing for the framer */
	L7_FL_NAME_BEGIN,	/* first byte of a name: count the field */
	L7_FL_NAME_END,		/* ':' after the name */
	L7_FL_VALUE_BYTE,	/* a value byte, not a control character */
	L7_FL_VALUE_END,	/* CR after the value */
	L7_FL_END,		/* LF of the empty line: the section ended */
	/* errors, in the order of enum l7_fl_err */
	L7_FL_E_LINE_END,	/* bare CR or bare LF */
	L7_FL_E_NAME,		/* empty/non-token name, space before ':' */
	L7_FL_E_OBS_FOLD,	/* line folding or whitespace-led line */
	L7_FL_E_VALUE,		/* control character in a value */
};

/* Index into a framer's table of its own codes for the lexer's errors. */
#define L7_FL_ERR(ev)	((ev) - L7_FL_E_LINE_END)
#define L7_FL_NERR	4

struct l7_field_line {
	struct l7_tok tok;	/* the name, matched against known names */
	uint8_t state;
};

/*
 * One byte of a field section.  @names (lower-case, @n of them, n may be
 * 0) are the field names the framer wants recognised; l7_tok_match() on
 * ->tok says which one a name was, at L7_FL_NAME_END.
 */
static inline enum l7_fl_ev l7_fl_byte(struct l7_field_line *f,
				       const char *const *names, size_t n,
				       uint8_t c)
{
	switch (f->state) {
	case L7_FL_LINE:
		if (c == '\r') {
			f->state = L7_FL_END_LF;
			return L7_FL_MORE;
		}
		if (l7_is_ows(c))
			return L7_FL_E_OBS_FOLD;
		if (!l7_is_tchar(c))
			return c == '\n' ? L7_FL_E_LINE_END : L7_FL_E_NAME;
		l7_tok_begin(&f->tok, n);
		l7_tok_byte(&f->tok, names, l7_to_lower(c));
		f->state = L7_FL_NAME;
		return L7_FL_NAME_BEGIN;
	case L7_FL_NAME:
		if (c == ':') {
			f->state = L7_FL_VALUE;
			return L7_FL_NAME_END;
		}
		if (!l7_is_tchar(c))	/* includes space before ':' */
			return L7_FL_E_NAME;
		l7_tok_byte(&f->tok, names, l7_to_lower(c));
		return L7_FL_MORE;
	case L7_FL_VALUE:
		if (c == '\r') {
			f->state = L7_FL_LF;
			return L7_FL_VALUE_END;
		}
		if (c == '\n')
			return L7_FL_E_LINE_END;
		if (l7_is_value_ctl(c))
			return L7_FL_E_VALUE;
		return L7_FL_VALUE_BYTE;
	case L7_FL_LF:
		if (c != '\n')
			return L7_FL_E_LINE_END;
		f->state = L7_FL_LINE;
		return L7_FL_MORE;
	}
	/* L7_FL_END_LF */
	return c == '\n' ? L7_FL_END : L7_FL_E_LINE_END;
}

/* ---- HTTP-version: "HTTP/" DIGIT "." DIGIT, then @end ---- */

enum l7_ver_ev {
	L7_VER_MORE,
	L7_VER_DONE,		/* @end after a 1.x version */
	L7_VER_BAD,
	L7_VER_UNSUPPORTED,	/* well-formed, major version other than 1 */
};

/* Whether @c may be byte @i (0-7) of "HTTP/" DIGIT "." DIGIT. */
static inline bool l7_version_char(uint8_t i, uint8_t c)
{
	static const char lit[] = "HTTP/";

	if (i < sizeof(lit) - 1)
		return (uint8_t)lit[i] == c;
	return i == 6 ? c == '.' : l7_is_digit(c);
}

/* Byte @i of the version, @c, l7_version_char()'s: keep its digit. */
static inline void l7_version_take(uint8_t i, uint8_t *major, uint8_t *minor,
				   uint8_t c)
{
	if (i == 5)
		*major = c - '0';
	else if (i == 7)
		*minor = c - '0';
}

/* ->sub counts the bytes; the digits go to *major and *minor. */
static inline enum l7_ver_ev l7_version_byte(uint8_t *sub, uint8_t *major,
					     uint8_t *minor, uint8_t end,
					     uint8_t c)
{
	uint8_t i = (*sub)++;

	if (i < 8) {
		if (!l7_version_char(i, c))
			return L7_VER_BAD;
		l7_version_take(i, major, minor, c);
		return L7_VER_MORE;
	}
	if (c != end)
		return L7_VER_BAD;
	return *major == 1 ? L7_VER_DONE : L7_VER_UNSUPPORTED;
}

/*
 * How many of the @n bytes at @p l7_version_byte() would take without
 * an event, taking them as it would: the version up to the byte after
 * it, which is the framer's step to take.
 */
static inline size_t l7_version_run(uint8_t *sub, uint8_t *major,
				    uint8_t *minor, const uint8_t *p, size_t n)
{
	size_t i = 0;

	for (; i < n && *sub < 8 && l7_version_char(*sub, p[i]); i++)
		l7_version_take((*sub)++, major, minor, p[i]);
	return i;
}

/* The eight bytes at @p are an HTTP-version: its digits go to *major, *minor. */
static inline bool l7_version_whole(const uint8_t *p, uint8_t *major,
				    uint8_t *minor)
{
	uint8_t i;

	for (i = 0; i < 8; i++)
		if (!l7_version_char(i, p[i]))
			return false;
	*major = p[5] - '0';
	*minor = p[7] - '0';
	return true;
}

/* @p[0..@len) is @name (lower case), in any case. */
static inline bool l7_name_is(const uint8_t *p, uint32_t len,
			      const char *name)
{
	uint32_t i;

	for (i = 0; i < len && name[i]; i++)
		if (l7_to_lower(p[i]) != (uint8_t)name[i])
			return false;
	return i == len && !name[i];
}

/* ---- fields that decide framing ---- */

/*
 * Known fields; 0 is "any other field".  The response framer asks for the
 * first three only, so it never spends a cycle on Host or Expect.
 */
enum {
	L7_F_OTHER,
	L7_F_CONTENT_LENGTH,
	L7_F_TRANSFER_ENCODING,
	L7_F_CONNECTION,
	L7_F_HOST,
	L7_F_EXPECT,
};

#define L7_F_RESP_COUNT	3	/* the fields a response is framed by */
#define L7_F_REQ_COUNT	5

/* Indexed by L7_F_* - 1; matched lower-cased. */
static const char *const l7_field_names[L7_F_REQ_COUNT] = {
	"content-length", "transfer-encoding", "connection", "host", "expect",
};

enum { L7_C_CLOSE, L7_C_KEEP_ALIVE, L7_C_UPGRADE };

/* The list tokens a #token list field is read for, into *@words: how many. */
static inline size_t l7_field_tokens(uint8_t field, const char *const **words)
{
	static const char *const te[] = { "chunked" };
	static const char *const conn[] = { "close", "keep-alive", "upgrade" };
	static const char *const expect[] = { "100-continue" };

	switch (field) {
	case L7_F_TRANSFER_ENCODING:
		*words = te;
		return L7_ARRAY_SIZE(te);
	case L7_F_CONNECTION:
		*words = conn;
		return L7_ARRAY_SIZE(conn);
	}
	*words = expect;
	return L7_ARRAY_SIZE(expect);
}

/* What the shared part of a field value has to tell its framer. */
enum l7_fv_ev {
	L7_FV_MORE,
	L7_FV_TOKEN,		/* a list token ended; *w: which, or -1 */
	L7_FV_E_CONTENT_LENGTH,	/* not digits, overflow, or conflicting */
	L7_FV_E_TE,		/* chunked twice, or a bad TE list */
	L7_FV_E_LIST,		/* a bad Connection or Expect list */
};

/* The framing fields of one head, as far as they have been read. */
struct l7_fields {
	struct l7_field_line fl;
	struct l7_list list;	/* Connection, Transfer-Encoding, Expect */
	uint64_t cl_cur;	/* the Content-Length element being read */
	uint8_t field;		/* which known field is being read */
	bool cl_seen;
	bool cl_digits;		/* digits seen in the current element */
	bool cl_gap;		/* OWS after them: only OWS or ',' may follow */
	bool te_seen;
	bool te_coding;		/* at least one transfer-coding named */
	bool te_chunked_seen;
	bool te_chunked_last;
	bool conn_close;
	bool conn_keep_alive;
};

/* A name ended at its ':': @field (L7_F_*) is the value to read. */
static inline void l7_fields_begin(struct l7_fields *h, uint8_t field)
{
	h->field = field;
	l7_list_begin(&h->list);
	h->cl_digits = false;
	h->cl_cur = 0;
	h->cl_gap = false;
	/* present, even if empty: the body is not length-framed */
	if (h->field == L7_F_TRANSFER_ENCODING)
		h->te_seen = true;
}

/* ':' ended a name read byte by byte: which of l7_field_names, if any. */
static inline void l7_fields_name_end(struct l7_fields *h)
{
	int f = l7_tok_match(&h->fl.tok, l7_field_names);

	l7_fields_begin(h, f < 0 ? L7_F_OTHER : (uint8_t)(f + 1));
}

/*
 * How many of the @n bytes at @p the lexer would take one by one without
 * an event its framer acts on, taking them as it would: the rest of a
 * name after its first byte, the ':' after a name none of @nnames of
 * l7_field_names, and a value such a field has, up to and including the
 * CRLF.  That is most of a head; the framers take it by count.  A name's
 * candidates narrow as they would byte by byte; once none is left its
 * length no longer matters, so the rest of it is only checked.  What
 * stops a run is left to the framer's step: a line's first byte, a
 * known name's ':', a known field's value, the end, any error.
 */
static inline size_t l7_fields_quiet_run(struct l7_fields *h,
					 const uint8_t *p, size_t n)
{
	struct l7_field_line *f = &h->fl;
	size_t i = 0;

	if (f->state == L7_FL_NAME) {
		for (; i < n && f->tok.mask && l7_is_tchar(p[i]); i++)
			l7_tok_byte(&f->tok, l7_field_names, l7_to_lower(p[i]));
		while (i < n && l7_is_tchar(p[i]))
			i++;
		if (i == n || p[i] != ':' ||
		    l7_tok_match(&f->tok, l7_field_names) >= 0)
			return i;
		l7_fields_name_end(h);	/* L7_F_OTHER */
		f->state = L7_FL_VALUE;
		i++;
	}
	if (f->state == L7_FL_VALUE && h->field == L7_F_OTHER) {
		i += l7_value_run(p + i, n - i);
		if (i == n || p[i] != '\r')
			return i;
		f->state = L7_FL_LF;	/* an unread value's end: nothing */
		i++;
	}
	if (f->state == L7_FL_LF && i < n && p[i] == '\n') {
		f->state = L7_FL_LINE;
		i++;
	}
	return i;
}

/* One element of a Content-Length list ends; all must agree. */
static inline enum l7_fv_ev l7_cl_commit(struct l7_fields *h, uint64_t *len)
{
	if (!h->cl_digits || (h->cl_seen && *len != h->cl_cur))
		return L7_FV_E_CONTENT_LENGTH;
	h->cl_seen = true;
	*len = h->cl_cur;
	h->cl_digits = false;
	h->cl_cur = 0;
	h->cl_gap = false;
	return L7_FV_MORE;
}

static inline enum l7_fv_ev l7_cl_byte(struct l7_fields *h, uint64_t *len,
				       uint8_t c)
{
	if (l7_is_digit(c)) {
		uint64_t d = c - '0';

		/* U64_MAX is 1844674407370955161 * 10 + 5: no division */
		if (h->cl_gap || h->cl_cur > 1844674407370955161ull ||
		    (h->cl_cur == 1844674407370955161ull && d > 5))
			return L7_FV_E_CONTENT_LENGTH;
		h->cl_cur = h->cl_cur * 10 + d;
		h->cl_digits = true;
		return L7_FV_MORE;
	}
	if (l7_is_ows(c)) {
		if (h->cl_digits)
			h->cl_gap = true;
		return L7_FV_MORE;
	}
	if (c == ',')
		return l7_cl_commit(h, len);
	return L7_FV_E_CONTENT_LENGTH;
}

/*
 * A Content-Length value, @p[0..@n), that is one number of at most 18
 * digits (below 2^63) between OWS, taken whole as l7_cl_byte() takes it
 * byte by byte; its end is still the framer's to commit.  False, nothing
 * changed, for anything else: the framer reads that byte by byte.
 */
static inline bool l7_cl_whole(struct l7_fields *h, const uint8_t *p,
			       size_t n)
{
	size_t i = 0, from, to;
	uint64_t v = 0;

	while (i < n && l7_is_ows(p[i]))
		i++;
	for (from = i; i < n && i - from < 19 && l7_is_digit(p[i]); i++)
		v = v * 10 + (p[i] - '0');
	to = i;
	while (i < n && l7_is_ows(p[i]))
		i++;
	if (to == from || to - from > 18 || i != n)
		return false;
	h->cl_cur = v;
	h->cl_digits = true;
	h->cl_gap = to != n;
	return true;
}

/* A token of a list ended: *@w is which of its words, or -1. */
static inline enum l7_fv_ev l7_list_token(struct l7_fields *h, int w)
{
	switch (h->field) {
	case L7_F_TRANSFER_ENCODING:
		/* chunked may be applied once only (RFC 9112 6.1) */
		if (w == 0 && h->te_chunked_seen)
			return L7_FV_E_TE;
		if (w == 0)
			h->te_chunked_seen = true;
		h->te_chunked_last = w == 0;
		h->te_coding = true;
		break;
	case L7_F_CONNECTION:
		if (w == L7_C_CLOSE)
			h->conn_close = true;
		else if (w == L7_C_KEEP_ALIVE)
			h->conn_keep_alive = true;
		break;
	}
	return L7_FV_TOKEN;
}

/* Act on what the list reader found; the framer gets the tokens too. */
static inline enum l7_fv_ev l7_list_event(struct l7_fields *h,
					  enum l7_list_ev ev, int *w)
{
	const char *const *words;

	if (ev == L7_LIST_MORE)
		return L7_FV_MORE;
	if (ev == L7_LIST_ERROR)
		return h->field == L7_F_TRANSFER_ENCODING ? L7_FV_E_TE :
							    L7_FV_E_LIST;
	l7_field_tokens(h->field, &words);
	/* a coding with parameters is never the plain "chunked" */
	*w = ev == L7_LIST_PARAMS ? -1 : l7_list_word(&h->list, words);
	return l7_list_token(h, *w);
}

/*
 * A Connection, Transfer-Encoding or Expect value, @p[0..@n), that is
 * one token between OWS, read whole: the one event l7_list_byte() and
 * l7_list_end() find byte by byte, which they find at *at (the first OWS
 * after the token, or the value's end, @n), the token's word in *w.
 * False, nothing changed, for any other value: a list, parameters, a
 * bad byte, nothing.
 */
static inline bool l7_fields_token_whole(struct l7_fields *h,
					 const uint8_t *p, size_t n,
					 size_t *at, int *w,
					 enum l7_fv_ev *ev)
{
	const char *const *words;
	size_t i = 0, from, k, nw;

	while (i < n && l7_is_ows(p[i]))
		i++;
	for (from = i; i < n && l7_is_tchar(p[i]); i++)
		;
	*at = i;
	while (i < n && l7_is_ows(p[i]))
		i++;
	if (*at == from || i != n)
		return false;
	nw = l7_field_tokens(h->field, &words);
	*w = -1;
	for (k = 0; k < nw; k++)
		if (l7_name_is(p + from, (uint32_t)(*at - from), words[k]))
			*w = (int)k;
	h->list.sub = *at == n ? L7_LIST_IN_TOKEN : L7_LIST_AFTER;
	*ev = l7_list_token(h, *w);
	return true;
}

/*
 * One byte of a field value: read if it is Content-Length,
 * Transfer-Encoding, Connection or Expect, not looked at if another
 * field's (Host is the request framer's to read).  *len is the
 * framer's content_length, kept up to date element by element.
 */
static inline enum l7_fv_ev l7_fields_value_byte(struct l7_fields *h,
						 uint64_t *len, int *w,
						 uint8_t c)
{
	const char *const *words;
	size_t n;

	if (h->field == L7_F_OTHER)
		return L7_FV_MORE;
	if (h->field == L7_F_CONTENT_LENGTH)
		return l7_cl_byte(h, len, c);
	n = l7_field_tokens(h->field, &words);
	return l7_list_event(h, l7_list_byte(&h->list, words, n,
					     h->field == L7_F_TRANSFER_ENCODING,
					     c), w);
}

/* The value of one of those fields ended. */
static inline enum l7_fv_ev l7_fields_value_end(struct l7_fields *h,
						uint64_t *len, int *w)
{
	if (h->field == L7_F_OTHER)
		return L7_FV_MORE;
	if (h->field == L7_F_CONTENT_LENGTH)
		return l7_cl_commit(h, len);
	return l7_list_event(h, l7_list_end(&h->list), w);
}

/* RFC 9112 9.3: persistence by version and Connection. */
static inline bool l7_fields_keep_alive(const struct l7_fields *h,
					bool http11)
{
	return !h->conn_close && (http11 || h->conn_keep_alive);
}

/*
 * ---- whole field lines: the framers' line-at-a-time path, and the head
 * copiers (head_copy, rsp_head) ----
 */

/*
 * Which of the first @n l7_field_names the whole name @p[0..@len) is
 * (L7_F_OTHER if none): what l7_fields_name_end() finds byte by byte.
 * Most names differ from every known one in their first byte.
 */
static inline uint8_t l7_field_lookup(const uint8_t *p, uint32_t len,
				      size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (l7_name_is(p, len, l7_field_names[i]))
			return (uint8_t)(i + 1);
	return L7_F_OTHER;
}

/*
 * The length of the field line at @p, CRLF included, if the @n bytes
 * hold all of it and the lexer would take each of its bytes without an
 * error: a token name (its length in *name), ':', a value without CTLs,
 * CRLF.  Else 0, and the framer leaves the line to l7_fl_byte(), which
 * says where and why it fails or takes the rest from the next segment.
 * One pass: the value's run stops at its first CTL, which has to be the
 * CR, so the line's end is found and its value checked together.
 */
static inline size_t l7_field_line(const uint8_t *p, size_t n, size_t *name)
{
	size_t i = 0, v;

	while (i < n && l7_is_tchar(p[i]))
		i++;
	if (i == 0 || i == n || p[i] != ':')
		return 0;
	*name = i;
	v = i + 1 + l7_value_run(p + i + 1, n - i - 1);
	if (n - v < 2 || p[v] != '\r' || p[v + 1] != '\n')
		return 0;
	return v + 2;
}

/* The field name of a field line: the bytes before ':' (@len if none). */
static inline uint32_t l7_line_name_len(const uint8_t *p, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len && p[i] != ':'; i++)
		;
	return i;
}

#endif /* _IP_VS_L7_CORE_HTTP_FIELD_H */
