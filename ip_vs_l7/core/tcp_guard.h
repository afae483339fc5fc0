/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: what the director lets through the TCP layer of a
 * splice, decided on raw header fields.
 *
 * The director is a TCP endpoint to the client and to each backend, but
 * forwards most segments from one to the other rewritten rather than
 * re-sent.  Whatever it forwards must mean to the receiver exactly what
 * it meant to the director: the options it forwards are the ones it
 * parsed, and a segment either side could read differently (an option
 * the director does not understand, urgent data) is made plain first.
 * Resets and SYNs on a connection are judged as RFC 5961 asks, so that
 * a blind attacker has to hit one sequence number, not a window.
 */
#ifndef _IP_VS_L7_CORE_TCP_GUARD_H
#define _IP_VS_L7_CORE_TCP_GUARD_H

#include "l7_types.h"
#include "tcp_opt.h"

/* Bits of the TCP flags byte (byte 13 of the header) */
#define L7_TCPF_FIN	0x01
#define L7_TCPF_SYN	0x02
#define L7_TCPF_RST	0x04
#define L7_TCPF_PSH	0x08
#define L7_TCPF_ACK	0x10
#define L7_TCPF_URG	0x20

/*
 * Make the option area of a segment about to be forwarded safe to
 * forward: parse it as l7_tcp_opts_parse() does (into @o), then
 * overwrite with NOPs, in place, every option other than timestamps and
 * SACK blocks - and, on a SYN (@syn), MSS, window scale and
 * SACK-permitted.  Bytes after an EOL become zeros (padding).  The area
 * keeps its length, so nothing else in the packet moves.
 *
 * Why each goes:
 *  - options the director does not know (TCP-MD5 19, TCP-AO 29, MPTCP
 *    30, Fast Open 34, the experimental 253/254, anything unassigned):
 *    the director cannot keep what they promise (a signature over
 *    headers it rewrites, a subflow it does not carry, data in a SYN),
 *    and a receiver that acts on one may drop the segment or read the
 *    stream differently from the director (Linux drops a segment with
 *    an MD5 option on a connection without a key);
 *  - MSS, window scale and SACK-permitted outside a SYN: meaningless
 *    there (RFC 9293, RFC 7323 2.2, RFC 2018), and Linux ignores them,
 *    but another stack might not; no receiver loses anything.
 *
 * Returns how many bytes of @opt it changed (0 if none), or a negative
 * enum l7_tcpopt_err when the area does not parse: a segment whose
 * options the director cannot read is dropped, never forwarded.
 */
int l7_tcp_opts_sanitize(uint8_t *opt, unsigned int len, bool syn,
			 struct l7_tcp_opts *o);

/* What to do with a segment, judged on its flags alone. */
enum l7_tcp_flags_verdict {
	L7_FLAGS_OK,		/* go on */
	L7_FLAGS_DROP,		/* drop it and answer nothing */
	L7_FLAGS_RST,		/* a reset: judge it by l7_tcp_rst_check() */
	L7_FLAGS_CHALLENGE,	/* a SYN on a connection: challenge ACK */
};

/*
 * @flags: the TCP flags byte; @established: the segment belongs to a
 * connection the director holds (else it is addressed to a listener).
 *
 *  - SYN with FIN or RST is never a segment any stack sends: dropped
 *    without an answer, on a listener (no SYN-ACK) as on a connection;
 *  - on a connection, a SYN is answered with a challenge ACK (RFC 5961
 *    4.2): a peer that really restarted answers that with a RST at the
 *    exact sequence number, a blind attacker learns nothing;
 *  - on a connection, a segment with neither ACK nor RST nor SYN is
 *    dropped (RFC 9293 3.10.7.4: "if the ACK bit is off, drop").
 */
enum l7_tcp_flags_verdict l7_tcp_flags_check(uint8_t flags, bool established);

/* What a RST does to a connection (RFC 5961 3.2) */
enum l7_tcp_rst_verdict {
	L7_RST_DROP,		/* outside the receive window: ignore it */
	L7_RST_CHALLENGE,	/* in the window, not exact: challenge ACK */
	L7_RST_ACCEPT,		/* exactly at @rcv_nxt: the connection ends */
};

/*
 * A RST at @seq on a connection whose next expected sequence number is
 * @rcv_nxt and whose receive window (as last announced, in bytes) is
 * @rcv_wnd: in the window means rcv_nxt < seq < rcv_nxt + rcv_wnd,
 * modulo 2^32.  A zero window holds no sequence number but rcv_nxt.
 * Once the peer's FIN is in (@fin_in, and counted in rcv_nxt), a RST on
 * the FIN's own seq is exact too: a peer that closed resets a segment
 * that arrives after it with that segment's ACK, which may not cover its
 * FIN yet (Linux accepts it the same way, tcp_reset_check()).
 */
enum l7_tcp_rst_verdict l7_tcp_rst_check(uint32_t seq, uint32_t rcv_nxt,
					 uint32_t rcv_wnd, bool fin_in);

/*
 * Challenge ACKs are rate limited per connection (Linux limits them per
 * socket, and per namespace; the per-namespace limit was a side channel,
 * CVE-2016-5696, so only the per-connection one is kept here).
 */
struct l7_tcp_ratelimit {
	uint32_t last;		/* clock of the last one allowed */
	bool used;		/* ->last is valid */
};

/*
 * May one go at @now (any wrapping 32-bit clock, e.g. jiffies), at most
 * one per @interval ticks?  Notes it when it may.
 */
bool l7_tcp_ratelimit_allow(struct l7_tcp_ratelimit *rl, uint32_t now,
			    uint32_t interval);

/*
 * PAWS (RFC 7323 5.3) on a connection that agreed on timestamps
 * (@agreed): a segment other than a RST must carry one, no older than
 * @ts_recent, the newest the receiver took in order.  Otherwise true.
 */
bool l7_tcp_paws_ok(bool agreed, bool rst, const struct l7_tcp_opts *o,
		    uint32_t ts_recent);

/*
 * Clear the URG flag and the urgent pointer of the raw TCP header @th:
 * HTTP has no urgent data, and a receiver without SO_OOBINLINE (Apache,
 * any client) would take the urgent byte out of the stream that the
 * director framed with it in.  Cleared, it is an ordinary byte for both.
 */
void l7_tcp_hdr_no_urgent(uint8_t *th);

#endif /* _IP_VS_L7_CORE_TCP_GUARD_H */
