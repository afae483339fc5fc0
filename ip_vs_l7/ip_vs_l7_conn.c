// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the table of client connections answered by the director,
 * and what each holds of the director's memory: its head buffer, its
 * count against max_conns and its client address's limits.
 *
 * A connection is created only when a client completes the handshake
 * with a valid SYN cookie (ip_vs_l7_listen.c), so a SYN flood costs no
 * memory.  Connections are found by client tuple under RCU.  Each has
 * one timer, set at the earliest deadline of its clock (clock.c); it is
 * also the one place where a connection normally dies (l7_conn_end()
 * from any context, ip_vs_l7_events.c), which keeps freeing out of the
 * packet handlers.  Whoever sets ->dead, under ->lock, owns freeing;
 * nothing re-arms the timer of a dead connection.  A leaf: nothing here
 * acts on a connection's bindings or segments.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <net/netns/hash.h>
#include <net/tcp.h>

#include "ip_vs_l7.h"

/* a chain of a hash table: readers walk it under RCU, writers lock it */
struct l7_bucket {
	spinlock_t		lock;
	struct hlist_head	chain;
};

/* How many client connections one address holds, while it holds any. */
struct l7_source {
	struct hlist_node	node;		/* under its bucket's lock */
	const struct net	*net;
	u16			af;
	union nf_inet_addr	addr;
	unsigned int		conns;
	atomic_t		pooled;		/* its bindings, all services */
};

/*
 * Three tables of l7_hash_mask + 1 buckets each, sized at load from
 * conn_buckets (or max_conns) and never resized: client connections by
 * tuple, spliced pooled connections by tuple (to find a server's
 * packets), and client addresses with connections.  The key is random,
 * so no client can choose tuples that pile up in one chain.
 */
static struct l7_bucket *l7_conn_table __read_mostly;
static struct l7_bucket *l7_pconn_table __read_mostly;
static struct l7_bucket *l7_source_table __read_mostly;
static u32 l7_hash_mask __read_mostly;
static hsiphash_key_t l7_hash_key __read_mostly;

static struct kmem_cache *l7_conn_cache __read_mostly;
static atomic_t l7_conns_alive = ATOMIC_INIT(0);	/* for max_conns */

/*
 * An IPv4 tuple hashes as four words, as it always did; an IPv6 one
 * as all of its address words (folding them first would let a client
 * that owns a /64 pick colliding tuples at will).
 */
static u32 l7_tuple_hash(const struct net *net, u16 af,
			 const union nf_inet_addr *a1, __be16 p1,
			 const union nf_inet_addr *a2, __be16 p2)
{
	u32 ports = ((__force u32)p1 << 16) | (__force u32)p2;
	struct {
		u32 a1[4], a2[4], ports, net;
	} key;

	if (af == AF_INET)
		return hsiphash_4u32((__force u32)a1->ip, (__force u32)a2->ip,
				     ports, net_hash_mix(net),
				     &l7_hash_key) & l7_hash_mask;
	memcpy(key.a1, a1->all, sizeof(key.a1));
	memcpy(key.a2, a2->all, sizeof(key.a2));
	key.ports = ports;
	key.net = net_hash_mix(net);
	return hsiphash(&key, sizeof(key), &l7_hash_key) & l7_hash_mask;
}

static struct l7_bucket *l7_conn_bucket(const struct net *net, u16 af,
					const union nf_inet_addr *caddr,
					__be16 cport,
					const union nf_inet_addr *vaddr,
					__be16 vport)
{
	return &l7_conn_table[l7_tuple_hash(net, af, caddr, cport, vaddr,
					    vport)];
}

static struct l7_bucket *l7_pconn_bucket(const struct net *net, u16 af,
					 const union nf_inet_addr *baddr,
					 __be16 bport,
					 const union nf_inet_addr *laddr,
					 __be16 lport)
{
	return &l7_pconn_table[l7_tuple_hash(net, af, baddr, bport, laddr,
					     lport)];
}

static struct l7_bucket *l7_source_bucket(const struct net *net, u16 af,
					  const union nf_inet_addr *addr)
{
	u32 h;

	if (af == AF_INET)
		h = hsiphash_2u32((__force u32)addr->ip, net_hash_mix(net),
				  &l7_hash_key);
	else
		h = hsiphash_4u32((__force u32)addr->all[0] ^
				  net_hash_mix(net),
				  (__force u32)addr->all[1],
				  (__force u32)addr->all[2],
				  (__force u32)addr->all[3], &l7_hash_key);
	return &l7_source_table[h & l7_hash_mask];
}

/* Under RCU or the bucket's lock. */
static struct l7_conn *l7_conn_find(struct l7_bucket *b, const struct net *net,
				    u16 af, const union nf_inet_addr *caddr,
				    __be16 cport,
				    const union nf_inet_addr *vaddr,
				    __be16 vport)
{
	struct l7_conn *c;

	hlist_for_each_entry_rcu(c, &b->chain, c_node,
				 lockdep_is_held(&b->lock))
		if (c->cport == cport && c->vport == vport && c->af == af &&
		    l7_addr_eq(af, &c->caddr, caddr) &&
		    l7_addr_eq(af, &c->vaddr, vaddr) &&
		    net_eq(c->net, net))
			return c;
	return NULL;
}

/* Under RCU; the caller locks the connection and checks ->dead. */
struct l7_conn *l7_conn_lookup(const struct net *net, u16 af,
			       const union nf_inet_addr *caddr, __be16 cport,
			       const union nf_inet_addr *vaddr, __be16 vport)
{
	return l7_conn_find(l7_conn_bucket(net, af, caddr, cport, vaddr,
					   vport),
			    net, af, caddr, cport, vaddr, vport);
}

/* Under RCU: the pooled connection a server's segment belongs to. */
struct l7_pconn *l7_pconn_lookup(const struct net *net, u16 af,
				 const union nf_inet_addr *baddr, __be16 bport,
				 const union nf_inet_addr *laddr, __be16 lport)
{
	struct l7_bucket *b = l7_pconn_bucket(net, af, baddr, bport, laddr,
					      lport);
	struct l7_pconn *pc;

	hlist_for_each_entry_rcu(pc, &b->chain, b_node)
		if (pc->tcp.lport == lport && pc->pool->bport == bport &&
		    pc->pool->af == af &&
		    l7_addr_eq(af, &pc->tcp.laddr, laddr) &&
		    l7_addr_eq(af, &pc->pool->baddr, baddr) &&
		    net_eq(pc->pool->net, net))
			return pc;
	return NULL;
}

static struct l7_bucket *l7_pconn_bucket_of(const struct l7_pconn *pc)
{
	const struct l7_pool *pool = pc->pool;

	return l7_pconn_bucket(pool->net, pool->af, &pool->baddr, pool->bport,
			       &pc->tcp.laddr, pc->tcp.lport);
}

/* From its first binding on, the data path takes @pc's packets. */
void l7_pconn_hash(struct l7_pconn *pc)
{
	struct l7_bucket *b = l7_pconn_bucket_of(pc);

	spin_lock_bh(&b->lock);
	hlist_add_head_rcu(&pc->b_node, &b->chain);
	pc->hashed = true;
	spin_unlock_bh(&b->lock);
}

/* The caller waits for an RCU grace period before freeing @pc. */
void l7_pconn_unhash(struct l7_pconn *pc)
{
	struct l7_bucket *b = l7_pconn_bucket_of(pc);

	spin_lock_bh(&b->lock);
	hlist_del_init_rcu(&pc->b_node);
	pc->hashed = false;
	spin_unlock_bh(&b->lock);
}

/* Under the bucket's lock. */
static struct l7_source *l7_source_find(struct l7_bucket *b,
					const struct net *net, u16 af,
					const union nf_inet_addr *addr)
{
	struct l7_source *s;

	hlist_for_each_entry(s, &b->chain, node)
		if (s->af == af && l7_addr_eq(af, &s->addr, addr) &&
		    net_eq(s->net, net))
			return s;
	return NULL;
}

/*
 * Count one more connection of @c's client address, unless it has
 * max_conns_per_source already (-EMFILE).  An address is in the table
 * only while it has connections, so the table holds at most one entry
 * per live connection.  An IPv6 source is its /64: one host is given a
 * whole /64 and picks addresses in it at will.
 */
static int l7_source_get(struct l7_conn *c)
{
	unsigned int max = READ_ONCE(l7_max_conns_per_source);
	union nf_inet_addr key = c->caddr;
	struct l7_source *s;
	struct l7_bucket *b;
	int err = 0;

	if (c->af == AF_INET6)
		key.all[2] = key.all[3] = 0;
	b = l7_source_bucket(c->net, c->af, &key);
	spin_lock_bh(&b->lock);
	s = l7_source_find(b, c->net, c->af, &key);
	if (!s) {
		s = kmalloc(sizeof(*s), GFP_ATOMIC);
		if (s) {
			s->net = c->net;
			s->af = c->af;
			s->addr = key;
			s->conns = 0;
			atomic_set(&s->pooled, 0);
			hlist_add_head(&s->node, &b->chain);
		} else {
			err = -ENOMEM;
		}
	} else if (max && s->conns >= max) {
		s = NULL;
		err = -EMFILE;
	}
	if (s) {
		s->conns++;
		c->src = s;
	}
	spin_unlock_bh(&b->lock);
	return err;
}

/*
 * The pooled connections one client address may hold at once, 0 for no
 * cap: source_max_pooled, or by default (-1) an eighth of a server's
 * pool and no fewer than one client connection may hold (the reasons
 * are at the parameter, in ip_vs_l7_main.c).  Read at each binding, so
 * the default follows pool_max and client_max_pooled as they are set.
 */
static int l7_source_pooled_max(void)
{
	int max = READ_ONCE(l7_source_max_pooled);

	if (max >= 0)
		return max;
	return min_t(unsigned int, INT_MAX,
		     max(READ_ONCE(l7_pool_max) / 8,
			 READ_ONCE(l7_client_max_pooled)));
}

/*
 * One more pooled connection for @c's client address (IPv6: its /64),
 * unless it holds l7_source_pooled_max() already: one address must not
 * hold the servers' pools, whatever its connections do (c->lock held).
 */
bool l7_source_pooled_get(struct l7_conn *c)
{
	int max = l7_source_pooled_max();
	atomic_t *pooled = &c->src->pooled;
	int n = atomic_read(pooled);

	lockdep_assert_held(&c->lock);

	do {
		if (max && n >= max)
			return false;
	} while (!atomic_try_cmpxchg(pooled, &n, n + 1));
	return true;
}

void l7_source_pooled_put(struct l7_conn *c)
{
	atomic_dec(&c->src->pooled);
}

static void l7_source_put(struct l7_source *s)
{
	struct l7_bucket *b = l7_source_bucket(s->net, s->af, &s->addr);

	spin_lock_bh(&b->lock);
	if (--s->conns)
		s = NULL;
	else
		hlist_del(&s->node);
	spin_unlock_bh(&b->lock);
	kfree(s);
}

/* A place under max_conns, or -ENFILE. */
static int l7_conns_reserve(void)
{
	unsigned int max = READ_ONCE(l7_max_conns);

	if (atomic_inc_return(&l7_conns_alive) > max && max) {
		atomic_dec(&l7_conns_alive);
		return -ENFILE;
	}
	return 0;
}

/* @c no longer counts against the caps (it is dead or was never hashed). */
static void l7_conn_unaccount(struct l7_conn *c)
{
	l7_source_put(c->src);
	atomic_dec(&l7_conns_alive);
}

/*
 * Bytes of head buffers held by all client connections.  Each may hold
 * max_head, and max_conns of them come from max_conns / 256 sources
 * (one IPv6 /56 has 256 /64s): without a budget, 65,536 x 8 KB of
 * atomic allocations.  Past head_mem_max KB a connection's buffer does
 * not grow; what it cannot take the client sends again, or head_timeout
 * answers it.
 */
static atomic_long_t l7_head_mem = ATOMIC_LONG_INIT(0);

/* @c's head buffer is freed or shrinks from @from to @to bytes */
static void l7_head_mem_put(u32 from, u32 to)
{
	atomic_long_sub(from - to, &l7_head_mem);
}

static bool l7_head_mem_get(u32 grow)
{
	long max = (long)READ_ONCE(l7_head_mem_max) * 1024;

	if (atomic_long_add_return(grow, &l7_head_mem) <= max)
		return true;
	atomic_long_sub(grow, &l7_head_mem);
	return false;
}

static void l7_conn_free(struct l7_conn *c)
{
	l7_dst_cache_reset(&c->dst);
	l7_head_mem_put(c->head_cap, 0);
	l7_head_mem_free(c->head, c->head_cap);
	kmem_cache_free(l7_conn_cache, c);
}

static void l7_conn_free_rcu(struct rcu_head *head)
{
	l7_conn_free(container_of(head, struct l7_conn, rcu));
}

/*
 * A connection to fill in before l7_conn_insert() makes it visible, or
 * ERR_PTR(-ENFILE) over max_conns, -EMFILE over max_conns_per_source
 * (both counted in /proc), -ENOMEM.
 */
struct l7_conn *l7_conn_alloc(struct l7_service *ls,
			      const union nf_inet_addr *caddr, __be16 cport,
			      const union nf_inet_addr *vaddr, __be16 vport)
{
	struct l7_conn *c;
	int err;

	c = kmem_cache_zalloc(l7_conn_cache, GFP_ATOMIC);
	if (!c)
		return ERR_PTR(-ENOMEM);
	c->net = ls->net;
	c->af = ls->af;
	c->caddr = *caddr;
	err = l7_conns_reserve();
	if (err) {
		l7_service_count(ls, refused_max);
		goto free;
	}
	err = l7_source_get(c);
	if (err) {
		if (err == -EMFILE)
			l7_service_count(ls, refused_source);
		atomic_dec(&l7_conns_alive);
		goto free;
	}
	spin_lock_init(&c->lock);
	INIT_LIST_HEAD(&c->wait_node);
	INIT_LIST_HEAD(&c->bindings);
	c->ls = ls;
	c->cport = cport;
	c->vaddr = *vaddr;
	c->vport = vport;
	l7_conn_clock_start(c);
	return c;

free:
	kmem_cache_free(l7_conn_cache, c);
	return ERR_PTR(err);
}

/*
 * Hash @c, or free it and return false if the same tuple got there
 * first (two copies of a handshake's last ACK on two CPUs).
 */
bool l7_conn_insert(struct l7_conn *c)
{
	struct l7_bucket *b = l7_conn_bucket(c->net, c->af, &c->caddr,
					     c->cport, &c->vaddr, c->vport);

	spin_lock_bh(&b->lock);
	if (l7_conn_find(b, c->net, c->af, &c->caddr, c->cport, &c->vaddr,
			 c->vport)) {
		spin_unlock_bh(&b->lock);
		l7_conn_unaccount(c);
		l7_conn_free(c);
		return false;
	}
	atomic_inc(&c->ls->nr_conns);
	hlist_add_head_rcu(&c->c_node, &b->chain);
	spin_unlock_bh(&b->lock);
	return true;
}

/*
 * c->lock held: our side closes (a reply and/or FIN goes out).  Once
 * nothing of a response is left, the client has L7_CLK_CLOSE to take it
 * and close too (clock.c).
 */
void l7_conn_closing(struct l7_conn *c)
{
	lockdep_assert_held(&c->lock);

	c->state = L7C_CLOSING;
}

/*
 * c->lock held: room in ->head for @need bytes (at most max_head), grown
 * by doubling from L7_HEAD_MIN.  False when memory is short; the caller
 * then takes less and the client sends the rest again.
 */
bool l7_head_reserve(struct l7_conn *c, u32 need)
{
	u32 cap;
	u8 *head;

	lockdep_assert_held(&c->lock);

	if (need <= c->head_cap)
		return true;
	if (need > l7_max_head)
		return false;
	cap = min_t(unsigned long, l7_max_head,
		    max_t(unsigned long, roundup_pow_of_two(need),
			  L7_HEAD_MIN));
	if (!l7_head_mem_get(cap - c->head_cap)) {
		l7_service_count(c->ls, head_mem_full);
		return false;
	}
	head = l7_head_mem_alloc(cap);
	if (!head) {
		l7_head_mem_put(cap, c->head_cap);
		return false;
	}
	if (c->head_len)
		memcpy(head, c->head, c->head_len);
	l7_head_mem_free(c->head, c->head_cap);
	c->head = head;
	c->head_cap = cap;
	return true;
}

/* c->lock held: an empty ->head costs nothing between requests. */
void l7_head_release(struct l7_conn *c)
{
	lockdep_assert_held(&c->lock);

	if (c->head_len)
		return;
	l7_head_mem_put(c->head_cap, 0);
	l7_head_mem_free(c->head, c->head_cap);
	c->head = NULL;
	c->head_cap = 0;
}

/* @c, dead and owned by the caller: out of the table. */
void l7_conn_unhash(struct l7_conn *c)
{
	struct l7_bucket *hb = l7_conn_bucket(c->net, c->af, &c->caddr,
					      c->cport, &c->vaddr, c->vport);

	spin_lock_bh(&hb->lock);
	hlist_del_rcu(&c->c_node);
	spin_unlock_bh(&hb->lock);
}

/* @c, dead, unhashed and done with: freed after RCU. */
void l7_conn_release(struct l7_conn *c)
{
	struct l7_service *ls = c->ls;

	l7_conn_unaccount(c);
	call_rcu(&c->rcu, l7_conn_free_rcu);

	if (atomic_dec_and_test(&ls->nr_conns))
		wake_up_var(&ls->nr_conns);
}

/* c->lock held: whether a binding of @c is on a connection of @pool. */
static bool l7_conn_uses_pool(struct l7_conn *c, const struct l7_pool *pool)
{
	struct l7_binding *b;

	lockdep_assert_held(&c->lock);

	list_for_each_entry(b, &c->bindings, node)
		if (b->pc->pool == pool)
			return true;
	return c->probed && c->probed->pc->pool == pool;
}

static struct l7_bucket *l7_table_alloc(u32 n)
{
	struct l7_bucket *t = kvmalloc_array(n, sizeof(*t), GFP_KERNEL);
	u32 i;

	if (!t)
		return NULL;
	for (i = 0; i < n; i++) {
		spin_lock_init(&t[i].lock);
		INIT_HLIST_HEAD(&t[i].chain);
	}
	return t;
}

/* Buckets per table: conn_buckets, else one per two of max_conns. */
static u32 l7_table_size(void)
{
	u32 n = l7_conn_buckets ?: (l7_max_conns ?: L7_BUCKETS_MAX) / 2;

	return roundup_pow_of_two(clamp_t(u32, n, L7_BUCKETS_MIN,
					  L7_BUCKETS_MAX));
}

int l7_conn_module_init(void)
{
	u32 n = l7_table_size();

	get_random_bytes(&l7_hash_key, sizeof(l7_hash_key));
	l7_hash_mask = n - 1;
	l7_conn_table = l7_table_alloc(n);
	l7_pconn_table = l7_table_alloc(n);
	l7_source_table = l7_table_alloc(n);
	l7_conn_cache = kmem_cache_create("ip_vs_l7_conn",
					  sizeof(struct l7_conn), 0, 0, NULL);
	if (l7_conn_table && l7_pconn_table && l7_source_table &&
	    l7_conn_cache)
		return 0;
	l7_conn_module_exit();
	return -ENOMEM;
}

/* After rcu_barrier(): every connection is freed. */
void l7_conn_module_exit(void)
{
	kmem_cache_destroy(l7_conn_cache);
	kvfree(l7_source_table);
	kvfree(l7_pconn_table);
	kvfree(l7_conn_table);
}

/*
 * Process context, for l7_conn_flush(): the next live connection of @ls
 * (bound to a connection of @pool, if not NULL) from bucket *@h on,
 * marked dead - flushed - and so the caller's to destroy; NULL when none
 * is left.  *@h stays at its bucket: the caller's destroy unlinks it.
 */
struct l7_conn *l7_conn_kill_next(struct l7_service *ls, struct l7_pool *pool,
				  unsigned int *h)
{
	struct l7_conn *c;

	for (; *h <= l7_hash_mask; (*h)++) {
		rcu_read_lock();
		hlist_for_each_entry_rcu(c, &l7_conn_table[*h].chain, c_node) {
			bool mine;

			if (c->ls != ls)
				continue;
			spin_lock_bh(&c->lock);
			mine = !c->dead && (!pool || l7_conn_uses_pool(c, pool));
			if (mine) {
				c->dead = true;
				c->end = L7_END_FLUSHED;
			}
			spin_unlock_bh(&c->lock);
			if (mine) {
				rcu_read_unlock();
				return c;
			}
		}
		rcu_read_unlock();
	}
	return NULL;
}
