// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/tcp_pmtu.c: the floor under an ICMP-lowered
 * segment size.
 */
#include "tcp_pmtu.h"
#include "l7_test.h"

/* Linux's defaults: net.ipv4.route.min_pmtu, net.ipv4.tcp_min_snd_mss */
static const struct l7_pmtu_floor linux_defaults = { 552, 48 };

/* An MTU above the floor lowers the MSS to what fits it. */
static void test_honoured(void)
{
	CHECK(l7_pmtu_mss(false, 1000, &linux_defaults, 1460) == 960,
	      "IPv4 1000");
	CHECK(l7_pmtu_mss(false, 1400, &linux_defaults, 1460) == 1360,
	      "IPv4 1400");
	CHECK(l7_pmtu_mss(true, 1400, &linux_defaults, 1440) == 1340,
	      "IPv6 1400");
	CHECK(l7_pmtu_mss(true, 1280, &linux_defaults, 1440) == 1220,
	      "IPv6 1280");
}

/* Below the floor, the floor: MTU 68 gives 512, not 28. */
static void test_floored(void)
{
	static const uint32_t tiny[] = { 0, 1, 40, 68, 100, 551 };
	unsigned int i;

	for (i = 0; i < sizeof(tiny) / sizeof(tiny[0]); i++) {
		CHECK(l7_pmtu_mss(false, tiny[i], &linux_defaults, 1460) ==
		      512, "IPv4 mtu %u", tiny[i]);
		CHECK(l7_pmtu_mss(true, tiny[i], &linux_defaults, 1440) ==
		      1220, "IPv6 mtu %u", tiny[i]);
	}
	CHECK(l7_pmtu_mss(false, 552, &linux_defaults, 1460) == 512,
	      "IPv4 at the floor");
	CHECK(l7_pmtu_mss(true, 1279, &linux_defaults, 1440) == 1220,
	      "IPv6 below 1280");
}

/* Never raised: an MTU at or above what the side uses changes nothing. */
static void test_never_raised(void)
{
	CHECK(l7_pmtu_mss(false, 1500, &linux_defaults, 1460) == 1460,
	      "IPv4 1500");
	CHECK(l7_pmtu_mss(false, 9000, &linux_defaults, 1460) == 1460,
	      "IPv4 9000");
	CHECK(l7_pmtu_mss(false, 0xffffffff, &linux_defaults, 1460) == 1460,
	      "IPv4 2^32-1");
	CHECK(l7_pmtu_mss(true, 0xffffffff, &linux_defaults, 1440) == 1440,
	      "IPv6 2^32-1");
	/* a side already below the floor (its own SYN said so) stays */
	CHECK(l7_pmtu_mss(false, 68, &linux_defaults, 300) == 300,
	      "IPv4 side at 300");
	CHECK(l7_pmtu_mss(false, 68, &linux_defaults, 0) == 0, "side at 0");
}

/* The sysctls move the floor, but not below the protocol's minimums. */
static void test_sysctls(void)
{
	struct l7_pmtu_floor f = { 1000, 48 };

	CHECK(l7_pmtu_mss(false, 68, &f, 1460) == 960, "min_pmtu 1000");
	f.min_pmtu = 68;
	CHECK(l7_pmtu_mss(false, 68, &f, 1460) == 48,
	      "min_pmtu 68: MSS 28 floored at tcp_min_snd_mss");
	f.min_snd_mss = 536;
	CHECK(l7_pmtu_mss(false, 68, &f, 1460) == 536, "min_snd_mss 536");
	CHECK(l7_pmtu_mss(true, 68, &f, 1440) == 1220,
	      "IPv6: min_snd_mss below 1220 changes nothing");
	f.min_snd_mss = 1300;
	CHECK(l7_pmtu_mss(true, 68, &f, 1440) == 1300, "IPv6 min_snd_mss");
	f.min_pmtu = 0;
	f.min_snd_mss = 0;
	CHECK(l7_pmtu_mss(false, 0, &f, 1460) == 48,
	      "zero sysctls: 68 and 48 still hold");
}

/* Any MTU, any floor: never above @cur, never below the minimums. */
static void test_bounds(void)
{
	unsigned int i;

	for (i = 0; i < 100000; i++) {
		struct l7_pmtu_floor f = {
			(uint32_t)l7_rand() % 2000,
			(uint32_t)l7_rand() % 2000,
		};
		bool v6 = l7_rand() & 1;
		uint32_t mtu = (uint32_t)l7_rand() >> (l7_rand() % 32);
		uint16_t cur = (uint16_t)l7_rand();
		uint16_t mss = l7_pmtu_mss(v6, mtu, &f, cur);
		uint32_t least = v6 ? 1220 : 28;

		if (f.min_snd_mss > least)
			least = f.min_snd_mss;
		if (least < 48)
			least = 48;
		if (!v6 && f.min_pmtu > 68 && f.min_pmtu - 40 > least)
			least = f.min_pmtu - 40;
		CHECK(mss <= cur, "raised %u to %u", cur, mss);
		CHECK(mss == cur || mss >= least,
		      "v6 %d mtu %u floor %u/%u: %u below %u", v6, mtu,
		      f.min_pmtu, f.min_snd_mss, mss, least);
	}
}

int main(void)
{
	RUN(test_honoured);
	RUN(test_floored);
	RUN(test_never_raised);
	RUN(test_sysctls);
	RUN(test_bounds);
	return l7_test_summary("tcp_pmtu");
}
