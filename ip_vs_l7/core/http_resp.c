// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: incremental HTTP/1.1 response framer (RFC 9112).
 *
 * The head goes through step() one byte at a time with no look-back, so
 * a segment boundary may fall anywhere, even inside a CRLF, without
 * changing the result.  A Content-Length or chunked body is handed to the
 * body framer (http_body.c), which takes body bytes and chunk data by
 * count: the director passes them through and never needs to look at
 * them.
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
	S_BODY,		/* Content-Length or chunked: ->framer has it */
	S_BODY_CLOSE,	/* everything, until eof() */
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
	if (r->header_count >= r->lim.max_headers)
		return fail(r, L7_RESP_E_TOO_MANY_HEADERS);
	r->header_count++;
	l7_tok_begin(&r->tok, L7_ARRAY_SIZE(field_names));
	l7_tok_byte(&r->tok, field_names, L7_ARRAY_SIZE(field_names),
		    l7_to_lower(c));
	r->state = S_NAME;
	return L7_RESP_MORE;
}

static enum l7_resp_status name_end(struct l7_http_resp *r)
{
	int f = l7_tok_match(&r->tok, field_names, L7_ARRAY_SIZE(field_names));

	r->field = f < 0 ? F_OTHER : (uint8_t)(f + 1);
	l7_list_begin(&r->list);
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

/* What the list reader found in a Transfer-Encoding value. */
static enum l7_resp_status te_event(struct l7_http_resp *r,
				    enum l7_list_ev ev, int w)
{
	/* a coding with parameters is never the plain "chunked" */
	if (ev == L7_LIST_PARAMS)
		w = -1;
	/* chunked may be applied once only (RFC 9112 6.1) */
	if (w == 0 && r->te_chunked_seen)
		return fail(r, L7_RESP_E_TRANSFER_ENCODING);
	if (w == 0)
		r->te_chunked_seen = true;
	r->te_chunked_last = w == 0;
	r->te_coding = true;
	return L7_RESP_MORE;
}

/* Act on what the list reader found in a Connection or TE value. */
static enum l7_resp_status list_event(struct l7_http_resp *r,
				      enum l7_list_ev ev)
{
	const char *const *words;
	size_t n;
	int w;

	if (ev == L7_LIST_MORE)
		return L7_RESP_MORE;
	if (ev == L7_LIST_ERROR)
		return fail(r, list_err(r));
	list_words(r, &words, &n);
	w = l7_list_word(&r->list, words, n);
	if (r->field == F_TRANSFER_ENCODING)
		return te_event(r, ev, w);
	if (w == C_CLOSE)
		r->conn_close = true;
	else if (w == C_KEEP_ALIVE)
		r->conn_keep_alive = true;
	return L7_RESP_MORE;
}

static enum l7_resp_status list_byte(struct l7_http_resp *r, uint8_t c)
{
	const char *const *words;
	size_t n;

	list_words(r, &words, &n);
	return list_event(r, l7_list_byte(&r->list, words, n,
					  r->field == F_TRANSFER_ENCODING, c));
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
		return list_event(r, l7_list_end(&r->list));
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

/* A Content-Length or chunked body follows the head. */
static void body_start(struct l7_http_resp *r, bool chunked)
{
	/* trailer fields count against the same limit as header fields */
	struct l7_http_body_limits lim = {
		.max_trailer = r->lim.max_trailer,
		.max_trailers = r->lim.max_headers,
		.max_chunk_line = r->lim.max_chunk_line,
	};

	r->has_body = true;
	l7_http_body_init(&r->framer, &lim, chunked, r->content_length);
	r->state = S_BODY;
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
		body_start(r, false);
		return L7_RESP_HEAD;
	case L7_RESP_BODY_CHUNKED:
		body_start(r, true);
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
		return head_end(r);
	}
	return L7_RESP_ERROR;
}

/* The body framer's errors, as this framer has always reported them. */
static const enum l7_resp_err body_errs[L7_BODY_E_COUNT] = {
	[L7_BODY_E_CHUNK_SIZE]		= L7_RESP_E_CHUNK_SIZE,
	[L7_BODY_E_CHUNK_EXT]		= L7_RESP_E_CHUNK_EXT,
	[L7_BODY_E_CHUNK_LINE_TOO_LARGE] = L7_RESP_E_CHUNK_LINE_TOO_LARGE,
	[L7_BODY_E_CHUNK_DATA_END]	= L7_RESP_E_CHUNK_DATA_END,
	[L7_BODY_E_LINE_END]		= L7_RESP_E_LINE_END,
	[L7_BODY_E_TRAILER]		= L7_RESP_E_HEADER_NAME,
	[L7_BODY_E_TRAILER_VALUE]	= L7_RESP_E_HEADER_VALUE,
	[L7_BODY_E_OBS_FOLD]		= L7_RESP_E_OBS_FOLD,
	[L7_BODY_E_TRAILER_TOO_LARGE]	= L7_RESP_E_TRAILER_TOO_LARGE,
	[L7_BODY_E_TOO_MANY_TRAILERS]	= L7_RESP_E_TOO_MANY_HEADERS,
};

/* Bring the response up to date with its body framer. */
static enum l7_resp_status body_sync(struct l7_http_resp *r)
{
	r->pos = r->head_len + r->framer.pos;
	if (l7_http_body_done(&r->framer)) {
		r->state = S_DONE;
		return L7_RESP_DONE;
	}
	if (r->framer.err != L7_BODY_E_NONE)
		return fail(r, body_errs[r->framer.err]);
	return L7_RESP_MORE;
}

static enum l7_resp_status body_feed(struct l7_http_resp *r,
				     const uint8_t *buf, size_t len,
				     size_t *used)
{
	l7_http_body_feed(&r->framer, buf, len, used);
	return body_sync(r);
}

uint64_t l7_http_resp_skippable(const struct l7_http_resp *r)
{
	if (r->state == S_BODY)
		return l7_http_body_skippable(&r->framer);
	if (r->state == S_BODY_CLOSE)
		return ~(uint64_t)0;
	return 0;
}

void l7_http_resp_skip(struct l7_http_resp *r, uint64_t n)
{
	if (r->state == S_BODY) {
		l7_http_body_skip(&r->framer, n);
		body_sync(r);
	} else if (r->state == S_BODY_CLOSE) {
		r->pos += n;
	}
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
	case S_BODY:
		return body_feed(r, buf, len, used);
	}

	while (i < len) {
		enum l7_resp_status st;

		if (r->state == S_BODY_CLOSE) {
			r->pos += len - i;
			break;
		}
		if (r->budget == 0) {
			*used = i;
			return fail(r, L7_RESP_E_HEAD_TOO_LARGE);
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
