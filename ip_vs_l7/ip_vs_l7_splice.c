// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: binding a client connection to a pooled connection and
 * splicing the two (FPS steps 4-7).
 *
 * Once the head is framed, the director picks a real server (weighted
 * least outstanding bindings), takes one of its idle pooled connections,
 * sends it its own copy of the buffered head and from then on rewrites
 * every packet of both flows in place - addresses, ports, seq/ack,
 * timestamps, window, SACK - with the per-binding map of core/tcp_map.c,
 * and sends it on.  No socket sees these packets.
 *
 * Checksums: every forwarded skb leaves as CHECKSUM_PARTIAL with a fresh
 * pseudo-header seed, so the rewrite never has to patch th->check and the
 * four receive states come out the same; the output path (or the NIC)
 * sums the segment.  An skb larger than the receiver's MSS, or a GSO skb
 * with a larger gso_size, is cut by GSO on the way out.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/ip.h>
#include <linux/rculist.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <net/ip.h>
#include <net/route.h>
#include <net/tcp.h>
#include <net/netfilter/nf_conntrack.h>

#include "ip_vs_l7.h"
#include "core/tcp_opt.h"

#define L7_RTO			(HZ / 5)
#define L7_HEAD_TRIES		8
#define L7_LINGER		(2 * HZ)	/* after both FINs */
#define L7_TS_OPT_LEN		12		/* NOP NOP TS */

/*
 * Weighted least outstanding: the server whose bindings per unit of
 * weight are fewest, among those with an idle pooled connection; ties
 * go round-robin so that an idle cluster still spreads.
 */
static struct l7_pconn *l7_pick(struct l7_service *ls)
{
	unsigned int idx = 0, start, best_idx = 0, n = 0;
	struct l7_dest *ld, *best = NULL;
	u64 best_busy = 0, best_w = 1;

	list_for_each_entry_rcu(ld, &ls->dests, list)
		n++;
	if (!n)
		return NULL;
	start = (u32)atomic_inc_return(&ls->pick_cursor) % n;

	list_for_each_entry_rcu(ld, &ls->dests, list) {
		struct l7_pool *p = &ld->pool;
		int w = READ_ONCE(p->weight);
		u64 busy = READ_ONCE(p->n_busy);
		unsigned int rank = (idx + n - start) % n;

		idx++;
		if (w <= 0 || READ_ONCE(p->down) || !READ_ONCE(p->n_idle))
			continue;
		if (!best || busy * best_w < best_busy * w ||
		    (busy * best_w == best_busy * w && rank < best_idx)) {
			best = ld;
			best_busy = busy;
			best_w = w;
			best_idx = rank;
		}
	}
	return best ? l7_pool_take(&best->pool) : NULL;
}

static u16 l7_win_to_backend(const struct l7_conn *c)
{
	return l7_win_rescale(c->c_win, c->c_wscale, c->pc->tcp.rcv_wscale);
}

/* (Re)send the director's copy of the buffered request bytes. */
static void l7_send_head(struct l7_conn *c)
{
	u32 mss = c->pc->tcp.mss, off;

	for (off = 0; off < c->head_len; off += mss) {
		u32 n = min(mss, c->head_len - off);

		l7_send_backend(c, off + n == c->head_len ? TCPHDR_PSH : 0,
				c->pc->tcp.snd_nxt + off, c->pc->tcp.rcv_nxt,
				l7_win_to_backend(c), c->head + off, n);
	}
}

/* c->lock held, head framed: bind, or -EAGAIN if no server can take it. */
int l7_bind(struct l7_conn *c)
{
	struct l7_binding_params p;
	struct l7_pconn *pc;

	pc = l7_pick(c->ls);
	if (!pc)
		return -EAGAIN;
	c->pc = pc;
	p = (struct l7_binding_params){
		.c_seq = c->c_seq0,
		.b_seq = pc->tcp.snd_nxt,
		.b_rcv = pc->tcp.rcv_nxt,
		.c_snd = c->d_snd_nxt,
		.c_tsval = c->c_tsval,
		.b_ts_floor = pc->tcp.ts_last + 1,
		.b_tsval = pc->tcp.ts_recent,
		.c_ts_floor = c->d_ts_last + 1,
		.c_wscale = c->c_wscale,
		.cd_wscale = c->d_wscale,
		.b_wscale = pc->tcp.snd_wscale,
		.bd_wscale = pc->tcp.rcv_wscale,
		.c_ts = c->c_ts,
		.b_ts = pc->tcp.ts,
		.c_sack = c->c_sack,
		.b_sack = pc->tcp.sack,
	};
	l7_binding_init(&c->map, &p, NULL);
	c->b_tsval = pc->tcp.ts_recent;
	c->b_head_end = pc->tcp.snd_nxt + c->head_len;
	c->b_snd_nxt = c->b_head_end;
	c->state = L7C_SPLICED;
	c->retries = 0;
	l7_conn_hash_backend(c);
	l7_send_head(c);
	l7_conn_expire_in(c, L7_RTO);
	return 0;
}

/*
 * Requests framed while no pooled connection was idle wait here, in
 * order, for the pool to grow (a bounded queue and a bounded wait: 503
 * past either).  Called with c->lock held.
 */
int l7_queue_add(struct l7_conn *c)
{
	struct l7_service *ls = c->ls;
	int err = -ENOSPC;

	spin_lock_bh(&ls->waitq_lock);
	if (ls->waitq_len < l7_queue_max) {
		list_add_tail(&c->wait_node, &ls->waitq);
		ls->waitq_len++;
		err = 0;
	}
	spin_unlock_bh(&ls->waitq_lock);
	if (!err) {
		atomic64_inc(&ls->stats.queued);
		c->state = L7C_QUEUED;
		l7_conn_expire_in(c, msecs_to_jiffies(l7_queue_timeout));
	}
	return err;
}

/* Any context; a no-op unless @c waits. */
void l7_queue_del(struct l7_conn *c)
{
	struct l7_service *ls = c->ls;

	spin_lock_bh(&ls->waitq_lock);
	if (!list_empty(&c->wait_node)) {
		list_del_init(&c->wait_node);
		ls->waitq_len--;
	}
	spin_unlock_bh(&ls->waitq_lock);
}

/* Process context, a pooled connection just became idle: bind waiters. */
void l7_queue_kick(struct l7_service *ls)
{
	struct l7_conn *c;
	bool more = true;

	while (more) {
		rcu_read_lock();	/* a dequeued conn is freed by RCU */
		spin_lock_bh(&ls->waitq_lock);
		c = list_first_entry_or_null(&ls->waitq, struct l7_conn,
					     wait_node);
		if (c) {
			list_del_init(&c->wait_node);
			ls->waitq_len--;
		}
		spin_unlock_bh(&ls->waitq_lock);
		if (!c) {
			rcu_read_unlock();
			break;
		}
		spin_lock_bh(&c->lock);
		if (!c->dead && c->state == L7C_QUEUED && l7_bind(c)) {
			/* none idle after all: back to the front */
			spin_lock_bh(&ls->waitq_lock);
			list_add(&c->wait_node, &ls->waitq);
			ls->waitq_len++;
			spin_unlock_bh(&ls->waitq_lock);
			more = false;
		}
		spin_unlock_bh(&c->lock);
		rcu_read_unlock();
	}
}

/* The connection timer while spliced: resend the head, or idle out. */
void l7_bind_timer(struct l7_conn *c)
{
	if (!c->head_acked && ++c->retries <= L7_HEAD_TRIES) {
		l7_send_head(c);
		l7_conn_expire_in(c, L7_RTO << c->retries);
		return;
	}
	/* head never taken, or idle too long */
	c->end = c->head_acked ? L7_END_IDLE : L7_END_HEAD_LOST;
	c->dead = true;
}

/*
 * Any context, the connection being freed: give the pooled connection
 * back for retirement, resetting both ends unless both closed already.
 */
void l7_unbind(struct l7_conn *c)
{
	if (!(c->c_fin && c->b_fin) && !c->reset) {
		l7_send_backend(c, TCPHDR_RST, c->b_snd_nxt, 0, 0, NULL, 0);
		l7_send_client(c, TCPHDR_RST, c->d_snd_nxt, NULL, 0);
	}
	atomic64_inc(&c->ls->stats.ended[c->end]);
	l7_pool_retire(c->pc);
}

/*
 * Both sides sent FIN: keep mapping for a while (their last ACKs and any
 * retransmission), then free.  Nothing is left to reset.
 */
static void l7_splice_closed(struct l7_conn *c)
{
	if (c->c_fin && c->b_fin && !c->dead_reason) {
		c->dead_reason = "closed";
		c->end = L7_END_CLOSED;
		l7_conn_expire_in(c, L7_LINGER);
	}
}

/* A RST or FIN went through, from the client or from the server. */
static void l7_splice_track_close(struct l7_conn *c, const struct tcphdr *th,
				  bool from_client)
{
	if (th->rst) {
		c->reset = true;
		c->end = from_client ? L7_END_CLIENT_RST : L7_END_SERVER_RST;
		c->dead_reason = from_client ? "reset by client" :
					       "reset by server";
		l7_conn_expire_in(c, 0);
	} else if (th->fin) {
		if (from_client)
			c->c_fin = true;
		else
			c->b_fin = true;
	}
	l7_splice_closed(c);
}

static void l7_seg_readdress(struct sk_buff *skb, __be32 saddr, __be16 sport,
			     __be32 daddr, __be16 dport)
{
	struct iphdr *iph = ip_hdr(skb);
	struct tcphdr *th = tcp_hdr(skb);

	iph->saddr = saddr;
	iph->daddr = daddr;
	th->source = sport;
	th->dest = dport;
}

/* A SYN has no business in an established splice. */
static bool l7_seg_syn(const struct sk_buff *skb)
{
	return tcp_hdr(skb)->syn;
}

static int l7_seg_opts(struct sk_buff *skb, struct l7_tcp_opts *o)
{
	struct tcphdr *th = tcp_hdr(skb);

	memset(o, 0, sizeof(*o));
	return l7_tcp_opts_parse((u8 *)(th + 1), th->doff * 4 - sizeof(*th),
				 o);
}

/*
 * Rewrite seq/ack/window and the options of @skb's TCP header with the
 * result of a map; @sack maps SACK blocks in the same direction.
 */
static void l7_seg_rewrite(struct sk_buff *skb, struct l7_tcp_opts *o,
			   const struct l7_tcp_seg *s, unsigned int flags,
			   const struct l7_binding_map *m,
			   unsigned int (*sack)(const struct l7_binding_map *,
						struct l7_tcp_sack_block *,
						unsigned int))
{
	struct tcphdr *th = tcp_hdr(skb);
	u8 *opt = (u8 *)(th + 1);
	unsigned int optlen = th->doff * 4 - sizeof(*th);

	th->seq = htonl(s->seq);
	th->ack_seq = htonl(s->ack);
	th->window = htons(s->win);
	if (o->present & L7_TCPO_TS) {
		if (flags & L7_SEG_STRIP_TS)
			l7_tcp_opts_strip(opt, optlen, o, L7_TCPO_TS);
		else
			l7_tcp_opts_set_ts(opt, optlen, o, s->tsval, s->tsecr);
	}
	if (o->present & L7_TCPO_SACK) {
		struct l7_tcp_sack_block blk[L7_TCP_SACK_MAX_BLOCKS];
		unsigned int n = o->sack_count;

		memcpy(blk, o->sack, sizeof(blk));
		n = sack(m, blk, n);
		l7_tcp_opts_set_sack(opt, optlen, o, blk, n);
	}
}

/* Send a rewritten skb on, cut to @mss payload bytes per segment. */
static unsigned int l7_forward(struct net *net, struct sk_buff *skb, u32 mss)
{
	struct iphdr *iph = ip_hdr(skb);
	struct tcphdr *th = tcp_hdr(skb);
	u32 tcplen = skb->len - ip_hdrlen(skb);
	u32 payload = tcplen - th->doff * 4;
	struct flowi4 fl4 = {
		.daddr = iph->daddr,
		.saddr = iph->saddr,
		.flowi4_proto = IPPROTO_TCP,
	};
	struct rtable *rt;

	iph->ttl = READ_ONCE(net->ipv4.sysctl_ip_default_ttl);
	ip_send_check(iph);

	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_transport_header(skb) - skb->head;
	skb->csum_offset = offsetof(struct tcphdr, check);
	th->check = ~tcp_v4_check(tcplen, iph->saddr, iph->daddr, 0);

	if (skb_is_gso(skb)) {
		if (skb_shinfo(skb)->gso_size > mss) {
			if (skb_has_frag_list(skb) && skb_linearize(skb))
				return NF_DROP;
			skb_shinfo(skb)->gso_size = mss;
			skb_shinfo(skb)->gso_segs = 0;
			skb_shinfo(skb)->gso_type |= SKB_GSO_DODGY;
		}
	} else if (payload > mss) {
		skb_shinfo(skb)->gso_size = mss;
		skb_shinfo(skb)->gso_segs = 0;
		skb_shinfo(skb)->gso_type = SKB_GSO_TCPV4 | SKB_GSO_DODGY;
	}

	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return NF_DROP;
	skb_dst_drop(skb);
	skb_dst_set(skb, &rt->dst);
	skb->tstamp = 0;
	skb->ipvs_property = 1;
	nf_reset_ct(skb);
	nf_ct_set(skb, NULL, IP_CT_UNTRACKED);
	ip_local_out(net, NULL, skb);
	return NF_STOLEN;
}

/* Make the headers ours to write, and the skb's GSO state too. */
static int l7_seg_writable(struct sk_buff *skb)
{
	if (skb_unclone(skb, GFP_ATOMIC))
		return -ENOMEM;
	return skb_ensure_writable(skb, ip_hdrlen(skb) + tcp_hdrlen(skb));
}

static void l7_seg_read(const struct sk_buff *skb, const struct l7_tcp_opts *o,
			struct l7_tcp_seg *s)
{
	const struct tcphdr *th = tcp_hdr(skb);

	s->seq = ntohl(th->seq);
	s->ack = ntohl(th->ack_seq);
	s->len = skb->len - ip_hdrlen(skb) - th->doff * 4 + th->syn + th->fin;
	s->win = ntohs(th->window);
	s->ts = o->present & L7_TCPO_TS;
	s->tsval = o->tsval;
	s->tsecr = o->tsecr;
}

/*
 * Ready a spliced segment for rewriting: headers ours to write, options
 * parsed, numbers read.  A SYN has no business in an established splice.
 */
static int l7_seg_take(struct sk_buff *skb, struct l7_tcp_opts *o,
		       struct l7_tcp_seg *s)
{
	if (l7_seg_syn(skb) || l7_seg_writable(skb) || l7_seg_opts(skb, o))
		return -EINVAL;
	l7_seg_read(skb, o, s);
	return 0;
}

/* c->lock held, c spliced: a client segment goes to the backend. */
unsigned int l7_splice_c2b(struct l7_conn *c, struct sk_buff *skb)
{
	struct l7_pconn *pc = c->pc;
	struct l7_tcp_opts o;
	struct l7_tcp_seg s;
	unsigned int flags;
	struct tcphdr *th;

	if (l7_seg_take(skb, &o, &s))
		return NF_DROP;
	th = tcp_hdr(skb);
	c->c_win = s.win;
	if (s.ts)
		c->c_tsval = s.tsval;
	flags = l7_map_c2b(&c->map, &s);
	l7_seg_rewrite(skb, &o, &s, flags, &c->map, l7_sack_c2b);
	if (after(s.seq + s.len, c->b_snd_nxt))
		c->b_snd_nxt = s.seq + s.len;

	l7_splice_track_close(c, th, true);
	l7_seg_readdress(skb, pc->tcp.laddr, pc->tcp.lport,
			 pc->pool->addr.sin_addr.s_addr, pc->pool->addr.sin_port);
	if (c->head_acked && !c->dead_reason)
		l7_conn_expire_in(c, l7_idle_timeout * HZ);
	return l7_forward(c->net, skb, pc->tcp.mss);
}

/*
 * The server closed or reset the pooled connection before answering -
 * it was closing it (Timeout, KeepAliveTimeout) when we bound it.  If
 * nothing but our own copy of the head went to it and the method is
 * idempotent, send the request once more on another connection; the
 * client never sees the first try.  c->lock held.
 */
static bool l7_retry(struct l7_conn *c)
{
	struct l7_pconn *old = c->pc;

	if (c->rsp_seen || c->retried || c->c_fin ||
	    c->b_snd_nxt != c->b_head_end ||
	    !l7_http_method_idempotent(c->req.method))
		return false;
	l7_send_backend(c, TCPHDR_RST, c->b_snd_nxt, 0, 0, NULL, 0);
	l7_conn_unhash_backend(c);
	l7_pool_retire(old);
	c->pc = NULL;
	c->retried = true;
	c->head_acked = false;
	atomic64_inc(&c->ls->stats.retried);
	if (l7_bind(c) && l7_queue_add(c))
		l7_reply_503(c);
	return true;
}

/* c->lock held, c spliced: a backend segment goes to the client. */
unsigned int l7_splice_b2c(struct l7_conn *c, struct sk_buff *skb)
{
	u32 head_end = c->c_seq0 + c->head_len;
	struct l7_tcp_opts o;
	struct l7_tcp_seg s;
	unsigned int flags;
	struct tcphdr *th;

	if (l7_seg_take(skb, &o, &s))
		return NF_DROP;
	th = tcp_hdr(skb);
	if ((th->fin || th->rst) && s.len == th->fin && l7_retry(c))
		return NF_DROP;
	if (s.len > th->fin)
		c->rsp_seen = true;
	if (s.ts)
		c->b_tsval = s.tsval;
	if (th->ack && !c->head_acked && !before(s.ack, c->b_head_end)) {
		c->head_acked = true;
		if (!c->dead_reason)
			l7_conn_expire_in(c, l7_idle_timeout * HZ);
	}
	flags = l7_map_b2c(&c->map, &s);
	/* the director acknowledged the head itself: never ACK less */
	if (before(s.ack, head_end))
		s.ack = head_end;
	l7_seg_rewrite(skb, &o, &s, flags, &c->map, l7_sack_b2c);
	if (after(s.seq + s.len, c->d_snd_nxt))
		c->d_snd_nxt = s.seq + s.len;
	if (s.ts)
		c->d_ts_last = s.tsval;

	l7_splice_track_close(c, th, false);
	l7_seg_readdress(skb, c->vaddr, c->vport, c->caddr, c->cport);
	return l7_forward(c->net, skb,
			  c->c_mss - (c->c_ts ? L7_TS_OPT_LEN : 0));
}
