// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the checkpoint channel of a network namespace, modelled on
 * IPVS's sync daemon (ip_vs_sync.c): a UDP kernel socket bound to a
 * dedicated interface, the master sending records of its idle client
 * connections to the peer, the backup keeping the newest record of each
 * in a bounded store (core/conn_ckpt.h: the records, the datagram and
 * the store).
 *
 * Records carry the sequence numbers that let whoever holds them inject
 * into live connections, and whoever reaches the sync link is not
 * trusted: datagrams are sealed (ip_vs_l7_sync_seal.c), taken only from
 * the configured peer's address, and only from the one start of the peer
 * that proved it was sealed after ours, each once (core/sync_peer.h).
 * Both ends send HELLOs, datagrams of no record, for that handshake.
 *
 * Sender: a client connection idle at a request boundary for sync_idle
 * (its clock's SYNC deadline) makes a record, and one that ends after a
 * record a DELETE, into a bounded queue, from any context; a work item,
 * a few ms after the first, packs them into datagrams of up to the
 * interface's MTU and sends them.  A full queue drops the record and
 * counts it: a record not sent only makes the backup's copy stale, which
 * costs a reset after a failover, never wrong data.
 *
 * Receiver: the socket's data_ready queues a work item that reads the
 * datagrams waiting, checks each before any cryptography is spent on it,
 * opens it and applies it to the store.
 *
 * Every work item of a channel runs on its own ordered workqueue: the
 * sender, the receiver, the HELLOs and the probe never run at once, so
 * the peer's state needs no lock, and a flood at the receiver delays a
 * send by one batch at most.
 *
 * Start and stop run under l7_sync_mutex, in process context (the
 * family's handlers, the namespace's exit); the channel is published
 * with RCU for l7_sync_queue().
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <crypto/hash.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/udp.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/sock.h>

#include "core/sync_peer.h"
#include "ip_vs_l7.h"
#include "ip_vs_l7_sync.h"
#include "ip_vs_l7_sync_seal.h"

/* records waiting for the sender at most */
#define L7_SYNC_QUEUE		4096
/* how long the first record waits for others to share its datagram */
#define L7_SYNC_BATCH_MS	10
/* datagrams read in one run of the receiver, before it yields */
#define L7_SYNC_RECV_BATCH	64
/* the receive buffer: a flood is dropped there, not queued for work */
#define L7_SYNC_RCVBUF		(256 * 1024)
/* a HELLO this often, and at most this often in answer to a sender */
#define L7_SYNC_HELLO_MS	1000
#define L7_SYNC_HELLO_MIN_MS	100
/* slots of the store looked at in one hold of its lock by the probe */
#define L7_SYNC_PROBE_SCAN	256
/* records copied out of the store at a time by the takeover's probe */
#define L7_SYNC_PROBE_BATCH	64
/*
 * The probe runs this long after an address came up: the clients answer
 * to the VIP's MAC as their ARP caches have it, which keepalived's
 * gratuitous ARPs change only after it added the address.  It runs
 * again later, when a client with bytes in flight to the dead director,
 * whose first answer was waited out (l7_ckpt_past()), has had time to
 * send them again: one that answers past its record a second time had
 * them acknowledged, waits for a response that will not come, and is
 * reset.
 */
#define L7_SYNC_PROBE_FIRST_MS	300
#define L7_SYNC_PROBE_AGAIN_MS	8000
/*
 * And once more, this long after the last probe: a record whose client
 * answered neither probe has no client (gone, or reset meanwhile), and is
 * dropped (l7_ckpt_expire()).
 */
#define L7_SYNC_PROBE_EXPIRE_MS	3000
/* the largest UDP payload */
#define L7_SYNC_UDP_MAX		65507

struct l7_sync {
	struct l7_sync_cfg	cfg;		/* the key zeroed */
	struct net		*net;
	struct socket		*sock;
	struct workqueue_struct	*wq;		/* ordered: all work below */
	struct crypto_shash	*kdf;		/* keyed with the shared key */
	u32			dgram_max;	/* bytes, from the MTU */
	u32			idle;		/* master: sync_idle, jiffies */
	atomic64_t		gen;		/* master: the last generation */

	/* the work items' own, on the ordered workqueue */
	struct l7_sync_peer	peer;
	struct l7_seal		tx;		/* keyed for our sender id */
	struct l7_seal		rx;		/* for the accepted sender's */
	struct l7_seal		rx_new;		/* for any other sender's */
	u64			tx_seq;
	unsigned long		hello_at;	/* jiffies of the last HELLO */
	u8			*tx_buf;	/* dgram_max */
	u8			*rx_buf;	/* dgram_max + 1 */
	struct delayed_work	hello;

	/* master */
	struct delayed_work	send;
	spinlock_t		qlock;		/* the queue, master counters */
	struct l7_ckpt_rec	*queue;		/* ring of L7_SYNC_QUEUE */
	u32			qhead;
	u32			qlen;

	/* backup */
	struct work_struct	recv;
	struct delayed_work	probe;		/* an address came up */
	struct l7_ckpt_slot	*probe_batch;	/* the probe's copies */
	u32			*probe_idx;	/* and their slots */
	atomic_t		probe_pass;	/* the next: 1, 2, then expiry */
	spinlock_t		slock;		/* the store, backup counters */
	struct l7_ckpt_store	store;
	struct l7_ckpt_slot	*slots;
	u32			*buckets;

	struct l7_sync_stats	stats;		/* but the store's */
};

struct l7_sync_net {
	struct l7_sync __rcu	*sync;
};

static DEFINE_MUTEX(l7_sync_mutex);
static unsigned int l7_sync_net_id __read_mostly;

static struct l7_sync_net *l7_sync_net(const struct net *net)
{
	return net_generic(net, l7_sync_net_id);
}

/* a master (or both) sends the records of its own connections */
static bool l7_sync_sends(const struct l7_sync *s)
{
	return s->cfg.role != IPVS_L7_SYNC_BACKUP;
}

/* a backup (or both) keeps the peer's, and takes connections over */
static bool l7_sync_keeps(const struct l7_sync *s)
{
	return s->cfg.role != IPVS_L7_SYNC_MASTER;
}

/* ms, as the director's TSval clock (ip_vs_l7_xmit.c) */
static u32 l7_sync_now_ms(void)
{
	return (u32)div_u64(ktime_get_boottime_ns(), NSEC_PER_MSEC);
}

/* ---- datagrams ---- */

static int l7_sync_sendto(struct l7_sync *s, size_t len)
{
	struct sockaddr_storage to = {};
	struct msghdr msg = { .msg_name = &to };
	struct kvec iov = { .iov_base = s->tx_buf, .iov_len = len };

	if (s->cfg.af == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&to;

		sin->sin_family = AF_INET;
		sin->sin_port = s->cfg.port;
		sin->sin_addr.s_addr = s->cfg.peer.ip;
		msg.msg_namelen = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&to;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = s->cfg.port;
		sin6->sin6_addr = s->cfg.peer.in6;
		msg.msg_namelen = sizeof(*sin6);
	}
	return kernel_sendmsg(s->sock, &msg, &iov, 1, len);
}

/*
 * The datagram in s->tx_buf, @count records of @plain bytes after its
 * header, sealed under the next sequence number and sent: 0, or an error.
 * A sequence number is never used twice, even for a datagram not sent.
 */
static int l7_sync_seal_send(struct l7_sync *s, u16 count, size_t plain)
{
	struct l7_sync_hdr h = {
		.count = count,
		.sync_id = s->cfg.sync_id,
		.sender = s->peer.self,
		.seq = ++s->tx_seq,
		.challenge = s->peer.challenge,
		.echo = s->peer.echo,
		/* written by l7_ckpt_apply() only, on this same workqueue */
		.newest = s->store.newest,
	};
	size_t len = L7_SYNC_HDR_LEN + plain + L7_SYNC_TAG_LEN;
	int err;

	l7_sync_hdr_put(s->tx_buf, &h);
	err = l7_seal(&s->tx, s->tx_buf, plain, h.seq);
	if (err)
		return err;
	err = l7_sync_sendto(s, len);
	return err == (int)len ? 0 : err < 0 ? err : -EIO;
}

/* A HELLO: a datagram of no record, for the peer's handshake. */
static void l7_sync_send_hello(struct l7_sync *s)
{
	int err;

	s->hello_at = jiffies;
	err = l7_sync_seal_send(s, 0, 0);
	spin_lock_bh(&s->qlock);
	if (!err)
		s->stats.sent++;
	spin_unlock_bh(&s->qlock);
}

/*
 * To a sender that does not know our challenge yet; as often as a
 * forgery of one of its datagrams can make us, so at a bounded rate.
 */
static void l7_sync_answer_hello(struct l7_sync *s)
{
	if (time_before(jiffies, s->hello_at +
				 msecs_to_jiffies(L7_SYNC_HELLO_MIN_MS)))
		return;
	l7_sync_send_hello(s);
}

/*
 * Every second: a peer that starts, or lost our answer, learns our
 * challenge within one.
 */
static void l7_sync_hello_work(struct work_struct *work)
{
	struct l7_sync *s = container_of(to_delayed_work(work),
					 struct l7_sync, hello);

	l7_sync_send_hello(s);
	queue_delayed_work(s->wq, &s->hello,
			   msecs_to_jiffies(L7_SYNC_HELLO_MS));
}

/* ---- master ---- */

/*
 * Records from the queue into the datagram in s->tx_buf, as many as
 * fit: its record count, 0 when the queue is empty.  A record the writer
 * refuses on its own (out of range: a bug of its maker) is dropped and
 * counted.
 */
static u16 l7_sync_pack(struct l7_sync *s, struct l7_ckpt_writer *w)
{
	l7_ckpt_write_begin(w, s->tx_buf + L7_SYNC_HDR_LEN,
			    s->dgram_max - L7_SYNC_HDR_LEN - L7_SYNC_TAG_LEN);
	spin_lock_bh(&s->qlock);
	while (s->qlen) {
		if (!l7_ckpt_write_rec(w, &s->queue[s->qhead])) {
			if (w->count)
				break;	/* full: the next datagram */
			s->stats.dropped++;
		}
		s->qhead = (s->qhead + 1) % L7_SYNC_QUEUE;
		s->qlen--;
	}
	spin_unlock_bh(&s->qlock);
	return w->count;
}

static void l7_sync_send_work(struct work_struct *work)
{
	struct l7_sync *s = container_of(to_delayed_work(work),
					 struct l7_sync, send);
	struct l7_ckpt_writer w;
	u16 n;
	int err;

	while ((n = l7_sync_pack(s, &w))) {
		err = l7_sync_seal_send(s, n, l7_ckpt_write_end(&w));
		spin_lock_bh(&s->qlock);
		if (!err) {
			s->stats.sent++;
			s->stats.sent_records += n;
		} else {
			s->stats.dropped += n;
		}
		spin_unlock_bh(&s->qlock);
		cond_resched();
	}
}

/*
 * A record for the peer, its generation given here: queued for the next
 * datagram.  That generation, or 0 where no master runs.
 */
static u64 l7_sync_queue(struct net *net, struct l7_ckpt_rec *rec)
{
	struct l7_sync *s;
	u64 gen = 0;

	rcu_read_lock();
	s = rcu_dereference(l7_sync_net(net)->sync);
	if (!s || !l7_sync_sends(s))
		goto out;
	gen = atomic64_inc_return(&s->gen);
	rec->conn.gen = gen;
	spin_lock_bh(&s->qlock);
	if (s->qlen < L7_SYNC_QUEUE) {
		s->queue[(s->qhead + s->qlen) % L7_SYNC_QUEUE] = *rec;
		s->qlen++;
	} else {
		s->stats.dropped++;
	}
	spin_unlock_bh(&s->qlock);
	/* pending already: the records since join the same run */
	queue_delayed_work(s->wq, &s->send,
			   msecs_to_jiffies(L7_SYNC_BATCH_MS));
out:
	rcu_read_unlock();
	return gen;
}

u32 l7_sync_idle(struct net *net)
{
	struct l7_sync *s;
	u32 idle = 0;

	rcu_read_lock();
	s = rcu_dereference(l7_sync_net(net)->sync);
	if (s && l7_sync_sends(s))
		idle = s->idle;
	rcu_read_unlock();
	return idle;
}

/* ---- the master's records of its client connections ---- */

static void l7_sync_tuple(const struct l7_conn *c, struct l7_ckpt_tuple *t)
{
	unsigned int n = c->af == AF_INET ? 4 : 16;

	memset(t, 0, sizeof(*t));
	t->family = c->af == AF_INET ? 4 : 6;
	memcpy(t->caddr, &c->caddr, n);
	memcpy(t->vaddr, &c->vaddr, n);
	t->cport = ntohs(c->cport);
	t->vport = ntohs(c->vport);
}

/*
 * A boundary begins when the last byte of the last response has been
 * sent, not when the client has acknowledged it: a client answered just
 * before the director dies sends its next request to the other one,
 * whose record must already say where that request starts.  Its
 * request is whole and acknowledged, no other one is under way or held
 * (a pipelined head in ->head, a binding still sending), and the
 * client has not closed.  The bindings left wait only for the client's
 * ACK; the last one's response ends at or before d_snd_nxt once all of
 * it went out (l7_next_rsp_start(): a framed end may lie past what was
 * sent, when a segment was dropped and its server must send it again).
 */
bool l7_conn_at_boundary(const struct l7_conn *c)
{
	const struct l7_binding *last;

	if (c->state != L7C_HEAD || c->cur || c->head_len || c->c_fin ||
	    !c->requests || c->c_acked != c->c_rcv_nxt)
		return false;
	if (list_empty(&c->bindings))
		return c->d_snd_una == c->d_snd_nxt;
	last = list_last_entry(&c->bindings, struct l7_binding, node);
	return last->req_done && last->rsp_guard.done &&
	       last->map.rsp_range.closed &&
	       !l7_seq_after(last->map.rsp_range.end, c->d_snd_nxt);
}

/*
 * @c's side of TCP towards its client, as a record.  Its numbers are
 * those the connection will have once the client acknowledged all that
 * was sent: the backup, which cannot send any of it again, takes the
 * connection over only from a client that has all of it
 * (l7_ckpt_adopt() wants an ACK of snd_nxt when snd_una is).
 */
static void l7_conn_record(const struct l7_conn *c, struct l7_ckpt_conn *k)
{
	l7_sync_tuple(c, &k->t);
	k->rcv_nxt = c->c_rcv_nxt;
	k->rcv_wup = c->c_acked;
	k->rcv_edge = c->c_rcv_edge;
	k->snd_una = c->d_snd_nxt;
	k->snd_nxt = c->d_snd_nxt;
	k->snd_isn = c->d_snd_isn;
	k->snd_wl1 = c->c_wl1;
	k->max_window = c->c_max_win;
	k->win = c->c_win;
	k->mss = c->c_mss;
	k->c_wscale = c->c_wscale;
	k->d_wscale = c->d_wscale;
	k->sack = c->c_sack;
	k->requests = c->requests;
	k->ts = c->c_ts;
	if (c->c_ts) {
		s32 age = l7_conn_ts_now(c) - c->d_ts_last;

		k->ts_recent = c->c_tsval;
		k->ts_last = c->d_ts_last;
		k->ts_age = max(age, 0);
	}
}

static void l7_conn_record_queue(struct l7_conn *c, struct l7_ckpt_rec *rec)
{
	u64 gen = l7_sync_queue(c->net, rec);

	if (gen)
		c->ckpt_gen = gen;
}

void l7_conn_checkpoint(struct l7_conn *c)
{
	struct l7_ckpt_rec rec = { .kind = L7_CKPT_UPSERT };

	if (!l7_conn_at_boundary(c))
		return;
	l7_conn_record(c, &rec.conn);
	l7_conn_record_queue(c, &rec);
}

/*
 * A request of @c, which has no record, under way for sync_idle: the
 * backup learns of the connection, never to adopt it (conn_ckpt.h), so
 * that a takeover's probe finds its client and resets it at once instead
 * of leaving it to wait for a response that will not come.
 */
void l7_conn_checkpoint_busy(struct l7_conn *c)
{
	struct l7_ckpt_rec rec = { .kind = L7_CKPT_UPSERT };

	if (c->ckpt_gen)
		return;
	l7_conn_record(c, &rec.conn);
	rec.conn.busy = true;
	l7_conn_record_queue(c, &rec);
}

void l7_conn_restore(struct l7_conn *c, const struct l7_ckpt_slot *rec)
{
	const struct l7_ckpt_conn *k = &rec->conn;

	c->c_rcv_nxt = k->rcv_nxt;
	c->c_acked = k->rcv_wup;
	c->c_seq0 = c->c_rcv_nxt;
	c->c_rcv_edge = k->rcv_edge;
	c->d_snd_una = k->snd_una;
	c->d_snd_nxt = k->snd_nxt;
	c->d_snd_isn = k->snd_isn;
	c->c_wl1 = k->snd_wl1;
	c->c_max_win = k->max_window;
	c->c_win = k->win;
	/* the store took none below it: l7_forward() divides by c_mss - 12 */
	c->c_mss = max_t(u16, k->mss, L7_CKPT_MIN_MSS);
	c->c_wscale = k->c_wscale;
	c->d_wscale = k->d_wscale;
	c->c_ts = k->ts;
	c->c_sack = k->sack;
	c->c_tsval = k->ts_recent;
	c->d_ts_last = k->ts_last;
	if (c->c_ts)
		l7_conn_ts_continue(c, rec->ts_off);
	c->requests = k->requests;
}

void l7_conn_sync_end(struct l7_conn *c)
{
	struct l7_ckpt_rec rec = { .kind = L7_CKPT_DELETE };

	if (!c->ckpt_gen)
		return;		/* the backup has no record of it */
	l7_sync_tuple(c, &rec.conn.t);
	l7_sync_queue(c->net, &rec);
	c->ckpt_gen = 0;
}

/* ---- backup ---- */

/*
 * Past the generation of a record taken over: the records this director
 * writes of that connection from now on are newer than the peer's.
 */
static void l7_sync_gen_raise(struct l7_sync *s, u64 gen)
{
	s64 cur = atomic64_read(&s->gen);

	while ((u64)cur < gen && !atomic64_try_cmpxchg(&s->gen, &cur, gen))
		;
}

/* @s keeps the peer's records and holds one at least: read, no lock */
static bool l7_sync_holds(const struct l7_sync *s)
{
	return s && l7_sync_keeps(s) && READ_ONCE(s->store.recs.count);
}

bool l7_sync_has_records(struct net *net)
{
	bool holds;

	rcu_read_lock();
	holds = l7_sync_holds(rcu_dereference(l7_sync_net(net)->sync));
	rcu_read_unlock();
	return holds;
}

enum l7_ckpt_verdict l7_sync_adopt(struct net *net,
				   const struct l7_ckpt_seg *g,
				   struct l7_ckpt_slot *out)
{
	enum l7_ckpt_verdict v = L7_CKPT_NONE;
	struct l7_sync *s;

	rcu_read_lock();
	s = rcu_dereference(l7_sync_net(net)->sync);
	/* a handshake's last ACK, with no record held: no lock taken */
	if (!l7_sync_holds(s))
		goto out;
	/*
	 * Nor for a tuple whose bucket is empty, as nearly every one is
	 * while a few records wait after a takeover: a record stored at
	 * this very moment is missed by this segment, as it would be had
	 * the segment come a moment earlier.
	 */
	if (READ_ONCE(s->buckets[l7_ckpt_bucket(&s->store, &g->t)]) ==
	    L7_CKPT_NIL)
		goto out;
	spin_lock_bh(&s->slock);
	v = l7_ckpt_adopt(&s->store, g, l7_sync_now_ms(), out);
	spin_unlock_bh(&s->slock);
	if (v == L7_CKPT_ADOPT)
		l7_sync_gen_raise(s, out->conn.gen);
out:
	rcu_read_unlock();
	return v;
}

static void l7_sync_count(struct l7_sync *s, u64 *counter)
{
	spin_lock_bh(&s->slock);
	(*counter)++;
	spin_unlock_bh(&s->slock);
}

/*
 * The peer sent a record of a connection this director still has, newer
 * than any it had of ours: the client's segments went to the peer, which
 * took it over (a failover this director did not notice, as when VRRP
 * alone moved the VIP).  Our copy's numbers are behind the client's now,
 * and were the VIP to come back it would answer with them: it ends,
 * without a word to the client, nor a DELETE to the peer that holds the
 * connection.  A record not newer than our own last one of it is an old
 * one of ours the peer still had, never a takeover.
 */
static void l7_sync_displace(struct l7_sync *s, const struct l7_ckpt_conn *k)
{
	union nf_inet_addr caddr, vaddr;
	u16 af = l7_ckpt_tuple_addrs(&k->t, &caddr, &vaddr);
	struct l7_conn *c;
	bool ended = false;

	rcu_read_lock();
	c = l7_conn_lookup(s->net, af, &caddr, htons(k->t.cport), &vaddr,
			   htons(k->t.vport));
	if (c) {
		spin_lock_bh(&c->lock);
		if (!c->dead && l7_conn_at_boundary(c) && k->gen > c->ckpt_gen) {
			c->ckpt_gen = 0;
			l7_conn_end(c, L7_END_FLUSHED, "taken over by the peer");
			ended = true;
		}
		spin_unlock_bh(&c->lock);
	}
	rcu_read_unlock();
	if (ended)
		l7_sync_count(s, &s->stats.displaced);
}

/* @len bytes of @count records of an authentic datagram: applied whole. */
static void l7_sync_apply(struct l7_sync *s, const u8 *recs, size_t len,
			  u16 count)
{
	struct l7_ckpt_reader r;
	struct l7_ckpt_rec rec;
	u32 now = l7_sync_now_ms();

	if (l7_ckpt_read_begin(&r, recs, len, count)) {
		l7_sync_count(s, &s->stats.malformed);
		return;
	}
	l7_sync_count(s, &s->stats.received);
	if (!l7_sync_keeps(s))
		return;		/* a master keeps none of the peer's */
	while (l7_ckpt_read_next(&r, &rec)) {
		enum l7_ckpt_applied a;

		spin_lock_bh(&s->slock);
		a = l7_ckpt_apply(&s->store, &rec, now);
		spin_unlock_bh(&s->slock);
		if (a == L7_CKPT_STORED && l7_sync_sends(s))
			l7_sync_displace(s, &rec.conn);
	}
}

/* a random id or challenge: never 0, which means none */
static u64 l7_sync_random(void)
{
	return get_random_u64() | 1;
}

/*
 * The key to open @h's datagram with: the accepted sender's, or one
 * derived now for another (a new start of the peer, or a forgery); NULL
 * if none can be had.
 */
static struct l7_seal *l7_sync_rx_key(struct l7_sync *s,
				      const struct l7_sync_hdr *h)
{
	if (s->rx.sender == h->sender)
		return &s->rx;
	if (s->rx_new.sender != h->sender &&
	    l7_seal_key(&s->rx_new, s->kdf, s->cfg.sync_id, h->sender))
		return NULL;
	return &s->rx_new;
}

/*
 * One datagram of @len bytes in s->rx_buf, from the peer's address:
 * checked, in the order of what each check costs, then opened and
 * applied whole.
 */
static void l7_sync_take(struct l7_sync *s, size_t len)
{
	u8 *buf = s->rx_buf;
	enum l7_sync_verdict v;
	struct l7_sync_hdr h;
	struct l7_seal *key;

	if (l7_sync_hdr_get(buf, len, L7_CKPT_REC_MIN, L7_CKPT_REC_MAX, &h)) {
		l7_sync_count(s, &s->stats.malformed);
		return;
	}
	if (h.sync_id != s->cfg.sync_id) {
		l7_sync_count(s, &s->stats.bad_sync_id);
		return;
	}
	v = l7_sync_peer_precheck(&s->peer, &h);
	if (v == L7_SYNC_TAKE) {
		key = l7_sync_rx_key(s, &h);
		if (!key || l7_unseal(key, buf, len, h.seq)) {
			l7_sync_count(s, &s->stats.bad_hmac);
			return;
		}
		v = l7_sync_peer_accept(&s->peer, &h);
	}
	switch (v) {
	case L7_SYNC_NEW_PEER:
		/* rx_new is keyed for it: the accepted sender's key now */
		swap(s->rx, s->rx_new);
		/* no datagram of an earlier start can echo the next one */
		l7_sync_peer_rechallenge(&s->peer, l7_sync_random());
		l7_sync_count(s, &s->stats.peers);
		/* it takes ours once we echo its challenge: at once */
		l7_sync_send_hello(s);
		break;
	case L7_SYNC_TAKE:
		break;
	case L7_SYNC_UNKNOWN:
		l7_sync_count(s, &s->stats.unknown_peer);
		l7_sync_answer_hello(s);
		return;
	case L7_SYNC_REFLECTED:
		l7_sync_count(s, &s->stats.reflected);
		return;
	default:
		l7_sync_count(s, &s->stats.replayed);
		return;
	}
	/* what the peer holds of ours: our records go on past it */
	if (h.newest < L7_CKPT_GEN_MAX)
		l7_sync_gen_raise(s, h.newest);
	l7_sync_apply(s, buf + L7_SYNC_HDR_LEN,
		      len - L7_SYNC_HDR_LEN - L7_SYNC_TAG_LEN, h.count);
}

/* whether @from is the peer's address and the channel's port */
static bool l7_sync_from_peer(const struct l7_sync *s,
			      const struct sockaddr_storage *from)
{
	if (s->cfg.af == AF_INET) {
		const struct sockaddr_in *sin = (const void *)from;

		return sin->sin_family == AF_INET &&
		       sin->sin_port == s->cfg.port &&
		       sin->sin_addr.s_addr == s->cfg.peer.ip;
	} else {
		const struct sockaddr_in6 *sin6 = (const void *)from;

		return sin6->sin6_family == AF_INET6 &&
		       sin6->sin6_port == s->cfg.port &&
		       ipv6_addr_equal(&sin6->sin6_addr, &s->cfg.peer.in6);
	}
}

static void l7_sync_recv_work(struct work_struct *work)
{
	struct l7_sync *s = container_of(work, struct l7_sync, recv);
	/* one byte more than we send: a longer datagram is not the peer's */
	struct kvec iov = { .iov_base = s->rx_buf,
			    .iov_len = s->dgram_max + 1 };
	struct sockaddr_storage from;
	struct msghdr msg;
	int i, len;

	for (i = 0; i < L7_SYNC_RECV_BATCH; i++) {
		msg = (struct msghdr){ .msg_name = &from,
				       .msg_namelen = sizeof(from) };
		len = kernel_recvmsg(s->sock, &msg, &iov, 1, iov.iov_len,
				     MSG_DONTWAIT);
		if (len < 0)
			return;		/* -EAGAIN: none left */
		if (!l7_sync_from_peer(s, &from))
			l7_sync_count(s, &s->stats.bad_source);
		else if (len > s->dgram_max)
			l7_sync_count(s, &s->stats.malformed);
		else
			l7_sync_take(s, len);
	}
	/* more may wait: what else is queued on the channel runs first */
	queue_work(s->wq, &s->recv);
}

/* softirq, under the socket's lock: the reading is the worker's */
static void l7_sync_data_ready(struct sock *sk)
{
	struct l7_sync *s;

	read_lock_bh(&sk->sk_callback_lock);
	s = sk->sk_user_data;
	if (s)
		queue_work(s->wq, &s->recv);
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Whether @t's client is one to probe: its VIP:port is an l7 service's
 * and an address of this director now.  A record names any addresses its
 * writer chose; the probe goes only where this director serves.
 */
static bool l7_sync_probe_wanted(struct net *net,
				 const struct l7_ckpt_tuple *t)
{
	union nf_inet_addr caddr, vaddr;
	u16 af = l7_ckpt_tuple_addrs(t, &caddr, &vaddr);
	bool served;

	rcu_read_lock();
	served = l7_service_lookup(net, af, &vaddr, htons(t->vport));
	rcu_read_unlock();
	return served && l7_addr_local(net, af, &vaddr);
}

/*
 * One pass of the takeover's probe over the store, @expire for the last:
 * a probe to each client whose record is on a VIP:port served here, or,
 * on the last pass, each record probed L7_CKPT_PROBES times dropped.
 */
static void l7_sync_probe_pass(struct l7_sync *s, bool expire)
{
	struct l7_ckpt_slot *batch = s->probe_batch;
	u32 cursor = 0, n, k, done;

	while (cursor < l7_ckpt_slots(&s->store)) {
		/* the lock held over a few slots at a time, however many */
		spin_lock_bh(&s->slock);
		n = l7_ckpt_walk(&s->store, &cursor, L7_SYNC_PROBE_SCAN, batch,
				 s->probe_idx, L7_SYNC_PROBE_BATCH);
		spin_unlock_bh(&s->slock);
		for (k = 0, done = 0; k < n; k++) {
			const struct l7_ckpt_conn *c = &batch[k].conn;

			if (!expire) {
				if (!l7_sync_probe_wanted(s->net, &c->t))
					continue;
				/* as every other segment of ours: from softirq */
				local_bh_disable();
				l7_send_probe(s->net, c, batch[k].ts_off);
				local_bh_enable();
			}
			/* the slot's record may have changed: checked there */
			spin_lock_bh(&s->slock);
			if (expire)
				l7_ckpt_expire(&s->store, s->probe_idx[k], c);
			else
				l7_ckpt_probe_mark(&s->store, s->probe_idx[k],
						   c, l7_sync_now_ms());
			spin_unlock_bh(&s->slock);
			done += !expire;
		}
		spin_lock_bh(&s->slock);
		s->stats.probed += done;
		spin_unlock_bh(&s->slock);
		cond_resched();
	}
}

/*
 * An address came up here, as keepalived adds the VIP when this director
 * becomes master: every client of the peer's that the records say is
 * idle on a VIP of ours now gets a probe (l7_send_probe()).  One between
 * two requests answers and is taken over at once; one whose request or
 * response the peer had under way answers with numbers past the record
 * and is reset - without the probe it would wait for an answer that
 * never comes, until its own timeout.  A second pass later, then records
 * no client claimed are dropped.
 */
static void l7_sync_probe_work(struct work_struct *work)
{
	struct l7_sync *s = container_of(to_delayed_work(work), struct l7_sync,
					 probe);
	int pass = atomic_read(&s->probe_pass);
	unsigned int next_ms;

	if (!pass)
		return;
	l7_sync_probe_pass(s, pass > L7_CKPT_PROBES);
	next_ms = pass < L7_CKPT_PROBES ? L7_SYNC_PROBE_AGAIN_MS :
					   L7_SYNC_PROBE_EXPIRE_MS;
	/* an address that came up meanwhile started the passes over */
	if (atomic_cmpxchg(&s->probe_pass, pass,
			   pass > L7_CKPT_PROBES ? 0 : pass + 1) == pass &&
	    pass <= L7_CKPT_PROBES)
		queue_delayed_work(s->wq, &s->probe, msecs_to_jiffies(next_ms));
}

/* An address of @net came up: probe if there are records to. */
static void l7_sync_addr_up(struct net *net)
{
	struct l7_sync *s;

	rcu_read_lock();
	s = rcu_dereference(l7_sync_net(net)->sync);
	if (s && l7_sync_keeps(s) && READ_ONCE(s->store.recs.count)) {
		atomic_set(&s->probe_pass, 1);
		mod_delayed_work(s->wq, &s->probe,
				 msecs_to_jiffies(L7_SYNC_PROBE_FIRST_MS));
	}
	rcu_read_unlock();
}

static int l7_sync_inetaddr_event(struct notifier_block *nb,
				  unsigned long event, void *ptr)
{
	const struct in_ifaddr *ifa = ptr;

	if (event == NETDEV_UP)
		l7_sync_addr_up(dev_net(ifa->ifa_dev->dev));
	return NOTIFY_DONE;
}

/* atomic context for IPv6: the work item does the rest */
static int l7_sync_inet6addr_event(struct notifier_block *nb,
				   unsigned long event, void *ptr)
{
	const struct inet6_ifaddr *ifa = ptr;

	if (event == NETDEV_UP)
		l7_sync_addr_up(dev_net(ifa->idev->dev));
	return NOTIFY_DONE;
}

static struct notifier_block l7_sync_inetaddr_nb = {
	.notifier_call = l7_sync_inetaddr_event,
};

static struct notifier_block l7_sync_inet6addr_nb = {
	.notifier_call = l7_sync_inet6addr_event,
};

static int l7_sync_store_init(struct l7_sync *s)
{
	u32 cap = s->cfg.max_records;
	u32 nbuckets = roundup_pow_of_two(2 * cap);
	u64 key[2];

	s->slots = kvcalloc(2 * cap, sizeof(*s->slots), GFP_KERNEL);
	s->buckets = kvcalloc(nbuckets, sizeof(*s->buckets), GFP_KERNEL);
	if (!s->slots || !s->buckets)
		return -ENOMEM;
	/* SipHash's key: clients pick the tuples, not the chains */
	get_random_bytes(key, sizeof(key));
	if (l7_ckpt_store_init(&s->store, s->slots, cap, cap, s->buckets,
			       nbuckets, key))
		return -EINVAL;
	return 0;
}

/* ---- start and stop ---- */

static int l7_sync_bind(struct l7_sync *s, int ifindex)
{
	struct sockaddr_storage ss = {};
	struct sock *sk = s->sock->sk;
	int len, err;

	err = sock_bindtoindex(sk, ifindex, true);
	if (err)
		return err;
	if (s->cfg.af == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		sin->sin_port = s->cfg.port;
		len = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		ip6_sock_set_v6only(sk);
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = s->cfg.port;
		len = sizeof(*sin6);
	}
	return kernel_bind(s->sock, (struct sockaddr *)&ss, len);
}

/* The interface's index and, from its MTU, the datagrams' size. */
static int l7_sync_dev(struct l7_sync *s, int *ifindex,
		       struct netlink_ext_ack *extack)
{
	u32 hdrs = (s->cfg.af == AF_INET ? sizeof(struct iphdr) :
		    sizeof(struct ipv6hdr)) + sizeof(struct udphdr);
	struct net_device *dev;
	u32 mtu;

	dev = dev_get_by_name(s->net, s->cfg.ifname);
	if (!dev) {
		NL_SET_ERR_MSG(extack, "no such interface");
		return -ENODEV;
	}
	*ifindex = dev->ifindex;
	mtu = READ_ONCE(dev->mtu);
	dev_put(dev);
	if (mtu < hdrs + L7_SYNC_HDR_LEN + L7_CKPT_REC_MAX + L7_SYNC_TAG_LEN) {
		NL_SET_ERR_MSG(extack, "the interface's MTU is too small");
		return -EINVAL;
	}
	s->dgram_max = min_t(u32, mtu - hdrs, L7_SYNC_UDP_MAX);
	return 0;
}

static int l7_sync_open(struct l7_sync *s, struct netlink_ext_ack *extack)
{
	int ifindex, err;

	err = l7_sync_dev(s, &ifindex, extack);
	if (err)
		return err;
	err = sock_create_kern(s->net, s->cfg.af, SOCK_DGRAM, IPPROTO_UDP,
			       &s->sock);
	if (err)
		return err;
	err = l7_sync_bind(s, ifindex);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot bind the port on the interface");
		return err;
	}
	sock_set_rcvbuf(s->sock->sk, L7_SYNC_RCVBUF);
	return 0;
}

/*
 * The shared key, kept only inside the key derivation's transform; our
 * own sender id, challenge and key; transforms for the peer's.
 */
static int l7_sync_keys(struct l7_sync *s, const u8 *key)
{
	int err;

	s->kdf = l7_seal_kdf_alloc(key, IPVS_L7_SYNC_KEY_LEN);
	if (IS_ERR(s->kdf)) {
		err = PTR_ERR(s->kdf);
		s->kdf = NULL;
		return err;
	}
	l7_sync_peer_init(&s->peer, l7_sync_random(), l7_sync_random());
	err = l7_seal_init(&s->tx);
	if (!err)
		err = l7_seal_init(&s->rx);
	if (!err)
		err = l7_seal_init(&s->rx_new);
	if (!err)
		err = l7_seal_key(&s->tx, s->kdf, s->cfg.sync_id, s->peer.self);
	return err;
}

static void l7_sync_free(struct l7_sync *s)
{
	if (s->wq)
		destroy_workqueue(s->wq);
	if (s->sock)
		sock_release(s->sock);
	l7_seal_free(&s->tx);
	l7_seal_free(&s->rx);
	l7_seal_free(&s->rx_new);
	l7_seal_kdf_free(s->kdf);
	kvfree(s->queue);
	kvfree(s->slots);
	kvfree(s->buckets);
	kvfree(s->probe_batch);
	kvfree(s->probe_idx);
	kfree(s->tx_buf);
	kfree(s->rx_buf);
	kfree_sensitive(s);
}

/* @s's settings, clocks, locks and works, from @cfg but for its key */
static void l7_sync_setup(struct l7_sync *s, struct net *net,
			  const struct l7_sync_cfg *cfg)
{
	s->cfg = *cfg;
	memzero_explicit(s->cfg.key, sizeof(s->cfg.key));
	s->net = net;
	s->idle = max(msecs_to_jiffies(cfg->idle_ms), 1UL);
	/*
	 * Generations go on from wall-clock ns: a restarted master's records
	 * are newer than its earlier ones, which a backup may still hold.
	 */
	atomic64_set(&s->gen, ktime_get_real_ns());
	spin_lock_init(&s->qlock);
	spin_lock_init(&s->slock);
	INIT_DELAYED_WORK(&s->send, l7_sync_send_work);
	INIT_WORK(&s->recv, l7_sync_recv_work);
	INIT_DELAYED_WORK(&s->probe, l7_sync_probe_work);
	INIT_DELAYED_WORK(&s->hello, l7_sync_hello_work);
}

/* The workqueue, the datagram buffers, and what @s's roles keep. */
static int l7_sync_alloc_bufs(struct l7_sync *s)
{
	int err;

	s->wq = alloc_ordered_workqueue("ip_vs_l7_sync", 0);
	/* kmalloc'ed: the AEAD reads and writes them through a scatterlist */
	s->tx_buf = kmalloc(s->dgram_max, GFP_KERNEL);
	s->rx_buf = kmalloc(s->dgram_max + 1, GFP_KERNEL);
	if (!s->wq || !s->tx_buf || !s->rx_buf)
		return -ENOMEM;
	if (l7_sync_sends(s)) {
		s->queue = kvcalloc(L7_SYNC_QUEUE, sizeof(*s->queue),
				    GFP_KERNEL);
		if (!s->queue)
			return -ENOMEM;
	}
	if (l7_sync_keeps(s)) {
		err = l7_sync_store_init(s);
		if (err)
			return err;
		s->probe_batch = kvcalloc(L7_SYNC_PROBE_BATCH,
					  sizeof(*s->probe_batch), GFP_KERNEL);
		s->probe_idx = kvcalloc(L7_SYNC_PROBE_BATCH,
					sizeof(*s->probe_idx), GFP_KERNEL);
		if (!s->probe_batch || !s->probe_idx)
			return -ENOMEM;
	}
	return 0;
}

static struct l7_sync *l7_sync_alloc(struct net *net,
				     const struct l7_sync_cfg *cfg,
				     struct netlink_ext_ack *extack)
{
	struct l7_sync *s;
	int err;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	l7_sync_setup(s, net, cfg);
	err = l7_sync_keys(s, cfg->key);
	if (err) {
		NL_SET_ERR_MSG(extack, "no hmac(sha256) or rfc7539(chacha20,poly1305) in the kernel's crypto API");
		goto fail;
	}
	err = l7_sync_open(s, extack);
	if (!err)
		err = l7_sync_alloc_bufs(s);
	if (err)
		goto fail;
	return s;

fail:
	l7_sync_free(s);
	return ERR_PTR(err);
}

/*
 * The socket wakes the receiver from now on, and a HELLO goes out: every
 * role hears the peer, whose challenge its records must echo.
 */
static void l7_sync_listen(struct l7_sync *s)
{
	struct sock *sk = s->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = s;
	sk->sk_data_ready = l7_sync_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	/* what came before the callback was set */
	queue_work(s->wq, &s->recv);
	queue_delayed_work(s->wq, &s->hello, 0);
}

int ip_vs_l7_sync_start(struct net *net, const struct l7_sync_cfg *cfg,
			struct netlink_ext_ack *extack)
{
	struct l7_sync_net *sn = l7_sync_net(net);
	struct l7_sync *s;
	int err = 0;

	mutex_lock(&l7_sync_mutex);
	if (rcu_access_pointer(sn->sync)) {
		NL_SET_ERR_MSG(extack, "the sync channel runs already: stop it first");
		err = -EEXIST;
		goto out;
	}
	s = l7_sync_alloc(net, cfg, extack);
	if (IS_ERR(s)) {
		err = PTR_ERR(s);
		goto out;
	}
	l7_sync_listen(s);
	rcu_assign_pointer(sn->sync, s);
out:
	mutex_unlock(&l7_sync_mutex);
	return err;
}
EXPORT_SYMBOL_GPL(ip_vs_l7_sync_start);

static int __l7_sync_stop(struct net *net)
{
	struct l7_sync_net *sn = l7_sync_net(net);
	struct l7_sync *s;
	struct sock *sk;

	s = rcu_dereference_protected(sn->sync,
				      lockdep_is_held(&l7_sync_mutex));
	if (!s)
		return -ENOENT;
	RCU_INIT_POINTER(sn->sync, NULL);
	synchronize_rcu();	/* no l7_sync_queue() sees it any more */

	sk = s->sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;	/* data_ready queues nothing now */
	write_unlock_bh(&sk->sk_callback_lock);
	cancel_work_sync(&s->recv);
	cancel_delayed_work_sync(&s->hello);
	cancel_delayed_work_sync(&s->probe);
	cancel_delayed_work_sync(&s->send);
	l7_sync_free(s);
	return 0;
}

int ip_vs_l7_sync_stop(struct net *net)
{
	int err;

	mutex_lock(&l7_sync_mutex);
	err = __l7_sync_stop(net);
	mutex_unlock(&l7_sync_mutex);
	return err;
}
EXPORT_SYMBOL_GPL(ip_vs_l7_sync_stop);

int ip_vs_l7_sync_get(struct net *net, struct l7_sync_cfg *cfg,
		      struct l7_sync_stats *st, u32 *dgram_max)
{
	struct l7_sync *s;
	int err = 0;

	mutex_lock(&l7_sync_mutex);
	s = rcu_dereference_protected(l7_sync_net(net)->sync,
				      lockdep_is_held(&l7_sync_mutex));
	if (!s) {
		err = -ENOENT;
		goto out;
	}
	*cfg = s->cfg;
	*dgram_max = s->dgram_max;
	spin_lock_bh(&s->qlock);
	*st = s->stats;
	spin_unlock_bh(&s->qlock);
	spin_lock_bh(&s->slock);
	st->received = s->stats.received;
	st->bad_hmac = s->stats.bad_hmac;
	st->bad_sync_id = s->stats.bad_sync_id;
	st->malformed = s->stats.malformed;
	st->stored = s->store.stats.stored;
	st->deleted = s->store.stats.deleted;
	st->stale = s->store.stats.stale;
	st->evicted = s->store.stats.evicted;
	st->records = s->store.recs.count;
	st->adopted = s->store.stats.adopted;
	st->waited = s->store.stats.waited;
	st->refused = s->store.stats.refused;
	st->blind = s->store.stats.blind;
	st->ahead = s->store.stats.ahead;
	st->expired = s->store.stats.expired;
	st->busy = s->store.stats.busy;
	st->displaced = s->stats.displaced;
	st->probed = s->stats.probed;
	st->replayed = s->stats.replayed;
	st->reflected = s->stats.reflected;
	st->unknown_peer = s->stats.unknown_peer;
	st->bad_source = s->stats.bad_source;
	st->peers = s->stats.peers;
	spin_unlock_bh(&s->slock);
out:
	mutex_unlock(&l7_sync_mutex);
	return err;
}
EXPORT_SYMBOL_GPL(ip_vs_l7_sync_get);

/* the namespace goes: its kernel socket must go before it */
static void __net_exit l7_sync_net_exit(struct net *net)
{
	ip_vs_l7_sync_stop(net);	/* -ENOENT: none ran there */
}

static struct pernet_operations l7_sync_net_ops = {
	.exit = l7_sync_net_exit,
	.id = &l7_sync_net_id,
	.size = sizeof(struct l7_sync_net),
};

int l7_sync_init(void)
{
	int err;

	err = register_pernet_subsys(&l7_sync_net_ops);
	if (err)
		return err;
	register_inetaddr_notifier(&l7_sync_inetaddr_nb);
	register_inet6addr_notifier(&l7_sync_inet6addr_nb);
	return 0;
}

void l7_sync_exit(void)
{
	unregister_inet6addr_notifier(&l7_sync_inet6addr_nb);
	unregister_inetaddr_notifier(&l7_sync_inetaddr_nb);
	unregister_pernet_subsys(&l7_sync_net_ops);
}
