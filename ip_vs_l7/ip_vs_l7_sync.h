/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7: the checkpoint channel between directors (one per network
 * namespace), between the IPVS_L7 family (ip_vs_l7_sync_nl.c, in
 * ip_vs_l7_genl.ko) and the channel itself (ip_vs_l7_sync_ctl.c, in
 * ip_vs_l7.ko), and between the data path and the channel's records
 * (ip_vs_l7_sync.c).
 */
#ifndef _IP_VS_L7_SYNC_H
#define _IP_VS_L7_SYNC_H

#include <linux/if.h>
#include <linux/netfilter.h>
#include <linux/types.h>
#include <net/genetlink.h>

#include "core/conn_ckpt.h"
#include "uapi/ip_vs_l7_genl.h"

struct net;

/* What a channel is started with. */
struct l7_sync_cfg {
	u8			role;		/* enum ipvs_l7_sync_role */
	char			ifname[IFNAMSIZ];
	u16			af;		/* of the socket and the peers */
	u8			npeers;		/* 1..IPVS_L7_SYNC_PEERS_MAX */
	union nf_inet_addr	peers[IPVS_L7_SYNC_PEERS_MAX];
	__be16			port;
	u32			sync_id;
	u32			idle_ms;
	u32			max_records;
	u8			key[IPVS_L7_SYNC_KEY_LEN];
};

/* Its counters, as IPVS_L7_SYNC_STATS_* name them. */
struct l7_sync_stats {
	u64	sent;
	u64	sent_records;
	u64	dropped;
	u64	received;
	u64	bad_hmac;
	u64	bad_sync_id;
	u64	malformed;
	u64	stored;
	u64	deleted;
	u64	stale;
	u64	evicted;
	u64	records;
	u64	adopted;
	u64	refused;
	u64	displaced;
	u64	probed;
	u64	waited;
	u64	replayed;
	u64	reflected;
	u64	unknown_peer;
	u64	bad_source;
	u64	ahead;
	u64	expired;
	u64	peers;
	u64	blind;
	u64	busy;
	u64	lost;
	u64	forwarded;
	u64	forwarded_in;
};

/* ip_vs_l7_sync_ctl.c: the family's way in */
int ip_vs_l7_sync_start(struct net *net, const struct l7_sync_cfg *cfg,
			struct netlink_ext_ack *extack);
int ip_vs_l7_sync_stop(struct net *net);

/*
 * The running channel's settings (the key zeroed) and counters, and the
 * largest datagram it sends; -ENOENT if none runs.
 */
int ip_vs_l7_sync_get(struct net *net, struct l7_sync_cfg *cfg,
		      struct l7_sync_stats *st, u32 *dgram_max);

/* ip_vs_l7_sync.c: the data path's */

/* A running master's sync_idle in jiffies, else 0. */
u32 l7_sync_idle(struct net *net);

/*
 * Whether the channel holds a record of the peer's: a handshake's last
 * ACK need not be described for l7_sync_adopt() on a director without.
 */
bool l7_sync_has_records(struct net *net);

/*
 * A client's segment @g to a VIP of ours that matches no connection:
 * whether the peer's record of its connection fits it (ADOPT: the record
 * into *out, with its TSval offset to our clock), is to be waited on
 * (WAIT: drop the segment), is dropped (REFUSE), is out of the record's
 * window (PROBE: drop the segment, send the probe of the record in
 * *out), or goes to the live director that holds it (FORWARD: its sync
 * address into *owner; l7_fwd_xmit()).  Without a record this is NONE
 * at the cost of a read.
 */
enum l7_ckpt_verdict l7_sync_adopt(struct net *net,
				   const struct l7_ckpt_seg *g,
				   struct l7_ckpt_slot *out,
				   union nf_inet_addr *owner);

/*
 * Whether an IP-in-IP packet from @saddr that came in on @dev is a
 * peer's forwarded client segment (l7_fwd_rcv()): a peer's sync address,
 * on the channel's interface.
 */
bool l7_sync_tunnel_from_peer(struct net *net, const struct net_device *dev,
			      __be32 saddr);

/* Whether @dev is the channel's interface. */
bool l7_sync_link_dev(struct net *net, const struct net_device *dev);

/* The master's records, c->lock held (struct l7_conn: ip_vs_l7.h). */
struct l7_conn;
/* between two requests, everything acknowledged: a record can carry it */
bool l7_conn_at_boundary(const struct l7_conn *c);
/* L7_CLK_SYNC: still at the boundary, a record of @c for the backup */
void l7_conn_checkpoint(struct l7_conn *c);
void l7_conn_checkpoint_again(struct l7_conn *c);
/* L7_CLK_BUSY: a busy record of @c, which has none yet, for the backup */
void l7_conn_checkpoint_busy(struct l7_conn *c);
/* side by side, a busy record of a new connection at once */
void l7_conn_checkpoint_new(struct l7_conn *c);
/* a connection taken over goes on from its record (ip_vs_l7_listen.c) */
void l7_conn_restore(struct l7_conn *c, const struct l7_ckpt_slot *rec);
/* @c ends: a DELETE, if the backup got a record of it */
void l7_conn_sync_end(struct l7_conn *c);

/* ip_vs_l7_sync_ctl.c: the module's init and exit */
int l7_sync_init(void);
void l7_sync_exit(void);

/* ip_vs_l7_sync_nl.c: the family's commands of the channel */
extern struct genl_family l7_genl_family;
extern const struct nla_policy l7_sync_cmd_policy[IPVS_L7_ATTR_MAX + 1];
int l7_nl_start_sync(struct sk_buff *skb, struct genl_info *info);
int l7_nl_stop_sync(struct sk_buff *skb, struct genl_info *info);
int l7_nl_get_sync(struct sk_buff *skb, struct genl_info *info);

#endif /* _IP_VS_L7_SYNC_H */
