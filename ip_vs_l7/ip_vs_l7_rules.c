// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the content-rule store's writers (see ip_vs_l7_rules.h), for
 * the IPVS_L7 family: rules, pools and options changed, sets flushed.
 *
 * Keys of every namespace live in one hash (ip_vs_l7_ruleset.c, with
 * the readers); a key exists while its set has a rule, a pool or an
 * option other than the default.  Options travel in the set, so that a
 * change of either is one pointer store too; every new set starts with
 * the options of the set it replaces.
 * Writers hold l7_rules_mutex; readers find a key and its set under RCU.
 * A change is made on a new set - the old one's rules and pools, less
 * what it drops, plus what it adds - checked as a whole, then published:
 * a failed change leaves the old set as it was.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <net/net_namespace.h>

#include "ip_vs_l7.h"
#include "ip_vs_l7_rules.h"

/* bumped by every change, so that a dump can tell it was interrupted */
static unsigned int l7_rules_gen;

static struct l7_rset *l7_rentry_set(struct l7_rentry *e)
{
	return e ? rcu_dereference_protected(e->set,
					     lockdep_is_held(&l7_rules_mutex)) :
		   NULL;
}

static void l7_rcount_put(struct l7_rcount *count)
{
	if (count && refcount_dec_and_test(&count->ref))
		kfree(count);
}

void ip_vs_l7_rpool_put(struct l7_rpool *pool)
{
	if (pool && refcount_dec_and_test(&pool->ref)) {
		l7_rcount_put(pool->count);
		kvfree(pool->ring);
		kfree(pool);
	}
}
EXPORT_SYMBOL_GPL(ip_vs_l7_rpool_put);

void ip_vs_l7_rrule_put(struct l7_rrule *rule)
{
	if (rule && refcount_dec_and_test(&rule->ref)) {
		l7_rcount_put(rule->count);
		kfree(rule);
	}
}
EXPORT_SYMBOL_GPL(ip_vs_l7_rrule_put);

/* one block: the set, its pools, its rules, the matcher's copy, its index */
static struct l7_rset *l7_rset_alloc(u32 max_pools, u32 max_rules)
{
	size_t index_at = ALIGN(sizeof(struct l7_rset) +
				max_pools * sizeof(struct l7_rpool *) +
				max_rules * (sizeof(struct l7_rrule *) +
					     sizeof(struct l7_rule)), 8);
	struct l7_rset *s;

	s = kvzalloc(index_at + l7_rule_index_size(max_rules), GFP_KERNEL);
	if (!s)
		return NULL;
	s->pools = (struct l7_rpool **)(s + 1);
	s->rules = (struct l7_rrule **)(s->pools + max_pools);
	s->match = (struct l7_rule *)(s->rules + max_rules);
	s->index = (struct l7_rule_index *)((char *)s + index_at);
	return s;
}

static void l7_rset_free(struct l7_rset *s)
{
	u32 i;

	for (i = 0; i < s->n_pools; i++)
		ip_vs_l7_rpool_put(s->pools[i]);
	for (i = 0; i < s->n_rules; i++)
		ip_vs_l7_rrule_put(s->rules[i]);
	kvfree(s);
}

static void l7_rset_free_rcu(struct rcu_head *head)
{
	l7_rset_free(container_of(head, struct l7_rset, rcu));
}

static void l7_rset_add_pool(struct l7_rset *s, struct l7_rpool *pool)
{
	refcount_inc(&pool->ref);
	s->pools[s->n_pools++] = pool;
}

static void l7_rset_add_rule(struct l7_rset *s, struct l7_rrule *rule)
{
	refcount_inc(&rule->ref);
	s->rules[s->n_rules++] = rule;
}

static int l7_pool_cmp(const void *a, const void *b)
{
	const struct l7_rpool *pa = *(const struct l7_rpool **)a;
	const struct l7_rpool *pb = *(const struct l7_rpool **)b;

	return strcmp(pa->name, pb->name);
}

static int l7_rule_cmp(const void *a, const void *b)
{
	const struct l7_rrule *ra = *(const struct l7_rrule **)a;
	const struct l7_rrule *rb = *(const struct l7_rrule **)b;

	return ra->id < rb->id ? -1 : ra->id > rb->id;
}

static int l7_rset_pool_find(const struct l7_rset *s, const char *name)
{
	u32 i;

	for (i = 0; s && i < s->n_pools; i++)
		if (!strcmp(s->pools[i]->name, name))
			return i;
	return -1;
}

static struct l7_rrule *l7_rset_rule_find(const struct l7_rset *s, u32 id)
{
	u32 lo = 0, hi = s ? s->n_rules : 0;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (s->rules[mid]->id == id)
			return s->rules[mid];
		if (s->rules[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* the core's strings are counted, not NUL-terminated; parsing bounded @s */
static u8 l7_str_set(char *dst, size_t cap, const char *s)
{
	size_t len = s ? min(strlen(s), cap) : 0;

	if (len)
		memcpy(dst, s, len);
	return len;
}

static void l7_value_set(struct l7_rule_value *v, const char *s)
{
	v->len = l7_str_set(v->s, sizeof(v->s), s);
}

static void l7_name_set(struct l7_rule_name *n, const char *s)
{
	n->len = l7_str_set(n->s, sizeof(n->s), s);
}

/* IPVS_L7_METHOD_* bits as L7_METHOD_BIT()s of enum l7_http_method */
static u16 l7_methods_to_core(u32 m)
{
	u16 core = m & IPVS_L7_METHOD_OTHER ? L7_METHOD_BIT(L7_HTTP_M_OTHER) : 0;

	BUILD_BUG_ON(L7_HTTP_M_GET != 1 || L7_HTTP_M_CONNECT != 9);
	return core | (m & (IPVS_L7_METHOD_OTHER - 1)) << L7_HTTP_M_GET;
}

void ip_vs_l7_rrule_to_core(struct l7_rule *out, const struct l7_rrule *r,
			    u16 pool)
{
	unsigned int i;

	/* the netlink limits are the core's, or tighter */
	BUILD_BUG_ON(IPVS_L7_VALUE_MAX > L7_RULE_VALUE_MAX);
	BUILD_BUG_ON(IPVS_L7_NAME_MAX > L7_RULE_NAME_MAX);
	BUILD_BUG_ON(IPVS_L7_MAX_HEADERS > L7_RULE_HDR_TESTS);
	BUILD_BUG_ON(IPVS_L7_MAX_RULES > L7_RULES_MAX);
	BUILD_BUG_ON(IPVS_L7_MAX_POOLS > L7_POOLS_MAX);
	BUILD_BUG_ON(IPVS_L7_MAX_MEMBERS > L7_POOL_MEMBERS_MAX);

	memset(out, 0, sizeof(*out));
	out->id = r->id;
	out->methods = l7_methods_to_core(r->methods);
	if (r->path)
		out->path_kind = r->flags & IPVS_L7_RULE_F_PATH_PREFIX ?
				 L7_PATH_PREFIX : L7_PATH_EXACT;
	if (r->flags & IPVS_L7_RULE_F_FALLTHROUGH)
		out->flags |= L7_RULE_F_FALLTHROUGH;
	if (r->flags & IPVS_L7_RULE_F_PATH_NOCASE)
		out->flags |= L7_RULE_F_PATH_NOCASE;
	out->action = r->reject ? L7_ACT_REJECT : L7_ACT_POOL;
	out->status = r->reject;
	out->pool = pool;
	l7_value_set(&out->host, r->host);
	l7_value_set(&out->path, r->path);
	out->nhdr = r->n_headers;
	for (i = 0; i < r->n_headers; i++) {
		l7_name_set(&out->hdr[i].name, r->headers[i].name);
		l7_value_set(&out->hdr[i].values, r->headers[i].value);
	}
	l7_name_set(&out->cookie.name, r->cookie.name);
	l7_value_set(&out->cookie.value, r->cookie.value);
}
EXPORT_SYMBOL_GPL(ip_vs_l7_rrule_to_core);

/*
 * The core's checks and ring for ip_vs_l7_genl.ko, which parses rules and
 * pools with them: core/ exports nothing itself.
 */
const char *ip_vs_l7_rule_invalid(const struct l7_rule *r,
				  unsigned int npools)
{
	return l7_rule_invalid(r, npools);
}
EXPORT_SYMBOL_GPL(ip_vs_l7_rule_invalid);

const char *ip_vs_l7_pool_policy_invalid(const struct l7_pool_policy *p)
{
	return l7_pool_policy_invalid(p);
}
EXPORT_SYMBOL_GPL(ip_vs_l7_pool_policy_invalid);

u64 ip_vs_l7_chash_member_id(const void *name, size_t len)
{
	return l7_chash_member_id(name, len);
}
EXPORT_SYMBOL_GPL(ip_vs_l7_chash_member_id);

unsigned int ip_vs_l7_chash_build(struct l7_chash_point *ring,
				  const struct l7_chash_member *m,
				  unsigned int n)
{
	return l7_chash_build(ring, m, n);
}
EXPORT_SYMBOL_GPL(ip_vs_l7_chash_build);

/*
 * Put the new set in order (rules by id, pools by name), refuse
 * duplicates, limits and rules naming a pool the set lacks, and give the
 * matcher its copy of each rule, pointed at its pool.
 */
static int l7_rset_link(struct l7_rset *s, struct netlink_ext_ack *extack)
{
	u32 i;

	if (s->n_rules > IPVS_L7_MAX_RULES) {
		NL_SET_ERR_MSG(extack, "too many rules for one service");
		return -E2BIG;
	}
	if (s->n_pools > IPVS_L7_MAX_POOLS) {
		NL_SET_ERR_MSG(extack, "too many pools for one service");
		return -E2BIG;
	}
	sort(s->pools, s->n_pools, sizeof(*s->pools), l7_pool_cmp, NULL);
	sort(s->rules, s->n_rules, sizeof(*s->rules), l7_rule_cmp, NULL);
	for (i = 1; i < s->n_pools; i++) {
		if (!strcmp(s->pools[i - 1]->name, s->pools[i]->name)) {
			NL_SET_ERR_MSG(extack,
				       "a pool of this name exists in this service");
			return -EEXIST;
		}
	}
	for (i = 0; i < s->n_rules; i++) {
		const struct l7_rrule *r = s->rules[i];
		const char *why;
		int p;

		if (i && s->rules[i - 1]->id == r->id) {
			NL_SET_ERR_MSG(extack,
				       "a rule with this id exists in this service");
			return -EEXIST;
		}
		p = r->reject ? 0 : l7_rset_pool_find(s, r->pool);
		if (p < 0) {
			NL_SET_ERR_MSG(extack,
				       "a rule names a pool this service does not have");
			return -ENOENT;
		}
		ip_vs_l7_rrule_to_core(&s->match[i], r, p);
		/* checked when parsed; this is the matcher's own last word */
		why = l7_rule_invalid(&s->match[i], s->n_pools);
		if (why) {
			if (extack)
				extack->_msg = why;
			return -EINVAL;
		}
	}
	l7_rule_index_build(s->index, s->match, s->n_rules);
	return 0;
}

static struct l7_rcount *l7_rcount_share(struct l7_rcount *count)
{
	if (count) {
		refcount_inc(&count->ref);
		return count;
	}
	count = kzalloc(sizeof(*count), GFP_KERNEL);
	if (count)
		refcount_set(&count->ref, 1);
	return count;
}

/*
 * Give each new rule (pool) of @s the counters of the rule with its id
 * (the pool with its name) in @old, or new ones.
 */
static int l7_rset_adopt_counts(struct l7_rset *s, const struct l7_rset *old)
{
	u32 i;

	for (i = 0; i < s->n_pools; i++) {
		struct l7_rpool *p = s->pools[i];
		int o = l7_rset_pool_find(old, p->name);

		if (p->count)
			continue;
		p->count = l7_rcount_share(o < 0 ? NULL : old->pools[o]->count);
		if (!p->count)
			return -ENOMEM;
	}
	for (i = 0; i < s->n_rules; i++) {
		struct l7_rrule *r = s->rules[i], *o;

		if (r->count)
			continue;
		o = l7_rset_rule_find(old, r->id);
		r->count = l7_rcount_share(o ? o->count : NULL);
		if (!r->count)
			return -ENOMEM;
	}
	return 0;
}

/* whether any option of @o is not the default */
static bool l7_ropts_set(const struct l7_ropts *o)
{
	return o->forwarded != IPVS_L7_FORWARDED_DEFAULT ||
	       o->prefork != IPVS_L7_PREFORK_ON;
}

/* the options of @old (NULL: none), those @mask names taken from @new */
static void l7_ropts_merge(struct l7_ropts *out, const struct l7_rset *old,
			   const struct l7_ropts *new, u32 mask)
{
	if (old)
		*out = old->opts;
	if (mask & BIT(IPVS_L7_OPT_ATTR_FORWARDED))
		out->forwarded = new->forwarded;
	if (mask & BIT(IPVS_L7_OPT_ATTR_PREFORK))
		out->prefork = new->prefork;
}

/*
 * l7_rules_mutex held: make @s (checked) the set of @key, or remove the
 * key if @s is empty; the old set goes after a grace period.  Consumes @s.
 */
static int l7_rules_publish(struct net *net, const struct l7_rkey *key,
			    struct l7_rentry *e, struct l7_rset *s,
			    struct netlink_ext_ack *extack)
{
	struct l7_rset *old = l7_rentry_set(e);
	int err;

	err = l7_rset_link(s, extack);
	if (!err)
		err = l7_rset_adopt_counts(s, old);
	if (err)
		goto fail;

	if (!s->n_pools && !s->n_rules && !l7_ropts_set(&s->opts)) {
		l7_rset_free(s);
		if (e)
			l7_rentry_unlink(e);
	} else if (e) {
		rcu_assign_pointer(e->set, s);
	} else {
		e = kzalloc(sizeof(*e), GFP_KERNEL);
		err = -ENOMEM;
		if (!e)
			goto fail;
		write_pnet(&e->net, net);
		e->key = *key;
		RCU_INIT_POINTER(e->set, s);
		l7_rentry_link(e, net, key);
	}
	if (old)
		call_rcu(&old->rcu, l7_rset_free_rcu);
	l7_rules_gen++;
	return 0;

fail:
	l7_rset_free(s);
	return err;
}

/* one rule or pool dropped and/or added, by name or id; options changed */
struct l7_rchange {
	const char	*drop_pool;
	bool		drop_rule;
	u32		drop_id;
	struct l7_rpool	*add_pool;
	struct l7_rrule	*add_rule;
	const struct l7_ropts *opts;
	u32		opts_mask;	/* BIT(IPVS_L7_OPT_ATTR_*) */
};

/*
 * Into @s, the pools and rules of @old (NULL: none) that @chg does not
 * drop: how many it dropped.
 */
static u32 l7_rset_copy_kept(struct l7_rset *s, const struct l7_rset *old,
			     const struct l7_rchange *chg)
{
	u32 i, dropped = 0;

	for (i = 0; old && i < old->n_pools; i++) {
		if (chg->drop_pool && !strcmp(old->pools[i]->name,
					      chg->drop_pool))
			dropped++;
		else
			l7_rset_add_pool(s, old->pools[i]);
	}
	for (i = 0; old && i < old->n_rules; i++) {
		if (chg->drop_rule && old->rules[i]->id == chg->drop_id)
			dropped++;
		else
			l7_rset_add_rule(s, old->rules[i]);
	}
	return dropped;
}

/*
 * Whether @chg may go on from @s, what it kept of the old set: what it
 * drops was there (@dropped), and no rule kept sends requests to a pool
 * it drops without putting another of that name in its place.
 */
static int l7_rchange_check(const struct l7_rset *s,
			    const struct l7_rchange *chg, u32 dropped,
			    struct netlink_ext_ack *extack)
{
	u32 i;

	if ((chg->drop_pool || chg->drop_rule) && !dropped) {
		if (chg->drop_pool)
			NL_SET_ERR_MSG(extack,
				       "no pool of this name in this service");
		else
			NL_SET_ERR_MSG(extack,
				       "no rule with this id in this service");
		return -ENOENT;
	}
	if (!chg->drop_pool || chg->add_pool)
		return 0;
	for (i = 0; i < s->n_rules; i++) {
		if (!s->rules[i]->reject &&
		    !strcmp(s->rules[i]->pool, chg->drop_pool)) {
			NL_SET_ERR_MSG(extack,
				       "a rule of this service sends requests to this pool");
			return -EBUSY;
		}
	}
	return 0;
}

static int l7_rules_change(struct net *net, const struct l7_rkey *key,
			   const struct l7_rchange *chg,
			   struct netlink_ext_ack *extack)
{
	struct l7_rentry *e;
	struct l7_rset *old, *s;
	int err = -ENOMEM;

	mutex_lock(&l7_rules_mutex);
	e = l7_rentry_find(net, key);
	old = l7_rentry_set(e);
	s = l7_rset_alloc((old ? old->n_pools : 0) + 1,
			  (old ? old->n_rules : 0) + 1);
	if (!s)
		goto out;
	l7_ropts_merge(&s->opts, old, chg->opts, chg->opts_mask);
	err = l7_rchange_check(s, chg, l7_rset_copy_kept(s, old, chg), extack);
	if (err) {
		l7_rset_free(s);
		goto out;
	}
	if (chg->add_pool)
		l7_rset_add_pool(s, chg->add_pool);
	if (chg->add_rule)
		l7_rset_add_rule(s, chg->add_rule);
	err = l7_rules_publish(net, key, e, s, extack);
out:
	mutex_unlock(&l7_rules_mutex);
	return err;
}

int ip_vs_l7_rules_add_rule(struct net *net, const struct l7_rkey *key,
			    struct l7_rrule *rule, bool replace,
			    struct netlink_ext_ack *extack)
{
	struct l7_rchange chg = {
		.drop_rule = replace,
		.drop_id = rule->id,
		.add_rule = rule,
	};

	return l7_rules_change(net, key, &chg, extack);
}
EXPORT_SYMBOL_GPL(ip_vs_l7_rules_add_rule);

int ip_vs_l7_rules_del_rule(struct net *net, const struct l7_rkey *key, u32 id,
			    struct netlink_ext_ack *extack)
{
	struct l7_rchange chg = { .drop_rule = true, .drop_id = id };

	return l7_rules_change(net, key, &chg, extack);
}
EXPORT_SYMBOL_GPL(ip_vs_l7_rules_del_rule);

int ip_vs_l7_rules_add_pool(struct net *net, const struct l7_rkey *key,
			    struct l7_rpool *pool, bool replace,
			    struct netlink_ext_ack *extack)
{
	struct l7_rchange chg = {
		.drop_pool = replace ? pool->name : NULL,
		.add_pool = pool,
	};

	return l7_rules_change(net, key, &chg, extack);
}
EXPORT_SYMBOL_GPL(ip_vs_l7_rules_add_pool);

int ip_vs_l7_rules_del_pool(struct net *net, const struct l7_rkey *key,
			    const char *name, struct netlink_ext_ack *extack)
{
	struct l7_rchange chg = { .drop_pool = name };

	return l7_rules_change(net, key, &chg, extack);
}
EXPORT_SYMBOL_GPL(ip_vs_l7_rules_del_pool);

int ip_vs_l7_rules_set(struct net *net, const struct l7_rkey *key,
		       struct l7_rpool **pools, u32 n_pools,
		       struct l7_rrule **rules, u32 n_rules,
		       struct netlink_ext_ack *extack)
{
	struct l7_rentry *e;
	struct l7_rset *s;
	int err = -ENOMEM;
	u32 i;

	s = l7_rset_alloc(n_pools, n_rules);
	if (!s)
		return err;
	for (i = 0; i < n_pools; i++)
		l7_rset_add_pool(s, pools[i]);
	for (i = 0; i < n_rules; i++)
		l7_rset_add_rule(s, rules[i]);
	mutex_lock(&l7_rules_mutex);
	e = l7_rentry_find(net, key);
	/* a whole new set of rules and pools; the options stay */
	l7_ropts_merge(&s->opts, l7_rentry_set(e), NULL, 0);
	err = l7_rules_publish(net, key, e, s, extack);
	mutex_unlock(&l7_rules_mutex);
	return err;
}
EXPORT_SYMBOL_GPL(ip_vs_l7_rules_set);

int ip_vs_l7_rules_set_opts(struct net *net, const struct l7_rkey *key,
			    const struct l7_ropts *opts, u32 mask,
			    struct netlink_ext_ack *extack)
{
	struct l7_rchange chg = { .opts = opts, .opts_mask = mask };
	int err = l7_rules_change(net, key, &chg, extack);

	if (!err && mask & BIT(IPVS_L7_OPT_ATTR_PREFORK))
		l7_service_opts_changed(net);
	return err;
}
EXPORT_SYMBOL_GPL(ip_vs_l7_rules_set_opts);

static void l7_rentry_remove(struct l7_rentry *e)
{
	call_rcu(&l7_rentry_set(e)->rcu, l7_rset_free_rcu);
	l7_rentry_unlink(e);
	l7_rules_gen++;
}

/* @key's set, or with @key NULL every set of @net */
static void __l7_rules_flush(struct net *net, const struct l7_rkey *key)
{
	struct hlist_node *next;
	struct l7_rentry *e;
	unsigned int b;

	mutex_lock(&l7_rules_mutex);
	if (key) {
		e = l7_rentry_find(net, key);
		if (e)
			l7_rentry_remove(e);
	} else {
		for (b = 0; b < L7_RKEY_BUCKETS; b++)
			hlist_for_each_entry_safe(e, next, &l7_rkey_hash[b], node)
				if (net_eq(read_pnet(&e->net), net))
					l7_rentry_remove(e);
	}
	mutex_unlock(&l7_rules_mutex);
}

/* ... and the services of @net take their pools' mode from what is left */
void ip_vs_l7_rules_flush(struct net *net, const struct l7_rkey *key)
{
	__l7_rules_flush(net, key);
	l7_service_opts_changed(net);
}
EXPORT_SYMBOL_GPL(ip_vs_l7_rules_flush);

unsigned int ip_vs_l7_rules_generation(void)
{
	return READ_ONCE(l7_rules_gen);
}
EXPORT_SYMBOL_GPL(ip_vs_l7_rules_generation);

/* IPVS flushes the namespace's services after: no pool is to refill */
static void __net_exit l7_rules_net_exit(struct net *net)
{
	__l7_rules_flush(net, NULL);
}

static struct pernet_operations l7_rules_net_ops = {
	.exit = l7_rules_net_exit,
};

/* the store, empty; ip_vs_l7_genl.ko fills it */
int l7_rules_init(void)
{
	return register_pernet_subsys(&l7_rules_net_ops);
}

/*
 * After the data path is gone (the scheduler and the hook); the caller
 * waits for the RCU callbacks (rcu_barrier) before unloading.
 */
void l7_rules_exit(void)
{
	/* flushes every namespace's sets */
	unregister_pernet_subsys(&l7_rules_net_ops);
}
