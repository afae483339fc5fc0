// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/tcp_cookie.c: SYN cookies and the SYN options
 * in a cookie TSval.
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

/* A stand-in for the glue's keyed MAC: any function of what it covers. */
static uint32_t mac_of(uint32_t isn, uint32_t period, uint32_t data)
{
	uint32_t h = isn * 2654435761u ^ period * 40503u ^ data * 97u;

	return h ^ h >> 13 ^ 0xa5000000u;
}

/* The MSS a cookie carries, checked at @now with the MAC it claims. */
static uint16_t checked(uint32_t c, uint32_t now)
{
	uint32_t period, data;

	l7_cookie_claims(c, now, &period, &data);
	return l7_cookie_mss(false, c, mac_of(77, period, data));
}

/*
 * What a cookie claims is what it was made with for MAX_AGE periods, and
 * one period early (made by a director whose clock is ahead); older, it
 * claims another period, whose MAC is not its own.
 */
static void test_cookie_periods(void)
{
	static const uint32_t made[] = { 0, 1, 3, 0x1234567, 0xfffffffe,
					 0xffffffff };
	uint32_t m, age, idx, period, got;

	for (m = 0; m < sizeof(made) / sizeof(made[0]); m++) {
		for (idx = 0; idx < L7_COOKIE_MSS_N; idx++) {
			uint32_t data = l7_cookie_data(idx, (int)idx * 3 - 1,
						       idx & 1);
			uint32_t mac = mac_of(77, made[m], data);
			uint32_t c = l7_cookie_make(mac, made[m], data);

			for (age = 0; age <= L7_COOKIE_MAX_AGE; age++) {
				l7_cookie_claims(c, made[m] + age, &period,
						 &got);
				CHECK(period == made[m] && got == data,
				      "made %u, %u periods on", made[m], age);
				CHECK(checked(c, made[m] + age),
				      "made %u: its own MAC %u on", made[m],
				      age);
			}
			CHECK(!checked(c, made[m] + age),
			      "made %u: too old %u periods on", made[m], age);
			CHECK(!checked(c, made[m] + age + 1),
			      "made %u: too old %u periods on", made[m],
			      age + 1);
			l7_cookie_claims(c, made[m] - 1, &period, &got);
			CHECK(period == made[m] && checked(c, made[m] - 1),
			      "made %u: one period ahead of our clock",
			      made[m]);
			CHECK(!checked(c, made[m] - 2),
			      "made %u: two periods ahead", made[m]);
		}
	}
}

/* Any MAC bit the cookie carries that differs fails it; none else is read. */
static void test_cookie_mac(void)
{
	uint32_t data = l7_cookie_data(2, 7, true);
	uint32_t mac = mac_of(9, 5, data), c = l7_cookie_make(mac, 5, data), b;

	CHECK(l7_cookie_mss(false, c, mac) == 1440, "v4 index 2");
	CHECK(l7_cookie_mss(true, c, mac) == 1440, "v6 index 2");
	for (b = 0; b < 24; b++)
		CHECK(!l7_cookie_mss(false, c, mac ^ 1u << b), "MAC bit %u", b);
	for (b = 24; b < 32; b++)
		CHECK(l7_cookie_mss(false, c, mac ^ 1u << b) == 1440,
		      "bit %u is not carried", b);
	CHECK(!l7_cookie_mss(false, c ^ 1, mac), "cookie bit 0");
}

/*
 * The options a cookie carries: SACK as it was, a window-scale shift
 * rounded down to one clients announce (never above the client's: its
 * window would be read larger than it is), none as none; the MSS index
 * and period bits untouched by either.
 */
static void test_cookie_opts(void)
{
	static const int8_t want[15] = { 0, 0, 2, 2, 4, 4, 6, 7, 8, 9,
					 9, 9, 9, 9, 9 };
	uint32_t idx, period, data;
	int ws, got_ws;
	bool sack, got_sack;

	for (idx = 0; idx < L7_COOKIE_MSS_N; idx++) {
		for (ws = -1; ws <= 14; ws++) {
			for (sack = false; ; sack = true) {
				uint32_t c = l7_cookie_make(0xabcdef, 7,
					l7_cookie_data(idx, ws, sack));
				uint32_t plain = l7_cookie_make(0xabcdef, 7,
					l7_cookie_data(idx, -1, false));

				l7_cookie_opts(c, &got_ws, &got_sack);
				CHECK(got_ws == (ws < 0 ? -1 : want[ws]) &&
				      got_sack == sack,
				      "ws %d sack %d -> %d %d", ws, sack,
				      got_ws, got_sack);
				CHECK(got_ws <= ws, "ws %d read as %d", ws,
				      got_ws);
				l7_cookie_claims(c, 7, &period, &data);
				CHECK(period == 7 && data >> 4 == idx,
				      "idx %u ws %d: period %u data %02x",
				      idx, ws, period, data);
				CHECK(l7_cookie_mss(false, c, 0xabcdef) ==
				      l7_cookie_mss(false, plain, 0xabcdef),
				      "idx %u: the options change the MSS",
				      idx);
				if (sack)
					break;
			}
		}
	}
}

/* The MSS carried: the table's largest not above the client's. */
static void test_cookie_mss(void)
{
	static const struct {
		bool v6;
		uint16_t in, out;
		uint32_t idx;
	} cases[] = {
		{ false, 0, 536, 0 },	{ false, 536, 536, 0 },
		{ false, 1299, 536, 0 }, { false, 1300, 1300, 1 },
		{ false, 1460, 1460, 3 }, { false, 65535, 1460, 3 },
		{ false, 1459, 1440, 2 }, { true, 1220, 1220, 0 },
		{ true, 1440, 1440, 2 }, { true, 9000, 8940, 3 },
		{ true, 100, 1220, 0 },
	};
	uint32_t i, idx;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint16_t got = l7_cookie_mss_pick(cases[i].v6, cases[i].in,
						  &idx);

		CHECK(got == cases[i].out && idx == cases[i].idx,
		      "v6 %d mss %u: %u (%u)", cases[i].v6, cases[i].in, got,
		      idx);
		CHECK(l7_cookie_mss(cases[i].v6,
				    l7_cookie_make(7, 0,
						   l7_cookie_data(idx, 7, true)),
				    7) == got, "the cookie carries %u", got);
	}
}

int main(void)
{
	RUN(test_round_trip);
	RUN(test_limits);
	RUN(test_cookie_periods);
	RUN(test_cookie_mac);
	RUN(test_cookie_opts);
	RUN(test_cookie_mss);
	return l7_test_summary("tcp_cookie");
}
