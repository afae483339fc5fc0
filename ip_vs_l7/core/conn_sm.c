// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: a client connection's requests, one after the other
 * (conn_sm.h).
 */
#include "conn_sm.h"

/*
 * A client holds a pooled connection for each response it has not
 * acknowledged whole: one that pipelines and never reads would take one
 * per request, until no server had an idle one left for anybody else.
 */
static bool l7_csm_may_dispatch(const struct l7_csm *m)
{
	return !m->cur && m->bindings < m->max_pooled;
}

enum l7_csm_head l7_csm_head_ready(const struct l7_csm *m)
{
	return l7_csm_may_dispatch(m) ? L7_CSM_DISPATCH : L7_CSM_HOLD;
}

static struct l7_csm_bound l7_csm_answer(int status, const char *why)
{
	return (struct l7_csm_bound){
		.act = L7_CSM_BOUND_ANSWER,
		.status = status,
		.why = why,
	};
}

struct l7_csm_bound l7_csm_bound(struct l7_bind_result r, bool queued)
{
	struct l7_csm_bound wait = {
		.act = queued ? L7_CSM_BOUND_WAIT : L7_CSM_BOUND_QUEUE,
	};

	switch (r.res) {
	case L7_BIND_OK:
		break;
	case L7_BIND_NONE:
		return wait;
	case L7_BIND_NOMEM:
		return queued ? wait : l7_csm_answer(503, "no_memory");
	case L7_BIND_BAD_BODY:
		return l7_csm_answer(400, "bad_body");
	case L7_BIND_CAPPED:
		return l7_csm_answer(503, "source_capped");
	case L7_BIND_STATUS:
		return l7_csm_answer(r.status, "rule");
	case L7_BIND_QUEUE_FULL:
		return l7_csm_answer(503, "queue_full");
	}
	return (struct l7_csm_bound){ .act = L7_CSM_BOUND };
}

bool l7_csm_acked(const struct l7_csm *m, bool freed)
{
	return freed && m->state == L7C_HELD && l7_csm_may_dispatch(m);
}

/*
 * The request under way, its request framed to its end as @req_done
 * says, in @state: once its response is too, it is done with.  The
 * client is closed if it asked to be (a head it pipelined after is
 * void); else the bindings it has whole go, and then a held head goes
 * on - even after the client's FIN, which closes it only with nothing
 * held.  The client may have had the whole response before its request
 * ended (a server that answers before it reads the body): that pooled
 * connection goes now, not at the client's next ACK.
 */
static void l7_csm_end_cur(const struct l7_csm *m, bool req_done,
			   bool close_after, enum l7_conn_state state,
			   struct l7_csm_plan *p)
{
	if (!m->cur || !req_done || !m->cur_rsp_done)
		return;
	p->cur_done = true;
	if (close_after) {
		p->close = true;
		return;
	}
	p->finish_acked = true;
	if (state == L7C_HELD)
		p->dispatch_held = true;
	else if (m->c_fin)
		p->close_fin = true;
}

struct l7_csm_plan l7_csm_cur_end(const struct l7_csm *m)
{
	struct l7_csm_plan p = { 0 };

	l7_csm_end_cur(m, m->cur_req_done, m->cur_close_after, m->state, &p);
	return p;
}

/*
 * A server that ended its response and closed or reset before the
 * request's body was all there (Apache's 408 and 413, any early answer)
 * reads no more of it: the request ends where its body stands, and
 * nothing waits for a body that has nowhere to go.
 */
struct l7_csm_plan l7_csm_rsp_moved(const struct l7_csm *m)
{
	enum l7_conn_state state = m->state;
	bool close_after = m->cur_close_after;
	bool req_done = m->cur_req_done;
	struct l7_csm_plan p = { 0 };

	if (m->dead)
		return p;
	if (m->cur && m->cur_lost) {
		p.lost = true;
		return p;
	}
	if (m->cur && !req_done && m->cur_rsp_done &&
	    (m->cur_rsp_fin || m->cur_srv_rst)) {
		p.req_end = true;
		req_done = true;
		close_after = true;
		state = L7C_HEAD;	/* the request ended: a head is next */
	}
	l7_csm_end_cur(m, req_done, close_after, state, &p);
	/* a server that reset may have a binding the client has whole */
	p.finish_acked = true;
	return p;
}

enum l7_csm_late l7_csm_idle(const struct l7_csm *m)
{
	if (m->state == L7C_HEAD && !m->bindings)
		return L7_CSM_LATE_HEAD;
	return L7_CSM_LATE_END;
}

/*
 * While no response byte went out, the director answers 408 (the server
 * is reset, its connection retired); after, both ends are reset: the
 * client broke its request.
 */
enum l7_csm_late l7_csm_slow_body(const struct l7_csm *m)
{
	if (!m->cur || m->cur_rsp_seen)
		return L7_CSM_LATE_END;
	return L7_CSM_LATE_REPLY;
}

/*
 * A tunnel whose server closed after the client did ended in order:
 * nothing is missing on either side.
 */
bool l7_csm_upgrade(const struct l7_csm *m, bool on_cur)
{
	return on_cur && m->cur && m->cur_upgrade && !m->head_pending;
}

static bool l7_csm_tunnel_ended(const struct l7_csm *m)
{
	return m->state == L7C_TUNNEL && m->c_fin && m->cur && m->cur_rsp_fin;
}

bool l7_csm_tunnel_closed(const struct l7_csm *m)
{
	return l7_csm_tunnel_ended(m) && !m->dead;
}

bool l7_csm_end_resets(const struct l7_csm *m)
{
	return m->bindings && !m->reset && !m->handed_over &&
	       !l7_csm_tunnel_ended(m);
}

/* One more send of what is owed, within @max sends, or give up. */
static struct l7_csm_resend l7_csm_resend_within(unsigned int tries,
						 unsigned int max)
{
	struct l7_csm_resend r = { .tries = tries + 1 };

	if (r.tries > max)
		r.give_up = true;
	else
		r.send = true;
	return r;
}

struct l7_csm_resend l7_csm_reply_due(bool unacked, bool moving,
				      unsigned int tries)
{
	if (!unacked)
		return (struct l7_csm_resend){ .tries = tries };
	return l7_csm_resend_within(moving ? 0 : tries, L7_REPLY_TRIES);
}

struct l7_csm_resend l7_csm_req_copy_due(bool owed, unsigned int tries)
{
	if (!owed)
		return (struct l7_csm_resend){ .tries = tries };
	return l7_csm_resend_within(tries, L7_COPY_TRIES);
}

struct l7_csm_resend l7_csm_rsp_copy_due(bool pending, unsigned int tries)
{
	struct l7_csm_resend r = { .send = pending, .tries = tries };

	if (pending && tries < L7_COPY_BACKOFF_MAX)
		r.tries++;
	return r;
}

enum l7_csm_close l7_csm_head_late(bool partial)
{
	return partial ? L7_CSM_CLOSE_ANSWER : L7_CSM_CLOSE_QUIET;
}

enum l7_csm_close l7_csm_close_late(bool unacked)
{
	return unacked ? L7_CSM_CLOSE_RESET : L7_CSM_CLOSE_QUIET;
}

enum l7_csm_close l7_csm_queue_late(const struct l7_csm *m)
{
	return m->state == L7C_QUEUED ? L7_CSM_CLOSE_ANSWER : L7_CSM_CLOSE_NONE;
}
