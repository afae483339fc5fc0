// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/splice_plan.c: whether a spliced segment goes,
 * the numbers it carries and what it moves, on one binding whose
 * numbers are small enough to check by hand.
 *
 * The binding: the request starts at client seq 1000, goes to B from
 * director seq 5000; the response starts at backend seq 9000 and goes to
 * the client from director seq 3000.  Timestamps on both sides.
 */
#include <stdint.h>
#include <string.h>

#include "splice_plan.h"
#include "l7_test.h"

static const struct l7_seg_bounds any = {
	.ack = { 0, 0xffffffff },
	.seq = { 0, 0xffffffff },
};

static struct l7_binding_map binding(void)
{
	struct l7_binding_params p = {
		.c_seq = 1000,
		.b_seq = 5000,
		.b_rcv = 9000,
		.c_snd = 3000,
		.c_tsval = 100,
		.b_ts_floor = 101,
		.b_tsval = 700,
		.c_ts_floor = 701,
		.c_wscale = L7_WS_NONE,
		.cd_wscale = L7_WS_NONE,
		.b_wscale = L7_WS_NONE,
		.bd_wscale = L7_WS_NONE,
		.c_ts = true,
		.b_ts = true,
	};
	struct l7_binding_map m;

	l7_binding_init(&m, &p, NULL);
	return m;
}

/* response bytes: mapped onto C, at their offset; what they move */
static void test_b2c_response(void)
{
	struct l7_binding_map m = binding();
	struct l7_c_sent cs = { .acked = 1100, .snd_nxt = 3000,
				.tsval = 700, .ts = true };
	struct l7_tcp_seg s = { .seq = 9100, .ack = 5050, .len = 200,
				.tsval = 750, .ts = true };
	struct l7_b2c_plan p = l7_b2c_plan(&m, &cs, &s, 200, true);

	/* 9100 is 100 into the response: 3000 + 100; ACK 5050 -> 1050 */
	CHECK(p.go && s.seq == 3100, "seq %u", s.seq);
	CHECK(s.ack == 1100, "the director acked 1100 itself: ack %u", s.ack);
	CHECK(!p.ack_news && p.announce, "no news, a window");
	CHECK(p.rsp && !p.rsp_resent && p.snd_moved && p.ts_sent, "moves");
	CHECK(!l7_seq_before(s.tsval, 700), "tsval %u", s.tsval);
}

/* the server's ACK past the director's: news for the client */
static void test_b2c_ack_news(void)
{
	struct l7_binding_map m = binding();
	struct l7_c_sent cs = { .acked = 1010, .snd_nxt = 3300, .ts = false };
	struct l7_tcp_seg s = { .seq = 9000, .ack = 5080, .len = 100 };
	struct l7_b2c_plan p = l7_b2c_plan(&m, &cs, &s, 100, true);

	/* 5080 -> 1080; [3000, 3100) was sent before (snd_nxt 3300) */
	CHECK(p.go && s.ack == 1080 && p.ack_news, "ack %u", s.ack);
	CHECK(p.rsp_resent && !p.snd_moved, "a resend");
	CHECK(!p.ts_sent, "no timestamps on C");
}

/* an earlier binding's bytes, resent: a duplicate to report, not sent */
static void test_b2c_earlier(void)
{
	struct l7_binding_map m = binding();
	struct l7_c_sent cs = { .acked = 1000, .snd_nxt = 3000 };
	struct l7_tcp_seg s = { .seq = 8900, .ack = 5000, .len = 50 };
	struct l7_b2c_plan p = l7_b2c_plan(&m, &cs, &s, 50, true);

	CHECK(!p.go && p.dup_earlier, "go %d dup %d", p.go, p.dup_earlier);
	CHECK(p.dup.start == 8900 && p.dup.end == 8950, "dup [%u, %u)",
	      p.dup.start, p.dup.end);
}

/* past a closed response: not sent, and no duplicate */
static void test_b2c_later(void)
{
	struct l7_binding_map m = binding();
	struct l7_c_sent cs = { .acked = 1000, .snd_nxt = 3100 };
	struct l7_tcp_seg s = { .seq = 9090, .ack = 5000, .len = 20 };
	struct l7_b2c_plan p;

	l7_range_close(&m.rsp_range, 3100);
	p = l7_b2c_plan(&m, &cs, &s, 20, true);
	CHECK(!p.go && !p.dup_earlier, "go %d dup %d", p.go, p.dup_earlier);
}

/* a request segment: mapped onto B; one past the request's end is not */
static void test_c2b(void)
{
	struct l7_binding_map m = binding();
	struct l7_tcp_seg s = { .seq = 1010, .ack = 3000, .len = 90,
				.tsval = 120, .ts = true };
	struct l7_c2b_plan p = l7_c2b_plan(&m, &any, 5000, &s, true);

	CHECK(p.go && s.seq == 5010 && s.ack == 9000, "seq %u ack %u",
	      s.seq, s.ack);
	CHECK(p.announce && p.ts_sent && p.snd_moved, "moves");

	l7_range_close(&m.req_range, 1100);
	s = (struct l7_tcp_seg){ .seq = 1090, .ack = 3000, .len = 20 };
	p = l7_c2b_plan(&m, &any, 5100, &s, true);
	CHECK(!p.go && (p.flags & L7_SEG_SEQ_OUTSIDE),
	      "10 bytes of the next request must not go");
}

/* which client ACKs reach the server */
static void test_ack_pass(void)
{
	/* sent [3000, 3500), client acked 3100 before, 3200 passed on */
	CHECK(!l7_ack_pass(3050, 3100, 3500, 3200, true), "older than its last");
	CHECK(!l7_ack_pass(3600, 3100, 3500, 3200, true), "of unsent bytes");
	CHECK(l7_ack_pass(3200, 3100, 3500, 3200, true), "a pure duplicate");
	CHECK(!l7_ack_pass(3200, 3100, 3500, 3200, false),
	      "payload cut off: would read as a duplicate");
	CHECK(l7_ack_pass(3300, 3100, 3500, 3200, false), "new");
}

int main(void)
{
	RUN(test_b2c_response);
	RUN(test_b2c_ack_news);
	RUN(test_b2c_earlier);
	RUN(test_b2c_later);
	RUN(test_c2b);
	RUN(test_ack_pass);
	return l7_test_summary("splice_plan");
}
