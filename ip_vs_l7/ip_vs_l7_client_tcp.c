// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the director's side of TCP towards a client - what it may
 * acknowledge and when, the ACK it owes, the window the client was
 * announced, the connection as core/tcp_accept.c reads it, and the
 * segments the director writes to it (ip_vs_l7_xmit.c sends them).  A
 * leaf: the segment path (ip_vs_l7_client.c), the splice and the
 * director's replies all keep this state, and nothing here calls back
 * into them.
 * All under c->lock.
 */

#include <net/tcp.h>

#include "ip_vs_l7.h"

/*
 * The director acknowledges what it took, but never client bytes that
 * went to a server and are not yet acknowledged by it
 * (l7_bl_body_acked()).  Head bytes after such a body are taken all the
 * same, and acknowledged once its server has it.
 */
bool l7_may_ack(const struct l7_conn *c)
{
	const struct l7_binding *b;

	list_for_each_entry(b, &c->bindings, node)
		if (!l7_bl_body_acked(l7_seq_fwd(&b->map.req, b->req_guard.nxt),
				      l7_binding_copy_end(b), b->b_acked))
			return false;
	return true;
}

/* Where @c stands for core/client_seg.c. */
struct l7_cseg_ctx l7_cseg_ctx_of(const struct l7_conn *c)
{
	return (struct l7_cseg_ctx){
		.state = c->state,
		.rcv_nxt = c->c_rcv_nxt,
		.acked = c->c_acked,
		.fin = c->c_fin,
		/*
		 * Through a tunnel, client bytes are the server's to
		 * acknowledge: the director's own ACKs say only what it did.
		 */
		.may_ack = c->state != L7C_TUNNEL && l7_may_ack(c),
		.idle = !c->cur,
		.sent = c->cur && !c->head_len,
	};
}

/* The client seq every segment of the director's own acknowledges. */
static u32 l7_client_ack_seq(const struct l7_conn *c)
{
	struct l7_cseg_ctx x = l7_cseg_ctx_of(c);

	return l7_cseg_ack(&x);
}

void l7_send_ack(struct l7_conn *c)
{
	lockdep_assert_held(&c->lock);

	l7_send_client(c, 0, c->d_snd_nxt, NULL, 0);
}

/*
 * A request went on to its server whole: the server's ACK, on its
 * response, tells the client as much (l7_cseg_after_take()).  Ours goes
 * only if that has not happened within L7_DELACK.
 */
void l7_ack_later(struct l7_conn *c)
{
	if (!l7_clock_armed(&c->clock, L7_CLK_ACK))
		l7_conn_due_in(c, L7_CLK_ACK, L7_DELACK);
}

/*
 * The client was told it has been acknowledged up to @ack, by a segment
 * of ours or a server's.  Once that is everything the director took, the
 * ACK l7_ack_later() owed is paid: its deadline goes, so that it cannot
 * fall due while a later request - whose response will carry its own -
 * is on its way, as a pure ACK nobody needed (one per ten requests of
 * keep-alive clients, before).
 */
void l7_client_ack_sent(struct l7_conn *c, u32 ack)
{
	lockdep_assert_held(&c->lock);

	if (after(ack, c->c_acked))
		c->c_acked = ack;
	if (c->c_acked == c->c_rcv_nxt)
		l7_clock_stop(&c->clock, L7_CLK_ACK);
}

/*
 * A segment to the client, ours or a server's, acknowledged up to @ack
 * and announced a window field of @win (at our shift): the right edge of
 * what the client may send only moves on (Linux never shrinks it).
 */
void l7_client_announced(struct l7_conn *c, u32 ack, u16 win)
{
	u32 edge = ack + l7_win_bytes(win, c->d_wscale);

	if (after(edge, c->c_rcv_edge))
		c->c_rcv_edge = edge;
}

/* The client's connection, as core/tcp_accept.c reads it. */
struct l7_tcp_endpoint l7_client_endpoint(const struct l7_conn *c)
{
	return (struct l7_tcp_endpoint){
		.rcv_nxt = c->c_rcv_nxt,
		.rcv_wup = c->c_acked,
		.rcv_edge = c->c_rcv_edge,
		.snd_una = c->d_snd_una,
		.snd_nxt = c->d_snd_nxt,
		.snd_isn = c->d_snd_isn,
		.snd_wnd = l7_client_snd_wnd(c),
		.snd_wl1 = c->c_wl1,
		.max_window = c->c_max_win,
		.ts_recent = c->c_tsval,
		.snd_wscale = c->c_wscale,
		.ts = c->c_ts,
		.fin_in = c->c_fin,
	};
}

/* What a client segment may carry for a splice to map (l7_map_c2b()). */
struct l7_seg_bounds l7_client_bounds(const struct l7_conn *c)
{
	struct l7_tcp_endpoint e = l7_client_endpoint(c);

	return l7_tcp_accept_bounds(&e);
}

/* L7_CLK_ACK: the ACK owed, unless a response carried it. */
void l7_ack_due(struct l7_conn *c)
{
	lockdep_assert_held(&c->lock);

	if (after(l7_client_ack_seq(c), c->c_acked))
		l7_send_ack(c);
}

/*
 * c->lock held: @b's server acknowledged more of its request: the
 * client bytes the director took after it may be acknowledged now
 * (core/client_seg.c).
 */
void l7_client_server_acked(struct l7_conn *c, const struct l7_binding *b)
{
	struct l7_cseg_ctx x;

	lockdep_assert_held(&c->lock);

	if (!b->req_done)
		return;	/* most server ACKs: nothing to look at */
	x = l7_cseg_ctx_of(c);
	if (l7_cseg_server_acked(&x, b->req_done, b->map.req_range.end))
		l7_send_ack(c);
}

/*
 * RFC 5961 challenge ACK, at most one per L7_CHALLENGE_GAP: our snd_nxt,
 * and the client seq the director may acknowledge (l7_send_ack()).
 */
void l7_challenge_ack(struct l7_conn *c)
{
	if (l7_tcp_ratelimit_allow(&c->challenge, (u32)jiffies,
				   L7_CHALLENGE_GAP))
		l7_send_ack(c);
}

/* Our receive window as the client reads it: 64 KB at its scale. */
static u16 l7_client_win(const struct l7_conn *c)
{
	return c->d_wscale > 0 ? 65535 >> c->d_wscale : 65535;
}

/* A segment to the client from VIP:port: flags, @len bytes of @data. */
static void l7_client_xmit(struct l7_conn *c, u8 flags, u32 seq, u32 ack,
			   const void *data, u32 len)
{
	struct l7_tcp_opts want = { 0 };
	u8 opt[MAX_TCP_OPTION_SPACE];
	struct l7_seg s = {
		.af = c->af,
		.saddr = c->vaddr,
		.daddr = c->caddr,
		.sport = c->vport,
		.dport = c->cport,
		.seq = seq,
		.ack = ack,
		.flags = flags | TCPHDR_ACK,
		.win = l7_client_win(c),
		.opt = opt,
		.data = data,
		.len = len,
		.dst = &c->dst,
	};

	if (c->c_ts) {
		u32 now = l7_conn_ts_now(c);

		/* never behind what the client saw, for its PAWS check */
		if (before(now, c->d_ts_last))
			now = c->d_ts_last;
		c->d_ts_last = now;
		want.present = L7_TCPO_TS;
		want.tsval = now;
		want.tsecr = c->c_tsval;
	}
	s.optlen = l7_tcp_opts_build(opt, sizeof(opt), &want);
	l7_client_ack_sent(c, s.ack);
	l7_client_announced(c, s.ack, s.win);
	l7_xmit(c->net, &s);
}

/*
 * ... acknowledging everything taken so far, short of client bytes a
 * server may still lack (l7_client_ack_seq())
 */
void l7_send_client(struct l7_conn *c, u8 flags, u32 seq, const void *data,
		    u32 len)
{
	l7_client_xmit(c, flags, seq, l7_client_ack_seq(c), data, len);
}

/*
 * A pure ACK of client seq @ack at our snd_nxt: a challenge ACK, or for a
 * client that resends what the director took long ago (its ACK was lost)
 * while body bytes after it pass through.
 */
void l7_send_client_ack(struct l7_conn *c, u32 ack)
{
	l7_client_xmit(c, 0, c->d_snd_nxt, ack, NULL, 0);
}
