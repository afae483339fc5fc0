// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: path MTU for spliced flows.
 *
 * A router that cannot forward one of the director's segments without
 * fragmenting it answers "fragmentation needed" (RFC 1191) to the
 * segment's source - the VIP on a client connection, the director's own
 * address on a pooled one.  No socket owns a spliced flow, so the stack
 * would drop the error and the flow would stall on the too-large
 * segments.  The data path lowers the segment size of the side the error
 * is about instead, and lets the packet go on to the stack (an idle
 * pooled socket learns from it as usual).  The quoted segment must lie in
 * the window of data the director has sent on that side, as TCP checks
 * (RFC 5927), so a blind attacker cannot shrink a flow's segments; and
 * the segment size never goes below Linux's floor (core/tcp_pmtu.h), so
 * that a client cannot make the director answer in tiny segments.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/netfilter.h>
#include <linux/tcp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/tcp.h>

#include "ip_vs_l7.h"
#include "core/tcp_pmtu.h"

/* The part of a quoted TCP header that RFC 792 guarantees: 8 bytes. */
struct l7_tcp_quote {
	__be16	source;
	__be16	dest;
	__be32	seq;
};

/* A quoted segment of ours: its addresses, ports and seq. */
struct l7_quote {
	u16			af;
	union nf_inet_addr	saddr;	/* ours: the VIP or a pooled end */
	union nf_inet_addr	daddr;
	struct l7_tcp_quote	tcp;
};

/*
 * The MSS a side of ours at @cur may be lowered to on a path of @mtu,
 * with the floors the namespace's sysctls set for its own sockets.
 */
static u16 l7_mtu_to_mss(struct net *net, u16 af, u32 mtu, u16 cur)
{
	struct l7_pmtu_floor floor = {
		.min_pmtu = READ_ONCE(net->ipv4.ip_rt_min_pmtu),
		.min_snd_mss = READ_ONCE(net->ipv4.sysctl_tcp_min_snd_mss),
	};

	return l7_pmtu_mss(af == AF_INET6, mtu, &floor, cur);
}

/* An error about a segment the director sent to a client. */
static void l7_icmp_client(struct net *net, const struct l7_quote *q,
			   u32 mtu)
{
	u32 seq = ntohl(q->tcp.seq);
	struct l7_conn *c;

	c = l7_conn_lookup(net, q->af, &q->daddr, q->tcp.dest, &q->saddr,
			   q->tcp.source);
	if (!c)
		return;
	spin_lock_bh(&c->lock);
	if (!c->dead && !before(seq, c->d_snd_una) &&
	    before(seq, c->d_snd_nxt))
		c->c_mss = l7_mtu_to_mss(net, q->af, mtu, c->c_mss);
	spin_unlock_bh(&c->lock);
}

/* An error about a segment the director sent on a spliced pooled one. */
static void l7_icmp_backend(struct net *net, const struct l7_quote *q,
			    u32 mtu)
{
	u32 seq = ntohl(q->tcp.seq);
	struct l7_binding *b;
	struct l7_pconn *pc;
	struct l7_conn *c;

	pc = l7_pconn_lookup(net, q->af, &q->daddr, q->tcp.dest, &q->saddr,
			     q->tcp.source);
	if (!pc)
		return;
	c = READ_ONCE(pc->conn);
	if (!c)
		return;	/* idle: the director sends nothing there */
	spin_lock_bh(&c->lock);
	b = c->dead ? NULL : l7_binding_of(c, pc);
	if (b && !before(seq, b->b_acked) && before(seq, b->b_snd_nxt))
		pc->tcp.mss = l7_mtu_to_mss(net, q->af, mtu, pc->tcp.mss);
	spin_unlock_bh(&c->lock);
}

/* Either side the quote is about; checksum first, then the lookups. */
static void l7_icmp_quote(struct sk_buff *skb, unsigned int off,
			  u8 proto, const struct l7_quote *q,
			  const struct l7_ports *ports,
			  const struct nf_hook_state *state, u32 mtu)
{
	/* quoting a segment from a VIP's port, or to a pooled server's */
	bool to_client = l7_ports_vip(ports, q->tcp.source);
	bool to_server = l7_ports_server(ports, q->tcp.dest);

	if ((!to_client && !to_server) ||
	    nf_checksum(skb, state->hook, off, proto, state->pf))
		return;
	if (to_client)
		l7_icmp_client(state->net, q, mtu);
	if (to_server)
		l7_icmp_backend(state->net, q, mtu);
}

/*
 * Under RCU, from the hook: an ICMP message to the director.  Always
 * NF_ACCEPT: the stack sees it too.
 */
unsigned int l7_icmp_packet(struct sk_buff *skb, const struct l7_ports *ports,
			    const struct nf_hook_state *state)
{
	struct {
		struct icmphdr icmp;
		struct iphdr ip;
	} _h;
	const struct l7_tcp_quote *tq;
	struct l7_tcp_quote _q;
	unsigned int off = ip_hdrlen(skb);
	const typeof(_h) *h;
	struct l7_quote q = { .af = AF_INET };

	h = skb_header_pointer(skb, off, sizeof(_h), &_h);
	if (!h || h->icmp.type != ICMP_DEST_UNREACH ||
	    h->icmp.code != ICMP_FRAG_NEEDED || h->ip.version != 4 ||
	    h->ip.ihl < 5 || h->ip.protocol != IPPROTO_TCP ||
	    ip_is_fragment(&h->ip))
		return NF_ACCEPT;
	tq = skb_header_pointer(skb, off + sizeof(h->icmp) + h->ip.ihl * 4,
				sizeof(_q), &_q);
	if (!tq)
		return NF_ACCEPT;
	q.saddr.ip = h->ip.saddr;
	q.daddr.ip = h->ip.daddr;
	q.tcp = *tq;
	l7_icmp_quote(skb, off, IPPROTO_IP, &q, ports, state,
		      ntohs(h->icmp.un.frag.mtu));
	return NF_ACCEPT;
}

/*
 * Under RCU, from the hook: an ICMPv6 message at @off.  Packet too big
 * (RFC 8201) about a segment of ours, quoted without extension headers
 * (the director sends none).  Always NF_ACCEPT.
 */
unsigned int l7_icmp6_packet(struct sk_buff *skb, unsigned int off,
			     const struct l7_ports *ports,
			     const struct nf_hook_state *state)
{
	struct {
		struct icmp6hdr icmp;
		struct ipv6hdr ip;
		struct l7_tcp_quote tcp;
	} _h;
	const typeof(_h) *h;
	struct l7_quote q = { .af = AF_INET6 };

	h = skb_header_pointer(skb, off, sizeof(_h), &_h);
	if (!h || h->icmp.icmp6_type != ICMPV6_PKT_TOOBIG ||
	    h->ip.version != 6 || h->ip.nexthdr != IPPROTO_TCP)
		return NF_ACCEPT;
	q.saddr.in6 = h->ip.saddr;
	q.daddr.in6 = h->ip.daddr;
	q.tcp = h->tcp;
	l7_icmp_quote(skb, off, IPPROTO_ICMPV6, &q, ports, state,
		      ntohl(h->icmp.icmp6_mtu));
	return NF_ACCEPT;
}
