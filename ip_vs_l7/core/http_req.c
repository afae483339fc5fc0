// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: incremental HTTP/1.1 request-head framer (RFC 9112).
 *
 * Two paths to one result.  Where a segment holds a whole line, the line
 * is read in one pass (lines_run()): the request line as a unit, a field
 * name compared whole against the names we act on, a value checked eight
 * bytes at a time, a plain Host, Content-Length or one-token list read in
 * one go.  Anything else, a line cut by the segment's end or one with
 * something to refuse, goes to step(), one byte at a time with no
 * look-back, so that a boundary anywhere, even inside a CRLF, changes
 * nothing; it matches known names and tokens with a shrinking candidate
 * mask, so nothing is buffered.  step() is the reference: the whole-line
 * path only takes what step() would take without an error, leaves the
 * framer as step() would, and reports an event on the byte step() would.
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

/* The request-target ended at the SP at ->pos. */
static void target_end(struct l7_http_req *r)
{
	r->target.len = r->pos - r->target.off;
	r->sub = 0;
	r->state = S_VERSION;
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
		target_end(r);
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

/* The name of a field ended at the ':' at ->pos; ->f.field says which. */
static enum l7_http_status field_begin(struct l7_http_req *r)
{
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

static enum l7_http_status name_end(struct l7_http_req *r)
{
	l7_fields_name_end(&r->f);
	return field_begin(r);
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
	/* most bytes are no event: no call for them */
	st = ev == L7_FV_MORE ? L7_HTTP_MORE : field_event(r, ev, w);
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

/* How many of the @n bytes at @p are target_char()s, eight at a time. */
static size_t target_run(const uint8_t *p, size_t n)
{
	size_t i = 0;

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

/*
 * A run of the Host value's bytes that step() would each take as its
 * last byte so far: no OWS, no CTL, and no OWS before them after others.
 */
static size_t host_run(struct l7_http_req *r, const uint8_t *p, size_t n)
{
	size_t i = 0;

	if (r->val_gap)
		return 0;
	while (i < n && !l7_is_ows(p[i]) && !l7_is_value_ctl(p[i]))
		i++;
	if (i) {
		if (!r->val_end)
			r->host.off = r->pos;
		r->val_end = r->pos + (uint32_t)i;
	}
	return i;
}

/*
 * How many bytes from @p on step() would take without an event: the rest
 * of an origin-form or absolute-form target after its first byte (or
 * scheme), the HTTP-version, a run of the Host value, and of a field
 * line what l7_fields_quiet_run() says.
 */
static size_t quiet_run(struct l7_http_req *r, const uint8_t *p,
			size_t n)
{
	if (r->state == S_FIELDS) {
		if (r->f.fl.state == L7_FL_VALUE && r->f.field == L7_F_HOST)
			return host_run(r, p, n);
		return l7_fields_quiet_run(&r->f, p, n);
	}
	if (r->state == S_VERSION)
		return l7_version_run(&r->sub, &r->version_major,
				      &r->version_minor, p, n);
	if (r->state != S_TARGET || r->sub != 2)
		return 0;
	return target_run(p, n);
}

/* ---- whole lines ---- */

/* @p[0..@len) is @word, byte for byte (methods are case-sensitive). */
static bool bytes_are(const uint8_t *p, size_t len, const char *word)
{
	size_t i;

	for (i = 0; i < len && word[i]; i++)
		if (p[i] != (uint8_t)word[i])
			return false;
	return i == len && !word[i];
}

static enum l7_http_method method_lookup(const uint8_t *p, size_t len)
{
	size_t m;

	for (m = 0; m < L7_ARRAY_SIZE(method_names); m++)
		if (bytes_are(p, len, method_names[m]))
			return (enum l7_http_method)(m + 1);
	return L7_HTTP_M_OTHER;
}

/*
 * The request line at @p, in one pass: "METHOD /target HTTP/1.x" CRLF.
 * Each part that the @n bytes hold and step() would take without an
 * event other than its end is taken, and the framer left as step() would
 * leave it there; the rest of the line, cut by the segment's end or with
 * something to refuse (an empty line before it, another target form,
 * CONNECT, any error), is step()'s.  Returns the bytes taken.
 */
static size_t request_line(struct l7_http_req *r, const uint8_t *p,
			   size_t n)
{
	uint32_t at = r->pos;
	size_t m = 0, t, v;

	while (m < n && l7_is_tchar(p[m]))
		m++;
	if (m == 0 || m == n || p[m] != ' ')
		return 0;
	r->method = method_lookup(p, m);
	if (r->method == L7_HTTP_M_CONNECT)
		return 0;
	r->method_span.off = at;
	r->method_span.len = (uint32_t)m;
	r->target.off = at + (uint32_t)m + 1;
	r->sub = 0;
	r->state = S_TARGET;
	t = m + 1;
	if (t == n || p[t] != '/') {
		r->pos = at + (uint32_t)t;
		return t;
	}

	r->target_form = L7_HTTP_T_ORIGIN;
	r->sub = 2;
	v = t + 1 + target_run(p + t + 1, n - t - 1);
	r->pos = at + (uint32_t)v;
	if (v == n || p[v] != ' ')
		return v;
	target_end(r);

	v++;
	if (n - v < 9 || !l7_version_whole(p + v, &r->version_major,
					   &r->version_minor) ||
	    r->version_major != 1 || p[v + 8] != '\r') {
		r->version_major = 0;
		r->version_minor = 0;
		r->pos = at + (uint32_t)v;
		return v;
	}
	r->f.fl.state = L7_FL_LF;
	r->state = S_FIELDS;
	v += 9;
	if (v < n && p[v] == '\n') {
		r->f.fl.state = L7_FL_LINE;
		v++;
	}
	r->pos = at + (uint32_t)v;
	return v;
}

/*
 * A Host value, @p[0..@n) from ->pos on, that is one run of non-OWS
 * bytes between OWS, taken whole as host_byte() takes it byte by byte.
 * False, nothing changed, for anything else.
 */
static bool host_whole(struct l7_http_req *r, const uint8_t *p, size_t n)
{
	size_t i = 0, from, to;

	while (i < n && l7_is_ows(p[i]))
		i++;
	for (from = i; i < n && !l7_is_ows(p[i]); i++)
		;
	to = i;
	while (i < n && l7_is_ows(p[i]))
		i++;
	if (i != n)
		return false;
	if (to > from) {
		r->host.off = r->pos + (uint32_t)from;
		r->val_end = r->pos + (uint32_t)to;
		r->val_gap = to != n;
	}
	return true;
}

/*
 * A plain value, @p[0..@n) from ->pos on, whose CR follows it, read in
 * one go up to its end: Host, Content-Length, or a list of one token,
 * whose event comes where step() would find it.  False, nothing
 * changed, for another value, read byte by byte.
 */
static bool value_whole(struct l7_http_req *r, const uint8_t *p, size_t n,
			enum l7_http_status *st)
{
	uint32_t at = r->pos;
	enum l7_fv_ev ev;
	size_t tok_end;
	int w;

	switch (r->f.field) {
	case L7_F_HOST:
		if (!host_whole(r, p, n))
			return false;
		r->pos = at + (uint32_t)n;
		*st = value_end(r);
		return true;
	case L7_F_CONTENT_LENGTH:
		if (!l7_cl_whole(&r->f, p, n))
			return false;
		r->pos = at + (uint32_t)n;
		*st = value_end(r);
		return true;
	}
	if (!l7_fields_token_whole(&r->f, p, n, &tok_end, &w, &ev))
		return false;
	r->pos = at + (uint32_t)tok_end;
	*st = field_event(r, ev, w);
	if (*st == L7_HTTP_MORE)
		r->pos = at + (uint32_t)n;
	return true;
}

/*
 * The field line (or the empty line ending the head) at @p, whole, if
 * l7_field_line() finds one: the name compared whole, a known field's
 * plain value (value_whole()) read in one go, any other field's not
 * looked at again.  Another value of a known field is left to step(),
 * from its first byte on.  On DONE or ERROR ->pos is on the byte that decided it,
 * the last one taken, as after step().  0 leaves the line to step().
 */
static size_t field_line(struct l7_http_req *r, const uint8_t *p, size_t n,
			 enum l7_http_status *st)
{
	uint32_t at = r->pos;
	size_t name, len;

	if (n >= 2 && p[0] == '\r' && p[1] == '\n') {
		r->pos = at + 1;
		*st = head_end(r);
		return 2;
	}
	len = l7_field_line(p, n, &name);
	if (!len || r->header_count >= r->lim.max_headers)
		return 0;
	r->header_count++;
	l7_fields_begin(&r->f, l7_field_lookup(p, (uint32_t)name,
					       L7_F_REQ_COUNT));
	if (r->f.field != L7_F_OTHER) {
		r->pos = at + (uint32_t)name;
		*st = field_begin(r);
		if (*st != L7_HTTP_MORE)
			return name + 1;
		r->pos++;
		if (!value_whole(r, p + name + 1, len - name - 3, st)) {
			/* step() reads it, from its first byte on */
			r->f.fl.state = L7_FL_VALUE;
			return name + 1;
		}
		if (*st != L7_HTTP_MORE)
			return r->pos - at + 1;
	}
	r->pos = at + (uint32_t)len;
	return len;
}

/*
 * Whole lines from a line's start: the request line, then field lines,
 * each taken in one pass where the segment holds all of it.  Returns the
 * bytes taken; *st is MORE, or what the last of them decided.
 */
static size_t lines_run(struct l7_http_req *r, const uint8_t *p, size_t n,
			enum l7_http_status *st)
{
	size_t i = 0, k;

	*st = L7_HTTP_MORE;
	if (r->state == S_LEAD) {
		i = request_line(r, p, n);
		if (!i)
			return 0;
	}
	while (r->state == S_FIELDS && r->f.fl.state == L7_FL_LINE) {
		k = field_line(r, p + i, n - i, st);
		i += k;
		if (!k || *st != L7_HTTP_MORE)
			break;
	}
	return i;
}

static bool at_line_start(const struct l7_http_req *r)
{
	return r->state == S_LEAD ||
	       (r->state == S_FIELDS && r->f.fl.state == L7_FL_LINE);
}

/* feed() ends with @st after taking @i bytes. */
static enum l7_http_status feed_end(struct l7_http_req *r,
				    enum l7_http_status st, size_t i,
				    size_t *used)
{
	*used = i;
	if (st == L7_HTTP_DONE)
		r->pos++;
	return st;
}

/*
 * Whole lines where the segment holds them; what is left of a line (cut
 * by the segment's end, or with something to refuse) goes to quiet_run()
 * and step(), byte by byte.  Whole lines are tried again only where a
 * quiet run ends a line, so the byte path pays nothing for them.
 */
enum l7_http_status l7_http_req_feed(struct l7_http_req *r,
				     const uint8_t *buf, size_t len,
				     size_t *used)
{
	size_t i = 0;
	bool whole = true;

	*used = 0;
	if (r->state == S_ERROR)
		return L7_HTTP_ERROR;
	if (r->state == S_DONE)
		return L7_HTTP_DONE;

	while (i < len) {
		uint32_t room = r->pos < r->lim.max_head ?
				r->lim.max_head - r->pos : 0;
		size_t n = len - i < room ? len - i : room;
		enum l7_http_status st;
		size_t run;

		if (whole && at_line_start(r)) {
			i += lines_run(r, buf + i, n, &st);
			if (st != L7_HTTP_MORE)
				return feed_end(r, st, i, used);
			whole = false;
			continue;
		}
		run = quiet_run(r, buf + i, n);
		i += run;
		r->pos += (uint32_t)run;
		if (i == len)
			break;
		if (run && at_line_start(r)) {
			whole = true;
			continue;
		}
		if (r->pos >= r->lim.max_head) {
			*used = i;
			return fail(r, L7_HTTP_E_HEAD_TOO_LARGE);
		}
		st = step(r, buf[i++]);
		if (st != L7_HTTP_MORE)
			return feed_end(r, st, i, used);
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
