// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: SYN cookies; SYN options in the timestamp of a cookie
 * SYN-ACK.
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

#define PERIOD_SHIFT	30
#define DATA_SHIFT	24
#define DATA_MASK	0x3fu
#define IDX_SHIFT	4	/* in the data bits */
#define DATA_SACK	0x08u
#define DATA_WS		0x07u
#define MAC_MASK	((1u << DATA_SHIFT) - 1)
/* two bits tell four periods apart: MAX_AGE + 1 back, and one ahead */
#define PERIOD_MASK	3u

/*
 * MSS values common on the Internet (Linux's tables): IPv4's minimum,
 * Ethernet behind tunnels or PPPoE, plain Ethernet, and jumbo frames
 * for IPv6.  A client announcing less than the first gets it, as from
 * Linux: RFC 9293's default, which any IPv4 host must take.
 */
static const uint16_t mss_v4[L7_COOKIE_MSS_N] = { 536, 1300, 1440, 1460 };
static const uint16_t mss_v6[L7_COOKIE_MSS_N] = { 1220, 1420, 1440, 8940 };

/*
 * Window-scale shifts clients announce: Windows 8 (2 and 4 when its
 * tuning is restricted), Linux 7 (9 with 16 MB buffers), macOS and the
 * BSDs 6; index 0 is none.  A shift between two is read as the lower.
 */
static const int8_t ws_table[DATA_WS + 1] = { -1, 0, 2, 4, 6, 7, 8, 9 };

uint16_t l7_cookie_mss_pick(bool v6, uint16_t mss, uint32_t *idx)
{
	const uint16_t *t = v6 ? mss_v6 : mss_v4;
	uint32_t i = L7_COOKIE_MSS_N - 1;

	while (i > 0 && t[i] > mss)
		i--;
	*idx = i;
	return t[i];
}

uint32_t l7_cookie_data(uint32_t idx, int wscale, bool sack)
{
	uint32_t ws = 0;

	if (wscale >= 0)
		for (ws = DATA_WS; ws > 1 && ws_table[ws] > wscale; ws--)
			;
	return (idx % L7_COOKIE_MSS_N) << IDX_SHIFT |
	       (sack ? DATA_SACK : 0) | ws;
}

uint32_t l7_cookie_make(uint32_t mac, uint32_t period, uint32_t data)
{
	return (period & PERIOD_MASK) << PERIOD_SHIFT |
	       (data & DATA_MASK) << DATA_SHIFT | (mac & MAC_MASK);
}

void l7_cookie_claims(uint32_t cookie, uint32_t now, uint32_t *period,
		      uint32_t *data)
{
	uint32_t age = (now - (cookie >> PERIOD_SHIFT)) & PERIOD_MASK;

	/*
	 * The one period with these low bits of the last MAX_AGE + 1, or
	 * the next: a peer whose clock runs ahead of ours made it.  Any
	 * other - older - is of one of these, and its MAC fails.
	 */
	if (age > L7_COOKIE_MAX_AGE)
		*period = now + 1;
	else
		*period = now - age;
	*data = (cookie >> DATA_SHIFT) & DATA_MASK;
}

uint16_t l7_cookie_mss(bool v6, uint32_t cookie, uint32_t mac)
{
	uint32_t idx = (cookie >> DATA_SHIFT >> IDX_SHIFT) &
		       (L7_COOKIE_MSS_N - 1);

	if ((cookie ^ mac) & MAC_MASK)
		return 0;
	return (v6 ? mss_v6 : mss_v4)[idx];
}

void l7_cookie_opts(uint32_t cookie, int *wscale, bool *sack)
{
	uint32_t data = cookie >> DATA_SHIFT;

	*wscale = ws_table[data & DATA_WS];
	*sack = data & DATA_SACK;
}
