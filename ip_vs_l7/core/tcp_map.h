/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: the numbers of a splice.
 *
 * A client connection C (client <-> VIP) is spliced onto a pooled
 * connection B (director <-> backend) for one binding: one request and
 * its response.  The next request may be bound to another pooled
 * connection, so every number here belongs to a binding, not to a
 * connection.  Two byte streams cross the splice:
 *
 *   request:  client seq space  --req-->  director's seq space on B
 *   response: backend seq on B  --rsp-->  director's seq space on C
 *
 * An ACK travels against its stream, so it is mapped by the inverse of
 * the other direction's translation.  Everything is modulo 2^32.
 *
 * "Client-side" sequence space means the numbers the client sees: its own
 * seq for the request, the director's seq on C for the response.  The
 * ranges of a binding are kept there because that is the one space all
 * bindings of a client share, so bindings can be told apart by it.
 */
#ifndef _IP_VS_L7_CORE_TCP_MAP_H
#define _IP_VS_L7_CORE_TCP_MAP_H

#include "l7_types.h"
#include "tcp_opt.h"

/* ---- modular sequence arithmetic (RFC 1982, as the kernel's before()) ---- */

/* a comes before b: less than 2^31 behind it */
static inline bool l7_seq_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static inline bool l7_seq_after(uint32_t a, uint32_t b)
{
	return l7_seq_before(b, a);
}

/* lo <= x <= hi, walking forward from lo */
static inline bool l7_seq_between(uint32_t x, uint32_t lo, uint32_t hi)
{
	return hi - lo >= x - lo;
}

/* ---- one translation: x -> to + (x - from) ---- */

struct l7_seq_xlate {
	uint32_t from;
	uint32_t to;
};

/* The translation that maps anchor @from onto anchor @to. */
static inline struct l7_seq_xlate l7_seq_xlate_make(uint32_t from,
						    uint32_t to)
{
	return (struct l7_seq_xlate){ .from = from, .to = to };
}

static inline uint32_t l7_seq_fwd(const struct l7_seq_xlate *x, uint32_t v)
{
	return x->to + (v - x->from);
}

static inline uint32_t l7_seq_inv(const struct l7_seq_xlate *x, uint32_t v)
{
	return x->from + (v - x->to);
}

/* ---- the part of a client-side sequence space a binding covers ---- */

struct l7_seq_range {
	uint32_t start;		/* first byte of the binding */
	uint32_t end;		/* one past its last byte, once closed */
	bool closed;
};

enum l7_where {
	L7_EARLIER = -1,	/* before start: an earlier binding's */
	L7_HERE = 0,
	L7_LATER = 1,		/* after a closed end: a later binding's */
};

/*
 * Where a sequence point (a seq, or an ACK value) lies.  Both ends count
 * as HERE: an ACK of exactly start acknowledges the previous binding
 * whole, and one of exactly end this one.  A boundary value thus belongs
 * to two bindings; callers look the newest binding up first.
 */
enum l7_where l7_range_where(const struct l7_seq_range *r, uint32_t x);

void l7_range_close(struct l7_seq_range *r, uint32_t end);

/* Clip [*s, *e) to the range; false if nothing (or a bad block) is left. */
bool l7_range_clip(const struct l7_seq_range *r, uint32_t *s, uint32_t *e);

/*
 * Where a new binding's response starts on the client's connection: after
 * everything sent (@snd_nxt), and never inside the range of the response
 * before (@prev), which may end past what went out - a segment its guard
 * framed to the end and that was then dropped (no memory to cut it, or
 * it straddled its binding's start).  Its server sends those bytes again,
 * through its own map; the ranges never overlap.
 */
uint32_t l7_rsp_start(uint32_t snd_nxt, const struct l7_seq_range *prev);

/* ---- timestamps ---- */

/*
 * Offset to add to a peer's TSvals for a new binding.  @tsval is the
 * peer's newest TSval, @floor the smallest TSval the receiver must see
 * (the last one it saw on that connection, plus 1).  @prev, if not NULL,
 * is the offset the same pair of connections used in the binding just
 * before, with nothing else sent on the receiver's connection since.
 */
uint32_t l7_ts_offset(uint32_t tsval, uint32_t floor, const uint32_t *prev);

/* Remember @ts in *last if newer: how floors are kept. */
void l7_ts_note(uint32_t *last, uint32_t ts);

/* ---- windows ---- */

#define L7_WS_NONE	(-1)	/* window scaling not negotiated */

/* Convert a window field sent with @from_shift to one read with @to_shift. */
uint16_t l7_win_rescale(uint16_t win, int from_shift, int to_shift);

/* A window field read with @shift (L7_WS_NONE: not scaled), in bytes. */
static inline uint32_t l7_win_bytes(uint16_t win, int shift)
{
	return (uint32_t)win << (shift > 0 ? shift : 0);
}

struct l7_win_map {
	int8_t from;	/* shift of the sender's window field */
	int8_t to;	/* shift the receiver applies to ours */
};

/* ---- a binding ---- */

struct l7_binding_params {
	uint32_t c_seq;		/* client seq of the first request byte */
	uint32_t b_seq;		/* director's snd_nxt on B: where it goes */
	uint32_t b_rcv;		/* director's rcv_nxt on B: backend's next */
	uint32_t c_snd;		/* director's snd_nxt on C: where that goes */
	uint32_t c_tsval;	/* client's newest TSval, or the stand-in's */
	uint32_t b_ts_floor;	/* last TSval the backend saw on B, + 1 */
	uint32_t b_tsval;	/* backend's newest TSval on B */
	uint32_t c_ts_floor;	/* last TSval the client saw on C, + 1 */
	int8_t c_wscale;	/* client's shift for its own window field */
	int8_t cd_wscale;	/* shift the client applies to director's */
	int8_t b_wscale;	/* backend's shift for its own window field */
	int8_t bd_wscale;	/* shift the backend applies to director's */
	bool c_ts;		/* timestamps negotiated on C */
	bool b_ts;		/* ... on B */
	bool c_sack;		/* SACK negotiated on C */
	bool b_sack;		/* ... on B */
};

struct l7_binding_map {
	struct l7_seq_xlate req;	/* client seq -> director's seq on B */
	struct l7_seq_xlate rsp;	/* backend seq -> director's seq on C */
	struct l7_seq_range req_range;	/* in client seq space */
	struct l7_seq_range rsp_range;	/* in director's seq space on C */
	uint32_t ts_c2b;		/* added to client TSvals */
	uint32_t ts_b2c;		/* added to backend TSvals */
	struct l7_win_map win_c2b;
	struct l7_win_map win_b2c;
	bool c_ts;
	bool b_ts;
	bool c_sack;
	bool b_sack;
};

/*
 * Set up a binding.  @prev is the binding just before it if that one
 * joined the same C and B and nothing else used B in between; otherwise
 * NULL.  Both ranges start open; the caller closes each with
 * l7_range_close() once the request or response is known to end, so that
 * later bindings can tell this one's stragglers from their own.  The
 * backend's TSvals map to the client only when both connections
 * negotiated timestamps; the client's map to the backend whenever B did:
 * without timestamps on C, @p->c_tsval is a clock of the director's
 * standing in for the client's (l7_map_c2b() says why).
 */
void l7_binding_init(struct l7_binding_map *m,
		     const struct l7_binding_params *p,
		     const struct l7_binding_map *prev);

/*
 * The director took the response's first bytes, up to backend seq
 * @b_end, and sends the client @copy_len bytes of its own instead, from
 * where the response's range starts (rsp_head.h).  The rest of the
 * response maps right after the copy: one offset, copy_len - taken, as
 * for a request's copy.  The range then starts after the copy, which is
 * the director's: a client ACK or SACK block below that names none of
 * the server's bytes (an ACK is pinned to the head's end, which the
 * director acknowledged to the server itself), and a server resend of
 * the head maps below it and is not forwarded.
 */
void l7_binding_rsp_copy(struct l7_binding_map *m, uint32_t b_end,
			 uint32_t copy_len);

/* The numbers of one segment, host order, read from its headers. */
struct l7_tcp_seg {
	uint32_t seq;
	uint32_t ack;
	uint32_t len;		/* payload bytes, +1 for SYN or FIN */
	uint32_t tsval;
	uint32_t tsecr;
	uint16_t win;		/* raw window field */
	bool ts;		/* carries the timestamp option */
	bool ts_room;		/* a timestamp option would fit in its header */
};

/* What the caller has to do besides writing the numbers back. */
#define L7_SEG_STRIP_TS		0x01	/* receiver has no TS: NOP it out */
#define L7_SEG_SEQ_OUTSIDE	0x02	/* data not (all) in this binding */
#define L7_SEG_ACK_EARLIER	0x04	/* ACK raised to the binding start */
#define L7_SEG_ACK_LATER	0x08	/* ACK lowered to the binding end */
#define L7_SEG_FOREIGN		0x10	/* names nothing it could: drop it */
#define L7_SEG_ADD_TS		0x20	/* sender has no TS, receiver has: add */

/* [lo, hi] of a sequence space, modulo 2^32 */
struct l7_seq_span {
	uint32_t lo;
	uint32_t hi;
};

/*
 * What the connection a client segment came in on accepts, in client-side
 * space: an ACK in ->ack, a pure ACK's seq in ->seq (l7_tcp_accept_bounds()
 * in tcp_accept.h makes them from the connection's state).
 */
struct l7_seg_bounds {
	struct l7_seq_span ack;
	struct l7_seq_span seq;
};

/*
 * Map a client->backend segment in place; returns L7_SEG_* flags.  An
 * ACK, or a pure ACK's seq, outside @ok is L7_SEG_FOREIGN.  Inside @ok
 * but outside the binding it is pinned to the binding's nearer end: the
 * connection vouches for it (an ACK of an earlier or later binding's
 * response, a pure ACK sent after the next request began).
 *
 * A pure ACK from a client without timestamps, to a backend with them,
 * gets one (L7_SEG_ADD_TS) where it fits: @s->tsval the stand-in clock,
 * @s->tsecr the backend's newest TSval, as the caller set them.  Without
 * it the server takes no RTT sample from an ACK that covers a resend
 * (Karn), and only a sample resets its retransmission timer's backoff:
 * under loss the timer doubles hole after hole to tens of seconds.
 */
unsigned int l7_map_c2b(const struct l7_binding_map *m, struct l7_tcp_seg *s,
			const struct l7_seg_bounds *ok);

/*
 * Map a backend->client segment in place; returns L7_SEG_* flags.  The
 * binding is all the director sent on the pooled connection since it
 * began: an ACK past the request's end, or a pure ACK's seq past the
 * response's end and the server's FIN, is L7_SEG_FOREIGN.
 */
unsigned int l7_map_b2c(const struct l7_binding_map *m, struct l7_tcp_seg *s);

/*
 * Translate the SACK blocks of a client->backend (c2b) or backend->client
 * (b2c) segment in place.  Returns how many are left, 0 meaning "strip
 * the option"; hand the result to l7_tcp_opts_set_sack().
 */
unsigned int l7_sack_c2b(const struct l7_binding_map *m,
			 struct l7_tcp_sack_block *blk, unsigned int n);
unsigned int l7_sack_b2c(const struct l7_binding_map *m,
			 struct l7_tcp_sack_block *blk, unsigned int n);

/*
 * The duplicate a segment acknowledging up to @ack reports (RFC 2883 4):
 * its first SACK block when that starts below the ACK or lies within the
 * second block, as a Linux sender reads it (tcp_check_dsack()).
 * Returns false, leaving @dup alone, when it reports none.
 */
bool l7_sack_dup(const struct l7_tcp_sack_block *blk, unsigned int n,
		 uint32_t ack, struct l7_tcp_sack_block *dup);

#endif /* _IP_VS_L7_CORE_TCP_MAP_H */
