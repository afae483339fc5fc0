/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: content rules - the request view, path normalisation and
 * the first-match rule matcher.
 *
 * A service's rule set is an ordered array of struct l7_rule, plain data
 * with fixed-size members: the kernel glue fills it from netlink
 * attributes, checks every rule with l7_rule_invalid(), and publishes the
 * array under RCU.  The data path, once a request head is framed
 * (struct l7_http_req said DONE), builds a struct l7_req_view of it in
 * one bounded pass and asks l7_rules_decide() what to do.  Nothing here
 * allocates, sleeps, recurses or backtracks; matching costs
 * O(rules * (value bytes + header fields)) walked, or that over only the
 * candidates an index (l7_rule_index.h) finds.
 *
 * What a rule tests, and how (the rule language):
 *
 *  - host: the request's host - the authority of an absolute-form target
 *    if there is one (RFC 9112 3.2.2: it overrides Host), else the Host
 *    field - without its port and without one trailing dot, compared
 *    ASCII-case-insensitively.  "*.example.com" matches any host that
 *    ends in ".example.com" with at least one label before it (so not
 *    "example.com" itself, and not "evilexample.com"); any other value
 *    matches that host exactly.  A request without a host (HTTP/1.0, or
 *    "Host:" empty) matches no host test.
 *  - path: the normalised path (see l7_path_normalise()), exact
 *    (L7_PATH_EXACT) or as a prefix aligned on segments (L7_PATH_PREFIX:
 *    "/api" matches "/api" and "/api/x", not "/apix"; "/api/" matches
 *    "/api/x" only).  Case-sensitive unless L7_RULE_F_PATH_NOCASE.
 *  - method: a set (L7_METHOD_BIT() of enum l7_http_method; the bit of
 *    L7_HTTP_M_OTHER stands for every method the framer does not know).
 *  - up to L7_RULE_HDR_TESTS header tests "name=v1|v2": the field name
 *    case-insensitive, the value - the field line's value without
 *    surrounding whitespace - byte-for-byte equal to one of the '|'
 *    separated alternatives.  A field sent on several lines matches if
 *    any of its lines does (no line is picked silently over another).
 *  - a cookie test "name=value": some cookie-pair of some Cookie field
 *    has that name (case-sensitive, as cookie names are) and that value
 *    (without the optional DQUOTEs around it).
 *
 * A rule ANDs the tests it has (an empty value means "not tested"); the
 * first rule that matches wins.  Its action is a pool (an index into the
 * service's pools, owned by the glue) or a reject status (403, 404 or
 * 503, answered by the director).  A rule whose pool has no eligible
 * member answers 503, or with L7_RULE_F_FALLTHROUGH lets the rules after
 * it decide.  No rule matching sends the request to the whole service.
 */
#ifndef _IP_VS_L7_CORE_L7_RULE_H
#define _IP_VS_L7_CORE_L7_RULE_H

#include "http_req.h"

/* ---- limits (documented for users: README "Limits") ---- */

#define L7_RULES_MAX		1024	/* rules per service */
#define L7_RULE_HDR_TESTS	4	/* header tests per rule */
/* host + path + method + L7_RULE_HDR_TESTS headers + cookie */
#define L7_RULE_MATCHES_MAX	(3 + L7_RULE_HDR_TESTS + 1)
#define L7_RULE_VALUE_MAX	128	/* bytes: host, path, value list */
#define L7_RULE_NAME_MAX	64	/* bytes: header or cookie name */
#define L7_POOLS_MAX		32	/* pools per service */
#define L7_POOL_MEMBERS_MAX	64	/* members per pool */
#define L7_POOL_NAME_MAX	32	/* bytes, NUL included */
#define L7_HOST_MAX		255	/* bytes of a request's host */
/* header fields a view indexes: the framer's own limit, so none is lost */
#define L7_VIEW_FIELDS_MAX	L7_HTTP_DEFAULT_MAX_HEADERS

/* ---- rules ---- */

/* A byte string of at most L7_RULE_VALUE_MAX bytes, not NUL-terminated. */
struct l7_rule_value {
	uint8_t len;
	char s[L7_RULE_VALUE_MAX];
};

/* A header or cookie name. */
struct l7_rule_name {
	uint8_t len;
	char s[L7_RULE_NAME_MAX];
};

/* name=v1|v2|...: ->values holds the alternatives separated by '|'. */
struct l7_hdr_test {
	struct l7_rule_name name;
	struct l7_rule_value values;
};

struct l7_cookie_test {
	struct l7_rule_name name;	/* len 0: no cookie test */
	struct l7_rule_value value;
};

enum l7_path_kind {
	L7_PATH_ANY = 0,	/* no path test */
	L7_PATH_EXACT,
	L7_PATH_PREFIX,		/* aligned on segments */
};

enum l7_rule_action {
	L7_ACT_POOL = 0,	/* ->pool */
	L7_ACT_REJECT,		/* ->status */
};

#define L7_RULE_F_FALLTHROUGH	0x01	/* pool without eligible member: go on */
#define L7_RULE_F_PATH_NOCASE	0x02	/* path compared case-insensitively */
#define L7_RULE_F_ALL		0x03

#define L7_METHOD_BIT(m)	(1u << (m))	/* m: enum l7_http_method */
#define L7_METHOD_ALL		((1u << (L7_HTTP_M_CONNECT + 1)) - 1)

struct l7_rule {
	uint32_t id;		/* the user's id: order is the array's */
	uint16_t methods;	/* L7_METHOD_BIT()s; 0: any method */
	uint8_t path_kind;	/* enum l7_path_kind */
	uint8_t flags;		/* L7_RULE_F_* */
	uint8_t action;		/* enum l7_rule_action */
	uint8_t nhdr;		/* header tests used in ->hdr */
	uint16_t pool;		/* L7_ACT_POOL: index of the service's pool */
	uint16_t status;	/* L7_ACT_REJECT: 403, 404 or 503 */
	struct l7_rule_value host;	/* len 0: any host; "*.x" suffix */
	struct l7_rule_value path;	/* normalised (l7_path_normalise) */
	struct l7_hdr_test hdr[L7_RULE_HDR_TESTS];
	struct l7_cookie_test cookie;
};

/*
 * NULL if @r is a rule the matcher can use with a service of @npools
 * pools, else a short static sentence saying what is wrong (for an
 * extack message): bad flags or action, status not 403/404/503, pool out
 * of range, a host that is not a host name (or "*." + one), a path that
 * does not start with '/' or is not in normal form, a header name that is
 * not a token, a value with control characters or an empty alternative,
 * a cookie name or value a Cookie field cannot carry.
 */
const char *l7_rule_invalid(const struct l7_rule *r, unsigned int npools);

/* ---- pools: what the core needs to know of a pool's policy ---- */

enum l7_policy {
	L7_POLICY_WLO = 0,	/* weighted least-outstanding (the default) */
	L7_POLICY_WRR,		/* smooth weighted round robin (l7_chash.h) */
	L7_POLICY_HASH,		/* consistent hash, bounded loads (l7_chash.h) */
};

enum l7_hash_key {
	L7_KEY_URI = 0,		/* the normalised path (no query) */
	L7_KEY_HOST,		/* the request's host, as matched */
	L7_KEY_COOKIE,		/* value of cookie ->key_name */
	L7_KEY_HEADER,		/* value of the first field ->key_name */
};

struct l7_pool_policy {
	uint8_t policy;		/* enum l7_policy */
	uint8_t key;		/* enum l7_hash_key, with L7_POLICY_HASH */
	struct l7_rule_name key_name;	/* L7_KEY_COOKIE / L7_KEY_HEADER */
};

/* NULL if usable, else why not (as l7_rule_invalid()). */
const char *l7_pool_policy_invalid(const struct l7_pool_policy *p);

/* ---- the request view ---- */

/* One header field line of the head: offsets into the head bytes. */
struct l7_view_field {
	uint32_t name_off;
	uint32_t value_off;	/* value without leading OWS */
	uint32_t name_len;
	uint32_t value_len;	/* without trailing OWS */
};

struct l7_req_view {
	const uint8_t *head;		/* the complete head, not copied */
	uint32_t head_len;
	enum l7_http_method method;
	const char *path;		/* normalised, in the caller's buffer */
	uint32_t path_len;
	uint16_t host_len;		/* 0: no host */
	uint16_t nfields;
	char host[L7_HOST_MAX];		/* lower-case, no port, no final dot */
	struct l7_view_field fields[L7_VIEW_FIELDS_MAX];
};

/*
 * Build the view of the complete request head @head (@len bytes, as fed
 * to @req, which said L7_HTTP_DONE).  @path_buf receives the normalised
 * path; @path_cap must be at least req->target.len + 1.
 *
 * Returns 0, or the status the director must answer the request with
 * instead of matching it: 400 for a target or host that cannot be read
 * safely (see l7_path_normalise(), l7_host_normalise()), 431 for more
 * field lines than L7_VIEW_FIELDS_MAX, 500 for a @path_cap too small.
 * A service with rules must answer it: a request whose path cannot be
 * normalised could otherwise slip past a path rule.
 *
 * The view is about 2 KB: keep it per CPU or per connection, not on a
 * softirq stack.  It points into @head and @path_buf; both must outlive
 * its use.
 */
int l7_req_view_build(struct l7_req_view *v, const uint8_t *head,
		      uint32_t len, const struct l7_http_req *req,
		      char *path_buf, uint32_t path_cap);

/*
 * Path normalisation, done once per request on the request-target's path
 * (the query, from the first '?', is dropped):
 *
 *  - %XX of an unreserved character (ALPHA DIGIT - . _ ~) is decoded;
 *    any other %XX is kept, its hex digits upper-cased (RFC 3986 6.2.2);
 *  - runs of '/' become one '/' (as Apache's MergeSlashes and nginx's
 *    merge_slashes do: "//cgi-bin/x" is "/cgi-bin/x");
 *  - "." and ".." segments are resolved (RFC 3986 5.2.4), after decoding,
 *    so "/%2e%2e/" is "..".
 *
 * It fails (the request is answered 400) where the result could be read
 * differently by the backend or where no result exists: an encoded '/'
 * (%2F), an encoded NUL (%00), '%' not followed by two hex digits, a
 * ".." that would climb above the root, a "." or ".." segment followed
 * by ';' (Tomcat reads "..;" as ".."), a byte outside visible ASCII, and
 * a path that does not start with '/'.
 *
 * @out needs @len bytes at most (normalising never lengthens).  Returns
 * the length written, or -1.  Normalising a normalised path returns it
 * unchanged.
 */
int l7_path_normalise(const char *in, uint32_t len, char *out);

/*
 * The host of a Host value or absolute-form authority, @len bytes, into
 * @out (L7_HOST_MAX bytes): lower-cased, ":port" and one trailing '.'
 * removed.  A reg-name may hold ALPHA DIGIT '-' '.' '_' only, with no
 * empty label; an IP-literal "[...]" hex digits, ':' and '.'.  Returns the
 * length (0 for an empty value), or -1 (answer 400).
 */
int l7_host_normalise(const char *in, uint32_t len, char *out);

/* ---- matching ---- */

/*
 * Index of the first rule at or after @from that matches @v, or -1.
 * @rules must have passed l7_rule_invalid().
 */
int l7_rules_match(const struct l7_rule *rules, unsigned int n,
		   unsigned int from, const struct l7_req_view *v);

enum l7_verdict_kind {
	L7_V_SERVICE = 0,	/* no rule matched: the whole service, wlo */
	L7_V_POOL,		/* ->pool, chosen by ->rule */
	L7_V_REJECT,		/* answer ->status (by ->rule, or 503 below) */
};

struct l7_verdict {
	uint8_t kind;		/* enum l7_verdict_kind */
	uint16_t status;	/* L7_V_REJECT */
	uint16_t pool;		/* L7_V_POOL */
	int rule;		/* index of the deciding rule, -1: none */
};

/*
 * Whether pool @pool has an eligible member now (the glue's answer: a
 * real server of the service, weight > 0, up in the pool).
 */
typedef bool (*l7_pool_ready_fn)(void *ctx, unsigned int pool);

struct l7_rule_index;

/*
 * The whole decision: first match; a reject rule rejects; a pool rule
 * whose pool is ready routes there; one whose pool is not answers 503,
 * or, with L7_RULE_F_FALLTHROUGH, matching goes on with the next rule.
 * ->rule is the rule whose hit counter to bump (the 503 one included).
 * @ix, the index of these @n rules (l7_rule_index.h), tests only the
 * rules that could match; NULL (or an index of other rules) walks them
 * all.  Either way the verdict is the same.
 */
void l7_rules_decide(const struct l7_rule *rules, unsigned int n,
		     const struct l7_rule_index *ix,
		     const struct l7_req_view *v, l7_pool_ready_fn ready,
		     void *ctx, struct l7_verdict *out);

/* ---- lookups (also used by the matcher) ---- */

/*
 * The value of the @nth field line named @name (case-insensitive), or
 * NULL.  *len gets its length.
 */
const uint8_t *l7_view_header(const struct l7_req_view *v, const char *name,
			      uint32_t name_len, unsigned int nth,
			      uint32_t *len);

/*
 * The value of the first cookie-pair named @name (case-sensitive) in the
 * Cookie fields, DQUOTEs removed, or NULL.  Pairs are separated by ';'
 * and optional whitespace; a malformed pair is skipped, not fatal.
 */
const uint8_t *l7_view_cookie(const struct l7_req_view *v, const char *name,
			      uint32_t name_len, uint32_t *len);

/*
 * The bytes pool policy @p hashes for this request, or false if the
 * request has no such key (no such cookie or header): the glue then
 * picks by wlo.
 */
bool l7_view_hash_key(const struct l7_req_view *v,
		      const struct l7_pool_policy *p,
		      const uint8_t **key, uint32_t *len);

#endif /* _IP_VS_L7_CORE_L7_RULE_H */
