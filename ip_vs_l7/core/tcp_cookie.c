// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: SYN options in the timestamp of a cookie SYN-ACK.
 */
#include "tcp_cookie.h"

#define SACK_BIT	0x10
#define WS_BITS		0x0f

uint32_t l7_cookie_ts_encode(uint32_t now, int wscale, bool sack)
{
	uint32_t opts = (wscale < 0 || wscale > 14) ? L7_COOKIE_WS_NONE :
						       (uint32_t)wscale;
	uint32_t ts;

	if (sack)
		opts |= SACK_BIT;
	ts = (now & ~L7_COOKIE_TS_MASK) | opts;
	/* round down, not up: a TSval ahead of the clock would later look
	 * like time running backwards to the client
	 */
	if (ts > now)
		ts -= L7_COOKIE_TS_MASK + 1;
	return ts;
}

bool l7_cookie_ts_decode(uint32_t tsecr, int *wscale, bool *sack)
{
	uint32_t ws = tsecr & WS_BITS;

	if (tsecr & ~(SACK_BIT | WS_BITS) & L7_COOKIE_TS_MASK)
		return false;	/* bit 5 is never set by us */
	if (ws != L7_COOKIE_WS_NONE && ws > 14)
		return false;
	*wscale = ws == L7_COOKIE_WS_NONE ? -1 : (int)ws;
	*sack = tsecr & SACK_BIT;
	return true;
}
