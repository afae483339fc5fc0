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
#include <net/route.h>
#include <net/tcp.h>
#include <net/netfilter/nf_conntrack.h>

#include "ip_vs_l7.h"
#include "core/tcp_opt.h"

#define L7_LINGER		(2 * HZ)	/* after both FINs */
#define L7_TS_OPT_LEN		12		/* NOP NOP TS */
#define L7_PEEK			128		/* bytes framed per step */

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

	/*
	 * GSO state from GRO may be stale after a trim: one segment goes
	 * as it is, more are cut again to @mss and counted afresh.
	 */
	if (payload <= mss) {
		if (skb_is_gso(skb))
			skb_gso_reset(skb);
	} else {
		if (!skb_is_gso(skb))
			skb_shinfo(skb)->gso_type = SKB_GSO_TCPV4;
		if (!skb_is_gso(skb) || skb_shinfo(skb)->gso_size > mss)
			skb_shinfo(skb)->gso_size = mss;
		skb_shinfo(skb)->gso_segs = 0;
		skb_shinfo(skb)->gso_type |= SKB_GSO_DODGY;
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

/*
 * Make the headers ours to write, and the skb's GSO state too.  A
 * reassembled datagram (frag_list) is made one: GSO cannot cut it.
 */
static int l7_seg_writable(struct sk_buff *skb)
{
	if (skb_unclone(skb, GFP_ATOMIC))
		return -ENOMEM;
	if (skb_has_frag_list(skb) && skb_linearize(skb))
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
	ip_hdr(skb)->tot_len = htons(skb->len);
	tcp_hdr(skb)->fin = 0;
	tcp_hdr(skb)->psh = 0;
	return 0;
}

/* Both sides sent FIN through a tunnel: linger for their last ACKs. */
static void l7_tunnel_track_close(struct l7_conn *c, const struct tcphdr *th,
				  bool from_client)
{
	if (th->fin) {
		if (from_client)
			c->c_fin = true;
		else
			c->cur->b_fin = true;
	}
	if (c->c_fin && c->cur->b_fin && !c->dead_reason) {
		c->dead_reason = "closed";
		c->end = L7_END_CLOSED;
		l7_conn_expire_in(c, L7_LINGER);
	}
}

/* c->lock held: a client segment goes to @b's server, rewritten. */
unsigned int l7_splice_c2b(struct l7_conn *c, struct l7_binding *b,
			   struct sk_buff *skb)
{
	struct l7_pconn *pc = b->pc;
	struct l7_tcp_opts o;
	struct l7_tcp_seg s;
	unsigned int flags;
	struct tcphdr *th;
	u32 payload;

	if (l7_seg_take(skb, &o, &s))
		return NF_DROP;
	th = tcp_hdr(skb);
	payload = s.len - th->fin;
	if (th->rst) {
		/* RFC 5961: in a body, only the exact RST counts */
		if (c->state == L7C_BODY && s.seq != c->c_rcv_nxt)
			return NF_DROP;
		c->reset = true;
		l7_conn_end(c, L7_END_CLIENT_RST, "reset by client");
	}
	c->c_win = s.win;
	if (s.ts)
		l7_ts_note(&c->c_tsval, s.tsval);
	flags = l7_map_c2b(&b->map, &s);
	if (flags & L7_SEG_SEQ_OUTSIDE)
		return NF_DROP;	/* never bytes of another request */
	l7_seg_rewrite(skb, &o, &s, flags, &b->map, l7_sack_c2b);
	if (s.ts && !(flags & L7_SEG_STRIP_TS))
		l7_ts_note(&b->ts_sent, s.tsval);
	if (after(s.seq + s.len, b->b_snd_nxt))
		b->b_snd_nxt = s.seq + s.len;
	this_cpu_add(pc->pool->bytes->to_server, payload);

	if (c->state == L7C_TUNNEL)
		l7_tunnel_track_close(c, th, true);
	l7_seg_readdress(skb, pc->tcp.laddr, pc->tcp.lport,
			 pc->pool->addr.sin_addr.s_addr, pc->pool->addr.sin_port);
	return l7_forward(c->net, skb, pc->tcp.mss);
}

/* Frame @len body bytes of @skb from @off; *used: how many belong to it. */
static enum l7_body_status l7_body_frame(struct l7_http_body *body,
					 const struct sk_buff *skb, u32 off,
					 u32 len, u32 *used)
{
	enum l7_body_status st = L7_BODY_MORE;
	u8 buf[L7_PEEK];

	*used = 0;
	while (*used < len && st == L7_BODY_MORE) {
		u64 skip = l7_http_body_skippable(body);
		u32 n = len - *used;
		const u8 *p;
		size_t u;

		if (skip) {
			n = min_t(u64, n, skip);
			l7_http_body_skip(body, n);
			*used += n;
			continue;
		}
		n = min_t(u32, n, sizeof(buf));
		p = skb_header_pointer(skb, off + *used, n, buf);
		if (!p)
			return L7_BODY_ERROR;
		st = l7_http_body_feed(body, p, n, &u);
		*used += u;
	}
	if (st == L7_BODY_MORE && l7_http_body_done(body))
		st = L7_BODY_DONE;
	return st;
}

/*
 * c->lock held, state BODY: a client segment while the current request's
 * body passes through.  Bytes up to the body's end go to the server; what
 * follows starts the next request, and the client sends it again once
 * the server has the body - the director may not acknowledge it before.
 */
unsigned int l7_splice_body(struct l7_conn *c, struct sk_buff *skb)
{
	struct l7_binding *b = c->cur;
	struct tcphdr *th = tcp_hdr(skb);
	u32 hlen = ip_hdrlen(skb) + th->doff * 4;
	u32 len = skb->len - hlen;
	u32 seq = ntohl(th->seq), end = seq + len, used;
	enum l7_body_status st = L7_BODY_MORE;
	unsigned int verdict;

	if (!len || !after(end, c->c_rcv_nxt)) {
		/* an ACK, or bytes the server had already */
	} else if (after(seq, c->c_rcv_nxt)) {
		/* out of order: fine if they are surely body bytes */
		if (end - c->c_rcv_nxt > l7_http_body_skippable(&c->body))
			return NF_DROP;
		l7_http_body_skip(&c->body, end - c->c_rcv_nxt);
		c->c_rcv_nxt = end;
		if (l7_http_body_done(&c->body))
			st = L7_BODY_DONE;
	} else {
		u32 off = c->c_rcv_nxt - seq;

		st = l7_body_frame(&c->body, skb, hlen + off, len - off, &used);
		c->c_rcv_nxt += used;
	}

	if (st == L7_BODY_ERROR) {
		l7_conn_end(c, L7_END_CLIENT_RST, "bad request body");
		return NF_DROP;
	}
	if (st == L7_BODY_DONE) {
		l7_binding_req_end(c, b, c->c_rcv_nxt);
		c->c_seq0 = c->c_rcv_nxt;
		c->state = L7C_HEAD;
		if (l7_seg_trim(skb, hlen, c->c_rcv_nxt - seq))
			return NF_DROP;
	} else if (th->fin && !after(end, c->c_rcv_nxt)) {
		/* closed inside the body: the rest is plain TCP */
		c->state = L7C_TUNNEL;
	}
	if (c->state != L7C_TUNNEL && tcp_hdr(skb)->fin &&
	    skb_ensure_writable(skb, hlen) == 0)
		tcp_hdr(skb)->fin = 0;	/* the director takes it later */
	verdict = l7_splice_c2b(c, b, skb);
	if (st == L7_BODY_DONE)
		l7_cur_done(c);
	return verdict;
}

/* Frame @len response bytes of @skb from @off; *used: how many belong. */
static enum l7_resp_status l7_resp_frame(struct l7_http_resp *r,
					 const struct sk_buff *skb, u32 off,
					 u32 len, u32 *used)
{
	enum l7_resp_status st = L7_RESP_MORE;
	u8 buf[L7_PEEK];
	size_t u;

	*used = 0;
	while (*used < len) {
		u64 skip = l7_http_resp_skippable(r);
		u32 n = len - *used;
		const u8 *p;

		if (skip) {
			n = min_t(u64, n, skip);
			l7_http_resp_skip(r, n);
			*used += n;
			continue;
		}
		n = min_t(u32, n, sizeof(buf));
		p = skb_header_pointer(skb, off + *used, n, buf);
		if (!p)
			return L7_RESP_ERROR;
		st = l7_http_resp_feed(r, p, n, &u);
		*used += u;
		if (st == L7_RESP_HEAD || st == L7_RESP_INTERIM)
			continue;	/* go on with what follows the head */
		if (st != L7_RESP_MORE)
			break;
	}
	/* a skip may have ended the response: the framer says so now */
	if (st == L7_RESP_MORE || st == L7_RESP_HEAD || st == L7_RESP_INTERIM)
		st = l7_http_resp_feed(r, buf, 0, &u);
	return st;
}

/* The response on @b ended just before backend seq @end. */
static void l7_rsp_end(struct l7_binding *b, u32 end)
{
	b->rsp_done = true;
	b->keep = b->rsp.keep_alive;
	atomic_dec(&b->pc->pool->outstanding);
	l7_range_close(&b->map.rsp_range, l7_seq_fwd(&b->map.rsp, end));
}

enum l7_follow {
	L7_FOLLOW_OK,		/* forward it */
	L7_FOLLOW_EARLY,	/* drop it: the server sends it again */
	L7_FOLLOW_BAD,		/* not a response we can frame: reset */
};

/*
 * Follow the response in @b's server stream: bytes [seq, seq + len) of
 * @skb from @off.  Sets b->rsp_done when it has ended.
 */
static enum l7_follow l7_rsp_follow(struct l7_conn *c, struct l7_binding *b,
				    const struct sk_buff *skb, u32 off,
				    u32 seq, u32 len)
{
	u32 end = seq + len, used;
	enum l7_resp_status st;
	size_t none;

	if (!len || !after(end, b->b_fed))
		return L7_FOLLOW_OK;	/* nothing new */
	if (b->rsp_done)
		return L7_FOLLOW_BAD;	/* bytes after the end: not HTTP */
	if (after(seq, b->b_fed)) {
		/*
		 * Out of order: fine if they are surely body bytes; else the
		 * framer has to read what comes before, so wait for it.
		 */
		if (end - b->b_fed > l7_http_resp_skippable(&b->rsp))
			return L7_FOLLOW_EARLY;
		l7_http_resp_skip(&b->rsp, end - b->b_fed);
		b->b_fed = end;
		st = l7_http_resp_feed(&b->rsp, NULL, 0, &none);
	} else {
		off += b->b_fed - seq;
		st = l7_resp_frame(&b->rsp, skb, off, end - b->b_fed, &used);
		b->b_fed += used;
	}
	switch (st) {
	case L7_RESP_ERROR:
		return L7_FOLLOW_BAD;
	case L7_RESP_UPGRADE:
		/*
		 * 101: no more HTTP here; both ways pass as they come.  Only
		 * for a request that asked for it, and within the tunnel cap.
		 */
		if (c->cur != b || c->head_len || !b->upgrade ||
		    !l7_service_tunnel_begin(c->ls))
			return L7_FOLLOW_BAD;
		b->tunnel = true;
		c->state = L7C_TUNNEL;
		b->map.req_range.closed = false;
		return L7_FOLLOW_OK;
	case L7_RESP_DONE:
		if (b->b_fed != end)
			return L7_FOLLOW_BAD;	/* more than the response */
		l7_rsp_end(b, end);
		return L7_FOLLOW_OK;
	default:
		return L7_FOLLOW_OK;
	}
}

/*
 * The server's FIN on @b after @payload bytes at @seq: after the
 * response, the end of a close-delimited body, or (BAD) a request it
 * would not answer or a response cut short.
 */
static enum l7_follow l7_rsp_fin(struct l7_binding *b, u32 seq, u32 payload)
{
	if (b->rsp_done) {
		b->b_fin = true;
		return L7_FOLLOW_OK;
	}
	if (b->b_fed != seq + payload)
		return L7_FOLLOW_EARLY;	/* bytes before it are missing */
	b->b_fin = true;
	if (l7_http_resp_eof(&b->rsp) != L7_RESP_DONE)
		return L7_FOLLOW_BAD;
	l7_rsp_end(b, b->b_fed);
	b->close_after = true;	/* the client learns it from our FIN */
	return L7_FOLLOW_OK;
}

/* A response the director cannot follow: reset both ends. */
static unsigned int l7_rsp_bad(struct l7_conn *c)
{
	l7_conn_end(c, L7_END_BAD_RESPONSE, "bad response");
	return NF_DROP;
}

/* c->lock held: a server segment on @b goes to the client. */
unsigned int l7_splice_b2c(struct l7_conn *c, struct l7_binding *b,
			   struct sk_buff *skb)
{
	bool tunnel = c->state == L7C_TUNNEL && b == c->cur;
	bool was_done = b->rsp_done;
	enum l7_follow follow;
	struct l7_tcp_opts o;
	unsigned int flags, verdict = NF_DROP;
	struct l7_tcp_seg s;
	struct tcphdr *th;
	u32 hlen, payload;

	if (l7_seg_take(skb, &o, &s))
		return NF_DROP;
	th = tcp_hdr(skb);
	hlen = ip_hdrlen(skb) + th->doff * 4;
	payload = s.len - th->fin;
	if (th->ack) {
		if (after(s.ack, b->b_acked))
			b->b_acked = s.ack;
		if (!b->head_acked &&
		    !before(s.ack, l7_binding_copy_end(b))) {
			b->head_acked = true;
			if (!c->dead_reason)
				l7_conn_expire_in(c, l7_idle_timeout * HZ);
		}
	}
	if (s.ts && after(s.tsval, b->b_tsval))
		b->b_tsval = s.tsval;

	if (th->rst) {
		b->b_rst = true;
		/* retired once the client has it all; if it lacks some, the
		 * server that could resend it is gone
		 */
		if (b->rsp_done && !before(c->d_snd_una, b->map.rsp_range.end))
			return NF_DROP;
		if (!b->rsp_seen && c->cur == b && !tunnel) {
			l7_binding_lost(c, b);
			return NF_DROP;
		}
		c->reset = true;
		l7_conn_end(c, L7_END_SERVER_RST, "reset by server");
	} else if (!tunnel) {
		follow = l7_rsp_follow(c, b, skb, hlen, s.seq, payload);
		if (follow == L7_FOLLOW_EARLY)
			return NF_DROP;
		if (follow == L7_FOLLOW_BAD)
			return l7_rsp_bad(c);
		tunnel = c->state == L7C_TUNNEL;
	}
	if (th->fin && !tunnel) {
		follow = l7_rsp_fin(b, s.seq, payload);
		if (follow == L7_FOLLOW_EARLY)
			return NF_DROP;
		if (follow == L7_FOLLOW_BAD && !b->rsp_seen && c->cur == b) {
			l7_binding_lost(c, b);	/* nothing reached the client */
			return NF_DROP;
		}
		if (follow == L7_FOLLOW_BAD)
			return l7_rsp_bad(c);	/* cut short */
		/* the server closes after the response: not the client's */
		if (!payload)
			goto done;
		th->fin = 0;
		s.len = payload;
	}

	flags = l7_map_b2c(&b->map, &s);
	if (flags & L7_SEG_SEQ_OUTSIDE)
		goto done;	/* an earlier client's bytes, or beyond */
	if (payload)
		b->rsp_seen = true;
	/* the director acknowledged some client bytes itself: never less */
	if (before(s.ack, c->c_acked))
		s.ack = c->c_acked;
	/* and the client's PAWS check sees one clock across bindings */
	if (s.ts && c->c_ts && before(s.tsval, c->d_ts_last))
		s.tsval = c->d_ts_last;
	l7_seg_rewrite(skb, &o, &s, flags, &b->map, l7_sack_b2c);
	if (after(s.seq + s.len, c->d_snd_nxt))
		c->d_snd_nxt = s.seq + s.len;
	if (s.ts && c->c_ts)
		c->d_ts_last = s.tsval;
	this_cpu_add(b->pc->pool->bytes->from_server, payload);

	if (tunnel)
		l7_tunnel_track_close(c, th, false);
	l7_seg_readdress(skb, c->vaddr, c->vport, c->caddr, c->cport);
	verdict = l7_forward(c->net, skb,
			     c->c_mss - (c->c_ts ? L7_TS_OPT_LEN : 0));
done:
	if (b->rsp_done && !was_done)
		l7_cur_done(c);
	return verdict;
}
