// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: what IPVS_L7 requests carry (uapi/ip_vs_l7_genl.h), checked and
 * turned into service keys, rules and pools for the store.
 *
 * The policies below say what they can - types, ranges, masks, nesting;
 * the rest is checked here: required attributes, limits (E2BIG, with the
 * limit named), strings without an early NUL, names that are HTTP tokens,
 * values without control characters, hosts and paths in the form requests
 * are compared in - and last by the core itself (l7_rule_invalid(),
 * l7_pool_policy_invalid()), whose sentence becomes the extack message.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/ctype.h>
#include <linux/in.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <net/netlink.h>

#include "ip_vs_l7_rules.h"
#include "core/http_chars.h"

/* An absent required attribute: point at where it should be, and say so. */
#define L7_NL_MISSING(extack, nest, tb, type, msg) ({			\
	bool __missing = !(tb)[type];					\
									\
	if (__missing) {						\
		NL_SET_ERR_ATTR_MISS(extack, nest, type);		\
		NL_SET_ERR_MSG(extack, msg);				\
	}								\
	__missing;							\
})

const struct nla_policy l7_svc_policy[IPVS_L7_SVC_ATTR_MAX + 1] = {
	[IPVS_L7_SVC_ATTR_AF]		= { .type = NLA_U16 },
	[IPVS_L7_SVC_ATTR_PROTOCOL]	= { .type = NLA_U16 },
	[IPVS_L7_SVC_ATTR_ADDR]		= { .type = NLA_BINARY, .len = 16 },
	[IPVS_L7_SVC_ATTR_PORT]		= { .type = NLA_BE16 },
};

static const struct nla_policy l7_member_policy[IPVS_L7_MEMBER_ATTR_MAX + 1] = {
	[IPVS_L7_MEMBER_ATTR_ADDR]	= { .type = NLA_BINARY, .len = 16 },
	[IPVS_L7_MEMBER_ATTR_PORT]	= { .type = NLA_BE16 },
	[IPVS_L7_MEMBER_ATTR_AF]	= { .type = NLA_U16 },
};

/* string lengths are checked by hand, to answer E2BIG with the limit */
const struct nla_policy l7_pool_policy[IPVS_L7_POOL_ATTR_MAX + 1] = {
	[IPVS_L7_POOL_ATTR_NAME]	= { .type = NLA_NUL_STRING },
	[IPVS_L7_POOL_ATTR_POLICY]	= NLA_POLICY_MAX(NLA_U8,
							 IPVS_L7_POLICY_MAX),
	[IPVS_L7_POOL_ATTR_HASH_KEY]	= NLA_POLICY_MAX(NLA_U8,
							 IPVS_L7_HASH_MAX),
	[IPVS_L7_POOL_ATTR_HASH_NAME]	= { .type = NLA_NUL_STRING },
	[IPVS_L7_POOL_ATTR_MEMBERS]	=
		NLA_POLICY_NESTED_ARRAY(l7_member_policy),
};

static const struct nla_policy l7_match_policy[IPVS_L7_MATCH_ATTR_MAX + 1] = {
	[IPVS_L7_MATCH_ATTR_NAME]	= { .type = NLA_NUL_STRING },
	[IPVS_L7_MATCH_ATTR_VALUE]	= { .type = NLA_NUL_STRING },
};

const struct nla_policy l7_rule_policy[IPVS_L7_RULE_ATTR_MAX + 1] = {
	[IPVS_L7_RULE_ATTR_ID]		= NLA_POLICY_MIN(NLA_U32, 1),
	[IPVS_L7_RULE_ATTR_FLAGS]	= NLA_POLICY_MASK(NLA_U32,
							  IPVS_L7_RULE_F_ALL),
	[IPVS_L7_RULE_ATTR_HOST]	= { .type = NLA_NUL_STRING },
	[IPVS_L7_RULE_ATTR_PATH]	= { .type = NLA_NUL_STRING },
	[IPVS_L7_RULE_ATTR_METHODS]	= NLA_POLICY_MASK(NLA_U32,
							  IPVS_L7_METHOD_ALL),
	[IPVS_L7_RULE_ATTR_HEADERS]	=
		NLA_POLICY_NESTED_ARRAY(l7_match_policy),
	[IPVS_L7_RULE_ATTR_COOKIE]	= NLA_POLICY_NESTED(l7_match_policy),
	[IPVS_L7_RULE_ATTR_POOL]	= { .type = NLA_NUL_STRING },
	[IPVS_L7_RULE_ATTR_REJECT]	= { .type = NLA_U16 },
};

/* the policy's range check answers "integer out of range" */
const struct nla_policy l7_opt_policy[IPVS_L7_OPT_ATTR_MAX + 1] = {
	[IPVS_L7_OPT_ATTR_FORWARDED]	= NLA_POLICY_MAX(NLA_U32,
							 IPVS_L7_FORWARDED_MAX),
	[IPVS_L7_OPT_ATTR_PREFORK]	= NLA_POLICY_MAX(NLA_U32,
							 IPVS_L7_PREFORK_MAX),
};

/*
 * An address of family @af (AF_INET or AF_INET6): exactly 4 or 16 bytes,
 * copied into a zeroed *@addr.
 */
static int l7_nl_addr(const struct nlattr *nla, u16 af,
		      union nf_inet_addr *addr, struct netlink_ext_ack *extack)
{
	memset(addr, 0, sizeof(*addr));
	if (af == AF_INET && nla_len(nla) == sizeof(addr->ip)) {
		addr->ip = nla_get_in_addr(nla);
		return 0;
	}
	if (af == AF_INET6 && nla_len(nla) == sizeof(addr->in6)) {
		addr->in6 = nla_get_in6_addr(nla);
		return 0;
	}
	if (af == AF_INET)
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "an AF_INET address has 4 bytes");
	else
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "an AF_INET6 address has 16 bytes");
	return -EINVAL;
}

int l7_nl_key(struct nlattr *nla, struct l7_rkey *key,
	      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[IPVS_L7_SVC_ATTR_MAX + 1];
	union nf_inet_addr addr;
	__be16 port;
	int err;

	err = nla_parse_nested(tb, IPVS_L7_SVC_ATTR_MAX, nla, l7_svc_policy,
			       extack);
	if (err)
		return err;
	if (L7_NL_MISSING(extack, nla, tb, IPVS_L7_SVC_ATTR_AF,
			  "service: address family missing") ||
	    L7_NL_MISSING(extack, nla, tb, IPVS_L7_SVC_ATTR_PROTOCOL,
			  "service: protocol missing") ||
	    L7_NL_MISSING(extack, nla, tb, IPVS_L7_SVC_ATTR_ADDR,
			  "service: address missing") ||
	    L7_NL_MISSING(extack, nla, tb, IPVS_L7_SVC_ATTR_PORT,
			  "service: port missing"))
		return -EINVAL;
	key->af = nla_get_u16(tb[IPVS_L7_SVC_ATTR_AF]);
	if (key->af != AF_INET && key->af != AF_INET6) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IPVS_L7_SVC_ATTR_AF],
				    "service: address family is neither AF_INET nor AF_INET6");
		return -EAFNOSUPPORT;
	}
	if (nla_get_u16(tb[IPVS_L7_SVC_ATTR_PROTOCOL]) != IPPROTO_TCP) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IPVS_L7_SVC_ATTR_PROTOCOL],
				    "l7 rules are for TCP services only");
		return -EINVAL;
	}
	err = l7_nl_addr(tb[IPVS_L7_SVC_ATTR_ADDR], key->af, &addr, extack);
	if (err)
		return err;
	port = nla_get_be16(tb[IPVS_L7_SVC_ATTR_PORT]);
	if (!port) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IPVS_L7_SVC_ATTR_PORT],
				    "service: port 0");
		return -EINVAL;
	}
	l7_rkey_init(key, key->af, &addr, port);
	return 0;
}

/*
 * Every string goes through here: NLA_NUL_STRING only ensures a NUL
 * somewhere, and bytes after an early one would be silently dropped.
 */
static int l7_nl_str(const struct nlattr *nla, struct netlink_ext_ack *extack)
{
	if (strnlen(nla_data(nla), nla_len(nla)) + 1 != nla_len(nla)) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "a string holds a NUL before its end");
		return -EINVAL;
	}
	return 0;
}

/* a pool name: [A-Za-z0-9_.-]{1,15} */
int l7_nl_pool_name(const struct nlattr *nla, struct netlink_ext_ack *extack)
{
	const char *s = nla_data(nla);
	size_t len = strlen(s), i;
	int err = l7_nl_str(nla, extack);

	if (err)
		return err;

	if (!len || len >= IPVS_L7_POOL_NAME_LEN) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "a pool name has 1 to 15 characters");
		return len ? -E2BIG : -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if (!isalnum(s[i]) && !strchr("_.-", s[i])) {
			NL_SET_ERR_MSG_ATTR(extack, nla,
					    "a pool name is made of letters, digits, '_', '.' and '-'");
			return -EINVAL;
		}
	}
	return 0;
}

/* a header or cookie name: an HTTP token of at most IPVS_L7_NAME_MAX */
static int l7_nl_token(const struct nlattr *nla,
		       struct netlink_ext_ack *extack)
{
	const char *s = nla_data(nla);
	size_t len = strlen(s), i;
	int err = l7_nl_str(nla, extack);

	if (err)
		return err;

	if (len > IPVS_L7_NAME_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "a header or cookie name is longer than IPVS_L7_NAME_MAX");
		return -E2BIG;
	}
	if (!len) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "empty header or cookie name");
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if (!l7_is_tchar(s[i])) {
			NL_SET_ERR_MSG_ATTR(extack, nla,
					    "a header or cookie name is not an HTTP token");
			return -EINVAL;
		}
	}
	return 0;
}

/* a value to compare: 1..IPVS_L7_VALUE_MAX bytes, no control character */
static int l7_nl_value(const struct nlattr *nla,
		       struct netlink_ext_ack *extack)
{
	const char *s = nla_data(nla);
	size_t len = strlen(s), i;
	int err = l7_nl_str(nla, extack);

	if (err)
		return err;

	if (len > IPVS_L7_VALUE_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "a value is longer than IPVS_L7_VALUE_MAX");
		return -E2BIG;
	}
	if (!len) {
		NL_SET_ERR_MSG_ATTR(extack, nla, "empty value");
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if ((u8)s[i] < 0x20 || s[i] == 0x7f) {
			NL_SET_ERR_MSG_ATTR(extack, nla,
					    "a value holds a control character");
			return -EINVAL;
		}
	}
	return 0;
}

/* header values: 1..IPVS_L7_MAX_ALTS non-empty alternatives joined by '|' */
static int l7_nl_alternatives(const struct nlattr *nla,
			      struct netlink_ext_ack *extack)
{
	const char *s = nla_data(nla), *bar;
	unsigned int n = 0;

	for (;; s = bar + 1) {
		bar = strchrnul(s, '|');
		if (bar == s) {
			NL_SET_ERR_MSG_ATTR(extack, nla,
					    "empty alternative in header values");
			return -EINVAL;
		}
		if (++n > IPVS_L7_MAX_ALTS) {
			NL_SET_ERR_MSG_ATTR(extack, nla,
					    "more header values than IPVS_L7_MAX_ALTS");
			return -E2BIG;
		}
		if (!*bar)
			return 0;
	}
}

/* "a.example" or "*.example": labels of [a-z0-9_-], no port */
static int l7_nl_host(const struct nlattr *nla,
		      struct netlink_ext_ack *extack)
{
	const char *s = nla_data(nla);
	bool label_empty = true;

	if (s[0] == '*' && s[1] == '.' && s[2])
		s += 2;
	for (; *s; s++) {
		if (*s == '.') {
			if (label_empty)
				break;
			label_empty = true;
		} else if (isalnum(*s) || *s == '-' || *s == '_') {
			label_empty = false;
		} else {
			break;
		}
	}
	if (*s || label_empty) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "a host is a DNS name without port, or '*.' and one");
		return -EINVAL;
	}
	return 0;
}

/*
 * A path in the form request paths are compared in: from '/', no query
 * or fragment, no empty, "." or ".." segment (one trailing '/' is fine).
 * The core's check (l7_rule_invalid()) then requires it normalised.
 */
static int l7_nl_path(const struct nlattr *nla,
		      struct netlink_ext_ack *extack)
{
	const char *s = nla_data(nla), *seg;

	if (s[0] != '/') {
		NL_SET_ERR_MSG_ATTR(extack, nla, "a path begins with '/'");
		return -EINVAL;
	}
	if (strpbrk(s, "?# ")) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "a path holds '?', '#' or a space");
		return -EINVAL;
	}
	for (seg = s + 1; *seg; ) {
		const char *end = strchrnul(seg, '/');
		size_t n = end - seg;

		if ((n == 0 && *end) || (n == 1 && seg[0] == '.') ||
		    (n == 2 && seg[0] == '.' && seg[1] == '.')) {
			NL_SET_ERR_MSG_ATTR(extack, nla,
					    "a path has an empty, '.' or '..' segment");
			return -EINVAL;
		}
		seg = *end ? end + 1 : end;
	}
	return 0;
}

/* the core's verdict on a rule or pool: NULL, or a static sentence */
static int l7_nl_core_says(const char *why, const struct nlattr *nla,
			   struct netlink_ext_ack *extack)
{
	if (!why)
		return 0;
	if (extack) {
		extack->_msg = why;
		NL_SET_BAD_ATTR(extack, nla);
	}
	return -EINVAL;
}

/* strings of a rule, copied behind it; lower case where they compare so */
struct l7_strbuf {
	char	*pos;
};

static const char *l7_strput(struct l7_strbuf *b, const struct nlattr *nla,
			     bool lower)
{
	const char *src = nla_data(nla);
	char *dst = b->pos;
	size_t len = strlen(src) + 1;

	memcpy(dst, src, len);
	if (lower)
		string_lower(dst, dst);
	b->pos += len;
	return dst;
}

static size_t l7_strsize(const struct nlattr *nla)
{
	return nla ? strlen(nla_data(nla)) + 1 : 0;
}

/* header tests (tb_hdr) and the cookie test: parse and check each */
static int l7_nl_match(struct nlattr *nla, struct nlattr **tb, bool alts,
		       struct netlink_ext_ack *extack)
{
	int err;

	err = nla_parse_nested(tb, IPVS_L7_MATCH_ATTR_MAX, nla,
			       l7_match_policy, extack);
	if (err)
		return err;
	if (L7_NL_MISSING(extack, nla, tb, IPVS_L7_MATCH_ATTR_NAME,
			  "a header or cookie test without name") ||
	    L7_NL_MISSING(extack, nla, tb, IPVS_L7_MATCH_ATTR_VALUE,
			  "a header or cookie test without value"))
		return -EINVAL;
	err = l7_nl_token(tb[IPVS_L7_MATCH_ATTR_NAME], extack);
	if (!err)
		err = l7_nl_value(tb[IPVS_L7_MATCH_ATTR_VALUE], extack);
	if (!err && alts)
		err = l7_nl_alternatives(tb[IPVS_L7_MATCH_ATTR_VALUE], extack);
	return err;
}

struct l7_nl_rule_attrs {
	struct l7_rule core;		/* the rule as the matcher would see it */
	struct nlattr *tb[IPVS_L7_RULE_ATTR_MAX + 1];
	struct nlattr *hdr[IPVS_L7_MAX_HEADERS][IPVS_L7_MATCH_ATTR_MAX + 1];
	struct nlattr *cookie[IPVS_L7_MATCH_ATTR_MAX + 1];
	unsigned int n_headers;
};

static int l7_nl_rule_headers(struct l7_nl_rule_attrs *a,
			      struct netlink_ext_ack *extack)
{
	struct nlattr *list = a->tb[IPVS_L7_RULE_ATTR_HEADERS], *entry;
	int rem, err;

	nla_for_each_nested(entry, list, rem) {
		if (a->n_headers == IPVS_L7_MAX_HEADERS) {
			NL_SET_ERR_MSG_ATTR(extack, entry,
					    "more header tests than IPVS_L7_MAX_HEADERS");
			return -E2BIG;
		}
		err = l7_nl_match(entry, a->hdr[a->n_headers++], true, extack);
		if (err)
			return err;
	}
	if (!a->n_headers) {
		NL_SET_ERR_MSG_ATTR(extack, list, "empty list of header tests");
		return -EINVAL;
	}
	return 0;
}

/* A rule's id, and its action: a pool to send to or a status to reject. */
static int l7_nl_rule_action(struct nlattr *nla, struct nlattr **tb,
			     struct netlink_ext_ack *extack)
{
	u16 status;

	if (L7_NL_MISSING(extack, nla, tb, IPVS_L7_RULE_ATTR_ID,
			  "a rule without id"))
		return -EINVAL;
	if (!tb[IPVS_L7_RULE_ATTR_POOL] == !tb[IPVS_L7_RULE_ATTR_REJECT]) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "a rule has either a pool or a reject status");
		return -EINVAL;
	}
	if (tb[IPVS_L7_RULE_ATTR_POOL])
		return l7_nl_pool_name(tb[IPVS_L7_RULE_ATTR_POOL], extack);
	status = nla_get_u16(tb[IPVS_L7_RULE_ATTR_REJECT]);
	if (status != 403 && status != 404 && status != 503) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IPVS_L7_RULE_ATTR_REJECT],
				    "a rule rejects with 403, 404 or 503");
		return -EINVAL;
	}
	return 0;
}

static int l7_nl_rule_check(struct nlattr *nla, struct l7_nl_rule_attrs *a,
			    struct netlink_ext_ack *extack)
{
	struct nlattr **tb = a->tb;
	int err;

	err = l7_nl_rule_action(nla, tb, extack);
	if (err)
		return err;
	if (tb[IPVS_L7_RULE_ATTR_METHODS] &&
	    !nla_get_u32(tb[IPVS_L7_RULE_ATTR_METHODS])) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IPVS_L7_RULE_ATTR_METHODS],
				    "an empty set of methods matches nothing");
		return -EINVAL;
	}
	if (tb[IPVS_L7_RULE_ATTR_HOST]) {
		err = l7_nl_value(tb[IPVS_L7_RULE_ATTR_HOST], extack);
		if (!err)
			err = l7_nl_host(tb[IPVS_L7_RULE_ATTR_HOST], extack);
		if (err)
			return err;
	}
	if (tb[IPVS_L7_RULE_ATTR_PATH]) {
		err = l7_nl_value(tb[IPVS_L7_RULE_ATTR_PATH], extack);
		if (!err)
			err = l7_nl_path(tb[IPVS_L7_RULE_ATTR_PATH], extack);
		if (err)
			return err;
	}
	if (tb[IPVS_L7_RULE_ATTR_HEADERS]) {
		err = l7_nl_rule_headers(a, extack);
		if (err)
			return err;
	}
	if (tb[IPVS_L7_RULE_ATTR_COOKIE])
		return l7_nl_match(tb[IPVS_L7_RULE_ATTR_COOKIE], a->cookie,
				   false, extack);
	return 0;
}

static struct l7_rrule *l7_nl_rule_build(const struct l7_nl_rule_attrs *a)
{
	struct nlattr *const *tb = a->tb;
	struct l7_strbuf b;
	struct l7_rrule *r;
	size_t strs;
	unsigned int i;

	strs = l7_strsize(tb[IPVS_L7_RULE_ATTR_HOST]) +
	       l7_strsize(tb[IPVS_L7_RULE_ATTR_PATH]) +
	       l7_strsize(a->cookie[IPVS_L7_MATCH_ATTR_NAME]) +
	       l7_strsize(a->cookie[IPVS_L7_MATCH_ATTR_VALUE]);
	for (i = 0; i < a->n_headers; i++)
		strs += l7_strsize(a->hdr[i][IPVS_L7_MATCH_ATTR_NAME]) +
			l7_strsize(a->hdr[i][IPVS_L7_MATCH_ATTR_VALUE]);
	r = kzalloc(struct_size(r, strs, strs), GFP_KERNEL);
	if (!r)
		return NULL;
	refcount_set(&r->ref, 1);
	r->id = nla_get_u32(tb[IPVS_L7_RULE_ATTR_ID]);
	if (tb[IPVS_L7_RULE_ATTR_FLAGS])
		r->flags = nla_get_u32(tb[IPVS_L7_RULE_ATTR_FLAGS]);
	if (tb[IPVS_L7_RULE_ATTR_METHODS])
		r->methods = nla_get_u32(tb[IPVS_L7_RULE_ATTR_METHODS]);
	if (tb[IPVS_L7_RULE_ATTR_REJECT])
		r->reject = nla_get_u16(tb[IPVS_L7_RULE_ATTR_REJECT]);
	else
		nla_strscpy(r->pool, tb[IPVS_L7_RULE_ATTR_POOL],
			    sizeof(r->pool));
	b.pos = r->strs;
	if (tb[IPVS_L7_RULE_ATTR_HOST])
		r->host = l7_strput(&b, tb[IPVS_L7_RULE_ATTR_HOST], true);
	if (tb[IPVS_L7_RULE_ATTR_PATH])
		r->path = l7_strput(&b, tb[IPVS_L7_RULE_ATTR_PATH], false);
	for (i = 0; i < a->n_headers; i++) {
		r->headers[i].name =
			l7_strput(&b, a->hdr[i][IPVS_L7_MATCH_ATTR_NAME], true);
		r->headers[i].value =
			l7_strput(&b, a->hdr[i][IPVS_L7_MATCH_ATTR_VALUE], false);
	}
	r->n_headers = a->n_headers;
	if (a->cookie[IPVS_L7_MATCH_ATTR_NAME]) {
		r->cookie.name =
			l7_strput(&b, a->cookie[IPVS_L7_MATCH_ATTR_NAME], false);
		r->cookie.value =
			l7_strput(&b, a->cookie[IPVS_L7_MATCH_ATTR_VALUE], false);
	}
	return r;
}

/* the rule in @nla, checked, or an ERR_PTR */
struct l7_rrule *l7_nl_rule(struct nlattr *nla, struct netlink_ext_ack *extack)
{
	struct l7_nl_rule_attrs *a;
	struct l7_rrule *r;
	int err;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return ERR_PTR(-ENOMEM);
	err = nla_parse_nested(a->tb, IPVS_L7_RULE_ATTR_MAX, nla,
			       l7_rule_policy, extack);
	if (!err)
		err = l7_nl_rule_check(nla, a, extack);
	r = err ? ERR_PTR(err) : l7_nl_rule_build(a) ?: ERR_PTR(-ENOMEM);
	if (!IS_ERR(r)) {
		/* the pool's index is the store's business: any will do */
		ip_vs_l7_rrule_to_core(&a->core, r, 0);
		err = l7_nl_core_says(ip_vs_l7_rule_invalid(&a->core, 1),
				      nla, extack);
		if (err) {
			ip_vs_l7_rrule_put(r);
			r = ERR_PTR(err);
		}
	}
	kfree(a);
	return r;
}

static int l7_nl_member(struct nlattr *nla, struct l7_rmember *m,
			struct netlink_ext_ack *extack)
{
	struct nlattr *tb[IPVS_L7_MEMBER_ATTR_MAX + 1];
	int err;

	err = nla_parse_nested(tb, IPVS_L7_MEMBER_ATTR_MAX, nla,
			       l7_member_policy, extack);
	if (err)
		return err;
	if (L7_NL_MISSING(extack, nla, tb, IPVS_L7_MEMBER_ATTR_ADDR,
			  "a pool member without address") ||
	    L7_NL_MISSING(extack, nla, tb, IPVS_L7_MEMBER_ATTR_PORT,
			  "a pool member without port"))
		return -EINVAL;
	/* the family as given, else as the address's length says */
	if (tb[IPVS_L7_MEMBER_ATTR_AF])
		m->af = nla_get_u16(tb[IPVS_L7_MEMBER_ATTR_AF]);
	else if (nla_len(tb[IPVS_L7_MEMBER_ATTR_ADDR]) == sizeof(struct in6_addr))
		m->af = AF_INET6;
	else
		m->af = AF_INET;
	if (m->af != AF_INET && m->af != AF_INET6) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IPVS_L7_MEMBER_ATTR_AF],
				    "a pool member's family is neither AF_INET nor AF_INET6");
		return -EAFNOSUPPORT;
	}
	err = l7_nl_addr(tb[IPVS_L7_MEMBER_ATTR_ADDR], m->af, &m->addr,
			 extack);
	if (err)
		return err;
	m->port = nla_get_be16(tb[IPVS_L7_MEMBER_ATTR_PORT]);
	if (!m->port) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IPVS_L7_MEMBER_ATTR_PORT],
				    "a pool member with port 0");
		return -EINVAL;
	}
	return 0;
}

static int l7_nl_members(struct l7_rpool *p, struct nlattr *list,
			 struct netlink_ext_ack *extack)
{
	struct nlattr *entry;
	int rem, err;
	u32 i;

	nla_for_each_nested(entry, list, rem) {
		struct l7_rmember *m = &p->members[p->n_members];

		if (p->n_members == IPVS_L7_MAX_MEMBERS) {
			NL_SET_ERR_MSG_ATTR(extack, entry,
					    "more pool members than IPVS_L7_MAX_MEMBERS");
			return -E2BIG;
		}
		err = l7_nl_member(entry, m, extack);
		if (err)
			return err;
		for (i = 0; i < p->n_members; i++) {
			/* addresses zero-filled by l7_nl_addr() */
			if (p->members[i].af == m->af &&
			    !memcmp(&p->members[i].addr, &m->addr,
				    sizeof(m->addr)) &&
			    p->members[i].port == m->port) {
				NL_SET_ERR_MSG_ATTR(extack, entry,
						    "a member twice in one pool");
				return -EEXIST;
			}
		}
		p->n_members++;
	}
	if (!p->n_members) {
		NL_SET_ERR_MSG_ATTR(extack, list, "a pool without member");
		return -EINVAL;
	}
	return 0;
}

static int l7_nl_pool_hash(struct l7_rpool *p, struct nlattr *nla,
			   struct nlattr **tb, struct netlink_ext_ack *extack)
{
	bool named;
	int err;

	if (p->policy != IPVS_L7_POLICY_HASH) {
		if (tb[IPVS_L7_POOL_ATTR_HASH_KEY] ||
		    tb[IPVS_L7_POOL_ATTR_HASH_NAME]) {
			NL_SET_ERR_MSG_ATTR(extack, nla,
					    "a hash key for a pool that does not hash");
			return -EINVAL;
		}
		return 0;
	}
	if (L7_NL_MISSING(extack, nla, tb, IPVS_L7_POOL_ATTR_HASH_KEY,
			  "a hash pool without hash key"))
		return -EINVAL;
	p->hash_key = nla_get_u8(tb[IPVS_L7_POOL_ATTR_HASH_KEY]);
	named = p->hash_key == IPVS_L7_HASH_COOKIE ||
		p->hash_key == IPVS_L7_HASH_HEADER;
	if (!named) {
		if (!tb[IPVS_L7_POOL_ATTR_HASH_NAME])
			return 0;
		NL_SET_ERR_MSG_ATTR(extack, tb[IPVS_L7_POOL_ATTR_HASH_NAME],
				    "a name for a hash key that has none");
		return -EINVAL;
	}
	if (L7_NL_MISSING(extack, nla, tb, IPVS_L7_POOL_ATTR_HASH_NAME,
			  "a cookie or header hash key without its name"))
		return -EINVAL;
	err = l7_nl_token(tb[IPVS_L7_POOL_ATTR_HASH_NAME], extack);
	if (err)
		return err;
	nla_strscpy(p->hash_name, tb[IPVS_L7_POOL_ATTR_HASH_NAME],
		    sizeof(p->hash_name));
	if (p->hash_key == IPVS_L7_HASH_HEADER)
		string_lower(p->hash_name, p->hash_name);
	return 0;
}

/*
 * The pool's policy as the core takes it, checked by the core, and for
 * a hash pool its ring: every member with weight 1 (IPVS weights change
 * at any time; they act through the load bound at each pick).
 */
static int l7_nl_pool_core(struct l7_rpool *p, const struct nlattr *nla,
			   struct netlink_ext_ack *extack)
{
	struct l7_chash_member *m;
	int err;
	u32 i;

	/* the same numbers (the enums differ in type only) */
	BUILD_BUG_ON((int)IPVS_L7_POLICY_WRR != (int)L7_POLICY_WRR ||
		     (int)IPVS_L7_POLICY_HASH != (int)L7_POLICY_HASH);
	BUILD_BUG_ON((int)IPVS_L7_HASH_HOST != (int)L7_KEY_HOST ||
		     (int)IPVS_L7_HASH_COOKIE != (int)L7_KEY_COOKIE ||
		     (int)IPVS_L7_HASH_HEADER != (int)L7_KEY_HEADER);
	p->core.policy = p->policy;
	p->core.key = p->hash_key;
	p->core.key_name.len = strlen(p->hash_name);
	memcpy(p->core.key_name.s, p->hash_name, p->core.key_name.len);
	err = l7_nl_core_says(ip_vs_l7_pool_policy_invalid(&p->core),
			      nla, extack);
	if (err || p->policy != IPVS_L7_POLICY_HASH)
		return err;

	p->ring = kvmalloc_array(L7_CHASH_POINTS_MAX, sizeof(*p->ring),
				 GFP_KERNEL);
	m = kcalloc(p->n_members, sizeof(*m), GFP_KERNEL);
	if (!p->ring || !m) {
		kfree(m);
		return -ENOMEM;
	}
	for (i = 0; i < p->n_members; i++) {
		/*
		 * family, address, port: the same server, the same points
		 * (an IPv4 member's name is what it was before IPv6 members)
		 */
		const struct l7_rmember *pm = &p->members[i];
		size_t alen = pm->af == AF_INET ? 4 : 16;
		u8 name[2 + 16 + 2] = { 0, pm->af };

		memcpy(name + 2, &pm->addr, alen);
		memcpy(name + 2 + alen, &pm->port, 2);
		m[i].id = ip_vs_l7_chash_member_id(name, 2 + alen + 2);
		m[i].weight = 1;
	}
	p->n_points = ip_vs_l7_chash_build(p->ring, m, p->n_members);
	kfree(m);
	return 0;
}

/* the pool in @nla, checked, or an ERR_PTR */
struct l7_rpool *l7_nl_pool(struct nlattr *nla, struct netlink_ext_ack *extack)
{
	struct nlattr *tb[IPVS_L7_POOL_ATTR_MAX + 1];
	struct l7_rpool *p;
	int err;

	err = nla_parse_nested(tb, IPVS_L7_POOL_ATTR_MAX, nla, l7_pool_policy,
			       extack);
	if (err)
		return ERR_PTR(err);
	if (L7_NL_MISSING(extack, nla, tb, IPVS_L7_POOL_ATTR_NAME,
			  "a pool without name") ||
	    L7_NL_MISSING(extack, nla, tb, IPVS_L7_POOL_ATTR_MEMBERS,
			  "a pool without members"))
		return ERR_PTR(-EINVAL);
	err = l7_nl_pool_name(tb[IPVS_L7_POOL_ATTR_NAME], extack);
	if (err)
		return ERR_PTR(err);
	p = kzalloc(struct_size(p, members, IPVS_L7_MAX_MEMBERS), GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	refcount_set(&p->ref, 1);
	spin_lock_init(&p->lock);
	nla_strscpy(p->name, tb[IPVS_L7_POOL_ATTR_NAME], sizeof(p->name));
	if (tb[IPVS_L7_POOL_ATTR_POLICY])
		p->policy = nla_get_u8(tb[IPVS_L7_POOL_ATTR_POLICY]);
	err = l7_nl_pool_hash(p, nla, tb, extack);
	if (!err)
		err = l7_nl_members(p, tb[IPVS_L7_POOL_ATTR_MEMBERS], extack);
	if (!err)
		err = l7_nl_pool_core(p, nla, extack);
	if (err) {
		ip_vs_l7_rpool_put(p);
		return ERR_PTR(err);
	}
	return p;
}

/* a nest that may hold only @keep (the id or name to delete) */
int l7_nl_only(struct nlattr *nla, unsigned int maxtype,
	       const struct nla_policy *policy, unsigned int keep,
	       struct nlattr **tb, struct netlink_ext_ack *extack)
{
	unsigned int i;
	int err;

	err = nla_parse_nested(tb, maxtype, nla, policy, extack);
	if (err)
		return err;
	if (L7_NL_MISSING(extack, nla, tb, keep,
			  "a rule id or pool name is needed to delete"))
		return -EINVAL;
	for (i = 1; i <= maxtype; i++) {
		if (i != keep && tb[i]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[i],
					    "to delete, give the rule id or pool name only");
			return -EINVAL;
		}
	}
	return 0;
}


int l7_nl_opts(struct nlattr *nla, struct l7_ropts *opts, u32 *mask,
	       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[IPVS_L7_OPT_ATTR_MAX + 1];
	int err;

	err = nla_parse_nested(tb, IPVS_L7_OPT_ATTR_MAX, nla, l7_opt_policy,
			       extack);
	if (err)
		return err;
	memset(opts, 0, sizeof(*opts));
	*mask = 0;
	if (tb[IPVS_L7_OPT_ATTR_FORWARDED]) {
		opts->forwarded = nla_get_u32(tb[IPVS_L7_OPT_ATTR_FORWARDED]);
		*mask |= BIT(IPVS_L7_OPT_ATTR_FORWARDED);
	}
	if (tb[IPVS_L7_OPT_ATTR_PREFORK]) {
		opts->prefork = nla_get_u32(tb[IPVS_L7_OPT_ATTR_PREFORK]);
		*mask |= BIT(IPVS_L7_OPT_ATTR_PREFORK);
	}
	if (!*mask) {
		NL_SET_ERR_MSG_ATTR(extack, nla, "no option given");
		return -EINVAL;
	}
	return 0;
}
