/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7: the checkpoint channel of a network namespace, modelled on
 * IPVS's sync daemon (ip_vs_sync.c): a UDP kernel socket bound to a
 * dedicated interface, the master sending records of its idle client
 * connections to its peers (the other director of a pair, or each of
 * several side by side), the backup keeping the newest record of each
 * in a bounded store (core/conn_ckpt.h: the records, the datagram and
 * the store).  Its state, shared by its two files:
 *   ip_vs_l7_sync.c      what the data path calls: the master's records
 *                        and their sending, the backup's store as a
 *                        client's segment reads it; it calls nothing
 *                        above the connections;
 *   ip_vs_l7_sync_ctl.c  the channel's start and stop, its receiver and
 *                        the takeover's probe, above the connections:
 *                        the receiver ends one the peer took over.
 *
 * Records carry the sequence numbers that let whoever holds them inject
 * into live connections, and whoever reaches the sync link is not
 * trusted: datagrams are sealed (ip_vs_l7_sync_seal.c), taken only from
 * a configured peer's address, and from each peer only from the one start
 * of it that proved it was sealed after ours, each once
 * (core/sync_peer.h).  Each datagram goes to every peer, sealed for each
 * under its own sequence number.  Every end sends HELLOs, datagrams of
 * no record, for that handshake.
 *
 * Every work item of a channel runs on its own ordered workqueue: the
 * sender, the receiver, the HELLOs and the probe never run at once, so
 * the peer's state needs no lock, and a flood at the receiver delays a
 * send by one batch at most.
 */
#ifndef _IP_VS_L7_SYNC_CHAN_H
#define _IP_VS_L7_SYNC_CHAN_H

#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/net.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "core/conn_ckpt.h"
#include "core/sync_peer.h"
#include "ip_vs_l7_sync.h"
#include "ip_vs_l7_sync_seal.h"

/* records waiting for the sender at most */
#define L7_SYNC_QUEUE		4096
/*
 * A HELLO to every peer this often, and a peer silent for
 * L7_SYNC_PEER_LOST_MS is lost (l7_sync_watch_work()): four HELLOs missed
 * in a row.  Short, for side by side the clients a dead director left in
 * the middle of a response are reset only once it is lost; a peer lost
 * while alive (its HELLOs late under load) costs probes its clients do
 * not answer here, ended once it is heard again.
 */
#define L7_SYNC_HELLO_MS	250
#define L7_SYNC_PEER_LOST_MS	1000

/*
 * What a director holds of each of its peers: the peer's side of the
 * handshake (its accepted sender, the challenge we gave it, its replay
 * window) is its own, so a datagram one peer sealed is never taken as
 * another's, even sent from the other's address.
 */
struct l7_sync_remote {
	struct l7_sync_peer	peer;
	struct l7_seal		rx;		/* for its accepted sender's */
	unsigned long		hello_at;	/* jiffies of our last HELLO */
	unsigned long		heard;		/* of its last datagram taken */
	bool			lost;		/* silent since (the watch) */
};

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
	struct l7_sync_remote	remote[IPVS_L7_SYNC_PEERS_MAX]; /* cfg.npeers */
	u32			live;		/* bit i: peer i heard, not lost */
	struct l7_seal		tx;		/* keyed for our sender id */
	struct l7_seal		rx_new;		/* for a sender not accepted */
	u64			tx_seq;		/* over all peers: the nonce */
	u8			*tx_buf;	/* dgram_max */
	u8			*plain;		/* a datagram's records, clear */
	u8			*rx_buf;	/* dgram_max + 1 */
	struct delayed_work	hello;
	struct delayed_work	load;		/* side by side: our load */

	/* master */
	struct delayed_work	send;
	spinlock_t		qlock;		/* the queue, master counters */
	struct l7_ckpt_rec	*queue;		/* ring of L7_SYNC_QUEUE */
	u32			qhead;
	u32			qlen;

	/* backup */
	struct work_struct	recv;
	struct delayed_work	probe;		/* an address came up, a peer lost */
	struct delayed_work	watch;		/* peers silent */
	struct l7_ckpt_slot	*probe_batch;	/* the probe's copies */
	u32			*probe_idx;	/* and their slots */
	int			probe_pass;	/* the next: 1, 2, then expiry */
	int			probe_early;	/* repeats of pass 1 done */
	u32			probe_owners;	/* bit i: peer i's records */
	u32			probe_lost;	/* of those, for a lost peer only */
	spinlock_t		slock;		/* the store, the probe, counters */
	struct l7_ckpt_store	store;
	struct l7_ckpt_slot	*slots;
	u32			*buckets;

	struct l7_sync_stats	stats;		/* but the store's */
};

struct l7_sync_net {
	struct l7_sync __rcu	*sync;
};

/* ip_vs_l7_sync.c */
extern unsigned int l7_sync_net_id;
void l7_sync_send_hello(struct l7_sync *s, struct l7_sync_remote *r);
void l7_sync_hello_work(struct work_struct *work);
void l7_sync_load_work(struct work_struct *work);
void l7_sync_send_work(struct work_struct *work);
void l7_sync_gen_raise(struct l7_sync *s, u64 gen);

static inline struct l7_sync_net *l7_sync_net(const struct net *net)
{
	return net_generic(net, l7_sync_net_id);
}

/* a master (or both) sends the records of its own connections */
static inline bool l7_sync_sends(const struct l7_sync *s)
{
	return s->cfg.role != IPVS_L7_SYNC_BACKUP;
}

/* a backup (or both) keeps the peer's, and takes connections over */
static inline bool l7_sync_keeps(const struct l7_sync *s)
{
	return s->cfg.role != IPVS_L7_SYNC_MASTER;
}

/* ms, as the director's TSval clock (ip_vs_l7_xmit.c) */
static inline u32 l7_sync_now_ms(void)
{
	return (u32)div_u64(ktime_get_boottime_ns(), NSEC_PER_MSEC);
}

#endif /* _IP_VS_L7_SYNC_CHAN_H */
