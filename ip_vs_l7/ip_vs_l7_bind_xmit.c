// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the director's own segments to the server of a binding - its
 * copy of the request's first bytes, ACKs, D-SACKs and RSTs - stamped
 * with the binding's numbers: its timestamps, the client's window at the
 * server's scale, what the server was last told.  A leaf: the binding's
 * start and end (ip_vs_l7_bind.c, ip_vs_l7_bind_life.c), the relay and
 * the response copy send through it.  All under the client connection's
 * lock.
 */

#include <net/tcp.h>

#include "ip_vs_l7.h"

/* The client's window field, at @b's server's scale. */
u16 l7_win_to_backend(const struct l7_conn *c, const struct l7_binding *b)
{
	return l7_win_rescale(c->c_win, c->c_wscale, b->pc->tcp.rcv_wscale);
}

/* The TSval the director stamps its own segments to @b's backend with. */
static u32 l7_binding_tsval(const struct l7_conn *c, struct l7_binding *b)
{
	u32 ts = c->c_tsval + b->map.ts_c2b;

	l7_ts_note(&b->ts_sent, ts);
	return b->ts_sent;
}

/*
 * A segment to @b's server, ours or the client's passed on, acknowledged
 * @ack and announced the window field @win: where the server may send
 * from and up to (core/tcp_accept.c), as Linux's rcv_wup and window edge.
 */
void l7_binding_announced(struct l7_binding *b, u32 ack, u16 win)
{
	u32 edge = ack + l7_win_bytes(win, b->pc->tcp.rcv_wscale);

	if (after(ack, b->b_rcv_wup))
		b->b_rcv_wup = ack;
	if (after(edge, b->b_rcv_edge))
		b->b_rcv_edge = edge;
}

/*
 * The numbers every segment the director sends @b's server goes with,
 * beyond @s->seq and @s->ack: the client's window at the server's scale,
 * the binding's timestamps.  What it announces is noted.
 */
static void l7_binding_stamp(struct l7_conn *c, struct l7_binding *b,
			     struct l7_tcp_seg *s)
{
	s->win = l7_win_to_backend(c, b);
	s->ts = l7_binding_ts(c, b);
	s->tsval = s->ts ? l7_binding_tsval(c, b) : 0;
	s->tsecr = b->b_tsval;
	l7_binding_announced(b, s->ack, s->win);
}

static void l7_binding_xmit(struct l7_conn *c, struct l7_binding *b, u8 flags,
			    u32 seq, u32 ack,
			    const struct l7_tcp_sack_block *dup,
			    const void *data, u32 len)
{
	struct l7_tcp_seg s = { .seq = seq, .ack = ack };
	struct l7_tcp_opts o;

	l7_binding_stamp(c, b, &s);
	l7_tcp_opts_own(&o, s.ts, s.tsval, s.tsecr,
			b->pc->tcp.sack ? dup : NULL);
	l7_send_pconn(b->pc, flags, seq, ack, s.win, &o, data, len);
}

/* A segment of the director's own to the backend of @b. */
static void l7_binding_send(struct l7_conn *c, struct l7_binding *b,
			    u8 flags, u32 seq, const void *data, u32 len)
{
	l7_binding_xmit(c, b, flags, seq, b->rsp_guard.fed, NULL, data, len);
}

/* A pure ACK of backend seq @ack to @b's server. */
void l7_binding_send_ack(struct l7_conn *c, struct l7_binding *b, u32 ack)
{
	lockdep_assert_held(&c->lock);

	l7_binding_xmit(c, b, 0, b->b_snd_nxt, ack, NULL, NULL, 0);
}

/*
 * A server resent @dup (its seq), bytes of an earlier binding on @b's
 * connection, which that binding's client acknowledged whole: tell it
 * they had arrived (l7_pconn_send_ack()), at the ACK it has from @b.
 */
void l7_binding_dsack(struct l7_conn *c, struct l7_binding *b,
		      const struct l7_tcp_sack_block *dup)
{
	lockdep_assert_held(&c->lock);

	l7_binding_xmit(c, b, 0, b->b_snd_nxt,
			l7_seq_inv(&b->map.rsp, b->c_ack_passed), dup, NULL, 0);
}

/*
 * The numbers the first segment of the copy goes with, as
 * l7_binding_send() writes them, for the client's own segment that
 * carries it (l7_relay_copy()): at the copy's start, acknowledging what
 * the server was last told.  @s->len stays the segment's.
 */
void l7_binding_copy_numbers(struct l7_conn *c, struct l7_binding *b,
			     struct l7_tcp_seg *s)
{
	s->seq = b->pc->tcp.snd_nxt;
	s->ack = b->rsp_guard.fed;
	l7_binding_stamp(c, b, s);
}

/* (Re)send the director's copy of the request's first bytes. */
void l7_binding_send_copy(struct l7_conn *c, struct l7_binding *b)
{
	u32 mss = b->pc->tcp.mss, off;

	for (off = 0; off < b->copy_len; off += mss) {
		u32 n = min(mss, b->copy_len - off);

		l7_binding_send(c, b, off + n == b->copy_len ? TCPHDR_PSH : 0,
				b->pc->tcp.snd_nxt + off, b->copy + off, n);
	}
}

/*
 * The copy's first sending, by the director (l7_binding_begin() or, for
 * a segment that could not carry it, l7_client_took_head()): its bytes
 * count as the server's.
 */
void l7_binding_send_first(struct l7_conn *c, struct l7_binding *b)
{
	this_cpu_add(b->pc->pool->bytes->to_server, b->copy_len);
	l7_binding_send_copy(c, b);
}

/*
 * Reset @b's server.  Linux takes a RST only at exactly its rcv_nxt
 * (RFC 5961), which is where its last ACK pointed unless bytes are still
 * in flight: then a second one covers that case.
 */
void l7_binding_reset(struct l7_conn *c, struct l7_binding *b)
{
	l7_binding_send(c, b, TCPHDR_RST, b->b_acked, NULL, 0);
	if (b->b_snd_nxt != b->b_acked)
		l7_binding_send(c, b, TCPHDR_RST, b->b_snd_nxt, NULL, 0);
}
