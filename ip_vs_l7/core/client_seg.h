/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: what the director does with a client's segment.
 *
 * The client's byte stream alternates between request heads, which the
 * director takes into its own buffer and acknowledges itself, and request
 * bodies, which pass through to the current request's backend and are
 * acknowledged by it (req_guard.h decides about those bytes).  This is
 * the plan for one segment once its flags, options and timestamp passed
 * the checks of tcp_guard.h: take its bytes, hand it to a body guard, or
 * only pass its ACK on - and whether the director answers with an ACK of
 * its own.
 *
 * Two rules make the head side safe against a client that resends with
 * other bytes, and keep the director's ACK honest:
 *
 *  - the director never takes a byte twice: a resend of taken bytes is
 *    only acknowledged again; bytes it framed as a body go back to that
 *    body's guard, whose own rules (req_guard.h) keep the boundary
 *    between a body and the next head where the director first framed
 *    it;
 *  - its ACK never covers a client byte that went to a server and is not
 *    acknowledged by it: a client that is told it is stored never sends
 *    it again.  Head bytes that come while a body before them is on its
 *    way - in the segment that ends the body, or right after it - are
 *    taken (the director has them) but acknowledged only once that
 *    body's server has it all (l7_cseg_ack()), so the client resends
 *    nothing and waits for no timeout.
 */
#ifndef _IP_VS_L7_CORE_CLIENT_SEG_H
#define _IP_VS_L7_CORE_CLIENT_SEG_H

#include "l7_types.h"

enum l7_conn_state {
	L7C_HEAD,	/* collecting a request head */
	L7C_HELD,	/* head framed, waiting for the response before it */
	L7C_QUEUED,	/* head framed, waiting for a pooled connection */
	L7C_BODY,	/* current request's body passing through */
	L7C_TUNNEL,	/* after a 101: spliced as it comes until both FINs */
	L7C_CLOSING,	/* our reply and/or FIN sent; waiting for the client */
};

/* The connection, as far as its next client segment goes. */
struct l7_cseg_ctx {
	enum l7_conn_state state;
	uint32_t rcv_nxt;	/* the next client seq the director takes */
	uint32_t acked;		/* the highest ACK the director sent */
	bool fin;		/* the client's FIN is in */
	bool may_ack;		/* no body byte before rcv_nxt may be missing
				 * at its server: all of it may be acked
				 */
	bool idle;		/* no request or response under way */
	bool sent;		/* all taken went on to a server just now:
				 * nothing waits in the head buffer
				 */
};

/* A client segment: payload [seq, seq + len), then maybe a FIN. */
struct l7_cseg {
	uint32_t seq;
	uint32_t len;
	bool fin;
	bool ts;	/* it carries the timestamp option */
};

enum l7_cseg_act {
	L7_CSEG_TUNNEL,	/* to the current binding as it is */
	L7_CSEG_BODY,	/* to the current request's body guard */
	L7_CSEG_OLD,	/* resent framed bytes: to the guard they went by */
	L7_CSEG_TAKE,	/* payload from ->skip on is the director's */
	L7_CSEG_PASS,	/* only its ACK, window and SACK go on */
	L7_CSEG_DROP,	/* nothing of it goes anywhere */
};

struct l7_cseg_plan {
	enum l7_cseg_act act;
	uint32_t skip;	/* TAKE: payload bytes taken before */
	bool pure;	/* PASS: no payload, no FIN: it goes as it is */
	bool ack;	/* the director acknowledges where it stands now */
	bool ack_later;	/* ... unless the server's answer does it first */
	bool take_fin;	/* the client's FIN is in order: it counts */
	bool close;	/* ... and ends the connection: close our side */
};

/* Before anything of @s is taken. */
struct l7_cseg_plan l7_cseg_plan(const struct l7_cseg_ctx *x,
				 const struct l7_cseg *s);

/*
 * After the caller took what it could of a TAKE (@x as it is now: the
 * head may have been dispatched, the state changed, rcv_nxt moved):
 * BODY if the rest of the segment is the new request's body, else the
 * FIN or an ACK of what was taken, and then PASS or DROP.  An ACK of a
 * request that went on to its server whole is ack_later rather than
 * ack: the server's ACK, on its response, reaches the client through the
 * splice and says the same, so the director's own is one segment per
 * request for nothing unless the server takes its time.
 */
struct l7_cseg_plan l7_cseg_after_take(const struct l7_cseg_ctx *x,
				       const struct l7_cseg *s);

/*
 * A segment whose payload the director took, and the binding a head in
 * it went to at once: what l7_cseg_carries_copy() weighs.
 */
struct l7_copy_carrier {
	uint32_t skip;		/* TAKE: bytes of it taken before */
	uint32_t buffered;	/* head bytes the director held before it */
	uint32_t client_len;	/* the client's bytes the copy stands for */
	bool same;		/* the copy is those bytes, byte for byte */
	unsigned int bindings;	/* the connection's, the new one included */
	/* l7_cseg_after_take()'s act: PASS, only its ACK would go on */
	enum l7_cseg_act after;
	bool ts_wanted;		/* the copy carries a timestamp */
};

/*
 * May the segment @s itself go to the server, rewritten, as the first
 * sending of the copy (the copy stays for resends), instead of a segment
 * of the director's?  Only when it holds the copy's bytes exactly - its
 * whole payload, from the head's first byte, no byte before it in the
 * head buffer, no FIN, nothing for a body guard after - so the server
 * receives what the director framed; when its ACK, passed on, would
 * reach only the new binding's server, which the copy tells the same
 * (an older binding's server would miss it); and when its timestamp
 * option is one the copy can carry or drop.
 */
bool l7_cseg_carries_copy(const struct l7_cseg *s,
			  const struct l7_copy_carrier *k);

/*
 * The segment ended the current request's body at ->rcv_nxt (its guard
 * framed the end, and forwards the part before): TAKE what follows - the
 * next head, a FIN - as of ->skip, or PASS if nothing does.
 */
struct l7_cseg_plan l7_cseg_after_body(const struct l7_cseg_ctx *x,
				       const struct l7_cseg *s);

/*
 * A client segment through a tunnel (L7C_TUNNEL): none of its bytes are
 * the director's, but it follows where the client's stream stands, so
 * that only an in-order FIN counts (and a RST only at exactly there).
 */
struct l7_tunnel_seg {
	uint32_t rcv_nxt;	/* where the client's stream stands after it */
	bool progress;		/* it brought new bytes (or the FIN) in order */
	bool fin;		/* its FIN is new and in order: the client closed */
};

struct l7_tunnel_seg l7_tunnel_seg(uint32_t rcv_nxt, const struct l7_cseg *s);

/*
 * A server acknowledged more of its request (@req_done: framed to its
 * end, at client seq @req_end): when that was all the director waited
 * for (->may_ack), the client bytes it took after the request's end are
 * acknowledged now.  Only then: the server's own ACK of the body goes to
 * the client anyway, and a tunnel's bytes are the server's to
 * acknowledge.
 */
bool l7_cseg_server_acked(const struct l7_cseg_ctx *x, bool req_done,
			  uint32_t req_end);

/* The client seq the director's own segments acknowledge. */
uint32_t l7_cseg_ack(const struct l7_cseg_ctx *x);

#endif /* _IP_VS_L7_CORE_CLIENT_SEG_H */
