// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: incremental HTTP/1.1 response framer (RFC 9112).
 *
 * The head is read a line at a time where a segment holds the whole line
 * (lines_run()), and through step() one byte at a time with no look-back
 * where it does not, so a segment boundary may fall anywhere, even inside
 * a CRLF, without changing the result: as in the request framer, step()
 * is the reference the whole-line path keeps to.  A Content-Length or
 * chunked body is handed to the body framer (http_body.c), which takes
 * body bytes and chunk data by count: the director passes them through
 * and never needs to look at them.
 */
#include "http_resp.h"

enum {
	S_VERSION,	/* "HTTP/1.1 " */
	S_CODE,		/* three digits, then SP or CR */
	S_REASON,
	S_FIELDS,	/* from the CR ending the status line: ->f.fl has it */
	S_BODY,		/* Content-Length or chunked: ->framer has it */
	S_BODY_CLOSE,	/* everything, until eof() */
	S_INTERIM,	/* a 1xx was reported; the next feed() starts afresh */
	S_UPGRADED,
	S_DONE,
	S_ERROR,
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
	uint64_t start = r->start + r->pos;

	*r = (struct l7_http_resp){ 0 };
	r->start = start;
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
	r->start = 0;
	r->pos = 0;
	resp_start(r, false);
}

/* ---- status line ---- */

/* HTTP-version, then the SP before the status code. */
static enum l7_resp_status version_byte(struct l7_http_resp *r, uint8_t c)
{
	switch (l7_version_byte(&r->sub, &r->version_major, &r->version_minor,
				' ', c)) {
	case L7_VER_MORE:
		return L7_RESP_MORE;
	case L7_VER_DONE:
		r->sub = 0;
		r->state = S_CODE;
		return L7_RESP_MORE;
	case L7_VER_UNSUPPORTED:
		return fail(r, L7_RESP_E_VERSION_UNSUPPORTED);
	default:
		return fail(r, L7_RESP_E_VERSION);
	}
}

/* The CR ending the status line: its LF, then the header fields. */
static enum l7_resp_status line_end(struct l7_http_resp *r)
{
	r->f.fl.state = L7_FL_LF;
	r->state = S_FIELDS;
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
		return line_end(r);
	}
	return fail(r, L7_RESP_E_STATUS);
}

static enum l7_resp_status reason_byte(struct l7_http_resp *r, uint8_t c)
{
	if (c == '\r') {
		r->reason.len = (uint32_t)r->pos - r->reason.off;
		return line_end(r);
	}
	if (c == '\n')
		return fail(r, L7_RESP_E_LINE_END);
	if (l7_is_value_ctl(c))
		return fail(r, L7_RESP_E_REASON);
	return L7_RESP_MORE;
}

/* How the body is delimited, for a final (2xx-5xx) response. */
static enum l7_resp_body body_kind(const struct l7_http_resp *r)
{
	if (r->req_method == L7_HTTP_M_HEAD || r->status_code == 204 ||
	    r->status_code == 304)
		return L7_RESP_BODY_NONE;
	if (r->f.te_seen)
		/* RFC 9112 6.3: not chunked at the end, so read to close */
		return r->f.te_chunked_last ? L7_RESP_BODY_CHUNKED :
					      L7_RESP_BODY_CLOSE;
	if (r->f.cl_seen)
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
	if (r->f.te_seen) {
		/* TE would win, but a backend sending both is not trusted */
		if (r->f.cl_seen)
			return fail(r, L7_RESP_E_TE_AND_CL);
		/* an HTTP/1.0 message with TE has faulty framing (6.1) */
		if (!http11 || !r->f.te_coding)
			return fail(r, L7_RESP_E_TRANSFER_ENCODING);
	}
	r->keep_alive = l7_fields_keep_alive(&r->f, http11);
	r->conn_keep_alive = r->f.conn_keep_alive && !r->f.conn_close;

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

/* ---- header fields ---- */

static enum l7_resp_status field_event(struct l7_http_resp *r,
				       enum l7_fv_ev ev)
{
	switch (ev) {
	case L7_FV_E_CONTENT_LENGTH:
		return fail(r, L7_RESP_E_CONTENT_LENGTH);
	case L7_FV_E_TE:
		return fail(r, L7_RESP_E_TRANSFER_ENCODING);
	case L7_FV_E_LIST:
		return fail(r, L7_RESP_E_HEADER_VALUE);
	default:
		return L7_RESP_MORE;
	}
}

static const enum l7_resp_err field_errs[L7_FL_NERR] = {
	[L7_FL_ERR(L7_FL_E_LINE_END)]	= L7_RESP_E_LINE_END,
	[L7_FL_ERR(L7_FL_E_NAME)]	= L7_RESP_E_HEADER_NAME,
	[L7_FL_ERR(L7_FL_E_OBS_FOLD)]	= L7_RESP_E_OBS_FOLD,
	[L7_FL_ERR(L7_FL_E_VALUE)]	= L7_RESP_E_HEADER_VALUE,
};

/* A "Connection" name just ended, at the ':' at ->pos. */
static void conn_name_note(struct l7_http_resp *r)
{
	if (r->conn_names == L7_RESP_CONN_NAMES) {
		r->conn_names_over = true;
		return;
	}
	r->conn_name_at[r->conn_names++] = r->start + r->pos -
					   (sizeof("connection") - 1);
}

/* A name ended at the ':' at ->pos; ->f.field says which. */
static void field_begin(struct l7_http_resp *r)
{
	if (r->f.field == L7_F_CONNECTION && r->status_code >= 200)
		conn_name_note(r);
}

/* Only the fields that decide framing are read, not their values. */
static enum l7_resp_status field_byte(struct l7_http_resp *r, uint8_t c)
{
	enum l7_fl_ev ev = l7_fl_byte(&r->f.fl, l7_field_names,
				      L7_F_RESP_COUNT, c);
	int w;

	switch (ev) {
	case L7_FL_MORE:
		return L7_RESP_MORE;
	case L7_FL_NAME_BEGIN:
		if (r->header_count >= r->lim.max_headers)
			return fail(r, L7_RESP_E_TOO_MANY_HEADERS);
		r->header_count++;
		return L7_RESP_MORE;
	case L7_FL_NAME_END:
		l7_fields_name_end(&r->f);
		field_begin(r);
		return L7_RESP_MORE;
	case L7_FL_VALUE_BYTE:
		return field_event(r, l7_fields_value_byte(&r->f,
							   &r->content_length,
							   &w, c));
	case L7_FL_VALUE_END:
		return field_event(r, l7_fields_value_end(&r->f,
							  &r->content_length,
							  &w));
	case L7_FL_END:
		return head_end(r);
	default:
		return fail(r, field_errs[L7_FL_ERR(ev)]);
	}
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
	case S_FIELDS:
		return field_byte(r, c);
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

/*
 * How many bytes from @p on step() would take without an event: the
 * HTTP-version, the reason phrase, and of a field line what
 * l7_fields_quiet_run() says.
 */
static size_t quiet_run(struct l7_http_resp *r, const uint8_t *p,
			size_t n)
{
	switch (r->state) {
	case S_VERSION:
		return l7_version_run(&r->sub, &r->version_major,
				      &r->version_minor, p, n);
	case S_REASON:
		return l7_value_run(p, n);
	case S_FIELDS:
		return l7_fields_quiet_run(&r->f, p, n);
	}
	return 0;
}

/* ---- whole lines ---- */

/* The status code's three digits at @p, as code_byte() takes them. */
static bool code_whole(const uint8_t *p)
{
	return p[0] >= '1' && p[0] <= '5' && l7_is_digit(p[1]) &&
	       l7_is_digit(p[2]);
}

/*
 * How much of the status line at @p, "HTTP/1.x NNN reason" CRLF (or no
 * reason, or not even its SP), step() would take without an event other
 * than a part's end, taken in one pass: the framer is left as step()
 * would leave it there.  The rest of the line, cut by the segment's end
 * or with something to refuse, is step()'s.
 */
static size_t status_line(struct l7_http_resp *r, const uint8_t *p, size_t n)
{
	size_t e;

	if (n < 9 || !l7_version_whole(p, &r->version_major,
				       &r->version_minor) ||
	    r->version_major != 1 || p[8] != ' ') {
		r->version_major = 0;
		r->version_minor = 0;
		return 0;
	}
	r->state = S_CODE;
	e = 9;
	if (n >= 13 && code_whole(p + 9)) {
		r->status_code = (p[9] - '0') * 100 + (p[10] - '0') * 10 +
				 (p[11] - '0');
		r->sub = 3;
		e = 12;
		if (p[12] == ' ') {
			r->reason.off = (uint32_t)r->pos + 13;
			r->state = S_REASON;
			e = 13 + l7_value_run(p + 13, n - 13);
			if (e < n && p[e] == '\r') {
				r->reason.len = (uint32_t)r->pos + (uint32_t)e -
						r->reason.off;
				line_end(r);
				e++;
			}
		} else if (p[12] == '\r') {
			r->reason.off = (uint32_t)r->pos + 12;
			line_end(r);
			e = 13;
		}
	}
	if (r->state == S_FIELDS && e < n && p[e] == '\n') {
		r->f.fl.state = L7_FL_LINE;
		e++;
	}
	r->pos += e;
	r->budget -= (uint32_t)e;
	return e;
}

/*
 * A plain value, @p[0..@n) from ->pos on, whose CR follows it, read in
 * one go up to its end: Content-Length, or a list of one token, whose
 * event comes where step() would find it.  False, nothing changed, for
 * another value, read byte by byte.
 */
static bool value_whole(struct l7_http_resp *r, const uint8_t *p, size_t n,
			enum l7_resp_status *st)
{
	uint64_t at = r->pos;
	enum l7_fv_ev ev;
	size_t tok_end;
	int w;

	if (r->f.field == L7_F_CONTENT_LENGTH) {
		if (!l7_cl_whole(&r->f, p, n))
			return false;
		r->pos = at + n;
		*st = field_event(r, l7_fields_value_end(&r->f,
							 &r->content_length,
							 &w));
		return true;
	}
	if (!l7_fields_token_whole(&r->f, p, n, &tok_end, &w, &ev))
		return false;
	r->pos = at + tok_end;
	*st = field_event(r, ev);
	if (*st == L7_RESP_MORE)
		r->pos = at + n;
	return true;
}

/*
 * The field line (or the empty line ending the head) at @p, whole, if
 * l7_field_line() finds one: the name compared whole, a known field's
 * plain value (value_whole()) read in one go, any other field's not
 * looked at again.  Another value of a known field is left to step(),
 * from its first byte on.  On an
 * event ->pos is on the byte that decided it, the last one taken, as
 * after step().  0 leaves the line to step().
 */
static size_t field_line(struct l7_http_resp *r, const uint8_t *p, size_t n,
			 enum l7_resp_status *st)
{
	uint64_t at = r->pos;
	size_t name, len;

	if (n >= 2 && p[0] == '\r' && p[1] == '\n') {
		r->pos = at + 1;
		r->budget -= 2;
		*st = head_end(r);
		return 2;
	}
	len = l7_field_line(p, n, &name);
	if (!len || r->header_count >= r->lim.max_headers)
		return 0;
	r->header_count++;
	l7_fields_begin(&r->f, l7_field_lookup(p, (uint32_t)name,
					       L7_F_RESP_COUNT));
	if (r->f.field != L7_F_OTHER) {
		r->pos = at + name;
		field_begin(r);
		r->pos++;
		if (!value_whole(r, p + name + 1, len - name - 3, st)) {
			/* step() reads it, from its first byte on */
			r->f.fl.state = L7_FL_VALUE;
			r->budget -= (uint32_t)name + 1;
			return name + 1;
		}
		if (*st != L7_RESP_MORE)
			return (size_t)(r->pos - at) + 1;
	}
	r->pos = at + len;
	r->budget -= (uint32_t)len;
	return len;
}

/*
 * The status line, then field lines, each whole where the segment holds
 * it, as in the request framer.
 */
static size_t lines_run(struct l7_http_resp *r, const uint8_t *p, size_t n,
			enum l7_resp_status *st)
{
	size_t i = 0, k;

	*st = L7_RESP_MORE;
	if (r->state == S_VERSION) {
		i = status_line(r, p, n);
		if (!i)
			return 0;
	}
	while (r->state == S_FIELDS && r->f.fl.state == L7_FL_LINE) {
		k = field_line(r, p + i, n - i, st);
		i += k;
		if (!k || *st != L7_RESP_MORE)
			break;
	}
	return i;
}

static bool at_line_start(const struct l7_http_resp *r)
{
	return (r->state == S_VERSION && r->sub == 0) ||
	       (r->state == S_FIELDS && r->f.fl.state == L7_FL_LINE);
}

/* feed() ends with @st after taking @i bytes. */
static enum l7_resp_status feed_end(struct l7_http_resp *r,
				    enum l7_resp_status st, size_t i,
				    size_t *used)
{
	*used = i;
	if (st != L7_RESP_ERROR)
		r->pos++;
	return st;
}

/* Whole lines first, the rest byte by byte, as l7_http_req_feed() does. */
enum l7_resp_status l7_http_resp_feed(struct l7_http_resp *r,
				      const uint8_t *buf, size_t len,
				      size_t *used)
{
	size_t i = 0;
	bool whole = true;

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
		size_t n = len - i < r->budget ? len - i : r->budget;
		enum l7_resp_status st;
		size_t run;

		if (r->state == S_BODY_CLOSE) {
			r->pos += len - i;
			break;
		}
		if (whole && at_line_start(r)) {
			i += lines_run(r, buf + i, n, &st);
			if (st != L7_RESP_MORE)
				return feed_end(r, st, i, used);
			whole = false;
			continue;
		}
		run = quiet_run(r, buf + i, n);
		i += run;
		r->pos += run;
		r->budget -= (uint32_t)run;
		if (i == len)
			break;
		if (run && at_line_start(r)) {
			whole = true;
			continue;
		}
		if (r->budget == 0) {
			*used = i;
			return fail(r, L7_RESP_E_HEAD_TOO_LARGE);
		}
		r->budget--;
		st = step(r, buf[i++]);
		if (st != L7_RESP_MORE)
			return feed_end(r, st, i, used);
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
