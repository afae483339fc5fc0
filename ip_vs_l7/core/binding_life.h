/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: the life of a binding - one request and its response
 * on one pooled connection - from what is known of it, as plain data.
 *
 * A binding ends in one of two ways.  It is *finished* once its request
 * and response are both framed to their end and the client has
 * acknowledged the whole response: the pooled connection goes back to
 * the pool if its server keeps it and has exactly the request (nothing
 * of a resend or a next request in flight), else the server is reset
 * and the connection retired.  It is *aborted* when the connection or
 * the request goes away before that: the server is reset (unless it
 * reset first) and the connection retired.  Between the two, a server
 * may let the request go before it answered - it was closing the
 * connection just as the director bound it - and then the binding is
 * *lost*: nothing reached the client, so the request may go again.
 *
 * The glue reads a binding into struct l7_bl (its numbers in the
 * server's sequence space, the response's end on the client's) and asks
 * here; the answers are decisions, never I/O.  Sequence numbers compare
 * wrap-safe.
 */
#ifndef _IP_VS_L7_CORE_BINDING_LIFE_H
#define _IP_VS_L7_CORE_BINDING_LIFE_H

#include "l7_types.h"

/*
 * A request lost this many times is answered 502.  A server that runs
 * short of workers closes its idle keep-alive connections in a burst
 * (Apache's event MPM does), and one such burst can take the next
 * connection a retry is bound to as well; HAProxy's "retries" defaults
 * to 3 for the same race.
 */
#define L7_BL_RETRIES	3

struct l7_bl {
	/* the server's sequence space */
	uint32_t req_end;	/* after the request (valid once req_done) */
	uint32_t acked;		/* the server's newest ACK */
	uint32_t snd_nxt;	/* the highest seq sent to it */
	uint32_t copy_end;	/* after the director's copy of the head */
	uint32_t passed;	/* the client's newest ACK passed on, mapped */
	uint32_t last_pkt;	/* where its newest response packet starts */
	/* the client's sequence space */
	uint32_t rsp_end;	/* after the response (valid once rsp_done) */
	uint32_t passed_c;	/* the client's newest ACK passed on */
	bool req_done;		/* the request's end is known */
	bool rsp_done;		/* the response's end is known */
	bool keep;		/* the response lets the connection go on */
	bool rsp_fin;		/* the server sent FIN */
	bool srv_rst;		/* the server sent RST */
	bool rsp_seen;		/* a response byte went to the client */
	bool rsp_resent;	/* a server resend went to the client */
	bool sack;		/* both ends speak SACK */
	uint8_t tries;		/* times the request was lost before */
	bool idempotent;	/* its method may be sent twice */
	bool under_way;		/* the connection's request under way */
	bool tunnel;		/* a 101 made it a tunnel */
};

/*
 * Whether the pooled connection goes back to the pool when the binding
 * is done: its server keeps it, and has all of the request and nothing
 * past it.
 */
bool l7_bl_keeps(const struct l7_bl *b);

/*
 * A client ACK up to @ack (client seq) reached the binding, the oldest
 * whose response the client did not have whole; @dup: it reported a
 * resend of the server's as a duplicate (a D-SACK).
 */
enum l7_bl_acked {
	L7_BL_NOT_DONE,		/* not all acknowledged, or not all framed */
	L7_BL_FINISH,		/* done with: finish it (l7_bl_finish()) */
	/*
	 * done with, but its server resent some of the response and the
	 * client's report of it as a duplicate follows its ACK: keep the
	 * binding aside a while for it (the server would otherwise count
	 * its probe a repair and shrink its window)
	 */
	L7_BL_HOLD_FOR_DUP,
};

enum l7_bl_acked l7_bl_client_acked(const struct l7_bl *b, uint32_t ack,
				    bool dup);

/* What finishing a binding does (l7_bl_finish()). */
struct l7_bl_end {
	bool keep;		/* the pooled connection goes back to the pool */
	bool reset;		/* else its server is reset first */
	/*
	 * its server hears now that the client has the response (it would
	 * probe for a lost tail, or the client reported a duplicate)
	 */
	bool ack_now;
	/*
	 * ... else it still owes that ACK: the next request's copy, or the
	 * pool's delayed ACK, says it
	 */
	bool ack_owed;
	/* a request whose response was not whole: its server's error */
	bool error;
};

/* Finish a binding whose response the client has whole; @dup as above. */
struct l7_bl_end l7_bl_finish(const struct l7_bl *b, bool dup);

/*
 * Abort it (the client or server went away, a framing error, a floor):
 * @closed_tunnel: a tunnel both ends closed, so the server has nothing
 * to be reset of.  Its server is reset unless it reset first; a request
 * whose response was not whole counts as an error of the server's.
 */
struct l7_bl_end l7_bl_abort(const struct l7_bl *b, bool closed_tunnel);

/* A RST from the server, at its exact seq (core/tcp_accept.c). */
enum l7_bl_rst {
	/* the client has the whole response: the binding is retired */
	L7_BL_RST_RETIRE,
	/* nothing of a response went out yet: the request may go again */
	L7_BL_RST_LOST,
	/* the client lacks bytes only this server had: reset the client */
	L7_BL_RST_CLIENT,
};

/* @snd_una: the oldest client seq of the director's not acknowledged. */
enum l7_bl_rst l7_bl_server_rst(const struct l7_bl *b, uint32_t snd_una);

/*
 * The response framer refused the server's bytes; @early: the server
 * closed before it answered, or sent bytes before it had the request.
 * True: the binding is lost (l7_bl_retry() says what becomes of the
 * request); false: the client's connection ends.
 */
bool l7_bl_refused_lost(const struct l7_bl *b, bool early);

/*
 * A lost binding's request goes again, on another pooled connection,
 * unseen by the client: at most L7_BL_RETRIES times, only for an
 * idempotent method, and only if the whole request was the director's
 * copy (a body that went through is gone).  Else the client gets 502.
 */
bool l7_bl_retry(const struct l7_bl *b);

/*
 * Whether the server has every client byte that reached it through the
 * splice: the body after the director's copy (which ends at @copy_end,
 * the server's seq), up to @body_end as far as its guard let it through,
 * acknowledged up to @acked.  The copy itself is the director's, resent
 * until acknowledged.  Until then the director acknowledges no client
 * byte after the body: a client told so would never send it again.
 */
bool l7_bl_body_acked(uint32_t body_end, uint32_t copy_end, uint32_t acked);

#endif /* _IP_VS_L7_CORE_BINDING_LIFE_H */
