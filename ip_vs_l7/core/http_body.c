// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: incremental HTTP/1.1 body framer (RFC 9112 6.3, 7.1).
 *
 * Chunk-size lines and trailers go through step() one byte at a time with
 * no look-back, so a segment boundary may fall anywhere, even inside a
 * CRLF, without changing the result.  Content-Length bytes and chunk data
 * are taken by count: the director passes them through and never needs
 * to look at them.
 */
#include "http_body.h"
#include "http_field.h"

enum {
	B_LENGTH,	/* Content-Length bytes: taken by count */
	B_SIZE,		/* chunk-size hex digits */
	B_EXT,		/* chunk extensions */
	B_SIZE_LF,	/* CR seen at the end of a chunk-size line */
	B_DATA,		/* chunk data: taken by count */
	B_DATA_CR,
	B_DATA_LF,
	B_TRAILER,	/* trailer section: ->fl has it */
	B_DONE,
	B_ERROR,
};

/*
 * Sub-states of chunk extensions (RFC 9112 7.1.1):
 * *( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] )
 */
enum {
	X_BWS,		/* OWS after the size: more (counted), ';' or CR */
	X_SEMI,		/* after an extension: OWS, ';' or CR */
	X_NAME0,	/* after ';': OWS or the first byte of a name */
	X_NAME,
	X_EQ,		/* OWS after a name: '=', ';' or CR may follow */
	X_VAL0,		/* after '=': OWS, a token or a quoted string */
	X_TOKEN,
	X_QUOTED,
	X_QPAIR,	/* the byte after a backslash in a quoted string */
};

static enum l7_body_status fail(struct l7_http_body *b, enum l7_body_err err)
{
	b->err = err;
	b->state = B_ERROR;
	return L7_BODY_ERROR;
}

void l7_http_body_init(struct l7_http_body *b,
		       const struct l7_http_body_limits *lim, bool chunked,
		       uint64_t length)
{
	*b = (struct l7_http_body){ 0 };
	if (lim) {
		b->lim = *lim;
	} else {
		b->lim.max_trailer = L7_BODY_DEFAULT_MAX_TRAILER;
		b->lim.max_trailers = L7_BODY_DEFAULT_MAX_TRAILERS;
		b->lim.max_chunk_line = L7_BODY_DEFAULT_MAX_CHUNK_LINE;
	}
	if (chunked) {
		b->budget = b->lim.max_chunk_line;
		b->state = B_SIZE;
	} else {
		b->remaining = length;
		b->state = length ? B_LENGTH : B_DONE;
	}
}

/* ---- chunk-size line ---- */

/*
 * chunk-size: hex digits, then extensions or CR; ->sub: a digit seen.
 * Apache reads the size into an off_t and refuses 2^63 or more: so does
 * the director, so that such a body never costs a pooled connection.
 */
static enum l7_body_status chunk_size_byte(struct l7_http_body *b, uint8_t c)
{
	int h = l7_hex_val(c);

	if (h >= 0) {
		if (b->remaining >> 59)	/* one more digit makes 2^63 or more */
			return fail(b, L7_BODY_E_CHUNK_SIZE);
		b->remaining = b->remaining << 4 | (uint64_t)h;
		b->sub = 1;
		return L7_BODY_MORE;
	}
	if (c == '\n')
		return fail(b, L7_BODY_E_LINE_END);
	if (!b->sub)
		return fail(b, L7_BODY_E_CHUNK_SIZE);
	if (c == '\r') {
		b->state = B_SIZE_LF;
		return L7_BODY_MORE;
	}
	if (c == ';' || l7_is_ows(c)) {
		b->sub = c == ';' ? X_NAME0 : X_BWS;
		b->bws = 1;
		b->state = B_EXT;
		return L7_BODY_MORE;
	}
	return fail(b, L7_BODY_E_CHUNK_SIZE);
}

/* qdtext and quoted-pair bytes other than '"' and '\' (RFC 9110 5.6.4) */
static bool is_qdtext(uint8_t c)
{
	return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/*
 * One byte of a chunk extension where the extension syntax decides; -1
 * where only "more OWS or the end of the line" may follow.
 */
static int chunk_ext_syntax(struct l7_http_body *b, uint8_t c)
{
	switch (b->sub) {
	case X_BWS:
		/* Apache takes up to 10 blanks here, then answers 400 */
		if (l7_is_ows(c) && ++b->bws > L7_BODY_MAX_CHUNK_BWS)
			return fail(b, L7_BODY_E_CHUNK_SIZE);
		if (c != ';')
			return -1;
		b->sub = X_NAME0;
		return L7_BODY_MORE;
	case X_SEMI:
		if (c != ';')
			return -1;
		b->sub = X_NAME0;
		return L7_BODY_MORE;
	case X_NAME0:
		if (l7_is_ows(c))
			return L7_BODY_MORE;
		if (!l7_is_tchar(c))
			return fail(b, L7_BODY_E_CHUNK_EXT);
		b->sub = X_NAME;
		return L7_BODY_MORE;
	case X_NAME:
	case X_EQ:
		if (b->sub == X_NAME && l7_is_tchar(c))
			return L7_BODY_MORE;
		if (c == '=' || c == ';') {
			b->sub = c == '=' ? X_VAL0 : X_NAME0;
			return L7_BODY_MORE;
		}
		if (l7_is_ows(c))
			b->sub = X_EQ;
		return -1;
	case X_VAL0:
		if (l7_is_ows(c))
			return L7_BODY_MORE;
		if (c == '"')
			b->sub = X_QUOTED;
		else if (l7_is_tchar(c))
			b->sub = X_TOKEN;
		else
			return fail(b, L7_BODY_E_CHUNK_EXT);
		return L7_BODY_MORE;
	case X_TOKEN:
		if (l7_is_tchar(c))
			return L7_BODY_MORE;
		if (c == ';') {
			b->sub = X_NAME0;
			return L7_BODY_MORE;
		}
		if (l7_is_ows(c))
			b->sub = X_SEMI;
		return -1;
	case X_QUOTED:
		if (c == '"')
			b->sub = X_SEMI;
		else if (c == '\\')
			b->sub = X_QPAIR;
		else if (!is_qdtext(c))
			return fail(b, L7_BODY_E_CHUNK_EXT);
		return L7_BODY_MORE;
	}
	/* X_QPAIR */
	if (!is_qdtext(c))
		return fail(b, L7_BODY_E_CHUNK_EXT);
	b->sub = X_QUOTED;
	return L7_BODY_MORE;
}

/*
 * Extensions are checked, not interpreted: a malformed one could hide a
 * CRLF the peer would read differently.
 */
static enum l7_body_status chunk_ext_byte(struct l7_http_body *b, uint8_t c)
{
	int st = chunk_ext_syntax(b, c);

	if (st >= 0)
		return (enum l7_body_status)st;
	/* after a name, a token value or OWS: more OWS, or the line ends */
	if (l7_is_ows(c))
		return L7_BODY_MORE;
	if (c == '\r') {
		b->state = B_SIZE_LF;
		return L7_BODY_MORE;
	}
	return fail(b, c == '\n' ? L7_BODY_E_LINE_END : L7_BODY_E_CHUNK_EXT);
}

/* The chunk-size line ended: data follows, or the trailer section. */
static enum l7_body_status chunk_line_end(struct l7_http_body *b)
{
	if (b->remaining) {
		b->state = B_DATA;
		return L7_BODY_MORE;
	}
	b->budget = b->lim.max_trailer;
	b->fl.state = L7_FL_LINE;
	b->state = B_TRAILER;
	return L7_BODY_MORE;
}

/* ---- trailer section: field lines validated like header fields ---- */

static const enum l7_body_err field_errs[L7_FL_NERR] = {
	[L7_FL_ERR(L7_FL_E_LINE_END)]	= L7_BODY_E_LINE_END,
	[L7_FL_ERR(L7_FL_E_NAME)]	= L7_BODY_E_TRAILER,
	[L7_FL_ERR(L7_FL_E_OBS_FOLD)]	= L7_BODY_E_OBS_FOLD,
	[L7_FL_ERR(L7_FL_E_VALUE)]	= L7_BODY_E_TRAILER_VALUE,
};

/*
 * Trailers may not change framing (RFC 9110 6.5.1): no name is looked
 * up and no value is read.
 */
static enum l7_body_status trailer_byte(struct l7_http_body *b, uint8_t c)
{
	enum l7_fl_ev ev = l7_fl_byte(&b->fl, NULL, 0, c);

	switch (ev) {
	case L7_FL_NAME_BEGIN:
		if (b->trailer_count >= b->lim.max_trailers)
			return fail(b, L7_BODY_E_TOO_MANY_TRAILERS);
		b->trailer_count++;
		return L7_BODY_MORE;
	case L7_FL_END:
		b->state = B_DONE;
		return L7_BODY_DONE;
	default:
		if (ev >= L7_FL_E_LINE_END)
			return fail(b, field_errs[L7_FL_ERR(ev)]);
		return L7_BODY_MORE;
	}
}

static enum l7_body_status step(struct l7_http_body *b, uint8_t c)
{
	switch (b->state) {
	case B_SIZE:
		return chunk_size_byte(b, c);
	case B_EXT:
		return chunk_ext_byte(b, c);
	case B_SIZE_LF:
		if (c != '\n')
			return fail(b, L7_BODY_E_LINE_END);
		return chunk_line_end(b);
	case B_DATA_CR:
		if (c != '\r')
			return fail(b, L7_BODY_E_CHUNK_DATA_END);
		b->state = B_DATA_LF;
		return L7_BODY_MORE;
	case B_DATA_LF:
		if (c != '\n')
			return fail(b, L7_BODY_E_CHUNK_DATA_END);
		b->sub = 0;
		b->budget = b->lim.max_chunk_line;
		b->state = B_SIZE;
		return L7_BODY_MORE;
	}
	return trailer_byte(b, c);
}

/* What running out of ->budget in the current state is reported as. */
static enum l7_body_err budget_err(const struct l7_http_body *b)
{
	return b->state >= B_TRAILER ? L7_BODY_E_TRAILER_TOO_LARGE :
				       L7_BODY_E_CHUNK_LINE_TOO_LARGE;
}

uint64_t l7_http_body_skippable(const struct l7_http_body *b)
{
	if (b->state == B_LENGTH || b->state == B_DATA)
		return b->remaining;
	return 0;
}

void l7_http_body_skip(struct l7_http_body *b, uint64_t n)
{
	if (n > l7_http_body_skippable(b))
		n = l7_http_body_skippable(b);
	if (!n)
		return;
	b->remaining -= n;
	b->pos += n;
	if (b->remaining)
		return;
	if (b->state == B_LENGTH) {
		b->state = B_DONE;
	} else {
		/* the CRLF after chunk data: exactly two bytes */
		b->budget = 2;
		b->state = B_DATA_CR;
	}
}

enum l7_body_status l7_http_body_feed(struct l7_http_body *b,
				      const uint8_t *buf, size_t len,
				      size_t *used)
{
	size_t i = 0;

	*used = 0;
	if (b->state == B_ERROR)
		return L7_BODY_ERROR;
	if (b->state == B_DONE)
		return L7_BODY_DONE;

	while (i < len) {
		uint64_t n = l7_http_body_skippable(b);
		enum l7_body_status st;

		if (n) {
			if (n > len - i)
				n = len - i;
			l7_http_body_skip(b, n);
			i += (size_t)n;
			if (b->state == B_DONE)
				break;
			continue;
		}
		if (b->budget == 0) {
			*used = i;
			return fail(b, budget_err(b));
		}
		b->budget--;
		st = step(b, buf[i++]);
		if (st == L7_BODY_ERROR) {
			*used = i;
			return st;
		}
		b->pos++;
		if (st == L7_BODY_DONE)
			break;
	}
	*used = i;
	return b->state == B_DONE ? L7_BODY_DONE : L7_BODY_MORE;
}

bool l7_http_body_done(const struct l7_http_body *b)
{
	return b->state == B_DONE;
}
