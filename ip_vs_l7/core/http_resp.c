// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: incremental HTTP/1.1 response framer (RFC 9112).
 *
 * The head, the chunk-size lines and the trailers go through step() one
 * byte at a time with no look-back, so a segment boundary may fall
 * anywhere, even inside a CRLF, without changing the result.  Bytes of a
 * Content-Length body and chunk data are skipped by count in feed(): the
 * director passes them through and never needs to look at them.
 */
#include "http_resp.h"

enum {
	S_VERSION,	/* "HTTP/1.1 " */
	S_CODE,		/* three digits, then SP or CR */
	S_REASON,
	S_LINE_LF,	/* CR seen at the end of the status line */
	S_LINE,		/* start of a field line, or of the final CRLF */
	S_NAME,
	S_VALUE,
	S_VALUE_LF,
	S_END_LF,
	S_BODY_LENGTH,	/* skipped by count */
	S_BODY_CLOSE,	/* everything, until eof() */
	S_CHUNK_SIZE,
	S_CHUNK_EXT,
	S_CHUNK_LF,
	S_CHUNK_DATA,	/* skipped by count */
	S_CHUNK_DATA_CR,
	S_CHUNK_DATA_LF,
	S_INTERIM,	/* a 1xx was reported; the next feed() starts afresh */
	S_UPGRADED,
	S_DONE,
	S_ERROR,
};

/* Header fields that decide framing; 0 is "any other field". */
enum {
	F_OTHER,
	F_CONTENT_LENGTH,
	F_TRANSFER_ENCODING,
	F_CONNECTION,
};

/* Sub-states of a comma-separated token list value. */
enum {
	L_ELEM,		/* before a token (start or after ',') */
	L_TOKEN,	/* inside a token */
	L_AFTER,	/* OWS after a token: only OWS, ',' or end may follow */
	L_PARAMS,	/* transfer-coding parameters: skipped up to ',' */
};

/*
 * Sub-states of chunk extensions (RFC 9112 7.1.1):
 * *( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] )
 */
enum {
	X_SEMI,		/* after the size or an extension: OWS, ';' or CR */
	X_NAME0,	/* after ';': OWS or the first byte of a name */
	X_NAME,
	X_EQ,		/* OWS after a name: '=', ';' or CR may follow */
	X_VAL0,		/* after '=': OWS, a token or a quoted string */
	X_TOKEN,
	X_QUOTED,
	X_QPAIR,	/* the byte after a backslash in a quoted string */
};

/* What ->budget bounds, and the error its exhaustion is reported as. */
enum { R_HEAD, R_CHUNK_LINE, R_TRAILER };

static const enum l7_resp_err budget_err[] = {
	[R_HEAD]	= L7_RESP_E_HEAD_TOO_LARGE,
	[R_CHUNK_LINE]	= L7_RESP_E_CHUNK_LINE_TOO_LARGE,
	[R_TRAILER]	= L7_RESP_E_TRAILER_TOO_LARGE,
};

/* Indexed by F_* - 1; field names are matched lower-cased. */
static const char *const field_names[] = {
	"content-length", "transfer-encoding", "connection",
};

enum { C_CLOSE, C_KEEP_ALIVE };
static const char *const connection_tokens[] = { "close", "keep-alive" };

static const char *const te_tokens[] = { "chunked" };

static const char *const err_names[L7_RESP_E_COUNT] = {
	[L7_RESP_E_NONE]		= "none",
	[L7_RESP_E_VERSION]		= "bad HTTP version",
	[L7_RESP_E_VERSION_UNSUPPORTED]	= "HTTP version not supported",
	[L7_RESP_E_STATUS]		= "bad status code",
	[L7_RESP_E_REASON]		= "bad reason phrase",
	[L7_RESP_E_LINE_END]		= "bare CR or LF",
	[L7_RESP_E_HEADER_NAME]		= "bad header name",
	[L7_RESP_E_OBS_FOLD]		= "folded or whitespace-led header line",
	[L7_RESP_E_HEADER_VALUE]	= "bad header value",
	[L7_RESP_E_CONTENT_LENGTH]	= "bad Content-Length",
	[L7_RESP_E_TE_AND_CL]		= "Transfer-Encoding with Content-Length",
	[L7_RESP_E_TRANSFER_ENCODING]	= "bad Transfer-Encoding",
	[L7_RESP_E_HEAD_TOO_LARGE]	= "response head too large",
	[L7_RESP_E_TOO_MANY_HEADERS]	= "too many header fields",
	[L7_RESP_E_CHUNK_SIZE]		= "bad chunk size",
	[L7_RESP_E_CHUNK_EXT]		= "bad chunk extension",
	[L7_RESP_E_CHUNK_LINE_TOO_LARGE] = "chunk-size line too large",
	[L7_RESP_E_CHUNK_DATA_END]	= "chunk data not followed by CRLF",
	[L7_RESP_E_TRAILER_TOO_LARGE]	= "trailer section too large",
	[L7_RESP_E_TRUNCATED]		= "connection closed inside a response",
	[L7_RESP_E_CLOSED]		= "connection closed before a response",
};

static enum l7_resp_status fail(struct l7_http_resp *r, enum l7_resp_err err)
{
	r->err = err;
	r->err_off = r->pos;
	r->state = S_ERROR;
	return L7_RESP_ERROR;
}

/* Forget everything but the limits, the request method, and @interim. */
static void resp_start(struct l7_http_resp *r, bool interim)
{
	struct l7_http_resp_limits lim = r->lim;
	enum l7_http_method method = r->req_method;

	*r = (struct l7_http_resp){ 0 };
	r->lim = lim;
	r->req_method = method;
	r->after_interim = interim;
	r->state = S_VERSION;
	r->region = R_HEAD;
	r->budget = lim.max_head;
}

void l7_http_resp_init(struct l7_http_resp *r,
		       const struct l7_http_resp_limits *lim,
		       enum l7_http_method req_method)
{
	if (lim) {
		r->lim = *lim;
	} else {
		r->lim.max_head = L7_RESP_DEFAULT_MAX_HEAD;
		r->lim.max_headers = L7_RESP_DEFAULT_MAX_HEADERS;
		r->lim.max_trailer = L7_RESP_DEFAULT_MAX_TRAILER;
		r->lim.max_chunk_line = L7_RESP_DEFAULT_MAX_CHUNK_LINE;
	}
	r->req_method = req_method;
	resp_start(r, false);
}

/* ---- status line ---- */

/* "HTTP/" DIGIT "." DIGIT SP, ->sub counting the bytes. */
static enum l7_resp_status version_byte(struct l7_http_resp *r, uint8_t c)
{
	static const char lit[] = "HTTP/";
	uint8_t i = r->sub++;

	if (i < sizeof(lit) - 1)
		return (uint8_t)lit[i] == c ? L7_RESP_MORE :
					     fail(r, L7_RESP_E_VERSION);
	switch (i) {
	case 5:
		if (!l7_is_digit(c))
			return fail(r, L7_RESP_E_VERSION);
		r->version_major = c - '0';
		return L7_RESP_MORE;
	case 6:
		return c == '.' ? L7_RESP_MORE : fail(r, L7_RESP_E_VERSION);
	case 7:
		if (!l7_is_digit(c))
			return fail(r, L7_RESP_E_VERSION);
		r->version_minor = c - '0';
		return L7_RESP_MORE;
	}
	if (c != ' ')
		return fail(r, L7_RESP_E_VERSION);
	if (r->version_major != 1)
		return fail(r, L7_RESP_E_VERSION_UNSUPPORTED);
	r->sub = 0;
	r->state = S_CODE;
	return L7_RESP_MORE;
}

static enum l7_resp_status code_byte(struct l7_http_resp *r, uint8_t c)
{
	if (r->sub < 3) {
		if (!l7_is_digit(c) || (r->sub == 0 && (c < '1' || c > '5')))
			return fail(r, L7_RESP_E_STATUS);
		r->status_code = r->status_code * 10 + (c - '0');
		r->sub++;
		return L7_RESP_MORE;
	}
	/*
	 * The reason phrase is optional and some servers drop the SP before
	 * it too; neither changes framing, so both are accepted.
	 */
	if (c == ' ') {
		r->reason.off = (uint32_t)r->pos + 1;
		r->state = S_REASON;
		return L7_RESP_MORE;
	}
	if (c == '\r') {
		r->reason.off = (uint32_t)r->pos;
		r->state = S_LINE_LF;
		return L7_RESP_MORE;
	}
	return fail(r, L7_RESP_E_STATUS);
}

static enum l7_resp_status reason_byte(struct l7_http_resp *r, uint8_t c)
{
	if (c == '\r') {
		r->reason.len = (uint32_t)r->pos - r->reason.off;
		r->state = S_LINE_LF;
		return L7_RESP_MORE;
	}
	if (c == '\n')
		return fail(r, L7_RESP_E_LINE_END);
	if (l7_is_value_ctl(c))
		return fail(r, L7_RESP_E_REASON);
	return L7_RESP_MORE;
}

/* ---- header and trailer fields ---- */

static enum l7_resp_status name_begin(struct l7_http_resp *r, uint8_t c)
{
	uint32_t *count = r->in_trailer ? &r->trailer_count :
					  &r->header_count;

	if (*count >= r->lim.max_headers)
		return fail(r, L7_RESP_E_TOO_MANY_HEADERS);
	(*count)++;
	l7_tok_begin(&r->tok, L7_ARRAY_SIZE(field_names));
	l7_tok_byte(&r->tok, field_names, L7_ARRAY_SIZE(field_names),
		    l7_to_lower(c));
	r->state = S_NAME;
	return L7_RESP_MORE;
}

static enum l7_resp_status name_end(struct l7_http_resp *r)
{
	int f = l7_tok_match(&r->tok, field_names, L7_ARRAY_SIZE(field_names));

	/* trailers may not change framing (RFC 9110 6.5.1): not parsed */
	r->field = (f < 0 || r->in_trailer) ? F_OTHER : (uint8_t)(f + 1);
	r->sub = L_ELEM;
	r->val_gap = false;

	switch (r->field) {
	case F_CONTENT_LENGTH:
		r->cl_digits = false;
		r->cl_cur = 0;
		break;
	case F_TRANSFER_ENCODING:
		/* present, even if empty: the body is not length-framed */
		r->te_seen = true;
		break;
	}
	r->state = S_VALUE;
	return L7_RESP_MORE;
}

/* One element of a Content-Length list ends; all must agree. */
static enum l7_resp_status cl_commit(struct l7_http_resp *r)
{
	if (!r->cl_digits)
		return fail(r, L7_RESP_E_CONTENT_LENGTH);
	if (r->cl_seen && r->content_length != r->cl_cur)
		return fail(r, L7_RESP_E_CONTENT_LENGTH);
	r->cl_seen = true;
	r->content_length = r->cl_cur;
	r->cl_digits = false;
	r->cl_cur = 0;
	r->val_gap = false;
	return L7_RESP_MORE;
}

static enum l7_resp_status cl_byte(struct l7_http_resp *r, uint8_t c)
{
	if (l7_is_digit(c)) {
		uint64_t d = c - '0';

		/* U64_MAX is 1844674407370955161 * 10 + 5: no division */
		if (r->val_gap || r->cl_cur > 1844674407370955161ull ||
		    (r->cl_cur == 1844674407370955161ull && d > 5))
			return fail(r, L7_RESP_E_CONTENT_LENGTH);
		r->cl_cur = r->cl_cur * 10 + d;
		r->cl_digits = true;
		return L7_RESP_MORE;
	}
	if (l7_is_ows(c)) {
		if (r->cl_digits)
			r->val_gap = true;
		return L7_RESP_MORE;
	}
	if (c == ',')
		return cl_commit(r);
	return fail(r, L7_RESP_E_CONTENT_LENGTH);
}

static enum l7_resp_err list_err(const struct l7_http_resp *r)
{
	return r->field == F_TRANSFER_ENCODING ? L7_RESP_E_TRANSFER_ENCODING :
						 L7_RESP_E_HEADER_VALUE;
}

static void list_words(const struct l7_http_resp *r,
		       const char *const **words, size_t *n)
{
	if (r->field == F_TRANSFER_ENCODING) {
		*words = te_tokens;
		*n = L7_ARRAY_SIZE(te_tokens);
	} else {
		*words = connection_tokens;
		*n = L7_ARRAY_SIZE(connection_tokens);
	}
}

/* A whole token of a list field was read. */
static enum l7_resp_status list_token(struct l7_http_resp *r)
{
	const char *const *words;
	size_t n;
	int w;

	list_words(r, &words, &n);
	w = l7_tok_match(&r->tok, words, n);

	if (r->field == F_TRANSFER_ENCODING) {
		/* chunked may be applied once only (RFC 9112 6.1) */
		if (w == 0 && r->te_chunked_seen)
			return fail(r, L7_RESP_E_TRANSFER_ENCODING);
		if (w == 0)
			r->te_chunked_seen = true;
		r->te_chunked_last = w == 0;
		r->te_coding = true;
	} else if (w == C_CLOSE) {
		r->conn_close = true;
	} else if (w == C_KEEP_ALIVE) {
		r->conn_keep_alive = true;
	}
	return L7_RESP_MORE;
}

/*
 * #token lists (RFC 9110 5.6.1): elements separated by commas and OWS,
 * empty elements allowed.  Two tokens without a comma are an error, and
 * transfer-coding parameters may not be quoted: both could make us read
 * a list differently from the client.
 */
static enum l7_resp_status list_byte(struct l7_http_resp *r, uint8_t c)
{
	const char *const *words;
	size_t n;

	list_words(r, &words, &n);

	if (r->sub == L_PARAMS) {
		if (c == ',')
			r->sub = L_ELEM;
		else if (c == '"')
			return fail(r, list_err(r));
		return L7_RESP_MORE;
	}
	if (l7_is_tchar(c)) {
		if (r->sub == L_AFTER)
			return fail(r, list_err(r));
		if (r->sub == L_ELEM) {
			l7_tok_begin(&r->tok, n);
			r->sub = L_TOKEN;
		}
		l7_tok_byte(&r->tok, words, n, l7_to_lower(c));
		return L7_RESP_MORE;
	}
	if (l7_is_ows(c)) {
		if (r->sub == L_TOKEN) {
			r->sub = L_AFTER;
			return list_token(r);
		}
		return L7_RESP_MORE;
	}
	if (c == ',') {
		enum l7_resp_status st = L7_RESP_MORE;

		if (r->sub == L_TOKEN)
			st = list_token(r);
		r->sub = L_ELEM;
		return st;
	}
	if (c == ';' && r->field == F_TRANSFER_ENCODING &&
	    (r->sub == L_TOKEN || r->sub == L_AFTER)) {
		/* a coding with parameters is never the plain "chunked" */
		r->te_coding = true;
		r->te_chunked_last = false;
		r->sub = L_PARAMS;
		return L7_RESP_MORE;
	}
	return fail(r, list_err(r));
}

static enum l7_resp_status value_byte(struct l7_http_resp *r, uint8_t c)
{
	switch (r->field) {
	case F_CONTENT_LENGTH:
		return cl_byte(r, c);
	case F_TRANSFER_ENCODING:
	case F_CONNECTION:
		return list_byte(r, c);
	}
	return L7_RESP_MORE;
}

static enum l7_resp_status value_end(struct l7_http_resp *r)
{
	switch (r->field) {
	case F_CONTENT_LENGTH:
		return cl_commit(r);
	case F_TRANSFER_ENCODING:
	case F_CONNECTION:
		if (r->sub == L_TOKEN)
			return list_token(r);
		break;
	}
	return L7_RESP_MORE;
}

/* How the body is delimited, for a final (2xx-5xx) response. */
static enum l7_resp_body body_kind(const struct l7_http_resp *r)
{
	if (r->req_method == L7_HTTP_M_HEAD || r->status_code == 204 ||
	    r->status_code == 304)
		return L7_RESP_BODY_NONE;
	if (r->te_seen)
		/* RFC 9112 6.3: not chunked at the end, so read to close */
		return r->te_chunked_last ? L7_RESP_BODY_CHUNKED :
					    L7_RESP_BODY_CLOSE;
	if (r->cl_seen)
		return L7_RESP_BODY_LENGTH;
	return L7_RESP_BODY_CLOSE;
}

/* The empty line ending the head was read: decide framing (RFC 9112 6). */
static enum l7_resp_status head_end(struct l7_http_resp *r)
{
	bool http11 = r->version_minor >= 1;

	r->head_len = (uint32_t)r->pos + 1;
	if (r->te_seen) {
		/* TE would win, but a backend sending both is not trusted */
		if (r->cl_seen)
			return fail(r, L7_RESP_E_TE_AND_CL);
		/* an HTTP/1.0 message with TE has faulty framing (6.1) */
		if (!http11 || !r->te_coding)
			return fail(r, L7_RESP_E_TRANSFER_ENCODING);
	}
	r->keep_alive = !r->conn_close && (http11 || r->conn_keep_alive);

	if (r->status_code < 200) {
		r->body = L7_RESP_BODY_NONE;
		if (r->status_code == 101) {
			r->keep_alive = false;
			r->state = S_UPGRADED;
			return L7_RESP_UPGRADE;
		}
		r->state = S_INTERIM;
		return L7_RESP_INTERIM;
	}

	r->body = body_kind(r);
	switch (r->body) {
	case L7_RESP_BODY_NONE:
		break;
	case L7_RESP_BODY_LENGTH:
		if (r->content_length == 0)
			break;
		r->has_body = true;
		r->remaining = r->content_length;
		r->state = S_BODY_LENGTH;
		return L7_RESP_HEAD;
	case L7_RESP_BODY_CHUNKED:
		r->has_body = true;
		r->sub = 0;
		r->region = R_CHUNK_LINE;
		r->budget = r->lim.max_chunk_line;
		r->state = S_CHUNK_SIZE;
		return L7_RESP_HEAD;
	case L7_RESP_BODY_CLOSE:
		r->has_body = true;
		r->keep_alive = false;
		r->state = S_BODY_CLOSE;
		return L7_RESP_HEAD;
	}
	r->state = S_DONE;
	return L7_RESP_DONE;
}

/* ---- chunked body ---- */

/* chunk-size: hex digits, then extensions or CR; ->sub: a digit seen. */
static enum l7_resp_status chunk_size_byte(struct l7_http_resp *r, uint8_t c)
{
	int h = l7_hex_val(c);

	if (h >= 0) {
		if (r->remaining >> 60)	/* one more digit would overflow */
			return fail(r, L7_RESP_E_CHUNK_SIZE);
		r->remaining = r->remaining << 4 | (uint64_t)h;
		r->sub = 1;
		return L7_RESP_MORE;
	}
	if (c == '\n')
		return fail(r, L7_RESP_E_LINE_END);
	if (!r->sub)
		return fail(r, L7_RESP_E_CHUNK_SIZE);
	if (c == '\r') {
		r->state = S_CHUNK_LF;
		return L7_RESP_MORE;
	}
	if (c == ';' || l7_is_ows(c)) {
		r->sub = c == ';' ? X_NAME0 : X_SEMI;
		r->state = S_CHUNK_EXT;
		return L7_RESP_MORE;
	}
	return fail(r, L7_RESP_E_CHUNK_SIZE);
}

/* qdtext and quoted-pair bytes other than '"' and '\' (RFC 9110 5.6.4) */
static bool is_qdtext(uint8_t c)
{
	return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/*
 * Extensions are checked, not interpreted: a malformed one could hide a
 * CRLF the client would read differently.
 */
static enum l7_resp_status chunk_ext_byte(struct l7_http_resp *r, uint8_t c)
{
	switch (r->sub) {
	case X_SEMI:
		if (c == ';') {
			r->sub = X_NAME0;
			return L7_RESP_MORE;
		}
		break;
	case X_NAME0:
		if (l7_is_ows(c))
			return L7_RESP_MORE;
		if (!l7_is_tchar(c))
			return fail(r, L7_RESP_E_CHUNK_EXT);
		r->sub = X_NAME;
		return L7_RESP_MORE;
	case X_NAME:
	case X_EQ:
		if (r->sub == X_NAME && l7_is_tchar(c))
			return L7_RESP_MORE;
		if (c == '=' || c == ';') {
			r->sub = c == '=' ? X_VAL0 : X_NAME0;
			return L7_RESP_MORE;
		}
		if (l7_is_ows(c))
			r->sub = X_EQ;
		break;
	case X_VAL0:
		if (l7_is_ows(c))
			return L7_RESP_MORE;
		if (c == '"')
			r->sub = X_QUOTED;
		else if (l7_is_tchar(c))
			r->sub = X_TOKEN;
		else
			return fail(r, L7_RESP_E_CHUNK_EXT);
		return L7_RESP_MORE;
	case X_TOKEN:
		if (l7_is_tchar(c))
			return L7_RESP_MORE;
		if (c == ';') {
			r->sub = X_NAME0;
			return L7_RESP_MORE;
		}
		if (l7_is_ows(c))
			r->sub = X_SEMI;
		break;
	case X_QUOTED:
		if (c == '"')
			r->sub = X_SEMI;
		else if (c == '\\')
			r->sub = X_QPAIR;
		else if (!is_qdtext(c))
			return fail(r, L7_RESP_E_CHUNK_EXT);
		return L7_RESP_MORE;
	case X_QPAIR:
		if (!is_qdtext(c))
			return fail(r, L7_RESP_E_CHUNK_EXT);
		r->sub = X_QUOTED;
		return L7_RESP_MORE;
	}
	/* after a name, a token value or OWS: more OWS, or the line ends */
	if (l7_is_ows(c))
		return L7_RESP_MORE;
	if (c == '\r') {
		r->state = S_CHUNK_LF;
		return L7_RESP_MORE;
	}
	return fail(r, c == '\n' ? L7_RESP_E_LINE_END : L7_RESP_E_CHUNK_EXT);
}

/* The chunk-size line ended: data follows, or the trailer section. */
static enum l7_resp_status chunk_line_end(struct l7_http_resp *r)
{
	if (r->remaining) {
		r->state = S_CHUNK_DATA;
		return L7_RESP_MORE;
	}
	r->in_trailer = true;
	r->region = R_TRAILER;
	r->budget = r->lim.max_trailer;
	r->state = S_LINE;
	return L7_RESP_MORE;
}

static enum l7_resp_status step(struct l7_http_resp *r, uint8_t c)
{
	switch (r->state) {
	case S_VERSION:
		return version_byte(r, c);
	case S_CODE:
		return code_byte(r, c);
	case S_REASON:
		return reason_byte(r, c);
	case S_LINE_LF:
	case S_VALUE_LF:
		if (c != '\n')
			return fail(r, L7_RESP_E_LINE_END);
		r->state = S_LINE;
		return L7_RESP_MORE;
	case S_LINE:
		if (c == '\r') {
			r->state = S_END_LF;
			return L7_RESP_MORE;
		}
		if (l7_is_ows(c))
			return fail(r, L7_RESP_E_OBS_FOLD);
		if (!l7_is_tchar(c))
			return fail(r, c == '\n' ? L7_RESP_E_LINE_END :
						   L7_RESP_E_HEADER_NAME);
		return name_begin(r, c);
	case S_NAME:
		if (c == ':')
			return name_end(r);
		if (!l7_is_tchar(c))	/* includes space before ':' */
			return fail(r, L7_RESP_E_HEADER_NAME);
		l7_tok_byte(&r->tok, field_names, L7_ARRAY_SIZE(field_names),
			    l7_to_lower(c));
		return L7_RESP_MORE;
	case S_VALUE:
		if (c == '\r') {
			r->state = S_VALUE_LF;
			return value_end(r);
		}
		if (c == '\n')
			return fail(r, L7_RESP_E_LINE_END);
		if (l7_is_value_ctl(c))
			return fail(r, L7_RESP_E_HEADER_VALUE);
		return value_byte(r, c);
	case S_END_LF:
		if (c != '\n')
			return fail(r, L7_RESP_E_LINE_END);
		if (!r->in_trailer)
			return head_end(r);
		r->state = S_DONE;
		return L7_RESP_DONE;
	case S_CHUNK_SIZE:
		return chunk_size_byte(r, c);
	case S_CHUNK_EXT:
		return chunk_ext_byte(r, c);
	case S_CHUNK_LF:
		if (c != '\n')
			return fail(r, L7_RESP_E_LINE_END);
		return chunk_line_end(r);
	case S_CHUNK_DATA_CR:
		if (c != '\r')
			return fail(r, L7_RESP_E_CHUNK_DATA_END);
		r->state = S_CHUNK_DATA_LF;
		return L7_RESP_MORE;
	case S_CHUNK_DATA_LF:
		if (c != '\n')
			return fail(r, L7_RESP_E_CHUNK_DATA_END);
		r->sub = 0;
		r->budget = r->lim.max_chunk_line;
		r->state = S_CHUNK_SIZE;
		return L7_RESP_MORE;
	}
	return L7_RESP_ERROR;
}

/*
 * Take up to @avail bytes of a Content-Length body or of chunk data by
 * count alone: they are never looked at.  Returns how many were taken.
 */
static size_t skip(struct l7_http_resp *r, size_t avail)
{
	size_t n = avail;

	if (r->remaining < n)
		n = (size_t)r->remaining;
	r->remaining -= n;
	r->pos += n;
	if (r->remaining)
		return n;
	if (r->state == S_BODY_LENGTH) {
		r->state = S_DONE;
	} else {
		/* the CRLF after chunk data: exactly two bytes */
		r->region = R_CHUNK_LINE;
		r->budget = 2;
		r->state = S_CHUNK_DATA_CR;
	}
	return n;
}

enum l7_resp_status l7_http_resp_feed(struct l7_http_resp *r,
				      const uint8_t *buf, size_t len,
				      size_t *used)
{
	size_t i = 0;

	*used = 0;
	switch (r->state) {
	case S_ERROR:
		return L7_RESP_ERROR;
	case S_DONE:
		return L7_RESP_DONE;
	case S_UPGRADED:
		return L7_RESP_UPGRADE;
	case S_INTERIM:
		resp_start(r, true);
		break;
	}

	while (i < len) {
		enum l7_resp_status st;

		if (r->state == S_BODY_LENGTH || r->state == S_CHUNK_DATA) {
			i += skip(r, len - i);
			if (r->state == S_DONE) {
				*used = i;
				return L7_RESP_DONE;
			}
			continue;
		}
		if (r->state == S_BODY_CLOSE) {
			r->pos += len - i;
			break;
		}
		if (r->budget == 0) {
			*used = i;
			return fail(r, budget_err[r->region]);
		}
		r->budget--;
		st = step(r, buf[i++]);
		if (st != L7_RESP_MORE) {
			*used = i;
			if (st != L7_RESP_ERROR)
				r->pos++;
			return st;
		}
		r->pos++;
	}
	*used = len;
	return L7_RESP_MORE;
}

enum l7_resp_status l7_http_resp_eof(struct l7_http_resp *r)
{
	switch (r->state) {
	case S_BODY_CLOSE:
		r->state = S_DONE;
		return L7_RESP_DONE;
	case S_DONE:
		return L7_RESP_DONE;
	case S_UPGRADED:
		return L7_RESP_UPGRADE;
	case S_ERROR:
		return L7_RESP_ERROR;
	case S_VERSION:
		if (r->pos == 0 && !r->after_interim)
			return fail(r, L7_RESP_E_CLOSED);
		break;
	}
	return fail(r, L7_RESP_E_TRUNCATED);
}

const char *l7_resp_err_name(enum l7_resp_err err)
{
	if ((unsigned int)err >= L7_RESP_E_COUNT)
		return "unknown";
	return err_names[err];
}
