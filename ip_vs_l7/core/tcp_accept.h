/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: which segments of a connection the director may act on.
 *
 * The director is a TCP endpoint to each client and each backend.  Like
 * any receiver it must not let a segment change what it knows of the
 * connection - the peer's clock (TS.Recent), its window, what it has
 * acknowledged - or pass anything on, before the segment is acceptable:
 * in the receive window (RFC 9293 3.10.7.4), with an ACK of something
 * the director sent (RFC 5961 5.2), a RST at exactly the expected
 * sequence number (RFC 5961 3.2), no SYN (RFC 5961 4.2), a timestamp no
 * older than the last (RFC 7323 5.3).  An off-path attacker who knows a
 * connection's addresses and ports must then guess a sequence number in
 * the window, as against any Linux endpoint, before one forged segment
 * can do anything.
 *
 * The rules are Linux's (net/ipv4/tcp_input.c: tcp_validate_incoming(),
 * tcp_sequence(), tcp_paws_discard(), tcp_ack(), tcp_replace_ts_recent(),
 * tcp_may_update_window()), with two differences, both stricter: a
 * segment without a timestamp on a connection that agreed on them is
 * dropped (RFC 7323 3.2), and an ACK of data never sent draws a
 * challenge ACK (RFC 5961 5.2) as a too old one does.
 */
#ifndef _IP_VS_L7_CORE_TCP_ACCEPT_H
#define _IP_VS_L7_CORE_TCP_ACCEPT_H

#include "l7_types.h"
#include "tcp_map.h"

/* The director's view of one connection, as receiver and sender. */
struct l7_tcp_endpoint {
	uint32_t rcv_nxt;	/* next sequence number expected from the peer */
	uint32_t rcv_wup;	/* the ACK last sent to it (Last.ACK.sent) */
	uint32_t rcv_edge;	/* right edge of the window announced to it */
	uint32_t snd_una;	/* oldest sequence number not acknowledged */
	uint32_t snd_nxt;	/* next one to send */
	uint32_t snd_isn;	/* snd_una when the connection began */
	uint32_t snd_wnd;	/* the peer's window, bytes */
	uint32_t snd_wl1;	/* seq of the segment that set it */
	uint32_t max_window;	/* the largest window it announced, bytes */
	uint32_t ts_recent;	/* TS.Recent */
	int8_t snd_wscale;	/* shift of the peer's window field, or < 0 */
	bool ts;		/* timestamps agreed */
	bool fin_in;		/* the peer's FIN is counted in rcv_nxt */
};

/* One arriving segment, host order. */
struct l7_tcp_in {
	uint32_t seq;
	uint32_t ack;
	uint32_t len;		/* payload bytes, +1 for a SYN, +1 for a FIN */
	uint32_t tsval;
	uint16_t win;		/* the window field as sent */
	uint8_t flags;		/* L7_TCPF_* */
	bool ts;		/* carries a timestamp option */
};

enum l7_tcp_accept_act {
	L7_ACC_DROP,		/* drop it, answer nothing */
	L7_ACC_CHALLENGE,	/* drop it, answer with an ACK (rate limited) */
	L7_ACC_RESET,		/* a RST at the exact seq: the connection ends */
	L7_ACC_OK,		/* acceptable: go on, with what it may update */
};

struct l7_tcp_accept {
	enum l7_tcp_accept_act act;
	/*
	 * Only with L7_ACC_OK.  ACK in [snd_una, snd_nxt]: it may move
	 * snd_una, and may be passed on.  An older one (within max_window
	 * of snd_una, else the segment is refused) is ignored: the segment's
	 * data still counts, its ACK, window and timestamp do not.
	 */
	bool ack_ok;
	bool ts_recent;		/* its TSval becomes TS.Recent (RFC 7323 4.3) */
	bool window;		/* its window is the peer's window now */
};

/*
 * Judge @s, arriving on the connection @e describes.  Nothing in @e
 * changes: apply the verdict with l7_tcp_accept_apply() once the caller
 * has acted on it.
 */
struct l7_tcp_accept l7_tcp_accept(const struct l7_tcp_endpoint *e,
				   const struct l7_tcp_in *s);

/* What an acceptable segment changes in @e: snd_una, window, TS.Recent. */
void l7_tcp_accept_apply(struct l7_tcp_endpoint *e, const struct l7_tcp_in *s,
			 const struct l7_tcp_accept *v);

/*
 * The ACKs and pure-ACK seqs the connection @e accepts, for a splice
 * that has to check them again where it maps them (l7_map_c2b()).
 */
struct l7_seg_bounds l7_tcp_accept_bounds(const struct l7_tcp_endpoint *e);

/* The challenge ACK to a segment refused with L7_ACC_CHALLENGE. */
struct l7_tcp_challenge {
	uint32_t ack;			/* the ACK it carries */
	bool dsack;			/* and reports @dup as a duplicate */
	struct l7_tcp_sack_block dup;
};

/*
 * What the challenge ACK to @in, refused by @e, says.  A RST or SYN in
 * the window but not at its exact point (RFC 5961 3.2, 4.2) gets one at
 * rcv_nxt, where the peer's in-order segments end, which a peer that
 * really reset answers with a RST at exactly that seq.  A resend of bytes
 * acknowledged already (the sender's timer was quicker than the ACK)
 * reports them as a duplicate, as Linux does, lest the sender take its
 * resend for a repair; never bytes past the ACK last sent.  Any other
 * gets that ACK again (rcv_wup), never one of bytes the director may
 * lack.
 */
struct l7_tcp_challenge l7_tcp_challenge(const struct l7_tcp_endpoint *e,
					 const struct l7_tcp_in *in);

/* What a server's segment on an idle pooled connection does. */
enum l7_tcp_idle_act {
	L7_IDLE_DROP,		/* nothing */
	L7_IDLE_ACK,		/* a resend of what it had: ACK it again */
	L7_IDLE_CHALLENGE,	/* in the window, not at rcv_nxt: our ACK */
	L7_IDLE_RETIRE,		/* FIN, data or RST at rcv_nxt: it is over */
};

/* An idle pooled connection, as the director last left it. */
struct l7_tcp_idle {
	uint32_t rcv_nxt;	/* the server's next seq */
	uint32_t rcv_wnd;	/* the window announced to it, bytes */
	uint32_t snd_nxt;	/* the director's next seq */
	uint32_t max_window;	/* the largest window the server may have had */
};

/*
 * An idle pooled connection expects nothing from its server but ACKs:
 * a FIN (its keep-alive timeout), a byte it was not asked for, or a RST
 * retires it - at an acceptable sequence number only: a FIN or data
 * covering rcv_nxt with an ACK within max_window of snd_nxt and not past
 * it, a RST exactly at rcv_nxt.  A resend wholly below rcv_nxt (our ACK
 * was lost), or a keepalive probe at rcv_nxt - 1, is acknowledged again.
 */
enum l7_tcp_idle_act l7_tcp_accept_idle(const struct l7_tcp_idle *p,
					const struct l7_tcp_in *s);

#endif /* _IP_VS_L7_CORE_TCP_ACCEPT_H */
