// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: segments the director writes itself - the SYN-ACK of the
 * cookie handshake, ACKs, resets and its own short replies - built like
 * nf_synproxy_core's and sent with ip_local_out().  They are marked
 * untracked, so conntrack keeps no state for flows it never sees whole,
 * and ipvs_property, so IPVS's LOCAL_OUT hooks leave them alone.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/net.h>
#include <linux/tcp.h>
#include <linux/timekeeping.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/tcp.h>
#include <net/netfilter/nf_conntrack.h>

#include "ip_vs_l7.h"
#include "core/conn_ckpt.h"
#include "core/tcp_cookie.h"
#include "core/tcp_opt.h"

/* Millisecond timestamp clock, monotonic, as Linux's default TS clock. */
u32 l7_now_ts(void)
{
	return (u32)div_u64(ktime_get_boottime_ns(), NSEC_PER_MSEC);
}

/*
 * The TSval @c's client would get from us now, before any floor: the
 * clock plus the connection's offset, fixed when it was made
 * (l7_ts_clock_off()) or taken over (l7_conn_ts_continue()).
 */
u32 l7_conn_ts_now(const struct l7_conn *c)
{
	return l7_now_ts() + c->d_ts_off;
}

/*
 * The client's newest TSval; for a client without timestamps, the
 * director's clock standing in for one, which the TSvals it adds to the
 * client's ACKs for a server with timestamps follow (core/tcp_map.h,
 * l7_map_c2b()).
 */
u32 l7_client_tsval(const struct l7_conn *c)
{
	return c->c_ts ? c->c_tsval : l7_now_ts();
}

/*
 * @c, taken over from the other director, goes on with that director's
 * TSval clock, @offset ahead of ours (l7_ckpt_ts_offset()): the client
 * sees one clock, at one rate, and its PAWS check passes.
 */
void l7_conn_ts_continue(struct l7_conn *c, u32 offset)
{
	c->d_ts_off = offset;
}

/* The TCP header and payload of @s, at skb->data; IP header room before. */
static struct sk_buff *l7_seg_alloc(const struct l7_seg *s,
				    unsigned int tcplen)
{
	struct sk_buff *skb;
	struct tcphdr *th;

	skb = alloc_skb(MAX_TCP_HEADER + sizeof(struct ipv6hdr) + tcplen,
			GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, MAX_TCP_HEADER + sizeof(struct ipv6hdr));

	/* the header zeroed, options and payload written whole */
	th = skb_put(skb, tcplen);
	memset(th, 0, sizeof(*th));
	skb_reset_transport_header(skb);
	th->source = s->sport;
	th->dest = s->dport;
	th->seq = htonl(s->seq);
	th->ack_seq = htonl(s->ack);
	th->doff = (sizeof(*th) + s->optlen) / 4;
	tcp_flag_byte(th) = s->flags;
	th->window = htons(s->win);
	memcpy(th + 1, s->opt, s->optlen);
	memcpy((u8 *)(th + 1) + s->optlen, s->data, s->len);
	return skb;
}

/*
 * Checksum offload, as TCP's own segments have it: only the
 * pseudo-header's sum goes in, and the device (or, where it has no
 * offload, the core on its way out) sums the segment.  Over veth and
 * loopback the receiver takes such a segment as verified: neither side
 * runs over its bytes, as for the client's segments the director
 * forwards.  IPv6 has __tcp_v6_send_check(); IPv4's twin is not
 * exported.
 */
static void l7_tcp_v4_send_check(struct sk_buff *skb, __be32 saddr,
				 __be32 daddr)
{
	tcp_hdr(skb)->check = ~tcp_v4_check(skb->len, saddr, daddr, 0);
	skb->csum_start = skb_transport_header(skb) - skb->head;
	skb->csum_offset = offsetof(struct tcphdr, check);
}

/* IPv6: the pseudo-header's sum (offload), the route's hop limit. */
static void l7_xmit6(struct net *net, const struct l7_seg *s)
{
	unsigned int tcplen = sizeof(struct tcphdr) + s->optlen + s->len;
	struct ipv6hdr *ip6h;
	struct dst_entry *dst;
	struct sk_buff *skb;

	skb = l7_seg_alloc(s, tcplen);
	if (!skb)
		return;
	__tcp_v6_send_check(skb, &s->saddr.in6, &s->daddr.in6);
	skb->ip_summed = CHECKSUM_PARTIAL;

	rcu_read_lock();
	dst = l7_dst_attach(skb, net, s->dst, s->af, &s->saddr, &s->daddr);
	if (!dst) {
		rcu_read_unlock();
		kfree_skb(skb);
		return;
	}
	ip6h = skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, 0, 0);
	ip6h->payload_len = htons(tcplen);
	ip6h->nexthdr = IPPROTO_TCP;
	ip6h->hop_limit = ip6_dst_hoplimit(dst);
	ip6h->saddr = s->saddr.in6;
	ip6h->daddr = s->daddr.in6;

	skb->protocol = htons(ETH_P_IPV6);
	skb->ipvs_property = 1;
	nf_ct_set(skb, NULL, IP_CT_UNTRACKED);
	ip6_local_out(net, NULL, skb);
	rcu_read_unlock();
}

/* Send @s, built and checksummed, from the director's own stack. */
void l7_xmit(struct net *net, const struct l7_seg *s)
{
	unsigned int tcplen = sizeof(struct tcphdr) + s->optlen + s->len;
	struct sk_buff *skb;
	struct iphdr *iph;

	if (s->af == AF_INET6) {
		l7_xmit6(net, s);
		return;
	}
	skb = l7_seg_alloc(s, tcplen);
	if (!skb)
		return;
	l7_tcp_v4_send_check(skb, s->saddr.ip, s->daddr.ip);
	skb->ip_summed = CHECKSUM_PARTIAL;

	iph = skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) / 4;
	iph->tos = 0;
	iph->tot_len = htons(skb->len);
	/*
	 * ID 0, as Linux gives a DF segment it sends without a socket (its
	 * RSTs and ACKs in reply): nothing to reassemble, and a capture
	 * tells the director's own segments from the servers' it forwards,
	 * which keep their sockets' IDs.
	 */
	iph->id = 0;
	iph->frag_off = htons(IP_DF);
	iph->ttl = READ_ONCE(net->ipv4.sysctl_ip_default_ttl);
	iph->protocol = IPPROTO_TCP;
	iph->saddr = s->saddr.ip;
	iph->daddr = s->daddr.ip;
	ip_send_check(iph);

	rcu_read_lock();
	if (!l7_dst_attach(skb, net, s->dst, s->af, &s->saddr, &s->daddr)) {
		rcu_read_unlock();
		kfree_skb(skb);
		return;
	}
	skb->protocol = htons(ETH_P_IP);
	skb->ipvs_property = 1;
	nf_ct_set(skb, NULL, IP_CT_UNTRACKED);
	ip_local_out(net, NULL, skb);
	rcu_read_unlock();
}

/*
 * Whether @addr is a broadcast address of the device @skb came in on:
 * the one configured, or the all-ones host of one of its subnets, for
 * which Linux adds a broadcast route whether one is configured or not
 * ("ip addr add" sets none).
 */
static bool l7_dev_broadcast(const struct sk_buff *skb, __be32 addr)
{
	const struct in_ifaddr *ifa;
	struct in_device *idev;
	bool found = false;

	if (!skb->dev)
		return false;
	rcu_read_lock();
	idev = __in_dev_get_rcu(skb->dev);
	if (idev) {
		in_dev_for_each_ifa_rcu(ifa, idev) {
			if (ifa->ifa_broadcast == addr ||
			    (ifa->ifa_prefixlen < 31 &&
			     (ifa->ifa_local | ~ifa->ifa_mask) == addr)) {
				found = true;
				break;
			}
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * A segment no TCP may answer, and no client sends: its source is a
 * broadcast, multicast, "this network" (0/8) or - from outside - a
 * loopback address, or the broadcast of the device it came in on; or its
 * frame went to a link-layer broadcast or multicast (RFC 1122 4.2.3.10,
 * Linux's tcp_v4_rcv()).  Routing would drop most of these as martians,
 * but the hook runs before it; answering one with a SYN-ACK or RST would
 * reflect traffic to a whole segment, or to ourselves.
 */
/* IPv6: multicast, unspecified, v4-mapped, or loopback from outside. */
static bool l7_unanswerable6(const struct sk_buff *skb)
{
	const struct in6_addr *saddr = &ipv6_hdr(skb)->saddr;

	if (ipv6_addr_is_multicast(saddr) || ipv6_addr_any(saddr) ||
	    ipv6_addr_v4mapped(saddr))
		return true;
	if (ipv6_addr_loopback(saddr))
		return !skb->dev || !(skb->dev->flags & IFF_LOOPBACK);
	return false;
}

bool l7_unanswerable(const struct sk_buff *skb)
{
	__be32 saddr;

	if (skb->pkt_type == PACKET_BROADCAST ||
	    skb->pkt_type == PACKET_MULTICAST)
		return true;
	if (l7_skb_af(skb) == AF_INET6)
		return l7_unanswerable6(skb);
	saddr = ip_hdr(skb)->saddr;
	/* ipv4_is_zeronet() is 0.0.0.0 only since 5.3; the block is 0/8 */
	if (ipv4_is_multicast(saddr) || ipv4_is_lbcast(saddr) ||
	    (saddr & htonl(0xff000000)) == 0)
		return true;
	if (ipv4_is_loopback(saddr))
		return !skb->dev || !(skb->dev->flags & IFF_LOOPBACK);
	return l7_dev_broadcast(skb, saddr);
}

bool l7_addr_local(struct net *net, u16 af, const union nf_inet_addr *a)
{
	if (af == AF_INET)
		return inet_addr_type(net, a->ip) == RTN_LOCAL;
	return ipv6_chk_addr(net, &a->in6, NULL, 0);
}

/*
 * Whether a segment to @a, with no packet of its to answer (a record's
 * probe), would go where l7_unanswerable() never answers: to a
 * broadcast, multicast, "this network" or loopback address, or to one of
 * our own.  The routing tables know each subnet's broadcast.
 */
static bool l7_addr_unanswerable(struct net *net, u16 af,
				 const union nf_inet_addr *a)
{
	if (af == AF_INET6)
		return ipv6_addr_is_multicast(&a->in6) ||
		       ipv6_addr_any(&a->in6) || ipv6_addr_loopback(&a->in6) ||
		       ipv6_addr_v4mapped(&a->in6) ||
		       ipv6_chk_addr(net, &a->in6, NULL, 0);
	if ((a->ip & htonl(0xff000000)) == 0)
		return true;
	return inet_addr_type(net, a->ip) != RTN_UNICAST;
}

/*
 * A segment the director writes on a pooled connection: its copy of a
 * request, an ACK, a RST.  When the connection is bound, its timestamp
 * is the client's newest TSval through the binding's offset (the caller
 * works it out), so the server sees one monotonic clock whether a
 * segment came from the client or from us.  A client without timestamps
 * sends segments without them, which Linux accepts on a connection that
 * has them (PAWS applies only to segments that carry one); ours go the
 * same way, as there is no client clock to follow.  @opts: the options
 * it carries (timestamps, a D-SACK block), or NULL.
 */
void l7_send_pconn(struct l7_pconn *pc, u8 flags, u32 seq, u32 ack,
		   u16 win, const struct l7_tcp_opts *opts, const void *data,
		   u32 len)
{
	u8 opt[MAX_TCP_OPTION_SPACE];
	struct l7_seg s = {
		.af = pc->pool->af,
		.saddr = pc->tcp.laddr,
		.daddr = pc->pool->baddr,
		.sport = pc->tcp.lport,
		.dport = pc->pool->bport,
		.seq = seq,
		.ack = ack,
		.flags = flags | (flags & TCPHDR_RST ? 0 : TCPHDR_ACK),
		.win = win,
		.opt = opt,
		.data = data,
		.len = len,
		.dst = &pc->dst,
	};

	if (opts)
		s.optlen = l7_tcp_opts_build(opt, sizeof(opt), opts);
	l7_xmit(pc->pool->net, &s);
}

/* A segment back to where @in came from, of its family. */
static void l7_seg_answer(struct l7_seg *s, const struct sk_buff *in)
{
	s->af = l7_skb_af(in);
	if (s->af == AF_INET) {
		s->saddr.ip = ip_hdr(in)->daddr;
		s->daddr.ip = ip_hdr(in)->saddr;
	} else {
		s->saddr.in6 = ipv6_hdr(in)->daddr;
		s->daddr.in6 = ipv6_hdr(in)->saddr;
	}
}

void l7_send_synack(struct net *net, const struct sk_buff *syn, u32 cookie,
		    u16 mss, int wscale, bool sack, bool ts, u32 tsecr)
{
	const struct tcphdr *th = tcp_hdr(syn);
	struct l7_tcp_opts want = { 0 };
	u8 opt[MAX_TCP_OPTION_SPACE];
	struct l7_seg s = {
		.sport = th->dest,
		.dport = th->source,
		.seq = cookie,
		.ack = ntohl(th->seq) + 1,
		.flags = TCPHDR_SYN | TCPHDR_ACK,
		.win = 65535,	/* never scaled in a SYN */
		.opt = opt,
	};

	if (l7_unanswerable(syn))
		return;
	l7_seg_answer(&s, syn);

	want.present = L7_TCPO_MSS;
	want.mss = mss;
	if (wscale >= 0) {
		want.present |= L7_TCPO_WSCALE;
		want.wscale = L7_OUR_WSCALE;
	}
	if (sack)
		want.present |= L7_TCPO_SACK_PERM;
	/* the cookie carries the options; a TSval carries them exactly */
	if (ts) {
		want.present |= L7_TCPO_TS;
		want.tsval = l7_cookie_ts_encode(l7_now_ts() +
						 l7_ts_clock_off(net, s.af,
								 &s.saddr,
								 &s.daddr),
						 wscale, sack);
		want.tsecr = tsecr;
	}
	s.optlen = l7_tcp_opts_build(opt, sizeof(opt), &want);
	l7_xmit(net, &s);
}

/*
 * A keepalive-style probe of a connection the other director had, from
 * its record @k (TSval clock @ts_off ahead of ours): one sequence number
 * before what the client expects, which it must answer with an ACK
 * carrying its own sequence and acknowledgment numbers (RFC 9293
 * 3.10.7.4).  That answer then decides: at the record's request
 * boundary it is taken over, else it is reset (l7_client_new()).
 */
/* A record's tuple as addresses (the rest zero); its family. */
u16 l7_ckpt_tuple_addrs(const struct l7_ckpt_tuple *t,
			union nf_inet_addr *caddr, union nf_inet_addr *vaddr)
{
	l7_addr_get(caddr, t->family, t->caddr);
	return l7_addr_get(vaddr, t->family, t->vaddr);
}

void l7_send_probe(struct net *net, const struct l7_ckpt_conn *k,
		   u32 ts_off)
{
	struct l7_tcp_opts want = { 0 };
	u8 opt[MAX_TCP_OPTION_SPACE];
	struct l7_seg s = {
		.sport = htons(k->t.vport),
		.dport = htons(k->t.cport),
		.seq = k->snd_nxt - 1,
		.ack = k->rcv_nxt,
		.flags = TCPHDR_ACK,
		.win = k->d_wscale > 0 ? 65535 >> k->d_wscale : 65535,
		.opt = opt,
	};

	s.af = l7_ckpt_tuple_addrs(&k->t, &s.daddr, &s.saddr);
	/*
	 * A record is the peer's word: its client may be an address no
	 * segment of ours should reach, its VIP one we do not hold.
	 */
	if (l7_addr_unanswerable(net, s.af, &s.daddr) ||
	    !l7_addr_local(net, s.af, &s.saddr))
		return;
	if (k->ts) {
		u32 now = l7_now_ts() + ts_off;

		want.present = L7_TCPO_TS;
		want.tsval = before(now, k->ts_last) ? k->ts_last : now;
		want.tsecr = k->ts_recent;
		s.optlen = l7_tcp_opts_build(opt, sizeof(opt), &want);
	}
	l7_xmit(net, &s);
}

/* RST for a segment that belongs to no connection (RFC 9293 3.10.7.1). */
void l7_send_rst(struct net *net, const struct sk_buff *in)
{
	const struct tcphdr *th = tcp_hdr(in);
	struct l7_seg s = {
		.sport = th->dest,
		.dport = th->source,
	};

	if (th->rst || l7_unanswerable(in))
		return;
	l7_seg_answer(&s, in);
	if (th->ack) {
		s.seq = ntohl(th->ack_seq);
		s.flags = TCPHDR_RST;
	} else {
		s.ack = ntohl(th->seq) + th->syn + th->fin +
			in->len - l7_nhlen(in) - th->doff * 4;
		s.flags = TCPHDR_RST | TCPHDR_ACK;
	}
	l7_xmit(net, &s);
}
