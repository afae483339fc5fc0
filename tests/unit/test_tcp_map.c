// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/tcp_map.c: sequence, ACK, timestamp, window
 * and SACK translation across a splice.
 *
 * Expected values are computed by hand (the comments show the sums) or
 * checked as properties (round trips, monotonic clocks, the definition of
 * a rounded-down window), never by re-running the implementation's
 * formula.
 */
#include <stdint.h>
#include <string.h>

#include "tcp_map.h"
#include "l7_test.h"

/* bounds that vouch for every value: the binding alone decides */
static const struct l7_seg_bounds any = {
	.ack = { 0, 0xffffffff },
	.seq = { 0, 0xffffffff },
};

static uint32_t rnd32(void)
{
	return (uint32_t)(l7_rand() >> 32);
}

static void test_seq_compare(void)
{
	CHECK(l7_seq_before(1, 2) && !l7_seq_before(2, 1) &&
	      !l7_seq_before(7, 7), "small");
	CHECK(l7_seq_before(0xffffffff, 0) && l7_seq_after(0, 0xffffffff),
	      "across the wrap");
	CHECK(l7_seq_before(0xfffffff0, 0x10) && l7_seq_after(0x10, 0xfffffff0),
	      "across the wrap, 32 apart");
	CHECK(l7_seq_before(0, 0x7fffffff) && l7_seq_after(0x7fffffff, 0),
	      "2^31 - 1 ahead");
	CHECK(!l7_seq_after(5, 5) && !l7_seq_before(5, 5), "equal");
	CHECK(l7_seq_between(5, 3, 7) && l7_seq_between(3, 3, 7) &&
	      l7_seq_between(7, 3, 7) && !l7_seq_between(8, 3, 7) &&
	      !l7_seq_between(2, 3, 7), "between");
	CHECK(l7_seq_between(0, 0xfffffff0, 0x10) &&
	      l7_seq_between(0xffffffff, 0xfffffff0, 0x10) &&
	      !l7_seq_between(0x11, 0xfffffff0, 0x10) &&
	      !l7_seq_between(0xffffffef, 0xfffffff0, 0x10),
	      "between across the wrap");
}

static void test_xlate_wrap(void)
{
	struct l7_seq_xlate x = l7_seq_xlate_make(0xfffffff0, 0x10);
	struct l7_seq_xlate y = l7_seq_xlate_make(0x10, 0xfffffff0);

	/* to + (v - from): the anchor, then one byte before and after 0 */
	CHECK(l7_seq_fwd(&x, 0xfffffff0) == 0x10, "anchor");
	CHECK(l7_seq_fwd(&x, 0xffffffff) == 0x1f, "15 bytes on");
	CHECK(l7_seq_fwd(&x, 0) == 0x20, "16 bytes on, across 0");
	CHECK(l7_seq_fwd(&x, 0x100) == 0x120, "0x110 bytes on");
	CHECK(l7_seq_fwd(&x, 0xffffffe0) == 0, "16 bytes before");
	CHECK(l7_seq_inv(&x, 0x20) == 0 && l7_seq_inv(&x, 0) == 0xffffffe0,
	      "inverse");
	CHECK(l7_seq_fwd(&y, 0x20) == 0 && l7_seq_fwd(&y, 0x1f) == 0xffffffff,
	      "target crosses 0");
}

static void test_xlate_roundtrip_property(void)
{
	struct l7_seq_xlate x;
	uint32_t v, d;
	int i;

	for (i = 0; i < 100000; i++) {
		x = l7_seq_xlate_make(rnd32(), rnd32());
		v = rnd32();
		d = rnd32() & 0xffff;
		CHECK(l7_seq_inv(&x, l7_seq_fwd(&x, v)) == v, "inv(fwd) %u", v);
		CHECK(l7_seq_fwd(&x, l7_seq_inv(&x, v)) == v, "fwd(inv) %u", v);
		/* a translation moves every byte by the same distance */
		CHECK(l7_seq_fwd(&x, v + d) - l7_seq_fwd(&x, v) == d,
		      "distance %u", d);
		CHECK(l7_seq_before(v, v + d + 1) ==
		      l7_seq_before(l7_seq_fwd(&x, v),
				    l7_seq_fwd(&x, v + d + 1)), "order kept");
	}
	/* anchors at the edges */
	x = l7_seq_xlate_make(0xffffffff, 0);
	for (v = 0xffffff00; v != 0x100; v++)
		CHECK(l7_seq_inv(&x, l7_seq_fwd(&x, v)) == v &&
		      l7_seq_fwd(&x, v) == v + 1, "edge %#x", v);
}

static void test_range(void)
{
	struct l7_seq_range r = { .start = 0xffffff00 };
	uint32_t s, e;

	CHECK(l7_range_where(&r, 0xfffffeff) == L7_EARLIER, "before");
	CHECK(l7_range_where(&r, 0xffffff00) == L7_HERE, "start");
	CHECK(l7_range_where(&r, 0x7ffffe00) == L7_HERE, "open: far ahead");
	l7_range_close(&r, 0x100);
	CHECK(l7_range_where(&r, 0x100) == L7_HERE &&
	      l7_range_where(&r, 0x101) == L7_LATER &&
	      l7_range_where(&r, 0) == L7_HERE, "closed across 0");

	s = 0xfffffe00;
	e = 0x10;
	CHECK(l7_range_clip(&r, &s, &e) && s == 0xffffff00 && e == 0x10,
	      "clip start");
	s = 0x80;
	e = 0x180;
	CHECK(l7_range_clip(&r, &s, &e) && s == 0x80 && e == 0x100,
	      "clip end");
	s = 0x100;
	e = 0x180;
	CHECK(!l7_range_clip(&r, &s, &e), "after");
	s = 0xfffffe00;
	e = 0xffffff00;
	CHECK(!l7_range_clip(&r, &s, &e), "touching start");
	s = 0x20;
	e = 0x20;
	CHECK(!l7_range_clip(&r, &s, &e), "empty");
	s = 0x30;
	e = 0x20;
	CHECK(!l7_range_clip(&r, &s, &e), "inverted");
}

/* A binding whose four anchors all sit near the wrap or the middle. */
static void wrap_params(struct l7_binding_params *p)
{
	*p = (struct l7_binding_params){
		.c_seq = 0xfffffff0, .b_seq = 0x1000,
		.b_rcv = 0xfffffffe, .c_snd = 0x7ffffff0,
		.c_tsval = 1000, .b_ts_floor = 5001,
		.b_tsval = 0xfffffff0, .c_ts_floor = 0x10,
		.c_wscale = 7, .cd_wscale = 7, .b_wscale = 9, .bd_wscale = 9,
		.c_ts = true, .b_ts = true, .c_sack = true, .b_sack = true,
	};
}

static void test_map_segments_across_wrap(void)
{
	struct l7_binding_params p;
	struct l7_binding_map m;
	struct l7_tcp_seg s;
	unsigned int f;

	wrap_params(&p);
	l7_binding_init(&m, &p, NULL);

	/* client data from 10 bytes in, 100 bytes: crosses 0 */
	s = (struct l7_tcp_seg){ .seq = 0xfffffffa, .ack = 0x80000022,
				 .len = 100, .win = 1000, .ts = true,
				 .tsval = 1003, .tsecr = 0x15 };
	f = l7_map_c2b(&m, &s, &any);
	CHECK(f == 0, "flags %#x", f);
	CHECK(s.seq == 0x100a, "seq %#x: 0x1000 + 10", s.seq);
	/* ack is 0x32 past c_snd: 0xfffffffe + 0x32 wraps to 0x30 */
	CHECK(s.ack == 0x30, "ack %#x", s.ack);
	/* 1000 << 7 = 128000 bytes = 250 units of 512 */
	CHECK(s.win == 250, "win %u", s.win);
	/* client clock 1000 lands on the backend's floor 5001 */
	CHECK(s.tsval == 5004, "tsval %u", s.tsval);
	/* 0x15 echoes a TSval the client got from backend TSval 0xfffffff5 */
	CHECK(s.tsecr == 0xfffffff5, "tsecr %#x", s.tsecr);

	/* backend data 3 bytes in, crossing 0 in backend space */
	s = (struct l7_tcp_seg){ .seq = 0x1, .ack = 0x106e, .len = 1000,
				 .win = 100, .ts = true, .tsval = 0xfffffff8,
				 .tsecr = 5004 };
	f = l7_map_b2c(&m, &s);
	CHECK(f == 0, "flags %#x", f);
	CHECK(s.seq == 0x7ffffff3, "seq %#x", s.seq);
	/* 0x6e request bytes acked: 0xfffffff0 + 0x6e = 0x5e after wrap */
	CHECK(s.ack == 0x5e, "ack %#x", s.ack);
	CHECK(s.win == 400, "win %u: 100 << 9 >> 7", s.win);
	CHECK(s.tsval == 0x18, "tsval %#x: 8 ticks past floor 0x10",
	      s.tsval);
	CHECK(s.tsecr == 1003, "tsecr %u: the client's own clock", s.tsecr);
}

/*
 * A client without timestamps, a backend with: its pure ACKs get one, on
 * the director's stand-in clock through the binding's offset (never
 * behind what the backend saw), echoing the backend's newest TSval, so
 * the server takes RTT samples that reset its RTO backoff.  Not data,
 * not where the option would not fit, never the other way.
 */
static void test_ts_added_for_client_without(void)
{
	struct l7_binding_params p;
	struct l7_binding_map m;
	struct l7_tcp_seg s;
	unsigned int f;

	wrap_params(&p);
	p.c_ts = false;
	p.c_tsval = 70;			/* the stand-in's clock at the bind */
	l7_binding_init(&m, &p, NULL);
	CHECK(m.ts_b2c == 0, "no backend TSvals go to the client");

	s = (struct l7_tcp_seg){ .seq = 0xfffffff0, .ack = 0x80000022,
				 .win = 1000, .ts_room = true,
				 .tsval = 75, .tsecr = 0xfffffff7 };
	f = l7_map_c2b(&m, &s, &any);
	CHECK(f == L7_SEG_ADD_TS, "pure ACK: %#x", f);
	CHECK(s.tsval == 5006, "tsval %u: 5 ticks past floor 5001", s.tsval);
	CHECK(s.tsecr == 0xfffffff7, "tsecr %#x: the backend's, as given",
	      s.tsecr);

	s = (struct l7_tcp_seg){ .seq = 0xfffffff0, .ack = 0x80000022,
				 .len = 10, .ts_room = true, .tsval = 75 };
	CHECK(l7_map_c2b(&m, &s, &any) == 0, "data: none added");
	s = (struct l7_tcp_seg){ .seq = 0xfffffff0, .ack = 0x80000022,
				 .tsval = 75 };
	CHECK(l7_map_c2b(&m, &s, &any) == 0, "no room: none added");

	p.b_ts = false;
	l7_binding_init(&m, &p, NULL);
	s = (struct l7_tcp_seg){ .seq = 0xfffffff0, .ack = 0x80000022,
				 .ts_room = true, .tsval = 75 };
	CHECK(l7_map_c2b(&m, &s, &any) == 0, "backend without: none added");

	p.b_ts = true;
	l7_binding_init(&m, &p, NULL);
	s = (struct l7_tcp_seg){ .seq = 0xfffffffe, .ack = 0x1000, .len = 10,
				 .ts = true, .tsval = 9, .tsecr = 5006 };
	CHECK(l7_map_b2c(&m, &s) == L7_SEG_STRIP_TS,
	      "the backend's to the client: stripped");
}

static void test_map_flags(void)
{
	struct l7_binding_params p;
	struct l7_binding_map m;
	struct l7_tcp_seg s;
	unsigned int f;

	wrap_params(&p);
	p.b_ts = false;
	l7_binding_init(&m, &p, NULL);
	l7_range_close(&m.req_range, 0x100);	/* 0x110 request bytes */

	/* data past the end of the request: another binding's */
	s = (struct l7_tcp_seg){ .seq = 0x100, .ack = 0x7ffffff0, .len = 5 };
	f = l7_map_c2b(&m, &s, &any);
	CHECK(f == L7_SEG_SEQ_OUTSIDE, "after end: %#x", f);
	s = (struct l7_tcp_seg){ .seq = 0xf0, .ack = 0x7ffffff0, .len = 0x20 };
	CHECK(l7_map_c2b(&m, &s, &any) == L7_SEG_SEQ_OUTSIDE, "straddles end");
	s = (struct l7_tcp_seg){ .seq = 0xffffffe0, .ack = 0x7ffffff0,
				 .len = 1 };
	CHECK(l7_map_c2b(&m, &s, &any) == L7_SEG_SEQ_OUTSIDE, "before start");
	s = (struct l7_tcp_seg){ .seq = 0xf0, .ack = 0x7ffffff0, .len = 0x10 };
	CHECK(l7_map_c2b(&m, &s, &any) == 0 && s.seq == 0x1100, "up to the end");

	/* a pure ACK sent after the next request began: seq pinned to end */
	s = (struct l7_tcp_seg){ .seq = 0x300, .ack = 0x7ffffff0 };
	f = l7_map_c2b(&m, &s, &any);
	CHECK(f == 0 && s.seq == 0x1110, "pure ACK seq %#x", s.seq);
	s = (struct l7_tcp_seg){ .seq = 0xffffff00, .ack = 0x7ffffff0 };
	CHECK(l7_map_c2b(&m, &s, &any) == 0 && s.seq == 0x1000, "old pure ACK");

	/* the client has TS, the pooled connection does not */
	s = (struct l7_tcp_seg){ .seq = 0, .ack = 0x7ffffff0, .ts = true,
				 .tsval = 77, .tsecr = 88 };
	f = l7_map_c2b(&m, &s, &any);
	CHECK(f == L7_SEG_STRIP_TS && s.tsval == 77, "strip c2b: %#x", f);
	s = (struct l7_tcp_seg){ .seq = 0xfffffffe, .ack = 0x1000 };
	CHECK(l7_map_b2c(&m, &s) == 0, "no TS, nothing to strip");

	p.b_ts = true;
	p.c_ts = false;
	l7_binding_init(&m, &p, NULL);
	s = (struct l7_tcp_seg){ .seq = 0xfffffffe, .ack = 0x1000, .ts = true };
	CHECK(l7_map_b2c(&m, &s) == L7_SEG_STRIP_TS, "strip b2c");

	/*
	 * The backend ACKs beyond what this request sent it: bytes the
	 * director never sent on the pooled connection.  Once pinned to the
	 * request's end, which turned a forged ACK into a real one; refused.
	 */
	l7_range_close(&m.req_range, 0x100);
	s = (struct l7_tcp_seg){ .seq = 0xfffffffe, .ack = 0x2000 };
	f = l7_map_b2c(&m, &s);
	CHECK(f & L7_SEG_FOREIGN, "ack later %#x", f);
	s = (struct l7_tcp_seg){ .seq = 0xfffffffe, .ack = 0xf00 };
	f = l7_map_b2c(&m, &s);
	CHECK(f == L7_SEG_ACK_EARLIER && s.ack == 0xfffffff0,
	      "ack earlier %#x", s.ack);
}

/*
 * A forged pure ACK on a closed binding, seq half the space past the
 * client's, ACK far past the response: it was pinned to the copy's end
 * and the response's end, and reached the server as an ACK of the whole
 * response.  Outside what the client's connection accepts, it is
 * foreign; inside, it is pinned as before.
 */
static void test_map_foreign(void)
{
	const struct l7_seg_bounds ok = {
		.ack = { 0x7ffffff0, 0x80000100 },	/* sent on C so far */
		.seq = { 0x100, 0x100 + 65535 },	/* window on C */
	};
	struct l7_binding_params p;
	struct l7_binding_map m;
	struct l7_tcp_seg s;
	unsigned int f;

	wrap_params(&p);
	l7_binding_init(&m, &p, NULL);
	l7_range_close(&m.req_range, 0x100);
	l7_range_close(&m.rsp_range, 0x80000080);

	s = (struct l7_tcp_seg){ .seq = 0x100 + 0x90000000,
				 .ack = 0x80000080 };
	CHECK(l7_map_c2b(&m, &s, &ok) & L7_SEG_FOREIGN, "seq far away");
	s = (struct l7_tcp_seg){ .seq = 0x100, .ack = 0x7ffffff0u + 0x70000000u };
	CHECK(l7_map_c2b(&m, &s, &ok) & L7_SEG_FOREIGN, "ack far away");
	s = (struct l7_tcp_seg){ .seq = 0x100, .ack = 0x80000101 };
	CHECK(l7_map_c2b(&m, &s, &ok) & L7_SEG_FOREIGN, "ack of unsent");
	/* the next response's bytes too: the whole of this one, pinned */
	s = (struct l7_tcp_seg){ .seq = 0x180, .ack = 0x80000100 };
	f = l7_map_c2b(&m, &s, &ok);
	CHECK(f == L7_SEG_ACK_LATER && s.seq == 0x1110,
	      "vouched: %#x seq %#x", f, s.seq);

	/* the server's pure ACK: past the response and its FIN, foreign */
	s = (struct l7_tcp_seg){ .seq = 0xfffffffeu + 0x91, .ack = 0x1000 };
	CHECK(l7_map_b2c(&m, &s) == 0 && s.seq == 0x80000080,
	      "after its FIN: seq %#x", s.seq);
	s = (struct l7_tcp_seg){ .seq = 0xfffffffeu + 0x92, .ack = 0x1000 };
	CHECK(l7_map_b2c(&m, &s) & L7_SEG_FOREIGN, "past it");
}

static void test_ts_offset(void)
{
	uint32_t off, prev;

	/* floor above the peer: 1000 + 4001 = 5001 */
	off = l7_ts_offset(1000, 5001, NULL);
	CHECK(off == 4001, "up: %u", off);
	/* floor below the peer: still lands on the floor, 9000 - 3999 */
	off = l7_ts_offset(9000, 5001, NULL);
	CHECK((uint32_t)(9000 + off) == 5001 && off == (uint32_t)-3999,
	      "down: %d", (int)off);
	/* a previous offset still at or past the floor is kept */
	prev = 100;
	CHECK(l7_ts_offset(9000, 5001, &prev) == 100, "keep");
	CHECK(l7_ts_offset(4901, 5001, &prev) == 100, "keep, exactly");
	CHECK(l7_ts_offset(4900, 5001, &prev) == 101, "too low: renew");

	/*
	 * Wrap: an unmodular compare would call 0xfffffff0 "above" 0x10
	 * and keep the identity, sending the clock 2^32 - 32 ticks back.
	 */
	prev = 0;
	off = l7_ts_offset(0xfffffff0, 0x10, &prev);
	CHECK(off == 0x20, "peer below floor across wrap: %#x", off);
	CHECK(l7_ts_offset(0x5, 0xfffffff0, &prev) == 0,
	      "peer above floor across wrap: keep");
	off = l7_ts_offset(0x7ffffff0, 0xfffffff0, NULL);
	CHECK(off == 0x80000000, "half way round: %#x", off);
}

static void test_ts_note(void)
{
	uint32_t last = 0xfffffff0;

	l7_ts_note(&last, 0xffffffe0);
	CHECK(last == 0xfffffff0, "older ignored");
	l7_ts_note(&last, 0x5);
	CHECK(last == 0x5, "newer across wrap");
	l7_ts_note(&last, 0xfffffff8);
	CHECK(last == 0x5, "older across wrap ignored");
}

/*
 * Many clients in turn on one pooled connection, each with its own
 * random clock and rate, clocks and floor straddling the wrap: every
 * TSval the backend receives must be at or after the last one it saw
 * (PAWS), and no binding may jump the clock further than the time it
 * lasted.
 */
static void test_ts_pooled_connection_monotonic(void)
{
	struct l7_binding_params p = { .c_ts = true, .b_ts = true };
	struct l7_binding_map m, prev;
	struct l7_tcp_seg s;
	uint32_t seen = 0xffffff00, clk[4], rate[4];
	int b, k, who, last_who = -1, wrapped = 0;

	for (k = 0; k < 4; k++) {
		clk[k] = k == 0 ? 0xfffffff0 : rnd32();
		rate[k] = 1 + rnd32() % 10;
	}
	for (b = 0; b < 400; b++) {
		who = (int)(rnd32() % 4);
		p.c_tsval = clk[who];
		p.b_ts_floor = seen + 1;
		l7_binding_init(&m, &p, who == last_who ? &prev : NULL);
		for (k = 0; k < 6; k++) {
			uint32_t before = seen;

			clk[who] += rate[who];
			s = (struct l7_tcp_seg){ .ts = true };
			s.tsval = clk[who];
			l7_map_c2b(&m, &s, &any);
			CHECK(!l7_seq_before(s.tsval, seen),
			      "binding %d seg %d: %#x after %#x", b, k,
			      s.tsval, seen);
			CHECK(s.tsval - before <= 7 * 10, "jump %#x -> %#x",
			      before, s.tsval);
			wrapped |= s.tsval < before;
			l7_ts_note(&seen, s.tsval);
		}
		prev = m;
		last_who = who;
		for (k = 0; k < 4; k++)	/* time passes for everyone */
			clk[k] += rate[k];
	}
	CHECK(wrapped, "the backend's clock wrapped during the test");
}

/* One client rebound over three backends: its view stays monotonic. */
static void test_ts_client_monotonic_across_rebinds(void)
{
	struct l7_binding_params p = { .c_ts = true, .b_ts = true };
	struct l7_binding_map m;
	struct l7_tcp_seg s;
	uint32_t sent = 0x7ffffffd, bclk[3] = { 0x7fffffff, 3, 0x80000100 };
	int b, k, i;

	for (b = 0; b < 30; b++) {
		i = b % 3;
		p.b_tsval = bclk[i];
		p.c_ts_floor = sent + 1;
		l7_binding_init(&m, &p, NULL);
		for (k = 0; k < 5; k++) {
			bclk[i] += 3;
			s = (struct l7_tcp_seg){ .ts = true, .tsval = bclk[i] };
			l7_map_b2c(&m, &s);
			CHECK(l7_seq_after(s.tsval, sent) &&
			      s.tsval - sent <= 4, "binding %d: %#x after %#x",
			      b, s.tsval, sent);
			sent = s.tsval;
		}
	}
}

/* The definition of a rounded-down, clamped, never-zeroed window. */
static void check_rescale(uint16_t win, int from, int to)
{
	uint16_t r = l7_win_rescale(win, from, to);
	uint64_t bytes = (uint64_t)win * (1ull << from);
	uint64_t unit = 1ull << to;

	if (win == 0) {
		CHECK(r == 0, "0 %d->%d: %u", from, to, r);
		return;
	}
	CHECK(r >= 1, "%u %d->%d became 0", win, from, to);
	if (r == 0xffff) {
		CHECK(bytes >= 0xffff * unit, "%u %d->%d clamped early", win,
		      from, to);
	} else if (bytes < unit) {
		CHECK(r == 1, "%u %d->%d: small, %u", win, from, to, r);
	} else {
		CHECK(r * unit <= bytes && bytes < (r + 1) * unit,
		      "%u %d->%d: %u", win, from, to, r);
	}
}

static void test_win_rescale_all_pairs(void)
{
	static const uint16_t wins[] = {
		0, 1, 2, 3, 127, 128, 129, 511, 512, 1000, 16383, 16384,
		29200, 32767, 32768, 65534, 65535,
	};
#define L7_NWINS (sizeof(wins) / sizeof(wins[0]))
	unsigned int i;
	int from, to;
	uint16_t prev, r;

	for (from = 0; from <= 14; from++)
		for (to = 0; to <= 14; to++) {
			for (i = 0; i < L7_NWINS; i++)
				check_rescale(wins[i], from, to);
			for (i = 0; i < 200; i++)
				check_rescale((uint16_t)rnd32(), from, to);
			prev = 0;
			for (i = 0; i <= 0xffff; i += 97) {
				r = l7_win_rescale((uint16_t)i, from, to);
				CHECK(r >= prev, "monotonic %d->%d at %u",
				      from, to, i);
				prev = r;
			}
		}
}

static void test_win_rescale_values(void)
{
	CHECK(l7_win_rescale(100, 7, 2) == 3200, "12800 bytes / 4");
	CHECK(l7_win_rescale(512, 2, 7) == 16, "2048 bytes / 128");
	CHECK(l7_win_rescale(3, 0, 2) == 1, "3 bytes: 0 units, sent as 1");
	CHECK(l7_win_rescale(1, 0, 14) == 1, "1 byte at scale 14");
	CHECK(l7_win_rescale(0, 14, 0) == 0, "zero stays zero");
	CHECK(l7_win_rescale(0xffff, 14, 0) == 0xffff, "1 GB clamped");
	CHECK(l7_win_rescale(0x8000, 2, 0) == 0xffff, "128 KB clamped");
	CHECK(l7_win_rescale(29200, 0, 7) == 228, "29200 / 128");
	CHECK(l7_win_rescale(1000, L7_WS_NONE, 0) == 1000, "none as 0");
	CHECK(l7_win_rescale(0x1000, 7, L7_WS_NONE) == 0xffff,
	      "512 KB to an unscaled field");
	CHECK(l7_win_rescale(229, 7, L7_WS_NONE) == 29312, "229 * 128");
	CHECK(l7_win_rescale(1, 15, 0) == 16384 &&
	      l7_win_rescale(1, 15, 2) == 4096, "15 is used as 14");
	CHECK(l7_win_rescale(16384, 0, 15) == 1, "15 is used as 14, down");
}

/* Response range [0xfffffff0, 0x100) in client space, backend at 2^30. */
static void sack_binding(struct l7_binding_map *m)
{
	struct l7_binding_params p;

	wrap_params(&p);
	p.c_snd = 0xfffffff0;
	p.b_rcv = 0x40000000;
	p.c_seq = 0x500;
	p.b_seq = 0xfffffe00;
	l7_binding_init(m, &p, NULL);
	l7_range_close(&m->rsp_range, 0x100);
	l7_range_close(&m->req_range, 0x700);
}

static void test_sack_c2b(void)
{
	struct l7_binding_map m;
	struct l7_tcp_sack_block b[4] = {
		{ 0xffffff00, 0xffffff80 },	/* earlier binding: dropped */
		{ 0xfffffff8, 0x10 },		/* inside, across 0 */
		{ 0xffffffe0, 0x0 },		/* straddles the start */
		{ 0xf0, 0x200 },		/* straddles the end */
	};
	unsigned int n;

	sack_binding(&m);
	n = l7_sack_c2b(&m, b, 4);
	CHECK(n == 3, "kept %u", n);
	/* backend = 0x40000000 + (x - 0xfffffff0) */
	CHECK(b[0].start == 0x40000008 && b[0].end == 0x40000020,
	      "inside: %#x-%#x", b[0].start, b[0].end);
	CHECK(b[1].start == 0x40000000 && b[1].end == 0x40000010,
	      "clipped start: %#x-%#x", b[1].start, b[1].end);
	CHECK(b[2].start == 0x40000100 && b[2].end == 0x40000110,
	      "clipped end: %#x-%#x", b[2].start, b[2].end);

	b[0] = (struct l7_tcp_sack_block){ 0x200, 0x300 };  /* later */
	b[1] = (struct l7_tcp_sack_block){ 0x20, 0x10 };    /* inverted */
	b[2] = (struct l7_tcp_sack_block){ 0x100, 0x100 };  /* empty */
	CHECK(l7_sack_c2b(&m, b, 3) == 0, "nothing left: strip");

	b[0] = (struct l7_tcp_sack_block){ 0, 8 };
	m.b_sack = false;
	CHECK(l7_sack_c2b(&m, b, 1) == 0, "backend without SACK");
}

static void test_sack_b2c(void)
{
	struct l7_binding_map m;
	struct l7_tcp_sack_block b[3] = {
		{ 0xfffffd00, 0xfffffe00 },	/* earlier request on B */
		{ 0xffffff00, 0xffffff80 },	/* request bytes */
		{ 0xffffffc0, 0x400 },		/* runs past the request */
	};
	unsigned int n;

	sack_binding(&m);
	n = l7_sack_b2c(&m, b, 3);
	CHECK(n == 2, "kept %u", n);
	/* client = 0x500 + (x - 0xfffffe00) */
	CHECK(b[0].start == 0x600 && b[0].end == 0x680, "inside: %#x-%#x",
	      b[0].start, b[0].end);
	CHECK(b[1].start == 0x6c0 && b[1].end == 0x700, "clipped: %#x-%#x",
	      b[1].start, b[1].end);
}

/* RFC 2883's two ways of reporting a duplicate, as Linux reads them. */
static void test_sack_dup(void)
{
	struct l7_tcp_sack_block d = { 1, 1 };
	struct l7_tcp_sack_block below[2] = {
		{ 0xfffffff0, 0x10 },		/* a resent tail, across the wrap */
		{ 0x40, 0x80 },
	};
	struct l7_tcp_sack_block inside[2] = {
		{ 0x200, 0x240 },		/* again, within the next block */
		{ 0x180, 0x280 },
	};
	struct l7_tcp_sack_block plain[2] = {
		{ 0x200, 0x240 },		/* a hole before it: no duplicate */
		{ 0x300, 0x340 },
	};
	struct l7_tcp_sack_block empty[1] = { { 0x10, 0x10 } };

	CHECK(l7_sack_dup(below, 2, 0x10, &d) && d.start == 0xfffffff0 &&
	      d.end == 0x10, "below the ACK: %#x-%#x", d.start, d.end);
	CHECK(l7_sack_dup(below, 1, 0x10, &d), "below the ACK, alone");
	CHECK(l7_sack_dup(inside, 2, 0x100, &d) && d.start == 0x200 &&
	      d.end == 0x240, "within the second block");
	d.start = 7;
	CHECK(!l7_sack_dup(plain, 2, 0x100, &d) && d.start == 7,
	      "an ordinary block: none, @dup untouched");
	CHECK(!l7_sack_dup(inside, 1, 0x100, &d), "above the ACK, alone");
	CHECK(!l7_sack_dup(empty, 1, 0x20, &d), "an empty block");
	CHECK(!l7_sack_dup(below, 0, 0x10, &d), "no blocks");
}

/*
 * Two bindings of one client, the first on pooled connection B1, the
 * second on B2, response ranges back to back across the wrap.  An ACK
 * or SACK for the first binding's bytes must be recognised as such.
 */
static void test_earlier_binding_ack(void)
{
	struct l7_binding_params p;
	struct l7_binding_map one, two;
	struct l7_tcp_seg s;
	unsigned int f;

	wrap_params(&p);
	p.c_seq = 0x100;
	p.b_seq = 0x11110000;		/* B1 */
	p.c_snd = 0xffffff00;
	p.b_rcv = 0x22220000;
	l7_binding_init(&one, &p, NULL);
	l7_range_close(&one.req_range, 0x180);
	l7_range_close(&one.rsp_range, 0x100);	/* 0x200 response bytes */

	p.c_seq = 0x180;
	p.b_seq = 0x33330000;		/* B2 */
	p.c_snd = 0x100;
	p.b_rcv = 0x44440000;
	l7_binding_init(&two, &p, NULL);

	/* a client ACK (for the response) against each response's range */
	CHECK(l7_range_where(&two.rsp_range, 0xffffff80) == L7_EARLIER &&
	      l7_range_where(&one.rsp_range, 0xffffff80) == L7_HERE,
	      "mid first response");
	CHECK(l7_range_where(&two.rsp_range, 0x100) == L7_HERE &&
	      l7_range_where(&one.rsp_range, 0x100) == L7_HERE,
	      "boundary: all of one, none of two");
	CHECK(l7_range_where(&two.rsp_range, 0x180) == L7_HERE &&
	      l7_range_where(&one.rsp_range, 0x180) == L7_LATER,
	      "into the second response");

	/*
	 * the backend side, mapped back to client seqs: B1's ACK of the
	 * first request, B2's of the next
	 */
	CHECK(l7_range_where(&one.req_range,
			     l7_seq_inv(&one.req, 0x11110040)) == L7_HERE &&
	      l7_range_where(&one.req_range,
			     l7_seq_inv(&one.req, 0x11110081)) == L7_LATER,
	      "B1 acks");
	CHECK(l7_range_where(&two.req_range,
			     l7_seq_inv(&two.req, 0x33330000 + 0x10)) == L7_HERE,
	      "B2 acks");

	/* routed to B2 anyway, the old ACK acknowledges nothing there */
	s = (struct l7_tcp_seg){ .seq = 0x180, .ack = 0xffffff80 };
	f = l7_map_c2b(&two, &s, &any);
	CHECK(f == L7_SEG_ACK_EARLIER && s.ack == 0x44440000,
	      "old ack on B2: %#x", s.ack);
	/* and through the first binding it reaches B1 correctly */
	s = (struct l7_tcp_seg){ .seq = 0x180, .ack = 0xffffff80 };
	f = l7_map_c2b(&one, &s, &any);
	CHECK(f == 0 && s.ack == 0x22220080 && s.seq == 0x11110080,
	      "old ack on B1: %#x", s.ack);
}

static void test_prev_binding_keeps_offsets(void)
{
	struct l7_binding_params p = { .c_ts = true, .b_ts = true };
	struct l7_binding_map a, b, c;

	p.c_tsval = 100;
	p.b_ts_floor = 1000;
	p.b_tsval = 50;
	p.c_ts_floor = 7000;
	l7_binding_init(&a, &p, NULL);
	CHECK(a.ts_c2b == 900 && a.ts_b2c == 6950, "first: %u %u", a.ts_c2b,
	      a.ts_b2c);

	/* same pair 40 ticks later, floors moved by 20 and 10: keep */
	p.c_tsval = 140;
	p.b_ts_floor = 1020;
	p.b_tsval = 90;
	p.c_ts_floor = 7010;
	l7_binding_init(&b, &p, &a);
	CHECK(b.ts_c2b == 900 && b.ts_b2c == 6950, "kept: %u %u", b.ts_c2b,
	      b.ts_b2c);
	l7_binding_init(&c, &p, NULL);
	CHECK(c.ts_c2b == 880 && c.ts_b2c == 6920, "fresh: %u %u", c.ts_c2b,
	      c.ts_b2c);

	/* no timestamps on one side: no offsets at all */
	p.b_ts = false;
	l7_binding_init(&c, &p, NULL);
	CHECK(c.ts_c2b == 0 && c.ts_b2c == 0, "none");
}

/*
 * The whole option path of one client ACK, with tcp_opt: parse the bytes,
 * map TS and SACK through the binding, rewrite in place, compare bytes.
 */
static void test_client_ack_options_end_to_end(void)
{
	uint8_t a[40] = {
		0x01, 0x01, 0x08, 0x0a, 0x00, 0x00, 0x03, 0xed, /* 1005 */
		0x00, 0x00, 0x00, 0x18,
		0x01, 0x01, 0x05, 0x1a,
		0xff, 0xff, 0xff, 0x00, 0xff, 0xff, 0xff, 0x80, /* old */
		0xff, 0xff, 0xff, 0xf8, 0x00, 0x00, 0x00, 0x10,
		0x00, 0x00, 0x00, 0xf0, 0x00, 0x00, 0x02, 0x00,
	};
	static const uint8_t want[40] = {
		/* 1005 + 4001 = 5006; 0x18 - 0x20 wraps to 0xfffffff8 */
		0x01, 0x01, 0x08, 0x0a, 0x00, 0x00, 0x13, 0x8e,
		0xff, 0xff, 0xff, 0xf8,
		0x01, 0x01, 0x05, 0x12,
		0x40, 0x00, 0x00, 0x08, 0x40, 0x00, 0x00, 0x20,
		0x40, 0x00, 0x01, 0x00, 0x40, 0x00, 0x01, 0x10,
		0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
	};
	struct l7_binding_map m;
	struct l7_tcp_opts o;
	struct l7_tcp_seg s = { .seq = 0x500, .ack = 0x10, .ts = true };
	unsigned int n;

	sack_binding(&m);
	CHECK(l7_tcp_opts_parse(a, 40, &o) == 0 && o.sack_count == 3,
	      "parse");
	s.tsval = o.tsval;
	s.tsecr = o.tsecr;
	CHECK(l7_map_c2b(&m, &s, &any) == 0 && s.ack == 0x40000020, "seg");
	CHECK(l7_tcp_opts_set_ts(a, 40, &o, s.tsval, s.tsecr) == 0, "ts");
	n = l7_sack_c2b(&m, o.sack, o.sack_count);
	CHECK(n == 2, "blocks %u", n);
	CHECK(l7_tcp_opts_set_sack(a, 40, &o, o.sack, n) == 0, "sack");
	CHECK(!memcmp(a, want, 40), "bytes");
	CHECK(l7_tcp_opts_parse(a, 40, &o) == 0 && o.sack_count == 2 &&
	      o.tsval == 5006, "reparse");
}

/* the next response starts past what was sent and past the last range */
static void test_rsp_start(void)
{
	struct l7_seq_range r = { .start = 1000 };

	CHECK(l7_rsp_start(1500, &r) == 1500, "open range: after what went");
	l7_range_close(&r, 1400);
	CHECK(l7_rsp_start(1500, &r) == 1500, "closed below: after what went");
	l7_range_close(&r, 1600);
	CHECK(l7_rsp_start(1500, &r) == 1600,
	      "framed to 1600, sent to 1500: after the range");
	r = (struct l7_seq_range){ .start = 0xfffffff0u };
	l7_range_close(&r, 0x10);
	CHECK(l7_rsp_start(0xfffffff8u, &r) == 0x10, "across the wrap");
}

int main(void)
{
	RUN(test_seq_compare);
	RUN(test_rsp_start);
	RUN(test_xlate_wrap);
	RUN(test_xlate_roundtrip_property);
	RUN(test_range);
	RUN(test_map_segments_across_wrap);
	RUN(test_map_flags);
	RUN(test_ts_added_for_client_without);
	RUN(test_ts_offset);
	RUN(test_ts_note);
	RUN(test_ts_pooled_connection_monotonic);
	RUN(test_ts_client_monotonic_across_rebinds);
	RUN(test_win_rescale_all_pairs);
	RUN(test_win_rescale_values);
	RUN(test_sack_c2b);
	RUN(test_sack_b2c);
	RUN(test_map_foreign);
	RUN(test_sack_dup);
	RUN(test_earlier_binding_ack);
	RUN(test_prev_binding_keeps_offsets);
	RUN(test_client_ack_options_end_to_end);
	return l7_test_summary("tcp_map");
}
