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
 * (RFC 5927), so a blind attacker cannot shrink a flow's segments.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/icmp.h>
#include <linux/ip.h>
#include <linux/netfilter.h>
#include <linux/tcp.h>
#include <net/ip.h>
#include <net/tcp.h>

#include "ip_vs_l7.h"

/* The payload a segment of ours may carry on a path of @mtu. */
static u16 l7_mtu_to_mss(u32 mtu)
{
	return max_t(u32, mtu, IPV4_MIN_MTU) - sizeof(struct iphdr) -
	       sizeof(struct tcphdr);
}

/* An error about a segment the director sent to a client. */
static void l7_icmp_client(struct net *net, const struct iphdr *in,
			   const struct tcphdr *th, u32 mtu)
{
	union nf_inet_addr caddr = { .ip = in->daddr };
	union nf_inet_addr vaddr = { .ip = in->saddr };
	u32 seq = ntohl(th->seq);
	struct l7_conn *c;

	c = l7_conn_lookup(net, AF_INET, &caddr, th->dest, &vaddr, th->source);
	if (!c)
		return;
	spin_lock_bh(&c->lock);
	if (!c->dead && !before(seq, c->d_snd_una) &&
	    before(seq, c->d_snd_nxt) && l7_mtu_to_mss(mtu) < c->c_mss)
		c->c_mss = l7_mtu_to_mss(mtu);
	spin_unlock_bh(&c->lock);
}

/* An error about a segment the director sent on a spliced pooled one. */
static void l7_icmp_backend(struct net *net, const struct iphdr *in,
			    const struct tcphdr *th, u32 mtu)
{
	union nf_inet_addr baddr = { .ip = in->daddr };
	union nf_inet_addr laddr = { .ip = in->saddr };
	u32 seq = ntohl(th->seq);
	struct l7_binding *b;
	struct l7_pconn *pc;
	struct l7_conn *c;

	pc = l7_pconn_lookup(net, AF_INET, &baddr, th->dest, &laddr,
			     th->source);
	if (!pc)
		return;
	c = READ_ONCE(pc->conn);
	if (!c)
		return;	/* idle: the director sends nothing there */
	spin_lock_bh(&c->lock);
	b = c->dead ? NULL : l7_binding_of(c, pc);
	if (b && !before(seq, b->b_acked) && before(seq, b->b_snd_nxt) &&
	    l7_mtu_to_mss(mtu) < pc->tcp.mss)
		pc->tcp.mss = l7_mtu_to_mss(mtu);
	spin_unlock_bh(&c->lock);
}

/* The part of a quoted TCP header that RFC 792 guarantees: 8 bytes. */
struct l7_tcp_quote {
	__be16	source;
	__be16	dest;
	__be32	seq;
};

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
	const struct l7_tcp_quote *q;
	struct l7_tcp_quote _q;
	unsigned int off = ip_hdrlen(skb);
	const typeof(_h) *h;
	bool to_client, to_server;
	struct tcphdr th = { };
	u32 mtu;

	h = skb_header_pointer(skb, off, sizeof(_h), &_h);
	if (!h || h->icmp.type != ICMP_DEST_UNREACH ||
	    h->icmp.code != ICMP_FRAG_NEEDED || h->ip.version != 4 ||
	    h->ip.ihl < 5 || h->ip.protocol != IPPROTO_TCP ||
	    ip_is_fragment(&h->ip))
		return NF_ACCEPT;
	q = skb_header_pointer(skb, off + sizeof(h->icmp) + h->ip.ihl * 4,
			       sizeof(_q), &_q);
	if (!q)
		return NF_ACCEPT;
	/* quoting a segment from a VIP's port, or to a pooled server's */
	to_client = l7_ports_vip(ports, q->source);
	to_server = l7_ports_server(ports, q->dest);
	if ((!to_client && !to_server) ||
	    nf_ip_checksum(skb, state->hook, off, IPPROTO_IP))
		return NF_ACCEPT;
	th.source = q->source;
	th.dest = q->dest;
	th.seq = q->seq;
	mtu = ntohs(h->icmp.un.frag.mtu);
	if (to_client)
		l7_icmp_client(state->net, &h->ip, &th, mtu);
	if (to_server)
		l7_icmp_backend(state->net, &h->ip, &th, mtu);
	return NF_ACCEPT;
}
