// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: a client connection's segments, both ways, once it exists.
 * A client segment is judged by core/tcp_accept.c, planned by
 * core/client_seg.c, then taken into the head buffer (ip_vs_l7_head.c),
 * or framed by its binding's request guard (core/req_guard.c) and handed
 * down to the splice (ip_vs_l7_splice.c), which rewrites and sends what
 * the guard let through; a server segment is decided in
 * ip_vs_l7_server.c and goes down the splice the same way.  What follows
 * for the request and its binding - a body's end, a response's end, a
 * server that let the request go - is decided here, after the segment
 * went: nothing below calls back up.
 *
 * The director takes the request head into a bounded buffer and frames
 * it (FPS steps 2-3).  It acknowledges what it took: the head is the
 * director's until a backend has it, so a client with a small MSS can
 * always send a whole head.  Out-of-order data is dropped, not queued;
 * the client resends it.
 *
 * A head the framer refuses is answered with a canned 4xx/5xx and FIN
 * (ip_vs_l7_reply.c), resent on the connection timer until the client
 * has it; nothing of such a request ever reaches a backend.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/tcp.h>
#include <net/tcp.h>

#include "ip_vs_l7.h"

/* The current request ends where @b's guard stands: a head is next. */
static void l7_client_req_ended(struct l7_conn *c, struct l7_binding *b)
{
	l7_binding_req_end(c, b, b->req_guard.nxt);
	c->c_seq0 = b->req_guard.nxt;
	c->state = L7C_HEAD;
}

/*
 * c->lock held: what core/conn_sm.c planned for the request under way
 * and the connection, carried out in its order.
 */
static void l7_csm_apply(struct l7_conn *c, const struct l7_csm_plan *p)
{
	struct l7_binding *b = c->cur;

	lockdep_assert_held(&c->lock);

	if (p->lost) {
		l7_binding_lost(c, b);
		return;
	}
	if (p->req_end) {
		b->close_after = true;
		l7_client_req_ended(c, b);
	}
	if (p->cur_done)
		c->cur = NULL;
	if (p->close)
		l7_close_client(c);
	if (p->finish_acked)
		l7_bindings_finish_acked(c, c->d_snd_una, NULL);
	if (p->dispatch_held)	/* unless the bindings that went did */
		l7_held_dispatch(c);
	if (p->close_fin)
		l7_close_client(c);
}

/* c->lock held: the request under way may have ended. */
static void l7_cur_end_if_done(struct l7_conn *c)
{
	struct l7_csm m = l7_csm_of(c);
	struct l7_csm_plan p = l7_csm_cur_end(&m);

	l7_csm_apply(c, &p);
}

/*
 * What a client's ACK completes: bindings whose whole response it
 * acknowledges, and the duplicate its SACK blocks report (a server's
 * resend it had already).  Kept apart from the ACK's numbers so that a
 * pure ACK can go on to its server before they are finished.
 */
struct l7_client_acked {
	bool ok;		/* an ACK of bytes the director sent */
	bool has_dup;
	u32 ack;
	struct l7_tcp_sack_block dup;
};

/*
 * The client's ACK, one of bytes the director sent (core/tcp_accept.c
 * said so: ack_ok): the director's numbers move, and *@a says what it
 * completes.
 */
static void l7_take_client_ack(struct l7_conn *c, const struct tcphdr *th,
			       const struct l7_tcp_opts *o,
			       struct l7_client_acked *a)
{
	u32 ack = ntohl(th->ack_seq);

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
	a->ok = true;
	a->ack = ack;
	a->has_dup = (o->present & L7_TCPO_SACK) &&
		     l7_sack_dup(o->sack, o->sack_count, ack, &a->dup);
}

/* The bindings @a completes are done with. */
static void l7_client_finish_acked(struct l7_conn *c,
				   const struct l7_client_acked *a)
{
	if (a->ok)
		l7_bindings_finish_acked(c, a->ack, a->has_dup ? &a->dup : NULL);
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
 * its ACK may still tell the server sending a response something
 * (l7_relay_ack()).
 */
static unsigned int l7_pass_ack(struct l7_conn *c, struct sk_buff *skb,
				u32 hlen, bool pure)
{
	struct l7_binding *b = l7_ack_target(c);

	if (!b || !tcp_hdr(skb)->ack)
		return NF_DROP;
	return l7_relay_ack(c, b, skb, hlen, pure);
}

static unsigned int l7_client_body(struct l7_conn *c, struct l7_binding *b,
				   struct sk_buff *skb);

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
 * What core/client_seg.c says follows bytes the director took from @cs:
 * its FIN, or an ACK now or later.
 */
static struct l7_cseg_plan l7_client_took_bytes(struct l7_conn *c,
						const struct l7_cseg *cs)
{
	struct l7_cseg_ctx x = l7_cseg_ctx_of(c);
	struct l7_cseg_plan p = l7_cseg_after_take(&x, cs);

	if (p.take_fin)
		l7_client_fin(c, &p);
	else if (p.ack)
		l7_send_ack(c);
	else if (p.ack_later)
		l7_ack_later(c);
	return p;
}

/*
 * The rest of a segment the director took bytes of, as
 * l7_client_took_bytes() planned (@p): the new request's body, or only
 * its ACK going on.
 */
static unsigned int l7_client_after_take(struct l7_conn *c,
					 struct sk_buff *skb,
					 const struct l7_cseg_plan *p, u32 hlen)
{
	switch (p->act) {
	case L7_CSEG_BODY:
		return l7_client_body(c, c->cur, skb);
	case L7_CSEG_PASS:
		return l7_pass_ack(c, skb, hlen, false);
	default:
		return NF_DROP;
	}
}

/*
 * Whether the segment whose bytes went to @b's head carries the copy to
 * the server itself (core/client_seg.c decides); else the director sends
 * the copy now, and the segment goes on as any other.
 */
static unsigned int l7_client_carry_copy(struct l7_conn *c,
					 struct l7_binding *b,
					 struct sk_buff *skb,
					 const struct l7_cseg *cs,
					 struct l7_copy_carrier *k, u32 hlen)
{
	struct l7_cseg_plan p = l7_client_took_bytes(c, cs);

	if (c->dead || c->cur != b)	/* gone meanwhile: nothing to send */
		return l7_client_after_take(c, skb, &p, hlen);
	k->client_len = b->client_len;
	k->same = b->copy_len == b->client_len &&
		  !memcmp(b->copy, l7_binding_client_bytes(b), b->copy_len);
	k->bindings = c->nr_bindings;
	k->after = p.act;
	k->ts_wanted = l7_binding_ts(c, b);
	if (l7_cseg_carries_copy(cs, k))
		return l7_relay_copy(c, b, skb);
	l7_binding_send_first(c, b);
	return l7_client_after_take(c, skb, &p, hlen);
}

/*
 * Bytes of a segment (from @p->skip on) the director takes into its
 * head buffer; a head they complete goes on (l7_head_ready()).  A
 * segment that starts a head at its first byte may carry that head's
 * copy to the server itself, if it goes on at once: the bind leaves the
 * copy to it (->seg_whole_head, ->copy_waits).
 */
static unsigned int l7_client_took_head(struct l7_conn *c,
					struct sk_buff *skb,
					const struct l7_cseg *cs,
					const struct l7_cseg_plan *p, u32 hlen)
{
	struct l7_copy_carrier k = {
		.skip = p->skip,
		.buffered = c->head_len,
	};
	struct l7_cseg_plan after;
	struct l7_binding *b;

	c->seg_whole_head = !k.buffered && !k.skip && !cs->fin;
	if (cs->len > p->skip &&
	    l7_head_take(c, skb, hlen + p->skip, cs->len - p->skip))
		l7_head_ready(c);
	c->seg_whole_head = false;
	b = c->copy_waits;
	c->copy_waits = NULL;
	if (c->dead)
		return NF_DROP;	/* its bindings went with it */
	if (b)
		return l7_client_carry_copy(c, b, skb, cs, &k, hlen);
	after = l7_client_took_bytes(c, cs);
	return l7_client_after_take(c, skb, &after, hlen);
}

/*
 * c->lock held: a segment of the client's just ended the current
 * request's body at c_rcv_nxt (l7_relay_body() forwards the part
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
	if (cs.len > p.skip &&
	    l7_head_take(c, skb, hlen + p.skip, cs.len - p.skip))
		l7_head_ready(c);
	l7_client_took_bytes(c, &cs);
}

/*
 * c->lock held: a client segment with bytes of @b's request body, new or
 * resent.  The guard (core/req_guard.c) frames them and says what of the
 * segment may reach @b's server; everything that could make the director
 * drop the segment is checked before, so what it framed goes out.
 */
static enum l7_body_act l7_client_body_frame(struct l7_conn *c,
					     struct l7_binding *b,
					     struct sk_buff *skb,
					     struct l7_body_seg *bs)
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

/*
 * A client segment with bytes of @b's request body, new or resent: its
 * guard frames it (l7_client_body_frame()).  When the body ends in it, the
 * request ends there, and what follows - the next head or heads, a FIN -
 * is taken before the body's part goes on; then the binding may be done.
 */
static unsigned int l7_client_body(struct l7_conn *c, struct l7_binding *b,
				   struct sk_buff *skb)
{
	unsigned int verdict;
	struct l7_body_seg bs;

	switch (l7_client_body_frame(c, b, skb, &bs)) {
	case L7_BODY_DROP:
		return NF_DROP;
	case L7_BODY_ACK_ONLY:
		return l7_pass_ack(c, skb, bs.hlen, false);
	case L7_BODY_SEND:
		return l7_relay_body(c, b, skb, &bs);
	case L7_BODY_ENDED:
		break;
	}
	l7_client_req_ended(c, b);
	l7_client_after_body(c, skb, bs.hlen);
	verdict = l7_relay_body(c, b, skb, &bs);
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
			       const struct l7_tcp_accept *v,
			       struct l7_client_acked *a)
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
		l7_take_client_ack(c, th, o, a);
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
	if (t.fin) {
		c->c_fin = true;
		l7_tunnel_track_close(c);
	}
	return l7_relay_c2b(c, c->cur, skb);
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
 * Nothing of a segment whose options do not parse, or that is not
 * acceptable (core/tcp_accept.c: window, PAWS, RST, SYN, ACK), is taken,
 * framed or passed on, and it changes nothing: a Linux endpoint would
 * drop it too.  One that is acceptable moves the client's numbers.
 * Whether it carries a timestamp goes into @cs.
 */
static bool l7_client_accept(struct l7_conn *c, const struct tcphdr *th,
			     struct l7_cseg *cs, struct l7_client_acked *a)
{
	struct l7_tcp_endpoint e;
	struct l7_tcp_accept v;
	struct l7_tcp_opts o;
	struct l7_tcp_in in;

	if (l7_tcp_opts_of(th, &o) < 0)
		return false;
	in = (struct l7_tcp_in){
		.seq = cs->seq,
		.ack = ntohl(th->ack_seq),
		.len = cs->len + th->syn + th->fin,
		.tsval = o.tsval,
		.win = ntohs(th->window),
		.flags = tcp_flag_byte(th),
		.ts = o.present & L7_TCPO_TS,
	};
	cs->ts = in.ts;
	e = l7_client_endpoint(c);
	v = l7_tcp_accept(&e, &in);
	if (v.act != L7_ACC_OK) {
		l7_client_refused(c, &v);
		return false;
	}
	l7_client_accepted(c, th, &o, &in, &v, a);
	return true;
}

/* c->lock held: what core/client_seg.c plans for an accepted segment. */
static unsigned int l7_client_planned(struct l7_conn *c, struct sk_buff *skb,
				      const struct l7_cseg *cs, u32 hlen)
{
	struct l7_cseg_ctx x = l7_cseg_ctx_of(c);
	struct l7_cseg_plan p = l7_cseg_plan(&x, cs);

	switch (p.act) {
	case L7_CSEG_TUNNEL:
		return l7_client_tunnel(c, skb, cs);
	case L7_CSEG_BODY:
		return l7_client_body(c, c->cur, skb);
	case L7_CSEG_OLD:
		return l7_client_resent_bytes(c, skb, cs->seq);
	case L7_CSEG_TAKE:
		return l7_client_took_head(c, skb, cs, &p, hlen);
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
 * Called with c->lock held on a live connection.  The TCP checks come
 * first (l7_client_accept()), then core/client_seg.c plans what to do
 * with the segment, and this carries it out.
 *
 * A segment's ACK finishes the bindings whose response it completes
 * before its plan, which is made with them done - except a pure ACK of
 * the only binding's response, the common end of a request: it goes on
 * to that response's server first, so the server hears it from the
 * client, not from an ACK the director would make and send later
 * (l7_binding_finish(), l7_pool_release()).  With more bindings it would
 * go to the oldest, whose response it completes, and not tell the next
 * server of a window it may be waiting for: those are finished first.
 */
unsigned int l7_client_segment(struct l7_conn *c, struct sk_buff *skb)
{
	const struct tcphdr *th = tcp_hdr(skb);
	u32 hlen = l7_nhlen(skb) + th->doff * 4;
	struct l7_cseg cs = {
		.seq = ntohl(th->seq),
		.len = skb->len - hlen,
		.fin = th->fin,
	};
	struct l7_client_acked a = {};
	unsigned int verdict;

	lockdep_assert_held(&c->lock);

	if (!l7_client_accept(c, th, &cs, &a))
		return NF_DROP;
	if (cs.len || cs.fin || c->nr_bindings != 1) {
		l7_client_finish_acked(c, &a);
		return l7_client_planned(c, skb, &cs, hlen);
	}
	verdict = l7_client_planned(c, skb, &cs, hlen);
	if (!c->dead)
		l7_client_finish_acked(c, &a);
	return verdict;
}

/*
 * After a server segment (l7_server_seg() said what it did), what became
 * of the request under way: lost, ended early by a server that answered
 * before the body was all there, or done (core/conn_sm.c decides).
 */
static void l7_client_rsp_moved(struct l7_conn *c)
{
	struct l7_csm m = l7_csm_of(c);
	struct l7_csm_plan p = l7_csm_rsp_moved(&m);

	l7_csm_apply(c, &p);
}

/*
 * c->lock held: a segment from the server of @b, through the splice,
 * then what it did to the request and its binding.
 */
unsigned int l7_server_segment(struct l7_conn *c, struct l7_binding *b,
			       struct sk_buff *skb)
{
	unsigned int verdict;

	lockdep_assert_held(&c->lock);

	verdict = l7_server_seg(c, b, skb);
	l7_client_rsp_moved(c);
	return verdict;
}
