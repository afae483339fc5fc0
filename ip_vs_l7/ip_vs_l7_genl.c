// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the IPVS_L7 generic-netlink family (uapi/ip_vs_l7_genl.h).
 *
 * Requests are validated strictly by the policies (every command has
 * one; resv_start_op is left at 0 so that reserved header bits and flags
 * are refused too), then checked and turned into rules and pools by
 * ip_vs_l7_nlattr.c, and applied to the store (ip_vs_l7_rules.c).  Every
 * refusal says why in the extended ack.
 *
 * Privilege is that of IPVS's own family: CAP_NET_ADMIN in the initial
 * user namespace (GENL_ADMIN_PERM).  On top of that, no rule set of a
 * network namespace owned by another user namespace is read or written,
 * as no l7 service is made there (l7_net_allowed()): root of the initial
 * user namespace entering such a namespace configures nothing of ours.
 *
 * The family is a module of its own, ip_vs_l7_genl.ko, on top of
 * ip_vs_l7.ko (the store it fills).  IPVS loads a scheduler's module from
 * inside its generic-netlink request ("ipvsadm -A -s l7" holds the
 * genetlink lock while request_module() waits for the module's init), so
 * an init that registered a family would wait for that lock for ever.
 * This module is loaded by a request for the family instead, which the
 * genetlink core makes with its locks dropped.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "ip_vs_l7_rules.h"
#include "ip_vs_l7_sync.h"

/* per command: only the top-level attributes it takes */
static const struct nla_policy l7_rule_cmd_policy[IPVS_L7_ATTR_MAX + 1] = {
	[IPVS_L7_ATTR_SERVICE]	= NLA_POLICY_NESTED(l7_svc_policy),
	[IPVS_L7_ATTR_RULE]	= NLA_POLICY_NESTED(l7_rule_policy),
};

static const struct nla_policy l7_pool_cmd_policy[IPVS_L7_ATTR_MAX + 1] = {
	[IPVS_L7_ATTR_SERVICE]	= NLA_POLICY_NESTED(l7_svc_policy),
	[IPVS_L7_ATTR_POOL]	= NLA_POLICY_NESTED(l7_pool_policy),
};

static const struct nla_policy l7_set_cmd_policy[IPVS_L7_ATTR_MAX + 1] = {
	[IPVS_L7_ATTR_SERVICE]	= NLA_POLICY_NESTED(l7_svc_policy),
	[IPVS_L7_ATTR_RULES]	= NLA_POLICY_NESTED_ARRAY(l7_rule_policy),
	[IPVS_L7_ATTR_POOLS]	= NLA_POLICY_NESTED_ARRAY(l7_pool_policy),
};

static const struct nla_policy l7_opts_cmd_policy[IPVS_L7_ATTR_MAX + 1] = {
	[IPVS_L7_ATTR_SERVICE]	= NLA_POLICY_NESTED(l7_svc_policy),
	[IPVS_L7_ATTR_OPTIONS]	= NLA_POLICY_NESTED(l7_opt_policy),
};

/* FLUSH, the dumps: an optional service key; GET_OPTIONS: a required one */
static const struct nla_policy l7_svc_cmd_policy[IPVS_L7_ATTR_MAX + 1] = {
	[IPVS_L7_ATTR_SERVICE]	= NLA_POLICY_NESTED(l7_svc_policy),
};


/* ---- commands ---- */

/* an address of family @af: 4 or 16 bytes */
static int l7_nl_put_addr(struct sk_buff *skb, int type, u16 af,
			  const union nf_inet_addr *addr)
{
	return af == AF_INET ? nla_put_in_addr(skb, type, addr->ip) :
			       nla_put_in6_addr(skb, type, &addr->in6);
}

/* in answers and dumps */
static int l7_nl_put_key(struct sk_buff *skb, const struct l7_rkey *key)
{
	struct nlattr *nest = nla_nest_start(skb, IPVS_L7_ATTR_SERVICE);

	if (!nest ||
	    nla_put_u16(skb, IPVS_L7_SVC_ATTR_AF, key->af) ||
	    nla_put_u16(skb, IPVS_L7_SVC_ATTR_PROTOCOL, key->protocol) ||
	    l7_nl_put_addr(skb, IPVS_L7_SVC_ATTR_ADDR, key->af, &key->addr) ||
	    nla_put_be16(skb, IPVS_L7_SVC_ATTR_PORT, key->port))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* a namespace whose rule sets (and sync channel) may be used, or -EPERM */
int l7_nl_net_allowed(const struct net *net, struct netlink_ext_ack *extack)
{
	if (l7_net_allowed(net))
		return 0;
	NL_SET_ERR_MSG(extack,
		       "IPVS_L7 is refused in a network namespace outside the initial user namespace");
	return -EPERM;
}

static int l7_nl_req_key(struct genl_info *info, struct l7_rkey *key)
{
	int err = l7_nl_net_allowed(genl_info_net(info), info->extack);

	if (err)
		return err;
	if (GENL_REQ_ATTR_CHECK(info, IPVS_L7_ATTR_SERVICE)) {
		NL_SET_ERR_MSG(info->extack, "no service given");
		return -EINVAL;
	}
	return l7_nl_key(info->attrs[IPVS_L7_ATTR_SERVICE], key,
			 info->extack);
}

/*
 * The shape of most commands: the service key, and the one attribute
 * @type (a rule, a pool, options) that says what to do with it.
 */
static struct nlattr *l7_nl_req_key_and(struct genl_info *info,
					struct l7_rkey *key, unsigned int type,
					int *err)
{
	static const char *const missing[IPVS_L7_ATTR_MAX + 1] = {
		[IPVS_L7_ATTR_RULE]	= "no rule given",
		[IPVS_L7_ATTR_POOL]	= "no pool given",
		[IPVS_L7_ATTR_OPTIONS]	= "no options given",
	};

	*err = l7_nl_req_key(info, key);
	if (*err)
		return NULL;
	if (GENL_REQ_ATTR_CHECK(info, type)) {
		/* NL_SET_ERR_MSG() takes literals only; these are static */
		info->extack->_msg = missing[type];
		*err = -EINVAL;
		return NULL;
	}
	return info->attrs[type];
}

static int l7_nl_set_rule(struct sk_buff *skb, struct genl_info *info)
{
	bool replace = info->genlhdr->cmd == IPVS_L7_CMD_REPLACE_RULE;
	struct l7_rrule *rule;
	struct l7_rkey key;
	struct nlattr *nla;
	int err;

	nla = l7_nl_req_key_and(info, &key, IPVS_L7_ATTR_RULE, &err);
	if (!nla)
		return err;
	rule = l7_nl_rule(nla, info->extack);
	if (IS_ERR(rule))
		return PTR_ERR(rule);
	err = ip_vs_l7_rules_add_rule(genl_info_net(info), &key, rule, replace,
				      info->extack);
	ip_vs_l7_rrule_put(rule);
	return err;
}

static int l7_nl_del_rule(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[IPVS_L7_RULE_ATTR_MAX + 1];
	struct l7_rkey key;
	struct nlattr *nla;
	int err;

	nla = l7_nl_req_key_and(info, &key, IPVS_L7_ATTR_RULE, &err);
	if (!nla)
		return err;
	err = l7_nl_only(nla, IPVS_L7_RULE_ATTR_MAX, l7_rule_policy,
			 IPVS_L7_RULE_ATTR_ID, tb, info->extack);
	if (err)
		return err;
	return ip_vs_l7_rules_del_rule(genl_info_net(info), &key,
				       nla_get_u32(tb[IPVS_L7_RULE_ATTR_ID]),
				       info->extack);
}

static int l7_nl_set_pool(struct sk_buff *skb, struct genl_info *info)
{
	bool replace = info->genlhdr->cmd == IPVS_L7_CMD_REPLACE_POOL;
	struct l7_rpool *pool;
	struct l7_rkey key;
	struct nlattr *nla;
	int err;

	nla = l7_nl_req_key_and(info, &key, IPVS_L7_ATTR_POOL, &err);
	if (!nla)
		return err;
	pool = l7_nl_pool(nla, info->extack);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	err = ip_vs_l7_rules_add_pool(genl_info_net(info), &key, pool, replace,
				      info->extack);
	ip_vs_l7_rpool_put(pool);
	return err;
}

static int l7_nl_del_pool(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[IPVS_L7_POOL_ATTR_MAX + 1];
	char name[IPVS_L7_POOL_NAME_LEN];
	struct l7_rkey key;
	struct nlattr *nla;
	int err;

	nla = l7_nl_req_key_and(info, &key, IPVS_L7_ATTR_POOL, &err);
	if (!nla)
		return err;
	err = l7_nl_only(nla, IPVS_L7_POOL_ATTR_MAX, l7_pool_policy,
			 IPVS_L7_POOL_ATTR_NAME, tb, info->extack);
	if (!err)
		err = l7_nl_pool_name(tb[IPVS_L7_POOL_ATTR_NAME], info->extack);
	if (err)
		return err;
	nla_strscpy(name, tb[IPVS_L7_POOL_ATTR_NAME], sizeof(name));
	return ip_vs_l7_rules_del_pool(genl_info_net(info), &key, name,
				       info->extack);
}

/* the rules and pools of a SET_RULESET, parsed, and the references held */
struct l7_nl_set {
	struct l7_rpool	*pools[IPVS_L7_MAX_POOLS];
	struct l7_rrule	*rules[IPVS_L7_MAX_RULES];
	u32		n_pools;
	u32		n_rules;
};

static int l7_nl_set_pools(struct l7_nl_set *set, struct nlattr *list,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *entry;
	int rem;

	nla_for_each_nested(entry, list, rem) {
		struct l7_rpool *p;

		if (set->n_pools == IPVS_L7_MAX_POOLS) {
			NL_SET_ERR_MSG_ATTR(extack, entry,
					    "too many pools for one service");
			return -E2BIG;
		}
		p = l7_nl_pool(entry, extack);
		if (IS_ERR(p))
			return PTR_ERR(p);
		set->pools[set->n_pools++] = p;
	}
	return 0;
}

static int l7_nl_set_parse(struct l7_nl_set *set, struct nlattr **attrs,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *entry;
	int rem, err;

	if (attrs[IPVS_L7_ATTR_POOLS]) {
		err = l7_nl_set_pools(set, attrs[IPVS_L7_ATTR_POOLS], extack);
		if (err)
			return err;
	}
	if (!attrs[IPVS_L7_ATTR_RULES])
		return 0;
	nla_for_each_nested(entry, attrs[IPVS_L7_ATTR_RULES], rem) {
		struct l7_rrule *r;

		if (set->n_rules == IPVS_L7_MAX_RULES) {
			NL_SET_ERR_MSG_ATTR(extack, entry,
					    "too many rules for one service");
			return -E2BIG;
		}
		r = l7_nl_rule(entry, extack);
		if (IS_ERR(r))
			return PTR_ERR(r);
		set->rules[set->n_rules++] = r;
	}
	return 0;
}

static int l7_nl_set_ruleset(struct sk_buff *skb, struct genl_info *info)
{
	struct l7_nl_set *set;
	struct l7_rkey key;
	int err;
	u32 i;

	err = l7_nl_req_key(info, &key);
	if (err)
		return err;
	set = kvzalloc(sizeof(*set), GFP_KERNEL);
	if (!set)
		return -ENOMEM;
	err = l7_nl_set_parse(set, info->attrs, info->extack);
	if (!err)
		err = ip_vs_l7_rules_set(genl_info_net(info), &key, set->pools,
					 set->n_pools, set->rules, set->n_rules,
					 info->extack);
	for (i = 0; i < set->n_pools; i++)
		ip_vs_l7_rpool_put(set->pools[i]);
	for (i = 0; i < set->n_rules; i++)
		ip_vs_l7_rrule_put(set->rules[i]);
	kvfree(set);
	return err;
}

static int l7_nl_flush(struct sk_buff *skb, struct genl_info *info)
{
	struct l7_rkey key;
	int err;

	err = l7_nl_net_allowed(genl_info_net(info), info->extack);
	if (err)
		return err;
	if (!info->attrs[IPVS_L7_ATTR_SERVICE]) {
		ip_vs_l7_rules_flush(genl_info_net(info), NULL);
		return 0;
	}
	err = l7_nl_key(info->attrs[IPVS_L7_ATTR_SERVICE], &key, info->extack);
	if (!err)
		ip_vs_l7_rules_flush(genl_info_net(info), &key);
	return err;
}

static int l7_nl_set_options(struct sk_buff *skb, struct genl_info *info)
{
	struct l7_ropts opts;
	struct l7_rkey key;
	struct nlattr *nla;
	u32 mask;
	int err;

	nla = l7_nl_req_key_and(info, &key, IPVS_L7_ATTR_OPTIONS, &err);
	if (!nla)
		return err;
	err = l7_nl_opts(nla, &opts, &mask, info->extack);
	if (err)
		return err;
	return ip_vs_l7_rules_set_opts(genl_info_net(info), &key, &opts, mask,
				       info->extack);
}

static int l7_nl_put_opts(struct sk_buff *skb, const struct l7_ropts *o)
{
	struct nlattr *nest = nla_nest_start(skb, IPVS_L7_ATTR_OPTIONS);

	if (!nest ||
	    nla_put_u32(skb, IPVS_L7_OPT_ATTR_FORWARDED, o->forwarded) ||
	    nla_put_u32(skb, IPVS_L7_OPT_ATTR_PREFORK, o->prefork))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int l7_nl_get_options(struct sk_buff *skb, struct genl_info *info)
{
	struct l7_ropts opts = {};	/* a key without options: defaults */
	const struct l7_rset *set;
	struct sk_buff *msg;
	struct l7_rkey key;
	void *hdr;
	int err;

	err = l7_nl_req_key(info, &key);
	if (err)
		return err;
	rcu_read_lock();
	set = ip_vs_l7_rules_lookup(genl_info_net(info), &key);
	if (set)
		opts = set->opts;
	rcu_read_unlock();

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &l7_genl_family, 0,
				IPVS_L7_CMD_GET_OPTIONS);
	if (!hdr || l7_nl_put_key(msg, &key) || l7_nl_put_opts(msg, &opts)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int l7_nl_get_info(struct sk_buff *skb, struct genl_info *info)
{
	static const u32 limits[][2] = {
		{ IPVS_L7_INFO_ATTR_VERSION, IPVS_L7_GENL_VERSION },
		{ IPVS_L7_INFO_ATTR_MAX_RULES, IPVS_L7_MAX_RULES },
		{ IPVS_L7_INFO_ATTR_MAX_POOLS, IPVS_L7_MAX_POOLS },
		{ IPVS_L7_INFO_ATTR_MAX_MEMBERS, IPVS_L7_MAX_MEMBERS },
		{ IPVS_L7_INFO_ATTR_MAX_HEADERS, IPVS_L7_MAX_HEADERS },
		{ IPVS_L7_INFO_ATTR_MAX_ALTS, IPVS_L7_MAX_ALTS },
		{ IPVS_L7_INFO_ATTR_NAME_MAX, IPVS_L7_NAME_MAX },
		{ IPVS_L7_INFO_ATTR_VALUE_MAX, IPVS_L7_VALUE_MAX },
	};
	struct nlattr *nest;
	struct sk_buff *msg;
	unsigned int i;
	void *hdr;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &l7_genl_family, 0,
				IPVS_L7_CMD_GET_INFO);
	if (!hdr)
		goto nospace;
	nest = nla_nest_start(msg, IPVS_L7_ATTR_INFO);
	if (!nest)
		goto nospace;
	for (i = 0; i < ARRAY_SIZE(limits); i++)
		if (nla_put_u32(msg, limits[i][0], limits[i][1]))
			goto nospace;
	nla_nest_end(msg, nest);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

nospace:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

/* ---- dumps ---- */

static int l7_nl_put_match(struct sk_buff *skb, int type,
			   const struct l7_rmatch *m)
{
	struct nlattr *nest = nla_nest_start(skb, type);

	if (!nest ||
	    nla_put_string(skb, IPVS_L7_MATCH_ATTR_NAME, m->name) ||
	    nla_put_string(skb, IPVS_L7_MATCH_ATTR_VALUE, m->value))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int l7_nl_put_count(struct sk_buff *skb, int type, atomic64_t *v)
{
	return nla_put_u64_64bit(skb, type, atomic64_read(v),
				 IPVS_L7_STATS_ATTR_PAD);
}

static int l7_nl_put_rule_matches(struct sk_buff *skb,
				  const struct l7_rrule *r)
{
	struct nlattr *list;
	unsigned int i;

	if ((r->host && nla_put_string(skb, IPVS_L7_RULE_ATTR_HOST, r->host)) ||
	    (r->path && nla_put_string(skb, IPVS_L7_RULE_ATTR_PATH, r->path)) ||
	    (r->methods &&
	     nla_put_u32(skb, IPVS_L7_RULE_ATTR_METHODS, r->methods)) ||
	    (r->cookie.name &&
	     l7_nl_put_match(skb, IPVS_L7_RULE_ATTR_COOKIE, &r->cookie)))
		return -EMSGSIZE;
	if (!r->n_headers)
		return 0;
	list = nla_nest_start(skb, IPVS_L7_RULE_ATTR_HEADERS);
	if (!list)
		return -EMSGSIZE;
	for (i = 0; i < r->n_headers; i++)
		if (l7_nl_put_match(skb, i + 1, &r->headers[i]))
			return -EMSGSIZE;
	nla_nest_end(skb, list);
	return 0;
}

static int l7_nl_put_rule(struct sk_buff *skb, const struct l7_rrule *r)
{
	struct nlattr *nest, *stats;

	nest = nla_nest_start(skb, IPVS_L7_ATTR_RULE);
	if (!nest ||
	    nla_put_u32(skb, IPVS_L7_RULE_ATTR_ID, r->id) ||
	    nla_put_u32(skb, IPVS_L7_RULE_ATTR_FLAGS, r->flags) ||
	    l7_nl_put_rule_matches(skb, r) ||
	    (r->reject ?
	     nla_put_u16(skb, IPVS_L7_RULE_ATTR_REJECT, r->reject) :
	     nla_put_string(skb, IPVS_L7_RULE_ATTR_POOL, r->pool)))
		return -EMSGSIZE;
	stats = nla_nest_start(skb, IPVS_L7_RULE_ATTR_STATS);
	if (!stats ||
	    l7_nl_put_count(skb, IPVS_L7_STATS_ATTR_HITS, &r->count->hits))
		return -EMSGSIZE;
	nla_nest_end(skb, stats);
	nla_nest_end(skb, nest);
	return 0;
}

static int l7_nl_put_members(struct sk_buff *skb, const struct l7_rpool *p)
{
	struct nlattr *list, *m;
	u32 i;

	list = nla_nest_start(skb, IPVS_L7_POOL_ATTR_MEMBERS);
	if (!list)
		return -EMSGSIZE;
	for (i = 0; i < p->n_members; i++) {
		const struct l7_rmember *pm = &p->members[i];

		m = nla_nest_start(skb, i + 1);
		if (!m ||
		    l7_nl_put_addr(skb, IPVS_L7_MEMBER_ATTR_ADDR, pm->af,
				   &pm->addr) ||
		    nla_put_be16(skb, IPVS_L7_MEMBER_ATTR_PORT, pm->port) ||
		    nla_put_u16(skb, IPVS_L7_MEMBER_ATTR_AF, pm->af))
			return -EMSGSIZE;
		nla_nest_end(skb, m);
	}
	nla_nest_end(skb, list);
	return 0;
}

static int l7_nl_put_pool(struct sk_buff *skb, const struct l7_rpool *p)
{
	struct nlattr *nest, *stats;

	nest = nla_nest_start(skb, IPVS_L7_ATTR_POOL);
	if (!nest ||
	    nla_put_string(skb, IPVS_L7_POOL_ATTR_NAME, p->name) ||
	    nla_put_u8(skb, IPVS_L7_POOL_ATTR_POLICY, p->policy) ||
	    (p->policy == IPVS_L7_POLICY_HASH &&
	     nla_put_u8(skb, IPVS_L7_POOL_ATTR_HASH_KEY, p->hash_key)) ||
	    (p->hash_name[0] &&
	     nla_put_string(skb, IPVS_L7_POOL_ATTR_HASH_NAME, p->hash_name)) ||
	    l7_nl_put_members(skb, p))
		return -EMSGSIZE;
	stats = nla_nest_start(skb, IPVS_L7_POOL_ATTR_STATS);
	if (!stats ||
	    l7_nl_put_count(skb, IPVS_L7_STATS_ATTR_REQUESTS,
			    &p->count->hits) ||
	    l7_nl_put_count(skb, IPVS_L7_STATS_ATTR_UNAVAILABLE,
			    &p->count->unavailable))
		return -EMSGSIZE;
	nla_nest_end(skb, stats);
	nla_nest_end(skb, nest);
	return 0;
}

/* where a dump stands, between its calls */
struct l7_nl_dump {
	struct l7_rkey	key;		/* the filter */
	bool		filtered;
	bool		done;
	u32		bucket;		/* unfiltered: hash bucket */
	u32		n;		/* ... key in it */
	u32		item;		/* rule or pool of the key */
};

static struct l7_nl_dump *l7_nl_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct l7_nl_dump) > sizeof(cb->ctx));
	return (struct l7_nl_dump *)cb->ctx;
}

/* GET_RULE or GET_POOL */
static u8 l7_nl_dump_cmd(const struct netlink_callback *cb)
{
	const struct genlmsghdr *ghdr = nlmsg_data(cb->nlh);

	return ghdr->cmd;
}

static int l7_nl_dump_start(struct netlink_callback *cb)
{
	struct l7_nl_dump *d = l7_nl_dump_ctx(cb);
	struct nlattr *tb[IPVS_L7_ATTR_MAX + 1];
	int err;

	err = l7_nl_net_allowed(sock_net(cb->skb->sk), cb->extack);
	if (err)
		return err;
	memset(d, 0, sizeof(*d));
	/* validated already; parsed again for the optional filter */
	err = nlmsg_parse(cb->nlh, GENL_HDRLEN, tb, IPVS_L7_ATTR_MAX,
			  l7_svc_cmd_policy, cb->extack);
	if (err || !tb[IPVS_L7_ATTR_SERVICE])
		return err;
	d->filtered = true;
	return l7_nl_key(tb[IPVS_L7_ATTR_SERVICE], &d->key, cb->extack);
}

/* one message: the key and rule or pool @item of @set; -EMSGSIZE: full */
static int l7_nl_dump_one(struct sk_buff *skb, struct netlink_callback *cb,
			  const struct l7_rkey *key, const struct l7_rset *set,
			  u32 item)
{
	u8 cmd = l7_nl_dump_cmd(cb);
	void *hdr;
	int err;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
			  cb->nlh->nlmsg_seq, &l7_genl_family, NLM_F_MULTI,
			  cmd);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(cb, hdr);
	err = l7_nl_put_key(skb, key);
	if (!err)
		err = cmd == IPVS_L7_CMD_GET_RULE ?
		      l7_nl_put_rule(skb, set->rules[item]) :
		      l7_nl_put_pool(skb, set->pools[item]);
	if (err) {
		genlmsg_cancel(skb, hdr);
		return err;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* the items of one key's set from d->item on; -EMSGSIZE: continue later */
static int l7_nl_dump_set(struct sk_buff *skb, struct netlink_callback *cb,
			  const struct l7_rkey *key, const struct l7_rset *set)
{
	struct l7_nl_dump *d = l7_nl_dump_ctx(cb);
	u32 n = l7_nl_dump_cmd(cb) == IPVS_L7_CMD_GET_RULE ? set->n_rules :
							     set->n_pools;
	int err;

	for (; d->item < n; d->item++) {
		err = l7_nl_dump_one(skb, cb, key, set, d->item);
		if (err)
			return err;
	}
	d->item = 0;
	return 0;
}

static int l7_nl_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct l7_nl_dump *d = l7_nl_dump_ctx(cb);
	struct net *net = sock_net(skb->sk);
	const struct l7_rset *set;
	struct l7_rkey key;
	int err = 0;

	if (d->done)
		return 0;
	cb->seq = ip_vs_l7_rules_generation();
	rcu_read_lock();
	if (d->filtered) {
		set = ip_vs_l7_rules_lookup(net, &d->key);
		if (set)
			err = l7_nl_dump_set(skb, cb, &d->key, set);
		goto out;
	}
	for (; d->bucket < L7_RKEY_BUCKETS; d->bucket++, d->n = 0) {
		for (;; d->n++) {
			set = ip_vs_l7_rules_walk(net, d->bucket, d->n, &key);
			if (!set)
				break;
			err = l7_nl_dump_set(skb, cb, &key, set);
			if (err)
				goto out;
		}
	}
out:
	rcu_read_unlock();
	if (err != -EMSGSIZE)
		d->done = true;
	/* a full message buffer is not an error: the dump goes on */
	return err == -EMSGSIZE || !err ? skb->len : err;
}

/*
 * Every command needs CAP_NET_ADMIN (see the top); every one that reads
 * or writes a rule set, a namespace that may have l7 services.  GET_INFO
 * (the family's constants) takes no attribute: without a policy of its
 * own the core refuses any.
 */
static const struct genl_ops l7_genl_ops[] = {
	{
		.cmd	= IPVS_L7_CMD_ADD_RULE,
		.doit	= l7_nl_set_rule,
		.policy	= l7_rule_cmd_policy,
		.maxattr = IPVS_L7_ATTR_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= IPVS_L7_CMD_DEL_RULE,
		.doit	= l7_nl_del_rule,
		.policy	= l7_rule_cmd_policy,
		.maxattr = IPVS_L7_ATTR_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= IPVS_L7_CMD_REPLACE_RULE,
		.doit	= l7_nl_set_rule,
		.policy	= l7_rule_cmd_policy,
		.maxattr = IPVS_L7_ATTR_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= IPVS_L7_CMD_ADD_POOL,
		.doit	= l7_nl_set_pool,
		.policy	= l7_pool_cmd_policy,
		.maxattr = IPVS_L7_ATTR_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= IPVS_L7_CMD_DEL_POOL,
		.doit	= l7_nl_del_pool,
		.policy	= l7_pool_cmd_policy,
		.maxattr = IPVS_L7_ATTR_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= IPVS_L7_CMD_REPLACE_POOL,
		.doit	= l7_nl_set_pool,
		.policy	= l7_pool_cmd_policy,
		.maxattr = IPVS_L7_ATTR_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= IPVS_L7_CMD_SET_RULESET,
		.doit	= l7_nl_set_ruleset,
		.policy	= l7_set_cmd_policy,
		.maxattr = IPVS_L7_ATTR_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= IPVS_L7_CMD_FLUSH,
		.doit	= l7_nl_flush,
		.policy	= l7_svc_cmd_policy,
		.maxattr = IPVS_L7_ATTR_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= IPVS_L7_CMD_GET_RULE,
		.start	= l7_nl_dump_start,
		.dumpit	= l7_nl_dump,
		.policy	= l7_svc_cmd_policy,
		.maxattr = IPVS_L7_ATTR_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= IPVS_L7_CMD_GET_POOL,
		.start	= l7_nl_dump_start,
		.dumpit	= l7_nl_dump,
		.policy	= l7_svc_cmd_policy,
		.maxattr = IPVS_L7_ATTR_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= IPVS_L7_CMD_GET_INFO,
		.doit	= l7_nl_get_info,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= IPVS_L7_CMD_SET_OPTIONS,
		.doit	= l7_nl_set_options,
		.policy	= l7_opts_cmd_policy,
		.maxattr = IPVS_L7_ATTR_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= IPVS_L7_CMD_GET_OPTIONS,
		.doit	= l7_nl_get_options,
		.policy	= l7_svc_cmd_policy,
		.maxattr = IPVS_L7_ATTR_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	/* the checkpoint channel: ip_vs_l7_sync_nl.c */
	{
		.cmd	= IPVS_L7_CMD_START_SYNC,
		.doit	= l7_nl_start_sync,
		.policy	= l7_sync_cmd_policy,
		.maxattr = IPVS_L7_ATTR_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= IPVS_L7_CMD_STOP_SYNC,
		.doit	= l7_nl_stop_sync,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= IPVS_L7_CMD_GET_SYNC,
		.doit	= l7_nl_get_sync,
		.flags	= GENL_ADMIN_PERM,
	},
};

/* resv_start_op stays 0: every command is validated strictly */
struct genl_family l7_genl_family __ro_after_init = {
	.name		= IPVS_L7_GENL_NAME,
	.version	= IPVS_L7_GENL_VERSION,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.ops		= l7_genl_ops,
	.n_ops		= ARRAY_SIZE(l7_genl_ops),
};

static int __init ip_vs_l7_genl_init(void)
{
	return genl_register_family(&l7_genl_family);
}

static void __exit ip_vs_l7_genl_exit(void)
{
	genl_unregister_family(&l7_genl_family);
}

module_init(ip_vs_l7_genl_init);
module_exit(ip_vs_l7_genl_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("IPVS l7 scheduler: the IPVS_L7 generic-netlink family for content rules");
MODULE_ALIAS_GENL_FAMILY(IPVS_L7_GENL_NAME);
