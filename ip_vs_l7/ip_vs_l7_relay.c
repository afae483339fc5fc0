// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: one segment across a binding, either way.  Core
 * (core/splice_plan.c) says whether it goes and with which numbers; what
 * it moves - what the server or the client was sent and acknowledged,
 * what came of a response - is written here, and the splice rewrites and
 * sends it.  The callers (ip_vs_l7_client.c, ip_vs_l7_server.c) decided
 * what the segment means before.  All under the client connection's lock.
 */

#include <net/tcp.h>

#include "ip_vs_l7.h"
#include "core/splice_plan.h"

/* A client segment, taken (l7_seg_take()), to @b's server. */
static unsigned int l7_relay_to_server(struct l7_conn *c, struct l7_binding *b,
				       struct sk_buff *skb,
				       struct l7_tcp_opts *o,
				       const struct l7_tcp_seg *seg)
{
	struct l7_seg_bounds ok = l7_client_bounds(c);
	struct l7_tcp_seg s = *seg;
	struct l7_c2b_plan p;

	lockdep_assert_held(&c->lock);

	if (!s.ts) {	/* what it would carry if one is added */
		s.tsval = l7_client_tsval(c);
		s.tsecr = b->b_tsval;
	}
	p = l7_c2b_plan(&b->map, &ok, b->b_snd_nxt, &s, tcp_hdr(skb)->ack);
	if (!p.go)
		return NF_DROP;
	if (p.announce)
		l7_binding_announced(b, s.ack, s.win);
	if (p.ts_sent)
		l7_ts_note(&b->ts_sent, s.tsval);
	if (p.snd_moved)
		b->b_snd_nxt = s.seq + s.len;
	return l7_splice_out_server(c, b, skb, o, &s, p.flags);
}

/* c->lock held: a client segment goes to @b's server. */
unsigned int l7_relay_c2b(struct l7_conn *c, struct l7_binding *b,
			  struct sk_buff *skb)
{
	struct l7_tcp_opts o;
	struct l7_tcp_seg s;

	if (l7_seg_take(skb, &o, &s))
		return NF_DROP;
	return l7_relay_to_server(c, b, skb, &o, &s);
}

/*
 * c->lock held: the part of a body segment its guard framed
 * (l7_client_body_frame()), to the server.
 */
unsigned int l7_relay_body(struct l7_conn *c, struct l7_binding *b,
			   struct sk_buff *skb, struct l7_body_seg *bs)
{
	if (bs->whole)
		return l7_relay_to_server(c, b, skb, &bs->o, &bs->s);
	if (l7_seg_clip(skb, bs->hlen, bs->v.skip, bs->v.keep))
		return NF_DROP;
	l7_seg_read(skb, &bs->o, &bs->s);
	return l7_relay_to_server(c, b, skb, &bs->o, &bs->s);
}

/*
 * c->lock held: @skb, the client's segment that holds exactly the copy
 * of the head just bound to @b (core/client_seg.c said so,
 * l7_cseg_carries_copy()), goes to the server as the copy's first
 * sending, with the numbers the director's own would have had - one skb
 * less to allocate and fill per request.  Its SACK blocks, of older
 * responses, map to nothing on the new binding.  The copy itself stays
 * for resends (L7_CLK_REQ_COPY); if the segment cannot be rewritten the
 * director sends the copy instead.
 */
unsigned int l7_relay_copy(struct l7_conn *c, struct l7_binding *b,
			   struct sk_buff *skb)
{
	struct l7_tcp_opts o;
	struct l7_tcp_seg s;

	lockdep_assert_held(&c->lock);

	if (l7_seg_take(skb, &o, &s)) {
		l7_binding_send_first(c, b);
		return NF_DROP;
	}
	l7_binding_copy_numbers(c, b, &s);
	return l7_splice_out_server(c, b, skb, &o, &s,
				    s.ts ? 0 : L7_SEG_STRIP_TS);
}

/*
 * c->lock held: a client segment whose payload the director took (or
 * that has none, @pure): what it says about @b's response stream - ACK,
 * window, SACK - still goes to its server, as a pure ACK, when
 * core/splice_plan.c says it tells it something true and new.
 */
unsigned int l7_relay_ack(struct l7_conn *c, struct l7_binding *b,
			  struct sk_buff *skb, u32 hlen, bool pure)
{
	u32 ack = ntohl(tcp_hdr(skb)->ack_seq);

	if (!l7_ack_pass(ack, c->d_snd_una, c->d_snd_nxt, b->c_ack_passed,
			 pure))
		return NF_DROP;
	if (!pure && l7_seg_trim(skb, hlen, 0))
		return NF_DROP;
	if (after(ack, b->c_ack_passed))
		b->c_ack_passed = ack;
	return l7_relay_c2b(c, b, skb);
}

/*
 * c->lock held: a server segment on @b that the response guard let
 * through (ip_vs_l7_server.c), to the client; bytes of an earlier
 * binding's response are reported to the server as a duplicate instead.
 */
unsigned int l7_relay_b2c(struct l7_conn *c, struct l7_binding *b,
			  struct sk_buff *skb, struct l7_tcp_opts *o,
			  struct l7_tcp_seg *s, u32 payload)
{
	u32 b_seq = s->seq;
	struct l7_c_sent cs = {
		.acked = c->c_acked,
		.snd_nxt = c->d_snd_nxt,
		.tsval = c->d_ts_last,
		.ts = c->c_ts,
	};
	struct l7_b2c_plan p;

	lockdep_assert_held(&c->lock);

	p = l7_b2c_plan(&b->map, &cs, s, payload, tcp_hdr(skb)->ack);
	if (!p.go) {
		if (p.dup_earlier)
			l7_binding_dsack(c, b, &p.dup);
		return NF_DROP;
	}
	if (p.rsp) {
		u32 last = l7_seg_last_packet(skb, b_seq, payload);

		b->rsp_seen = true;
		if (after(last, b->rsp_last_pkt))
			b->rsp_last_pkt = last;
	}
	b->rsp_resent |= p.rsp_resent;
	if (p.ack_news)
		l7_client_ack_sent(c, s->ack);
	if (p.announce)
		l7_client_announced(c, s->ack, s->win);
	if (p.ts_sent)
		c->d_ts_last = s->tsval;
	if (p.snd_moved) {
		c->d_snd_nxt = s->seq + s->len;
		l7_conn_progress(c);	/* new response bytes */
	}
	return l7_splice_out_client(c, b, skb, o, s, p.flags, payload);
}
