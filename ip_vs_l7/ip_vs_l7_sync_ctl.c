// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the checkpoint channel's life and its receiver
 * (ip_vs_l7_sync_chan.h), above the connections: a record of the peer's
 * may end one of them (l7_sync_displace()).
 *
 * Receiver: the socket's data_ready queues a work item that reads the
 * datagrams waiting, checks each before any cryptography is spent on it,
 * opens it and applies it to the store.  When an address comes up (the
 * VIP moving here), the probe sends to the clients of the store's records.
 *
 * Start and stop run under l7_sync_mutex, in process context (the
 * family's handlers, the namespace's exit); the channel is published
 * with RCU for l7_sync_queue() and the other readers in ip_vs_l7_sync.c.
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
#include <net/ip.h>
#include <net/if_inet6.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "ip_vs_l7.h"
#include "ip_vs_l7_sync_chan.h"

/* datagrams read in one run of the receiver, before it yields */
#define L7_SYNC_RECV_BATCH	64
/* the receive buffer: a flood is dropped there, not queued for work */
#define L7_SYNC_RCVBUF		(256 * 1024)
/* a HELLO at most this often in answer to a sender */
#define L7_SYNC_HELLO_MIN_MS	100
/* slots of the store looked at in one hold of its lock by the probe */
#define L7_SYNC_PROBE_SCAN	256
/* records copied out of the store at a time by the takeover's probe */
#define L7_SYNC_PROBE_BATCH	64
/*
 * The probe runs this long after an address came up (at once for a peer
 * lost): the clients answer to the VIP's MAC as their ARP caches have
 * it, which keepalived's gratuitous ARPs change only after it added the
 * address.  It runs again later, when a client with bytes in flight to
 * the dead director, whose first answer was waited out (l7_ckpt_past()),
 * has had time to send them again: one that answers past its record a
 * second time had them acknowledged, waits for a response that will not
 * come, and is reset.
 */
#define L7_SYNC_PROBE_FIRST_MS	300
#define L7_SYNC_PROBE_AGAIN_MS	8000
/*
 * The first pass is sent again this many times, this far apart: an
 * answer goes where the routers send the client's flow, which may still
 * be the dead director for a while (ARP caches, a route withdrawn once
 * BFD or a hold timer ends) - each repeat is another chance to reset a
 * client in the middle of a response at once.  All inside
 * L7_CKPT_PAST_GAP_MS of the first answer, so a client with request
 * bytes in flight is waited out, not refused, by them.
 */
#define L7_SYNC_PROBE_EARLY	12
#define L7_SYNC_PROBE_EARLY_MS	250
/*
 * And once more, this long after the last probe: a record whose client
 * answered neither probe has no client (gone, or reset meanwhile), and is
 * dropped (l7_ckpt_expire()).
 */
#define L7_SYNC_PROBE_EXPIRE_MS	3000
/* the watch looks this often for peers silent L7_SYNC_PEER_LOST_MS */
#define L7_SYNC_WATCH_MS	100
/* the largest UDP payload */
#define L7_SYNC_UDP_MAX		65507

static DEFINE_MUTEX(l7_sync_mutex);

static void l7_sync_probe_found(struct l7_sync *s, u8 peer);

/* ---- the receiver ---- */

/*
 * To a sender at @r's address that does not know our challenge yet; as
 * often as a forgery of one of its datagrams can make us, so at a
 * bounded rate.
 */
static void l7_sync_answer_hello(struct l7_sync *s, struct l7_sync_remote *r)
{
	if (time_before(jiffies, r->hello_at +
				 msecs_to_jiffies(L7_SYNC_HELLO_MIN_MS)))
		return;
	l7_sync_send_hello(s, r);
}

static void l7_sync_count(struct l7_sync *s, u64 *counter)
{
	spin_lock_bh(&s->slock);
	(*counter)++;
	spin_unlock_bh(&s->slock);
}

/*
 * The peer sent a record of a connection this director still has: if it
 * displaces our copy (l7_ckpt_displaces()), the copy ends - no RST, no
 * DELETE to the peer that holds the connection now.
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
		if (l7_ckpt_displaces(k, c->ckpt_gen, l7_conn_at_boundary(c),
				      c->dead || c->dead_reason)) {
			c->ckpt_gen = 0;
			c->handed_over = true;
			l7_conn_end(c, L7_END_FLUSHED, "taken over by the peer");
			ended = true;
		}
		spin_unlock_bh(&c->lock);
	}
	rcu_read_unlock();
	if (ended)
		l7_sync_count(s, &s->stats.displaced);
}

/*
 * @len bytes of @count records of an authentic datagram from peer @from:
 * applied whole, each kept as that peer's (the director that holds it).
 */
static void l7_sync_apply(struct l7_sync *s, const u8 *recs, size_t len,
			  u16 count, u8 from)
{
	struct l7_ckpt_reader r;
	struct l7_ckpt_rec rec;
	u32 now = l7_sync_now_ms();

	if (l7_ckpt_read_begin(&r, recs, len, count)) {
		l7_sync_count(s, &s->stats.malformed);
		return;
	}
	l7_sync_count(s, &s->stats.received);
	while (l7_ckpt_read_next(&r, &rec)) {
		enum l7_ckpt_applied a;

		if (rec.kind == L7_CKPT_LOAD) {
			l7_load_apply(s->net, &rec.load, from);
			continue;
		}
		if (!l7_sync_keeps(s))
			continue;	/* a master keeps none of the peer's */
		rec.from = from;
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
 * The key to open @h's datagram from @r's address with: the sender's
 * accepted there, or one derived now for another (a new start of that
 * peer, or a forgery); NULL if none can be had.
 */
static struct l7_seal *l7_sync_rx_key(struct l7_sync *s,
				      struct l7_sync_remote *r,
				      const struct l7_sync_hdr *h)
{
	if (r->rx.sender == h->sender)
		return &r->rx;
	if (s->rx_new.sender != h->sender &&
	    l7_seal_key(&s->rx_new, s->kdf, s->cfg.sync_id, h->sender))
		return NULL;
	return &s->rx_new;
}

/*
 * One datagram of @len bytes in s->rx_buf, from the address of peer @r,
 * which came in to @dest (L7_SYNC_DEST_LEN bytes): checked, in the order
 * of what each check costs, then opened and applied whole.
 */
static void l7_sync_take(struct l7_sync *s, struct l7_sync_remote *r,
			 size_t len, const u8 *dest)
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
	v = l7_sync_peer_precheck(&r->peer, &h);
	if (v == L7_SYNC_TAKE) {
		key = l7_sync_rx_key(s, r, &h);
		if (!key || l7_unseal(key, buf, len, h.seq, dest)) {
			l7_sync_count(s, &s->stats.bad_hmac);
			return;
		}
		v = l7_sync_peer_accept(&r->peer, &h);
	}
	switch (v) {
	case L7_SYNC_NEW_PEER:
		/* rx_new is keyed for it: the accepted sender's key now */
		swap(r->rx, s->rx_new);
		/* no datagram of an earlier start can echo the next one */
		l7_sync_peer_rechallenge(&r->peer, l7_sync_random());
		l7_sync_count(s, &s->stats.peers);
		/* it takes ours once we echo its challenge: at once */
		l7_sync_send_hello(s, r);
		break;
	case L7_SYNC_TAKE:
		break;
	case L7_SYNC_UNKNOWN:
		l7_sync_count(s, &s->stats.unknown_peer);
		l7_sync_answer_hello(s, r);
		return;
	case L7_SYNC_REFLECTED:
		l7_sync_count(s, &s->stats.reflected);
		return;
	default:
		l7_sync_count(s, &s->stats.replayed);
		return;
	}
	/* the peer lives (l7_sync_watch_work()) */
	r->heard = jiffies;
	if (!(s->live & BIT(r - s->remote)))
		WRITE_ONCE(s->live, s->live | BIT(r - s->remote));
	if (r->lost) {
		r->lost = false;
		l7_sync_probe_found(s, r - s->remote);
	}
	/* what the peer holds of ours: our records go on past it */
	if (h.newest < L7_CKPT_GEN_MAX)
		l7_sync_gen_raise(s, h.newest);
	l7_sync_apply(s, buf + L7_SYNC_HDR_LEN,
		      len - L7_SYNC_HDR_LEN - L7_SYNC_TAG_LEN, h.count,
		      r - s->remote);
}

/* the peer whose address and the channel's port @from is; NULL if none */
static struct l7_sync_remote *l7_sync_from_peer(struct l7_sync *s,
					       const struct sockaddr_storage *from)
{
	const struct sockaddr_in6 *sin6 = (const void *)from;
	const struct sockaddr_in *sin = (const void *)from;
	u8 i;

	if (s->cfg.af == AF_INET ?
	    sin->sin_family != AF_INET || sin->sin_port != s->cfg.port :
	    sin6->sin6_family != AF_INET6 || sin6->sin6_port != s->cfg.port)
		return NULL;
	for (i = 0; i < s->cfg.npeers; i++) {
		if (s->cfg.af == AF_INET ?
		    sin->sin_addr.s_addr == s->cfg.peers[i].ip :
		    ipv6_addr_equal(&sin6->sin6_addr, &s->cfg.peers[i].in6))
			return &s->remote[i];
	}
	return NULL;
}

/*
 * The address a datagram came in to, from its IP_PKTINFO or IPV6_PKTINFO
 * (@ctl, @ctl_len bytes of control messages): into @dest as
 * l7_sync_dest() writes it; false if there is none.
 */
static bool l7_sync_dest_of(const struct l7_sync *s, void *ctl,
			    size_t ctl_len, u8 *dest)
{
	struct msghdr m = { .msg_control = ctl, .msg_controllen = ctl_len };
	bool v4 = s->cfg.af == AF_INET;
	int level = v4 ? SOL_IP : SOL_IPV6, type = v4 ? IP_PKTINFO : IPV6_PKTINFO;
	size_t len = v4 ? sizeof(struct in_pktinfo) : sizeof(struct in6_pktinfo);
	size_t at = v4 ? offsetof(struct in_pktinfo, ipi_addr) :
			 offsetof(struct in6_pktinfo, ipi6_addr);
	struct cmsghdr *cm;

	for_each_cmsghdr(cm, &m) {
		if (cm->cmsg_level == level && cm->cmsg_type == type &&
		    cm->cmsg_len >= CMSG_LEN(len)) {
			l7_sync_dest(dest, v4, (const u8 *)CMSG_DATA(cm) + at);
			return true;
		}
	}
	return false;
}

static void l7_sync_recv_work(struct work_struct *work)
{
	struct l7_sync *s = container_of(work, struct l7_sync, recv);
	/* one byte more than we send: a longer datagram is not the peer's */
	struct kvec iov = { .iov_base = s->rx_buf,
			    .iov_len = s->dgram_max + 1 };
	u8 ctl[CMSG_SPACE(sizeof(struct in6_pktinfo))] __aligned(8);
	u8 dest[L7_SYNC_DEST_LEN];
	struct l7_sync_remote *r;
	struct sockaddr_storage from;
	struct msghdr msg;
	int i, len;

	BUILD_BUG_ON(sizeof(struct in6_pktinfo) < sizeof(struct in_pktinfo));
	for (i = 0; i < L7_SYNC_RECV_BATCH; i++) {
		msg = (struct msghdr){ .msg_name = &from,
				       .msg_namelen = sizeof(from),
				       .msg_control = ctl,
				       .msg_controllen = sizeof(ctl) };
		len = kernel_recvmsg(s->sock, &msg, &iov, 1, iov.iov_len,
				     MSG_DONTWAIT);
		if (len < 0)
			return;		/* -EAGAIN: none left */
		r = l7_sync_from_peer(s, &from);
		/* put_cmsg() moved msg_control past what it wrote */
		if (!r)
			l7_sync_count(s, &s->stats.bad_source);
		else if (len > s->dgram_max ||
			 !l7_sync_dest_of(s, ctl,
					  sizeof(ctl) - msg.msg_controllen,
					  dest))
			l7_sync_count(s, &s->stats.malformed);
		else
			l7_sync_take(s, r, len, dest);
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

/* ---- the takeover's probe ---- */

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
 * One pass of the takeover's probe over the records of the peers in
 * @owners (bit i: peer i), @expire for the last: a probe to each client
 * whose record is on a VIP:port served here, or, on the last pass, each
 * record probed L7_CKPT_PROBES times dropped.
 */
static void l7_sync_probe_pass(struct l7_sync *s, bool expire, u32 owners)
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

			if (!(owners & BIT(batch[k].owner)))
				continue;
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
	unsigned int delay = 0;
	u32 owners;
	int pass;

	/* the second pass refuses a client still past its record */
	BUILD_BUG_ON(L7_SYNC_PROBE_AGAIN_MS -
		     L7_SYNC_PROBE_EARLY * L7_SYNC_PROBE_EARLY_MS <=
		     L7_CKPT_PAST_GAP_MS);
	BUILD_BUG_ON(L7_SYNC_PROBE_EARLY * L7_SYNC_PROBE_EARLY_MS >=
		     L7_CKPT_PAST_GAP_MS);
	spin_lock_bh(&s->slock);
	pass = s->probe_pass;
	owners = s->probe_owners;
	spin_unlock_bh(&s->slock);
	if (!pass)
		return;
	l7_sync_probe_pass(s, pass > L7_CKPT_PROBES, owners);
	spin_lock_bh(&s->slock);
	/* unless passes were started over meanwhile (l7_sync_probe_start()) */
	if (s->probe_pass == pass) {
		if (pass == 1 && s->probe_early < L7_SYNC_PROBE_EARLY) {
			s->probe_early++;
			delay = L7_SYNC_PROBE_EARLY_MS;
		} else if (pass <= L7_CKPT_PROBES) {
			s->probe_pass = pass + 1;
			delay = pass < L7_CKPT_PROBES ?
				L7_SYNC_PROBE_AGAIN_MS -
				L7_SYNC_PROBE_EARLY * L7_SYNC_PROBE_EARLY_MS :
				L7_SYNC_PROBE_EXPIRE_MS;
		} else {
			s->probe_pass = 0;
			s->probe_owners = s->probe_lost = 0;
		}
	}
	spin_unlock_bh(&s->slock);
	if (delay)
		queue_delayed_work(s->wq, &s->probe, msecs_to_jiffies(delay));
}

/*
 * The probe's passes over the records of the peers in @owners, started
 * over (an address came up: records of it are ours to probe now), or,
 * with @again false, for peers lost (the watch), only if passes over
 * their records are not under way already.  A client that answers two
 * first passes close together is waited out twice, not refused
 * (L7_CKPT_PAST_GAP_MS).
 */
static void l7_sync_probe_start(struct l7_sync *s, u32 owners, bool again)
{
	bool start;

	spin_lock_bh(&s->slock);
	start = again || !s->probe_pass ||
		(s->probe_owners & owners) != owners;
	if (start) {
		/* an address's passes probe every owner's, lost or not */
		s->probe_lost = again ? 0 :
			s->probe_lost | (owners & ~s->probe_owners);
		s->probe_owners |= owners;
		s->probe_pass = 1;
		s->probe_early = 0;
	}
	spin_unlock_bh(&s->slock);
	/* no address came up for a lost peer: no ARP cache to wait for */
	if (start)
		mod_delayed_work(s->wq, &s->probe,
				 again ? msecs_to_jiffies(L7_SYNC_PROBE_FIRST_MS) :
					 0);
}

/*
 * Peer @peer, lost, was heard again: it was alive (its HELLOs late), and
 * its clients' flows reach it, not us - unless an address came up here
 * meanwhile.  Passes over its records for its loss alone stop, before
 * the last drops those its clients did not answer here: they are its
 * live clients' records.
 */
static void l7_sync_probe_found(struct l7_sync *s, u8 peer)
{
	spin_lock_bh(&s->slock);
	if (s->probe_lost & BIT(peer)) {
		s->probe_lost &= ~BIT(peer);
		s->probe_owners &= ~BIT(peer);
		if (!s->probe_owners)
			s->probe_pass = 0;
	}
	spin_unlock_bh(&s->slock);
}

/*
 * Every L7_SYNC_WATCH_MS: a peer whose accepted start has sent nothing for
 * L7_SYNC_PEER_LOST_MS (its HELLOs come every L7_SYNC_HELLO_MS) is lost -
 * dead, or cut off - and the clients of its records are probed, as at a
 * takeover: behind routers that spread the VIP's flows over directors
 * (ECMP), its flows now reach the others without any address coming up
 * here.  One idle at a boundary answers and is taken over by the
 * director its flow reaches; one whose request or response was under way
 * is reset rather than left waiting for its own timeout.  It is lost once
 * until heard again.
 */
static void l7_sync_watch_work(struct work_struct *work)
{
	struct l7_sync *s = container_of(to_delayed_work(work), struct l7_sync,
					 watch);
	unsigned long silent = msecs_to_jiffies(L7_SYNC_PEER_LOST_MS);
	u32 lost = 0;
	u8 i;

	/* a HELLO or two late is not a loss */
	BUILD_BUG_ON(L7_SYNC_PEER_LOST_MS < 3 * L7_SYNC_HELLO_MS);
	for (i = 0; i < s->cfg.npeers; i++) {
		struct l7_sync_remote *r = &s->remote[i];

		if (!r->peer.sender || r->lost ||
		    time_before(jiffies, r->heard + silent))
			continue;
		r->lost = true;
		lost |= BIT(i);
		WRITE_ONCE(s->live, s->live & ~BIT(i));
		l7_sync_count(s, &s->stats.lost);
	}
	if (lost && l7_sync_keeps(s) && READ_ONCE(s->store.recs.count))
		l7_sync_probe_start(s, lost, false);
	queue_delayed_work(s->wq, &s->watch,
			   msecs_to_jiffies(L7_SYNC_WATCH_MS));
}

/* An address of @net came up: probe if there are records to. */
static void l7_sync_addr_up(struct net *net)
{
	struct l7_sync *s;

	rcu_read_lock();
	s = rcu_dereference(l7_sync_net(net)->sync);
	if (s && l7_sync_keeps(s) && READ_ONCE(s->store.recs.count))
		l7_sync_probe_start(s, ~0u, true);
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
	/* where each datagram came in to is part of what authenticates it */
	if (s->cfg.af == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		ip_sock_set_pktinfo(sk);

		sin->sin_family = AF_INET;
		sin->sin_port = s->cfg.port;
		len = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		ip6_sock_set_v6only(sk);
		ip6_sock_set_recvpktinfo(sk);
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
 * own sender id and key; for each peer a challenge of its own and a
 * transform for its sender's key.
 */
static int l7_sync_keys(struct l7_sync *s, const u8 *key)
{
	u64 self = l7_sync_random();
	int err;
	u8 i;

	s->kdf = l7_seal_kdf_alloc(key, IPVS_L7_SYNC_KEY_LEN);
	if (IS_ERR(s->kdf)) {
		err = PTR_ERR(s->kdf);
		s->kdf = NULL;
		return err;
	}
	err = l7_seal_init(&s->tx);
	if (!err)
		err = l7_seal_init(&s->rx_new);
	for (i = 0; !err && i < s->cfg.npeers; i++) {
		l7_sync_peer_init(&s->remote[i].peer, self, l7_sync_random());
		err = l7_seal_init(&s->remote[i].rx);
	}
	if (!err)
		err = l7_seal_key(&s->tx, s->kdf, s->cfg.sync_id, self);
	return err;
}

static void l7_sync_free(struct l7_sync *s)
{
	unsigned int i;

	if (s->wq)
		destroy_workqueue(s->wq);
	if (s->sock)
		sock_release(s->sock);
	l7_seal_free(&s->tx);
	for (i = 0; i < ARRAY_SIZE(s->remote); i++)
		l7_seal_free(&s->remote[i].rx);
	l7_seal_free(&s->rx_new);
	l7_seal_kdf_free(s->kdf);
	kvfree(s->queue);
	kvfree(s->slots);
	kvfree(s->buckets);
	kvfree(s->probe_batch);
	kvfree(s->probe_idx);
	kfree(s->tx_buf);
	kfree(s->plain);
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
	INIT_DELAYED_WORK(&s->load, l7_sync_load_work);
	INIT_DELAYED_WORK(&s->watch, l7_sync_watch_work);
}

/* The workqueue, the datagram buffers, and what @s's roles keep. */
static int l7_sync_alloc_bufs(struct l7_sync *s)
{
	int err;

	s->wq = alloc_ordered_workqueue("ip_vs_l7_sync", 0);
	/* kmalloc'ed: the AEAD reads and writes them through a scatterlist */
	s->tx_buf = kmalloc(s->dgram_max, GFP_KERNEL);
	s->plain = kmalloc(s->dgram_max, GFP_KERNEL);
	s->rx_buf = kmalloc(s->dgram_max + 1, GFP_KERNEL);
	if (!s->wq || !s->tx_buf || !s->plain || !s->rx_buf)
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
 * The socket wakes the receiver from now on, and a HELLO goes out to
 * each peer: every role hears its peers, whose challenges its records
 * must echo.
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
	queue_delayed_work(s->wq, &s->load, 0);
	queue_delayed_work(s->wq, &s->watch,
			   msecs_to_jiffies(L7_SYNC_WATCH_MS));
}

/*
 * The SYN cookie's and the TSval clock's secrets from the shared key:
 * every director with the key checks the others' cookies and goes on
 * with their clocks (ip_vs_l7_secrets.c).
 */
static int l7_sync_tier_secrets(struct l7_sync *s)
{
	u8 bytes[L7_SECRETS_LEN];
	int err;

	BUILD_BUG_ON(L7_SECRETS_LEN != 32);	/* SHA-256's size */
	err = l7_seal_tier_secrets(s->kdf, s->cfg.sync_id, bytes);
	if (!err)
		l7_secrets_set(s->net, bytes);
	memzero_explicit(bytes, sizeof(bytes));
	return err;
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
	err = l7_sync_tier_secrets(s);
	if (err) {
		l7_sync_free(s);
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
	cancel_delayed_work_sync(&s->load);
	cancel_delayed_work_sync(&s->watch);
	cancel_delayed_work_sync(&s->probe);
	cancel_delayed_work_sync(&s->send);
	l7_sync_free(s);
	l7_secrets_set(net, NULL);	/* alone again: our own */
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
	st->lost = s->stats.lost;
	st->forwarded = s->store.stats.forwarded;
	st->forwarded_in = s->stats.forwarded_in;
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
