/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: the one clock of a client connection.
 *
 * A client connection waits on many things - a request head, a pooled
 * connection, an ACK of a copy, the client's reading, its FIN - and each
 * wait needs a bound, or a client that stops holds what it has (a pooled
 * connection above all) for ever.  Each kind of wait has a deadline of
 * its own here, with one meaning whatever state the connection is in:
 * HEAD is always "the client's next request head is late", never also
 * "the server went quiet".  The connection's timer is set at the earliest
 * armed deadline and, when it fires, acts on each one that is due, in the
 * order of enum l7_clock_slot.
 *
 * Retransmission deadlines (ACK to REPLY) are armed and stopped by the
 * events that make them, one to one.  The bounds on holding (HEAD to
 * CLOSE) and SYNC follow from what the connection is doing, through
 * l7_clock_settle(), which the glue calls after every event: a deadline
 * starts when its wait begins and stops when the wait ends, and no
 * event can leave a wait unbounded.  SYNC is armed once per request
 * boundary, sync_idle after it began, and stopped when the boundary
 * ends: a connection that stays idle is checkpointed once, a busy one
 * (its next request sooner) never.  BUSY is armed as a request of a
 * connection with no record begins, sync_idle after, and stopped if the
 * request ends or a record goes first: a connection whose first request
 * lasts gets one busy record.  IDLE is always armed: whatever a
 * connection does, it ends after idle_timeout (tunnel_timeout in a
 * tunnel) without progress.
 *
 * Ticks are the caller's (jiffies), compared wrap-safe as 32-bit
 * differences; no span may reach 2^31 ticks.
 */
#ifndef _IP_VS_L7_CORE_CONN_CLOCK_H
#define _IP_VS_L7_CORE_CONN_CLOCK_H

#include "l7_types.h"

enum l7_clock_slot {
	L7_CLK_END,		/* the connection was told to end */
	L7_CLK_ACK,		/* an ACK of a request head is owed */
	L7_CLK_RSP_COPY,	/* resend a response head the client lacks */
	L7_CLK_DUP_WAIT,	/* stop waiting for a D-SACK of a resend */
	L7_CLK_REQ_COPY,	/* resend the request copy its server lacks */
	L7_CLK_REPLY,		/* resend the director's reply and FIN */
	L7_CLK_HEAD,		/* head_timeout: the next head is late */
	L7_CLK_QUEUE,		/* queue_timeout: no pooled connection came */
	L7_CLK_FLOOR,		/* look at the progress floors */
	L7_CLK_CLOSE,		/* the client had its time to close too */
	L7_CLK_SYNC,		/* sync_idle at a boundary: checkpoint it */
	L7_CLK_BUSY,		/* sync_idle into an unrecorded request */
	L7_CLK_IDLE,		/* idle_timeout: no progress at all */
	L7_CLK_NR
};

/* What the connection is doing, as l7_clock_settle() reads it. */
struct l7_clock_facts {
	bool bound;		/* a request or response under way */
	bool queued;		/* a head waits for a pooled connection */
	bool tunnel;		/* its current binding is a tunnel */
	bool closing;		/* the director closed its side */
	/*
	 * between two requests, everything either way acknowledged: what a
	 * checkpoint can carry (conn_ckpt.h)
	 */
	bool boundary;
	/*
	 * a request under way (bound or queued) of a connection the backup
	 * has no record of: a busy record, if it lasts (conn_ckpt.h)
	 */
	bool unrecorded;
};

/* The spans, in ticks; 0 for FLOOR's look means no floors. */
struct l7_clock_rule {
	uint32_t head;		/* head_timeout */
	uint32_t queue;		/* queue_timeout */
	uint32_t idle;		/* idle_timeout */
	uint32_t tunnel;	/* tunnel_timeout */
	uint32_t close;		/* how long the client has to close */
	uint32_t floor_look;	/* first look at the floors once bound */
	uint32_t sync;		/* sync_idle; 0: no checkpoints */
};

struct l7_clock {
	uint32_t at[L7_CLK_NR];
	uint16_t armed;		/* bit per slot */
	uint32_t progress;	/* when progress was last seen */
	uint32_t idle_span;	/* IDLE's: idle, or tunnel in a tunnel */
	bool moved;		/* the earliest deadline may have moved */
	struct l7_clock_facts was;	/* at the last settle */
};

/* A new connection at @now: only IDLE is armed; settle starts the rest. */
void l7_clock_init(struct l7_clock *k, const struct l7_clock_rule *r,
		   uint32_t now);

static inline bool l7_clock_armed(const struct l7_clock *k,
				  enum l7_clock_slot s)
{
	return k->armed & (1u << s);
}

/* Arm @s for @at, replacing what it had. */
void l7_clock_set(struct l7_clock *k, enum l7_clock_slot s, uint32_t at);

/* Stop @s; if it was the earliest, the timer may go later. */
void l7_clock_stop(struct l7_clock *k, enum l7_clock_slot s);

/*
 * Progress (new bytes either way, an ACK of new bytes) at @now pushes
 * IDLE back by the current idle span.  Only ever later: the timer need
 * not move.
 */
void l7_clock_progress(struct l7_clock *k, uint32_t now);

/*
 * After an event: start the deadlines of the waits that began (@f
 * against the facts of the last settle), stop those of the waits that
 * ended.
 */
void l7_clock_settle(struct l7_clock *k, const struct l7_clock_facts *f,
		     const struct l7_clock_rule *r, uint32_t now);

/*
 * Where the connection's timer goes, once ->moved says the earliest
 * deadline may have changed: to that deadline (*@at, true) if the timer
 * is off (@on false), due later, or due more than @slack ticks sooner -
 * a deadline it was set for stopped or moved on.  An early tick would
 * wake an idle CPU for nothing, which costs more than moving the timer
 * (a request stops the ACK and copy deadlines it set, most often before
 * they fall due).  Within @slack the timer stays: IDLE moves on with
 * every bit of progress.  False: leave the timer as it is.
 */
bool l7_clock_rearm(const struct l7_clock *k, bool on, uint32_t timer,
		    uint32_t slack, uint32_t *at);

/* Whether @s is armed and due at @now. */
bool l7_clock_due(const struct l7_clock *k, enum l7_clock_slot s,
		  uint32_t now);

/* The earliest armed deadline in *@at; false when none is armed. */
bool l7_clock_next(const struct l7_clock *k, uint32_t *at);

#endif /* _IP_VS_L7_CORE_CONN_CLOCK_H */
