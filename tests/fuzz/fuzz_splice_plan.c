// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for core/splice_plan.c with core/tcp_map.c under it:
 * one binding, set up with any numbers and options, and any sequence of
 * segments either way - in and out of the binding, before, inside and
 * after its ranges as they close, resent, with any ACK and TSval - mixed
 * with the director's own ACKs to the client and a response head it took
 * and sends itself.  A model keeps, apart from the map, where the
 * binding's bytes are in each space and what each side was sent, writes
 * what each plan moved as the glue does (ip_vs_l7_relay.c), and checks:
 *   - no byte of another request or response goes: a segment with
 *     payload goes only inside its range, at the offset its bytes have
 *     in the binding (the model's own anchors, moved by a response copy);
 *   - an ACK to the client is never below the director's own, and one to
 *     the server never names a byte the client did not send it;
 *   - a TSval to the client never goes back; what the client was sent
 *     (snd_nxt, TSval, ACK) never goes back;
 *   - a duplicate reported to a server lies wholly before its response;
 *     "resent" only for bytes the client was sent before;
 *   - an ACK passed on from a client is one of bytes the client was
 *     sent, not older than its last, and new unless it was a pure ACK;
 *   - the next binding's response starts past everything sent and
 *     outside this one's range.
 *
 * Input: 24 bytes of binding parameters, then records of 12 bytes: op
 * and arguments.
 */
#include "splice_plan.h"
#include "fuzz_util.h"

#define HDR_LEN		24
#define REC_LEN		12

struct model {
	struct l7_binding_map m;
	struct l7_seg_bounds ok;	/* what the client's connection takes */
	struct l7_c_sent cs;		/* the client connection, as sent */
	uint32_t b_snd_nxt;		/* director's next seq on B */
	uint32_t c_seq;			/* client seq of the request's start */
	uint32_t b_seq;			/* where it starts on B */
	uint32_t rsp_b;			/* backend seq that maps to rsp_c */
	uint32_t rsp_c;			/* ... client-side seq of it */
	uint32_t snd_una;		/* oldest unacked byte to the client */
	uint32_t passed;		/* newest client ACK passed on */
	uint32_t c_tsval;		/* the client's (or stand-in's) at bind */
	uint32_t b_ts_floor;		/* the backend's floor then */
	bool copied;
};

static uint32_t rd32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t rd16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

/* a shift, or none */
static int8_t wscale(uint8_t v)
{
	return v % 16 == 15 ? L7_WS_NONE : v % 15;
}

static void m_start(struct model *md, const uint8_t *d)
{
	struct l7_binding_params p = {
		.c_seq = rd32(d),
		.b_seq = rd32(d + 4),
		.b_rcv = rd32(d + 8),
		.c_snd = rd32(d + 12),
		.c_tsval = rd32(d + 16),
		.b_tsval = rd32(d + 16) * 2654435761u,
		.b_ts_floor = rd32(d + 16) ^ 0x5a5a5a5a,
		.c_ts_floor = rd32(d + 16) + 77777,
		.c_wscale = wscale(d[20]),
		.cd_wscale = wscale(d[20] >> 4),
		.b_wscale = wscale(d[21]),
		.bd_wscale = wscale(d[21] >> 4),
		.c_ts = d[22] & 1,
		.b_ts = d[22] & 2,
		.c_sack = d[22] & 4,
		.b_sack = d[22] & 8,
	};

	memset(md, 0, sizeof(*md));
	l7_binding_init(&md->m, &p, NULL);
	md->c_seq = p.c_seq;
	md->c_tsval = p.c_tsval;
	md->b_ts_floor = p.b_ts_floor;
	md->b_seq = p.b_seq;
	md->b_snd_nxt = p.b_seq;
	md->rsp_b = p.b_rcv;
	md->rsp_c = p.c_snd;
	md->snd_una = p.c_snd - d[23];
	md->cs = (struct l7_c_sent){
		.acked = p.c_seq - (d[23] & 0x0f),
		.snd_nxt = p.c_snd,
		.tsval = p.c_ts_floor - 1,
		.ts = p.c_ts,
	};
	md->passed = md->snd_una;
	/* the client's connection vouches for a window around the binding */
	md->ok.ack = (struct l7_seq_span){ md->snd_una, p.c_snd + 65536 };
	md->ok.seq = (struct l7_seq_span){ p.c_seq - 65536, p.c_seq + 262144 };
}

/* a payload segment that goes lies in @r, wholly */
static void check_inside(const struct l7_seq_range *r, uint32_t seq,
			 uint32_t len)
{
	FUZZ_ASSERT(l7_range_where(r, seq) == L7_HERE);
	FUZZ_ASSERT(!r->closed || !l7_seq_after(seq + len, r->end));
}

/*
 * A segment from @a: its seq near @seq_at, its ACK near @ack_at, up to
 * 4 KB of payload, a FIN, the ACK flag (*@has_ack), a TSval or not.
 */
static struct l7_tcp_seg seg_of(const uint8_t *a, uint32_t seq_at,
				uint32_t ack_at, uint32_t *payload,
				bool *has_ack)
{
	*payload = a[2] * 16 + (a[3] & 15);
	*has_ack = a[3] & 0x20;
	return (struct l7_tcp_seg){
		.seq = seq_at + (int16_t)rd16(a) * 8,
		.ack = ack_at + (int16_t)rd16(a + 4) * 4,
		.len = *payload + !!(a[3] & 0x10),
		.tsval = rd32(a + 6),
		.tsecr = rd32(a + 6) >> 3,
		.win = rd16(a + 8),
		.ts = a[3] & 0x40,
		.ts_room = a[3] & 0x80,
	};
}

static void op_b2c(struct model *md, const uint8_t *a)
{
	uint32_t payload;
	bool has_ack;
	struct l7_tcp_seg s = seg_of(a, md->rsp_b, md->b_seq, &payload,
				     &has_ack);
	uint32_t seq0 = s.seq;
	struct l7_c_sent before = md->cs;
	struct l7_b2c_plan p = l7_b2c_plan(&md->m, &md->cs, &s, payload,
					   has_ack);

	if (!p.go) {
		FUZZ_ASSERT(p.flags & (L7_SEG_SEQ_OUTSIDE | L7_SEG_FOREIGN));
		if (p.dup_earlier) {
			uint32_t c0 = md->rsp_c + (p.dup.start - md->rsp_b);

			FUZZ_ASSERT(p.dup.start == seq0 &&
				    p.dup.end - p.dup.start == payload);
			FUZZ_ASSERT(l7_seq_before(c0, md->m.rsp_range.start));
		}
		return;
	}
	FUZZ_ASSERT(!(p.flags & (L7_SEG_SEQ_OUTSIDE | L7_SEG_FOREIGN)));
	if (s.len) {
		FUZZ_ASSERT(s.seq == md->rsp_c + (seq0 - md->rsp_b));
		check_inside(&md->m.rsp_range, s.seq, s.len);
	}
	FUZZ_ASSERT(!l7_seq_before(s.ack, before.acked));
	FUZZ_ASSERT(!p.rsp_resent || l7_seq_before(s.seq, before.snd_nxt));
	FUZZ_ASSERT(p.rsp == !!payload && p.announce == has_ack);
	if (p.ts_sent)
		FUZZ_ASSERT(!l7_seq_before(s.tsval, before.tsval));
	/* as ip_vs_l7_relay.c writes it */
	if (p.ack_news && l7_seq_after(s.ack, md->cs.acked))
		md->cs.acked = s.ack;
	if (p.ts_sent)
		md->cs.tsval = s.tsval;
	if (p.snd_moved)
		md->cs.snd_nxt = s.seq + s.len;
	FUZZ_ASSERT(!l7_seq_before(md->cs.snd_nxt, before.snd_nxt));
	FUZZ_ASSERT(!l7_seq_before(md->cs.tsval, before.tsval) || !md->cs.ts);
	FUZZ_ASSERT(!l7_seq_before(md->cs.acked, before.acked));
}

static void op_c2b(struct model *md, const uint8_t *a)
{
	uint32_t payload;
	bool has_ack;
	struct l7_tcp_seg s = seg_of(a, md->c_seq, md->rsp_c, &payload,
				     &has_ack);
	uint32_t seq0 = s.seq, ack0 = s.ack, snd0 = md->b_snd_nxt;
	struct l7_tcp_seg in = s;
	struct l7_c2b_plan p = l7_c2b_plan(&md->m, &md->ok, md->b_snd_nxt,
					   &s, has_ack);

	if (!p.go) {
		FUZZ_ASSERT(p.flags & (L7_SEG_SEQ_OUTSIDE | L7_SEG_FOREIGN));
		return;
	}
	if (payload) {
		FUZZ_ASSERT(s.seq == md->b_seq + (seq0 - md->c_seq));
		check_inside(&md->m.req_range, seq0, s.len);
	}
	/* an ACK the client's connection did not vouch for never goes */
	FUZZ_ASSERT(l7_seq_between(ack0, md->ok.ack.lo, md->ok.ack.hi));
	FUZZ_ASSERT(p.announce == has_ack);
	/*
	 * A TS added only to a pure ACK of a client without, for a backend
	 * with, where it fits; the stand-in's clock from the bind on lands
	 * at or past what the backend saw.
	 */
	if (p.flags & L7_SEG_ADD_TS) {
		FUZZ_ASSERT(!in.ts && !md->m.c_ts && md->m.b_ts && !in.len &&
			    in.ts_room && p.ts_sent);
		FUZZ_ASSERT(!(p.flags & L7_SEG_STRIP_TS));
		FUZZ_ASSERT(s.tsval == in.tsval + md->m.ts_c2b &&
			    s.tsecr == in.tsecr);
		if (l7_seq_between(in.tsval, md->c_tsval,
				   md->c_tsval + 0x3fffffff))
			FUZZ_ASSERT(!l7_seq_before(s.tsval, md->b_ts_floor));
	} else {
		FUZZ_ASSERT(p.ts_sent == (in.ts && md->m.b_ts));
	}
	if (p.snd_moved)
		md->b_snd_nxt = s.seq + s.len;
	FUZZ_ASSERT(!l7_seq_before(md->b_snd_nxt, snd0));
}

/* the client's ACK of a segment whose payload the director took */
static void op_ack_pass(struct model *md, const uint8_t *a)
{
	uint32_t ack = md->snd_una + (int16_t)rd16(a) * 16;
	bool pure = a[2] & 1;

	if (!l7_ack_pass(ack, md->snd_una, md->cs.snd_nxt, md->passed, pure))
		return;
	FUZZ_ASSERT(l7_seq_between(ack, md->snd_una, md->cs.snd_nxt));
	FUZZ_ASSERT(pure || l7_seq_after(ack, md->passed));
	if (l7_seq_after(ack, md->passed))
		md->passed = ack;
	if (a[2] & 2)
		md->snd_una = ack;	/* the client's ACK was taken */
}

/*
 * The next binding's response starts after all the client was sent and
 * never inside this one's range: their bytes never share a seq.
 */
static void check_next_start(const struct model *md)
{
	const struct l7_seq_range *r = &md->m.rsp_range;
	uint32_t start = l7_rsp_start(md->cs.snd_nxt, r);

	FUZZ_ASSERT(!l7_seq_before(start, md->cs.snd_nxt));
	if (r->closed)
		FUZZ_ASSERT(l7_range_where(r, start) != L7_HERE ||
			    start == r->end);
	else
		FUZZ_ASSERT(start == md->cs.snd_nxt);
}

static void m_step(struct model *md, const uint8_t *r)
{
	const uint8_t *a = r + 1;

	switch (r[0] % 9) {
	case 0:
	case 1:
		op_b2c(md, a);
		break;
	case 2:
	case 3:
		op_c2b(md, a);
		break;
	case 4:
		op_ack_pass(md, a);
		break;
	case 5:		/* a range ends, once */
		if (a[0] & 1 && !md->m.req_range.closed)
			l7_range_close(&md->m.req_range,
				       md->c_seq + rd16(a + 1));
		else if (!(a[0] & 1) && !md->m.rsp_range.closed)
			l7_range_close(&md->m.rsp_range,
				       md->m.rsp_range.start + rd16(a + 1));
		break;
	case 6:		/* the director's own ACK to the client */
		if (l7_seq_after(md->cs.acked + a[0], md->cs.acked))
			md->cs.acked += a[0];
		break;
	case 7:		/* it took the response's head, sends its own */
		if (md->copied || md->m.rsp_range.closed)
			break;
		md->copied = true;
		md->rsp_b += rd16(a);
		md->rsp_c = md->m.rsp_range.start + rd16(a + 2);
		l7_binding_rsp_copy(&md->m, md->rsp_b, rd16(a + 2));
		break;
	case 8:		/* where the next binding's response would start */
		check_next_start(md);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model md;
	size_t off;

	if (size < HDR_LEN)
		return 0;
	m_start(&md, data);
	for (off = HDR_LEN; off + REC_LEN <= size; off += REC_LEN)
		m_step(&md, data + off);
	return 0;
}
