// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: a client's segment sent on to the director that holds its
 * connection, and taken from one.
 *
 * Directors side by side behind the routers' ECMP: when the routers move
 * a flow (a director joins or drains), the client's next segments reach
 * a director that has only the holder's record of the connection.  At a
 * request boundary it adopts it; in the middle of a request or a
 * response the holder alone can go on, so the segment goes to it
 * unchanged, inside an IPv4 header to its sync address (IP-in-IP, as
 * IPVS-TUN sends to a real server), until the holder's record of the
 * next boundary hands the connection over (core/conn_ckpt.h,
 * l7_ckpt_claim()).  The holder answers the client directly.
 *
 * The holder takes such packets in its own PRE_ROUTING hook, only from a
 * peer's sync address on the channel's interface, strips the outer
 * header and hands the client's segment to the stack as if it had come
 * in on that interface: from there it is any client segment, judged by
 * the connection as one from the client would be.  Whoever reaches the
 * sync link can send such a packet with a peer's address - and could
 * send the inner segment itself to the VIP from the client side: it
 * gains nothing a client does not have.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/ip.h>
#include <linux/netdevice.h>
#include <net/ip.h>
#include <net/ip_tunnels.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/route.h>

#include "ip_vs_l7.h"
#include "ip_vs_l7_sync.h"

/*
 * @skb, a client's segment (at PRE_ROUTING, its network header at data)
 * whose connection the peer at @to holds: sent on to it.  NF_STOLEN once
 * it is on its way, NF_DROP if it cannot be.  The outer header lets the
 * sync link fragment it (DF clear): a full-sized client segment is 20
 * bytes over a link of the clients' MTU.
 */
unsigned int l7_fwd_xmit(struct net *net, struct sk_buff *skb,
			 const union nf_inet_addr *to)
{
	u8 inner = ip_hdr(skb)->version == 4 ? IPPROTO_IPIP : IPPROTO_IPV6;
	struct flowi4 fl4 = {
		.daddr = to->ip,
		.flowi4_proto = inner,
	};
	struct iphdr *iph;
	struct rtable *rt;

	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return NF_DROP;
	skb_dst_drop(skb);
	skb_dst_set(skb, &rt->dst);
	if (skb_cow_head(skb, LL_RESERVED_SPACE(rt->dst.dev) + sizeof(*iph)) ||
	    iptunnel_handle_offloads(skb, SKB_GSO_IPXIP4))
		return NF_DROP;
	skb_set_inner_ipproto(skb, inner);

	skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	*iph = (struct iphdr){
		.version = 4,
		.ihl = sizeof(*iph) / 4,
		.ttl = ip4_dst_hoplimit(&rt->dst),
		.protocol = inner,
		.saddr = fl4.saddr,
		.daddr = fl4.daddr,
		.tot_len = htons(skb->len),
	};
	ip_select_ident(net, skb, NULL);
	skb->ignore_df = 1;
	skb->protocol = htons(ETH_P_IP);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	skb->tstamp = 0;
	nf_reset_ct(skb);
	nf_ct_set(skb, NULL, IP_CT_UNTRACKED);
	ip_local_out(net, NULL, skb);
	return NF_STOLEN;
}

/*
 * An IP-in-IP packet at PRE_ROUTING (@iph its outer header): a peer's
 * forwarded client segment, taken (NF_STOLEN: back to the stack without
 * its outer header, whose ip_rcv() or ipv6_rcv() checks the inner header
 * as any other) or dropped; anything else is not ours (NF_ACCEPT).
 */
unsigned int l7_fwd_rcv(struct sk_buff *skb, const struct iphdr *iph,
			const struct nf_hook_state *state)
{
	__be16 proto = iph->protocol == IPPROTO_IPIP ? htons(ETH_P_IP) :
						       htons(ETH_P_IPV6);

	if (!l7_sync_tunnel_from_peer(state->net, state->in, iph->saddr))
		return NF_ACCEPT;
	if (__iptunnel_pull_header(skb, iph->ihl * 4, proto, false, false))
		return NF_DROP;
	skb_reset_network_header(skb);
	skb_reset_mac_header(skb);
	skb->mac_len = 0;
	netif_rx(skb);
	return NF_STOLEN;
}
