/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: a client connection's requests, one after the other.
 *
 * A client connection carries requests in order.  Each framed head is
 * sent on (bound to a pooled connection: the request under way) or held
 * until the one before it is done; a request is done once its request
 * and response are both framed to their end, and then the connection
 * closes if the client asked for it, or goes on with the next head.  A
 * server may lose the request under way (l7_bl_retry() says whether it
 * goes again), or end its response early, before the request's body is
 * all there; a deadline may end the connection.  core/binding_life.h
 * decides each binding's own life; this decides what the connection
 * does between them.
 *
 * The glue reads the connection into struct l7_csm and asks here; the
 * answers are plans, never I/O.  tests/fuzz/fuzz_conn_machine.c drives a
 * model connection - pipelined heads, bindings, servers that answer,
 * close, reset or lose the request, a client that ACKs, closes or goes
 * quiet - through these decisions and the binding's, and checks what a
 * client must see: every request answered once, in order.
 */
#ifndef _IP_VS_L7_CORE_CONN_SM_H
#define _IP_VS_L7_CORE_CONN_SM_H

#include "client_seg.h"

struct l7_csm {
	enum l7_conn_state state;
	unsigned int bindings;	/* pooled connections the client holds */
	unsigned int max_pooled; /* client_max_pooled */
	bool c_fin;		/* the client's FIN is in */
	bool dead;		/* the connection ends at this event's end */
	/* the request under way (cur), if any */
	bool cur;
	bool cur_req_done;	/* its request is framed to its end */
	bool cur_rsp_done;	/* its response is framed to its end */
	bool cur_rsp_seen;	/* a byte of its response went out */
	bool cur_close_after;	/* the client asked to close after it */
	bool cur_lost;		/* its server let the request go */
	bool cur_rsp_fin;	/* its server sent FIN */
	bool cur_srv_rst;	/* its server sent RST */
	bool cur_upgrade;	/* the request asked to switch protocols */
	bool head_pending;	/* client bytes buffered after it */
	bool reset;		/* a RST went or came: nothing more to say */
	/*
	 * Another director took the connection over (a newer record of
	 * it, side by side): the client is that director's now, and has
	 * everything this one sent - the record it was adopted from says
	 * so.  Not a word from here.
	 */
	bool handed_over;
};

/* A framed (or refused) head: send it on now, or hold it. */
enum l7_csm_head {
	L7_CSM_DISPATCH,	/* bind it, queue it or answer it */
	/* the request before it is under way, or the client holds
	 * client_max_pooled pooled connections
	 */
	L7_CSM_HOLD,
};

enum l7_csm_head l7_csm_head_ready(const struct l7_csm *m);

/* What the bind of a dispatched head found. */
enum l7_bind_res {
	L7_BIND_OK,		/* bound: the request is under way */
	L7_BIND_NONE,		/* no idle pooled connection, or no room */
	L7_BIND_NOMEM,		/* no memory for the binding */
	L7_BIND_BAD_BODY,	/* a body it cannot frame came with the head */
	L7_BIND_CAPPED,		/* the client's address holds source_max_pooled */
	L7_BIND_STATUS,		/* a content rule's status, or a head it
				 * cannot read
				 */
	L7_BIND_QUEUE_FULL,	/* none, and the service's queue is full */
};

/* A bind's result, and the status of L7_BIND_STATUS: one value. */
struct l7_bind_result {
	enum l7_bind_res res;
	int status;
};

enum l7_csm_bound_act {
	L7_CSM_BOUND,		/* under way (or nothing left to do) */
	L7_CSM_BOUND_QUEUE,	/* into the service's queue (L7_CLK_QUEUE) */
	L7_CSM_BOUND_WAIT,	/* in the queue: wait on there */
	L7_CSM_BOUND_ANSWER,	/* the director answers @status */
};

struct l7_csm_bound {
	enum l7_csm_bound_act act;
	int status;
	const char *why;	/* the answer's reason, for the trace */
};

/*
 * A head's bind found @r (with a rule's status); @queued: the request
 * waits in the service's queue already.  One no pooled connection was
 * idle for waits in the queue, bounded in length (503) and in time
 * (queue_timeout).  No memory: at the head's first try it is answered
 * 503, as nothing would make it try again; queued, it waits on for the
 * next kick.  A body it cannot frame is answered 400, a client address
 * over source_max_pooled 503, a rule's status as it says.
 */
struct l7_csm_bound l7_csm_bound(struct l7_bind_result r, bool queued);

/*
 * After a server segment on the request under way, or a body that
 * ended: what becomes of the request and the connection.
 */
struct l7_csm_plan {
	/*
	 * In this order.  @lost: the request was lost; it goes again or is
	 * answered 502 (l7_bl_retry()), and nothing else of the plan
	 * applies.  @req_end: its server answered whole and closed before
	 * the body ended; the request ends where its body stands, and the
	 * client is closed after it.  @close: the client asked to close;
	 * its pipelined heads are void.  @dispatch_held: a held head goes
	 * on, if it still may (l7_csm_acked()).
	 */
	bool lost;
	bool req_end;
	bool cur_done;		/* the request under way is done with */
	bool close;		/* close the client now */
	bool finish_acked;	/* bindings the client has whole go */
	bool dispatch_held;
	bool close_fin;		/* the client's FIN came: close it too */
};

struct l7_csm_plan l7_csm_rsp_moved(const struct l7_csm *m);

/* The request under way may have ended (its body, or a response). */
struct l7_csm_plan l7_csm_cur_end(const struct l7_csm *m);

/* The client's ACK freed bindings (@freed): a held head may go on. */
bool l7_csm_acked(const struct l7_csm *m, bool freed);

/* A deadline that ends the connection, or answers it first. */
enum l7_csm_late {
	L7_CSM_LATE_HEAD,	/* nothing under way: as a late head (408) */
	L7_CSM_LATE_END,	/* the connection ends now */
	L7_CSM_LATE_REPLY,	/* abort the binding, the director answers */
};

/* idle_timeout: no progress either way. */
enum l7_csm_late l7_csm_idle(const struct l7_csm *m);

/* body_minrate: the client's request body fell below its floor. */
enum l7_csm_late l7_csm_slow_body(const struct l7_csm *m);

/*
 * A 101 on the request under way (@on_cur; a binding before it has no
 * business switching): no more HTTP there, both ways pass as they come.
 * Only for a request that asked for it, with nothing pipelined behind
 * it; the glue then holds the service to its tunnel cap.
 */
bool l7_csm_upgrade(const struct l7_csm *m, bool on_cur);

/* Both ends sent FIN through a tunnel: it lingers for their last ACKs. */
bool l7_csm_tunnel_closed(const struct l7_csm *m);

/*
 * The connection is torn down with bindings left: the client did not
 * get all, and is reset - unless it was reset already, handed over to
 * another director, or a tunnel that both ends closed in order.
 */
bool l7_csm_end_resets(const struct l7_csm *m);

/* ---- the director's own segments, sent again until acknowledged ---- */

#define L7_REPLY_TRIES		6	/* its reply and FIN; then a RST */
#define L7_COPY_TRIES		8	/* a request's copy; then it ends */
#define L7_COPY_BACKOFF_MAX	6	/* response head copies: RTO << 6 apart */

/*
 * A resend deadline: send again (@send) and arm the next one RTO <<
 * @tries later, or give up (@give_up); neither: nothing is owed.
 */
struct l7_csm_resend {
	bool send;
	bool give_up;
	unsigned int tries;
};

/*
 * L7_CLK_REPLY: the director's reply and FIN were not all acknowledged
 * (@unacked) after @tries resends.  A response still on its way keeps
 * the FIN behind it, and while that moves (@moving) the tries start
 * over; past L7_REPLY_TRIES the client is reset.
 */
struct l7_csm_resend l7_csm_reply_due(bool unacked, bool moving,
				      unsigned int tries);

/*
 * L7_CLK_REQ_COPY: the server of the request under way has not
 * acknowledged the director's copy of its head (@owed; false once it
 * has, or with nothing under way) after @tries resends.  Past
 * L7_COPY_TRIES the connection ends: the head was lost.
 */
struct l7_csm_resend l7_csm_req_copy_due(bool owed, unsigned int tries);

/*
 * L7_CLK_RSP_COPY: response heads of the director's that the client
 * lacks (@pending), sent again ever further apart, up to RTO <<
 * L7_COPY_BACKOFF_MAX, never given up: a client that is gone falls
 * below read_minrate or reaches idle_timeout.
 */
struct l7_csm_resend l7_csm_rsp_copy_due(bool pending, unsigned int tries);

/* What a late deadline that closes does. */
enum l7_csm_close {
	L7_CSM_CLOSE_QUIET,	/* close (FIN), or forget one that has all */
	L7_CSM_CLOSE_ANSWER,	/* answer first (408, 503) */
	L7_CSM_CLOSE_RESET,	/* reset the client: it lacks what we sent */
	L7_CSM_CLOSE_NONE,	/* nothing to do any more */
};

/*
 * L7_CLK_HEAD: nothing is under way and no complete head came within
 * head_timeout.  Part of one (@partial) gets 408; none, a plain close.
 */
enum l7_csm_close l7_csm_head_late(bool partial);

/*
 * L7_CLK_CLOSE: the director closed, nothing of a response is left, and
 * the client did not finish closing in time.  One that has all we sent
 * (!@unacked) is forgotten (FIN-WAIT ends here); else it is reset.
 */
enum l7_csm_close l7_csm_close_late(bool unacked);

/* L7_CLK_QUEUE: a request still queued (@m->state) gets 503. */
enum l7_csm_close l7_csm_queue_late(const struct l7_csm *m);

#endif /* _IP_VS_L7_CORE_CONN_SM_H */
