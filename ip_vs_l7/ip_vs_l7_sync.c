// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the checkpoint channel's side that the data path calls
 * (ip_vs_l7_sync_chan.h): the master's records of its client connections
 * and their sending, and the backup's store as a client's segment reads
 * it.  It calls only what lies below the connections; the channel's
 * start, stop and receiver are ip_vs_l7_sync_ctl.c.
 *
 * Sender: a client connection idle at a request boundary for sync_idle
 * (its clock's SYNC deadline) makes a record, and one that ends after a
 * record a DELETE, into a bounded queue, from any context; a work item,
 * a few ms after the first, packs them into datagrams of up to the
 * interface's MTU and sends them.  A full queue drops the record and
 * counts it: a record not sent only makes the backup's copy stale, which
 * costs a reset after a failover, never wrong data.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/rcupdate.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/sock.h>

#include "ip_vs_l7.h"
#include "ip_vs_l7_sync_chan.h"

/* how long the first record waits for others to share its datagram */
#define L7_SYNC_BATCH_MS	10
unsigned int l7_sync_net_id __read_mostly;

/* ---- datagrams ---- */

static int l7_sync_sendto(struct l7_sync *s, const union nf_inet_addr *to,
			  size_t len)
{
	struct sockaddr_storage ss = {};
	struct msghdr msg = { .msg_name = &ss };
	struct kvec iov = { .iov_base = s->tx_buf, .iov_len = len };

	if (s->cfg.af == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		sin->sin_port = s->cfg.port;
		sin->sin_addr.s_addr = to->ip;
		msg.msg_namelen = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = s->cfg.port;
		sin6->sin6_addr = to->in6;
		msg.msg_namelen = sizeof(*sin6);
	}
	return kernel_sendmsg(s->sock, &msg, &iov, 1, len);
}

/*
 * To peer @r: @count records of @plain bytes (in s->plain) after a
 * header of its handshake's, sealed under the next sequence number and
 * sent: 0, or an error.  A sequence number is never used twice, even for
 * a datagram not sent, nor for two peers: it is the nonce under our key.
 */
static int l7_sync_seal_send(struct l7_sync *s, struct l7_sync_remote *r,
			     u16 count, size_t plain)
{
	struct l7_sync_hdr h = {
		.count = count,
		.sync_id = s->cfg.sync_id,
		.sender = r->peer.self,
		.seq = ++s->tx_seq,
		.challenge = r->peer.challenge,
		.echo = r->peer.echo,
		/* written by l7_ckpt_apply() only, on this same workqueue */
		.newest = s->store.newest,
	};
	const union nf_inet_addr *to = &s->cfg.peers[r - s->remote];
	size_t len = L7_SYNC_HDR_LEN + plain + L7_SYNC_TAG_LEN;
	u8 dest[L7_SYNC_DEST_LEN];
	int err;

	l7_sync_hdr_put(s->tx_buf, &h);
	memcpy(s->tx_buf + L7_SYNC_HDR_LEN, s->plain, plain);
	/* sealed for that address: taken nowhere else */
	l7_sync_dest(dest, s->cfg.af == AF_INET, (const u8 *)to);
	err = l7_seal(&s->tx, s->tx_buf, plain, h.seq, dest);
	if (err)
		return err;
	err = l7_sync_sendto(s, to, len);
	return err == (int)len ? 0 : err < 0 ? err : -EIO;
}

/* A HELLO to @r: a datagram of no record, for its handshake. */
void l7_sync_send_hello(struct l7_sync *s, struct l7_sync_remote *r)
{
	int err;

	r->hello_at = jiffies;
	err = l7_sync_seal_send(s, r, 0, 0);
	spin_lock_bh(&s->qlock);
	if (!err)
		s->stats.sent++;
	spin_unlock_bh(&s->qlock);
}

/*
 * Every L7_SYNC_HELLO_MS, to every peer: a peer that starts, or lost our
 * answer, learns our challenge within that; and every peer hears from us
 * that often, sending or not (l7_sync_watch_work()).
 */
void l7_sync_hello_work(struct work_struct *work)
{
	struct l7_sync *s = container_of(to_delayed_work(work),
					 struct l7_sync, hello);
	u8 i;

	for (i = 0; i < s->cfg.npeers; i++)
		l7_sync_send_hello(s, &s->remote[i]);
	queue_delayed_work(s->wq, &s->hello,
			   msecs_to_jiffies(L7_SYNC_HELLO_MS));
}

/*
 * Side by side (sync_forward), every L7_LOAD_SHARE_MS to every peer: this
 * director's outstanding requests on each real server, as LOAD records
 * (ip_vs_l7_load.c), in as many datagrams as they take.  Not counted as
 * sent: they are no checkpoints, and go out whether any client is there.
 */
void l7_sync_load_work(struct work_struct *work)
{
	struct l7_sync *s = container_of(to_delayed_work(work),
					 struct l7_sync, load);
	struct l7_ckpt_writer w;
	u32 skip = 0, all;
	u8 i;

	while (READ_ONCE(l7_sync_forward)) {
		l7_ckpt_write_begin(&w, s->plain, s->dgram_max -
				    L7_SYNC_HDR_LEN - L7_SYNC_TAG_LEN);
		all = l7_load_write(s->net, &w, skip);
		if (!w.count)
			break;
		for (i = 0; i < s->cfg.npeers; i++)
			l7_sync_seal_send(s, &s->remote[i], w.count,
					  l7_ckpt_write_end(&w));
		skip += w.count;
		if (skip >= all)
			break;
	}
	queue_delayed_work(s->wq, &s->load,
			   msecs_to_jiffies(L7_LOAD_SHARE_MS));
}

/* ---- master ---- */

/*
 * Records from the queue into s->plain, as many as fit in a datagram:
 * their count, 0 when the queue is empty.  A record the writer
 * refuses on its own (out of range: a bug of its maker) is dropped and
 * counted.
 */
static u16 l7_sync_pack(struct l7_sync *s, struct l7_ckpt_writer *w)
{
	l7_ckpt_write_begin(w, s->plain,
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

void l7_sync_send_work(struct work_struct *work)
{
	struct l7_sync *s = container_of(to_delayed_work(work),
					 struct l7_sync, send);
	struct l7_ckpt_writer w;
	u8 i, sent;
	u16 n;

	while ((n = l7_sync_pack(s, &w))) {
		for (i = 0, sent = 0; i < s->cfg.npeers; i++)
			sent += !l7_sync_seal_send(s, &s->remote[i], n,
						   l7_ckpt_write_end(&w));
		/* datagrams per peer; records once, dropped if none went */
		spin_lock_bh(&s->qlock);
		s->stats.sent += sent;
		if (sent)
			s->stats.sent_records += n;
		else
			s->stats.dropped += n;
		spin_unlock_bh(&s->qlock);
		cond_resched();
	}
}

/*
 * A record for the peers, under generation @again (the resend of a
 * boundary's record) or one given here: queued for the next datagram.
 * That generation, or 0 where no master runs.
 */
static u64 l7_sync_queue(struct net *net, struct l7_ckpt_rec *rec,
			 u64 again)
{
	struct l7_sync *s;
	u64 gen = 0;

	rcu_read_lock();
	s = rcu_dereference(l7_sync_net(net)->sync);
	if (!s || !l7_sync_sends(s))
		goto out;
	gen = again ?: atomic64_inc_return(&s->gen);
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
	memset(t, 0, sizeof(*t));
	l7_addr_put(t->caddr, c->af, &c->caddr);
	t->family = l7_addr_put(t->vaddr, c->af, &c->vaddr);
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

static void l7_conn_record_queue(struct l7_conn *c, struct l7_ckpt_rec *rec,
				 u64 again)
{
	u64 gen = l7_sync_queue(c->net, rec, again);

	if (gen) {
		c->ckpt_gen = gen;
		c->ckpt_rcv_nxt = rec->conn.rcv_nxt;
		c->ckpt_snd_nxt = rec->conn.snd_nxt;
	}
}

/* @c's record, if at a boundary; @again: a resend (below) */
static void l7_conn_checkpoint_as(struct l7_conn *c, bool again)
{
	struct l7_ckpt_rec rec = { .kind = L7_CKPT_UPSERT };
	bool same;

	if (!l7_conn_at_boundary(c))
		return;
	l7_conn_record(c, &rec.conn);
	same = again && c->ckpt_gen && rec.conn.rcv_nxt == c->ckpt_rcv_nxt &&
	       rec.conn.snd_nxt == c->ckpt_snd_nxt;
	l7_conn_record_queue(c, &rec, same ? c->ckpt_gen : 0);
}

void l7_conn_checkpoint(struct l7_conn *c)
{
	l7_conn_checkpoint_as(c, false);
}

/*
 * SYNC: the boundary's record again, with what the client's ACK brought
 * since (its window, its timestamp), or in case the first was lost -
 * under the generation the first went with, if it is of the same
 * boundary.  It says nothing newer: a peer that adopted the connection
 * from the first in between must not be displaced by it, and its own
 * record, newer than the first, must displace this copy.
 */
void l7_conn_checkpoint_again(struct l7_conn *c)
{
	l7_conn_checkpoint_as(c, true);
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
	l7_conn_record_queue(c, &rec, 0);
}

/*
 * Side by side, a new connection's busy record at once: until its first
 * boundary's record it has no other, and a flow the routers move in
 * that time - a head that came in two segments, a first request under
 * way for less than sync_idle, a client that connected and has not yet
 * asked - would reach a director that knows nothing of it, which resets
 * any segment its cookie check does not take.  With the record, that
 * director forwards them here while we live (l7_ckpt_claim()).  A pair
 * does without it: its backup takes over only from a master gone.
 */
void l7_conn_checkpoint_new(struct l7_conn *c)
{
	if (READ_ONCE(l7_sync_forward))
		l7_conn_checkpoint_busy(c);
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
	/*
	 * Only a record newer than the one it was adopted from displaces
	 * it (l7_sync_displace()): the receiver may take that very record
	 * on to its displacement check just after the adoption.
	 */
	c->ckpt_gen = k->gen;
}

void l7_conn_sync_end(struct l7_conn *c)
{
	struct l7_ckpt_rec rec = { .kind = L7_CKPT_DELETE };

	if (!c->ckpt_gen)
		return;		/* the backup has no record of it */
	l7_sync_tuple(c, &rec.conn.t);
	l7_sync_queue(c->net, &rec, 0);
	c->ckpt_gen = 0;
}

/* ---- the backup's store, as a client's segment reads it ---- */

/*
 * Past the generation of a record taken over: the records this director
 * writes of that connection from now on are newer than the peer's.
 */
void l7_sync_gen_raise(struct l7_sync *s, u64 gen)
{
	s64 cur = atomic64_read(&s->gen);

	while ((u64)cur < gen && !atomic64_try_cmpxchg(&s->gen, &cur, gen))
		;
}

/* @s keeps its peers' records and holds one at least: read, no lock */
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

/*
 * Under s->slock: the peers a segment of a record of theirs is forwarded
 * to, directors side by side (sync_forward) - those heard and not lost,
 * over an IPv4 channel (the tunnel's outer header) - but while an
 * address's takeover probes their records: the VIP came here, and the
 * director that had it no longer answers its clients.  A pair leaves
 * sync_forward off: its backup takes the VIP from a master that may well
 * live on (VRRP moved the VIP for a failed check or a front link down),
 * whose clients in the middle of a response it resets at once.
 */
static u32 l7_sync_forward_to(const struct l7_sync *s)
{
	u32 taking = s->probe_pass ? s->probe_owners & ~s->probe_lost : 0;

	if (!READ_ONCE(l7_sync_forward) || s->cfg.af != AF_INET)
		return 0;
	return READ_ONCE(s->live) & ~taking;
}

enum l7_ckpt_verdict l7_sync_adopt(struct net *net,
				   const struct l7_ckpt_seg *g,
				   struct l7_ckpt_slot *out,
				   union nf_inet_addr *owner)
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
	v = l7_ckpt_claim(&s->store, g, l7_sync_now_ms(),
			  l7_sync_forward_to(s), out);
	spin_unlock_bh(&s->slock);
	if (v == L7_CKPT_ADOPT)
		l7_sync_gen_raise(s, out->conn.gen);
	if (v == L7_CKPT_FORWARD)
		*owner = s->cfg.peers[out->owner];
out:
	rcu_read_unlock();
	return v;
}

/* @s's interface is @dev (either may be NULL) */
static bool l7_sync_on(const struct l7_sync *s, const struct net_device *dev)
{
	return s && dev && !strncmp(dev->name, s->cfg.ifname, IFNAMSIZ);
}

bool l7_sync_link_dev(struct net *net, const struct net_device *dev)
{
	bool on;

	rcu_read_lock();
	on = l7_sync_on(rcu_dereference(l7_sync_net(net)->sync), dev);
	rcu_read_unlock();
	return on;
}

bool l7_sync_tunnel_from_peer(struct net *net, const struct net_device *dev,
			      __be32 saddr)
{
	struct l7_sync *s;
	bool peer = false;
	u8 i;

	rcu_read_lock();
	s = rcu_dereference(l7_sync_net(net)->sync);
	if (l7_sync_on(s, dev) && s->cfg.af == AF_INET) {
		for (i = 0; i < s->cfg.npeers && !peer; i++)
			peer = s->cfg.peers[i].ip == saddr;
	}
	if (peer) {
		spin_lock_bh(&s->slock);
		s->stats.forwarded_in++;
		spin_unlock_bh(&s->slock);
	}
	rcu_read_unlock();
	return peer;
}
