// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: pools of pre-established connections to each real server
 * (FPS step 0), so that no request waits for a backend handshake.  This
 * file is the pool on the data path: it hands an idle connection to a
 * request and takes it back, counts the requests outstanding on the
 * server, answers the server's segments on an idle connection, and closes
 * connections.  Opening them - the per-pool refill work - is
 * ip_vs_l7_pool_refill.c's, which calls this file; this file only queues
 * that work (l7_pool_kick()).
 *
 * While pooled, a socket's state changes are watched through
 * sk_state_change: a FIN or RST from the server (KeepAliveTimeout,
 * restart) moves it to the dead list from softirq context, and the work
 * replaces it.  A server that closes connections right after accepting
 * them is marked down (l7_pool_failed()), as one that refuses them is.
 *
 * The socket callback and its data (see l7_pconn_state_change()): from
 * l7_pconn_open() to l7_pconn_close() a pooled socket's sk_user_data is
 * its l7_pconn and its sk_state_change is l7_pconn_state_change(); both
 * are set together and cleared together under sk_callback_lock, and
 * nothing changes them in between - taking the connection for splicing
 * only sets pc->spliced, under pool->lock.  So the callback, which reads
 * sk_user_data under sk_callback_lock, finds NULL or a live l7_pconn and
 * nothing else, even when a softirq was already in tcp_fin() or
 * tcp_reset() as the connection was taken; and it then reads
 * pc->spliced under pool->lock, where it was set, so a spliced
 * connection is never mistaken for an idle one.  The l7_pconn is freed an
 * RCU grace period after its socket let go of it, for the LOCAL_OUT guard
 * (l7_pool_sock_spliced()), which reads it without the lock.
 *
 * A service with the option prefork off (a baseline for measurements:
 * what a switch without pre-forked pools pays) keeps no connection idle.
 * Dispatch asks the chosen server's pool for one connection per request
 * that has to wait (l7_pool_want()), the work opens it and binds the
 * waiting requests as usual, closes what none of them took, and every
 * binding retires its connection instead of giving it back.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "ip_vs_l7.h"

#define L7_BACKOFF_MIN_MS	100
#define L7_BACKOFF_MAX_MS	5000

static struct workqueue_struct *l7_pool_wq;

/* @pool's server, in *@sa */
struct sockaddr *l7_pool_sa(const struct l7_pool *pool, union l7_sockaddr *sa)
{
	memset(sa, 0, sizeof(*sa));
	if (pool->af == AF_INET6) {
		sa->sin6.sin6_family = AF_INET6;
		sa->sin6.sin6_addr = pool->baddr.in6;
		sa->sin6.sin6_port = pool->bport;
	} else {
		sa->sin.sin_family = AF_INET;
		sa->sin.sin_addr.s_addr = pool->baddr.ip;
		sa->sin.sin_port = pool->bport;
	}
	return &sa->sa;
}

/* whether the pool keeps pool_min_idle ready (the service's option) */
bool l7_pool_prefork(const struct l7_pool *pool)
{
	return !READ_ONCE(pool->ls->no_prefork);
}

void l7_pool_kick(struct l7_pool *pool, unsigned long delay)
{
	if (!pool->dying)
		mod_delayed_work(l7_pool_wq, &pool->refill, delay);
}

/* From the work: run again in @delay, unless a kick comes first. */
void l7_pool_again(struct l7_pool *pool, unsigned long delay)
{
	if (!READ_ONCE(pool->dying))
		queue_delayed_work(l7_pool_wq, &pool->refill, delay);
}

/* Called with pool->lock held. */
void l7_pconn_unlink(struct l7_pconn *pc)
{
	struct l7_pool *pool = pc->pool;

	lockdep_assert_held(&pool->lock);

	if (pc->state == L7_PC_IDLE && pc->resting)
		pool->n_resting--;
	else if (pc->state == L7_PC_IDLE)
		pool->n_idle--;
	else if (pc->state == L7_PC_BUSY)
		pool->n_busy--;
	list_del(&pc->list);
}

/*
 * Called with pool->lock held: @pc leaves the pool for good.  The packet
 * hook stops finding it (the refill work waits for an RCU grace period
 * before closing it), and a server that still thinks it is connected is
 * told otherwise: the socket cannot, its numbers are stale.
 */
void l7_pconn_discard(struct l7_pconn *pc, struct list_head *to)
{
	lockdep_assert_held(&pc->pool->lock);

	if (pc->hashed) {
		l7_pconn_unhash(pc);
		if (!pc->quiet)
			l7_send_pconn(pc, TCPHDR_RST, pc->tcp.snd_nxt, 0, 0,
				      NULL, NULL, 0);
		pc->quiet = true;
	}
	pc->state = L7_PC_DEAD;
	list_add_tail(&pc->list, to);
}

/*
 * Called with pool->lock held: the server failed us - refused a connect,
 * or closed a connection it had just accepted.  It is down: dispatch
 * skips it, and the refill work tries it again, one connection at a
 * time, after a backoff that doubles with every failure.
 */
void l7_pool_failed(struct l7_pool *pool)
{
	lockdep_assert_held(&pool->lock);

	pool->down = true;
	pool->probing = false;
	WRITE_ONCE(pool->wanted, 0);	/* the requests ask another server */
	pool->backoff_ms = clamp(pool->backoff_ms * 2, L7_BACKOFF_MIN_MS,
				 L7_BACKOFF_MAX_MS);
	pool->retry_at = jiffies + msecs_to_jiffies(pool->backoff_ms);
	l7_pool_kick(pool, msecs_to_jiffies(pool->backoff_ms));
}

void l7_pconn_mark_dead(struct l7_pconn *pc)
{
	struct l7_pool *pool = pc->pool;
	union l7_sockaddr sa;

	spin_lock_bh(&pool->lock);
	/* once taken, it is the data path's: the binding sees the FIN too */
	if (pc->state == L7_PC_IDLE && !pc->spliced) {
		l7_pconn_unlink(pc);
		pc->state = L7_PC_DEAD;
		list_add_tail(&pc->list, &pool->dead);
		pool->stats.closed++;
		/* accepted and closed at once: not a pool to refill in a loop */
		if (time_before(jiffies, pc->born + L7_SHORT_LIVED)) {
			if (!pool->down)
				pr_info("l7: real server %pISpc closes connections as it accepts them\n",
					l7_pool_sa(pool, &sa));
			l7_pool_failed(pool);
		} else {
			l7_pool_kick(pool, 0);
		}
	}
	spin_unlock_bh(&pool->lock);
}

/*
 * Softirq, under the socket's lock: anything but ESTABLISHED means the
 * server sent FIN or RST (we never close a pooled socket while it is
 * watched), which matters only while the connection is idle and not
 * spliced - l7_pconn_mark_dead() checks that under pool->lock.  The
 * original callback still wakes any waiter.  sk_user_data is NULL or our
 * l7_pconn (see the top of this file): NULL once l7_pconn_close() has
 * restored the socket's own callback, which is then the one to call.
 */
void l7_pconn_state_change(struct sock *sk)
{
	void (*orig)(struct sock *sk);
	struct l7_pconn *pc;

	read_lock_bh(&sk->sk_callback_lock);
	pc = sk->sk_user_data;
	if (pc) {
		orig = pc->saved_state_change;
		if (sk->sk_state != TCP_ESTABLISHED)
			l7_pconn_mark_dead(pc);
	} else {
		orig = sk->sk_state_change;
	}
	read_unlock_bh(&sk->sk_callback_lock);
	if (orig != l7_pconn_state_change)
		orig(sk);
}

/*
 * LOCAL_OUT, under RCU: whether @sk is a pooled socket whose connection
 * the data path took over.  Only a pooled socket has our callback; its
 * sk_user_data is then NULL or its l7_pconn, freed only after an RCU
 * grace period.
 */
bool l7_pool_sock_spliced(const struct sock *sk)
{
	const struct l7_pconn *pc;

	if (READ_ONCE(sk->sk_state_change) != l7_pconn_state_change)
		return false;
	pc = rcu_dereference_sk_user_data(sk);
	return pc && READ_ONCE(pc->spliced);
}

static void l7_pconn_free_rcu(struct rcu_head *head)
{
	struct l7_pconn *pc = container_of(head, struct l7_pconn, rcu);

	l7_dst_cache_reset(&pc->dst);
	kfree(pc);
}

/*
 * Process context; @pc is on no list.  A connection that was spliced has
 * moved on without its socket: the socket's sequence numbers are stale,
 * so it must leave without a word (no FIN, no RST), which TCP_REPAIR
 * gives; the connection itself was ended by the data path.  In a network
 * namespace on its way out (IPVS flushes its services from its pernet
 * exit) the socket must not outlive it either: a kernel socket holds no
 * reference on its namespace, and one left in FIN-WAIT or TIME-WAIT would
 * run its timers on a freed one.  It is aborted (RST, CLOSE at once).
 */
static void l7_pconn_close(struct l7_pconn *pc)
{
	struct sock *sk = pc->sock->sk;
	int one = 1;

	if (WARN_ON_ONCE(pc->hashed))
		l7_pconn_unhash(pc);	/* a grace period too late */
	timer_delete_sync(&pc->idle_timer);
	/* after this no state_change callback can still see @pc */
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	WRITE_ONCE(sk->sk_state_change, pc->saved_state_change);
	write_unlock_bh(&sk->sk_callback_lock);

	/*
	 * Spliced, its numbers are stale: in repair mode it leaves without
	 * a word.  Should repair mode be refused, it is aborted instead
	 * (one RST at a stale number, which its server ignores), rather
	 * than left to send a FIN nobody expects and linger for it.
	 */
	if (pc->spliced) {
		if (pc->sock->ops->setsockopt(pc->sock, SOL_TCP, TCP_REPAIR,
					      KERNEL_SOCKPTR(&one),
					      sizeof(one)))
			sock_no_linger(sk);
	} else if (!check_net(sock_net(sk)))
		sock_no_linger(sk);
	else
		kernel_sock_shutdown(pc->sock, SHUT_RDWR);
	sock_release(pc->sock);
	/* a packet that found it under RCU may still send on it, by its route */
	call_rcu(&pc->rcu, l7_pconn_free_rcu);
}

void l7_pconn_close_list(struct list_head *head)
{
	struct l7_pconn *pc, *next;

	list_for_each_entry_safe(pc, next, head, list) {
		list_del(&pc->list);
		l7_pconn_close(pc);
	}
}

/*
 * A pure ACK to @pc's server at @t: read under the pool lock for an idle
 * connection, or the binding's own numbers while it still holds @pc.
 * @dup: server bytes (its seq) the client reported receiving twice, or
 * NULL.  A server that probed for its tail takes the D-SACK of the probe
 * for "no loss" (tcp_process_tlp_ack()); without it, the ACK of its next
 * response counts the probe as a repair and shrinks its window.
 */
void l7_pconn_send_ack(struct l7_pconn *pc, const struct l7_pconn_tcp *t,
		       const struct l7_tcp_sack_block *dup)
{
	struct l7_tcp_opts o;

	l7_tcp_opts_own(&o, t->ts, t->ts_last, t->ts_recent,
			t->sack ? dup : NULL);
	l7_send_pconn(pc, 0, t->snd_nxt, t->rcv_nxt, t->win, &o, NULL, 0);
}

/* Called with pool->lock held: @pc's rest is over, it may be taken. */
static void l7_pconn_rested(struct l7_pconn *pc)
{
	struct l7_pool *pool = pc->pool;

	lockdep_assert_held(&pool->lock);

	pc->resting = false;
	list_move_tail(&pc->list, &pool->idle);
	pool->n_resting--;
	pool->n_idle++;
	/* requests waiting for one are bound from the work */
	if (READ_ONCE(pool->ls->waitq_len))
		l7_pool_kick(pool, 0);
}

/*
 * How long after a binding a connection's server waits for the ACK it is
 * owed: until the end of the connection's rest (@rest ticks), when that
 * comes within TCP's longest delayed ACK - one timer then serves both;
 * else L7_DELACK.  No request can take the connection and carry the ACK
 * sooner while it rests.
 */
static unsigned long l7_pconn_ack_delay(unsigned long rest)
{
	return rest && rest <= TCP_DELACK_MAX ? rest : L7_DELACK;
}

/*
 * Timer, for a connection idle after a binding (l7_pool_release()): its
 * server still lacks our ACK of its last response, which it would send
 * again without one, and its rest may be over.  Either comes when due;
 * the timer is set again for what is still to come.  Taken meanwhile, the
 * new request's copy carried the ACK.
 */
void l7_pconn_idle_fn(struct timer_list *t)
{
	struct l7_pconn *pc = from_timer(pc, t, idle_timer);
	unsigned long rest = msecs_to_jiffies(l7_pool_reuse_delay);
	struct l7_pool *pool = pc->pool;
	struct l7_pconn_tcp tcp;
	unsigned long ack_at;
	bool owed = false;

	spin_lock_bh(&pool->lock);
	if (pc->state != L7_PC_IDLE)
		goto out;
	ack_at = pc->born + l7_pconn_ack_delay(rest);	/* born: under the lock */
	if (pc->ack_owed && !time_before(jiffies, ack_at)) {
		pc->ack_owed = false;
		owed = true;
	}
	if (pc->resting && !time_before(jiffies, pc->born + rest))
		l7_pconn_rested(pc);
	if (pc->ack_owed)
		timer_reduce(&pc->idle_timer, ack_at);
	if (pc->resting)
		timer_reduce(&pc->idle_timer, pc->born + rest);
out:
	tcp = pc->tcp;
	spin_unlock_bh(&pool->lock);
	if (owed)
		l7_pconn_send_ack(pc, &tcp, NULL);
}

/*
 * The server's upper threshold (ipvsadm -a/-e -x): at most @max requests
 * outstanding there, 0 for no cap.  A cap raised or lifted lets requests
 * that waited for a slot go: the work binds them.
 */
void l7_pool_set_max(struct l7_pool *pool, unsigned int max)
{
	spin_lock_bh(&pool->lock);
	WRITE_ONCE(pool->max_out, max);
	if (READ_ONCE(pool->ls->waitq_len))
		l7_pool_kick(pool, 0);
	spin_unlock_bh(&pool->lock);
}

/*
 * Called with pool->lock held, which every taker holds: one more request
 * outstanding on the server, unless that is past its upper threshold.
 * Only l7_pool_req_done() changes the count outside the lock, and only
 * down, so the server never has more than max_out from this director.
 */
static bool l7_pool_reserve(struct l7_pool *pool)
{
	lockdep_assert_held(&pool->lock);

	if (l7_pool_full(pool))
		return false;
	atomic_inc(&pool->outstanding);
	return true;
}

/*
 * Any context, under the client connection's lock: a request on @pool's
 * server has its whole response, or ended without one.  Under a cap the
 * slot it frees belongs to the requests waiting: the work binds them.  The
 * barrier pairs with l7_queue_retry()'s, so a request that found the
 * server full and is only now being queued is either seen waiting here
 * or sees the free slot there.
 */
void l7_pool_req_done(struct l7_pool *pool)
{
	atomic_dec(&pool->outstanding);
	smp_mb__after_atomic();	/* the count, then the queue */
	if (READ_ONCE(pool->max_out) && READ_ONCE(pool->ls->waitq_len)) {
		spin_lock_bh(&pool->lock);
		l7_pool_kick(pool, 0);
		spin_unlock_bh(&pool->lock);
	}
}

/* The service's prefork option changed: the work fills or empties it. */
void l7_pool_mode_changed(struct l7_pool *pool)
{
	spin_lock_bh(&pool->lock);
	l7_pool_kick(pool, 0);
	spin_unlock_bh(&pool->lock);
}

/*
 * Under RCU, a request of a service without pre-forked pools waits (it
 * is in the service's queue) for a connection to @pool's server, which
 * dispatch chose for it: one more is opened, unless the connections
 * being opened for the service's waiting requests, or opened and not yet
 * bound, are enough already - a request that waits again after another
 * took the connection opened for it asks only when every waiting
 * request's connection is taken.  (Counting only those being opened, a
 * request whose bind failed just before its connection came up asked
 * for a second one: an open too many.)
 */
void l7_pool_want(struct l7_pool *pool)
{
	struct l7_service *ls = pool->ls;
	unsigned int opening = 0;
	struct l7_dest *ld;

	list_for_each_entry_rcu(ld, &ls->dests, list)
		opening += READ_ONCE(ld->pool.wanted) +
			   READ_ONCE(ld->pool.n_idle);
	if (opening >= READ_ONCE(ls->waitq_len))
		return;
	spin_lock_bh(&pool->lock);
	if (pool->weight > 0 && !pool->down) {
		WRITE_ONCE(pool->wanted, pool->wanted + 1);
		l7_pool_kick(pool, 0);
	}
	spin_unlock_bh(&pool->lock);
}

void l7_pool_destroy(struct l7_pool *pool)
{
	struct l7_pconn *pc, *next;
	LIST_HEAD(all);

	spin_lock_bh(&pool->lock);
	pool->dying = true;
	spin_unlock_bh(&pool->lock);
	/* waits for a running refill; dying stops it and any callback
	 * from queueing it again
	 */
	cancel_delayed_work_sync(&pool->refill);

	spin_lock_bh(&pool->lock);
	list_splice_init(&pool->dead, &all);
	list_splice_init(&pool->busy, &pool->idle);
	list_splice_init(&pool->resting, &pool->idle);
	list_for_each_entry_safe(pc, next, &pool->idle, list) {
		list_del(&pc->list);
		l7_pconn_discard(pc, &all);
	}
	pool->n_idle = 0;
	pool->n_resting = 0;
	pool->n_busy = 0;
	spin_unlock_bh(&pool->lock);
	synchronize_rcu();	/* the packet hook may still see them */
	l7_pconn_close_list(&all);
	free_percpu(pool->bytes);
}

/*
 * Softirq: hand out an idle connection for binding, with the request's
 * slot on the server taken (outstanding), or NULL: none idle, or the
 * server at its upper threshold.  From its first binding on the data
 * path owns the connection's packets; the socket is left behind, its
 * callbacks in place (see the top of this file) and its output, should it
 * ever have any, dropped at LOCAL_OUT.
 */
static struct l7_pconn *l7_pool_take_one(struct l7_pool *pool, bool *first)
{
	struct l7_pconn *pc = NULL;

	spin_lock_bh(&pool->lock);
	if (pool->weight > 0 && !pool->dying && !list_empty(&pool->idle) &&
	    l7_pool_reserve(pool)) {
		/* the newest: least likely to be closed by the server now */
		pc = list_last_entry(&pool->idle, struct l7_pconn, list);
		list_move_tail(&pc->list, &pool->busy);
		pool->n_idle--;
		pool->n_busy++;
		pc->state = L7_PC_BUSY;
		pc->ack_owed = false;	/* the copy acknowledges */
		*first = !pc->spliced;
		/* from now on its socket's state changes mean nothing */
		WRITE_ONCE(pc->spliced, true);
		pool->stats.bindings++;
		if (pc->uses++)
			pool->stats.reused++;
		if (*first)
			l7_pconn_hash(pc);
		if (pool->n_idle < l7_pool_min_idle && l7_pool_prefork(pool))
			l7_pool_kick(pool, 0);	/* keep min_idle ready */
	}
	spin_unlock_bh(&pool->lock);
	return pc;
}

/*
 * @pc was just taken for the first time, and hashed: its server's
 * segments come to the data path from now on, no longer to its socket.
 * Until now the socket took them itself: were there any since the
 * snapshot (l7_pconn_snapshot()) - bytes nobody asked for, which the
 * socket acknowledged - the snapshot is stale and the bytes would be
 * read as the response to the request bound next.  Such a connection is
 * reset and retired, never bound.  Under no pool lock (the socket's lock
 * comes before it, in the state_change callback).
 */
static bool l7_pconn_still_fresh(struct l7_pconn *pc)
{
	struct sock *sk = pc->sock->sk;
	struct tcp_sock *tp = tcp_sk(sk);
	u32 snd_nxt, rcv_nxt;
	bool fresh;

	bh_lock_sock(sk);
	snd_nxt = tp->snd_nxt;
	rcv_nxt = tp->rcv_nxt;
	fresh = !sock_owned_by_user(sk) && !READ_ONCE(sk->sk_backlog.tail) &&
		skb_queue_empty(&sk->sk_receive_queue);
	bh_unlock_sock(sk);
	if (fresh && rcv_nxt == pc->tcp.rcv_nxt && snd_nxt == pc->tcp.snd_nxt)
		return true;
	l7_send_pconn(pc, TCPHDR_RST, snd_nxt, rcv_nxt, 0, NULL, NULL, 0);
	l7_pool_req_done(pc->pool);	/* l7_pool_take_one() counted it */
	l7_pool_release(pc, false, false);
	return false;
}

/*
 * An idle pooled connection of @pool for a request, or NULL.  The pool
 * counts the request as outstanding until l7_pool_req_done().
 */
struct l7_pconn *l7_pool_take(struct l7_pool *pool)
{
	struct l7_pconn *pc;
	bool first = false;

	do {
		pc = l7_pool_take_one(pool, &first);
	} while (pc && first && !l7_pconn_still_fresh(pc));
	return pc;
}

/*
 * Called with pool->lock held: @pc, done with a binding, goes back to
 * the pool for the next request of any client - after a rest of
 * pool_reuse_delay.  A server may write past a response's end (a script
 * that flushes its Content-Length, then writes more): once the next
 * request's copy is acknowledged, nothing in those bytes tells them from
 * its answer, and the next client would read them.  While @pc rests,
 * they retire it (l7_pool_idle_packet()); a server that writes them
 * later than that is not kept from doing so.
 */
static void l7_pconn_repool(struct l7_pconn *pc, bool ack_owed)
{
	unsigned long rest = msecs_to_jiffies(l7_pool_reuse_delay);
	struct l7_pool *pool = pc->pool;

	lockdep_assert_held(&pool->lock);

	pc->state = L7_PC_IDLE;
	pc->born = jiffies;
	pc->ack_owed = ack_owed;
	/* one already set goes first (l7_pconn_idle_fn()) */
	if (ack_owed)
		timer_reduce(&pc->idle_timer,
			     pc->born + l7_pconn_ack_delay(rest));
	if (rest) {
		pc->resting = true;
		list_add_tail(&pc->list, &pool->resting);
		pool->n_resting++;
		timer_reduce(&pc->idle_timer, pc->born + rest);
		return;
	}
	list_add_tail(&pc->list, &pool->idle);
	pool->n_idle++;
	/* requests waiting for one are bound from the work */
	if (READ_ONCE(pool->ls->waitq_len))
		l7_pool_kick(pool, 0);
}

/*
 * Any context: a binding is done with @pc.  With @keep it goes back to
 * the pool (l7_pconn_repool()); otherwise it is retired - its server was
 * told already - and replaced.  Without pre-forked pools it is retired
 * either way: a kept one is reset at the numbers the binding left it
 * with.  @ack_owed: its server still waits for our ACK of its response,
 * sent after l7_pconn_ack_delay() unless a next request's copy carries it
 * first.
 */
void l7_pool_release(struct l7_pconn *pc, bool keep, bool ack_owed)
{
	struct l7_pool *pool = pc->pool;

	spin_lock_bh(&pool->lock);
	if (pc->state == L7_PC_BUSY) {
		l7_pconn_unlink(pc);
		if (keep && pool->weight > 0 && !pool->dying &&
		    l7_pool_prefork(pool)) {
			l7_pconn_repool(pc, ack_owed);
		} else {
			pc->quiet = !keep;	/* else it still needs its RST */
			l7_pconn_discard(pc, &pool->dead);
			l7_pool_kick(pool, 0);
		}
	}
	spin_unlock_bh(&pool->lock);
	wake_up_var(&pool->n_busy);	/* l7_conn_flush() may wait */
}

void l7_pool_count_error(struct l7_pool *pool)
{
	spin_lock_bh(&pool->lock);
	pool->stats.errors++;
	spin_unlock_bh(&pool->lock);
}

/* What core/tcp_accept.c needs of an idle pooled connection. */
static struct l7_tcp_idle l7_pconn_idle_view(const struct l7_pconn_tcp *t)
{
	return (struct l7_tcp_idle){
		.rcv_nxt = t->rcv_nxt,
		.rcv_wnd = l7_win_bytes(t->win, t->rcv_wscale),
		.snd_nxt = t->snd_nxt,
		.max_window = l7_win_bytes(U16_MAX, t->snd_wscale),
	};
}

/*
 * Softirq: a server's segment on a pooled connection that is idle after
 * a binding.  Only the data path knows its numbers, so it answers
 * (core/tcp_accept.c): a resent response tail gets its ACK again (ours
 * was lost), as does a segment in the window but not at rcv_nxt; a FIN
 * (the server's keep-alive timeout) or data at rcv_nxt, or a RST exactly
 * there, retires the connection - with a RST, as nothing is left to say
 * on it.  Anything else is not the server's, and changes nothing.
 * The ACKs are rate-limited per connection as a binding's challenges are
 * (Linux: tcp_oow_rate_limited()): a server whose resend of a lost ACK's
 * bytes goes unanswered backs off and sends again, while forged segments
 * would otherwise each draw an ACK towards the server.
 */
unsigned int l7_pool_idle_packet(struct l7_pconn *pc, struct sk_buff *skb)
{
	const struct tcphdr *th = tcp_hdr(skb);
	u32 len = skb->len - l7_nhlen(skb) - th->doff * 4;
	struct l7_tcp_in in = {
		.seq = ntohl(th->seq),
		.ack = ntohl(th->ack_seq),
		.len = len + th->syn + th->fin,
		.win = ntohs(th->window),
		.flags = tcp_flag_byte(th),
	};
	struct l7_pool *pool = pc->pool;
	struct l7_pconn_tcp t = {};
	struct l7_tcp_idle view;
	bool ack = false;

	spin_lock_bh(&pool->lock);
	if (pc->state == L7_PC_IDLE) {
		t = pc->tcp;
		view = l7_pconn_idle_view(&t);
		switch (l7_tcp_accept_idle(&view, &in)) {
		case L7_IDLE_ACK:
		case L7_IDLE_CHALLENGE:
			ack = l7_tcp_ratelimit_allow(&pc->idle_acks,
						     (u32)jiffies,
						     L7_CHALLENGE_GAP);
			break;
		case L7_IDLE_RETIRE:
			pc->quiet = th->rst;
			l7_pconn_unlink(pc);
			l7_pconn_discard(pc, &pool->dead);
			pool->stats.closed++;
			l7_pool_kick(pool, 0);
			break;
		case L7_IDLE_DROP:
			break;
		}
	}
	spin_unlock_bh(&pool->lock);
	if (ack)
		l7_pconn_send_ack(pc, &t, NULL);
	return NF_DROP;
}

int l7_pool_module_init(void)
{
	/* unbound: a connect to a slow server must not hold up a CPU's
	 * other work items
	 */
	l7_pool_wq = alloc_workqueue("ip_vs_l7_pool", WQ_UNBOUND, 0);
	return l7_pool_wq ? 0 : -ENOMEM;
}

void l7_pool_module_exit(void)
{
	destroy_workqueue(l7_pool_wq);
}
