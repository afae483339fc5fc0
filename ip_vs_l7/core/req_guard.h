/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: what of a client's request body may go to the backend.
 *
 * The director frames a request body while its bytes pass through to
 * the backend, and decides from that framing where the request ends and
 * the next one - its own business - begins.  That is only sound if the
 * backend receives exactly the bytes the director framed.  A client is
 * not bound to send the same bytes twice: it may "retransmit" a range
 * with other bytes, and if the first copy never reached the backend
 * (dropped on the way, or by the director after framing, or by the
 * backend's own TCP), the second one is what the backend reads.  The
 * guard makes that harmless by construction:
 *
 *  - below ->lo the backend's bytes are the director's own copy of the
 *    head (and of whatever body came with it): client bytes there never
 *    go through;
 *  - new bytes are framed in order, and only as far as they can be
 *    forwarded; bytes the framer has to read (chunk-size lines, chunk
 *    ends, trailers), as opposed to bulk data it skips by count, are
 *    kept in a small log until the backend acknowledges them;
 *  - a resent range goes through only if the bytes the framer read there
 *    are the same as the first time.  Bulk body bytes may differ: they
 *    cannot move a boundary.  Read bytes that differ are an attack: the
 *    guard says reset.
 *  - nothing at or past the request's end goes through, and a FIN inside
 *    an unfinished body ends the connection (the request can never
 *    complete; the backend must not be left to read the rest as it may).
 *
 * When the log is full, framing stops (the segment is cut there, the
 * client resends the rest) until the backend acknowledges more: memory
 * per request is fixed, and a client feeding tiny chunks is slowed to
 * the backend's pace, not given more room.
 *
 * Everything is in the client's sequence space.  The caller reads the
 * payload through ->peek, so kernel buffers need not be linear.
 */
#ifndef _IP_VS_L7_CORE_REQ_GUARD_H
#define _IP_VS_L7_CORE_REQ_GUARD_H

#include "http_body.h"

#define L7_GUARD_LOG_BYTES	256	/* read bytes kept until acknowledged */
#define L7_GUARD_LOG_RUNS	16	/* ... in this many runs */
#define L7_GUARD_GAP		16	/* a skipped gap this short is logged */
#define L7_GUARD_PEEK		128	/* bytes read per framing step */

/* One run of logged bytes: [seq, seq + len) at bytes[off]. */
struct l7_guard_run {
	uint32_t seq;
	uint16_t off;
	uint16_t len;
};

/*
 * The read bytes kept until acknowledged.  Apart from the guard: a
 * request that came whole with its head (most do) reads no body bytes
 * and needs none, and its guard is then small.
 */
struct l7_guard_log {
	struct l7_guard_run run[L7_GUARD_LOG_RUNS];
	uint8_t bytes[L7_GUARD_LOG_BYTES];
};

struct l7_req_guard {
	struct l7_http_body body;	/* frames the body */
	uint32_t lo;		/* the director's copy ends here */
	uint32_t nxt;		/* framed up to here; once ->done, the end */
	uint32_t acked;		/* the backend has everything below */
	uint32_t wnd_end;	/* the backend's window ends here */
	bool wnd_known;		/* ->wnd_end is set */
	bool done;
	bool failed;		/* stays failed: every segment says reset */
	uint8_t nruns;
	uint16_t used;		/* bytes of ->log->bytes in use */
	struct l7_guard_log *log;	/* the caller's; NULL if done at init */
};

/*
 * Return a pointer to @n payload bytes from @off (@buf may be used to
 * gather them), or NULL if they cannot be read.
 */
typedef const uint8_t *(*l7_peek_fn)(const void *ctx, uint32_t off,
				     uint32_t n, uint8_t *buf);

/* A client segment, as far as the guard is concerned. */
struct l7_req_seg {
	uint32_t seq;		/* of the first payload byte */
	uint32_t len;		/* payload bytes */
	bool fin;
	l7_peek_fn peek;
	const void *ctx;
};

enum l7_guard_act {
	L7_GUARD_DROP,		/* nothing of it goes to the backend */
	L7_GUARD_FORWARD,	/* payload bytes [->skip, ->keep) go, no FIN */
	L7_GUARD_RESET,		/* the client broke the stream: reset */
};

enum l7_guard_why {
	L7_GUARD_OK = 0,
	L7_GUARD_OLD,		/* all of it below ->lo or acknowledged */
	L7_GUARD_EARLY,		/* out of order where bytes must be read */
	L7_GUARD_AFTER_END,	/* all of it at or past the request's end */
	L7_GUARD_HOLD,		/* log full or backend window closed */
	L7_GUARD_CHANGED,	/* resent bytes differ from the framed ones */
	L7_GUARD_BAD_BODY,	/* the framer refused the body */
	L7_GUARD_FIN_IN_BODY,	/* FIN before the body's end */
	L7_GUARD_UNREADABLE,	/* ->peek failed */
};

struct l7_guard_verdict {
	enum l7_guard_act act;
	enum l7_guard_why why;
	uint32_t skip;		/* FORWARD: payload bytes [skip, keep) go */
	uint32_t keep;
	bool ended;		/* this segment completed the request */
	bool resync;		/* DROP of old bytes: ACK them again */
};

/*
 * Start guarding a body whose first bytes (up to client seq @lo) went to
 * the backend as the director's copy; @body is the framer as it stands
 * after them.  @done: the copy held the whole request.  @log: room for
 * the read bytes, the caller's until the guard is done with; only a
 * request that is not @done needs it (without one it fails at once).
 */
void l7_req_guard_init(struct l7_req_guard *g, uint32_t lo,
		       const struct l7_http_body *body, bool done,
		       struct l7_guard_log *log);

/* Decide about one client segment carrying payload or FIN. */
struct l7_guard_verdict l7_req_guard_seg(struct l7_req_guard *g,
					 const struct l7_req_seg *s);

/* The backend acknowledged client bytes below @ack: forget their log. */
void l7_req_guard_acked(struct l7_req_guard *g, uint32_t ack);

/* The backend's receive window now ends at client seq @edge. */
void l7_req_guard_window(struct l7_req_guard *g, uint32_t edge);

const char *l7_guard_why_name(enum l7_guard_why why);

#endif /* _IP_VS_L7_CORE_REQ_GUARD_H */
