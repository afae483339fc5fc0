// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: incremental HTTP/1.1 request-head framer (RFC 9112).
 *
 * One call of step() per byte, no look-back: a segment boundary may fall
 * anywhere, including inside a CRLF, and the result must not depend on it.
 * Known names and tokens are matched with a shrinking candidate mask so
 * that nothing has to be buffered to recognise them.
 */
#include "http_req.h"

enum {
	S_LEAD,		/* before the request line; empty lines allowed */
	S_LEAD_LF,
	S_METHOD,
	S_TARGET,
	S_VERSION,
	S_LINE_LF,	/* CR seen at the end of the request line */
	S_LINE,		/* start of a header line, or of the final CRLF */
	S_NAME,
	S_VALUE,
	S_VALUE_LF,
	S_END_LF,
	S_DONE,
	S_ERROR,
};

/* Header fields the framer has to understand; 0 is "any other field". */
enum {
	F_OTHER,
	F_HOST,
	F_CONTENT_LENGTH,
	F_TRANSFER_ENCODING,
	F_CONNECTION,
	F_EXPECT,
};

/* Indexed by enum l7_http_method - 1; methods are case-sensitive. */
static const char *const method_names[] = {
	"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH",
	"CONNECT",
};

/* Indexed by F_* - 1; field names are matched lower-cased. */
static const char *const field_names[] = {
	"host", "content-length", "transfer-encoding", "connection", "expect",
};

enum { C_CLOSE, C_KEEP_ALIVE, C_UPGRADE };
static const char *const connection_tokens[] = {
	"close", "keep-alive", "upgrade",
};

static const char *const te_tokens[] = { "chunked" };
static const char *const expect_tokens[] = { "100-continue" };

static const char *const err_names[L7_HTTP_E_COUNT] = {
	[L7_HTTP_E_NONE]		= "none",
	[L7_HTTP_E_METHOD]		= "bad method",
	[L7_HTTP_E_METHOD_UNSUPPORTED]	= "method not implemented",
	[L7_HTTP_E_TARGET]		= "bad request-target",
	[L7_HTTP_E_VERSION]		= "bad HTTP version",
	[L7_HTTP_E_VERSION_UNSUPPORTED]	= "HTTP version not supported",
	[L7_HTTP_E_LINE_END]		= "bare CR or LF",
	[L7_HTTP_E_HEADER_NAME]		= "bad header name",
	[L7_HTTP_E_OBS_FOLD]		= "folded or whitespace-led header line",
	[L7_HTTP_E_HEADER_VALUE]	= "bad header value",
	[L7_HTTP_E_HOST]		= "missing, repeated or bad Host",
	[L7_HTTP_E_CONTENT_LENGTH]	= "bad Content-Length",
	[L7_HTTP_E_TE_AND_CL]		= "Transfer-Encoding with Content-Length",
	[L7_HTTP_E_TRANSFER_ENCODING]	= "bad Transfer-Encoding",
	[L7_HTTP_E_EXPECT]		= "unsupported expectation",
	[L7_HTTP_E_HEAD_TOO_LARGE]	= "request head too large",
	[L7_HTTP_E_TOO_MANY_HEADERS]	= "too many header fields",
};

static enum l7_http_status fail(struct l7_http_req *r, enum l7_http_err err)
{
	r->err = err;
	r->err_off = r->pos;
	r->state = S_ERROR;
	return L7_HTTP_ERROR;
}

void l7_http_req_init(struct l7_http_req *r, const struct l7_http_limits *lim)
{
	*r = (struct l7_http_req){ 0 };
	if (lim) {
		r->lim = *lim;
	} else {
		r->lim.max_head = L7_HTTP_DEFAULT_MAX_HEAD;
		r->lim.max_headers = L7_HTTP_DEFAULT_MAX_HEADERS;
	}
	r->state = S_LEAD;
}

/* ---- request line ---- */

static enum l7_http_status method_end(struct l7_http_req *r)
{
	int m;

	if (r->tok.len == 0)
		return fail(r, L7_HTTP_E_METHOD);
	r->method_span.len = r->pos - r->method_span.off;
	m = l7_tok_match(&r->tok, method_names, L7_ARRAY_SIZE(method_names));
	r->method = m < 0 ? L7_HTTP_M_OTHER : (enum l7_http_method)(m + 1);
	if (r->method == L7_HTTP_M_CONNECT)
		return fail(r, L7_HTTP_E_METHOD_UNSUPPORTED);
	r->target.off = r->pos + 1;
	r->sub = 0;
	r->state = S_TARGET;
	return L7_HTTP_MORE;
}

/*
 * request-target: origin-form "/...", absolute-form "scheme:...", or "*"
 * for OPTIONS.  Only visible ASCII; no fragment.  ->sub is 0 before the
 * first byte, 1 in a scheme, 2 in the rest, 3 after "*".
 */
static enum l7_http_status target_byte(struct l7_http_req *r, uint8_t c)
{
	if (c == ' ') {
		if (r->sub == 0 || r->sub == 1)
			return fail(r, L7_HTTP_E_TARGET);
		r->target.len = r->pos - r->target.off;
		r->sub = 0;
		r->state = S_VERSION;
		return L7_HTTP_MORE;
	}
	if (c == '\r' || c == '\n')	/* HTTP/0.9 simple request */
		return fail(r, L7_HTTP_E_VERSION);
	if (c <= 0x20 || c >= 0x7f || c == '#')
		return fail(r, L7_HTTP_E_TARGET);

	switch (r->sub) {
	case 0:
		if (c == '/') {
			r->target_form = L7_HTTP_T_ORIGIN;
			r->sub = 2;
		} else if (c == '*' && r->method == L7_HTTP_M_OPTIONS) {
			r->target_form = L7_HTTP_T_ASTERISK;
			r->sub = 3;
		} else if (l7_is_alpha(c)) {
			r->target_form = L7_HTTP_T_ABSOLUTE;
			r->sub = 1;
		} else {
			return fail(r, L7_HTTP_E_TARGET);
		}
		break;
	case 1:
		if (c == ':')
			r->sub = 2;
		else if (!l7_is_alpha(c) && !l7_is_digit(c) &&
			 c != '+' && c != '-' && c != '.')
			return fail(r, L7_HTTP_E_TARGET);
		break;
	case 3:
		return fail(r, L7_HTTP_E_TARGET);
	}
	return L7_HTTP_MORE;
}

/* "HTTP/" DIGIT "." DIGIT CR, ->sub counting the bytes. */
static enum l7_http_status version_byte(struct l7_http_req *r, uint8_t c)
{
	static const char lit[] = "HTTP/";
	uint8_t i = r->sub++;

	if (i < sizeof(lit) - 1)
		return (uint8_t)lit[i] == c ? L7_HTTP_MORE :
					     fail(r, L7_HTTP_E_VERSION);
	switch (i) {
	case 5:
		if (!l7_is_digit(c))
			return fail(r, L7_HTTP_E_VERSION);
		r->version_major = c - '0';
		return L7_HTTP_MORE;
	case 6:
		return c == '.' ? L7_HTTP_MORE : fail(r, L7_HTTP_E_VERSION);
	case 7:
		if (!l7_is_digit(c))
			return fail(r, L7_HTTP_E_VERSION);
		r->version_minor = c - '0';
		return L7_HTTP_MORE;
	}
	if (c != '\r')
		return fail(r, L7_HTTP_E_VERSION);
	if (r->version_major != 1)
		return fail(r, L7_HTTP_E_VERSION_UNSUPPORTED);
	r->state = S_LINE_LF;
	return L7_HTTP_MORE;
}

/* ---- header fields ---- */

static enum l7_http_status name_end(struct l7_http_req *r)
{
	int f = l7_tok_match(&r->tok, field_names, L7_ARRAY_SIZE(field_names));

	r->field = f < 0 ? F_OTHER : (uint8_t)(f + 1);
	l7_list_begin(&r->list);
	r->val_gap = false;
	r->val_end = 0;

	switch (r->field) {
	case F_HOST:
		if (r->has_host)
			return fail(r, L7_HTTP_E_HOST);
		r->has_host = true;
		r->host.off = r->pos + 1;
		r->host.len = 0;
		break;
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
	return L7_HTTP_MORE;
}

/* Host = uri-host [ ":" port ]: one run of non-OWS bytes. */
static enum l7_http_status host_byte(struct l7_http_req *r, uint8_t c)
{
	if (l7_is_ows(c)) {
		if (r->val_end)
			r->val_gap = true;
		return L7_HTTP_MORE;
	}
	if (r->val_gap)
		return fail(r, L7_HTTP_E_HOST);
	if (!r->val_end)
		r->host.off = r->pos;
	r->val_end = r->pos + 1;
	return L7_HTTP_MORE;
}

static void host_end(struct l7_http_req *r)
{
	if (r->val_end)
		r->host.len = r->val_end - r->host.off;
	else
		r->host.off = r->pos;	/* empty Host is allowed */
}

/* One element of a Content-Length list ends; all must agree. */
static enum l7_http_status cl_commit(struct l7_http_req *r)
{
	if (!r->cl_digits)
		return fail(r, L7_HTTP_E_CONTENT_LENGTH);
	if (r->cl_seen && r->content_length != r->cl_cur)
		return fail(r, L7_HTTP_E_CONTENT_LENGTH);
	r->cl_seen = true;
	r->content_length = r->cl_cur;
	r->cl_digits = false;
	r->cl_cur = 0;
	r->val_gap = false;
	return L7_HTTP_MORE;
}

static enum l7_http_status cl_byte(struct l7_http_req *r, uint8_t c)
{
	if (l7_is_digit(c)) {
		uint64_t d = c - '0';

		if (r->val_gap || r->cl_cur > (~(uint64_t)0 - d) / 10)
			return fail(r, L7_HTTP_E_CONTENT_LENGTH);
		r->cl_cur = r->cl_cur * 10 + d;
		r->cl_digits = true;
		return L7_HTTP_MORE;
	}
	if (l7_is_ows(c)) {
		if (r->cl_digits)
			r->val_gap = true;
		return L7_HTTP_MORE;
	}
	if (c == ',')
		return cl_commit(r);
	return fail(r, L7_HTTP_E_CONTENT_LENGTH);
}

static enum l7_http_err list_err(const struct l7_http_req *r)
{
	switch (r->field) {
	case F_TRANSFER_ENCODING:
		return L7_HTTP_E_TRANSFER_ENCODING;
	case F_EXPECT:
		return L7_HTTP_E_EXPECT;
	}
	return L7_HTTP_E_HEADER_VALUE;
}

static void list_words(const struct l7_http_req *r,
		       const char *const **words, size_t *n)
{
	switch (r->field) {
	case F_TRANSFER_ENCODING:
		*words = te_tokens;
		*n = L7_ARRAY_SIZE(te_tokens);
		break;
	case F_CONNECTION:
		*words = connection_tokens;
		*n = L7_ARRAY_SIZE(connection_tokens);
		break;
	default:
		*words = expect_tokens;
		*n = L7_ARRAY_SIZE(expect_tokens);
		break;
	}
}

/* A token of a Transfer-Encoding list; -1: one with parameters. */
static enum l7_http_status te_token(struct l7_http_req *r, int w)
{
	/* chunked must be the final coding, applied exactly once */
	if (w == 0 && r->te_chunked_seen)
		return fail(r, L7_HTTP_E_TRANSFER_ENCODING);
	if (w == 0)
		r->te_chunked_seen = true;
	r->te_chunked_last = w == 0;
	return L7_HTTP_MORE;
}

/* Act on what the list reader found in a Connection, TE or Expect value. */
static enum l7_http_status list_event(struct l7_http_req *r,
				      enum l7_list_ev ev)
{
	const char *const *words;
	size_t n;
	int w;

	if (ev == L7_LIST_MORE)
		return L7_HTTP_MORE;
	if (ev == L7_LIST_ERROR)
		return fail(r, list_err(r));
	list_words(r, &words, &n);
	/* a coding with parameters is never the plain "chunked" */
	w = ev == L7_LIST_PARAMS ? -1 : l7_list_word(&r->list, words, n);

	switch (r->field) {
	case F_TRANSFER_ENCODING:
		return te_token(r, w);
	case F_CONNECTION:
		if (w == C_CLOSE)
			r->conn_close = true;
		else if (w == C_KEEP_ALIVE)
			r->conn_keep_alive = true;
		else if (w == C_UPGRADE)
			r->upgrade = true;
		break;
	case F_EXPECT:
		if (w != 0)
			return fail(r, L7_HTTP_E_EXPECT);
		r->expect_seen = true;
		break;
	}
	return L7_HTTP_MORE;
}

static enum l7_http_status list_byte(struct l7_http_req *r, uint8_t c)
{
	const char *const *words;
	size_t n;

	list_words(r, &words, &n);
	return list_event(r, l7_list_byte(&r->list, words, n,
					  r->field == F_TRANSFER_ENCODING, c));
}

static enum l7_http_status value_byte(struct l7_http_req *r, uint8_t c)
{
	switch (r->field) {
	case F_HOST:
		return host_byte(r, c);
	case F_CONTENT_LENGTH:
		return cl_byte(r, c);
	case F_TRANSFER_ENCODING:
	case F_CONNECTION:
	case F_EXPECT:
		return list_byte(r, c);
	}
	return L7_HTTP_MORE;
}

static enum l7_http_status value_end(struct l7_http_req *r)
{
	switch (r->field) {
	case F_HOST:
		host_end(r);
		break;
	case F_CONTENT_LENGTH:
		return cl_commit(r);
	case F_TRANSFER_ENCODING:
	case F_CONNECTION:
	case F_EXPECT:
		return list_event(r, l7_list_end(&r->list));
	}
	return L7_HTTP_MORE;
}

/* The empty line was read: decide framing (RFC 9112 6.1-6.3). */
static enum l7_http_status head_end(struct l7_http_req *r)
{
	bool http11 = r->version_minor >= 1;

	if (http11 && !r->has_host)
		return fail(r, L7_HTTP_E_HOST);
	if (r->te_seen) {
		if (r->cl_seen)
			return fail(r, L7_HTTP_E_TE_AND_CL);
		if (!http11 || !r->te_chunked_last)
			return fail(r, L7_HTTP_E_TRANSFER_ENCODING);
		r->body = L7_HTTP_BODY_CHUNKED;
	} else if (r->cl_seen) {
		r->body = L7_HTTP_BODY_LENGTH;
	} else {
		r->body = L7_HTTP_BODY_NONE;
	}
	r->keep_alive = !r->conn_close && (http11 || r->conn_keep_alive);
	/* an HTTP/1.0 client cannot take a 100 (RFC 9110 10.1.1) */
	r->expect_continue = r->expect_seen && http11;
	r->head_len = r->pos + 1;
	r->state = S_DONE;
	return L7_HTTP_DONE;
}

static enum l7_http_status step(struct l7_http_req *r, uint8_t c)
{
	switch (r->state) {
	case S_LEAD:
		if (c == '\r') {
			r->state = S_LEAD_LF;
			return L7_HTTP_MORE;
		}
		if (!l7_is_tchar(c))
			return fail(r, c == '\n' ? L7_HTTP_E_LINE_END :
						   L7_HTTP_E_METHOD);
		r->method_span.off = r->pos;
		l7_tok_begin(&r->tok, L7_ARRAY_SIZE(method_names));
		l7_tok_byte(&r->tok, method_names, L7_ARRAY_SIZE(method_names), c);
		r->state = S_METHOD;
		return L7_HTTP_MORE;
	case S_LEAD_LF:
		if (c != '\n')
			return fail(r, L7_HTTP_E_LINE_END);
		r->state = S_LEAD;
		return L7_HTTP_MORE;
	case S_METHOD:
		if (c == ' ')
			return method_end(r);
		if (!l7_is_tchar(c))
			return fail(r, L7_HTTP_E_METHOD);
		l7_tok_byte(&r->tok, method_names, L7_ARRAY_SIZE(method_names), c);
		return L7_HTTP_MORE;
	case S_TARGET:
		return target_byte(r, c);
	case S_VERSION:
		return version_byte(r, c);
	case S_LINE_LF:
	case S_VALUE_LF:
		if (c != '\n')
			return fail(r, L7_HTTP_E_LINE_END);
		r->state = S_LINE;
		return L7_HTTP_MORE;
	case S_LINE:
		if (c == '\r') {
			r->state = S_END_LF;
			return L7_HTTP_MORE;
		}
		if (l7_is_ows(c))
			return fail(r, L7_HTTP_E_OBS_FOLD);
		if (!l7_is_tchar(c))
			return fail(r, c == '\n' ? L7_HTTP_E_LINE_END :
						   L7_HTTP_E_HEADER_NAME);
		if (r->header_count >= r->lim.max_headers)
			return fail(r, L7_HTTP_E_TOO_MANY_HEADERS);
		r->header_count++;
		l7_tok_begin(&r->tok, L7_ARRAY_SIZE(field_names));
		l7_tok_byte(&r->tok, field_names, L7_ARRAY_SIZE(field_names),
			 l7_to_lower(c));
		r->state = S_NAME;
		return L7_HTTP_MORE;
	case S_NAME:
		if (c == ':')
			return name_end(r);
		if (!l7_is_tchar(c))	/* includes space before ':' */
			return fail(r, L7_HTTP_E_HEADER_NAME);
		l7_tok_byte(&r->tok, field_names, L7_ARRAY_SIZE(field_names),
			 l7_to_lower(c));
		return L7_HTTP_MORE;
	case S_VALUE:
		if (c == '\r') {
			r->state = S_VALUE_LF;
			return value_end(r);
		}
		if (c == '\n')
			return fail(r, L7_HTTP_E_LINE_END);
		if (l7_is_value_ctl(c))
			return fail(r, L7_HTTP_E_HEADER_VALUE);
		return value_byte(r, c);
	case S_END_LF:
		if (c != '\n')
			return fail(r, L7_HTTP_E_LINE_END);
		return head_end(r);
	case S_DONE:
		return L7_HTTP_DONE;
	}
	return L7_HTTP_ERROR;
}

enum l7_http_status l7_http_req_feed(struct l7_http_req *r,
				     const uint8_t *buf, size_t len,
				     size_t *used)
{
	size_t i;

	*used = 0;
	if (r->state == S_ERROR)
		return L7_HTTP_ERROR;
	if (r->state == S_DONE)
		return L7_HTTP_DONE;

	for (i = 0; i < len; i++) {
		enum l7_http_status st;

		if (r->pos >= r->lim.max_head) {
			*used = i;
			return fail(r, L7_HTTP_E_HEAD_TOO_LARGE);
		}
		st = step(r, buf[i]);
		if (st != L7_HTTP_MORE) {
			*used = i + 1;
			if (st == L7_HTTP_DONE)
				r->pos++;
			return st;
		}
		r->pos++;
	}
	*used = len;
	return L7_HTTP_MORE;
}

int l7_http_err_status(enum l7_http_err err)
{
	switch (err) {
	case L7_HTTP_E_NONE:
		return 200;
	case L7_HTTP_E_HEAD_TOO_LARGE:
	case L7_HTTP_E_TOO_MANY_HEADERS:
		return 431;
	case L7_HTTP_E_METHOD_UNSUPPORTED:
		return 501;
	case L7_HTTP_E_VERSION_UNSUPPORTED:
		return 505;
	case L7_HTTP_E_EXPECT:
		return 417;
	default:
		return 400;
	}
}

const char *l7_http_err_name(enum l7_http_err err)
{
	if ((unsigned int)err >= L7_HTTP_E_COUNT)
		return "unknown";
	return err_names[err];
}

const char *l7_http_method_name(enum l7_http_method m)
{
	if (m == L7_HTTP_M_OTHER ||
	    (unsigned int)m > L7_ARRAY_SIZE(method_names))
		return "OTHER";
	return method_names[m - 1];
}

bool l7_http_method_idempotent(enum l7_http_method m)
{
	switch (m) {
	case L7_HTTP_M_GET:
	case L7_HTTP_M_HEAD:
	case L7_HTTP_M_PUT:
	case L7_HTTP_M_DELETE:
	case L7_HTTP_M_OPTIONS:
	case L7_HTTP_M_TRACE:
		return true;
	default:
		return false;
	}
}
