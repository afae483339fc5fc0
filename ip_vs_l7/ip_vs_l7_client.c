// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the client side of a connection, and the top of every
 * segment's path.  A client segment is judged by core/tcp_accept.c,
 * planned by core/client_seg.c, then taken into the head buffer or
 * handed down to the splice (ip_vs_l7_splice.c), which frames and sends
 * it and reports what it found; a server segment goes down the splice the
 * same way.  What follows for the request and its binding - a body's end,
 * a response's end, a server that let the request go - is decided here,
 * after the splice returns: it never calls back up.
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
#include "ip_vs_l7_sync.h"
#include "ip_vs_l7_trace.h"
#include "core/http_reply.h"
#include "core/tcp_cookie.h"
#include "core/tcp_opt.h"

#define L7_DEFAULT_MSS		536	/* RFC 9293: no MSS option */
#define L7_REPLY_TRIES		6

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

/* The kernel's SYN cookies of the segment's family (MSS table, key). */
static u32 l7_cookie_init(const struct sk_buff *skb, u16 *mss)
{
	if (l7_skb_af(skb) == AF_INET6)
		return __cookie_v6_init_sequence(ipv6_hdr(skb), tcp_hdr(skb),
						 mss);
	return __cookie_v4_init_sequence(ip_hdr(skb), tcp_hdr(skb), mss);
}

static u32 l7_cookie_check(const struct sk_buff *skb)
{
	const struct tcphdr *th = tcp_hdr(skb);

#ifdef L7_COOKIE_CHECK_NO_COOKIE_ARG	/* 6.7+: it reads th->ack_seq */
	if (l7_skb_af(skb) == AF_INET6)
		return __cookie_v6_check(ipv6_hdr(skb), th);
	return __cookie_v4_check(ip_hdr(skb), th);
#else
	if (l7_skb_af(skb) == AF_INET6)
		return __cookie_v6_check(ipv6_hdr(skb), th,
					 ntohl(th->ack_seq) - 1);
	return __cookie_v4_check(ip_hdr(skb), th, ntohl(th->ack_seq) - 1);
#endif
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

/* Answer with a canned response and FIN; the client's data is ignored. */
void l7_reply(struct l7_conn *c, int status, const char *why)
{
	lockdep_assert_held(&c->lock);

	c->reply = l7_http_reply(status, &c->reply_len);
	trace_l7_reply(c, status, why);
	l7_conn_closing(c);
	c->retries = 0;
	c->reply_seq = c->d_snd_nxt;
	l7_send_client(c, TCPHDR_PSH | TCPHDR_FIN, c->d_snd_nxt, c->reply,
		       c->reply_len);
	c->d_snd_nxt += c->reply_len + 1;
	l7_service_count(c->ls, bad_requests);
	l7_conn_due_in(c, L7_CLK_REPLY, L7_RTO);
}

/* Close our side after the last response: FIN, resent until acked. */
static void l7_close_client(struct l7_conn *c)
{
	lockdep_assert_held(&c->lock);

	l7_conn_closing(c);
	c->reply = NULL;
	c->reply_len = 0;
	c->reply_seq = c->d_snd_nxt;
	c->retries = 0;
	l7_send_client(c, TCPHDR_FIN, c->d_snd_nxt, NULL, 0);
	c->d_snd_nxt++;
	l7_conn_due_in(c, L7_CLK_REPLY, L7_RTO);
}

/*
 * L7_CLK_REPLY: resend our reply (if any) and FIN until the client has
 * them; reset it after L7_REPLY_TRIES.  A response still on its way
 * keeps our FIN behind it, and while it moves the tries start over.
 */
void l7_reply_due(struct l7_conn *c)
{
	lockdep_assert_held(&c->lock);

	if (c->d_snd_una == c->d_snd_nxt)
		return;	/* all acked: the client's FIN or CLOSE ends it */
	if (!list_empty(&c->bindings) &&
	    (u32)jiffies - c->clock.progress < L7_RTO * 8)
		c->retries = 0;
	if (++c->retries > L7_REPLY_TRIES) {
		l7_send_client(c, TCPHDR_RST, c->d_snd_nxt, NULL, 0);
		c->dead = true;
		return;
	}
	l7_send_client(c, TCPHDR_PSH | TCPHDR_FIN, c->reply_seq,
		       c->reply, c->reply_len);
	l7_conn_due_in(c, L7_CLK_REPLY, L7_RTO << c->retries);
}

/*
 * L7_CLK_CLOSE: the director closed, nothing of a response is left, and
 * the client did not finish closing in time.  If it has all we sent, it
 * is forgotten (FIN-WAIT ends here); else it is reset.
 */
void l7_close_late(struct l7_conn *c)
{
	lockdep_assert_held(&c->lock);

	if (c->d_snd_una != c->d_snd_nxt)
		l7_send_client(c, TCPHDR_RST, c->d_snd_nxt, NULL, 0);
	c->dead = true;
}

/*
 * L7_CLK_HEAD: nothing is under way and no complete head came within
 * head_timeout.  Part of one gets 408; none, a plain close.
 */
void l7_head_late(struct l7_conn *c)
{
	lockdep_assert_held(&c->lock);

	if (c->head_len)
		l7_reply(c, 408, "head_timeout");
	else
		l7_close_client(c);	/* idle between requests */
}

/*
 * Frame what ->head holds beyond what the framer has seen.  A complete
 * (or refused) head is dispatched when nothing is under way, else held
 * until the response before it is complete.
 */
void l7_head_frame(struct l7_conn *c)
{
	enum l7_http_status st;
	size_t used;

	lockdep_assert_held(&c->lock);

	if (c->state != L7C_HEAD || c->framed == c->head_len)
		return;
	st = l7_http_req_feed(&c->req, c->head + c->framed,
			      c->head_len - c->framed, &used);
	c->framed += used;
	if (st == L7_HTTP_ERROR)
		c->bad_status = l7_http_err_status(c->req.err);
	else if (st != L7_HTTP_DONE && c->head_len == l7_max_head)
		c->bad_status = 431;
	else if (st != L7_HTTP_DONE)
		return;

	if (!l7_may_dispatch(c)) {
		c->state = L7C_HELD;
		l7_service_count(c->ls, held);
	} else {
		l7_dispatch(c);
	}
}

/* The framer starts over at ->head[0]: a new request begins there. */
void l7_head_restart(struct l7_conn *c)
{
	c->framed = 0;
	c->bad_status = 0;
	l7_http_req_init(&c->req, &(struct l7_http_limits){
		.max_head = l7_max_head,
		/* the director's copy may add fields (core/head_copy.h) */
		.max_headers = L7_HTTP_DEFAULT_MAX_HEADERS - L7_COPY_FIELDS,
	});
}

/* Frame ->head from its first byte again (it changed in front). */
void l7_head_reframe(struct l7_conn *c)
{
	l7_head_restart(c);
	l7_head_frame(c);
}

/*
 * c->lock held: the current binding has its whole request and response.
 * Close if the client asked for it, else go on with the next request.
 */
static void l7_cur_end_if_done(struct l7_conn *c)
{
	struct l7_binding *b = c->cur;
	bool held = c->state == L7C_HELD;

	lockdep_assert_held(&c->lock);

	if (!b || !b->req_done || !b->rsp_guard.done)
		return;
	c->cur = NULL;
	if (b->close_after) {
		l7_close_client(c);	/* pipelined requests are void */
		return;
	}
	/*
	 * The client may have had the whole response before its request
	 * ended (a server that answers before it reads the body): the
	 * pooled connection goes back now, not at the client's next ACK.
	 * That may dispatch a held head already.
	 */
	l7_bindings_finish_acked(c, c->d_snd_una, NULL);
	if (held) {
		/* even after the client's FIN; else at an ACK that frees one */
		if (c->state == L7C_HELD && l7_may_dispatch(c))
			l7_dispatch(c);
	} else if (c->c_fin) {
		l7_close_client(c);
	}
}

/*
 * Take in-order head bytes into the buffer, as far as there is room;
 * the buffer grows with what arrives.  What is not taken is not
 * acknowledged: the client sends it again.
 */
static void l7_take_head(struct l7_conn *c, const struct sk_buff *skb,
			 u32 off, u32 len)
{
	u32 room = l7_max_head - c->head_len;

	if (len > room)
		len = room;	/* the rest comes again once there is room */
	if (!l7_head_reserve(c, c->head_len + len))
		len = min(len, c->head_cap - c->head_len);
	if (!len || skb_copy_bits(skb, off, c->head + c->head_len, len))
		return;
	c->head_len += len;
	c->c_rcv_nxt += len;
	l7_conn_progress(c);
	l7_head_frame(c);
}

/*
 * The client's ACK, and the duplicate its SACK blocks report (a server's
 * resend it had already): bindings it completes are done with.
 */
static void l7_take_client_ack(struct l7_conn *c, const struct tcphdr *th,
			       const struct l7_tcp_opts *o)
{
	u32 ack = ntohl(th->ack_seq);
	struct l7_tcp_sack_block dup;
	bool has_dup;

	if (!th->ack || before(ack, c->d_snd_una) || after(ack, c->d_snd_nxt))
		return;
	if (after(ack, c->d_snd_una)) {
		c->retries = 0;	/* progress: our FIN's resends start over */
		l7_floor_read_moved(c, ack - c->d_snd_una);
		l7_conn_progress(c);
	}
	c->d_snd_una = ack;
	/*
	 * Linux counts what was acknowledged in 64 bits; this difference
	 * would wrap at 4 GB and shrink the old-ACK span (min(max_window,
	 * acknowledged), core/tcp_accept.c) to nothing.  Past 2^30 that span
	 * is max_window anyway: the first byte is pulled along, and a record
	 * of the connection stays in range (l7_ckpt_conn_valid()).
	 */
	if (c->d_snd_una - c->d_snd_isn > 1u << 30)
		c->d_snd_isn = c->d_snd_una - (1u << 30);
	has_dup = (o->present & L7_TCPO_SACK) &&
		  l7_sack_dup(o->sack, o->sack_count, ack, &dup);
	l7_bindings_finish_acked(c, ack, has_dup ? &dup : NULL);
}

/*
 * The binding the client's ACKs are for: the oldest whose response the
 * client does not have whole yet.
 */
static struct l7_binding *l7_ack_target(struct l7_conn *c)
{
	return list_first_entry_or_null(&c->bindings, struct l7_binding, node);
}

/*
 * A client segment whose payload the director took (or that has none):
 * what it says about the response stream - ACK, window, SACK - still
 * goes to the server sending it, as a pure ACK, when it tells it more
 * than it knows.
 */
static unsigned int l7_pass_ack(struct l7_conn *c, struct sk_buff *skb,
				u32 hlen, bool pure)
{
	struct l7_binding *b = l7_ack_target(c);
	struct tcphdr *th = tcp_hdr(skb);
	u32 ack = ntohl(th->ack_seq);

	if (!b || !th->ack)
		return NF_DROP;
	/*
	 * An ACK older than the client's last (it acknowledges nothing), or
	 * of bytes never sent to it, tells a server nothing true.
	 */
	if (before(ack, c->d_snd_una) || after(ack, c->d_snd_nxt))
		return NF_DROP;
	if (!pure) {
		if (!after(ack, b->c_ack_passed))
			return NF_DROP;	/* would read as a duplicate ACK */
		if (l7_seg_trim(skb, hlen, 0))
			return NF_DROP;
	}
	if (after(ack, b->c_ack_passed))
		b->c_ack_passed = ack;
	return l7_splice_c2b(c, b, skb);
}

static unsigned int l7_client_body(struct l7_conn *c, struct l7_binding *b,
				   struct sk_buff *skb);

/* The current request ends where @b's guard stands: a head is next. */
static void l7_client_req_ended(struct l7_conn *c, struct l7_binding *b)
{
	l7_binding_req_end(c, b, b->req_guard.nxt);
	c->c_seq0 = b->req_guard.nxt;
	c->state = L7C_HEAD;
}

/*
 * A resend of request bytes the director has framed already: the guard
 * of the binding they went through decides, so that a resend with other
 * bytes never reaches a server.
 */
static unsigned int l7_client_resent_bytes(struct l7_conn *c,
					   struct sk_buff *skb, u32 seq)
{
	struct l7_binding *b;

	list_for_each_entry(b, &c->bindings, node)
		if (l7_range_where(&b->map.req_range, seq) == L7_HERE &&
		    !(b->req_done && seq == b->map.req_range.end))
			return l7_client_body(c, b, skb);
	if (l7_may_ack(c))
		l7_send_ack(c);
	return NF_DROP;
}

/*
 * The client's FIN, in order: counted, and acknowledged unless a body
 * before it is not all at its server yet (then with the server's ACK).
 */
static void l7_client_fin(struct l7_conn *c, const struct l7_cseg_plan *p)
{
	c->c_fin = true;
	c->c_rcv_nxt++;
	if (p->ack)
		l7_send_ack(c);
	if (p->close)
		l7_close_client(c);	/* nothing under way: close too */
	/* else after the response under way (l7_cur_end_if_done) */
}

/*
 * The rest of a segment the director took bytes of: the new request's
 * body, or the FIN and ACK; then its ACK goes on.
 */
static unsigned int l7_client_after_head(struct l7_conn *c, struct sk_buff *skb,
					 const struct l7_cseg *cs, u32 hlen)
{
	struct l7_cseg_ctx x = l7_cseg_ctx_of(c);
	struct l7_cseg_plan p = l7_cseg_after_take(&x, cs);

	if (p.take_fin)
		l7_client_fin(c, &p);
	else if (p.ack)
		l7_send_ack(c);
	else if (p.ack_later)
		l7_ack_later(c);
	switch (p.act) {
	case L7_CSEG_BODY:
		return l7_client_body(c, c->cur, skb);
	case L7_CSEG_PASS:
		return l7_pass_ack(c, skb, hlen, false);
	default:
		return NF_DROP;
	}
}

/*
 * c->lock held: a segment of the client's just ended the current
 * request's body at c_rcv_nxt (l7_splice_body() forwards the part
 * before).  What follows in it - the next head or heads, a FIN - is
 * taken now, and acknowledged with the server's ACK of the body's end
 * (l7_client_server_acked()); the segment's ACK goes on with the body.
 */
static void l7_client_after_body(struct l7_conn *c, const struct sk_buff *skb,
				 u32 hlen)
{
	const struct tcphdr *th = tcp_hdr(skb);
	struct l7_cseg cs = {
		.seq = ntohl(th->seq),
		.len = skb->len - hlen,
		.fin = th->fin,
	};
	struct l7_cseg_ctx x = l7_cseg_ctx_of(c);
	struct l7_cseg_plan p = l7_cseg_after_body(&x, &cs);

	lockdep_assert_held(&c->lock);

	if (p.act != L7_CSEG_TAKE)
		return;
	if (cs.len > p.skip)
		l7_take_head(c, skb, hlen + p.skip, cs.len - p.skip);
	x = l7_cseg_ctx_of(c);
	p = l7_cseg_after_take(&x, &cs);
	if (p.take_fin)
		l7_client_fin(c, &p);
	else if (p.ack)
		l7_send_ack(c);
	else if (p.ack_later)
		l7_ack_later(c);
}

/*
 * A client segment with bytes of @b's request body, new or resent: its
 * guard frames it (l7_splice_body()).  When the body ends in it, the
 * request ends there, and what follows - the next head or heads, a FIN -
 * is taken before the body's part goes on; then the binding may be done.
 */
static unsigned int l7_client_body(struct l7_conn *c, struct l7_binding *b,
				   struct sk_buff *skb)
{
	unsigned int verdict;
	struct l7_body_seg bs;

	switch (l7_splice_body(c, b, skb, &bs)) {
	case L7_BODY_DROP:
		return NF_DROP;
	case L7_BODY_ACK_ONLY:
		return l7_pass_ack(c, skb, bs.hlen, false);
	case L7_BODY_SEND:
		return l7_splice_body_send(c, b, skb, &bs);
	case L7_BODY_ENDED:
		break;
	}
	l7_client_req_ended(c, b);
	l7_client_after_body(c, skb, bs.hlen);
	verdict = l7_splice_body_send(c, b, skb, &bs);
	l7_cur_end_if_done(c);
	return verdict;
}

/*
 * A segment core/tcp_accept.c refused: counted, and answered as it says.
 * A RST at exactly c_rcv_nxt ends the connection.
 */
static void l7_client_refused(struct l7_conn *c,
			      const struct l7_tcp_accept *v)
{
	switch (v->act) {
	case L7_ACC_RESET:
		c->reset = true;	/* nothing to reset back */
		l7_conn_end(c, L7_END_CLIENT_RST, "reset by client");
		return;
	case L7_ACC_CHALLENGE:
		l7_challenge_ack(c);
		break;
	default:
		break;
	}
	l7_service_count(c->ls, unacceptable);
}

/*
 * An acceptable segment: its timestamp and window, where it may set
 * them (TS.Recent per RFC 7323 4.3, the window per snd_wl1), then its
 * ACK.
 */
static void l7_client_accepted(struct l7_conn *c, const struct tcphdr *th,
			       const struct l7_tcp_opts *o,
			       const struct l7_tcp_in *in,
			       const struct l7_tcp_accept *v)
{
	struct l7_tcp_endpoint e = l7_client_endpoint(c);

	l7_tcp_accept_apply(&e, in, v);
	c->c_tsval = e.ts_recent;
	if (v->window) {
		c->c_win = in->win;
		c->c_wl1 = e.snd_wl1;
		c->c_max_win = e.max_window;
	}
	if (v->ack_ok)
		l7_take_client_ack(c, th, o);
}

/*
 * A client segment through a tunnel, past the same checks as any other.
 * The director takes none of its bytes but follows where the client's
 * stream stands, so that only an in-order FIN counts and a RST only at
 * exactly that point (core/tcp_accept.c); new bytes are progress.
 */
static unsigned int l7_client_tunnel(struct l7_conn *c, struct sk_buff *skb,
				     const struct l7_cseg *cs)
{
	struct l7_tunnel_seg t = l7_tunnel_seg(c->c_rcv_nxt, cs);

	if (t.progress) {
		c->c_rcv_nxt = t.rcv_nxt;
		l7_conn_progress(c);
	}
	return l7_splice_tunnel(c, c->cur, skb, t.fin);
}

/* In CLOSING: the FIN is still taken, and ends the wait for it. */
static unsigned int l7_client_closing(struct l7_conn *c, struct sk_buff *skb,
				      const struct l7_cseg_plan *p, u32 hlen)
{
	if (p->take_fin)
		l7_client_fin(c, p);	/* never ->close: we closed already */
	/* all acked both ways: over (else L7_CLK_CLOSE ends the wait) */
	if (c->d_snd_una == c->d_snd_nxt && c->c_fin)
		l7_conn_due_in(c, L7_CLK_END, 0);
	return l7_pass_ack(c, skb, hlen, p->pure);
}

/*
 * Called with c->lock held on a live connection.  The TCP checks come
 * first (core/tcp_guard.c), then core/client_seg.c plans what to do with
 * the segment, and this carries it out.
 */
static unsigned int l7_client_segment(struct l7_conn *c, struct sk_buff *skb)
{
	const struct tcphdr *th = tcp_hdr(skb);
	u32 hlen = l7_nhlen(skb) + th->doff * 4;
	struct l7_cseg cs = {
		.seq = ntohl(th->seq),
		.len = skb->len - hlen,
		.fin = th->fin,
	};
	struct l7_tcp_endpoint e;
	struct l7_tcp_accept v;
	struct l7_cseg_plan p;
	struct l7_tcp_opts o;
	struct l7_cseg_ctx x;
	struct l7_tcp_in in;

	lockdep_assert_held(&c->lock);

	/*
	 * Nothing of a segment whose options do not parse, or that is not
	 * acceptable (core/tcp_accept.c: window, PAWS, RST, SYN, ACK), is
	 * taken, framed or passed on, and it changes nothing: a Linux
	 * endpoint would drop it too.
	 */
	if (l7_tcp_opts_of(th, &o) < 0)
		return NF_DROP;
	in = (struct l7_tcp_in){
		.seq = cs.seq,
		.ack = ntohl(th->ack_seq),
		.len = cs.len + th->syn + th->fin,
		.tsval = o.tsval,
		.win = ntohs(th->window),
		.flags = tcp_flag_byte(th),
		.ts = o.present & L7_TCPO_TS,
	};
	e = l7_client_endpoint(c);
	v = l7_tcp_accept(&e, &in);
	if (v.act != L7_ACC_OK) {
		l7_client_refused(c, &v);
		return NF_DROP;
	}
	l7_client_accepted(c, th, &o, &in, &v);

	x = l7_cseg_ctx_of(c);	/* the ACK may have finished a binding */
	p = l7_cseg_plan(&x, &cs);
	switch (p.act) {
	case L7_CSEG_TUNNEL:
		return l7_client_tunnel(c, skb, &cs);
	case L7_CSEG_BODY:
		return l7_client_body(c, c->cur, skb);
	case L7_CSEG_OLD:
		return l7_client_resent_bytes(c, skb, cs.seq);
	case L7_CSEG_TAKE:
		if (cs.len > p.skip)
			l7_take_head(c, skb, hlen + p.skip, cs.len - p.skip);
		if (c->dead)
			return NF_DROP;
		return l7_client_after_head(c, skb, &cs, hlen);
	case L7_CSEG_PASS:
		if (c->state == L7C_CLOSING)
			return l7_client_closing(c, skb, &p, hlen);
		if (p.ack)
			l7_send_ack(c);	/* out of order: resync */
		return l7_pass_ack(c, skb, hlen, p.pure);
	default:
		return NF_DROP;
	}
}

/*
 * After a server segment (l7_splice_b2c() said what it did):
 * - the current binding's server closed or reset before it answered, or
 *   sent bytes before it had the request: the binding is lost, and the
 *   request tried again or answered 502 (l7_binding_lost());
 * - its server ended the response and closed or reset before the
 *   request's body was all there (Apache's 408 and 413, any early
 *   answer): it reads no more of it.  The request ends where its body
 *   stands, the client is closed after the response, and the pooled
 *   connection goes once the client has the response - nothing waits
 *   for a body that has nowhere to go;
 * - a response may have ended, or a server that reset may have a
 *   binding whose response the client has whole: done with.
 */
static void l7_client_rsp_moved(struct l7_conn *c)
{
	struct l7_binding *b = c->cur;

	if (c->dead || c->dead_reason)
		return;
	if (b && b->lost) {
		l7_binding_lost(c, b);
		return;
	}
	if (b && !b->req_done && b->rsp_guard.done &&
	    (b->rsp_guard.fin || b->b_rst)) {
		b->close_after = true;
		l7_client_req_ended(c, b);
	}
	l7_cur_end_if_done(c);
	l7_bindings_finish_acked(c, c->d_snd_una, NULL);
}

/* A segment from a server on a pooled connection bound to @c. */
bool l7_backend_packet(struct l7_conn *c, struct l7_pconn *pc,
		       struct sk_buff *skb, unsigned int *verdict)
{
	struct l7_binding *b = NULL;

	spin_lock_bh(&c->lock);
	if (!c->dead)
		b = l7_binding_of(c, pc);
	if (b) {
		*verdict = l7_splice_b2c(c, b, skb);
		l7_client_rsp_moved(c);
		l7_conn_settle(c);
	}
	spin_unlock_bh(&c->lock);
	return b;
}

unsigned int l7_client_packet(struct l7_conn *c, struct sk_buff *skb)
{
	unsigned int verdict = NF_DROP;

	spin_lock_bh(&c->lock);
	if (!c->dead) {
		verdict = l7_client_segment(c, skb);
		l7_conn_settle(c);
	}
	spin_unlock_bh(&c->lock);
	return verdict;
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
	if (!IS_ERR(c))
		return c;
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
	bool v4 = l7_skb_af(skb) == AF_INET;

	memset(g, 0, sizeof(*g));
	l7_skb_addrs(skb, &caddr, &vaddr);
	g->t.family = v4 ? 4 : 6;
	memcpy(g->t.caddr, &caddr, v4 ? 4 : 16);
	memcpy(g->t.vaddr, &vaddr, v4 ? 4 : 16);
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
 */
static struct l7_conn *l7_client_adopt(struct l7_service *ls,
				       struct sk_buff *skb,
				       const struct l7_tcp_opts *o)
{
	struct l7_ckpt_slot rec;
	struct l7_ckpt_seg g;
	struct l7_conn *c;

	if (!l7_sync_has_records(ls->net))
		return NULL;
	l7_ckpt_seg_of(skb, o, &g);
	switch (l7_sync_adopt(ls->net, &g, &rec)) {
	case L7_CKPT_ADOPT:
		break;
	case L7_CKPT_PROBE:
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
	case L7_CKPT_WAIT:
		return ERR_PTR(-EAGAIN);
	default:
		return NULL;
	}
	if (WARN_ON_ONCE(g.flags & L7_TCPF_RST))
		return NULL;
	c = l7_client_alloc(ls, skb);
	if (c)
		l7_conn_restore(c, &rec);
	return c;
}

/*
 * The ACK that completes a cookie handshake: a new connection, or NULL
 * (a bad cookie is reset).
 */
static struct l7_conn *l7_client_accept(struct l7_service *ls,
					struct sk_buff *skb,
					const struct l7_tcp_opts *o)
{
	const struct tcphdr *th = tcp_hdr(skb);
	struct l7_conn *c;
	int wscale = -1;
	bool sack = false;
	u32 mss;

	mss = l7_cookie_check(skb);
	if (!mss ||
	    ((o->present & L7_TCPO_TS) &&
	     !l7_cookie_ts_decode(o->tsecr, &wscale, &sack))) {
		l7_send_rst(ls->net, skb);
		return NULL;
	}
	c = l7_client_alloc(ls, skb);
	if (!c)
		return NULL;
	c->c_rcv_nxt = ntohl(th->seq);
	c->c_acked = c->c_rcv_nxt;
	c->c_seq0 = c->c_rcv_nxt;
	c->d_snd_una = ntohl(th->ack_seq);
	c->d_snd_nxt = c->d_snd_una;
	c->c_mss = mss;
	c->c_ts = o->present & L7_TCPO_TS;
	c->c_sack = sack;
	c->c_wscale = wscale;
	c->d_wscale = wscale >= 0 ? L7_OUR_WSCALE : -1;
	c->c_tsval = o->tsval;
	c->d_ts_last = o->tsecr;
	c->d_snd_isn = c->d_snd_una;
	c->c_win = ntohs(th->window);
	c->c_wl1 = c->c_rcv_nxt;
	c->c_max_win = (u32)c->c_win << max(wscale, 0);
	c->c_rcv_edge = c->c_rcv_nxt + 65535;	/* our SYN-ACK's, unscaled */
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
	const struct tcphdr *th = tcp_hdr(skb);
	struct l7_tcp_opts o;
	struct l7_conn *c;
	bool adopted;

	/* SYN+FIN, SYN+RST: no stack sends them; no answer, no cookie */
	if (l7_tcp_flags_check(tcp_flag_byte(th), false) == L7_FLAGS_DROP)
		return NF_DROP;
	if (l7_tcp_opts_of(th, &o) < 0)
		return NF_DROP;
	/* a client that ended a connection we have a record of: no answer */
	if (th->rst) {
		l7_client_adopt(ls, skb, &o);
		return NF_DROP;
	}

	if (th->syn && !th->ack) {
		u16 cmss = (o.present & L7_TCPO_MSS) ? o.mss : L7_DEFAULT_MSS;
		u32 cookie = l7_cookie_init(skb, &cmss);

		l7_send_synack(ls->net, skb, cookie, l7_adv_mss(skb),
			       (o.present & L7_TCPO_WSCALE) ? o.wscale : -1,
			       o.present & L7_TCPO_SACK_PERM,
			       o.present & L7_TCPO_TS, o.tsval);
		return NF_DROP;
	}
	if (th->syn || !th->ack)
		return NF_DROP;

	/*
	 * A record first: its client's segment fails the cookie check.  A
	 * record the segment does not fit is dropped, and the cookie check
	 * decides as it would without one.
	 */
	c = l7_client_adopt(ls, skb, &o);
	if (IS_ERR(c))
		return NF_DROP;
	adopted = c;
	if (!c)
		c = l7_client_accept(ls, skb, &o);
	if (!c)
		return NF_DROP;
	l7_floor_init(c);
	l7_head_restart(c);
	if (!l7_conn_insert(c))
		return NF_DROP;	/* a twin of this ACK made it already */

	spin_lock_bh(&c->lock);
	if (!c->dead) {
		if (!adopted)
			l7_service_count(ls, conns);
		l7_client_segment(c, skb);
		l7_conn_settle(c);
	}
	spin_unlock_bh(&c->lock);
	return NF_DROP;
}
