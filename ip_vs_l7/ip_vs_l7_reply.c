// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the director's own answers to a client and the close of its
 * side - a canned 4xx/5xx with FIN, or a plain FIN after the last
 * response - resent on the connection's clock until the client has them,
 * and the deadlines that end a client that does not close in time.
 * A leaf of the connection machine: it writes segments and arms
 * deadlines, and calls nothing above it.  All under c->lock.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <net/tcp.h>

#include "ip_vs_l7.h"
#include "ip_vs_l7_trace.h"
#include "core/http_reply.h"

/* Answer with a canned response and FIN; the client's data is ignored. */
void l7_reply(struct l7_conn *c, int status, const char *why)
{
	lockdep_assert_held(&c->lock);

	c->reply = l7_http_reply(status, &c->reply_len);
	trace_l7_reply(c, status, why);
	l7_conn_closing(c);
	c->retries = 0;
	c->reply_seq = c->d_snd_nxt;
	l7_send_client(c, TCPHDR_PSH | TCPHDR_FIN, c->d_snd_nxt, c->reply,
		       c->reply_len);
	c->d_snd_nxt += c->reply_len + 1;
	l7_service_count(c->ls, bad_requests);
	l7_conn_due_in(c, L7_CLK_REPLY, L7_RTO);
}

/* Close our side after the last response: FIN, resent until acked. */
void l7_close_client(struct l7_conn *c)
{
	lockdep_assert_held(&c->lock);

	l7_conn_closing(c);
	c->reply = NULL;
	c->reply_len = 0;
	c->reply_seq = c->d_snd_nxt;
	c->retries = 0;
	l7_send_client(c, TCPHDR_FIN, c->d_snd_nxt, NULL, 0);
	c->d_snd_nxt++;
	l7_conn_due_in(c, L7_CLK_REPLY, L7_RTO);
}

/*
 * L7_CLK_REPLY: resend our reply (if any) and FIN until the client has
 * them, or reset it (core/conn_sm.c).  All acked, the client's FIN or
 * L7_CLK_CLOSE ends it.
 */
void l7_reply_due(struct l7_conn *c)
{
	bool moving = !list_empty(&c->bindings) &&
		      (u32)jiffies - c->clock.progress < L7_RTO * 8;
	struct l7_csm_resend r;

	lockdep_assert_held(&c->lock);

	r = l7_csm_reply_due(c->d_snd_una != c->d_snd_nxt, moving,
			     c->retries);
	c->retries = r.tries;
	if (r.give_up) {
		l7_send_client(c, TCPHDR_RST, c->d_snd_nxt, NULL, 0);
		c->dead = true;
	} else if (r.send) {
		l7_send_client(c, TCPHDR_PSH | TCPHDR_FIN, c->reply_seq,
			       c->reply, c->reply_len);
		l7_conn_due_in(c, L7_CLK_REPLY, L7_RTO << c->retries);
	}
}

/*
 * L7_CLK_CLOSE: the client did not finish closing in time: forgotten, or
 * reset when it lacks some of what we sent (core/conn_sm.c).
 */
void l7_close_late(struct l7_conn *c)
{
	lockdep_assert_held(&c->lock);

	if (l7_csm_close_late(c->d_snd_una != c->d_snd_nxt) ==
	    L7_CSM_CLOSE_RESET)
		l7_send_client(c, TCPHDR_RST, c->d_snd_nxt, NULL, 0);
	c->dead = true;
}

/*
 * L7_CLK_HEAD: nothing is under way and no complete head came within
 * head_timeout: 408, or a plain close (core/conn_sm.c).
 */
void l7_head_late(struct l7_conn *c)
{
	lockdep_assert_held(&c->lock);

	if (l7_csm_head_late(c->head_len) == L7_CSM_CLOSE_ANSWER)
		l7_reply(c, 408, "head_timeout");
	else
		l7_close_client(c);	/* idle between requests */
}
