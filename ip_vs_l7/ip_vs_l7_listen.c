// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: a VIP's LISTEN state - segments that belong to no client
 * connection.  The director completes the client's handshake itself
 * with SYN cookies (FPS step 1), so a SYN leaves no state behind; the
 * ACK that completes one makes the connection.  After a failover, the
 * next segment of a connection the other director had takes it over
 * from its record (core/conn_ckpt.c).  Anything else is reset or
 * dropped.  A new connection's first segment then goes where every
 * client segment goes (l7_client_segment()).
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/tcp.h>
#include <net/ip.h>
#include <net/tcp.h>

#include "ip_vs_l7.h"
#include "ip_vs_l7_sync.h"
#include "core/tcp_listen.h"
#include "core/tcp_opt.h"

#define L7_DEFAULT_MSS		536	/* RFC 9293: no MSS option */

/* The MSS we announce: what one segment on the receiving device carries. */
static u16 l7_adv_mss(const struct sk_buff *skb)
{
	unsigned int mtu = skb->dev ? READ_ONCE(skb->dev->mtu) : 1500;

	if (l7_skb_af(skb) == AF_INET6)
		return clamp_t(unsigned int, mtu, IPV6_MIN_MTU, 1500) -
		       sizeof(struct ipv6hdr) - sizeof(struct tcphdr);
	return clamp_t(unsigned int, mtu, 576, 1500) -
	       sizeof(struct iphdr) - sizeof(struct tcphdr);
}

/* The segment's source and destination, of its family. */
static void l7_skb_addrs(const struct sk_buff *skb, union nf_inet_addr *saddr,
			 union nf_inet_addr *daddr)
{
	if (l7_skb_af(skb) == AF_INET) {
		saddr->ip = ip_hdr(skb)->saddr;
		daddr->ip = ip_hdr(skb)->daddr;
	} else {
		saddr->in6 = ipv6_hdr(skb)->saddr;
		daddr->in6 = ipv6_hdr(skb)->daddr;
	}
}

/*
 * A connection for @skb's tuple, or NULL when there is none to make:
 * over max_conns or max_conns_per_source the client believes it is
 * connected, and dropping would leave it resending into the same
 * refusal (each resend a cookie check) until its own timeout: a RST
 * tells it now.  Out of memory, it resends.
 */
static struct l7_conn *l7_client_alloc(struct l7_service *ls,
				       struct sk_buff *skb)
{
	const struct tcphdr *th = tcp_hdr(skb);
	union nf_inet_addr caddr = { }, vaddr = { };
	struct l7_conn *c;

	l7_skb_addrs(skb, &caddr, &vaddr);
	c = l7_conn_alloc(ls, &caddr, th->source, &vaddr, th->dest);
	if (!IS_ERR(c)) {
		timer_setup(&c->timer, l7_conn_timer_fn, 0);
		return c;
	}
	if (PTR_ERR(c) != -ENOMEM)
		l7_send_rst(ls->net, skb);
	return NULL;
}

/* A client's segment as core/conn_ckpt.h matches it with a record. */
static void l7_ckpt_seg_of(const struct sk_buff *skb,
			   const struct l7_tcp_opts *o, struct l7_ckpt_seg *g)
{
	const struct tcphdr *th = tcp_hdr(skb);
	union nf_inet_addr caddr = { }, vaddr = { };
	u16 af = l7_skb_af(skb);

	memset(g, 0, sizeof(*g));
	l7_skb_addrs(skb, &caddr, &vaddr);
	l7_addr_put(g->t.caddr, af, &caddr);
	g->t.family = l7_addr_put(g->t.vaddr, af, &vaddr);
	g->t.cport = ntohs(th->source);
	g->t.vport = ntohs(th->dest);
	g->seq = ntohl(th->seq);
	g->ack = ntohl(th->ack_seq);
	g->flags = tcp_flag_byte(th);
	g->len = skb->len - skb_transport_offset(skb) - th->doff * 4;
	g->has_ts = o->present & L7_TCPO_TS;
	g->tsval = o->tsval;
}

/*
 * After a failover: the other director's connection, between two
 * requests, from its record, if @skb (the client's next segment, which
 * matched no connection here) fits it exactly.  It goes on where the
 * other left it: the same numbers, options and TSval clock, the client's
 * newest TSval as TS.Recent; floors and limits start afresh.  NULL when
 * there is no record or the segment does not fit it, ERR_PTR(-EAGAIN)
 * when the segment is dropped and the record kept: it waits for the
 * client's retransmission, or the segment was out of the record's window
 * - a blind guess at the tuple, answered (rate-limited) by the record's
 * probe, so that the real client says where it is.  A RST never makes a
 * connection (no record fits one): at the record's rcv_nxt it ends it.
 * ERR_PTR(-EINPROGRESS) when the segment went on to the live director
 * that holds the connection (ip_vs_l7_fwd.c): it is no longer ours.
 */
static struct l7_conn *l7_client_adopt(struct l7_service *ls,
				       struct sk_buff *skb,
				       const struct l7_tcp_opts *o)
{
	union nf_inet_addr owner;
	struct l7_ckpt_slot rec;
	struct l7_ckpt_seg g;
	struct l7_conn *c;

	if (!l7_sync_has_records(ls->net))
		return NULL;
	l7_ckpt_seg_of(skb, o, &g);
	switch (l7_listen_record(l7_sync_adopt(ls->net, &g, &rec, &owner))) {
	case L7_LISTEN_ADOPT:
		break;
	case L7_LISTEN_FORWARD:
		/* never back out of the tunnel it came through: no loop */
		if (l7_sync_link_dev(ls->net, skb->dev) ||
		    l7_fwd_xmit(ls->net, skb, &owner) != NF_STOLEN)
			return ERR_PTR(-EAGAIN);
		return ERR_PTR(-EINPROGRESS);
	case L7_LISTEN_PROBE:
		/*
		 * Out of the record's window: the record stays, and both
		 * answers go.  The RST takes the segment's own ACK as its
		 * seq, so it resets a client whose record is stale (its
		 * numbers are the segment's) and is out of window for the
		 * real client of a blind guess, which answers the probe.
		 */
		l7_send_rst(ls->net, skb);
		l7_send_probe(ls->net, &rec.conn, rec.ts_off);
		return ERR_PTR(-EAGAIN);
	case L7_LISTEN_WAIT:
		return ERR_PTR(-EAGAIN);
	case L7_LISTEN_COOKIE:
		return NULL;
	}
	if (WARN_ON_ONCE(g.flags & L7_TCPF_RST))
		return NULL;
	c = l7_client_alloc(ls, skb);
	if (!c)
		return NULL;
	l7_conn_restore(c, &rec);
	return c;
}

/*
 * The ACK that completes a cookie handshake: a new connection, or NULL
 * (a bad cookie is reset).  The SYN-ACK may have been another
 * director's: the cookie and the TSval clock are the tier's
 * (ip_vs_l7_secrets.c).
 */
static struct l7_conn *l7_client_accept(struct l7_service *ls,
					struct sk_buff *skb,
					const struct l7_tcp_opts *o)
{
	const struct tcphdr *th = tcp_hdr(skb);
	struct l7_listen_ack a = {
		.seq = ntohl(th->seq),
		.ack = ntohl(th->ack_seq),
		.mss = l7_syncookie_check(ls->net, skb),
		.win = ntohs(th->window),
		.ts = o->present & L7_TCPO_TS,
		.tsval = o->tsval,
		.tsecr = o->tsecr,
	};
	struct l7_listen_conn n;
	struct l7_conn *c;
	u32 ts_off;

	if (!l7_listen_accept(&a, &n)) {
		l7_send_rst(ls->net, skb);
		return NULL;
	}
	c = l7_client_alloc(ls, skb);
	if (!c)
		return NULL;
	c->c_rcv_nxt = n.rcv_nxt;
	c->c_acked = n.rcv_nxt;
	c->c_seq0 = n.rcv_nxt;
	c->c_wl1 = n.rcv_nxt;
	c->c_rcv_edge = n.rcv_edge;
	c->d_snd_una = n.snd_nxt;
	c->d_snd_nxt = n.snd_nxt;
	c->d_snd_isn = n.snd_nxt;
	c->c_mss = n.mss;
	c->c_ts = n.ts;
	c->c_sack = n.sack;
	c->c_wscale = n.wscale;
	c->d_wscale = n.our_wscale;
	c->c_tsval = n.ts_recent;
	c->d_ts_last = n.ts_last;
	ts_off = l7_ts_clock_off(ls->net, c->af, &c->vaddr, &c->caddr);
	c->d_ts_off = ts_off + l7_listen_ts_lag(&n, l7_now_ts() + ts_off);
	c->c_win = n.win;
	c->c_max_win = n.max_win;
	return c;
}

/*
 * A segment to a VIP:port of an l7 service that belongs to no
 * connection: a SYN (answer with a cookie), the ACK that completes a
 * cookie handshake (make the connection), the next segment of a
 * connection the other director had (take it over from its record), or
 * junk (reset it).
 */
unsigned int l7_client_new(struct l7_service *ls, struct sk_buff *skb)
{
	unsigned int verdict = NF_DROP;
	const struct tcphdr *th = tcp_hdr(skb);
	struct l7_tcp_opts o;
	struct l7_conn *c;
	bool adopted, sack;
	int wscale;
	u32 cookie;
	u16 cmss;

	switch (l7_listen_seg(tcp_flag_byte(th), l7_tcp_opts_of(th, &o) >= 0)) {
	case L7_LISTEN_DROP:
		return NF_DROP;
	case L7_LISTEN_RST:
		/* a client that ended a connection we have a record of */
		c = l7_client_adopt(ls, skb, &o);
		return c == ERR_PTR(-EINPROGRESS) ? NF_STOLEN : NF_DROP;
	case L7_LISTEN_SYNACK:
		cmss = (o.present & L7_TCPO_MSS) ? o.mss : L7_DEFAULT_MSS;
		wscale = (o.present & L7_TCPO_WSCALE) ? o.wscale : -1;
		sack = o.present & L7_TCPO_SACK_PERM;
		cookie = l7_syncookie_make(ls->net, skb, &cmss, wscale, sack);
		l7_send_synack(ls->net, skb, cookie, l7_adv_mss(skb), wscale,
			       sack, o.present & L7_TCPO_TS, o.tsval);
		return NF_DROP;
	case L7_LISTEN_ACK:
		break;
	}

	/*
	 * A record first: its client's segment fails the cookie check.  A
	 * record the segment does not fit is dropped, and the cookie check
	 * decides as it would without one.
	 */
	c = l7_client_adopt(ls, skb, &o);
	if (IS_ERR(c))
		return c == ERR_PTR(-EINPROGRESS) ? NF_STOLEN : NF_DROP;
	adopted = c;
	if (!c)
		c = l7_client_accept(ls, skb, &o);
	if (!c)
		return NF_DROP;
	l7_floor_init(c);
	l7_head_restart(c);
	if (!l7_conn_insert(c))
		return NF_DROP;	/* a twin of this ACK made it already */

	/*
	 * The segment goes on as any client segment would: what it carries
	 * (a head, body bytes, an ACK) may be sent on in it, and then it is
	 * no longer the hook's to drop.
	 */
	spin_lock_bh(&c->lock);
	if (!c->dead) {
		/*
		 * An adopted connection's record at once, as of the boundary
		 * it was adopted at: the director that held it ends its copy
		 * (displaced) and every peer learns who holds it now.  Left
		 * to the next sync_idle, which a client that never pauses so
		 * long never gives, the old holder's copy answered the flow
		 * when it moved back, with numbers long behind the client's,
		 * and the peers forwarded to a director that no longer had it.
		 */
		if (adopted) {
			l7_conn_checkpoint(c);
		} else {
			l7_service_count(ls, conns);
			l7_conn_checkpoint_new(c);
		}
		verdict = l7_client_segment(c, skb);
		l7_conn_settle(c);
	}
	spin_unlock_bh(&c->lock);
	return verdict;
}
