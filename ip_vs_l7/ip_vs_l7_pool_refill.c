// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the opening side of the pools of ip_vs_l7_pool.c - the
 * per-pool refill work, which opens connections to the pool's server and
 * binds the requests waiting for one, and a server's weight, which starts
 * or drains its pool.  It calls the pool and the connection machine
 * (l7_queue_kick()); the pool's data path only queues the work.
 *
 * Sockets are created, connected and released only from process context:
 * a per-pool delayed work refills the pool up to l7_pool_min_idle idle
 * connections (never past l7_pool_max in all) and reaps the ones the
 * server closed.  A server that refuses connections is marked down and
 * retried with exponential backoff, so dispatch can skip it until it
 * accepts again; so is one that closes connections right after accepting
 * them.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "ip_vs_l7.h"

#define L7_CONNECT_TIMEOUT	(2 * HZ)

/* Read what splicing needs from a freshly established socket. */
static void l7_pconn_snapshot(struct l7_pconn *pc)
{
	struct sock *sk = pc->sock->sk;
	struct tcp_sock *tp = tcp_sk(sk);
	struct l7_pconn_tcp *t = &pc->tcp;

	lock_sock(sk);
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6)
		t->laddr.in6 = sk->sk_v6_rcv_saddr;
	else
#endif
		t->laddr.ip = inet_sk(sk)->inet_saddr;
	t->lport = inet_sk(sk)->inet_sport;
	t->snd_nxt = tp->snd_nxt;
	t->rcv_nxt = tp->rcv_nxt;
	t->ts = tp->rx_opt.tstamp_ok;
	t->sack = tp->rx_opt.sack_ok;
	t->ts_recent = tp->rx_opt.ts_recent;
	/* at or above anything the socket has sent: the clock only grows */
	t->ts_last = (u32)div_u64(tcp_clock_ns(), NSEC_PER_MSEC) +
		     tp->tsoffset;
	t->snd_wscale = tp->rx_opt.wscale_ok ? tp->rx_opt.snd_wscale : -1;
	t->rcv_wscale = tp->rx_opt.wscale_ok ? tp->rx_opt.rcv_wscale : -1;
	t->mss = tp->mss_cache;
	/* the window the socket announced: where the server may send to */
	t->win = min_t(u32, tp->rcv_wnd >> max_t(int, t->rcv_wscale, 0),
		       U16_MAX);
	release_sock(sk);
}

/* A kernel socket connected to @pool's server, in *@sockp. */
static int l7_pconn_connect(struct l7_pool *pool, struct socket **sockp)
{
	union l7_sockaddr sa;
	struct socket *sock;
	int err;

	err = sock_create_kern(pool->net, pool->af, SOCK_STREAM, IPPROTO_TCP,
			       &sock);
	if (err)
		return err;
	sock->sk->sk_sndtimeo = L7_CONNECT_TIMEOUT;	/* bounds the connect */
	tcp_sock_set_nodelay(sock->sk);
	err = kernel_connect(sock, l7_pool_sa(pool, &sa), sizeof(sa), 0);
	if (err) {
		sock_release(sock);
		return err;
	}
	*sockp = sock;
	return 0;
}

/* @pc, connected and watched, is idle in its pool. */
static void l7_pconn_add_idle(struct l7_pconn *pc)
{
	struct l7_pool *pool = pc->pool;

	spin_lock_bh(&pool->lock);
	pc->state = L7_PC_IDLE;
	list_add_tail(&pc->list, &pool->idle);
	pool->n_idle++;
	pool->stats.opened++;
	/* from wanted to idle at once: l7_pool_want() counts both */
	if (pool->wanted)
		WRITE_ONCE(pool->wanted, pool->wanted - 1);
	spin_unlock_bh(&pool->lock);
}

/* Connect one more socket to the pool's server and make it idle. */
static int l7_pconn_open(struct l7_pool *pool)
{
	struct l7_pconn *pc;
	struct sock *sk;
	int err;

	pc = kzalloc(sizeof(*pc), GFP_KERNEL);
	if (!pc)
		return -ENOMEM;
	timer_setup(&pc->idle_timer, l7_pconn_idle_fn, 0);
	err = l7_pconn_connect(pool, &pc->sock);
	if (err) {
		kfree(pc);
		return err;
	}
	sk = pc->sock->sk;
	pc->pool = pool;
	pc->born = jiffies;
	l7_pconn_snapshot(pc);
	/* for the whole life of @pc: see the top of ip_vs_l7_pool.c */
	write_lock_bh(&sk->sk_callback_lock);
	pc->saved_state_change = sk->sk_state_change;
	rcu_assign_sk_user_data(sk, pc);
	WRITE_ONCE(sk->sk_state_change, l7_pconn_state_change);
	write_unlock_bh(&sk->sk_callback_lock);

	l7_pconn_add_idle(pc);
	/* closed before the callback was in place? */
	if (READ_ONCE(sk->sk_state) != TCP_ESTABLISHED)
		l7_pconn_mark_dead(pc);
	return 0;
}

static bool l7_pool_needs_more(struct l7_pool *pool)
{
	bool more;

	spin_lock_bh(&pool->lock);
	if (l7_pool_prefork(pool))
		WRITE_ONCE(pool->wanted, 0);
	more = !pool->dying && pool->weight > 0 &&
	       (pool->wanted ||
		(l7_pool_prefork(pool) && pool->n_idle < l7_pool_min_idle)) &&
	       pool->n_idle + pool->n_resting + pool->n_busy < l7_pool_max;
	spin_unlock_bh(&pool->lock);
	return more;
}

/*
 * Servers close a connection that idles too long before its first request
 * (Apache's Timeout, nginx's client_header_timeout), and connections
 * opened together expire together: one bound just then is answered with
 * FIN.  Replacing idle connections well before such limits keeps that
 * race out of the way.  Called with pool->lock held.
 */
static void l7_pool_age(struct l7_pool *pool, struct list_head *old)
{
	unsigned long ttl = l7_pool_idle_ttl * HZ;
	struct l7_pconn *pc, *next;

	lockdep_assert_held(&pool->lock);

	if (!ttl)
		return;
	list_for_each_entry_safe(pc, next, &pool->idle, list) {
		if (time_before(jiffies, pc->born + ttl))
			break;	/* oldest first */
		l7_pconn_unlink(pc);
		l7_pconn_discard(pc, old);
		pool->stats.aged++;
	}
}

/*
 * Called with pool->lock held.  A server that is down gets one
 * connection, the trial, after its backoff; failing to connect, or
 * closing the trial sooner than L7_SHORT_LIVED, sets it down again with a
 * longer backoff (l7_pool_failed() ends the trial).  A trial that lived
 * that long brings it back up.  Returns how long a trial has to go.
 */
static unsigned long l7_pool_trial_left(struct l7_pool *pool)
{
	unsigned long end = pool->probe_at + L7_SHORT_LIVED;
	union l7_sockaddr sa;

	lockdep_assert_held(&pool->lock);

	if (!pool->probing)
		return 0;
	if (time_before(jiffies, end))
		return end - jiffies;
	pr_info("l7: real server %pISpc accepts connections again\n",
		l7_pool_sa(pool, &sa));
	pool->down = false;
	pool->probing = false;
	pool->backoff_ms = 0;
	return 0;
}

/*
 * Called with pool->lock held: how long the refill work must wait before
 * it may open a connection, 0 for now (see l7_pool_trial_left()).
 */
static unsigned long l7_pool_open_wait(struct l7_pool *pool)
{
	unsigned long left = l7_pool_trial_left(pool);

	lockdep_assert_held(&pool->lock);

	if (left || !pool->down)
		return left;
	if (time_before(jiffies, pool->retry_at))
		return pool->retry_at - jiffies;
	pool->probing = true;	/* the next connection is the trial */
	pool->probe_at = jiffies;
	return 0;
}

/*
 * Close the connections the server closed, and the idle ones that are
 * too old - or, with @idle, every idle one (weight 0, prefork off).
 */
static void l7_pool_reap(struct l7_pool *pool, bool idle)
{
	struct l7_pconn *pc, *next;
	LIST_HEAD(dead);

	spin_lock_bh(&pool->lock);
	list_splice_init(&pool->dead, &dead);
	if (idle) {
		list_for_each_entry_safe(pc, next, &pool->idle, list) {
			l7_pconn_unlink(pc);
			l7_pconn_discard(pc, &dead);
		}
		list_for_each_entry_safe(pc, next, &pool->resting, list) {
			l7_pconn_unlink(pc);
			l7_pconn_discard(pc, &dead);
		}
	} else {
		l7_pool_age(pool, &dead);
	}
	spin_unlock_bh(&pool->lock);
	if (!list_empty(&dead))
		synchronize_rcu();	/* the packet hook may still see them */
	l7_pconn_close_list(&dead);
}

/*
 * Open connections while the pool needs more: while its server is down,
 * only the trial after its backoff (l7_pool_open_wait()).  A failure sets
 * it down and ends the round.
 */
static void l7_pool_fill(struct l7_pool *pool)
{
	union l7_sockaddr sa;
	int err;

	while (l7_pool_needs_more(pool)) {
		unsigned long wait;

		spin_lock_bh(&pool->lock);
		wait = l7_pool_open_wait(pool);
		spin_unlock_bh(&pool->lock);
		if (wait) {
			/* a kick since may have replaced our delay */
			l7_pool_again(pool, wait);
			break;
		}
		err = l7_pconn_open(pool);
		if (!err && READ_ONCE(pool->ls->waitq_len))
			l7_queue_kick(pool->ls);	/* one more can bind */
		spin_lock_bh(&pool->lock);
		if (err) {
			pool->stats.failed++;
			if (!pool->down)
				pr_info("l7: real server %pISpc refuses connections (%d)\n",
					l7_pool_sa(pool, &sa), err);
			l7_pool_failed(pool);
		} else if (pool->probing) {
			/* the trial's life starts now (a close undoes it) */
			pool->probe_at = jiffies;
		}
		spin_unlock_bh(&pool->lock);
		if (err)
			break;
	}
}

static void l7_pool_refill_work(struct work_struct *work)
{
	struct l7_pool *pool = container_of(to_delayed_work(work),
					    struct l7_pool, refill);
	bool prefork = l7_pool_prefork(pool);
	unsigned long trial;

	/* without pools, waiting requests first: the reaping waits for RCU */
	if (prefork)
		l7_pool_reap(pool, false);
	l7_pool_fill(pool);
	/* a trial is judged even when the pool needs no more */
	spin_lock_bh(&pool->lock);
	trial = l7_pool_trial_left(pool);
	spin_unlock_bh(&pool->lock);
	if (trial)
		l7_pool_again(pool, trial);
	/* connections came back, or were added: bind waiting requests */
	if (READ_ONCE(pool->ls->waitq_len))
		l7_queue_kick(pool->ls);
	/* without pools, what they did not take is not kept */
	if (!prefork)
		l7_pool_reap(pool, true);
	/* come back to age the idle ones; a pending kick stays as it is */
	if (l7_pool_idle_ttl)
		l7_pool_again(pool, l7_pool_idle_ttl * HZ / 4);
}

int l7_pool_init(struct l7_pool *pool, struct l7_service *ls,
		 const struct ip_vs_dest *dest)
{
	pool->bytes = alloc_percpu(struct l7_pool_bytes);
	if (!pool->bytes)
		return -ENOMEM;
	spin_lock_init(&pool->lock);
	INIT_LIST_HEAD(&pool->idle);
	INIT_LIST_HEAD(&pool->resting);
	INIT_LIST_HEAD(&pool->busy);
	INIT_LIST_HEAD(&pool->dead);
	INIT_DELAYED_WORK(&pool->refill, l7_pool_refill_work);
	pool->net = ls->net;
	pool->ls = ls;
	pool->af = dest->af;
	pool->baddr = dest->addr;
	pool->bport = dest->port;
	return 0;
}

/*
 * Weight 0 drains the server: no new bindings, idle connections closed
 * now, busy ones left to finish.  A positive weight (re)fills the pool.
 */
void l7_pool_set_weight(struct l7_pool *pool, int weight)
{
	spin_lock_bh(&pool->lock);
	pool->weight = weight;
	if (weight > 0)
		l7_pool_kick(pool, 0);
	else
		WRITE_ONCE(pool->wanted, 0);
	spin_unlock_bh(&pool->lock);
	if (weight > 0)
		return;
	l7_pool_reap(pool, true);
	/* without pools, a request that asked this server asks another */
	if (!l7_pool_prefork(pool) && READ_ONCE(pool->ls->waitq_len))
		l7_queue_kick(pool->ls);
}
