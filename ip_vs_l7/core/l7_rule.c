// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: content rules - the request view, path and host
 * normalisation, and the first-match matcher (see l7_rule.h).
 *
 * Every loop here is bounded by the bytes of the head, of a rule value or
 * of a name; nothing backtracks.  The head has passed the framer, but the
 * view is built as if it had not: every offset is checked against the
 * head's length, so a glue bug cannot turn into an out-of-bounds read.
 */
#include "l7_rule.h"
#include "l7_rule_index.h"

/* ---- characters ---- */

static bool is_unreserved(uint8_t c)
{
	return l7_is_alpha(c) || l7_is_digit(c) || c == '-' || c == '.' ||
	       c == '_' || c == '~';
}

/* RFC 6265 cookie-octet */
static bool is_cookie_octet(uint8_t c)
{
	return c > 0x20 && c < 0x7f && c != '"' && c != ',' && c != ';' &&
	       c != '\\';
}

static bool ieq(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;
	size_t i;

	for (i = 0; i < n; i++) {
		if (l7_to_lower(x[i]) != l7_to_lower(y[i]))
			return false;
	}
	return true;
}

static bool eq(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;
	size_t i;

	for (i = 0; i < n; i++) {
		if (x[i] != y[i])
			return false;
	}
	return true;
}

static bool all_tchar(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!l7_is_tchar(s[i]))
			return false;
	}
	return n > 0;
}

/* ---- path normalisation ---- */

static const char hex_upper[] = "0123456789ABCDEF";

/*
 * Decode one segment from in[*i] up to the next '/' (or the end) into
 * out[*o].  False if it holds a byte or escape we refuse.
 */
static bool path_segment(const char *in, uint32_t len, uint32_t *i,
			 char *out, uint32_t *o)
{
	while (*i < len && in[*i] != '/') {
		uint8_t c = in[*i];
		int hi, lo;

		if (c <= 0x20 || c >= 0x7f || c == '?' || c == '#')
			return false;
		if (c != '%') {
			out[(*o)++] = c;
			(*i)++;
			continue;
		}
		if (len - *i < 3)
			return false;
		hi = l7_hex_val(in[*i + 1]);
		lo = l7_hex_val(in[*i + 2]);
		if (hi < 0 || lo < 0)
			return false;
		c = (uint8_t)(hi << 4 | lo);
		if (c == 0 || c == '/')
			return false;
		if (is_unreserved(c)) {
			out[(*o)++] = c;
		} else {
			out[(*o)++] = '%';
			out[(*o)++] = hex_upper[hi];
			out[(*o)++] = hex_upper[lo];
		}
		*i += 3;
	}
	return true;
}

int l7_path_normalise(const char *in, uint32_t len, char *out)
{
	uint32_t i = 0, o = 0;

	if (len == 0 || in[0] != '/' || len > 0x7fffffff)
		return -1;
	while (i < len) {
		uint32_t seg, n;

		while (i < len && in[i] == '/')
			i++;
		seg = o;
		out[o++] = '/';
		if (!path_segment(in, len, &i, out, &o))
			return -1;
		n = o - seg - 1;
		/* ".;x" and "..;x" are "." and ".." to some servers */
		if (n >= 2 && out[seg + 1] == '.' &&
		    (out[seg + 2] == ';' ||
		     (n >= 3 && out[seg + 2] == '.' && out[seg + 3] == ';')))
			return -1;
		if (n == 1 && out[seg + 1] == '.') {
			o = seg;
		} else if (n == 2 && out[seg + 1] == '.' && out[seg + 2] == '.') {
			if (seg == 0)
				return -1;	/* above the root */
			o = seg - 1;
			while (out[o] != '/')
				o--;
		} else {
			continue;
		}
		/* a dot segment at the end leaves its directory's '/' */
		if (i == len)
			out[o++] = '/';
	}
	return (int)o;
}

/* ---- host normalisation ---- */

static int host_ip_literal(const char *in, uint32_t len)
{
	uint32_t i;

	for (i = 1; i < len && in[i] != ']'; i++) {
		if (l7_hex_val(in[i]) < 0 && in[i] != ':' && in[i] != '.')
			return -1;
	}
	if (i == len || i < 2 || i + 1 > L7_HOST_MAX)
		return -1;
	return (int)i + 1;
}

static int host_reg_name(const char *in, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len && in[i] != ':'; i++) {
		uint8_t c = in[i];

		if (c == '.') {
			/* no empty label; a final '.' is the root's */
			if (i == 0 || in[i - 1] == '.')
				return -1;
			continue;
		}
		if (!l7_is_alpha(c) && !l7_is_digit(c) && c != '-' && c != '_')
			return -1;
	}
	return (int)i;
}

int l7_host_normalise(const char *in, uint32_t len, char *out)
{
	int n, port;
	int i;

	if (len == 0)
		return 0;
	if (len > 0xffff)
		return -1;
	n = in[0] == '[' ? host_ip_literal(in, len) :
			   host_reg_name(in, len);
	if (n <= 0)
		return -1;
	if ((uint32_t)n < len) {
		if (in[n] != ':')
			return -1;
		for (port = n + 1; (uint32_t)port < len; port++) {
			if (!l7_is_digit(in[port]))
				return -1;
		}
	}
	if (in[0] != '[' && in[n - 1] == '.')
		n--;
	if (n == 0 || n > L7_HOST_MAX)
		return -1;
	for (i = 0; i < n; i++)
		out[i] = l7_to_lower(in[i]);
	return n;
}

/* ---- the request view ---- */

static int view_host(struct l7_req_view *v, const uint8_t *p, uint32_t n)
{
	int h = l7_host_normalise((const char *)p, n, v->host);

	if (h < 0)
		return 400;
	v->host_len = (uint16_t)h;
	return 0;
}

static int view_path(struct l7_req_view *v, const uint8_t *p, uint32_t n,
		     char *buf, uint32_t cap)
{
	uint32_t q;
	int len;

	for (q = 0; q < n && p[q] != '?'; q++)
		;
	if (q == 0) {		/* "http://host" or "http://host?q" */
		buf[0] = '/';
		len = 1;
	} else {
		if (q > cap)
			return 500;
		len = l7_path_normalise((const char *)p, q, buf);
		if (len < 0)
			return 400;
	}
	v->path = buf;
	v->path_len = (uint32_t)len;
	return 0;
}

/*
 * absolute-form: "http://" or "https://" (any case), an authority
 * without userinfo, then the path.  The authority is the host.
 */
static int view_absolute(struct l7_req_view *v, const uint8_t *t, uint32_t n,
			 char *buf, uint32_t cap)
{
	uint32_t i, a;
	int st;

	if (n >= 7 && ieq(t, "http://", 7))
		i = 7;
	else if (n >= 8 && ieq(t, "https://", 8))
		i = 8;
	else
		return 400;
	for (a = i; a < n && t[a] != '/' && t[a] != '?'; a++) {
		if (t[a] == '@')
			return 400;
	}
	if (a == i)
		return 400;
	st = view_host(v, t + i, a - i);
	if (st)
		return st;
	return view_path(v, t + a, n - a, buf, cap);
}

/* Index the field lines from @i, just past the request line's LF. */
static int view_fields(struct l7_req_view *v, uint32_t i)
{
	const uint8_t *h = v->head;
	uint32_t len = v->head_len;

	while (i < len && h[i] != '\r') {
		struct l7_view_field *f;
		uint32_t end;

		if (v->nfields == L7_VIEW_FIELDS_MAX)
			return 431;
		f = &v->fields[v->nfields++];
		f->name_off = i;
		while (i < len && h[i] != ':' && h[i] != '\r')
			i++;
		if (i == len || h[i] != ':')
			return 400;
		f->name_len = i - f->name_off;
		i++;
		while (i < len && l7_is_ows(h[i]))
			i++;
		f->value_off = i;
		while (i < len && h[i] != '\r')
			i++;
		end = i;
		while (end > f->value_off && l7_is_ows(h[end - 1]))
			end--;
		f->value_len = end - f->value_off;
		if (len - i < 2 || h[i + 1] != '\n')
			return 400;
		i += 2;
	}
	return i < len ? 0 : 400;	/* the empty line must be there */
}

int l7_req_view_build(struct l7_req_view *v, const uint8_t *head,
		      uint32_t len, const struct l7_http_req *req,
		      char *path_buf, uint32_t path_cap)
{
	const uint8_t *t = head + req->target.off;
	uint32_t tlen = req->target.len, i;
	int st;

	v->head = head;
	v->head_len = len;
	v->method = req->method;
	v->path = path_buf;
	v->path_len = 0;
	v->host_len = 0;
	v->nfields = 0;
	if (req->target.off > len || tlen > len - req->target.off || !tlen)
		return 400;
	if (path_cap < tlen + 1)
		return 500;

	switch (req->target_form) {
	case L7_HTTP_T_ASTERISK:
		path_buf[0] = '*';
		v->path_len = 1;
		st = 0;
		break;
	case L7_HTTP_T_ABSOLUTE:
		st = view_absolute(v, t, tlen, path_buf, path_cap);
		break;
	default:
		st = view_path(v, t, tlen, path_buf, path_cap);
		break;
	}
	if (st)
		return st;
	if (req->target_form != L7_HTTP_T_ABSOLUTE && req->has_host) {
		if (req->host.off > len || req->host.len > len - req->host.off)
			return 400;
		st = view_host(v, head + req->host.off, req->host.len);
		if (st)
			return st;
	}

	for (i = req->target.off + tlen; i < len && head[i] != '\n'; i++)
		;
	if (i == len)
		return 400;
	return view_fields(v, i + 1);
}

/* ---- lookups ---- */

static bool field_is(const struct l7_req_view *v, const struct l7_view_field *f,
		     const char *name, uint32_t name_len)
{
	return f->name_len == name_len &&
	       ieq(v->head + f->name_off, name, name_len);
}

const uint8_t *l7_view_header(const struct l7_req_view *v, const char *name,
			      uint32_t name_len, unsigned int nth,
			      uint32_t *len)
{
	unsigned int i;

	for (i = 0; i < v->nfields; i++) {
		const struct l7_view_field *f = &v->fields[i];

		if (!field_is(v, f, name, name_len) || nth--)
			continue;
		*len = f->value_len;
		return v->head + f->value_off;
	}
	return NULL;
}

/*
 * The next cookie-pair of a Cookie value from *i: name and value spans,
 * OWS trimmed, DQUOTEs around the value removed.  A piece without '='
 * has an empty name (it matches no test).
 */
struct cookie_pair {
	const uint8_t *name, *value;
	uint32_t name_len, value_len;
};

static void trim(const uint8_t **p, uint32_t *n)
{
	while (*n && l7_is_ows((*p)[0])) {
		(*p)++;
		(*n)--;
	}
	while (*n && l7_is_ows((*p)[*n - 1]))
		(*n)--;
}

static bool cookie_next(const uint8_t *s, uint32_t len, uint32_t *i,
			struct cookie_pair *cp)
{
	uint32_t start = *i, eqs = 0, end;

	if (*i >= len)
		return false;
	for (end = start; end < len && s[end] != ';'; end++) {
		if (s[end] == '=' && !eqs)
			eqs = end + 1;
	}
	*i = end + 1;
	if (!eqs) {
		cp->name = s + start;
		cp->name_len = 0;
		cp->value = s + start;
		cp->value_len = 0;
		return true;
	}
	cp->name = s + start;
	cp->name_len = eqs - 1 - start;
	trim(&cp->name, &cp->name_len);
	cp->value = s + eqs;
	cp->value_len = end - eqs;
	trim(&cp->value, &cp->value_len);
	if (cp->value_len >= 2 && cp->value[0] == '"' &&
	    cp->value[cp->value_len - 1] == '"') {
		cp->value++;
		cp->value_len -= 2;
	}
	return true;
}

/*
 * The first cookie @name, or with @want the first one whose value is
 * @want: a name sent twice is matched on either, never on one picked.
 */
static const uint8_t *cookie_find(const struct l7_req_view *v,
				  const char *name, uint32_t name_len,
				  const char *want, uint32_t want_len,
				  uint32_t *len)
{
	unsigned int f;

	for (f = 0; f < v->nfields; f++) {
		const struct l7_view_field *fl = &v->fields[f];
		const uint8_t *s = v->head + fl->value_off;
		struct cookie_pair cp;
		uint32_t i = 0;

		if (!field_is(v, fl, "cookie", 6))
			continue;
		while (cookie_next(s, fl->value_len, &i, &cp)) {
			if (cp.name_len != name_len ||
			    !eq(cp.name, name, name_len))
				continue;
			if (want && (cp.value_len != want_len ||
				     !eq(cp.value, want, want_len)))
				continue;
			*len = cp.value_len;
			return cp.value;
		}
	}
	return NULL;
}

const uint8_t *l7_view_cookie(const struct l7_req_view *v, const char *name,
			      uint32_t name_len, uint32_t *len)
{
	return cookie_find(v, name, name_len, NULL, 0, len);
}

bool l7_view_hash_key(const struct l7_req_view *v,
		      const struct l7_pool_policy *p,
		      const uint8_t **key, uint32_t *len)
{
	switch (p->key) {
	case L7_KEY_URI:
		*key = (const uint8_t *)v->path;
		*len = v->path_len;
		return true;
	case L7_KEY_HOST:
		*key = (const uint8_t *)v->host;
		*len = v->host_len;
		return v->host_len > 0;
	case L7_KEY_COOKIE:
		*key = l7_view_cookie(v, p->key_name.s, p->key_name.len, len);
		return *key;
	case L7_KEY_HEADER:
		*key = l7_view_header(v, p->key_name.s, p->key_name.len, 0,
				      len);
		return *key;
	}
	return false;
}

/* ---- matching ---- */

static bool host_matches(const struct l7_rule *r, const struct l7_req_view *v)
{
	const char *h = r->host.s;
	uint32_t n = r->host.len;

	if (!n)
		return true;
	if (n >= 2 && h[0] == '*' && h[1] == '.') {
		/* ".example.com" after at least one byte: label-aligned */
		h++;
		n--;
		return v->host_len > n &&
		       ieq(v->host + v->host_len - n, h, n);
	}
	return v->host_len == n && ieq(v->host, h, n);
}

static bool path_matches(const struct l7_rule *r, const struct l7_req_view *v)
{
	bool nocase = r->flags & L7_RULE_F_PATH_NOCASE;
	uint32_t n = r->path.len;

	switch (r->path_kind) {
	case L7_PATH_EXACT:
		if (v->path_len != n)
			return false;
		break;
	case L7_PATH_PREFIX:
		if (v->path_len < n)
			return false;
		if (v->path_len > n && r->path.s[n - 1] != '/' &&
		    v->path[n] != '/')
			return false;
		break;
	default:
		return true;
	}
	return nocase ? ieq(v->path, r->path.s, n) : eq(v->path, r->path.s, n);
}

/* Whether @val is one of the '|'-separated alternatives of @alts. */
static bool one_of(const struct l7_rule_value *alts, const uint8_t *val,
		   uint32_t len)
{
	uint32_t a = 0, b;

	while (a <= alts->len) {
		for (b = a; b < alts->len && alts->s[b] != '|'; b++)
			;
		if (b - a == len && eq(alts->s + a, val, len))
			return true;
		a = b + 1;
	}
	return false;
}

static bool hdr_matches(const struct l7_hdr_test *t,
			const struct l7_req_view *v)
{
	unsigned int i;

	for (i = 0; i < v->nfields; i++) {
		const struct l7_view_field *f = &v->fields[i];

		if (field_is(v, f, t->name.s, t->name.len) &&
		    one_of(&t->values, v->head + f->value_off, f->value_len))
			return true;
	}
	return false;
}

static bool rule_matches(const struct l7_rule *r, const struct l7_req_view *v)
{
	uint32_t len;
	unsigned int i;

	if (r->methods && !(r->methods & L7_METHOD_BIT(v->method)))
		return false;
	if (!host_matches(r, v) || !path_matches(r, v))
		return false;
	for (i = 0; i < r->nhdr && i < L7_RULE_HDR_TESTS; i++) {
		if (!hdr_matches(&r->hdr[i], v))
			return false;
	}
	return !r->cookie.name.len ||
	       cookie_find(v, r->cookie.name.s, r->cookie.name.len,
			   r->cookie.value.s, r->cookie.value.len, &len);
}

int l7_rules_match(const struct l7_rule *rules, unsigned int n,
		   unsigned int from, const struct l7_req_view *v)
{
	unsigned int i;

	for (i = from; i < n; i++) {
		if (rule_matches(&rules[i], v))
			return (int)i;
	}
	return -1;
}

/* The first rule at or after @from among the candidates @cand that matches. */
static int candidates_match(const struct l7_rule *rules, unsigned int n,
			    const uint64_t *cand, unsigned int from,
			    const struct l7_req_view *v)
{
	unsigned int i = from;
	uint64_t w;

	while (i < n) {
		w = cand[i / 64] >> (i % 64);
		if (!w) {
			i = (i | 63) + 1;
			continue;
		}
		i += __builtin_ctzll(w);
		if (i >= n)
			break;
		if (rule_matches(&rules[i], v))
			return (int)i;
		i++;
	}
	return -1;
}

void l7_rules_decide(const struct l7_rule *rules, unsigned int n,
		     const struct l7_rule_index *ix,
		     const struct l7_req_view *v, l7_pool_ready_fn ready,
		     void *ctx, struct l7_verdict *out)
{
	uint64_t cand[L7_RULE_WORDS];
	bool indexed = ix && n && ix->nrules == n;
	unsigned int from = 0;

	*out = (struct l7_verdict){ .kind = L7_V_SERVICE, .rule = -1 };
	if (indexed)
		l7_rule_candidates(ix, v, cand);
	for (;;) {
		int i = indexed ? candidates_match(rules, n, cand, from, v) :
				  l7_rules_match(rules, n, from, v);
		const struct l7_rule *r;

		if (i < 0)
			return;
		r = &rules[i];
		out->rule = i;
		if (r->action == L7_ACT_REJECT) {
			out->kind = L7_V_REJECT;
			out->status = r->status;
			return;
		}
		if (ready(ctx, r->pool)) {
			out->kind = L7_V_POOL;
			out->pool = r->pool;
			return;
		}
		if (!(r->flags & L7_RULE_F_FALLTHROUGH)) {
			out->kind = L7_V_REJECT;
			out->status = 503;
			return;
		}
		from = i + 1;
	}
}

/* ---- validation ---- */

static const char *host_invalid(const struct l7_rule_value *h)
{
	char buf[L7_HOST_MAX];
	uint32_t skip = 0;

	if (!h->len)
		return NULL;
	if (h->len >= 2 && h->s[0] == '*' && h->s[1] == '.')
		skip = 2;
	/* normalising drops a port or a final dot: then it is shorter */
	if (h->len == skip ||
	    l7_host_normalise(h->s + skip, h->len - skip, buf) !=
	    (int)(h->len - skip))
		return "host: a host name or IP literal without port or final dot, or *.domain";
	return NULL;
}

static const char *path_invalid(const struct l7_rule *r)
{
	char buf[L7_RULE_VALUE_MAX];

	if (r->path_kind == L7_PATH_ANY)
		return r->path.len ? "path without a path match kind" : NULL;
	if (r->path_kind > L7_PATH_PREFIX)
		return "unknown path match kind";
	if (l7_path_normalise(r->path.s, r->path.len, buf) != r->path.len ||
	    !eq(buf, r->path.s, r->path.len))
		return "path: must start with '/' and be normalised (no //, /./, /../, %-encoded unreserved characters, lower-case %-escapes, query)";
	return NULL;
}

/* A value a field line can carry, alternatives separated by '|'. */
static const char *values_invalid(const struct l7_rule_value *val)
{
	uint32_t i, start = 0;

	if (val->len > L7_RULE_VALUE_MAX)
		return "value too long";
	for (i = 0; i <= val->len; i++) {
		uint8_t c = i < val->len ? val->s[i] : '|';

		if (c == '|') {
			if (i == start || l7_is_ows(val->s[start]) ||
			    l7_is_ows(val->s[i - 1]))
				return "header value: empty alternative or space around one";
			start = i + 1;
		} else if (l7_is_value_ctl(c) || c == '\t' || c >= 0x80) {
			return "header value: control or non-ASCII character";
		}
	}
	return NULL;
}

static const char *cookie_invalid(const struct l7_cookie_test *c)
{
	uint32_t i;

	if (c->name.len > L7_RULE_NAME_MAX || c->value.len > L7_RULE_VALUE_MAX)
		return "cookie name or value too long";
	if (!c->name.len)
		return c->value.len ? "cookie value without a name" : NULL;
	if (!all_tchar(c->name.s, c->name.len))
		return "cookie name: not a token";
	for (i = 0; i < c->value.len; i++) {
		if (!is_cookie_octet(c->value.s[i]))
			return "cookie value: a character a cookie cannot carry";
	}
	return NULL;
}

static const char *action_invalid(const struct l7_rule *r,
				  unsigned int npools)
{
	switch (r->action) {
	case L7_ACT_POOL:
		return r->pool < npools ? NULL : "no such pool";
	case L7_ACT_REJECT:
		if (r->status == 403 || r->status == 404 || r->status == 503)
			return NULL;
		return "reject status: 403, 404 or 503";
	}
	return "unknown action";
}

const char *l7_rule_invalid(const struct l7_rule *r, unsigned int npools)
{
	const char *why;
	unsigned int i;

	if (r->flags & ~L7_RULE_F_ALL)
		return "unknown rule flag";
	if (r->methods & ~L7_METHOD_ALL)
		return "unknown method";
	if (r->host.len > L7_RULE_VALUE_MAX || r->path.len > L7_RULE_VALUE_MAX)
		return "host or path too long";
	if (r->nhdr > L7_RULE_HDR_TESTS)
		return "too many header tests";
	why = action_invalid(r, npools);
	if (!why)
		why = host_invalid(&r->host);
	if (!why)
		why = path_invalid(r);
	for (i = 0; !why && i < r->nhdr; i++) {
		if (r->hdr[i].name.len > L7_RULE_NAME_MAX ||
		    !all_tchar(r->hdr[i].name.s, r->hdr[i].name.len))
			why = "header name: not a token";
		else
			why = values_invalid(&r->hdr[i].values);
	}
	return why ? why : cookie_invalid(&r->cookie);
}

const char *l7_pool_policy_invalid(const struct l7_pool_policy *p)
{
	if (p->policy > L7_POLICY_HASH)
		return "unknown pool policy";
	if (p->policy != L7_POLICY_HASH)
		return NULL;
	switch (p->key) {
	case L7_KEY_URI:
	case L7_KEY_HOST:
		return NULL;
	case L7_KEY_COOKIE:
	case L7_KEY_HEADER:
		if (p->key_name.len > L7_RULE_NAME_MAX ||
		    !all_tchar(p->key_name.s, p->key_name.len))
			return "hash key: cookie or header name not a token";
		return NULL;
	}
	return "unknown hash key";
}
