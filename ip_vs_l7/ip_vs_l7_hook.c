// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the packet hook of the data path.
 *
 * It sits at PRE_ROUTING before conntrack (NF_IP_PRI_RAW - 1, and
 * NF_IP6_PRI_RAW - 1 for IPv6), after defragmentation: the director answers these flows itself and rewrites
 * them, so conntrack must never see them - it would only ever see one
 * side of each and call the other INVALID, which an "ct state invalid
 * drop" ruleset would then drop.  Everything addressed to the VIP:port
 * of an l7 service is consumed here, so IPVS (LOCAL_IN) never makes L4
 * connections for it.  Other traffic passes untouched, most of it
 * without a lookup (ip_vs_l7_ports.c), and a namespace without a spliced
 * l7 service has no hook of ours at all (l7_hook_get()).
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/ip.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/tcp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/netns/generic.h>

#include "ip_vs_l7.h"

/*
 * Header sanity and checksum of a segment we take; pulls the TCP header
 * with its options and sets the transport header there.  (Only then:
 * IPv6 input parses extension headers from the transport header of a
 * packet we let pass.)
 */
static bool l7_tcp_valid(struct sk_buff *skb, unsigned int thoff,
			 const struct nf_hook_state *state)
{
	const struct tcphdr *th;

	if (!pskb_may_pull(skb, thoff + sizeof(*th)))
		return false;
	th = (const struct tcphdr *)(skb->data + thoff);
	if (th->doff < sizeof(*th) / 4 ||
	    !pskb_may_pull(skb, thoff + th->doff * 4))
		return false;
	skb_set_transport_header(skb, thoff);
	return !nf_checksum(skb, state->hook, thoff, IPPROTO_TCP, state->pf);
}

/*
 * A server's segment on a spliced pooled connection: to the binding it
 * serves, if any - the connection may be given back and bound again
 * between the lookup and the lock, hence a second look - else to the
 * pool, which speaks for idle ones.
 */
static unsigned int l7_server_packet(struct l7_pconn *pc, struct sk_buff *skb)
{
	unsigned int verdict;
	struct l7_conn *c;
	int tries;

	for (tries = 0; tries < 2; tries++) {
		c = READ_ONCE(pc->conn);
		if (!c)
			break;
		if (l7_backend_packet(c, pc, skb, &verdict))
			return verdict;
	}
	return l7_pool_idle_packet(pc, skb);
}

/* A TCP segment's addresses, of the hook's family, and where it starts. */
struct l7_tuple {
	u16			af;
	unsigned int		thoff;
	union nf_inet_addr	saddr;
	union nf_inet_addr	daddr;
};

/*
 * A segment to an l7 VIP's port: a client connection's, or the start of
 * one (SYN, cookie ACK) if the tuple is an l7 service's.  False when it
 * is neither: the packet is not ours.
 */
static bool l7_vip_packet(struct sk_buff *skb, const struct l7_tuple *t,
			  const struct tcphdr *th,
			  const struct nf_hook_state *state,
			  unsigned int *verdict)
{
	struct l7_service *ls;
	struct l7_conn *c;

	c = l7_conn_lookup(state->net, t->af, &t->saddr, th->source, &t->daddr,
			   th->dest);
	if (c) {
		*verdict = l7_tcp_valid(skb, t->thoff, state) ?
			   l7_client_packet(c, skb) : NF_DROP;
		return true;
	}
	ls = l7_service_lookup(state->net, t->af, &t->daddr, th->dest);
	/* a connection IPVS made before "-E -s l7" stays IPVS's */
	if (!ls || l7_service_ipvs_conn(state->net, t->af, &t->saddr,
					th->source, &t->daddr, th->dest))
		return false;
	/*
	 * A VIP this director does not hold (the backup's, before VRRP
	 * moves it) is not ours to answer for: no SYN-ACK, no connection,
	 * no takeover of a record - the packet goes where routing sends
	 * it.  Only here, where no connection matched: one made is ours.
	 */
	if (!l7_addr_local(state->net, t->af, &t->daddr))
		return false;
	/*
	 * No connection has a martian client (none is ever made for one),
	 * so this is the one place such a source can reach us: ignore it,
	 * as routing would have.
	 */
	if (l7_unanswerable(skb) || !l7_tcp_valid(skb, t->thoff, state))
		*verdict = NF_DROP;
	else
		*verdict = l7_client_new(ls, skb);
	return true;
}

/* A segment from a pooled server's port: a pooled connection's, if any. */
static bool l7_pooled_packet(struct sk_buff *skb, const struct l7_tuple *t,
			     const struct tcphdr *th,
			     const struct nf_hook_state *state,
			     unsigned int *verdict)
{
	struct l7_pconn *pc;

	pc = l7_pconn_lookup(state->net, t->af, &t->saddr, th->source,
			     &t->daddr, th->dest);
	if (!pc)
		return false;
	*verdict = l7_tcp_valid(skb, t->thoff, state) ? l7_server_packet(pc, skb) :
					      NF_DROP;
	return true;
}

/* A TCP segment at @thoff, either family: ours or not. */
static unsigned int l7_tcp_packet(struct sk_buff *skb,
				  const struct l7_tuple *t,
				  const struct l7_ports *ports,
				  const struct nf_hook_state *state)
{
	const struct tcphdr *th;
	unsigned int verdict;
	struct tcphdr _th;

	th = skb_header_pointer(skb, t->thoff, sizeof(_th), &_th);
	if (!th)
		return NF_ACCEPT;
	if (l7_ports_vip(ports, th->dest) &&
	    l7_vip_packet(skb, t, th, state, &verdict))
		return verdict;
	if (l7_ports_server(ports, th->source) &&
	    l7_pooled_packet(skb, t, th, state, &verdict))
		return verdict;
	return NF_ACCEPT;
}

static unsigned int l7_hook_fn(void *priv, struct sk_buff *skb,
			       const struct nf_hook_state *state)
{
	const struct iphdr *iph = ip_hdr(skb);
	const struct l7_ports *ports;
	struct l7_tuple t;

	if (ip_is_fragment(iph))
		return NF_ACCEPT;
	/* netfilter hooks run under rcu_read_lock() */
	ports = l7_ports_get(state->net);
	if (!ports)
		return NF_ACCEPT;	/* no l7 service in this namespace */
	if (iph->protocol == IPPROTO_ICMP)
		return l7_icmp_packet(skb, ports, state);
	if (iph->protocol == IPPROTO_IPIP || iph->protocol == IPPROTO_IPV6)
		return l7_fwd_rcv(skb, iph, state);
	if (iph->protocol != IPPROTO_TCP)
		return NF_ACCEPT;
	t.af = AF_INET;
	t.thoff = ip_hdrlen(skb);
	t.saddr.ip = iph->saddr;
	t.daddr.ip = iph->daddr;
	return l7_tcp_packet(skb, &t, ports, state);
}

/*
 * IPv6: the segment after any extension headers (a fragment is left
 * alone: nf_defrag_ipv6, before us, reassembles what it can).
 */
static unsigned int l7_hook6_fn(void *priv, struct sk_buff *skb,
				const struct nf_hook_state *state)
{
	const struct ipv6hdr *ip6h = ipv6_hdr(skb);
	const struct l7_ports *ports;
	u8 nexthdr = ip6h->nexthdr;
	struct l7_tuple t;
	__be16 frag_off;
	int thoff;

	ports = l7_ports_get(state->net);
	if (!ports)
		return NF_ACCEPT;
	thoff = ipv6_skip_exthdr(skb, sizeof(*ip6h), &nexthdr, &frag_off);
	if (thoff < 0 || frag_off)
		return NF_ACCEPT;
	if (nexthdr == IPPROTO_ICMPV6)
		return l7_icmp6_packet(skb, thoff, ports, state);
	if (nexthdr != IPPROTO_TCP)
		return NF_ACCEPT;
	t.af = AF_INET6;
	t.thoff = thoff;
	t.saddr.in6 = ip6h->saddr;
	t.daddr.in6 = ip6h->daddr;
	return l7_tcp_packet(skb, &t, ports, state);
}

/*
 * Guard at LOCAL_OUT: a pooled socket the data path took over has stale
 * numbers, and anything it sent would confuse its server.  It has no
 * data, timers or keepalive that could send, but should the stack ever
 * find a reason (a change in some kernel), this drops it.
 */
static unsigned int l7_guard_fn(void *priv, struct sk_buff *skb,
				const struct nf_hook_state *state)
{
	struct sock *sk = skb->sk;

	if (sk && sk_fullsock(sk) && l7_pool_sock_spliced(sk)) {
		net_warn_ratelimited("ip_vs_l7: dropped a segment of a spliced pooled socket\n");
		return NF_DROP;
	}
	return NF_ACCEPT;
}

static const struct nf_hook_ops l7_hook_ops[] = {
	{
		.hook		= l7_hook_fn,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_PRE_ROUTING,
		.priority	= NF_IP_PRI_RAW - 1,
	},
	{
		.hook		= l7_guard_fn,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_LOCAL_OUT,
		.priority	= NF_IP_PRI_FIRST,
	},
	{
		.hook		= l7_hook6_fn,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_PRE_ROUTING,
		.priority	= NF_IP6_PRI_RAW - 1,
	},
	{
		.hook		= l7_guard_fn,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_LOCAL_OUT,
		.priority	= NF_IP6_PRI_FIRST,
	},
};

/*
 * The hooks are in a namespace only while it has a spliced l7 service,
 * as IPVS registers its own only with services (and reassembly comes
 * with one too, l7_service_init()): every other namespace, and a
 * director while it has none, pass no hook of ours - not even the call.
 * Services come and go in process context (IPVS's add, edit and delete,
 * and its namespace exit), which nf_(un)register_net_hooks() need.
 */
struct l7_hook_net {
	unsigned int	users;		/* spliced l7 services */
};

static unsigned int l7_hook_net_id __read_mostly;
static DEFINE_MUTEX(l7_hook_mutex);

static struct l7_hook_net *l7_hook_net(const struct net *net)
{
	return net_generic(net, l7_hook_net_id);
}

/* A spliced service of @net comes: the hooks see its packets from now. */
int l7_hook_get(struct net *net)
{
	struct l7_hook_net *hn = l7_hook_net(net);
	int err = 0;

	mutex_lock(&l7_hook_mutex);
	if (!hn->users)
		err = nf_register_net_hooks(net, l7_hook_ops,
					    ARRAY_SIZE(l7_hook_ops));
	if (!err)
		hn->users++;
	mutex_unlock(&l7_hook_mutex);
	return err;
}

/*
 * A spliced service of @net went, with its connections and pools: the
 * last one takes the hooks (nf_unregister_net_hooks() waits for packets
 * still in them).  No socket of a pool needs the LOCAL_OUT guard then: a
 * spliced one left without a word (TCP_REPAIR, l7_pconn_close()).
 */
void l7_hook_put(struct net *net)
{
	struct l7_hook_net *hn = l7_hook_net(net);

	mutex_lock(&l7_hook_mutex);
	if (!WARN_ON_ONCE(!hn->users) && !--hn->users)
		nf_unregister_net_hooks(net, l7_hook_ops,
					ARRAY_SIZE(l7_hook_ops));
	mutex_unlock(&l7_hook_mutex);
}

static struct pernet_operations l7_hook_net_ops = {
	.id = &l7_hook_net_id,
	.size = sizeof(struct l7_hook_net),
};

int l7_hook_init(void)
{
	return register_pernet_subsys(&l7_hook_net_ops);
}

void l7_hook_exit(void)
{
	unregister_pernet_subsys(&l7_hook_net_ops);
}
