// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the client side of a connection, up to the first request.
 *
 * The director completes the client's handshake itself with SYN cookies
 * (FPS step 1), so a SYN leaves no state behind, then takes the request
 * head into a bounded buffer and frames it (steps 2-3).  It acknowledges
 * what it took: the head is the director's until a backend has it, so a
 * client with a small MSS can always send a whole head.  Out-of-order
 * data is dropped, not queued; the client resends it.
 *
 * A head the framer refuses is answered with a canned 4xx/5xx and FIN,
 * resent on the connection timer until the client has it; nothing of
 * such a request ever reaches a backend.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/ip.h>
#include <net/tcp.h>

#include "ip_vs_l7.h"
#include "core/http_reply.h"
#include "core/tcp_cookie.h"
#include "core/tcp_opt.h"

#define L7_DEFAULT_MSS		536	/* RFC 9293: no MSS option */
#define L7_REPLY_TRIES		6
#define L7_RTO			(HZ / 5)

static int l7_parse_opts(const struct tcphdr *th, struct l7_tcp_opts *o)
{
	memset(o, 0, sizeof(*o));
	return l7_tcp_opts_parse((const u8 *)(th + 1), th->doff * 4 - sizeof(*th),
				 o);
}

/* The MSS we announce: what one segment on the receiving device carries. */
static u16 l7_adv_mss(const struct sk_buff *skb)
{
	unsigned int mtu = skb->dev ? READ_ONCE(skb->dev->mtu) : 1500;

	return clamp_t(unsigned int, mtu, 576, 1500) -
	       sizeof(struct iphdr) - sizeof(struct tcphdr);
}

static u32 l7_cookie_check(const struct sk_buff *skb)
{
	const struct iphdr *iph = ip_hdr(skb);
	const struct tcphdr *th = tcp_hdr(skb);

#ifdef L7_COOKIE_CHECK_NO_COOKIE_ARG	/* 6.7+: it reads th->ack_seq */
	return __cookie_v4_check(iph, th);
#else
	return __cookie_v4_check(iph, th, ntohl(th->ack_seq) - 1);
#endif
}

static void l7_send_ack(struct l7_conn *c)
{
	l7_send_client(c, 0, c->d_snd_nxt, NULL, 0);
}

/* Answer with a canned response and FIN; the client's data is ignored. */
static void l7_reply(struct l7_conn *c, int status)
{
	c->reply = l7_http_reply(status, &c->reply_len);
	c->state = L7C_CLOSING;
	c->retries = 0;
	c->reply_seq = c->d_snd_nxt;
	l7_send_client(c, TCPHDR_PSH | TCPHDR_FIN, c->d_snd_nxt, c->reply,
		       c->reply_len);
	c->d_snd_nxt += c->reply_len + 1;
	atomic64_inc(&c->ls->stats.bad_requests);
	l7_conn_expire_in(c, L7_RTO);
}

/* No server can take the request (now, or within queue_timeout). */
void l7_reply_503(struct l7_conn *c)
{
	l7_reply(c, 503);
}

/* Take in-order head bytes; answer what the framer decides. */
static void l7_take_head(struct l7_conn *c, const u8 *data, u32 len)
{
	enum l7_http_status st;
	size_t used;
	u32 room;

	if (!c->head) {
		c->head = kmalloc(l7_max_head, GFP_ATOMIC);
		if (!c->head)
			return;	/* not acknowledged: the client resends */
	}
	room = l7_max_head - c->head_len;
	if (len > room)
		len = room;	/* the framer fails at the limit anyway */
	memcpy(c->head + c->head_len, data, len);
	st = l7_http_req_feed(&c->req, c->head + c->head_len, len, &used);
	c->head_len += len;
	c->c_rcv_nxt += len;

	switch (st) {
	case L7_HTTP_ERROR:
		l7_reply(c, l7_http_err_status(c->req.err));
		break;
	case L7_HTTP_DONE:
		l7_send_ack(c);
		if (l7_bind(c) && l7_queue_add(c))
			l7_reply_503(c);	/* no server, or queue full */
		break;
	default:
		if (c->head_len == l7_max_head)
			l7_reply(c, 431);
		else
			l7_send_ack(c);
	}
}

static void l7_client_ack(struct l7_conn *c, const struct tcphdr *th)
{
	u32 ack = ntohl(th->ack_seq);

	if (th->ack && after(ack, c->d_snd_una) && !after(ack, c->d_snd_nxt))
		c->d_snd_una = ack;
}

/* Called with c->lock held on a live connection. */
static unsigned int l7_client_segment(struct l7_conn *c, struct sk_buff *skb)
{
	const struct tcphdr *th = tcp_hdr(skb);
	u32 thlen = th->doff * 4;
	u32 len = skb->len - ip_hdrlen(skb) - thlen;
	u32 seq = ntohl(th->seq);
	struct l7_tcp_opts o;

	if (c->state == L7C_SPLICED)
		return l7_splice_c2b(c, skb);
	if (th->rst) {
		/* RFC 5961: only an exact RST kills, others are ignored */
		if (seq == c->c_rcv_nxt) {
			c->dead_reason = "reset by client";
			l7_conn_expire_in(c, 0);
		}
		return NF_DROP;
	}
	/* waiting for a pooled connection: what comes now is resent later */
	if (th->syn || c->state == L7C_QUEUED)
		return NF_DROP;
	if (c->c_ts && l7_parse_opts(th, &o) == 0 &&
	    (o.present & L7_TCPO_TS) && !after(seq, c->c_rcv_nxt))
		c->c_tsval = o.tsval;
	c->c_win = ntohs(th->window);
	l7_client_ack(c, th);

	if (c->state == L7C_CLOSING) {
		if (th->fin && !c->c_fin && seq + len == c->c_rcv_nxt) {
			c->c_fin = true;
			c->c_rcv_nxt++;
			l7_send_ack(c);
		}
		if (c->d_snd_una == c->d_snd_nxt)
			l7_conn_expire_in(c, c->c_fin ? 0 : l7_head_timeout * HZ);
		return NF_DROP;
	}

	/* L7C_HEAD */
	if (len || th->fin) {
		if (seq != c->c_rcv_nxt) {
			l7_send_ack(c);	/* old or out of order: resync */
			return NF_DROP;
		}
		if (len) {
			if (skb_linearize(skb))
				return NF_DROP;
			th = tcp_hdr(skb);
			l7_take_head(c, (const u8 *)th + thlen, len);
		}
		if (th->fin && c->state == L7C_HEAD) {
			/* closed before a whole request: close too */
			c->c_fin = true;
			c->c_rcv_nxt++;
			c->state = L7C_CLOSING;
			c->reply = NULL;
			c->reply_len = 0;
			c->reply_seq = c->d_snd_nxt;
			l7_send_client(c, TCPHDR_FIN, c->d_snd_nxt, NULL, 0);
			c->d_snd_nxt++;
			l7_conn_expire_in(c, L7_RTO);
		}
	}
	return NF_DROP;
}

/* A segment from a backend on a connection bound to @c. */
unsigned int l7_backend_packet(struct l7_conn *c, struct sk_buff *skb)
{
	unsigned int verdict = NF_DROP;

	spin_lock_bh(&c->lock);
	if (!c->dead && c->state == L7C_SPLICED)
		verdict = l7_splice_b2c(c, skb);
	spin_unlock_bh(&c->lock);
	return verdict;
}

unsigned int l7_client_packet(struct l7_conn *c, struct sk_buff *skb)
{
	unsigned int verdict = NF_DROP;

	spin_lock_bh(&c->lock);
	if (!c->dead)
		verdict = l7_client_segment(c, skb);
	spin_unlock_bh(&c->lock);
	return verdict;
}

/*
 * A segment to a VIP:port of an l7 service that belongs to no
 * connection: a SYN (answer with a cookie), the ACK that completes a
 * cookie handshake (make the connection), or junk (reset it).
 */
unsigned int l7_client_new(struct l7_service *ls, struct sk_buff *skb)
{
	const struct iphdr *iph = ip_hdr(skb);
	const struct tcphdr *th = tcp_hdr(skb);
	struct l7_tcp_opts o;
	struct l7_conn *c;
	int wscale = -1;
	bool sack = false;
	u32 mss;

	if (th->rst)
		return NF_DROP;
	if (l7_parse_opts(th, &o) < 0)
		return NF_DROP;

	if (th->syn && !th->ack) {
		u16 cmss = (o.present & L7_TCPO_MSS) ? o.mss : L7_DEFAULT_MSS;
		u32 cookie = __cookie_v4_init_sequence(iph, th, &cmss);

		l7_send_synack(ls->net, skb, cookie, l7_adv_mss(skb),
			       (o.present & L7_TCPO_WSCALE) ? o.wscale : -1,
			       o.present & L7_TCPO_SACK_PERM,
			       o.present & L7_TCPO_TS, o.tsval);
		return NF_DROP;
	}
	if (th->syn || !th->ack)
		return NF_DROP;

	mss = l7_cookie_check(skb);
	if (!mss ||
	    ((o.present & L7_TCPO_TS) &&
	     !l7_cookie_ts_decode(o.tsecr, &wscale, &sack))) {
		l7_send_rst(ls->net, skb);
		return NF_DROP;
	}

	c = l7_conn_alloc(ls, iph->saddr, th->source, iph->daddr, th->dest);
	if (!c)
		return NF_DROP;	/* the client resends its ACK */
	c->c_rcv_nxt = ntohl(th->seq);
	c->c_seq0 = c->c_rcv_nxt;
	c->d_snd_una = ntohl(th->ack_seq);
	c->d_snd_nxt = c->d_snd_una;
	c->c_mss = mss;
	c->c_ts = o.present & L7_TCPO_TS;
	c->c_sack = sack;
	c->c_wscale = wscale;
	c->d_wscale = wscale >= 0 ? L7_OUR_WSCALE : -1;
	c->c_tsval = o.tsval;
	c->d_ts_last = o.tsecr;
	l7_http_req_init(&c->req, &(struct l7_http_limits){
		.max_head = l7_max_head,
		.max_headers = L7_HTTP_DEFAULT_MAX_HEADERS,
	});
	if (!l7_conn_insert(c))
		return NF_DROP;	/* a twin of this ACK made it already */

	spin_lock_bh(&c->lock);
	if (!c->dead) {
		atomic64_inc(&ls->stats.conns);
		l7_conn_expire_in(c, l7_head_timeout * HZ);
		l7_client_segment(c, skb);
	}
	spin_unlock_bh(&c->lock);
	return NF_DROP;
}

/* The connection timer, with c->lock held: retransmit or give up. */
void l7_client_timer(struct l7_conn *c)
{
	if (c->dead_reason) {
		c->dead = true;
		return;
	}
	switch (c->state) {
	case L7C_HEAD:
		/* no whole head in time: a slow or idle client */
		l7_reply(c, 408);
		return;
	case L7C_SPLICED:
		l7_bind_timer(c);
		return;
	case L7C_QUEUED:
		/* no pooled connection came free in time */
		l7_queue_del(c);
		l7_reply_503(c);
		return;
	case L7C_CLOSING:
		if (c->d_snd_una == c->d_snd_nxt) {
			c->dead = true;	/* all acked; FIN-WAIT ends here */
			return;
		}
		if (++c->retries > L7_REPLY_TRIES) {
			l7_send_client(c, TCPHDR_RST, c->d_snd_nxt, NULL, 0);
			c->dead = true;
			return;
		}
		/* resend the whole reply (if any) and FIN */
		l7_send_client(c, TCPHDR_PSH | TCPHDR_FIN, c->reply_seq,
			       c->reply, c->reply_len);
		l7_conn_expire_in(c, L7_RTO << c->retries);
		return;
	}
}
