// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: the numbers of a splice (see tcp_map.h for the picture).
 *
 * All arithmetic is modulo 2^32 and every comparison goes through
 * l7_seq_before()/after(), so anchors and clocks may sit anywhere,
 * including just below the wrap.
 */
#include "tcp_map.h"

#define L7_WIN_MAX	0xffffu

enum l7_where l7_range_where(const struct l7_seq_range *r, uint32_t x)
{
	if (l7_seq_before(x, r->start))
		return L7_EARLIER;
	if (r->closed && l7_seq_after(x, r->end))
		return L7_LATER;
	return L7_HERE;
}

uint32_t l7_rsp_start(uint32_t snd_nxt, const struct l7_seq_range *prev)
{
	if (prev->closed && l7_seq_after(prev->end, snd_nxt))
		return prev->end;
	return snd_nxt;
}

void l7_range_close(struct l7_seq_range *r, uint32_t end)
{
	r->end = end;
	r->closed = true;
}

bool l7_range_clip(const struct l7_seq_range *r, uint32_t *s, uint32_t *e)
{
	if (l7_seq_before(*s, r->start))
		*s = r->start;
	if (r->closed && l7_seq_after(*e, r->end))
		*e = r->end;
	/*
	 * Clipping only moves s up and e down, so a block that was empty or
	 * inverted (which says nothing we could translate) stays so.
	 */
	return l7_seq_after(*e, *s);
}

/*
 * The receiver only checks that TSvals do not go back (PAWS), so any
 * offset that puts the peer's clock at or after the floor would do.  We
 * pick the one that moves the receiver's view least: keeping the previous
 * offset when it is still good (segments of the previous binding still in
 * flight then map the same way), else landing exactly on the floor, so the
 * receiver sees its connection's clock continue where it left off and the
 * director's own segments on it, stamped from the socket's clock, stay
 * acceptable.
 */
uint32_t l7_ts_offset(uint32_t tsval, uint32_t floor, const uint32_t *prev)
{
	if (prev && !l7_seq_before(tsval + *prev, floor))
		return *prev;
	return floor - tsval;
}

void l7_ts_note(uint32_t *last, uint32_t ts)
{
	if (l7_seq_after(ts, *last))
		*last = ts;
}

/* Not negotiated reads as 0; RFC 7323 caps a shift at 14. */
static unsigned int shift_of(int shift)
{
	if (shift < 0)
		return 0;
	if (shift > L7_TCP_WSCALE_MAX)
		return L7_TCP_WSCALE_MAX;
	return (unsigned int)shift;
}

/*
 * Rounding down under-announces by less than one unit, which is safe.
 * Rounding a small window down to 0 is not: the sender would stop and
 * wait for a window update that the real receiver never sends, because
 * from its side the window never closed.  One unit of the target scale
 * is at most 16 KB too many, which the receiver drops and recovers from.
 * Without scaling the field cannot say more than 64 KB, hence the clamp.
 */
uint16_t l7_win_rescale(uint16_t win, int from_shift, int to_shift)
{
	uint32_t bytes = (uint32_t)win << shift_of(from_shift);
	uint32_t field = bytes >> shift_of(to_shift);

	if (field == 0 && win != 0)
		field = 1;
	return field > L7_WIN_MAX ? L7_WIN_MAX : (uint16_t)field;
}

void l7_binding_init(struct l7_binding_map *m,
		     const struct l7_binding_params *p,
		     const struct l7_binding_map *prev)
{
	*m = (struct l7_binding_map){ 0 };
	m->req = l7_seq_xlate_make(p->c_seq, p->b_seq);
	m->rsp = l7_seq_xlate_make(p->b_rcv, p->c_snd);
	m->req_range.start = p->c_seq;
	m->rsp_range.start = p->c_snd;
	m->c_ts = p->c_ts;
	m->b_ts = p->b_ts;
	m->c_sack = p->c_sack;
	m->b_sack = p->b_sack;
	if (p->b_ts)
		m->ts_c2b = l7_ts_offset(p->c_tsval, p->b_ts_floor,
					 prev ? &prev->ts_c2b : NULL);
	if (p->c_ts && p->b_ts)
		m->ts_b2c = l7_ts_offset(p->b_tsval, p->c_ts_floor,
					 prev ? &prev->ts_b2c : NULL);
	m->win_c2b.from = p->c_wscale;
	m->win_c2b.to = p->bd_wscale;
	m->win_b2c.from = p->b_wscale;
	m->win_b2c.to = p->cd_wscale;
}

void l7_binding_rsp_copy(struct l7_binding_map *m, uint32_t b_end,
			 uint32_t copy_len)
{
	m->rsp_range.start += copy_len;
	m->rsp = l7_seq_xlate_make(b_end, m->rsp_range.start);
}

static bool in_span(const struct l7_seq_span *sp, uint32_t x)
{
	return l7_seq_between(x, sp->lo, sp->hi);
}

/*
 * An ACK outside the binding cannot be translated through it: below the
 * start it acknowledges bytes another binding carried, which this
 * backend (or client) never saw, and Linux drops a segment whose ACK is
 * older than its window (a "too old" ACK) or newer than anything it sent
 * ("ACK of unsent data") together with its payload.  When the connection
 * it came in on vouches for it (@ok), pinning it to the nearest end keeps
 * the payload and acknowledges nothing wrong.  Past the end with nobody
 * to vouch, it names bytes never sent: foreign.  A value outside @ok is
 * foreign wherever it lies: never pinned into the range, where it would
 * read as a real acknowledgement.  @x is in client-side space.
 */
static unsigned int clamp_ack(const struct l7_seq_range *r, uint32_t *x,
			      const struct l7_seq_span *ok)
{
	if (ok && !in_span(ok, *x))
		return L7_SEG_FOREIGN;
	switch (l7_range_where(r, *x)) {
	case L7_EARLIER:
		*x = r->start;
		return L7_SEG_ACK_EARLIER;
	case L7_LATER:
		if (!ok)
			return L7_SEG_FOREIGN;
		*x = r->end;
		return L7_SEG_ACK_LATER;
	default:
		return 0;
	}
}

/*
 * Data outside the binding went, or goes, through another binding: the
 * caller has to pick that one.  An empty segment (a pure ACK) carries no
 * data to misdeliver, so its seq is pinned into the range instead, where
 * the receiver expects it - if it is one the sender's connection accepts
 * (@ok), or, with nobody to vouch, no further past the closed end than
 * the one a FIN takes.  Otherwise it is foreign.  @seq is in client-side
 * space.
 */
static unsigned int check_seq(const struct l7_seq_range *r, uint32_t *seq,
			      uint32_t len, const struct l7_seq_span *ok)
{
	enum l7_where w = l7_range_where(r, *seq);

	if (len == 0) {
		if (ok && !in_span(ok, *seq))
			return L7_SEG_FOREIGN;
		if (w == L7_LATER && !ok && *seq != r->end + 1)
			return L7_SEG_FOREIGN;
		if (w == L7_EARLIER)
			*seq = r->start;
		else if (w == L7_LATER)
			*seq = r->end;
		return 0;
	}
	if (w != L7_HERE ||
	    (r->closed && l7_seq_after(*seq + len, r->end)))
		return L7_SEG_SEQ_OUTSIDE;
	return 0;
}

/*
 * TSecr echoes a TSval the sender received, which the director produced
 * by adding the other direction's offset; subtracting it gives back the
 * receiver's own clock, so its RTT samples stay true.
 */
static unsigned int map_ts(struct l7_tcp_seg *s, bool rcv_ts, uint32_t off,
			   uint32_t echo_off)
{
	if (!s->ts)
		return 0;
	if (!rcv_ts)
		return L7_SEG_STRIP_TS;
	s->tsval += off;
	s->tsecr -= echo_off;
	return 0;
}

unsigned int l7_map_c2b(const struct l7_binding_map *m, struct l7_tcp_seg *s,
			const struct l7_seg_bounds *ok)
{
	unsigned int flags;

	flags = check_seq(&m->req_range, &s->seq, s->len, &ok->seq);
	s->seq = l7_seq_fwd(&m->req, s->seq);
	flags |= clamp_ack(&m->rsp_range, &s->ack, &ok->ack);
	s->ack = l7_seq_inv(&m->rsp, s->ack);
	s->win = l7_win_rescale(s->win, m->win_c2b.from, m->win_c2b.to);
	if (!s->ts && !m->c_ts && m->b_ts && !s->len && s->ts_room) {
		s->tsval += m->ts_c2b;	/* the stand-in's clock */
		return flags | L7_SEG_ADD_TS;
	}
	return flags | map_ts(s, m->b_ts, m->ts_c2b, m->ts_b2c);
}

unsigned int l7_map_b2c(const struct l7_binding_map *m, struct l7_tcp_seg *s)
{
	unsigned int flags;

	s->seq = l7_seq_fwd(&m->rsp, s->seq);
	flags = check_seq(&m->rsp_range, &s->seq, s->len, NULL);
	s->ack = l7_seq_inv(&m->req, s->ack);
	flags |= clamp_ack(&m->req_range, &s->ack, NULL);
	s->win = l7_win_rescale(s->win, m->win_b2c.from, m->win_b2c.to);
	return flags | map_ts(s, m->c_ts, m->ts_b2c, m->ts_c2b);
}

/*
 * Why blocks outside the binding are dropped rather than translated: they
 * name bytes carried by another binding, possibly on another pooled
 * connection.  Put through this binding's offsets they would name bytes
 * of this backend connection that the peer never received (or that
 * belong to another client's exchange on it), and the sender would mark
 * them as delivered and never retransmit them.  A missing block only
 * costs a retransmission.  Partial overlap keeps the part that is ours.
 */
static unsigned int sack_filter(const struct l7_seq_range *r,
				struct l7_tcp_sack_block *blk, unsigned int n)
{
	unsigned int i, kept = 0;
	uint32_t s, e;

	for (i = 0; i < n && i < L7_TCP_SACK_MAX_BLOCKS; i++) {
		s = blk[i].start;
		e = blk[i].end;
		if (!l7_range_clip(r, &s, &e))
			continue;
		blk[kept].start = s;
		blk[kept].end = e;
		kept++;
	}
	return kept;
}

/* Client blocks name response bytes, in the director's seq space on C. */
unsigned int l7_sack_c2b(const struct l7_binding_map *m,
			 struct l7_tcp_sack_block *blk, unsigned int n)
{
	unsigned int i, kept;

	if (!m->b_sack)
		return 0;
	kept = sack_filter(&m->rsp_range, blk, n);
	for (i = 0; i < kept; i++) {
		blk[i].start = l7_seq_inv(&m->rsp, blk[i].start);
		blk[i].end = l7_seq_inv(&m->rsp, blk[i].end);
	}
	return kept;
}

/* Backend blocks name request bytes, in the director's seq space on B. */
unsigned int l7_sack_b2c(const struct l7_binding_map *m,
			 struct l7_tcp_sack_block *blk, unsigned int n)
{
	unsigned int i;

	if (!m->c_sack)
		return 0;
	for (i = 0; i < n && i < L7_TCP_SACK_MAX_BLOCKS; i++) {
		blk[i].start = l7_seq_inv(&m->req, blk[i].start);
		blk[i].end = l7_seq_inv(&m->req, blk[i].end);
	}
	return sack_filter(&m->req_range, blk, n);
}

bool l7_sack_dup(const struct l7_tcp_sack_block *blk, unsigned int n,
		 uint32_t ack, struct l7_tcp_sack_block *dup)
{
	if (!n || !l7_seq_before(blk[0].start, blk[0].end))
		return false;
	if (!l7_seq_before(blk[0].start, ack) &&
	    (n < 2 || l7_seq_before(blk[0].start, blk[1].start) ||
	     l7_seq_after(blk[0].end, blk[1].end)))
		return false;
	*dup = blk[0];
	return true;
}
