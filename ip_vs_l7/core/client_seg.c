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
			.ack = in_order_fin,
			.take_fin = in_order_fin,
		};
	default:
		break;
	}
	if (!s->len && !s->fin)
		return (struct l7_cseg_plan){ L7_CSEG_PASS, .pure = true };
	/*
	 * A resend, or one reaching past a body the server has not
	 * acknowledged yet: its old part may have to go through again.
	 */
	if (s->len && l7_seq_before(s->seq, x->rcv_nxt) &&
	    (!l7_seq_after(end, x->rcv_nxt) || !x->may_take))
		return (struct l7_cseg_plan){ L7_CSEG_OLD };
	/* out of order, after the FIN, or not ours to take yet */
	if (l7_seq_after(s->seq, x->rcv_nxt) || x->fin || !x->may_take)
		return (struct l7_cseg_plan){ L7_CSEG_PASS, .ack = x->may_take };
	/* a resend may overlap what the director has */
	return (struct l7_cseg_plan){ L7_CSEG_TAKE,
				      .skip = x->rcv_nxt - s->seq };
}

struct l7_cseg_plan l7_cseg_after_take(const struct l7_cseg_ctx *x,
				       const struct l7_cseg *s)
{
	uint32_t end = s->seq + s->len;
	struct l7_cseg_plan p = { L7_CSEG_PASS };

	/* a body larger than the head buffer: the rest goes through */
	if (x->state == L7C_BODY && l7_seq_after(end, x->rcv_nxt))
		return (struct l7_cseg_plan){ L7_CSEG_BODY, .ack = true };
	if (s->fin && end == x->rcv_nxt) {
		p.take_fin = true;
		p.ack = true;
		/* nothing under way: close too; else after the response */
		p.close = x->state == L7C_HEAD && x->idle;
	} else {
		p.ack = s->len;
	}
	/*
	 * Queued, there is no backend to tell; closing (a refused head, or
	 * the FIN just now), none that needs it.
	 */
	if (p.close || x->state == L7C_QUEUED || x->state == L7C_CLOSING)
		p.act = L7_CSEG_DROP;
	return p;
}
