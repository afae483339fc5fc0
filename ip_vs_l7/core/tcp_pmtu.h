/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: the segment size an ICMP "fragmentation needed" (RFC
 * 1191) or ICMPv6 "packet too big" (RFC 8201) may lower a flow to.
 *
 * The MTU such an error announces is the sender's word, and a client can
 * send one about its own connection: taken as it comes, MTU 68 would cut
 * every response into 16-byte segments.  Linux does not go below a
 * floor (CVE-2019-11479): the path MTU stays at or above
 * net.ipv4.route.min_pmtu (552) for IPv4 and 1280 for IPv6, and the
 * segment size at or above net.ipv4.tcp_min_snd_mss (48).  The director,
 * which answers for sockets it has not got, keeps the same floor.
 */
#ifndef _IP_VS_L7_CORE_TCP_PMTU_H
#define _IP_VS_L7_CORE_TCP_PMTU_H

#include "l7_types.h"

#define L7_IPV4_MIN_MTU		68	/* RFC 791; min_pmtu's own floor */
#define L7_IPV6_MIN_MTU		1280	/* RFC 8200 */
#define L7_TCP_MIN_SND_MSS	48	/* tcp_min_snd_mss's own floor */
#define L7_IPV4_TCP_HDRS	40	/* IPv4 and TCP headers, no options */
#define L7_IPV6_TCP_HDRS	60

/* The floors, as the namespace's sysctls set them */
struct l7_pmtu_floor {
	uint32_t min_pmtu;	/* IPv4: net.ipv4.route.min_pmtu */
	uint32_t min_snd_mss;	/* net.ipv4.tcp_min_snd_mss */
};

/*
 * The MSS of a side now at @cur after an error announcing @mtu: lower
 * than @cur only if the path, floored, asks for it, and never below the
 * floors (nor below the protocol minimums, whatever the sysctls say).
 */
uint16_t l7_pmtu_mss(bool ipv6, uint32_t mtu,
		     const struct l7_pmtu_floor *floor, uint16_t cur);

#endif /* _IP_VS_L7_CORE_TCP_PMTU_H */
