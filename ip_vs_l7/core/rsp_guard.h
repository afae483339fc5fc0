/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: what of a backend's segment the director forwards to
 * the client, and where the response ends.
 *
 * The counterpart of req_guard.h for the server-to-client direction of
 * a binding.  The director frames the response while it passes, to know
 * where it ends: the next response on the client connection comes from
 * another pooled connection and is mapped right after that end.  So the
 * client may get exactly the bytes of this response, never one past its
 * end; bytes after the end are not HTTP (reset), and bytes the framer
 * would have to read but cannot yet (out of order, before a head or a
 * chunk-size line) are dropped for the server to resend - bulk body
 * bytes, skippable by count, may pass out of order.
 *
 * It also follows the backend's TCP position (its snd_nxt, as far as the
 * director saw its in-order segments) so that a backend RST counts only
 * at exactly that seq (RFC 5961); the caller supplies the window.
 *
 * A server's "Connection" field is about the pooled connection, not the
 * client's: where the client's connection goes on (->cloak), each such
 * field name on its way is overwritten with L7_CLOAKED_NAME, of the same
 * length, so no sequence number moves - in every segment that carries a
 * byte of it, resends included.  A name whose bytes all went out before
 * it was complete cannot be hidden (->cloak_missed): the caller then
 * closes the client's connection after the response, as the client will.
 *
 * For an HTTP/1.0 client that asked for keep-alive (rsp_head.h) the guard
 * can take the response head instead (l7_rsp_guard_take()): its in-order
 * bytes go into a buffer, up to L7_RSP_HEAD_MAX, and the verdicts say
 * how many of a segment's first bytes were taken (->skip: the caller
 * acknowledges them to the server and cuts them) and when the taking is
 * over (->took: the caller sends its copy).  A head that came whole in
 * one segment and keeps the client as it is passes as without taking;
 * one longer than L7_RSP_HEAD_MAX passes from there on, and the caller
 * closes the client's connection after the response (->take_over).
 *
 * Backends are trusted to speak HTTP, not to be correct: whatever a
 * backend sends ends in a verdict, never in a state that waits forever.
 * Everything here is in the backend's sequence space.
 */
#ifndef _IP_VS_L7_CORE_RSP_GUARD_H
#define _IP_VS_L7_CORE_RSP_GUARD_H

#include "http_resp.h"
#include "req_guard.h"	/* l7_peek_fn */
#include "rsp_head.h"
#include "tcp_guard.h"

/*
 * As long as "Connection", and different from it (in any case) at every
 * position: overwriting any part of the name is enough to hide it.
 */
#define L7_CLOAKED_NAME	"X-Hop-Opts"

struct l7_rsp_guard {
	struct l7_http_resp resp;	/* frames the response */
	uint32_t start;		/* the response's first byte */
	uint32_t fed;		/* framed up to here; once ->done, the end */
	uint32_t rcv_nxt;	/* after the backend's in-order segments */
	bool done;		/* the response's end is known */
	bool fin;		/* the backend sent FIN */
	bool eof_end;		/* ... and that FIN ended the response */
	bool tunnel;		/* after a 101: no more HTTP, all passes */
	bool cloak;		/* hide the server's Connection fields */
	bool cloak_missed;	/* one went out before it was complete */
	uint8_t cloak_seen;	/* names of resp.conn_name_at[] looked at */
	uint8_t *head;		/* taken head bytes, from ->start, or NULL */
	uint32_t taken;		/* bytes in ->head */
	bool take;		/* taking head bytes now */
	bool taken_whole;	/* ->head holds every head of the response */
	bool take_over;		/* the head was longer than ->head holds */
	bool take_close;	/* the client must hear close, not keep-alive */
	uint32_t asked;		/* the request's first byte, on the backend */
	bool asked_set;		/* ->asked is known (l7_rsp_guard_asked()) */
};

/*
 * Write @n bytes at payload offset @off of the segment being decided;
 * false if that cannot be done.
 */
typedef bool (*l7_poke_fn)(const void *ctx, uint32_t off, const uint8_t *p,
			   uint32_t n);

/* A backend segment, as far as the guard is concerned. */
struct l7_rsp_seg {
	uint32_t seq;		/* of the first payload byte */
	uint32_t len;		/* payload bytes */
	bool fin;
	bool has_ack;		/* the ACK flag: ->ack is the backend's */
	uint32_t ack;
	l7_peek_fn peek;
	l7_poke_fn poke;	/* with ->cloak */
	const void *ctx;
};

enum l7_rsp_act {
	L7_RSP_FORWARD,		/* to the client; without the FIN if ->strip_fin */
	L7_RSP_WAIT,		/* drop it: the backend sends it again */
	L7_RSP_UPGRADE,		/* a 101: the caller decides (else BAD) */
	L7_RSP_BAD,		/* not a response the director can frame */
};

struct l7_rsp_verdict {
	enum l7_rsp_act act;
	bool ended;		/* this segment completed the response */
	bool strip_fin;		/* the FIN is the backend's, not the client's */
	bool closed;		/* BAD: the backend closed before the end */
	bool unsolicited;	/* BAD: sent before the backend had a byte of
				 * the request: not its response
				 */
	bool took;		/* FORWARD: the taking ended, ->taken is final */
	uint32_t skip;		/* FORWARD: first payload bytes the guard took */
};

/*
 * Start framing the response to a request of @method at backend seq
 * @seq (where the pooled connection's receive side stands).  @cloak:
 * the client's connection goes on after it.
 */
void l7_rsp_guard_init(struct l7_rsp_guard *g, uint32_t seq,
		       enum l7_http_method method, bool cloak);

/*
 * The request went to the backend from its seq @first on.  A response
 * byte comes only after the backend had some of it, so a segment with
 * new bytes that does not acknowledge @first was sent before: bytes the
 * backend wrote past an earlier response's end (a CGI that wrote more
 * than its Content-Length), or with no request at all.  They are nobody's
 * response: the verdict is BAD, ->unsolicited.
 */
void l7_rsp_guard_asked(struct l7_rsp_guard *g, uint32_t first);

/*
 * Take the response head into @buf (L7_RSP_HEAD_MAX bytes) instead of
 * forwarding it, for a client that must hear close (@close: an HTTP/1.1
 * client that asked to close) or keep-alive (an HTTP/1.0 client that
 * asked for it); right after l7_rsp_guard_init().  A 101 is then BAD: no
 * tunnel starts from a head the director took.
 */
void l7_rsp_guard_take(struct l7_rsp_guard *g, uint8_t *buf, bool close);

/* Decide about one backend segment (not a RST) carrying payload or FIN. */
struct l7_rsp_verdict l7_rsp_guard_seg(struct l7_rsp_guard *g,
				       const struct l7_rsp_seg *s);

/* The caller took the 101: from now on everything passes as it comes. */
static inline void l7_rsp_guard_tunnel(struct l7_rsp_guard *g)
{
	g->tunnel = true;
}

/* Backend seq just after the head bytes the director took. */
static inline uint32_t l7_rsp_guard_taken_end(const struct l7_rsp_guard *g)
{
	return g->start + g->taken;
}

/* The response's end, once ->done: where the next one starts. */
static inline uint32_t l7_rsp_guard_end(const struct l7_rsp_guard *g)
{
	return g->fed;
}

#endif /* _IP_VS_L7_CORE_RSP_GUARD_H */
