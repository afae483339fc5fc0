/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: what one spliced segment does, decided before the splice
 * rewrites it.
 *
 * The splice (ip_vs_l7_splice.c) is the seqadj of this module: it writes
 * the numbers it is given into a segment and sends it.  Whether the
 * segment goes at all, which numbers it carries - an ACK never below one
 * the director sent, a TSval never behind the last the receiver saw - and
 * what it moves on either connection are decided here, one segment at a
 * time, where tests/fuzz/fuzz_splice_plan.c reaches them.  The caller
 * writes what a plan moved into the connection and the binding.
 */
#ifndef _IP_VS_L7_CORE_SPLICE_PLAN_H
#define _IP_VS_L7_CORE_SPLICE_PLAN_H

#include "l7_types.h"
#include "tcp_map.h"

/* ---- a client segment to the server of its binding ---- */

struct l7_c2b_plan {
	unsigned int flags;	/* l7_map_c2b()'s, for the rewrite */
	bool go;		/* false: bytes or an ACK of another request */
	bool announce;		/* it tells the server an ACK and a window */
	bool ts_sent;		/* it carries a TSval to the server */
	bool snd_moved;		/* it ends past the binding's snd_nxt */
};

/*
 * Map @s (client-side numbers, accepted by the client's connection: @ok)
 * onto the binding's pooled connection, whose director side sent up to
 * @b_snd_nxt so far.  @has_ack: the segment carries the ACK flag.
 */
struct l7_c2b_plan l7_c2b_plan(const struct l7_binding_map *m,
			       const struct l7_seg_bounds *ok,
			       uint32_t b_snd_nxt, struct l7_tcp_seg *s,
			       bool has_ack);

/*
 * A client segment whose payload the director took, or a pure ACK, tells
 * the server sending a response what the client has of it: whether its
 * @ack goes on to the server, which was passed up to @passed so far.  An
 * ACK below the client's last (@snd_una) or of bytes never sent to it
 * (past @snd_nxt) tells a server nothing true; one with payload cut off
 * goes only when it acknowledges more, lest it read as a duplicate ACK.
 */
bool l7_ack_pass(uint32_t ack, uint32_t snd_una, uint32_t snd_nxt,
		 uint32_t passed, bool pure);

/* ---- a server segment to the client ---- */

/* The director's sending side of the client connection. */
struct l7_c_sent {
	uint32_t acked;		/* newest ACK sent to the client */
	uint32_t snd_nxt;	/* next seq to it */
	uint32_t tsval;		/* newest TSval sent to it */
	bool ts;		/* timestamps on the client connection */
};

struct l7_b2c_plan {
	unsigned int flags;	/* l7_map_b2c()'s, for the rewrite */
	bool go;		/* forward it to the client */
	/*
	 * Not forwarded: the server resent bytes of an earlier binding's
	 * response, which its client acknowledged whole; the server hears
	 * they had arrived (@dup, backend seq), lest it count its probe as
	 * a repair.
	 */
	bool dup_earlier;
	struct l7_tcp_sack_block dup;
	bool ack_news;		/* its ACK is one the client was not sent */
	bool announce;		/* it tells the client an ACK and a window */
	bool rsp;		/* it carries response bytes */
	bool rsp_resent;	/* some of them were sent to the client before */
	bool snd_moved;		/* it ends past the client's snd_nxt */
	bool ts_sent;		/* it carries a TSval to the client */
};

/*
 * Map @s (backend numbers, @payload bytes) onto the client's connection,
 * as the director sent on it so far (@cs).  The director acknowledged
 * some client bytes itself: never less goes to the client, and more is
 * the server's, of bytes it has.  The client's PAWS check sees one clock
 * across bindings.
 */
struct l7_b2c_plan l7_b2c_plan(const struct l7_binding_map *m,
			       const struct l7_c_sent *cs,
			       struct l7_tcp_seg *s, uint32_t payload,
			       bool has_ack);

#endif
