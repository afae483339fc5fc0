// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: a server's segment on a binding, decided.  It is judged as a
 * Linux receiver would judge it (core/tcp_accept.c, the server's side of
 * the binding), its ACK tells what the server has of the request, its
 * RST what becomes of the binding (core/binding_life.c), and the
 * response guard (core/rsp_guard.c) frames it and says whether it goes
 * to the client; a 101 is this module's to allow.  What goes on is
 * rewritten and sent by the splice (ip_vs_l7_splice.c), which decides
 * nothing.  All under the client connection's lock.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/skbuff.h>
#include <net/tcp.h>

#include "ip_vs_l7.h"
#include "ip_vs_l7_trace.h"

#define L7_LINGER		(2 * HZ)	/* after both FINs */

/* Both sides sent FIN through a tunnel: linger for their last ACKs. */
void l7_tunnel_track_close(struct l7_conn *c)
{
	struct l7_csm m = l7_csm_of(c);

	if (l7_csm_tunnel_closed(&m)) {
		c->dead_reason = "closed";
		c->end = L7_END_CLOSED;
		l7_conn_due_in(c, L7_CLK_END, L7_LINGER);
	}
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
 * A 101 on @b: a tunnel, if core/conn_sm.c allows it, within the
 * service's tunnel cap.
 */
static bool l7_rsp_upgrade(struct l7_conn *c, struct l7_binding *b)
{
	struct l7_csm m = l7_csm_of(c);

	if (!l7_csm_upgrade(&m, c->cur == b) ||
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
 * A server segment core/tcp_accept.c refused, and asked an ACK for
 * (l7_tcp_challenge() says which), rate-limited per binding.  The ACK
 * the server had goes, never one of bytes the client may lack.
 */
static void l7_server_challenge(struct l7_conn *c, struct l7_binding *b,
				const struct l7_tcp_endpoint *e,
				const struct l7_tcp_in *in)
{
	struct l7_tcp_challenge ch;

	if (!l7_tcp_ratelimit_allow(&b->b_challenge, (u32)jiffies,
				    L7_CHALLENGE_GAP))
		return;
	ch = l7_tcp_challenge(e, in);
	if (ch.dsack)
		l7_binding_dsack(c, b, &ch.dup);
	else
		l7_binding_send_ack(c, b, ch.ack);
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
		l7_server_challenge(c, b, &e, &in);
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

/* The response guard frames a server segment; a 101 is ours to allow. */
static struct l7_rsp_verdict l7_server_frame(struct l7_conn *c,
					     struct l7_binding *b,
					     struct l7_skb_payload *pl,
					     const struct l7_tcp_seg *s,
					     u32 payload)
{
	const struct tcphdr *th = tcp_hdr(pl->skb);
	struct l7_rsp_verdict v;

	v = l7_rsp_guard_seg(&b->rsp_guard, &(struct l7_rsp_seg){
		.seq = s->seq,
		.len = payload,
		.fin = th->fin,
		.has_ack = th->ack,
		.ack = s->ack,
		.peek = l7_skb_peek,
		.poke = l7_skb_poke,
		.ctx = pl,
	});
	if (v.act == L7_RSP_UPGRADE)
		v.act = l7_rsp_upgrade(c, b) ? L7_RSP_FORWARD : L7_RSP_BAD;
	return v;
}

/*
 * The guard refused a server segment.  The server closed before it
 * answered (it was closing the connection as it was bound), or sent
 * bytes before it had the request (past an earlier response's end):
 * nothing reached the client, the connection is retired and the request
 * may go elsewhere (core/binding_life.c).  Bytes that are not a response
 * (a 101 nobody asked for, say) reset the client.
 */
static unsigned int l7_rsp_refused(struct l7_conn *c, struct l7_binding *b,
				   const struct l7_rsp_verdict *v)
{
	struct l7_bl bl = l7_bl_of(c, b);

	if (l7_bl_refused_lost(&bl, v->closed || v->unsolicited)) {
		b->lost = true;	/* l7_client_rsp_moved() */
		return NF_DROP;
	}
	return l7_rsp_bad(c);
}

/*
 * What the guard let through of a server segment goes on to the client:
 * head bytes the director took are acknowledged, then its copy starts;
 * the response may have ended in it; a FIN the server sends after the
 * response is its own, not the client's.
 */
static unsigned int l7_server_pass(struct l7_conn *c, struct l7_binding *b,
				   struct l7_skb_payload *pl,
				   struct l7_tcp_opts *o, struct l7_tcp_seg *s,
				   u32 payload, const struct l7_rsp_verdict *v)
{
	unsigned int verdict = NF_DROP;
	bool cut = true;

	if (v->skip)
		l7_rsp_copy_taken(c, b);
	if (v->took)
		l7_rsp_copy_start(c, b);
	if (v->skip) {
		/* out of memory: the server resends what follows the head */
		cut = !l7_seg_cut_front(pl->skb, pl->hlen, v->skip);
		l7_seg_read(pl->skb, o, s);
		payload -= v->skip;
	}
	if (v->ended)
		l7_rsp_end(b, l7_rsp_guard_end(&b->rsp_guard));
	if (v->strip_fin) {
		tcp_hdr(pl->skb)->fin = 0;
		s->len = payload;
	}
	/* all but a bare FIN that was the server's own goes on: ACKs too */
	if (cut && (payload || !v->strip_fin))
		verdict = l7_relay_b2c(c, b, pl->skb, o, s, payload);
	if (c->state == L7C_TUNNEL)
		l7_tunnel_track_close(c);
	return verdict;
}

/*
 * c->lock held: a server segment on @b, judged as a Linux receiver would
 * judge it; its ACK followed, its bytes framed by the response guard,
 * and what the guard let through passed on.
 */
unsigned int l7_server_seg(struct l7_conn *c, struct l7_binding *b,
			   struct sk_buff *skb)
{
	struct l7_skb_payload pl = { .skb = skb };
	struct l7_tcp_accept acc;
	struct l7_rsp_verdict v;
	struct l7_tcp_opts o;
	struct l7_tcp_seg s;
	u32 payload;

	lockdep_assert_held(&c->lock);

	if (tcp_hdr(skb)->syn)
		return l7_b2c_syn(c, b, skb);
	if (l7_seg_take(skb, &o, &s))
		return NF_DROP;
	pl.hlen = l7_nhlen(skb) + tcp_hdrlen(skb);
	payload = s.len - tcp_hdr(skb)->fin;
	switch (l7_server_accept(c, b, tcp_hdr(skb), &s, &acc)) {
	case L7_ACC_RESET:
		return l7_b2c_rst(c, b) ?
		       l7_relay_b2c(c, b, skb, &o, &s, payload) : NF_DROP;
	case L7_ACC_OK:
		break;
	default:
		return NF_DROP;
	}
	if (acc.ack_ok)
		l7_b2c_ack(c, b, &s, acc.window);

	v = l7_server_frame(c, b, &pl, &s, payload);
	switch (v.act) {
	case L7_RSP_WAIT:
		return NF_DROP;
	case L7_RSP_BAD:
		return l7_rsp_refused(c, b, &v);
	default:
		return l7_server_pass(c, b, &pl, &o, &s, payload, &v);
	}
}
