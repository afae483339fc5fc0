/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7: the content-rule store, between the IPVS_L7 netlink family
 * (ip_vs_l7_genl.c) and the data path.
 *
 * A rule set belongs to a key - network namespace, protocol, address
 * family, VIP, port - and is immutable once published: a change builds a new set, publishes
 * it with one pointer store and frees the old one after an RCU grace
 * period.  Rules and pools are immutable too and refcounted, so that a
 * new set shares every one that did not change with the set before it.
 * Counters hang off rules and pools in objects of their own, handed from
 * a rule to its replacement with the same id (a pool to its replacement
 * with the same name), so they survive replaces.
 */
#ifndef _IP_VS_L7_RULES_H
#define _IP_VS_L7_RULES_H

#include <linux/atomic.h>
#include <linux/in.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/netfilter.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/user_namespace.h>
#include <net/net_namespace.h>
#include <net/netlink.h>

#include "core/head_copy.h"
#include "core/l7_chash.h"
#include "core/l7_rule.h"
#include "core/l7_rule_index.h"
#include "uapi/ip_vs_l7_genl.h"

struct net;

/*
 * Only a network namespace of the initial user namespace may have l7
 * services or rules.  IPVS lets the root of any user namespace (which
 * Debian lets an unprivileged user create) add services in its own
 * network namespace, but max_conns, the pools' workqueue and the service
 * and rule hashes are shared by every namespace, and the data path and
 * its parser would be open to unprivileged users.
 */
static inline bool l7_net_allowed(const struct net *net)
{
	return net->user_ns == &init_user_ns;
}

/*
 * A service key.  An IPv4 VIP sits in ->addr.ip with the other twelve
 * bytes zero (l7_rkey_init() sees to it), so keys compare and hash the
 * same whoever built them.
 */
struct l7_rkey {
	union nf_inet_addr	addr;		/* VIP */
	__be16			port;
	u16			protocol;	/* IPPROTO_TCP */
	u16			af;		/* AF_INET or AF_INET6 */
};

static inline void l7_rkey_init(struct l7_rkey *key, u16 af,
				const union nf_inet_addr *addr, __be16 port)
{
	memset(key, 0, sizeof(*key));
	key->af = af;
	if (af == AF_INET)
		key->addr.ip = addr->ip;
	else
		key->addr.in6 = addr->in6;
	key->port = port;
	key->protocol = IPPROTO_TCP;
}

/* the counters of one rule id or one pool name */
struct l7_rcount {
	refcount_t	ref;		/* versions of the rule or pool */
	atomic64_t	hits;		/* rule: hits; pool: requests */
	atomic64_t	unavailable;	/* pool: no eligible member */
};

/* a real server by family, address and port: of either family, whatever
 * the VIP's (the director terminates the client's TCP)
 */
struct l7_rmember {
	union nf_inet_addr	addr;		/* IPv4: ->ip, the rest zero */
	__be16			port;
	u16			af;
};

/*
 * A pool: configuration, fixed once stored, and the state its policy
 * keeps between picks (smooth WRR credits, under ->lock).
 */
struct l7_rpool {
	refcount_t		ref;		/* sets holding it, and its builder */
	struct l7_rcount	*count;		/* NULL until stored */
	char			name[IPVS_L7_POOL_NAME_LEN];
	u8			policy;		/* enum ipvs_l7_policy */
	u8			hash_key;	/* enum ipvs_l7_hash_key */
	char			hash_name[IPVS_L7_NAME_MAX + 1];
	struct l7_pool_policy	core;		/* the same, for the core */
	/* POLICY_HASH: every member with weight 1 on the ring */
	struct l7_chash_point	*ring;
	unsigned int		n_points;
	spinlock_t		lock;		/* ->wrr */
	struct l7_wrr		wrr;
	u32			n_members;
	struct l7_rmember	members[];
};

struct l7_rmatch {
	const char	*name;		/* lower case */
	const char	*value;		/* header: values joined by '|' */
};

struct l7_rrule {
	refcount_t		ref;
	struct l7_rcount	*count;
	u32			id;
	u32			flags;		/* IPVS_L7_RULE_F_* */
	u32			methods;	/* IPVS_L7_METHOD_*, 0: any */
	u16			reject;		/* status, or 0: to pool */
	char			pool[IPVS_L7_POOL_NAME_LEN];
	const char		*host;		/* lower case; NULL: any */
	const char		*path;		/* NULL: any */
	u32			n_headers;
	struct l7_rmatch	headers[IPVS_L7_MAX_HEADERS];
	struct l7_rmatch	cookie;		/* name NULL: no test */
	char			strs[];		/* the strings above */
};

/* a key's options; zero is "default" for each */
struct l7_ropts {
	u32	forwarded;	/* enum ipvs_l7_forwarded */
	u32	prefork;	/* enum ipvs_l7_prefork */
};

/* One key's rules, pools and options, as the data path sees them. */
struct l7_rset {
	struct rcu_head		rcu;
	struct l7_ropts		opts;
	u32			n_pools;
	u32			n_rules;
	struct l7_rpool		**pools;	/* by name */
	struct l7_rrule		**rules;	/* by ascending id */
	struct l7_rule		*match;		/* rules[i] for the matcher */
	struct l7_rule_index	*index;		/* of ->match */
};

void ip_vs_l7_rpool_put(struct l7_rpool *pool);
void ip_vs_l7_rrule_put(struct l7_rrule *rule);
/* @r as the core's matcher takes it, its action pool index @pool */
void ip_vs_l7_rrule_to_core(struct l7_rule *out, const struct l7_rrule *r,
			    u16 pool);
/* the core's l7_rule_invalid() and the others, for ip_vs_l7_genl.ko */
const char *ip_vs_l7_rule_invalid(const struct l7_rule *r,
				  unsigned int npools);
const char *ip_vs_l7_pool_policy_invalid(const struct l7_pool_policy *p);
u64 ip_vs_l7_chash_member_id(const void *name, size_t len);
unsigned int ip_vs_l7_chash_build(struct l7_chash_point *ring,
				  const struct l7_chash_member *m,
				  unsigned int n);

/* writers: process context, each serialised by the store's mutex */
int ip_vs_l7_rules_add_rule(struct net *net, const struct l7_rkey *key,
			    struct l7_rrule *rule, bool replace,
			    struct netlink_ext_ack *extack);
int ip_vs_l7_rules_del_rule(struct net *net, const struct l7_rkey *key, u32 id,
			    struct netlink_ext_ack *extack);
int ip_vs_l7_rules_add_pool(struct net *net, const struct l7_rkey *key,
			    struct l7_rpool *pool, bool replace,
			    struct netlink_ext_ack *extack);
int ip_vs_l7_rules_del_pool(struct net *net, const struct l7_rkey *key,
			    const char *name, struct netlink_ext_ack *extack);
int ip_vs_l7_rules_set(struct net *net, const struct l7_rkey *key,
		       struct l7_rpool **pools, u32 n_pools,
		       struct l7_rrule **rules, u32 n_rules,
		       struct netlink_ext_ack *extack);
void ip_vs_l7_rules_flush(struct net *net, const struct l7_rkey *key);
/* the options of @opts that @mask (1 << IPVS_L7_OPT_ATTR_*) names */
int ip_vs_l7_rules_set_opts(struct net *net, const struct l7_rkey *key,
			    const struct l7_ropts *opts, u32 mask,
			    struct netlink_ext_ack *extack);

/* readers, under rcu_read_lock() */
const struct l7_rset *ip_vs_l7_rules_lookup(const struct net *net,
					    const struct l7_rkey *key);
/* dumps: the set of the @n-th key of @net in hash bucket @bucket */
#define L7_RKEY_HASH_BITS	6
#define L7_RKEY_BUCKETS		(1U << L7_RKEY_HASH_BITS)
const struct l7_rset *ip_vs_l7_rules_walk(const struct net *net,
					  unsigned int bucket, unsigned int n,
					  struct l7_rkey *key);
unsigned int ip_vs_l7_rules_generation(void);

/*
 * ip_vs_l7_ruleset.c holds the keys and the readers above (lookup, walk);
 * for the writers (ip_vs_l7_rules.c), the key hash and the only ways into
 * and out of it, under l7_rules_mutex.
 */
struct l7_rentry {
	struct hlist_node	node;		/* in l7_rkey_hash, RCU */
	possible_net_t		net;
	struct l7_rkey		key;
	struct l7_rset __rcu	*set;		/* never NULL */
	struct rcu_head		rcu;
};

extern struct mutex l7_rules_mutex;
extern struct hlist_head l7_rkey_hash[L7_RKEY_BUCKETS];
/* under RCU or l7_rules_mutex */
struct l7_rentry *l7_rentry_find(const struct net *net,
				 const struct l7_rkey *key);
void l7_rentry_link(struct l7_rentry *e, struct net *net,
		    const struct l7_rkey *key);
void l7_rentry_unlink(struct l7_rentry *e);

/* under RCU: how requests to the key of @set (NULL: none) carry the client */
static inline enum l7_fwd_mode l7_rset_forwarded(const struct l7_rset *set,
						 enum l7_fwd_mode dflt)
{
	BUILD_BUG_ON(IPVS_L7_FORWARDED_OFF - 1 != L7_FWD_OFF ||
		     IPVS_L7_FORWARDED_XFF - 1 != L7_FWD_XFF ||
		     IPVS_L7_FORWARDED_XFF_REPLACE - 1 != L7_FWD_XFF_REPLACE ||
		     IPVS_L7_FORWARDED_FORWARDED - 1 != L7_FWD_FORWARDED);
	if (!set || set->opts.forwarded == IPVS_L7_FORWARDED_DEFAULT)
		return dflt;
	return set->opts.forwarded - 1;
}

int l7_rules_init(void);
void l7_rules_exit(void);

/* ip_vs_l7_nlattr.c: request attributes, checked; extack says why not */
extern const struct nla_policy l7_svc_policy[IPVS_L7_SVC_ATTR_MAX + 1];
extern const struct nla_policy l7_pool_policy[IPVS_L7_POOL_ATTR_MAX + 1];
extern const struct nla_policy l7_rule_policy[IPVS_L7_RULE_ATTR_MAX + 1];
extern const struct nla_policy l7_opt_policy[IPVS_L7_OPT_ATTR_MAX + 1];
int l7_nl_key(struct nlattr *nla, struct l7_rkey *key,
	      struct netlink_ext_ack *extack);
int l7_nl_pool_name(const struct nlattr *nla, struct netlink_ext_ack *extack);
/* with a reference for the caller, or an ERR_PTR */
struct l7_rrule *l7_nl_rule(struct nlattr *nla, struct netlink_ext_ack *extack);
struct l7_rpool *l7_nl_pool(struct nlattr *nla, struct netlink_ext_ack *extack);
/* the options a SET_OPTIONS nest gives, *@mask saying which */
int l7_nl_opts(struct nlattr *nla, struct l7_ropts *opts, u32 *mask,
	       struct netlink_ext_ack *extack);
/* a nest holding only attribute @keep (what names a rule or pool) */
int l7_nl_only(struct nlattr *nla, unsigned int maxtype,
	       const struct nla_policy *policy, unsigned int keep,
	       struct nlattr **tb, struct netlink_ext_ack *extack);

/* ip_vs_l7_genl.c: 0 where l7_net_allowed(), else -EPERM and why */
int l7_nl_net_allowed(const struct net *net, struct netlink_ext_ack *extack);

#endif /* _IP_VS_L7_RULES_H */
