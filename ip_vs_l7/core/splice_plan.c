// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: what one spliced segment does (splice_plan.h).
 */
#include "splice_plan.h"

struct l7_c2b_plan l7_c2b_plan(const struct l7_binding_map *m,
			       const struct l7_seg_bounds *ok,
			       uint32_t b_snd_nxt, struct l7_tcp_seg *s,
			       bool has_ack)
{
	struct l7_c2b_plan p = { 0 };

	p.flags = l7_map_c2b(m, s, ok);
	if (p.flags & (L7_SEG_SEQ_OUTSIDE | L7_SEG_FOREIGN))
		return p;	/* never bytes of another request */
	p.go = true;
	p.announce = has_ack;
	p.ts_sent = (s->ts && !(p.flags & L7_SEG_STRIP_TS)) ||
		    (p.flags & L7_SEG_ADD_TS);
	p.snd_moved = l7_seq_after(s->seq + s->len, b_snd_nxt);
	return p;
}

bool l7_ack_pass(uint32_t ack, uint32_t snd_una, uint32_t snd_nxt,
		 uint32_t passed, bool pure)
{
	if (l7_seq_before(ack, snd_una) || l7_seq_after(ack, snd_nxt))
		return false;
	return pure || l7_seq_after(ack, passed);
}

struct l7_b2c_plan l7_b2c_plan(const struct l7_binding_map *m,
			       const struct l7_c_sent *cs,
			       struct l7_tcp_seg *s, uint32_t payload,
			       bool has_ack)
{
	struct l7_b2c_plan p = { 0 };

	p.flags = l7_map_b2c(m, s);
	if (p.flags & L7_SEG_SEQ_OUTSIDE) {
		/* an earlier client's bytes, or beyond */
		p.dup_earlier = payload &&
			l7_range_where(&m->rsp_range, s->seq) == L7_EARLIER;
		p.dup.start = l7_seq_inv(&m->rsp, s->seq);
		p.dup.end = p.dup.start + payload;
		return p;
	}
	if (p.flags & L7_SEG_FOREIGN)
		return p;
	p.go = true;
	p.rsp = payload;
	/* bytes the client was sent before: it reports them */
	p.rsp_resent = payload && l7_seq_before(s->seq, cs->snd_nxt);
	if (l7_seq_before(s->ack, cs->acked))
		s->ack = cs->acked;
	else
		p.ack_news = has_ack;
	p.announce = has_ack;
	p.ts_sent = s->ts && cs->ts;
	if (p.ts_sent && l7_seq_before(s->tsval, cs->tsval))
		s->tsval = cs->tsval;
	p.snd_moved = l7_seq_after(s->seq + s->len, cs->snd_nxt);
	return p;
}
