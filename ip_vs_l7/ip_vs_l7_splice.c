// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: splicing packets between a client connection and the pooled
 * connections its requests are bound to (FPS steps 5-7).
 *
 * Every packet of a binding, both ways, is rewritten in place -
 * addresses, ports, seq/ack, timestamps, window, SACK - with the
 * binding's map from core/tcp_map.c and sent on; no socket sees it.  On
 * the way the director frames what it needs to know to rebind: where
 * the current request's body ends (client to server) and where the
 * response ends (server to client).  Bulk body bytes are skipped by
 * count; only chunk-size lines and heads are read, through
 * skb_header_pointer(), so paged skbs stay as they are.
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

#define L7_LINGER		(2 * HZ)	/* after both FINs */

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

static void l7_seg_read(const struct sk_buff *skb, const struct l7_tcp_opts *o,
			struct l7_tcp_seg *s)
{
	const struct tcphdr *th = tcp_hdr(skb);

	s->seq = ntohl(th->seq);
	s->ack = ntohl(th->ack_seq);
	s->len = skb->len - l7_nhlen(skb) - th->doff * 4 + th->syn + th->fin;
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

/* Both sides sent FIN through a tunnel: linger for their last ACKs. */
static void l7_tunnel_track_close(struct l7_conn *c)
{
	if (c->c_fin && c->cur->rsp_guard.fin && !c->dead_reason) {
		c->dead_reason = "closed";
		c->end = L7_END_CLOSED;
		l7_conn_due_in(c, L7_CLK_END, L7_LINGER);
	}
}

/* c->lock held: a client segment, taken, goes to @b's server rewritten. */
static unsigned int l7_c2b_send(struct l7_conn *c, struct l7_binding *b,
				struct sk_buff *skb, struct l7_tcp_opts *o,
				struct l7_tcp_seg *seg)
{
	struct l7_seg_bounds ok = l7_client_bounds(c);
	struct l7_pconn *pc = b->pc;
	struct l7_tcp_seg s = *seg;
	struct tcphdr *th = tcp_hdr(skb);
	u32 payload = s.len - th->fin;
	unsigned int flags;

	lockdep_assert_held(&c->lock);

	/*
	 * The window and timestamp were taken where core/tcp_accept.c said
	 * (l7_client_segment()); an ACK or seq of nothing on C is never
	 * pinned into the binding.
	 */
	flags = l7_map_c2b(&b->map, &s, &ok);
	if (flags & (L7_SEG_SEQ_OUTSIDE | L7_SEG_FOREIGN))
		return NF_DROP;	/* never bytes of another request */
	l7_seg_rewrite(skb, o, &s, flags, &b->map, l7_sack_c2b);
	th = tcp_hdr(skb);
	if (th->ack)
		l7_binding_announced(b, ntohl(th->ack_seq), ntohs(th->window));
	if (s.ts && !(flags & L7_SEG_STRIP_TS))
		l7_ts_note(&b->ts_sent, s.tsval);
	if (after(s.seq + s.len, b->b_snd_nxt))
		b->b_snd_nxt = s.seq + s.len;
	this_cpu_add(pc->pool->bytes->to_server, payload);

	if (l7_seg_readdress(skb, pc->pool->af, &pc->tcp.laddr, pc->tcp.lport,
			     &pc->pool->baddr, pc->pool->bport))
		return NF_DROP;
	return l7_forward(c->net, skb, pc->tcp.mss, &pc->dst, &pc->tcp.laddr,
			  &pc->pool->baddr);
}

/* c->lock held: a client segment goes to @b's server, rewritten. */
unsigned int l7_splice_c2b(struct l7_conn *c, struct l7_binding *b,
			   struct sk_buff *skb)
{
	struct l7_tcp_opts o;
	struct l7_tcp_seg s;

	lockdep_assert_held(&c->lock);

	if (l7_seg_take(skb, &o, &s))
		return NF_DROP;
	return l7_c2b_send(c, b, skb, &o, &s);
}

/*
 * c->lock held: a client segment through @b's tunnel, accepted by the
 * same checks as any other (l7_client_segment()); @fin: its FIN is in
 * order, and counts.
 */
unsigned int l7_splice_tunnel(struct l7_conn *c, struct l7_binding *b,
			      struct sk_buff *skb, bool fin)
{
	lockdep_assert_held(&c->lock);

	if (fin) {
		c->c_fin = true;
		l7_tunnel_track_close(c);
	}
	return l7_splice_c2b(c, b, skb);
}

/*
 * Cut the first @n payload bytes of @skb: the backend reads the
 * director's copy there.  The headers move up by @n.
 */
static int l7_seg_cut_front(struct sk_buff *skb, u32 hlen, u32 n)
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
struct l7_skb_payload {
	struct sk_buff *skb;
	u32 hlen;
};

static const u8 *l7_skb_peek(const void *ctx, u32 off, u32 n, u8 *buf)
{
	const struct l7_skb_payload *p = ctx;

	return skb_header_pointer(p->skb, p->hlen + off, n, buf);
}

/* The response guard overwrites a few head bytes through this. */
static bool l7_skb_poke(const void *ctx, u32 off, const u8 *bytes, u32 n)
{
	const struct l7_skb_payload *p = ctx;

	return !skb_ensure_writable(p->skb, p->hlen + off + n) &&
	       !skb_store_bits(p->skb, p->hlen + off, bytes, n);
}

/* What the guard let through: payload [skip, keep), never the FIN. */
static int l7_seg_clip(struct sk_buff *skb, u32 hlen, u32 skip, u32 keep)
{
	if (l7_seg_trim(skb, hlen, keep) || l7_seg_cut_front(skb, hlen, skip))
		return -ENOMEM;
	tcp_hdr(skb)->fin = 0;	/* the director takes it, after the body */
	return 0;
}

/*
 * c->lock held: a client segment with bytes of @b's request body, new or
 * resent.  The guard (core/req_guard.c) frames them and says what of the
 * segment may reach @b's server; everything that could make the director
 * drop the segment is checked before, so what it framed goes out.
 */
enum l7_body_act l7_splice_body(struct l7_conn *c, struct l7_binding *b,
				struct sk_buff *skb, struct l7_body_seg *bs)
{
	struct l7_skb_payload pl = { .skb = skb };
	struct l7_req_seg rs;
	struct tcphdr *th;
	bool ended;

	lockdep_assert_held(&c->lock);

	if (l7_seg_take(skb, &bs->o, &bs->s))
		return L7_BODY_DROP;
	th = tcp_hdr(skb);
	pl.hlen = l7_nhlen(skb) + th->doff * 4;
	bs->hlen = pl.hlen;
	rs = (struct l7_req_seg){
		.seq = bs->s.seq,
		.len = skb->len - pl.hlen,
		.fin = th->fin,
		.peek = l7_skb_peek,
		.ctx = &pl,
	};
	bs->whole = th->rst || (!rs.len && !rs.fin);
	if (bs->whole)
		return L7_BODY_SEND;	/* its ACK, or a RST: as it is */

	bs->v = l7_req_guard_seg(&b->req_guard, &rs);
	ended = bs->v.ended && b == c->cur && c->state == L7C_BODY;
	if (b == c->cur && c->state == L7C_BODY &&
	    c->c_rcv_nxt != b->req_guard.nxt) {
		l7_floor_body_moved(c, b->req_guard.nxt - c->c_rcv_nxt);
		c->c_rcv_nxt = b->req_guard.nxt;
		l7_conn_progress(c);	/* new body bytes */
	}
	if (bs->v.act == L7_GUARD_RESET) {
		l7_conn_end(c, L7_END_BAD_REQUEST, l7_guard_why_name(bs->v.why));
		return L7_BODY_DROP;
	}
	if (bs->v.resync)
		l7_send_client_ack(c, c->c_acked);
	if (bs->v.act == L7_GUARD_DROP)
		return L7_BODY_ACK_ONLY;
	return ended ? L7_BODY_ENDED : L7_BODY_SEND;
}

/* The part of a body segment l7_splice_body() framed, to the server. */
unsigned int l7_splice_body_send(struct l7_conn *c, struct l7_binding *b,
				 struct sk_buff *skb, struct l7_body_seg *bs)
{
	if (bs->whole)
		return l7_c2b_send(c, b, skb, &bs->o, &bs->s);
	if (l7_seg_clip(skb, bs->hlen, bs->v.skip, bs->v.keep))
		return NF_DROP;
	l7_seg_read(skb, &bs->o, &bs->s);
	return l7_c2b_send(c, b, skb, &bs->o, &bs->s);
}

/* The response on @b ended just before backend seq @end. */
static void l7_rsp_end(struct l7_binding *b, u32 end)
{
	b->keep = b->rsp_guard.resp.keep_alive;
	/*
	 * Its FIN ended it, or it told the client to close (a Connection
	 * field the guard could not hide): the client learns it from our
	 * FIN.
	 */
	b->close_after |= b->rsp_guard.eof_end ||
			  (b->rsp_guard.cloak_missed && !b->keep);
	trace_l7_response(b->pc->conn, b, end);
	l7_pool_req_done(b->pc->pool);
	l7_range_close(&b->map.rsp_range, l7_seq_fwd(&b->map.rsp, end));
}

/*
 * A 101 on @b: no more HTTP there, both ways pass as they come.  Only
 * for the current request, which asked for it, with no pipelined one
 * behind it, and within the service's tunnel cap.
 */
static bool l7_rsp_upgrade(struct l7_conn *c, struct l7_binding *b)
{
	if (c->cur != b || c->head_len || !b->upgrade ||
	    !l7_service_tunnel_begin(c->ls))
		return false;
	b->tunnel = true;
	c->state = L7C_TUNNEL;
	b->map.req_range.closed = false;
	l7_rsp_guard_tunnel(&b->rsp_guard);
	return true;
}

/* The server's side of @b, as core/tcp_accept.c reads it. */
static struct l7_tcp_endpoint l7_server_endpoint(const struct l7_binding *b)
{
	return (struct l7_tcp_endpoint){
		.rcv_nxt = b->rsp_guard.rcv_nxt,
		.rcv_wup = b->b_rcv_wup,
		.rcv_edge = b->b_rcv_edge,
		.snd_una = b->b_acked,
		.snd_nxt = b->b_snd_nxt,
		/*
		 * Linux bounds an old ACK by max_window and the bytes the
		 * connection ever had acknowledged; a pooled connection's
		 * life is longer than its binding's: by max_window alone.
		 */
		.snd_isn = b->b_acked - b->b_max_win,
		.snd_wnd = b->b_wnd,
		.snd_wl1 = b->b_wl1,
		.max_window = b->b_max_win,
		.ts_recent = b->b_tsval,
		.snd_wscale = b->pc->tcp.snd_wscale,
		.ts = b->pc->tcp.ts,
		.fin_in = b->rsp_guard.fin,
	};
}

/*
 * A server segment core/tcp_accept.c refused, and asked an ACK for.
 * A RST in the window but not at its exact point (RFC 5961 3.2) gets
 * one at where the server's in-order segments end, which a server that
 * really reset answers with a RST at exactly that seq.  Any other gets
 * the ACK the server had, never one of bytes the client may lack; a
 * resend of bytes it had acknowledged already (the server's timer was
 * quicker than the client's ACK) reports them as a duplicate, as Linux
 * does, lest the server take its resend for a repair.
 */
static void l7_server_challenge(struct l7_conn *c, struct l7_binding *b,
				const struct tcphdr *th,
				const struct l7_tcp_seg *s)
{
	struct l7_tcp_sack_block dup = { s->seq, s->seq + s->len - th->fin };

	if (!l7_tcp_ratelimit_allow(&b->b_challenge, (u32)jiffies,
				    L7_CHALLENGE_GAP))
		return;
	if (th->rst || th->syn)
		l7_binding_send_ack(c, b, b->rsp_guard.rcv_nxt);
	else if (dup.end != dup.start && !after(dup.end, b->b_rcv_wup))
		l7_binding_dsack(c, b, &dup);
	else
		l7_binding_send_ack(c, b, b->b_rcv_wup);
}

/*
 * Whether a server segment may act on @b (RFC 793, 5961, 7323, as for a
 * client's: l7_client_segment()): nothing of one that is not acceptable
 * - its timestamp, window, ACK, RST or bytes - is taken or passed on.
 */
static enum l7_tcp_accept_act l7_server_accept(struct l7_conn *c,
					       struct l7_binding *b,
					       const struct tcphdr *th,
					       const struct l7_tcp_seg *s,
					       struct l7_tcp_accept *v)
{
	struct l7_tcp_endpoint e = l7_server_endpoint(b);
	struct l7_tcp_in in = {
		.seq = s->seq,
		.ack = s->ack,
		.len = s->len,
		.tsval = s->tsval,
		.win = s->win,
		.flags = tcp_flag_byte(th),
		.ts = s->ts,
	};

	*v = l7_tcp_accept(&e, &in);
	if (v->act == L7_ACC_CHALLENGE)
		l7_server_challenge(c, b, th, s);
	if (v->act == L7_ACC_DROP || v->act == L7_ACC_CHALLENGE)
		l7_service_count(c->ls, srv_unacceptable);
	if (v->act != L7_ACC_OK)
		return v->act;
	l7_tcp_accept_apply(&e, &in, v);
	b->b_tsval = e.ts_recent;
	b->b_wnd = e.snd_wnd;
	b->b_wl1 = e.snd_wl1;
	b->b_max_win = e.max_window;
	return L7_ACC_OK;
}

/*
 * A server's SYN on a pooled connection in use: never forwarded, judged
 * from its headers as they are, as Linux judges one on an established
 * connection (RFC 5961 4.2: a challenge ACK, rate-limited; counted as
 * unacceptable).
 */
static unsigned int l7_b2c_syn(struct l7_conn *c, struct l7_binding *b,
			       const struct sk_buff *skb)
{
	const struct tcphdr *th = tcp_hdr(skb);
	struct l7_tcp_accept acc;
	struct l7_tcp_opts o;
	struct l7_tcp_seg s;

	if (l7_tcp_opts_of(th, &o) < 0)
		return NF_DROP;
	l7_seg_read(skb, &o, &s);
	l7_server_accept(c, b, th, &s, &acc);
	return NF_DROP;
}

/* A response the director cannot follow: reset both ends. */
static unsigned int l7_rsp_bad(struct l7_conn *c)
{
	l7_conn_end(c, L7_END_BAD_RESPONSE, "bad response");
	return NF_DROP;
}

/*
 * The backend's ACK and window bound what the request guard may still
 * have to check, and how far it may frame.
 */
static void l7_b2c_guard(struct l7_binding *b, const struct l7_tcp_seg *s,
			 bool window)
{
	l7_req_guard_acked(&b->req_guard, l7_seq_inv(&b->map.req, s->ack));
	if (window)
		l7_req_guard_window(&b->req_guard,
				    l7_seq_inv(&b->map.req, s->ack + b->b_wnd));
}

/* The backend's ACK: what it has of the request, and our copy. */
static void l7_b2c_ack(struct l7_conn *c, struct l7_binding *b,
		       const struct l7_tcp_seg *s, bool window)
{
	if (after(s->ack, b->b_acked)) {
		b->b_acked = s->ack;
		l7_conn_progress(c);
		l7_client_server_acked(c, b);
	}
	l7_b2c_guard(b, s, window);
	if (!b->head_acked && !before(s->ack, l7_binding_copy_end(b))) {
		b->head_acked = true;
		if (c->cur == b)
			l7_clock_stop(&c->clock, L7_CLK_REQ_COPY);
	}
}

/*
 * A backend RST on @b (at its exact seq): the binding is retired
 * (l7_client_rsp_moved()) when the client has the whole response, or
 * lost when none of it came yet (the request goes to another server).
 * Else the connection ends, and true: the RST goes on to the client.
 */
static bool l7_b2c_rst(struct l7_conn *c, struct l7_binding *b)
{
	struct l7_bl bl;

	b->b_rst = true;
	bl = l7_bl_of(c, b);
	switch (l7_bl_server_rst(&bl, c->d_snd_una)) {
	case L7_BL_RST_RETIRE:
		return false;
	case L7_BL_RST_LOST:
		b->lost = true;
		return false;
	case L7_BL_RST_CLIENT:
		break;
	}
	/* the client lacks some, and the server that could resend it is gone */
	c->reset = true;
	l7_conn_end(c, L7_END_SERVER_RST, "reset by server");
	return true;
}

/*
 * Backend seq where the last of the server's packets in @skb starts: a
 * GSO aggregate stands for packets of gso_size, which its TCP counts
 * one by one (l7_binding_server_probes()).
 */
static u32 l7_last_packet(const struct sk_buff *skb, u32 seq, u32 payload)
{
	unsigned int size = skb_shinfo(skb)->gso_size;

	if (!size || payload <= size)
		return seq;
	return seq + rounddown(payload - 1, size);
}

/*
 * A server resent bytes before @b's response (@c_seq, its @b_seq mapped
 * onto C): an earlier binding's, which its client acknowledged whole.
 * They go to nobody; the server hears that they had arrived, lest it
 * count its probe as a repair.
 */
static void l7_b2c_earlier(struct l7_conn *c, struct l7_binding *b,
			   u32 b_seq, u32 c_seq, u32 payload)
{
	struct l7_tcp_sack_block dup = { b_seq, b_seq + payload };

	if (payload &&
	    l7_range_where(&b->map.rsp_range, c_seq) == L7_EARLIER)
		l7_binding_dsack(c, b, &dup);
}

/* A backend segment the response guard let through, to the client. */
static unsigned int l7_b2c_send(struct l7_conn *c, struct l7_binding *b,
				struct sk_buff *skb, struct l7_tcp_opts *o,
				struct l7_tcp_seg *s, u32 payload)
{
	u32 last = l7_last_packet(skb, s->seq, payload);
	u32 b_seq = s->seq;
	unsigned int flags;

	flags = l7_map_b2c(&b->map, s);
	if (flags & L7_SEG_SEQ_OUTSIDE) {
		l7_b2c_earlier(c, b, b_seq, s->seq, payload);
		return NF_DROP;	/* an earlier client's bytes, or beyond */
	}
	if (flags & L7_SEG_FOREIGN)
		return NF_DROP;
	if (payload) {
		b->rsp_seen = true;
		if (after(last, b->rsp_last_pkt))
			b->rsp_last_pkt = last;
		/* bytes the client was sent before: it reports them */
		if (before(s->seq, c->d_snd_nxt))
			b->rsp_resent = true;
	}
	/*
	 * The director acknowledged some client bytes itself: never less.
	 * More is the server's, of bytes it has: what the director's own
	 * ACK, if one is owed (l7_ack_later()), would have said.
	 */
	if (before(s->ack, c->c_acked))
		s->ack = c->c_acked;
	else if (tcp_hdr(skb)->ack)
		l7_client_ack_sent(c, s->ack);
	if (tcp_hdr(skb)->ack)
		l7_client_announced(c, s->ack, s->win);
	/* and the client's PAWS check sees one clock across bindings */
	if (s->ts && c->c_ts && before(s->tsval, c->d_ts_last))
		s->tsval = c->d_ts_last;
	l7_seg_rewrite(skb, o, s, flags, &b->map, l7_sack_b2c);
	if (after(s->seq + s->len, c->d_snd_nxt)) {
		c->d_snd_nxt = s->seq + s->len;
		l7_conn_progress(c);	/* new response bytes */
	}
	if (s->ts && c->c_ts)
		c->d_ts_last = s->tsval;
	this_cpu_add(b->pc->pool->bytes->from_server, payload);

	if (c->state == L7C_TUNNEL)
		l7_tunnel_track_close(c);
	if (l7_seg_readdress(skb, c->af, &c->vaddr, c->vport, &c->caddr,
			     c->cport))
		return NF_DROP;
	return l7_forward(c->net, skb, c->c_mss - (c->c_ts ? L7_TS_OPT_LEN : 0),
			  &c->dst, &c->vaddr, &c->caddr);
}

/*
 * c->lock held: a server segment on @b.  The response guard
 * (core/rsp_guard.c) frames it and says whether it goes to the client;
 * a 101 is this module's to allow.
 */
unsigned int l7_splice_b2c(struct l7_conn *c, struct l7_binding *b,
			   struct sk_buff *skb)
{
	struct l7_skb_payload pl = { .skb = skb };
	unsigned int verdict = NF_DROP;
	struct l7_tcp_accept acc;
	struct l7_rsp_verdict v;
	struct l7_tcp_opts o;
	struct l7_tcp_seg s;
	struct tcphdr *th;
	struct l7_bl bl;
	bool cut = true;
	u32 payload;

	lockdep_assert_held(&c->lock);

	if (tcp_hdr(skb)->syn)
		return l7_b2c_syn(c, b, skb);
	if (l7_seg_take(skb, &o, &s))
		return NF_DROP;
	th = tcp_hdr(skb);
	pl.hlen = l7_nhlen(skb) + th->doff * 4;
	payload = s.len - th->fin;
	switch (l7_server_accept(c, b, th, &s, &acc)) {
	case L7_ACC_RESET:
		return l7_b2c_rst(c, b) ?
		       l7_b2c_send(c, b, skb, &o, &s, payload) : NF_DROP;
	case L7_ACC_OK:
		break;
	default:
		return NF_DROP;
	}
	if (acc.ack_ok)
		l7_b2c_ack(c, b, &s, acc.window);

	v = l7_rsp_guard_seg(&b->rsp_guard, &(struct l7_rsp_seg){
		.seq = s.seq,
		.len = payload,
		.fin = th->fin,
		.has_ack = th->ack,
		.ack = s.ack,
		.peek = l7_skb_peek,
		.poke = l7_skb_poke,
		.ctx = &pl,
	});
	th = tcp_hdr(skb);	/* a poke may have moved the headers */
	if (v.act == L7_RSP_UPGRADE)
		v.act = l7_rsp_upgrade(c, b) ? L7_RSP_FORWARD : L7_RSP_BAD;
	switch (v.act) {
	case L7_RSP_WAIT:
		return NF_DROP;
	case L7_RSP_BAD:
		/*
		 * The server closed before it answered (it was closing the
		 * connection as it was bound), or sent bytes before it had the
		 * request (past an earlier response's end): nothing reached
		 * the client, the connection is retired and the request may go
		 * elsewhere.  Bytes that are not a response (a 101 nobody
		 * asked for, say) reset the client.
		 */
		bl = l7_bl_of(c, b);
		if (l7_bl_refused_lost(&bl, v.closed || v.unsolicited)) {
			b->lost = true;	/* l7_client_rsp_moved() */
			return NF_DROP;
		}
		return l7_rsp_bad(c);
	default:
		break;
	}
	/* head bytes the director took: acknowledged, then its copy */
	if (v.skip)
		l7_rsp_copy_taken(c, b);
	if (v.took)
		l7_rsp_copy_start(c, b);
	if (v.skip) {
		/* out of memory: the server resends what follows the head */
		cut = !l7_seg_cut_front(skb, pl.hlen, v.skip);
		l7_seg_read(skb, &o, &s);
		th = tcp_hdr(skb);
		payload -= v.skip;
	}
	if (v.ended)
		l7_rsp_end(b, l7_rsp_guard_end(&b->rsp_guard));
	if (v.strip_fin) {
		/* the server closes after the response: not the client's */
		th->fin = 0;
		s.len = payload;
	}
	/* all but a bare FIN that was the server's own goes on: ACKs too */
	if (cut && (payload || !v.strip_fin))
		verdict = l7_b2c_send(c, b, skb, &o, &s, payload);
	return verdict;
}
