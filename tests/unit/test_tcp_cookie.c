// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/tcp_cookie.c: SYN options in a cookie TSval.
 */
#include "tcp_cookie.h"
#include "l7_test.h"

/* Every option combination survives the round trip at many clock values. */
static void test_round_trip(void)
{
	static const uint32_t clocks[] = {
		0x40, 0x12345678, 0x7fffffc0, 0xffffffff, 0xffffffc0, 1000,
	};
	unsigned int c;
	int ws, got_ws;
	bool sack, got_sack;

	for (c = 0; c < sizeof(clocks) / sizeof(clocks[0]); c++) {
		for (ws = -1; ws <= 14; ws++) {
			for (sack = false; ; sack = true) {
				uint32_t ts = l7_cookie_ts_encode(clocks[c],
								  ws, sack);

				CHECK(l7_cookie_ts_decode(ts, &got_ws,
							  &got_sack),
				      "decode %08x", ts);
				CHECK(got_ws == ws && got_sack == sack,
				      "ws %d sack %d -> %d %d", ws, sack,
				      got_ws, got_sack);
				CHECK(ts <= clocks[c] || clocks[c] < 0x40,
				      "ts %08x ahead of clock %08x", ts,
				      clocks[c]);
				CHECK(clocks[c] - ts < 0x80,
				      "ts %08x too far behind %08x", ts,
				      clocks[c]);
				if (sack)
					break;
			}
		}
	}
}

/* Shifts above RFC 7323's 14 are not negotiated; bad echoes rejected. */
static void test_limits(void)
{
	int ws;
	bool sack;

	CHECK(l7_cookie_ts_decode(l7_cookie_ts_encode(0x1000, 15, false),
				  &ws, &sack) && ws == -1, "shift 15: %d", ws);
	CHECK(!l7_cookie_ts_decode(0x1000 | 0x20, &ws, &sack), "bit 5");
	CHECK(l7_cookie_ts_decode(0x1000 | 0x0e, &ws, &sack) && ws == 14 &&
	      !sack, "shift 14 decodes");
}

int main(void)
{
	RUN(test_round_trip);
	RUN(test_limits);
	return l7_test_summary("tcp_cookie");
}
