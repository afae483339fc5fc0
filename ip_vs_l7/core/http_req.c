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
	S_FIELDS,	/* from the CR ending the request line: ->f.fl has it */
	S_DONE,
	S_ERROR,
};

/* Indexed by enum l7_http_method - 1; methods are case-sensitive. */
static const char *const method_names[] = {
	"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH",
	"CONNECT",
};

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
	[L7_HTTP_E_CONTENT_LENGTH]	= "bad, repeated or list Content-Length",
	[L7_HTTP_E_TE_AND_CL]		= "Transfer-Encoding with Content-Length",
	[L7_HTTP_E_TRANSFER_ENCODING]	= "bad Transfer-Encoding",
	[L7_HTTP_E_BLANK_LINES]		= "too many empty lines before the request",
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
	m = l7_tok_match(&r->tok, method_names);
	r->method = m < 0 ? L7_HTTP_M_OTHER : (enum l7_http_method)(m + 1);
	if (r->method == L7_HTTP_M_CONNECT)
		return fail(r, L7_HTTP_E_METHOD_UNSUPPORTED);
	r->target.off = r->pos + 1;
	r->sub = 0;
	r->state = S_TARGET;
	return L7_HTTP_MORE;
}

/* A byte a request-target may carry: visible ASCII, but no fragment. */
static bool target_char(uint8_t c)
{
	return c > 0x20 && c < 0x7f && c != '#';
}

/* Some byte of @w is not a target_char(). */
static bool target_word_stops(uint64_t w)
{
	return l7_word_has_below(w, 0x21) || l7_word_has_del_or_high(w) ||
	       l7_word_has(w, '#');
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
	if (!target_char(c))
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

/* HTTP-version, then the CR ending the request line. */
static enum l7_http_status version_byte(struct l7_http_req *r, uint8_t c)
{
	switch (l7_version_byte(&r->sub, &r->version_major, &r->version_minor,
				'\r', c)) {
	case L7_VER_MORE:
		return L7_HTTP_MORE;
	case L7_VER_DONE:
		r->f.fl.state = L7_FL_LF;
		r->state = S_FIELDS;
		return L7_HTTP_MORE;
	case L7_VER_UNSUPPORTED:
		return fail(r, L7_HTTP_E_VERSION_UNSUPPORTED);
	default:
		return fail(r, L7_HTTP_E_VERSION);
	}
}

/* ---- header fields ---- */

/* Content-Length or Transfer-Encoding: the error for the field read */
static enum l7_http_err framing_field_err(const struct l7_http_req *r)
{
	return r->f.field == L7_F_CONTENT_LENGTH ? L7_HTTP_E_CONTENT_LENGTH :
						   L7_HTTP_E_TRANSFER_ENCODING;
}

/*
 * Apache merges repeated fields into one list: a second Content-Length
 * is a list it refuses, and a Transfer-Encoding field after one that
 * ended in chunked puts something after that chunked, where it refuses
 * anything, even an empty element (ap_is_chunked()).
 */
static bool field_repeats_framing(const struct l7_http_req *r)
{
	if (r->f.field == L7_F_CONTENT_LENGTH)
		return r->f.cl_seen;
	return r->f.field == L7_F_TRANSFER_ENCODING && r->f.te_chunked_last;
}

static enum l7_http_status name_end(struct l7_http_req *r)
{
	l7_fields_name_end(&r->f);
	if (field_repeats_framing(r))
		return fail(r, framing_field_err(r));
	if (r->f.field != L7_F_HOST)
		return L7_HTTP_MORE;
	if (r->has_host)
		return fail(r, L7_HTTP_E_HOST);
	r->has_host = true;
	r->host.off = r->pos + 1;
	r->host.len = 0;
	r->val_gap = false;
	r->val_end = 0;
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

/* What the shared field reader found; the request's own tokens. */
static enum l7_http_status field_event(struct l7_http_req *r,
				       enum l7_fv_ev ev, int w)
{
	switch (ev) {
	case L7_FV_MORE:
		break;
	case L7_FV_TOKEN:
		if (r->f.field == L7_F_CONNECTION && w == L7_C_UPGRADE)
			r->upgrade = true;
		if (r->f.field != L7_F_EXPECT)
			break;
		if (w != 0)
			return fail(r, L7_HTTP_E_EXPECT);
		r->expect_seen = true;
		break;
	case L7_FV_E_CONTENT_LENGTH:
		return fail(r, L7_HTTP_E_CONTENT_LENGTH);
	case L7_FV_E_TE:
		return fail(r, L7_HTTP_E_TRANSFER_ENCODING);
	case L7_FV_E_LIST:
		return fail(r, r->f.field == L7_F_EXPECT ? L7_HTTP_E_EXPECT :
							  L7_HTTP_E_HEADER_VALUE);
	}
	return L7_HTTP_MORE;
}

/*
 * A byte, taken by the shared reader, that Apache would refuse: it reads
 * Content-Length as one off_t, not a list (even of equal values, which
 * RFC 9110 8.6 lets a recipient accept), and takes chunked as final only
 * with nothing after it, not even an empty list element.
 */
static bool value_byte_refused(const struct l7_http_req *r, uint8_t c)
{
	switch (r->f.field) {
	case L7_F_CONTENT_LENGTH:
		return c == ',' || r->f.cl_cur >> 63;
	case L7_F_TRANSFER_ENCODING:
		return c == ',' && r->f.te_chunked_last;
	}
	return false;
}

static enum l7_http_status value_byte(struct l7_http_req *r, uint8_t c)
{
	enum l7_http_status st;
	enum l7_fv_ev ev;
	int w = -1;

	if (r->f.field == L7_F_HOST)
		return host_byte(r, c);
	ev = l7_fields_value_byte(&r->f, &r->content_length, &w, c);
	st = field_event(r, ev, w);
	if (st == L7_HTTP_MORE && value_byte_refused(r, c))
		return fail(r, framing_field_err(r));
	return st;
}

static enum l7_http_status value_end(struct l7_http_req *r)
{
	enum l7_fv_ev ev;
	int w = -1;

	if (r->f.field == L7_F_HOST) {
		host_end(r);
		return L7_HTTP_MORE;
	}
	ev = l7_fields_value_end(&r->f, &r->content_length, &w);
	return field_event(r, ev, w);
}

/* The empty line was read: decide framing (RFC 9112 6.1-6.3). */
static enum l7_http_status head_end(struct l7_http_req *r)
{
	bool http11 = r->version_minor >= 1;

	if (http11 && !r->has_host)
		return fail(r, L7_HTTP_E_HOST);
	if (r->f.te_seen) {
		if (r->f.cl_seen)
			return fail(r, L7_HTTP_E_TE_AND_CL);
		if (!http11 || !r->f.te_chunked_last)
			return fail(r, L7_HTTP_E_TRANSFER_ENCODING);
		r->body = L7_HTTP_BODY_CHUNKED;
	} else if (r->f.cl_seen) {
		r->body = L7_HTTP_BODY_LENGTH;
	} else {
		r->body = L7_HTTP_BODY_NONE;
	}
	r->keep_alive = l7_fields_keep_alive(&r->f, http11);
	/* an HTTP/1.0 client cannot take a 100 (RFC 9110 10.1.1) */
	r->expect_continue = r->expect_seen && http11;
	r->head_len = r->pos + 1;
	r->state = S_DONE;
	return L7_HTTP_DONE;
}

static const enum l7_http_err field_errs[L7_FL_NERR] = {
	[L7_FL_ERR(L7_FL_E_LINE_END)]	= L7_HTTP_E_LINE_END,
	[L7_FL_ERR(L7_FL_E_NAME)]	= L7_HTTP_E_HEADER_NAME,
	[L7_FL_ERR(L7_FL_E_OBS_FOLD)]	= L7_HTTP_E_OBS_FOLD,
	[L7_FL_ERR(L7_FL_E_VALUE)]	= L7_HTTP_E_HEADER_VALUE,
};

static enum l7_http_status field_byte(struct l7_http_req *r, uint8_t c)
{
	enum l7_fl_ev ev = l7_fl_byte(&r->f.fl, l7_field_names,
				      L7_F_REQ_COUNT, c);

	switch (ev) {
	case L7_FL_MORE:
		return L7_HTTP_MORE;
	case L7_FL_NAME_BEGIN:
		if (r->header_count >= r->lim.max_headers)
			return fail(r, L7_HTTP_E_TOO_MANY_HEADERS);
		r->header_count++;
		return L7_HTTP_MORE;
	case L7_FL_NAME_END:
		return name_end(r);
	case L7_FL_VALUE_BYTE:
		return value_byte(r, c);
	case L7_FL_VALUE_END:
		return value_end(r);
	case L7_FL_END:
		return head_end(r);
	default:
		return fail(r, field_errs[L7_FL_ERR(ev)]);
	}
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
		l7_tok_byte(&r->tok, method_names, c);
		r->state = S_METHOD;
		return L7_HTTP_MORE;
	case S_LEAD_LF:
		if (c != '\n')
			return fail(r, L7_HTTP_E_LINE_END);
		/* ->sub counts them; Apache answers one more with 400 */
		if (++r->sub > L7_HTTP_MAX_BLANK_LINES)
			return fail(r, L7_HTTP_E_BLANK_LINES);
		r->state = S_LEAD;
		return L7_HTTP_MORE;
	case S_METHOD:
		if (c == ' ')
			return method_end(r);
		if (!l7_is_tchar(c))
			return fail(r, L7_HTTP_E_METHOD);
		l7_tok_byte(&r->tok, method_names, c);
		return L7_HTTP_MORE;
	case S_TARGET:
		return target_byte(r, c);
	case S_VERSION:
		return version_byte(r, c);
	case S_FIELDS:
		return field_byte(r, c);
	case S_DONE:
		return L7_HTTP_DONE;
	}
	return L7_HTTP_ERROR;
}

/*
 * How many bytes from @p on step() would take without an event: the rest
 * of an origin-form or absolute-form target after its first byte (or
 * scheme), the HTTP-version, and of a field line what
 * l7_fields_quiet_run() says.
 */
static size_t quiet_run(struct l7_http_req *r, const uint8_t *p,
			size_t n)
{
	size_t i = 0;

	if (r->state == S_FIELDS)
		return l7_fields_quiet_run(&r->f, p, n);
	if (r->state == S_VERSION)
		return l7_version_run(&r->sub, &r->version_major,
				      &r->version_minor, p, n);
	if (r->state != S_TARGET || r->sub != 2)
		return 0;
	while (i < n) {
		if (n - i >= 8 && !target_word_stops(l7_load_word(p + i))) {
			i += 8;
			continue;
		}
		if (!target_char(p[i]))
			break;
		i++;
	}
	return i;
}

enum l7_http_status l7_http_req_feed(struct l7_http_req *r,
				     const uint8_t *buf, size_t len,
				     size_t *used)
{
	size_t i = 0;

	*used = 0;
	if (r->state == S_ERROR)
		return L7_HTTP_ERROR;
	if (r->state == S_DONE)
		return L7_HTTP_DONE;

	while (i < len) {
		uint32_t room = r->pos < r->lim.max_head ?
				r->lim.max_head - r->pos : 0;
		enum l7_http_status st;
		size_t run;

		run = quiet_run(r, buf + i, len - i < room ? len - i : room);
		i += run;
		r->pos += (uint32_t)run;
		if (i == len)
			break;
		if (r->pos >= r->lim.max_head) {
			*used = i;
			return fail(r, L7_HTTP_E_HEAD_TOO_LARGE);
		}
		st = step(r, buf[i++]);
		if (st != L7_HTTP_MORE) {
			*used = i;
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
