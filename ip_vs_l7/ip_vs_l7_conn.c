// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: client connections answered by the director.
 *
 * A connection is created only when a client completes the handshake
 * with a valid SYN cookie, so a SYN flood costs no memory.  Connections
 * are found by client tuple under RCU.  Each has one timer that serves
 * as idle timeout and retransmit clock; it is also the one place where
 * a connection normally dies (l7_conn_expire_in(c, 0) from any context),
 * which keeps freeing out of the packet handlers.  Whoever sets ->dead,
 * under ->lock, owns freeing; nothing re-arms the timer of a dead
 * connection.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <net/tcp.h>

#include "ip_vs_l7.h"

#define L7_CONN_HASH_BITS	12

static struct hlist_head l7_conn_hash[1 << L7_CONN_HASH_BITS];
/* spliced pooled connections by their tuple, to find a server's packets */
static struct hlist_head l7_pconn_table[1 << L7_CONN_HASH_BITS];
static DEFINE_SPINLOCK(l7_conn_hash_lock);	/* writers of both */

static u32 l7_conn_hashfn(const struct net *net, __be32 caddr, __be16 cport,
			  __be32 vaddr, __be16 vport)
{
	return hash_32(jhash_3words((__force u32)caddr, (__force u32)vaddr,
				    ((__force u32)cport << 16) |
				    (__force u32)vport,
				    (u32)(unsigned long)net),
		       L7_CONN_HASH_BITS);
}

/* Under RCU; the caller locks the connection and checks ->dead. */
struct l7_conn *l7_conn_lookup(const struct net *net, __be32 caddr,
			       __be16 cport, __be32 vaddr, __be16 vport)
{
	u32 h = l7_conn_hashfn(net, caddr, cport, vaddr, vport);
	struct l7_conn *c;

	hlist_for_each_entry_rcu(c, &l7_conn_hash[h], c_node)
		if (c->caddr == caddr && c->cport == cport &&
		    c->vaddr == vaddr && c->vport == vport &&
		    net_eq(c->net, net))
			return c;
	return NULL;
}

/* Under RCU: the pooled connection a server's segment belongs to. */
struct l7_pconn *l7_pconn_lookup(const struct net *net, __be32 baddr,
				 __be16 bport, __be32 laddr, __be16 lport)
{
	u32 h = l7_conn_hashfn(net, baddr, bport, laddr, lport);
	struct l7_pconn *pc;

	hlist_for_each_entry_rcu(pc, &l7_pconn_table[h], b_node)
		if (pc->tcp.lport == lport && pc->tcp.laddr == laddr &&
		    pc->pool->addr.sin_addr.s_addr == baddr &&
		    pc->pool->addr.sin_port == bport &&
		    net_eq(pc->pool->net, net))
			return pc;
	return NULL;
}

/* From its first binding on, the data path takes @pc's packets. */
void l7_pconn_hash(struct l7_pconn *pc)
{
	u32 h = l7_conn_hashfn(pc->pool->net, pc->pool->addr.sin_addr.s_addr,
			       pc->pool->addr.sin_port, pc->tcp.laddr,
			       pc->tcp.lport);

	spin_lock_bh(&l7_conn_hash_lock);
	hlist_add_head_rcu(&pc->b_node, &l7_pconn_table[h]);
	pc->hashed = true;
	spin_unlock_bh(&l7_conn_hash_lock);
}

/* The caller waits for an RCU grace period before freeing @pc. */
void l7_pconn_unhash(struct l7_pconn *pc)
{
	spin_lock_bh(&l7_conn_hash_lock);
	hlist_del_init_rcu(&pc->b_node);
	pc->hashed = false;
	spin_unlock_bh(&l7_conn_hash_lock);
}

static void l7_conn_free_rcu(struct rcu_head *head)
{
	struct l7_conn *c = container_of(head, struct l7_conn, rcu);

	kfree(c->head);
	kfree(c);
}

/* @c is dead and owned by the caller: unhash and free it. */
static void l7_conn_destroy(struct l7_conn *c)
{
	struct l7_service *ls = c->ls;

	spin_lock_bh(&l7_conn_hash_lock);
	hlist_del_rcu(&c->c_node);
	spin_unlock_bh(&l7_conn_hash_lock);
	spin_lock_bh(&c->lock);
	/* a binding left means the client did not get all: reset it */
	if (!list_empty(&c->bindings) && !c->reset &&
	    !(c->state == L7C_TUNNEL && c->c_fin && c->cur && c->cur->b_fin))
		l7_send_client(c, TCPHDR_RST, c->d_snd_nxt, NULL, 0);
	if (c->requests)
		atomic64_inc(&ls->stats.ended[c->end]);
	l7_binding_abort_all(c);
	spin_unlock_bh(&c->lock);
	l7_queue_del(c);
	call_rcu(&c->rcu, l7_conn_free_rcu);

	if (atomic_dec_and_test(&ls->nr_conns))
		wake_up_var(&ls->nr_conns);
}

static void l7_conn_timer_fn(struct timer_list *t)
{
	struct l7_conn *c = from_timer(c, t, timer);
	bool destroy = false;

	spin_lock(&c->lock);
	if (!c->dead) {
		l7_client_timer(c);
		if (c->dead) {
			/* a handler may have re-armed us before we set dead */
			timer_delete(&c->timer);
			destroy = true;
		}
	}
	spin_unlock(&c->lock);
	if (destroy)
		l7_conn_destroy(c);
}

/* A connection to fill in before l7_conn_insert() makes it visible. */
struct l7_conn *l7_conn_alloc(struct l7_service *ls, __be32 caddr,
			      __be16 cport, __be32 vaddr, __be16 vport)
{
	struct l7_conn *c;

	c = kzalloc(sizeof(*c), GFP_ATOMIC);
	if (!c)
		return NULL;
	spin_lock_init(&c->lock);
	INIT_LIST_HEAD(&c->wait_node);
	INIT_LIST_HEAD(&c->bindings);
	timer_setup(&c->timer, l7_conn_timer_fn, 0);
	c->ls = ls;
	c->net = ls->net;
	c->caddr = caddr;
	c->cport = cport;
	c->vaddr = vaddr;
	c->vport = vport;
	c->last_seen = jiffies;
	return c;
}

/*
 * Hash @c, or free it and return false if the same tuple got there
 * first (two copies of a handshake's last ACK on two CPUs).
 */
bool l7_conn_insert(struct l7_conn *c)
{
	u32 h = l7_conn_hashfn(c->net, c->caddr, c->cport, c->vaddr,
			       c->vport);

	spin_lock_bh(&l7_conn_hash_lock);
	if (l7_conn_lookup(c->net, c->caddr, c->cport, c->vaddr, c->vport)) {
		spin_unlock_bh(&l7_conn_hash_lock);
		kfree(c);
		return false;
	}
	atomic_inc(&c->ls->nr_conns);
	hlist_add_head_rcu(&c->c_node, &l7_conn_hash[h]);
	spin_unlock_bh(&l7_conn_hash_lock);
	return true;
}

/* Called with c->lock held, never on a dead connection. */
void l7_conn_expire_in(struct l7_conn *c, unsigned long delay)
{
	mod_timer(&c->timer, jiffies + delay);
}

/* c->lock held: the connection ends at once, from its timer. */
void l7_conn_end(struct l7_conn *c, enum l7_end end, const char *reason)
{
	c->end = end;
	c->dead_reason = reason;
	l7_conn_expire_in(c, 0);
}

/* c->lock held: whether a binding of @c is on a connection of @pool. */
static bool l7_conn_uses_pool(struct l7_conn *c, const struct l7_pool *pool)
{
	struct l7_binding *b;

	list_for_each_entry(b, &c->bindings, node)
		if (b->pc->pool == pool)
			return true;
	return false;
}

/*
 * Process context: kill every connection of @ls (bound to a connection
 * of @pool, if not NULL) and wait until all are freed, including the
 * ones whose own timer is freeing them right now.  For a whole service,
 * packets must already be unable to find it.
 */
void l7_conn_flush(struct l7_service *ls, struct l7_pool *pool)
{
	struct l7_conn *c;
	unsigned int h;

	for (h = 0; h < ARRAY_SIZE(l7_conn_hash); h++) {
restart:
		rcu_read_lock();
		hlist_for_each_entry_rcu(c, &l7_conn_hash[h], c_node) {
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
			if (!mine)
				continue;
			rcu_read_unlock();
			timer_delete_sync(&c->timer);
			l7_conn_destroy(c);
			goto restart;
		}
		rcu_read_unlock();
	}
	if (pool)
		wait_var_event(&pool->n_busy, !READ_ONCE(pool->n_busy));
	else
		wait_var_event(&ls->nr_conns, !atomic_read(&ls->nr_conns));
}
