// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/l7_rule.c: path and host normalisation, the
 * request view, header and cookie lookups, rule matching and validation.
 *
 * Requests go through the real framer first (http_req.c), as in the
 * module: what the framer refuses never reaches the matcher, and the tests
 * say so where that is the defence (a repeated Host).
 */
#include <stdlib.h>
#include <string.h>

#include "l7_rule.h"
#include "l7_rule_index.h"
#include "l7_test.h"

static struct l7_req_view view;
static char path_buf[16384];

/* Frame @head and build its view: 0, a view status, or -1 if framing failed. */
static int build_lim(const char *head, uint32_t max_headers,
		     struct l7_http_req *req)
{
	struct l7_http_limits lim = { 16384, max_headers };
	size_t used;

	l7_http_req_init(req, &lim);
	if (l7_http_req_feed(req, (const uint8_t *)head, strlen(head), &used) !=
	    L7_HTTP_DONE)
		return -1;
	return l7_req_view_build(&view, (const uint8_t *)head, strlen(head),
				 req, path_buf, sizeof(path_buf));
}

static int build(const char *head)
{
	struct l7_http_req req;

	return build_lim(head, L7_HTTP_DEFAULT_MAX_HEADERS, &req);
}

/* A GET of @target on host h.example. */
static int build_get(const char *target)
{
	static char head[4096];

	snprintf(head, sizeof(head),
		 "GET %s HTTP/1.1\r\nHost: h.example\r\n\r\n", target);
	return build(head);
}

static bool path_is(const char *want)
{
	return view.path_len == strlen(want) &&
	       !memcmp(view.path, want, view.path_len);
}

static bool host_is(const char *want)
{
	return view.host_len == strlen(want) &&
	       !memcmp(view.host, want, view.host_len);
}

static void set_value(struct l7_rule_value *v, const char *s)
{
	v->len = (uint8_t)strlen(s);
	memcpy(v->s, s, v->len);
}

static void set_name(struct l7_rule_name *v, const char *s)
{
	v->len = (uint8_t)strlen(s);
	memcpy(v->s, s, v->len);
}

static struct l7_rule rule_path(enum l7_path_kind kind, const char *path,
				uint16_t pool)
{
	struct l7_rule r = { .path_kind = kind, .pool = pool };

	set_value(&r.path, path);
	return r;
}

static struct l7_rule rule_host(const char *host, uint16_t pool)
{
	struct l7_rule r = { .pool = pool };

	set_value(&r.host, host);
	return r;
}

static void add_hdr(struct l7_rule *r, const char *name, const char *values)
{
	set_name(&r->hdr[r->nhdr].name, name);
	set_value(&r->hdr[r->nhdr].values, values);
	r->nhdr++;
}

static void set_cookie(struct l7_rule *r, const char *name, const char *value)
{
	set_name(&r->cookie.name, name);
	set_value(&r->cookie.value, value);
}

/* Whether @r is valid and matches the current view. */
static bool matches(const struct l7_rule *r)
{
	const char *why = l7_rule_invalid(r, 8);

	if (why) {
		fprintf(stderr, "  rule invalid: %s\n", why);
		return false;
	}
	return l7_rules_match(r, 1, 0, &view) == 0;
}

/* ---- normalisation ---- */

static const struct {
	const char *in, *out;	/* out NULL: refused */
} norm_cases[] = {
	{ "/", "/" },
	{ "/a/b", "/a/b" },
	{ "/a/", "/a/" },
	{ "/static/../cgi-bin/x", "/cgi-bin/x" },
	{ "/%63gi-bin/x", "/cgi-bin/x" },
	{ "/%63%47I-bin/x", "/cGI-bin/x" },
	{ "//cgi-bin/x", "/cgi-bin/x" },
	{ "/a//b///", "/a/b/" },
	{ "/a/./b", "/a/b" },
	{ "/./a", "/a" },
	{ "/a/.", "/a/" },
	{ "/a/..", "/" },
	{ "/a/b/../../c", "/c" },
	{ "/a/b/..//c", "/a/c" },
	{ "/a/%2e%2E/x", "/x" },
	{ "/a/.%2e/x", "/x" },
	{ "/a%3bb", "/a%3Bb" },
	{ "/a%7e%41", "/a~A" },
	{ "/%252e%252e/", "/%252e%252e/" },
	{ "/...", "/..." },
	{ "/a/..b/.c", "/a/..b/.c" },
	{ "/a;b/c", "/a;b/c" },
	{ "/.", "/" },
	{ "/a%2fb", NULL },
	{ "/a%2Fb", NULL },
	{ "/a%00", NULL },
	{ "/..", NULL },
	{ "/../x", NULL },
	{ "/%2e%2e/x", NULL },
	{ "/a/../../x", NULL },
	{ "/a/./../..", NULL },
	{ "//../x", NULL },
	{ "/%zz", NULL },
	{ "/%4", NULL },
	{ "/a%", NULL },
	{ "/..;/x", NULL },
	{ "/a/.;x/b", NULL },
	{ "/a/..;jsessionid=1/b", NULL },
	{ "/a?b", NULL },
	{ "/a#b", NULL },
	{ "/a b", NULL },
	{ "/a\x7f", NULL },
	{ "/a\x80", NULL },
	{ "a/b", NULL },
	{ "", NULL },
	{ "*", NULL },
};

static void test_path_normalise(void)
{
	unsigned int i;

	for (i = 0; i < L7_ARRAY_SIZE(norm_cases); i++) {
		const char *in = norm_cases[i].in, *want = norm_cases[i].out;
		char out[64], again[64];
		int n = l7_path_normalise(in, strlen(in), out), m;

		if (!want) {
			CHECK(n == -1, "'%s' -> %d, want refused", in, n);
			continue;
		}
		CHECK(n == (int)strlen(want) && !memcmp(out, want, n),
		      "'%s' -> '%.*s', want '%s'", in, n < 0 ? 0 : n, out,
		      want);
		m = l7_path_normalise(out, n, again);
		CHECK(m == n && !memcmp(out, again, n), "'%s' not idempotent",
		      in);
	}
}

static const struct {
	const char *in, *out;
} host_cases[] = {
	{ "example.com", "example.com" },
	{ "Example.COM", "example.com" },
	{ "example.com:8080", "example.com" },
	{ "example.com:", "example.com" },
	{ "example.com.", "example.com" },
	{ "example.com.:80", "example.com" },
	{ "198.51.100.1:80", "198.51.100.1" },
	{ "[2001:DB8::1]:80", "[2001:db8::1]" },
	{ "[::1]", "[::1]" },
	{ "my_host-1", "my_host-1" },
	{ "", "" },
	{ "exa%6dple.com", NULL },
	{ "a..b", NULL },
	{ ".a", NULL },
	{ ".", NULL },
	{ "a.com..", NULL },
	{ "a.com:8o", NULL },
	{ "a.com:80:80", NULL },
	{ "user@a.com", NULL },
	{ "[::1", NULL },
	{ "[]", NULL },
	{ "[::1]x", NULL },
	{ "[fe80::1%25eth0]", NULL },
	{ "a b", NULL },
	{ ":80", NULL },
};

static void test_host_normalise(void)
{
	char out[L7_HOST_MAX], big[400];
	unsigned int i;
	int n;

	for (i = 0; i < L7_ARRAY_SIZE(host_cases); i++) {
		const char *in = host_cases[i].in, *want = host_cases[i].out;

		n = l7_host_normalise(in, strlen(in), out);
		if (!want) {
			CHECK(n == -1, "'%s' -> %d, want refused", in, n);
			continue;
		}
		CHECK(n == (int)strlen(want) && !memcmp(out, want, n),
		      "'%s' -> '%.*s', want '%s'", in, n < 0 ? 0 : n, out,
		      want);
	}
	memset(big, 'a', sizeof(big));
	CHECK(l7_host_normalise(big, L7_HOST_MAX, out) == L7_HOST_MAX, "255");
	CHECK(l7_host_normalise(big, L7_HOST_MAX + 1, out) == -1, "256");
	big[L7_HOST_MAX] = '.';
	CHECK(l7_host_normalise(big, L7_HOST_MAX + 1, out) == L7_HOST_MAX,
	      "255 and the root's dot");
}

/* ---- the view ---- */

static void test_view_origin_form(void)
{
	CHECK(build("GET /static/../cgi-bin/x?q=/../.. HTTP/1.1\r\n"
		    "Host: WWW.Example.com:8080\r\nX-A:  1 \r\nx-b:\r\n\r\n")
	      == 0, "build");
	CHECK(path_is("/cgi-bin/x"), "path '%.*s'", (int)view.path_len,
	      view.path);
	CHECK(host_is("www.example.com"), "host");
	CHECK(view.method == L7_HTTP_M_GET, "method");
	CHECK(view.nfields == 3, "fields %u", view.nfields);
}

static void test_view_absolute_form(void)
{
	uint32_t len;

	CHECK(build("GET http://Api.Example.com:8080/a/../b?x HTTP/1.1\r\n"
		    "Host: other.example\r\n\r\n") == 0, "build");
	/* RFC 9112 3.2.2: the target's authority, not Host */
	CHECK(host_is("api.example.com"), "host '%.*s'", view.host_len,
	      view.host);
	CHECK(path_is("/b"), "path");
	CHECK(l7_view_header(&view, "host", 4, 0, &len) && len == 13, "Host");

	CHECK(build("GET HTTPS://h.example HTTP/1.1\r\nHost: x\r\n\r\n") == 0,
	      "no path");
	CHECK(path_is("/") && host_is("h.example"), "empty path is /");
	CHECK(build("GET http://h.example?q HTTP/1.1\r\nHost: x\r\n\r\n") == 0 &&
	      path_is("/"), "query only");
	CHECK(build("GET ftp://h.example/ HTTP/1.1\r\nHost: x\r\n\r\n") == 400,
	      "ftp");
	CHECK(build("GET http://u@h.example/ HTTP/1.1\r\nHost: x\r\n\r\n") ==
	      400, "userinfo");
	CHECK(build("GET http:///x HTTP/1.1\r\nHost: x\r\n\r\n") == 400,
	      "no authority");
	CHECK(build("GET http:h.example/x HTTP/1.1\r\nHost: x\r\n\r\n") == 400,
	      "no //");
	CHECK(build("GET http://h.example/%2e%2e/x HTTP/1.1\r\nHost: x\r\n\r\n")
	      == 400, "escaping root");
}

static void test_view_refusals(void)
{
	struct l7_http_req req;
	char head[8192];
	size_t used;
	int i, n;

	CHECK(build_get("/cgi-bin%2fx") == 400, "%%2f");
	CHECK(build_get("/cgi-bin/x%00") == 400, "%%00");
	CHECK(build_get("/../cgi-bin/x") == 400, "..");
	CHECK(build_get("/%zz") == 400, "bad escape");
	CHECK(build("GET / HTTP/1.1\r\nHost: exa%6dple.com\r\n\r\n") == 400,
	      "encoded host");
	/* a repeated Host never reaches the matcher: the framer says 400 */
	CHECK(build_lim("GET / HTTP/1.1\r\nHost: a.example\r\n"
			"Host: b.example\r\n\r\n", 100, &req) == -1 &&
	      req.err == L7_HTTP_E_HOST &&
	      l7_http_err_status(req.err) == 400, "two Hosts");

	/* more fields than the view indexes: 431, never a silent miss */
	n = snprintf(head, sizeof(head), "GET / HTTP/1.1\r\nHost: h\r\n");
	for (i = 1; i < L7_VIEW_FIELDS_MAX; i++)
		n += snprintf(head + n, sizeof(head) - n, "X-%d: v\r\n", i);
	snprintf(head + n, sizeof(head) - n, "\r\n");
	CHECK(build_lim(head, 200, &req) == 0, "%d fields",
	      L7_VIEW_FIELDS_MAX);
	snprintf(head + n, sizeof(head) - n, "X-last: v\r\n\r\n");
	CHECK(build_lim(head, 200, &req) == 431, "one more");

	/* a path buffer too small is the glue's bug: 500, no overflow */
	snprintf(head, sizeof(head), "GET /abc HTTP/1.1\r\nHost: h\r\n\r\n");
	l7_http_req_init(&req, NULL);
	l7_http_req_feed(&req, (const uint8_t *)head, strlen(head), &used);
	CHECK(l7_req_view_build(&view, (const uint8_t *)head, strlen(head),
				&req, path_buf, 4) == 500, "small buffer");
	CHECK(l7_req_view_build(&view, (const uint8_t *)head, strlen(head),
				&req, path_buf, 5) == 0, "exact buffer");
}

static void test_view_asterisk_and_no_host(void)
{
	struct l7_rule r = rule_path(L7_PATH_PREFIX, "/", 0);
	struct l7_rule any = { 0 };

	CHECK(build("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n") == 0, "build");
	CHECK(path_is("*"), "path *");
	CHECK(!matches(&r), "no path rule matches *");
	CHECK(matches(&any), "a rule without tests does");

	CHECK(build("GET / HTTP/1.0\r\n\r\n") == 0 && view.host_len == 0,
	      "1.0 without Host");
	r = rule_host("*.example", 0);
	CHECK(!matches(&r), "no host, no host match");
	CHECK(build("GET / HTTP/1.1\r\nHost:\r\n\r\n") == 0 &&
	      view.host_len == 0, "empty Host");
	CHECK(!matches(&r), "empty host, no host match");
}

/* ---- matching ---- */

static void test_path_bypasses(void)
{
	struct l7_rule r = rule_path(L7_PATH_PREFIX, "/cgi-bin", 1);
	static const char *const hit[] = {
		"/cgi-bin", "/cgi-bin/", "/cgi-bin/x", "/static/../cgi-bin/x",
		"/%63gi-bin/x", "//cgi-bin/x", "/./cgi-bin/x",
		"/cgi-bin/x?y", "/a/b/../../cgi-bin", "/%2e/cgi-bin/x",
		"http://h.example/cgi-bin/x", "http://h.example//cgi-bin",
	};
	static const char *const miss[] = {
		"/cgi-binx", "/cgi-bi", "/CGI-BIN/x", "/Cgi-bin/x",
		"/static/cgi-bin/x", "/cgi-bin.x", "/", "/x/cgi-bin",
	};
	unsigned int i;

	for (i = 0; i < L7_ARRAY_SIZE(hit); i++)
		CHECK(build_get(hit[i]) == 0 && matches(&r), "%s", hit[i]);
	for (i = 0; i < L7_ARRAY_SIZE(miss); i++)
		CHECK(build_get(miss[i]) == 0 && !matches(&r), "%s", miss[i]);

	r.flags = L7_RULE_F_PATH_NOCASE;
	CHECK(build_get("/CGI-BIN/x") == 0 && matches(&r), "nocase");
	CHECK(build_get("/%43GI-bin") == 0 && matches(&r), "nocase escaped");

	r = rule_path(L7_PATH_PREFIX, "/api/", 1);
	CHECK(build_get("/api/x") == 0 && matches(&r), "/api/ x");
	CHECK(build_get("/api") == 0 && !matches(&r), "/api/ vs /api");
}

static void test_path_exact(void)
{
	struct l7_rule r = rule_path(L7_PATH_EXACT, "/login", 0);

	CHECK(build_get("/login") == 0 && matches(&r), "exact");
	CHECK(build_get("/login?next=/") == 0 && matches(&r), "query");
	CHECK(build_get("/x/../login") == 0 && matches(&r), "dots");
	CHECK(build_get("/login/") == 0 && !matches(&r), "slash");
	CHECK(build_get("/login/x") == 0 && !matches(&r), "below");
	CHECK(build_get("/logi") == 0 && !matches(&r), "shorter");

	r = rule_path(L7_PATH_EXACT, "/a%20b", 0);
	CHECK(build_get("/a%20b") == 0 && matches(&r), "escape kept");
}

static void test_host_rules(void)
{
	struct l7_rule sfx = rule_host("*.example.com", 0);
	struct l7_rule ex = rule_host("Example.com", 0);
	static const struct {
		const char *host;
		bool sfx, ex;
	} cases[] = {
		{ "a.example.com", true, false },
		{ "A.B.Example.COM", true, false },
		{ "a.example.com:8080", true, false },
		{ "a.example.com.", true, false },
		{ "a.example.com.:80", true, false },
		{ "example.com", false, true },
		{ "EXAMPLE.com:80", false, true },
		{ "example.com.", false, true },
		{ "evilexample.com", false, false },
		{ "a.evilexample.com", false, false },
		{ "example.com.evil", false, false },
		{ "a.example.co", false, false },
		{ ".example.com", false, false },
	};
	char head[256];
	unsigned int i;
	int st;

	for (i = 0; i < L7_ARRAY_SIZE(cases); i++) {
		snprintf(head, sizeof(head), "GET / HTTP/1.1\r\nHost: %s\r\n\r\n",
			 cases[i].host);
		st = build(head);
		if (cases[i].host[0] == '.') {
			CHECK(st == 400, "%s refused", cases[i].host);
			continue;
		}
		CHECK(st == 0, "%s build", cases[i].host);
		CHECK(matches(&sfx) == cases[i].sfx, "*.example.com vs %s",
		      cases[i].host);
		CHECK(matches(&ex) == cases[i].ex, "example.com vs %s",
		      cases[i].host);
	}
	ex = rule_host("[2001:db8::1]", 0);
	CHECK(build("GET / HTTP/1.1\r\nHost: [2001:DB8::1]:80\r\n\r\n") == 0 &&
	      matches(&ex), "IPv6 literal");
}

static void test_methods(void)
{
	struct l7_rule r = { .methods = L7_METHOD_BIT(L7_HTTP_M_GET) |
					L7_METHOD_BIT(L7_HTTP_M_HEAD) };

	CHECK(build("GET / HTTP/1.1\r\nHost: h\r\n\r\n") == 0 && matches(&r),
	      "GET");
	CHECK(build("HEAD / HTTP/1.1\r\nHost: h\r\n\r\n") == 0 && matches(&r),
	      "HEAD");
	CHECK(build("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n")
	      == 0 && !matches(&r), "POST");
	CHECK(build("PURGE / HTTP/1.1\r\nHost: h\r\n\r\n") == 0 && !matches(&r),
	      "unknown method");
	r.methods = L7_METHOD_BIT(L7_HTTP_M_OTHER);
	CHECK(matches(&r), "OTHER bit: unknown methods");
	CHECK(build("GET / HTTP/1.1\r\nHost: h\r\n\r\n") == 0 && !matches(&r),
	      "OTHER bit is not GET");
}

static void test_header_tests(void)
{
	struct l7_rule r = { 0 };
	static const struct {
		const char *fields;
		bool hit;
	} cases[] = {
		{ "X-Canary: 1\r\n", true },
		{ "x-canary:yes\r\n", true },
		{ "X-CANARY: \t yes \t\r\n", true },
		{ "X-Canary: 2\r\n", false },
		{ "X-Canary: 0\r\nX-Canary: 1\r\n", true },	/* any line */
		{ "X-Canary: 1, 2\r\n", false },		/* whole value */
		{ "X-Canary: YES\r\n", false },			/* values exact */
		{ "X-Canary: 1\r\nX-Canary: 2\r\n", true },
		{ "X-Canary-2: 1\r\n", false },
		{ "X-Canar: 1\r\n", false },
		{ "", false },
	};
	char head[256];
	unsigned int i;

	add_hdr(&r, "X-Canary", "1|yes");
	for (i = 0; i < L7_ARRAY_SIZE(cases); i++) {
		snprintf(head, sizeof(head), "GET / HTTP/1.1\r\nHost: h\r\n%s\r\n",
			 cases[i].fields);
		CHECK(build(head) == 0 && matches(&r) == cases[i].hit,
		      "'%s'", cases[i].fields);
	}
	/* tests AND */
	add_hdr(&r, "x-env", "prod");
	CHECK(build("GET / HTTP/1.1\r\nHost: h\r\nX-Canary: 1\r\n\r\n") == 0 &&
	      !matches(&r), "one of two");
	CHECK(build("GET / HTTP/1.1\r\nX-Env: prod\r\nHost: h\r\nX-Canary: 1\r\n"
		    "\r\n") == 0 && matches(&r), "both");
}

static void test_cookies(void)
{
	struct l7_rule r = { 0 };
	static const struct {
		const char *fields;
		bool hit;
	} cases[] = {
		{ "Cookie: session=abc\r\n", true },
		{ "Cookie: a=1; session=abc\r\n", true },
		{ "Cookie: a=1;session=abc;b=2\r\n", true },
		{ "Cookie: session=\"abc\"\r\n", true },
		{ "Cookie:  a=1 ;  session = abc \r\n", true },
		{ "Cookie: junk; session=abc\r\n", true },
		{ "Cookie: a=1\r\nCookie: session=abc\r\n", true },
		{ "Cookie: session=x; session=abc\r\n", true },
		{ "Cookie: Session=abc\r\n", false },
		{ "Cookie: xsession=abc\r\n", false },
		{ "Cookie: session=abcd\r\n", false },
		{ "Cookie: session=ab\r\n", false },
		{ "Cookie: session=\"abc\r\n", false },
		{ "Cookie: a=session=abc\r\n", false },
		{ "X-Cookie: session=abc\r\n", false },
		{ "Cookie:\r\n", false },
		{ "Cookie: ;;;=;\r\n", false },
		{ "", false },
	};
	char head[256];
	unsigned int i;
	const uint8_t *v;
	uint32_t len;

	set_cookie(&r, "session", "abc");
	for (i = 0; i < L7_ARRAY_SIZE(cases); i++) {
		snprintf(head, sizeof(head), "GET / HTTP/1.1\r\nHost: h\r\n%s\r\n",
			 cases[i].fields);
		CHECK(build(head) == 0 && matches(&r) == cases[i].hit,
		      "'%s'", cases[i].fields);
	}
	CHECK(build("GET / HTTP/1.1\r\nHost: h\r\nCookie: session=x; "
		    "session=abc\r\n\r\n") == 0, "build");
	v = l7_view_cookie(&view, "session", 7, &len);
	CHECK(v && len == 1 && v[0] == 'x', "lookup: the first");
	CHECK(!l7_view_cookie(&view, "sess", 4, &len), "no prefix match");
}

static bool ready_none(void *ctx, unsigned int pool)
{
	(void)ctx;
	(void)pool;
	return false;
}

static bool ready_mask(void *ctx, unsigned int pool)
{
	return *(unsigned int *)ctx & (1u << pool);
}

/*
 * l7_rules_decide() of the current view, walking the rules and through
 * their index: both must say the same.
 */
static void decide(const struct l7_rule *rules, unsigned int n,
		   l7_pool_ready_fn ready, void *ctx, struct l7_verdict *v)
{
	struct l7_rule_index *ix = malloc(l7_rule_index_size(n));
	struct l7_verdict walked;

	l7_rule_index_build(ix, rules, n);
	l7_rules_decide(rules, n, NULL, &view, ready, ctx, &walked);
	l7_rules_decide(rules, n, ix, &view, ready, ctx, v);
	CHECK(v->kind == walked.kind && v->rule == walked.rule &&
	      (v->kind != L7_V_POOL || v->pool == walked.pool) &&
	      (v->kind != L7_V_REJECT || v->status == walked.status),
	      "indexed %d/%d, walked %d/%d", v->kind, v->rule, walked.kind,
	      walked.rule);
	free(ix);
}

static void test_decide(void)
{
	struct l7_rule rules[4];
	struct l7_verdict v;
	unsigned int ready = ~0u;
	unsigned int i;

	rules[0] = rule_path(L7_PATH_PREFIX, "/api", 0);
	rules[0].flags = L7_RULE_F_FALLTHROUGH;
	rules[1] = rule_path(L7_PATH_PREFIX, "/api", 1);
	rules[2] = rule_path(L7_PATH_PREFIX, "/admin", 0);
	rules[2].action = L7_ACT_REJECT;
	rules[2].status = 403;
	rules[3] = rule_path(L7_PATH_PREFIX, "/", 2);
	rules[3].host = (struct l7_rule_value){ 0 };
	set_value(&rules[3].host, "*.static.example");
	for (i = 0; i < 4; i++)
		CHECK(!l7_rule_invalid(&rules[i], 3), "rule %u", i);

	CHECK(build_get("/api/x") == 0, "build");
	decide(rules, 4, ready_mask, &ready, &v);
	CHECK(v.kind == L7_V_POOL && v.pool == 0 && v.rule == 0, "first wins");
	ready = ~1u;
	decide(rules, 4, ready_mask, &ready, &v);
	CHECK(v.kind == L7_V_POOL && v.pool == 1 && v.rule == 1,
	      "fallthrough to rule 1: %d/%d", v.kind, v.rule);
	decide(rules, 4, ready_none, NULL, &v);
	CHECK(v.kind == L7_V_REJECT && v.status == 503 && v.rule == 1,
	      "no fallthrough on rule 1: 503");

	CHECK(build_get("/admin/../admin/x") == 0, "build");
	decide(rules, 4, ready_none, NULL, &v);
	CHECK(v.kind == L7_V_REJECT && v.status == 403 && v.rule == 2,
	      "reject");

	CHECK(build_get("/x") == 0, "build");
	decide(rules, 4, ready_none, NULL, &v);
	CHECK(v.kind == L7_V_SERVICE && v.rule == -1, "no match: service");
	CHECK(build("GET /x HTTP/1.1\r\nHost: img.static.example\r\n\r\n") == 0,
	      "build");
	ready = ~0u;
	decide(rules, 4, ready_mask, &ready, &v);
	CHECK(v.kind == L7_V_POOL && v.pool == 2 && v.rule == 3, "host rule");
	CHECK(l7_rules_match(rules, 4, 0, &view) == 3 &&
	      l7_rules_match(rules, 4, 4, &view) == -1, "match from");
}

static void test_hash_keys(void)
{
	struct l7_pool_policy p = { .policy = L7_POLICY_HASH };
	const uint8_t *k;
	uint32_t len;

	CHECK(build("GET /a/./b?q=1 HTTP/1.1\r\nHost: H.Example:80\r\n"
		    "Cookie: sid=\"42\"\r\nX-User: bob \r\n\r\n") == 0, "build");
	p.key = L7_KEY_URI;
	CHECK(l7_view_hash_key(&view, &p, &k, &len) && len == 4 &&
	      !memcmp(k, "/a/b", 4), "uri");
	p.key = L7_KEY_HOST;
	CHECK(l7_view_hash_key(&view, &p, &k, &len) && len == 9 &&
	      !memcmp(k, "h.example", 9), "host");
	p.key = L7_KEY_COOKIE;
	set_name(&p.key_name, "sid");
	CHECK(l7_view_hash_key(&view, &p, &k, &len) && len == 2 &&
	      !memcmp(k, "42", 2), "cookie");
	p.key = L7_KEY_HEADER;
	set_name(&p.key_name, "x-user");
	CHECK(l7_view_hash_key(&view, &p, &k, &len) && len == 3 &&
	      !memcmp(k, "bob", 3), "header");
	set_name(&p.key_name, "x-none");
	CHECK(!l7_view_hash_key(&view, &p, &k, &len), "missing header");
	p.key = L7_KEY_COOKIE;
	CHECK(!l7_view_hash_key(&view, &p, &k, &len), "missing cookie");
	CHECK(!l7_pool_policy_invalid(&p), "valid policy");
	set_name(&p.key_name, "x y");
	CHECK(l7_pool_policy_invalid(&p), "bad key name");
	p.key = 9;
	CHECK(l7_pool_policy_invalid(&p), "bad key");
	p.policy = 3;
	CHECK(l7_pool_policy_invalid(&p), "bad policy");
}

/* ---- validation and limits ---- */

static void test_rule_validation(void)
{
	struct l7_rule r;
	static const char *const bad_hosts[] = {
		"exa mple", "example.com:80", "example.com.", "*.", "*",
		"a..b", "*.*.example", "exa%6dple", "[::1]:80",
	};
	static const char *const bad_paths[] = {
		"/a/../b", "/a//b", "/%63", "/a%3b", "a", "/a?b", "/a/.",
		"/%2F", "/..",
	};
	unsigned int i;

	r = (struct l7_rule){ 0 };
	CHECK(!l7_rule_invalid(&r, 1), "empty rule, pool 0");
	CHECK(l7_rule_invalid(&r, 0), "pool 0 of none");
	r.action = L7_ACT_REJECT;
	r.status = 400;
	CHECK(l7_rule_invalid(&r, 1), "status 400");
	r.status = 404;
	CHECK(!l7_rule_invalid(&r, 0), "reject 404 needs no pool");
	r.action = 7;
	CHECK(l7_rule_invalid(&r, 1), "action");
	r = (struct l7_rule){ .flags = 0x80 };
	CHECK(l7_rule_invalid(&r, 1), "flags");
	r = (struct l7_rule){ .methods = 1u << 15 };
	CHECK(l7_rule_invalid(&r, 1), "methods");

	for (i = 0; i < L7_ARRAY_SIZE(bad_hosts); i++) {
		r = rule_host(bad_hosts[i], 0);
		CHECK(l7_rule_invalid(&r, 1), "host '%s'", bad_hosts[i]);
	}
	r = rule_host("*.Example.com", 0);
	CHECK(!l7_rule_invalid(&r, 1), "suffix");
	r = rule_host("[2001:db8::1]", 0);
	CHECK(!l7_rule_invalid(&r, 1), "IPv6");
	for (i = 0; i < L7_ARRAY_SIZE(bad_paths); i++) {
		r = rule_path(L7_PATH_PREFIX, bad_paths[i], 0);
		CHECK(l7_rule_invalid(&r, 1), "path '%s'", bad_paths[i]);
	}
	r = rule_path(L7_PATH_EXACT, "/a%3B/~x/", 0);
	CHECK(!l7_rule_invalid(&r, 1), "normal path");
	r.path_kind = 3;
	CHECK(l7_rule_invalid(&r, 1), "path kind");
	r.path_kind = L7_PATH_ANY;
	CHECK(l7_rule_invalid(&r, 1), "path without kind");
	r = rule_path(L7_PATH_PREFIX, "", 0);
	CHECK(l7_rule_invalid(&r, 1), "empty path");

	r = (struct l7_rule){ 0 };
	add_hdr(&r, "x-a", "1|2");
	CHECK(!l7_rule_invalid(&r, 1), "header ok");
	r.hdr[0].values.s[1] = '\x01';
	CHECK(l7_rule_invalid(&r, 1), "control in value");
	set_value(&r.hdr[0].values, "1||2");
	CHECK(l7_rule_invalid(&r, 1), "empty alternative");
	set_value(&r.hdr[0].values, "1| 2");
	CHECK(l7_rule_invalid(&r, 1), "space-led alternative");
	set_value(&r.hdr[0].values, "a b");
	CHECK(!l7_rule_invalid(&r, 1), "inner space is fine");
	set_name(&r.hdr[0].name, "x a");
	CHECK(l7_rule_invalid(&r, 1), "header name");
	set_name(&r.hdr[0].name, "");
	CHECK(l7_rule_invalid(&r, 1), "empty header name");
	r = (struct l7_rule){ 0 };
	for (i = 0; i < L7_RULE_HDR_TESTS; i++)
		add_hdr(&r, "x", "1");
	CHECK(!l7_rule_invalid(&r, 1), "4 header tests");
	r.nhdr++;
	CHECK(l7_rule_invalid(&r, 1), "5 header tests");

	r = (struct l7_rule){ 0 };
	set_cookie(&r, "sid", "a;b");
	CHECK(l7_rule_invalid(&r, 1), "cookie value ;");
	set_cookie(&r, "sid", "a b");
	CHECK(l7_rule_invalid(&r, 1), "cookie value space");
	set_cookie(&r, "s=d", "a");
	CHECK(l7_rule_invalid(&r, 1), "cookie name =");
	set_cookie(&r, "sid", "");
	CHECK(!l7_rule_invalid(&r, 1), "empty cookie value");
	set_cookie(&r, "", "x");
	CHECK(l7_rule_invalid(&r, 1), "value without name");

	/* lengths past the arrays are refused before anything reads them */
	r = (struct l7_rule){ 0 };
	r.host.len = L7_RULE_VALUE_MAX + 1;
	CHECK(l7_rule_invalid(&r, 1), "host length");
	r = (struct l7_rule){ .path_kind = L7_PATH_PREFIX };
	r.path.len = 255;
	CHECK(l7_rule_invalid(&r, 1), "path length");
	r = (struct l7_rule){ .nhdr = 1 };
	r.hdr[0].name.len = L7_RULE_NAME_MAX + 1;
	CHECK(l7_rule_invalid(&r, 1), "name length");
	r = (struct l7_rule){ 0 };
	r.cookie.name.len = 1;
	r.cookie.name.s[0] = 'a';
	r.cookie.value.len = L7_RULE_VALUE_MAX + 1;
	CHECK(l7_rule_invalid(&r, 1), "cookie length");
	r = (struct l7_rule){ 0 };
	memset(r.host.s, 'a', L7_RULE_VALUE_MAX);
	r.host.len = L7_RULE_VALUE_MAX;
	CHECK(!l7_rule_invalid(&r, 1), "128-byte host");
}

/* The matched rule last of L7_RULES_MAX: every one is looked at. */
static void test_many_rules(void)
{
	static struct l7_rule rules[L7_RULES_MAX];
	char p[32];
	unsigned int i;

	for (i = 0; i < L7_RULES_MAX; i++) {
		snprintf(p, sizeof(p), "/r%u", i);
		rules[i] = rule_path(L7_PATH_PREFIX, p, 0);
		add_hdr(&rules[i], "x-a", "1|2|3");
	}
	CHECK(build("GET /r1023/x HTTP/1.1\r\nHost: h\r\nX-A: 3\r\n\r\n") == 0,
	      "build");
	CHECK(l7_rules_match(rules, L7_RULES_MAX, 0, &view) ==
	      L7_RULES_MAX - 1, "last rule");
	CHECK(l7_rules_match(rules, L7_RULES_MAX - 1, 0, &view) == -1, "none");
}

/* The candidates the index finds for the current view, counted. */
static unsigned int candidates(const struct l7_rule *rules, unsigned int n,
			       unsigned int *first)
{
	struct l7_rule_index *ix = malloc(l7_rule_index_size(n));
	uint64_t cand[L7_RULE_WORDS];
	unsigned int i, count = 0;

	l7_rule_index_build(ix, rules, n);
	l7_rule_candidates(ix, &view, cand);
	*first = n;
	for (i = 0; i < L7_RULES_MAX; i++) {
		if (!(cand[i / 64] >> (i % 64) & 1))
			continue;
		CHECK(i < n, "candidate %u of %u rules", i, n);
		if (!count++)
			*first = i;
	}
	free(ix);
	return count;
}

/* The bench's rule sets: many prefixes under one, the last the match. */
static void test_index_narrows(void)
{
	static struct l7_rule rules[L7_RULES_MAX];
	struct l7_verdict v;
	unsigned int i, first, ready = ~0u;
	char p[32];

	for (i = 0; i + 1 < L7_RULES_MAX; i++) {
		snprintf(p, sizeof(p), "/static/r%u", i + 1);
		rules[i] = rule_path(L7_PATH_PREFIX, p, 0);
	}
	rules[i] = rule_path(L7_PATH_PREFIX, "/static", 1);

	CHECK(build_get("/static/1k.bin") == 0, "build");
	CHECK(candidates(rules, L7_RULES_MAX, &first) == 1 &&
	      first == L7_RULES_MAX - 1, "one candidate, the last rule");
	decide(rules, L7_RULES_MAX, ready_mask, &ready, &v);
	CHECK(v.kind == L7_V_POOL && v.pool == 1 &&
	      v.rule == L7_RULES_MAX - 1, "the last rule: %d", v.rule);

	CHECK(build_get("/static/r12/x") == 0, "build");
	CHECK(candidates(rules, L7_RULES_MAX, &first) == 2 && first == 11,
	      "r12 and /static");
	decide(rules, L7_RULES_MAX, ready_mask, &ready, &v);
	CHECK(v.kind == L7_V_POOL && v.pool == 0 && v.rule == 11, "r12");

	/* not aligned on a segment: r12 is no candidate, /static is */
	CHECK(build_get("/static/r12x") == 0, "build");
	CHECK(candidates(rules, L7_RULES_MAX, &first) == 1 &&
	      first == L7_RULES_MAX - 1, "only /static");
	decide(rules, L7_RULES_MAX, ready_mask, &ready, &v);
	CHECK(v.rule == L7_RULES_MAX - 1, "/static for r12x");

	CHECK(build_get("/other") == 0, "build");
	CHECK(candidates(rules, L7_RULES_MAX, &first) == 0, "none");
	decide(rules, L7_RULES_MAX, ready_mask, &ready, &v);
	CHECK(v.kind == L7_V_SERVICE && v.rule == -1, "service");
}

/* The rule that decides request @head (ready pools @ready), or -2. */
static int decided_by(const struct l7_rule *rules, unsigned int n,
		      const char *head, unsigned int ready)
{
	struct l7_verdict v;

	if (build(head) != 0)
		return -2;
	decide(rules, n, ready_mask, &ready, &v);
	return v.rule;
}

/* Hosts, exact and "*.", nocase paths, and order across keys. */
static void test_index_keys(void)
{
	static const struct {
		const char *target, *host;
		int rule;
	} cases[] = {
		{ "/y", "a.example", 0 },	/* exact host, case folded */
		{ "/cgi/x", "q", 1 },		/* nocase path: always */
		{ "/x", "c.B.example", 2 },	/* a suffix after a label */
		{ "/x", "b.example", 3 },	/* no label: the exact path */
		{ "/x/y", "q", 4 },		/* an exact path is no prefix */
		{ "/d/e", "q", 4 },		/* "/" before "/d/" */
	};
	struct l7_rule rules[8];
	struct l7_verdict v;
	unsigned int i, first, ready = ~(1u << 4);
	char head[256];

	rules[0] = rule_host("A.Example", 0);
	rules[1] = rule_path(L7_PATH_PREFIX, "/CGI", 1);
	rules[1].flags = L7_RULE_F_PATH_NOCASE;
	rules[2] = rule_host("*.b.example", 2);
	rules[3] = rule_path(L7_PATH_EXACT, "/x", 3);
	rules[4] = rule_path(L7_PATH_PREFIX, "/", 4);
	rules[5] = rule_host("a.example", 5);
	add_hdr(&rules[5], "x-a", "1");
	rules[6] = rule_path(L7_PATH_PREFIX, "/d/", 6);
	rules[7] = (struct l7_rule){ .pool = 7 };	/* every request */
	for (i = 0; i < 8; i++)
		CHECK(!l7_rule_invalid(&rules[i], 8), "rule %u", i);

	for (i = 0; i < L7_ARRAY_SIZE(cases); i++) {
		snprintf(head, sizeof(head), "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n",
			 cases[i].target, cases[i].host);
		CHECK(decided_by(rules, 8, head, ~0u) == cases[i].rule,
		      "%s on %s", cases[i].target, cases[i].host);
	}
	CHECK(build("GET /x HTTP/1.1\r\nHost: b.example\r\n\r\n") == 0,
	      "build");
	CHECK(candidates(rules, 8, &first) == 4 && first == 1,
	      "nocase, exact, /, always");

	/* pool 4 down: 503 unless it falls through, to the always rule */
	CHECK(build("GET /x/y HTTP/1.1\r\nHost: q\r\n\r\n") == 0,
	      "build");
	decide(rules, 8, ready_mask, &ready, &v);
	CHECK(v.kind == L7_V_REJECT && v.status == 503 && v.rule == 4,
	      "pool down, no fallthrough");
	rules[4].flags = L7_RULE_F_FALLTHROUGH;
	decide(rules, 8, ready_mask, &ready, &v);
	CHECK(v.kind == L7_V_POOL && v.rule == 7, "fallthrough to always");

	rules[4].path_kind = L7_PATH_EXACT;
	CHECK(decided_by(rules, 8, "GET /d/e HTTP/1.1\r\nHost: q\r\n\r\n",
			 ~0u) == 6, "/d/ ends in '/'");
}

/* Keys as long as a rule value may be, in paths and hosts longer still. */
static void test_index_long_keys(void)
{
	struct l7_rule rules[3];
	struct l7_verdict v;
	unsigned int ready = ~0u, first;
	char path[L7_RULE_VALUE_MAX + 1], target[512], host[200];
	unsigned int i;

	/* "/aaaa...a/" of exactly L7_RULE_VALUE_MAX bytes */
	path[0] = '/';
	for (i = 1; i + 1 < L7_RULE_VALUE_MAX; i++)
		path[i] = 'a';
	path[L7_RULE_VALUE_MAX - 1] = '/';
	path[L7_RULE_VALUE_MAX] = '\0';
	rules[0] = rule_path(L7_PATH_EXACT, "/b", 0);
	rules[1] = rule_path(L7_PATH_PREFIX, path, 1);
	rules[2] = rule_host("*.example", 2);
	for (i = 0; i < 3; i++)
		CHECK(!l7_rule_invalid(&rules[i], 3), "rule %u", i);

	snprintf(target, sizeof(target), "%s%0300d", path, 7);
	CHECK(build_get(target) == 0, "build");
	/* and h.example's suffix */
	CHECK(candidates(rules, 3, &first) == 2 && first == 1,
	      "the longest prefix a rule can have");
	decide(rules, 3, ready_mask, &ready, &v);
	CHECK(v.rule == 1, "long prefix: %d", v.rule);

	/* a host longer than any rule's: its short suffixes still count */
	memset(host, 'h', sizeof(host));
	memcpy(host + sizeof(host) - 9, ".example", 9);
	snprintf(target, sizeof(target),
		 "GET /c HTTP/1.1\r\nHost: %s\r\n\r\n", host);
	CHECK(decided_by(rules, 3, target, ~0u) == 2, "long host, suffix");
}

/* An index of other rules, or of too many, is not used. */
static void test_index_stale(void)
{
	struct l7_rule rules[2] = { rule_path(L7_PATH_EXACT, "/a", 0),
				    rule_path(L7_PATH_EXACT, "/b", 1) };
	struct l7_rule_index *ix = malloc(l7_rule_index_size(2));
	unsigned int ready = ~0u;
	struct l7_verdict v;

	l7_rule_index_build(ix, rules, 1);
	CHECK(build_get("/b") == 0, "build");
	l7_rules_decide(rules, 2, ix, &view, ready_mask, &ready, &v);
	CHECK(v.rule == 1, "walked: %d", v.rule);
	CHECK(l7_rule_index_size(0) < l7_rule_index_size(1) &&
	      l7_rule_index_size(1) <= l7_rule_index_size(L7_RULES_MAX),
	      "sizes grow");
	free(ix);
}

int main(void)
{
	RUN(test_path_normalise);
	RUN(test_host_normalise);
	RUN(test_view_origin_form);
	RUN(test_view_absolute_form);
	RUN(test_view_refusals);
	RUN(test_view_asterisk_and_no_host);
	RUN(test_path_bypasses);
	RUN(test_path_exact);
	RUN(test_host_rules);
	RUN(test_methods);
	RUN(test_header_tests);
	RUN(test_cookies);
	RUN(test_decide);
	RUN(test_hash_keys);
	RUN(test_rule_validation);
	RUN(test_many_rules);
	RUN(test_index_narrows);
	RUN(test_index_keys);
	RUN(test_index_long_keys);
	RUN(test_index_stale);
	return l7_test_summary("l7_rule");
}
