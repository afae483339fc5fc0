/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: SYN cookies, and the client's SYN options carried
 * through one.
 *
 * The director answers SYNs statelessly: the cookie (the SYN-ACK's
 * sequence number) proves the handshake and carries what the connection
 * needs of the SYN - its MSS, window scale and SACK - each rounded down
 * to a few bits.  For a client with timestamps the options are carried
 * exactly as well, as Linux does: in the low six bits of the TSval we
 * send, which the client echoes in TSecr (four bits of window-scale
 * shift, 0xf: none, and one of SACK-permitted).  A client without
 * timestamps (Windows' default) thus keeps window scaling and SACK,
 * which a Linux server answering with cookies takes from it.
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

/*
 * The cookie itself.  Linux's (net/ipv4/syncookies.c) is keyed by one
 * secret of the kernel's; directors side by side must each check the
 * cookies the others sent (a handshake's SYN and its last ACK may reach
 * two directors), so ours is keyed by a secret the tier shares.  The
 * glue computes the MAC (SipHash of the tuple, the client's ISN, the
 * period and the cookie's data bits under that secret); the cookie is
 *   bits 31-30  the period's low bits,
 *   bits 29-24  its data: bits 29-28 the index of the MSS in its
 *               family's table, bit 27 SACK-permitted, bits 26-24 the
 *               window-scale shift's index in a table (0: none),
 *   bits 23-0   the MAC's low bits (a forger's odds: one in 2^24 tries,
 *               as against Linux's cookies).
 * A period is L7_COOKIE_PERIOD_S of real time - which directors agree on
 * where they agree on nothing else - and a cookie holds for the period
 * it was made in and L7_COOKIE_MAX_AGE more, as Linux's; one of the
 * period after ours holds too, made by a director whose clock is ahead
 * (by less than a period: four periods' low bits tell them apart).
 */
#define L7_COOKIE_PERIOD_S	64
#define L7_COOKIE_MAX_AGE	2
#define L7_COOKIE_MSS_N		4

/* The MSS a cookie can carry for a client's @mss (the table's largest
 * not above it, the smallest for less), and its index in *@idx.
 */
uint16_t l7_cookie_mss_pick(bool v6, uint16_t mss, uint32_t *idx);

/*
 * A cookie's data bits for MSS index @idx, the client's window-scale
 * shift @wscale (-1: none; rounded down to the table's 0, 2, 4, 6, 7,
 * 8 or 9: a client's window read as smaller than it is costs speed,
 * never correctness) and @sack.
 */
uint32_t l7_cookie_data(uint32_t idx, int wscale, bool sack);

/* The cookie made in @period for @mac and its @data bits. */
uint32_t l7_cookie_make(uint32_t mac, uint32_t period, uint32_t data);

/*
 * What @cookie claims, read against the clock's @now: the period it was
 * made in (*@period: @now, one of the L7_COOKIE_MAX_AGE before, or the
 * one after; the two bits name one of those four) and its data bits.
 * The MAC of those then decides (l7_cookie_mss()).
 */
void l7_cookie_claims(uint32_t cookie, uint32_t now, uint32_t *period,
		      uint32_t *data);

/*
 * The MSS @cookie carries if its MAC bits are @mac's (the MAC of what it
 * claims), else 0.
 */
uint16_t l7_cookie_mss(bool v6, uint32_t cookie, uint32_t mac);

/* The window-scale shift (-1: none) and SACK @cookie carries. */
void l7_cookie_opts(uint32_t cookie, int *wscale, bool *sack);

#endif /* _IP_VS_L7_CORE_TCP_COOKIE_H */
