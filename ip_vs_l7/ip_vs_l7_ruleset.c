// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the content-rule store's keys (see ip_vs_l7_rules.h), and
 * its readers.
 *
 * Keys of every namespace live in one hash, as services do in
 * ip_vs_l7_vip.c.  Readers - the routing of each request, a service
 * reading its options, the family's dumps - find a key and its set under
 * RCU, and call nothing of the writers: those (ip_vs_l7_rules.c) hold
 * l7_rules_mutex, and put keys in and take them out only through
 * l7_rentry_link() and l7_rentry_unlink() here.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/jump_label.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "ip_vs_l7.h"
#include "ip_vs_l7_rules.h"

/* held by the writers (ip_vs_l7_rules.c) */
DEFINE_MUTEX(l7_rules_mutex);
/* every namespace's keys: under RCU, or l7_rules_mutex */
struct hlist_head l7_rkey_hash[L7_RKEY_BUCKETS];
/*
 * On while any namespace has a set: every request asks for its
 * service's, and most directors have none to find.
 */
static DEFINE_STATIC_KEY_FALSE(l7_rules_any);

/* an IPv4 key hashes its one address word, an IPv6 key all four */
static u32 l7_rkey_hashfn(const struct net *net, const struct l7_rkey *key)
{
	u32 port_proto = (__force u16)key->port | (u32)key->protocol << 16;
	u32 init = jhash_3words(port_proto, key->af, (u32)(unsigned long)net,
				0);

	return hash_32(jhash2((__force const u32 *)key->addr.all,
			      key->af == AF_INET ? 1 : 4, init),
		       L7_RKEY_HASH_BITS);
}

static bool l7_rkey_eq(const struct l7_rkey *a, const struct l7_rkey *b)
{
	return a->af == b->af && a->port == b->port &&
	       a->protocol == b->protocol &&
	       l7_addr_eq(a->af, &a->addr, &b->addr);
}

/* under RCU or l7_rules_mutex */
struct l7_rentry *l7_rentry_find(const struct net *net,
				 const struct l7_rkey *key)
{
	struct l7_rentry *e;

	hlist_for_each_entry_rcu(e, &l7_rkey_hash[l7_rkey_hashfn(net, key)],
				 node, lockdep_is_held(&l7_rules_mutex))
		if (l7_rkey_eq(&e->key, key) && net_eq(read_pnet(&e->net), net))
			return e;
	return NULL;
}

/* l7_rules_mutex held: the only ways into and out of the hash */
void l7_rentry_link(struct l7_rentry *e, struct net *net,
		    const struct l7_rkey *key)
{
	hlist_add_head_rcu(&e->node, &l7_rkey_hash[l7_rkey_hashfn(net, key)]);
	static_branch_inc(&l7_rules_any);
}

void l7_rentry_unlink(struct l7_rentry *e)
{
	hlist_del_rcu(&e->node);
	kfree_rcu(e, rcu);
	static_branch_dec(&l7_rules_any);
}

const struct l7_rset *ip_vs_l7_rules_lookup(const struct net *net,
					    const struct l7_rkey *key)
{
	struct l7_rentry *e;

	if (!static_branch_unlikely(&l7_rules_any))
		return NULL;
	e = l7_rentry_find(net, key);
	return e ? rcu_dereference(e->set) : NULL;
}
EXPORT_SYMBOL_GPL(ip_vs_l7_rules_lookup);

const struct l7_rset *ip_vs_l7_rules_walk(const struct net *net,
					  unsigned int bucket, unsigned int n,
					  struct l7_rkey *key)
{
	struct l7_rentry *e;

	hlist_for_each_entry_rcu(e, &l7_rkey_hash[bucket], node) {
		if (!net_eq(read_pnet(&e->net), net) || n--)
			continue;
		*key = e->key;
		return rcu_dereference(e->set);
	}
	return NULL;
}
EXPORT_SYMBOL_GPL(ip_vs_l7_rules_walk);
