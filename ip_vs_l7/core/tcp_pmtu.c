// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: the floor under an ICMP-lowered segment size (see
 * tcp_pmtu.h).
 */
#include "tcp_pmtu.h"

static uint32_t l7_max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/* the path MTU an error announcing @mtu leaves, as Linux would take it */
static uint32_t l7_pmtu_floored(bool ipv6, uint32_t mtu,
				const struct l7_pmtu_floor *floor)
{
	if (ipv6)
		return l7_max_u32(mtu, L7_IPV6_MIN_MTU);
	return l7_max_u32(mtu, l7_max_u32(floor->min_pmtu, L7_IPV4_MIN_MTU));
}

uint16_t l7_pmtu_mss(bool ipv6, uint32_t mtu,
		     const struct l7_pmtu_floor *floor, uint16_t cur)
{
	uint32_t hdrs = ipv6 ? L7_IPV6_TCP_HDRS : L7_IPV4_TCP_HDRS;
	uint32_t mss = l7_pmtu_floored(ipv6, mtu, floor) - hdrs;

	mss = l7_max_u32(mss, l7_max_u32(floor->min_snd_mss,
					 L7_TCP_MIN_SND_MSS));
	return mss < cur ? (uint16_t)mss : cur;
}
