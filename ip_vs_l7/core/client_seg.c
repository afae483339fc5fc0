// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: what the director does with a client's segment (see
 * client_seg.h).
 */

#include "client_seg.h"
#include "tcp_map.h"

struct l7_cseg_plan l7_cseg_plan(const struct l7_cseg_ctx *x,
				 const struct l7_cseg *s)
{
	uint32_t end = s->seq + s->len;
	bool in_order_fin;

	switch (x->state) {
	case L7C_TUNNEL:
		return (struct l7_cseg_plan){ L7_CSEG_TUNNEL };
	case L7C_BODY:
		return (struct l7_cseg_plan){ L7_CSEG_BODY };
	case L7C_CLOSING:
		/* only a FIN is still taken, to be acknowledged */
		in_order_fin = s->fin && !x->fin && end == x->rcv_nxt;
		return (struct l7_cseg_plan){
			.act = L7_CSEG_PASS,
			.pure = !s->len && !s->fin,
			.ack = in_order_fin && x->may_ack,
			.take_fin = in_order_fin,
		};
	default:
		break;
	}
	if (!s->len && !s->fin)
		return (struct l7_cseg_plan){ L7_CSEG_PASS, .pure = true };
	/*
	 * A resend, or one reaching past body bytes a server may still
	 * lack: its old part may have to go through again.
	 */
	if (s->len && l7_seq_before(s->seq, x->rcv_nxt) &&
	    (!l7_seq_after(end, x->rcv_nxt) || !x->may_ack))
		return (struct l7_cseg_plan){ L7_CSEG_OLD };
	/* out of order, or after the FIN: say where the director stands */
	if (l7_seq_after(s->seq, x->rcv_nxt) || x->fin)
		return (struct l7_cseg_plan){ L7_CSEG_PASS, .ack = x->may_ack };
	/*
	 * In order (a resend may overlap what the director has); taken
	 * even while a body before it is on its way, acknowledged after.
	 */
	return (struct l7_cseg_plan){ L7_CSEG_TAKE,
				      .skip = x->rcv_nxt - s->seq };
}

struct l7_cseg_plan l7_cseg_after_take(const struct l7_cseg_ctx *x,
				       const struct l7_cseg *s)
{
	uint32_t end = s->seq + s->len;
	struct l7_cseg_plan p = { L7_CSEG_PASS };

	/* a body larger than the head buffer: the rest goes through */
	if (x->state == L7C_BODY && l7_seq_after(end, x->rcv_nxt)) {
		p = (struct l7_cseg_plan){ L7_CSEG_BODY, .ack = x->may_ack };
		goto later;
	}
	if (s->fin && end == x->rcv_nxt) {
		p.take_fin = true;
		p.ack = x->may_ack;
		/* nothing under way: close too; else after the response */
		p.close = x->state == L7C_HEAD && x->idle;
	} else {
		p.ack = s->len && x->may_ack;
	}
	/*
	 * Queued, there is no backend to tell; closing (a refused head, or
	 * the FIN just now), none that needs it.
	 */
	if (p.close || x->state == L7C_QUEUED || x->state == L7C_CLOSING)
		p.act = L7_CSEG_DROP;
later:
	/* a FIN is acknowledged now: the server never sees it */
	if (p.ack && !p.take_fin && x->sent &&
	    (x->state == L7C_HEAD || x->state == L7C_BODY)) {
		p.ack = false;
		p.ack_later = true;
	}
	return p;
}

struct l7_cseg_plan l7_cseg_after_body(const struct l7_cseg_ctx *x,
				       const struct l7_cseg *s)
{
	uint32_t end = s->seq + s->len;

	/*
	 * Not a resend: the part before ->rcv_nxt is the body's end, on its
	 * way to the server now.  What follows would otherwise be cut off
	 * and come again only after the client's retransmission timeout.
	 */
	if (x->fin || (!l7_seq_after(end, x->rcv_nxt) && !s->fin))
		return (struct l7_cseg_plan){ L7_CSEG_PASS };
	return (struct l7_cseg_plan){ L7_CSEG_TAKE,
				      .skip = x->rcv_nxt - s->seq };
}

struct l7_tunnel_seg l7_tunnel_seg(uint32_t rcv_nxt, const struct l7_cseg *s)
{
	uint32_t end = s->seq + s->len + s->fin;
	struct l7_tunnel_seg t = { .rcv_nxt = rcv_nxt };

	/* a gap before it, or it ends before where the stream stands */
	if (l7_seq_after(s->seq, rcv_nxt) || l7_seq_before(end, rcv_nxt))
		return t;
	if (l7_seq_after(end, rcv_nxt)) {
		t.rcv_nxt = end;
		t.progress = true;
		t.fin = s->fin;	/* not its resend: that counted already */
	}
	return t;
}

uint32_t l7_cseg_ack(const struct l7_cseg_ctx *x)
{
	/* what it acknowledged before is still true */
	return x->may_ack ? x->rcv_nxt : x->acked;
}

bool l7_cseg_server_acked(const struct l7_cseg_ctx *x, bool req_done,
			  uint32_t req_end)
{
	return x->state != L7C_BODY && x->state != L7C_TUNNEL && req_done &&
	       l7_seq_after(x->rcv_nxt, req_end) &&
	       l7_seq_after(x->rcv_nxt, x->acked) && x->may_ack;
}

bool l7_cseg_carries_copy(const struct l7_cseg *s,
			  const struct l7_copy_carrier *k)
{
	return k->same && !k->skip && !s->fin && !k->buffered && s->len &&
	       s->len == k->client_len && k->bindings == 1 &&
	       k->after == L7_CSEG_PASS && (s->ts || !k->ts_wanted);
}
