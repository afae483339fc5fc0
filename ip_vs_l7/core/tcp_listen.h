/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: a VIP's LISTEN state - what becomes of a segment that
 * belongs to no client connection.
 *
 * The director answers SYNs with SYN cookies and keeps nothing; a
 * connection is made only by the ACK that completes a handshake with a
 * valid cookie (its options carried in it, and in the timestamp if the
 * client has them, tcp_cookie.h), or,
 * after a failover, by the next segment of a connection the other
 * director recorded (conn_ckpt.h), which is asked first: its client's
 * segment would fail the cookie check.  A RST never makes a connection
 * and is never answered; at a record's point it ends the record.  A
 * segment with flags no stack sends together, or options that do not
 * parse, gets nothing at all.
 *
 * The glue classifies the segment (l7_listen_seg()), asks the record
 * store, maps its verdict (l7_listen_record()), checks the cookie, and
 * takes the new connection's numbers from l7_listen_accept().
 */
#ifndef _IP_VS_L7_CORE_TCP_LISTEN_H
#define _IP_VS_L7_CORE_TCP_LISTEN_H

#include "l7_types.h"
#include "conn_ckpt.h"

#define L7_LISTEN_OUR_WSCALE	7	/* the shift the director announces */
#define L7_LISTEN_SYNACK_WIN	65535	/* its SYN-ACK's window, unscaled */

enum l7_listen_act {
	L7_LISTEN_DROP,		/* nothing kept, nothing answered */
	L7_LISTEN_SYNACK,	/* a SYN: answer with a cookie, keep nothing */
	/* a RST: it may end a record (the store's to say), no answer */
	L7_LISTEN_RST,
	/* an ACK: a record first (l7_listen_record()), then the cookie */
	L7_LISTEN_ACK,
};

/* @flags: the TCP flags byte (L7_TCPF_*); @opts_ok: its options parse. */
enum l7_listen_act l7_listen_seg(uint8_t flags, bool opts_ok);

enum l7_listen_next {
	L7_LISTEN_ADOPT,	/* the connection, from the record */
	/* drop it; a RST at its ACK and the record's probe go out */
	L7_LISTEN_PROBE,
	L7_LISTEN_WAIT,		/* drop it, answer nothing: the record waits */
	L7_LISTEN_COOKIE,	/* no record fits: the cookie decides */
	/* to the live director that holds the connection, unchanged */
	L7_LISTEN_FORWARD,
};

/* The record store's verdict on an ACK (L7_LISTEN_ACK). */
enum l7_listen_next l7_listen_record(enum l7_ckpt_verdict v);

/* The final ACK of a cookie handshake, as the glue read it. */
struct l7_listen_ack {
	uint32_t seq;
	uint32_t ack;		/* our cookie + 1 */
	uint32_t mss;		/* the cookie's check: 0 if invalid */
	uint16_t win;		/* its window field */
	bool ts;		/* it carries a timestamp */
	uint32_t tsval;
	uint32_t tsecr;
};

/* A new client connection's numbers, as the director plays its side. */
struct l7_listen_conn {
	uint32_t rcv_nxt;	/* the client's next seq */
	uint32_t snd_nxt;	/* the director's (snd_una the same) */
	uint16_t mss;
	uint16_t win;		/* the client's window field */
	uint32_t max_win;	/* ... scaled: the largest it announced */
	uint32_t rcv_edge;	/* the right edge of our window to it */
	uint32_t ts_recent;	/* its TSval */
	uint32_t ts_last;	/* the newest TSval it saw of ours */
	int8_t wscale;		/* the shift of its window field, -1: none */
	int8_t our_wscale;	/* the shift it applies to ours, -1: none */
	bool ts;
	bool sack;
};

/*
 * The connection the ACK @a makes, in *@out, or false: a bad cookie (or
 * a timestamp whose options do not decode), which is reset.
 */
bool l7_listen_accept(const struct l7_listen_ack *a,
		      struct l7_listen_conn *out);

/*
 * How far our TSval clock of connection @n, @ts_now now, is behind the
 * TSval the client saw (ts_last), 0 if not: the SYN-ACK may have come
 * from a director whose clock ran ahead, and the client's PAWS check
 * would drop everything we sent until ours caught up.  The clock moves
 * forward by that much.
 */
uint32_t l7_listen_ts_lag(const struct l7_listen_conn *n, uint32_t ts_now);

#endif /* _IP_VS_L7_CORE_TCP_LISTEN_H */
