/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: carrying the client's SYN options through a SYN cookie.
 *
 * The director answers SYNs statelessly: the kernel's syncookie (in the
 * SYN-ACK's sequence number) proves the handshake and encodes the MSS,
 * but not window scale or SACK.  As Linux does, we hide those in the low
 * six bits of the TSval we send, which the client echoes in TSecr: four
 * bits of window-scale shift (0xf: none) and one bit of SACK-permitted.
 * A client without timestamps gets neither, exactly as from a Linux
 * server answering with cookies.
 */
#ifndef _IP_VS_L7_CORE_TCP_COOKIE_H
#define _IP_VS_L7_CORE_TCP_COOKIE_H

#include "l7_types.h"

#define L7_COOKIE_TS_BITS	6
#define L7_COOKIE_TS_MASK	((1u << L7_COOKIE_TS_BITS) - 1)
#define L7_COOKIE_WS_NONE	0xf

/*
 * TSval for the SYN-ACK: @now with its low bits replaced, never above
 * @now, so the clock the client sees does not run ahead of ours.
 */
uint32_t l7_cookie_ts_encode(uint32_t now, int wscale, bool sack);

/* Options from the TSecr of the handshake's final ACK; false if invalid. */
bool l7_cookie_ts_decode(uint32_t tsecr, int *wscale, bool *sack);

#endif /* _IP_VS_L7_CORE_TCP_COOKIE_H */
