// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: splicing packets between a client connection and the pooled
 * connections its requests are bound to (FPS steps 5-7), the seqadj of
 * this module.
 *
 * Every packet of a binding, both ways, is rewritten in place -
 * addresses, ports, seq/ack, timestamps, window, SACK - with the
 * binding's map from core/tcp_map.c and sent on; no socket sees it.
 * What a segment means - whether it is acceptable, where a body or a
 * response ends, what becomes of the binding, whether it goes and with
 * which numbers (core/splice_plan.c) - was decided before it got here
 * (ip_vs_l7_client.c, ip_vs_l7_server.c, ip_vs_l7_relay.c): the splice
 * writes no field of the connection or its bindings.  The guards read
 * payload through l7_skb_peek(), so paged skbs stay as they are.
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
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/route.h>
#include <net/tcp.h>
#include <net/netfilter/nf_conntrack.h>

#include "ip_vs_l7.h"
#include "ip_vs_l7_trace.h"
#include "core/tcp_opt.h"

/*
 * A segment of one family to a peer of the other (an IPv6 VIP in front
 * of IPv4 real servers, or back), an IPv6 one with extension headers or
 * an IPv4 one with options (they were the client's business with the
 * VIP): the director
 * terminated the client's TCP, so only the network header changes.  It
 * is built anew - no extension headers, the DS field carried over,
 * length, TTL/hop limit and checksums set on the way out (l7_forward),
 * the input's control block cleared - and the TCP header and payload
 * stay where they are.  GSO state follows the new family.
 */
static int l7_seg_rebuild(struct sk_buff *skb, u16 af)
{
	u32 nhlen = l7_nhlen(skb);
	u32 newlen = af == AF_INET ? sizeof(struct iphdr) :
				     sizeof(struct ipv6hdr);
	u8 ds = l7_skb_af(skb) == AF_INET6 ? ipv6_get_dsfield(ipv6_hdr(skb)) :
					     ipv4_get_dsfield(ip_hdr(skb));

	/* rare: the GSO type below is in the shared info */
	if (skb_unclone(skb, GFP_ATOMIC) ||
	    (newlen > nhlen && skb_cow_head(skb, newlen - nhlen)))
		return -ENOMEM;
	memset(skb->cb, 0, sizeof(skb->cb));
	__skb_pull(skb, nhlen);
	skb_push(skb, newlen);
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, newlen);
	memset(skb->data, 0, newlen);
	if (af == AF_INET) {
		struct iphdr *iph = ip_hdr(skb);

		iph->version = 4;
		iph->ihl = sizeof(*iph) / 4;
		iph->tos = ds;
		iph->frag_off = htons(IP_DF);
		iph->protocol = IPPROTO_TCP;
		skb->protocol = htons(ETH_P_IP);
	} else {
		ip6_flow_hdr(ipv6_hdr(skb), ds, 0);
		ipv6_hdr(skb)->nexthdr = IPPROTO_TCP;
		skb->protocol = htons(ETH_P_IPV6);
	}
	l7_set_ip_len(skb);
	if (skb_is_gso(skb)) {
		unsigned int *type = &skb_shinfo(skb)->gso_type;

		*type &= ~(SKB_GSO_TCPV4 | SKB_GSO_TCPV6);
		*type |= af == AF_INET ? SKB_GSO_TCPV4 : SKB_GSO_TCPV6;
	}
	return 0;
}

/*
 * Readdress @skb to go out as @af.  A network header other than the plain
 * one of that family - the other family, IPv6 extension headers, IPv4
 * options (source routes, CIPSO labels, Router Alert: the sender's, the
 * hook ran before the stack looked at them) - is rebuilt plain: nothing
 * of it is the receiver's business.
 */
static int l7_seg_readdress(struct sk_buff *skb, u16 af,
			    const union nf_inet_addr *saddr, __be16 sport,
			    const union nf_inet_addr *daddr, __be16 dport)
{
	u32 plain = af == AF_INET ? sizeof(struct iphdr) :
				    sizeof(struct ipv6hdr);
	struct tcphdr *th;

	if ((l7_skb_af(skb) != af || l7_nhlen(skb) != plain) &&
	    l7_seg_rebuild(skb, af))
		return -ENOMEM;
	th = tcp_hdr(skb);
	if (af == AF_INET) {
		ip_hdr(skb)->saddr = saddr->ip;
		ip_hdr(skb)->daddr = daddr->ip;
	} else {
		ipv6_hdr(skb)->saddr = saddr->in6;
		ipv6_hdr(skb)->daddr = daddr->in6;
	}
	th->source = sport;
	th->dest = dport;
	return 0;
}

/* A SYN has no business in an established splice. */
static bool l7_seg_syn(const struct sk_buff *skb)
{
	return tcp_hdr(skb)->syn;
}

/*
 * Parse the options of a segment to forward, and NOP out in place all
 * but the known set (core/tcp_guard.h says why): the other side gets
 * only options the director read.  An area that does not parse fails,
 * and the segment is dropped.  Called on writable headers (SYNs never
 * get here), and the checksum is recomputed on the way out.
 */
static int l7_seg_opts(struct sk_buff *skb, struct l7_tcp_opts *o)
{
	struct tcphdr *th = tcp_hdr(skb);
	int rc;

	rc = l7_tcp_opts_sanitize((u8 *)(th + 1), th->doff * 4 - sizeof(*th),
				  false, o);
	return rc < 0 ? rc : 0;
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
	l7_tcp_hdr_no_urgent((u8 *)th);	/* either way: core/tcp_guard.h */
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

/*
 * IPv6: the hop limit of the route, and the full pseudo-header sum (the
 * addresses changed whole: no shortcut).
 */
static void l7_forward_prep6(struct sk_buff *skb, struct dst_entry *dst,
			     u32 tcplen)
{
	struct ipv6hdr *ip6h = ipv6_hdr(skb);

	ip6h->hop_limit = ip6_dst_hoplimit(dst);
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));	/* the input's */
	tcp_hdr(skb)->check = ~csum_ipv6_magic(&ip6h->saddr, &ip6h->daddr,
					       tcplen, IPPROTO_TCP, 0);
}

static void l7_forward_prep4(struct net *net, struct sk_buff *skb,
			     u32 tcplen)
{
	struct iphdr *iph = ip_hdr(skb);

	iph->ttl = READ_ONCE(net->ipv4.sysctl_ip_default_ttl);
	ip_send_check(iph);
	tcp_hdr(skb)->check = ~tcp_v4_check(tcplen, iph->saddr, iph->daddr, 0);
}

/*
 * GSO state from GRO may be stale after a trim: one segment goes as it
 * is, more are cut again to @mss and counted afresh here.  (Left to the
 * stack with SKB_GSO_DODGY, every aggregate went through the GSO
 * callbacks on its way out of a device without NETIF_F_GSO_ROBUST -
 * veth, bridges, most NICs - to be counted.)  The shared info is the
 * clone's original's too (l7_seg_writable()): it is unshared only if a
 * field must change, which a server's aggregate at the client's MSS
 * never needs.
 */
static int l7_seg_gso(struct sk_buff *skb, bool v4, u32 payload, u32 mss)
{
	struct skb_shared_info *shinfo = skb_shinfo(skb);
	unsigned int type = v4 ? SKB_GSO_TCPV4 : SKB_GSO_TCPV6;
	unsigned int size;

	/* a connection's MSS is floored (l7_conn_restore()): never divide by 0 */
	if (WARN_ON_ONCE(!mss && payload))
		return -EINVAL;
	if (payload <= mss) {
		if (!skb_is_gso(skb))
			return 0;
		if (skb_unclone(skb, GFP_ATOMIC))
			return -ENOMEM;
		skb_gso_reset(skb);
		return 0;
	}
	size = skb_is_gso(skb) ? min(shinfo->gso_size, mss) : mss;
	if (skb_is_gso(skb) && shinfo->gso_size == size &&
	    shinfo->gso_segs == DIV_ROUND_UP(payload, size) &&
	    !(shinfo->gso_type & SKB_GSO_DODGY))
		return 0;
	if (skb_unclone(skb, GFP_ATOMIC))
		return -ENOMEM;
	shinfo = skb_shinfo(skb);
	if (!skb_is_gso(skb))
		shinfo->gso_type = type;
	shinfo->gso_size = size;
	shinfo->gso_segs = DIV_ROUND_UP(payload, size);
	/* the headers are ours now, and the count is right */
	shinfo->gso_type &= ~SKB_GSO_DODGY;
	return 0;
}

/*
 * Send a rewritten skb on, readdressed from @saddr to @daddr (the pair
 * @dc routes), cut to @mss payload bytes per segment, and to what the
 * route's MTU carries with this segment's options: the client's options
 * (SACK blocks, say) are not the ones the receiver's MSS was announced
 * for, and a segment over the MTU with DF set would only make an ICMP
 * error addressed to the director itself.
 */
static unsigned int l7_forward(struct net *net, struct sk_buff *skb, u32 mss,
			       struct l7_dst_cache *dc,
			       const union nf_inet_addr *saddr,
			       const union nf_inet_addr *daddr)
{
	bool v4 = ip_hdr(skb)->version == 4;
	struct tcphdr *th = tcp_hdr(skb);
	u32 tcplen = skb->len - l7_nhlen(skb);
	u32 payload = tcplen - th->doff * 4;
	struct dst_entry *dst;
	u32 room;

	rcu_read_lock();
	dst = l7_dst_attach(skb, net, dc, v4 ? AF_INET : AF_INET6, saddr,
			    daddr);
	if (!dst) {
		rcu_read_unlock();
		return NF_DROP;
	}
	if (v4)
		l7_forward_prep4(net, skb, tcplen);
	else
		l7_forward_prep6(skb, dst, tcplen);
	room = dst_mtu(dst) - l7_nhlen(skb) - th->doff * 4;
	if (room < mss)
		mss = max_t(u32, room, TCP_MIN_MSS);

	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_transport_header(skb) - skb->head;
	skb->csum_offset = offsetof(struct tcphdr, check);

	if (l7_seg_gso(skb, v4, payload, mss)) {
		rcu_read_unlock();
		return NF_DROP;
	}
	skb->tstamp = 0;
	skb->ipvs_property = 1;
	nf_reset_ct(skb);
	nf_ct_set(skb, NULL, IP_CT_UNTRACKED);
	if (v4)
		ip_local_out(net, NULL, skb);
	else
		ip6_local_out(net, NULL, skb);
	rcu_read_unlock();
	return NF_STOLEN;
}

/*
 * Make the headers ours to write.  A segment that came through veth or
 * loopback is a clone of the skb its sender's TCP keeps to retransmit:
 * the headers, pushed after the clone was taken, are the clone's alone
 * (skb_clone_writable()), so nothing is copied - only payload written
 * in place (l7_seg_cut_front(), the response guard's pokes) or shared
 * info (l7_seg_gso(), l7_seg_rebuild()) is unshared first, where it is.
 * A reassembled datagram (frag_list) is made one: GSO cannot cut it.
 */
static int l7_seg_writable(struct sk_buff *skb)
{
	if (skb_has_frag_list(skb) && skb_linearize(skb))
		return -ENOMEM;
	return skb_ensure_writable(skb, l7_nhlen(skb) + tcp_hdrlen(skb));
}

void l7_seg_read(const struct sk_buff *skb, const struct l7_tcp_opts *o,
		 struct l7_tcp_seg *s)
{
	const struct tcphdr *th = tcp_hdr(skb);

	s->seq = ntohl(th->seq);
	s->ack = ntohl(th->ack_seq);
	s->len = skb->len - l7_nhlen(skb) - th->doff * 4 + th->syn + th->fin;
	s->win = ntohs(th->window);
	s->ts = o->present & L7_TCPO_TS;
	s->ts_room = th->doff * 4 + TCPOLEN_TSTAMP_ALIGNED <=
		     sizeof(*th) + MAX_TCP_OPTION_SPACE;
	s->tsval = o->tsval;
	s->tsecr = o->tsecr;
}

/*
 * Ready a spliced segment for rewriting: headers ours to write, options
 * parsed, numbers read.  A SYN has no business in an established splice.
 */
int l7_seg_take(struct sk_buff *skb, struct l7_tcp_opts *o,
		struct l7_tcp_seg *s)
{
	if (l7_seg_syn(skb) || l7_seg_writable(skb) || l7_seg_opts(skb, o))
		return -EINVAL;
	l7_seg_read(skb, o, s);
	return 0;
}

/*
 * Cut @skb's payload to its first @keep bytes (a FIN after them goes
 * too): the rest belongs to someone else.
 */
int l7_seg_trim(struct sk_buff *skb, u32 hlen, u32 keep)
{
	if (skb->len <= hlen + keep)
		return 0;
	if (pskb_trim(skb, hlen + keep))
		return -ENOMEM;
	if (skb_ensure_writable(skb, hlen))
		return -ENOMEM;
	l7_set_ip_len(skb);
	tcp_hdr(skb)->fin = 0;
	tcp_hdr(skb)->psh = 0;
	return 0;
}

/*
 * A timestamp option (@tsval, @tsecr) after the options of @skb, a pure
 * ACK (L7_SEG_ADD_TS): its header grows by 12 bytes at the tail, made
 * the skb's own first.  If that cannot be, it goes without, as the
 * client sent it.
 */
static void l7_seg_add_ts(struct sk_buff *skb, u32 tsval, u32 tsecr)
{
	int short_by = TCPOLEN_TSTAMP_ALIGNED - skb_tailroom(skb);
	u8 opt[TCPOLEN_TSTAMP_ALIGNED];
	struct l7_tcp_opts o;

	l7_tcp_opts_own(&o, true, tsval, tsecr, NULL);
	if (l7_tcp_opts_build(opt, sizeof(opt), &o) != sizeof(opt) ||
	    skb_is_nonlinear(skb))
		return;
	if ((skb_cloned(skb) || short_by > 0) &&
	    pskb_expand_head(skb, 0, max(short_by, 0), GFP_ATOMIC))
		return;
	skb_put_data(skb, opt, sizeof(opt));
	tcp_hdr(skb)->doff += sizeof(opt) / 4;
	if (ip_hdr(skb)->version == 4)
		be16_add_cpu(&ip_hdr(skb)->tot_len, sizeof(opt));
	else
		be16_add_cpu(&ipv6_hdr(skb)->payload_len, sizeof(opt));
}

/*
 * c->lock held: a client segment to @b's server, rewritten with the
 * numbers core/splice_plan.c gave (@s, @flags) and sent.
 */
unsigned int l7_splice_out_server(struct l7_conn *c, struct l7_binding *b,
				  struct sk_buff *skb, struct l7_tcp_opts *o,
				  const struct l7_tcp_seg *s, unsigned int flags)
{
	struct l7_pconn *pc = b->pc;

	lockdep_assert_held(&c->lock);

	l7_seg_rewrite(skb, o, s, flags, &b->map, l7_sack_c2b);
	if (flags & L7_SEG_ADD_TS)
		l7_seg_add_ts(skb, s->tsval, s->tsecr);
	this_cpu_add(pc->pool->bytes->to_server, s->len - tcp_hdr(skb)->fin);
	if (l7_seg_readdress(skb, pc->pool->af, &pc->tcp.laddr, pc->tcp.lport,
			     &pc->pool->baddr, pc->pool->bport))
		return NF_DROP;
	return l7_forward(c->net, skb, pc->tcp.mss, &pc->dst, &pc->tcp.laddr,
			  &pc->pool->baddr);
}

/*
 * Cut the first @n payload bytes of @skb: the backend reads the
 * director's copy there.  The headers move up by @n.
 */
int l7_seg_cut_front(struct sk_buff *skb, u32 hlen, u32 n)
{
	u32 nhlen = l7_nhlen(skb);
	struct tcphdr *th;

	if (!n)
		return 0;
	if (skb_ensure_writable(skb, hlen + n))
		return -ENOMEM;
	memmove(skb->data + n, skb->data, hlen);
	__skb_pull(skb, n);
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, nhlen);
	l7_set_ip_len(skb);
	th = tcp_hdr(skb);
	th->seq = htonl(ntohl(th->seq) + n);
	return 0;
}

/* The guard reads payload through this: skbs need not be linear. */
const u8 *l7_skb_peek(const void *ctx, u32 off, u32 n, u8 *buf)
{
	const struct l7_skb_payload *p = ctx;

	return skb_header_pointer(p->skb, p->hlen + off, n, buf);
}

/* The response guard overwrites a few head bytes through this. */
bool l7_skb_poke(const void *ctx, u32 off, const u8 *bytes, u32 n)
{
	const struct l7_skb_payload *p = ctx;

	return !skb_ensure_writable(p->skb, p->hlen + off + n) &&
	       !skb_store_bits(p->skb, p->hlen + off, bytes, n);
}

/* What the guard let through: payload [skip, keep), never the FIN. */
int l7_seg_clip(struct sk_buff *skb, u32 hlen, u32 skip, u32 keep)
{
	if (l7_seg_trim(skb, hlen, keep) || l7_seg_cut_front(skb, hlen, skip))
		return -ENOMEM;
	tcp_hdr(skb)->fin = 0;	/* the director takes it, after the body */
	return 0;
}

/*
 * Backend seq where the last of the server's packets in @skb starts: a
 * GSO aggregate stands for packets of gso_size, which its TCP counts
 * one by one (l7_binding_server_probes()).
 */
u32 l7_seg_last_packet(const struct sk_buff *skb, u32 seq, u32 payload)
{
	unsigned int size = skb_shinfo(skb)->gso_size;

	if (!size || payload <= size)
		return seq;
	return seq + rounddown(payload - 1, size);
}

/*
 * c->lock held: a server segment on @b, rewritten onto the client's
 * connection with the numbers core/splice_plan.c gave (@s, @flags) and
 * sent.
 */
unsigned int l7_splice_out_client(struct l7_conn *c, struct l7_binding *b,
				  struct sk_buff *skb, struct l7_tcp_opts *o,
				  const struct l7_tcp_seg *s, unsigned int flags,
				  u32 payload)
{
	lockdep_assert_held(&c->lock);

	l7_seg_rewrite(skb, o, s, flags, &b->map, l7_sack_b2c);
	this_cpu_add(b->pc->pool->bytes->from_server, payload);
	if (l7_seg_readdress(skb, c->af, &c->vaddr, c->vport, &c->caddr,
			     c->cport))
		return NF_DROP;
	return l7_forward(c->net, skb, c->c_mss - (c->c_ts ? L7_TS_OPT_LEN : 0),
			  &c->dst, &c->vaddr, &c->caddr);
}
