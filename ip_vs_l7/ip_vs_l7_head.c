// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: a client connection's request-head buffer and its framer
 * (core/http_req.c).  In-order head bytes are copied into a bounded
 * buffer (max_head, head_mem_max), framed as they come, and consumed
 * when a head is bound; the pipelined heads behind it move to the
 * front.  Whether a framed head goes on now or waits for its turn is
 * the dispatcher's (ip_vs_l7_dispatch.c): the functions here only report
 * that a head is complete.  All under c->lock.
 */

#include <linux/skbuff.h>
#include <net/tcp.h>

#include "ip_vs_l7.h"

/*
 * Frame what ->head holds beyond what the framer has seen, while the
 * connection waits for a head.  True when one is complete, or refused
 * (->bad_status says the answer): the caller dispatches or holds it
 * (l7_head_ready()).
 */
bool l7_head_frame(struct l7_conn *c)
{
	enum l7_http_status st;
	size_t used;

	lockdep_assert_held(&c->lock);

	if (c->state != L7C_HEAD || c->framed == c->head_len)
		return false;
	st = l7_http_req_feed(&c->req, c->head + c->framed,
			      c->head_len - c->framed, &used);
	c->framed += used;
	if (st == L7_HTTP_ERROR)
		c->bad_status = l7_http_err_status(c->req.err);
	else if (st != L7_HTTP_DONE && c->head_len == l7_max_head)
		c->bad_status = 431;
	else if (st != L7_HTTP_DONE)
		return false;
	return true;
}

/* The framer starts over at ->head[0]: a new request begins there. */
void l7_head_restart(struct l7_conn *c)
{
	c->framed = 0;
	c->bad_status = 0;
	l7_http_req_init(&c->req, &(struct l7_http_limits){
		.max_head = l7_max_head,
		/* the director's copy may add fields (core/head_copy.h) */
		.max_headers = L7_HTTP_DEFAULT_MAX_HEADERS - L7_COPY_FIELDS,
	});
}

/* Frame ->head from its first byte again (it changed in front). */
bool l7_head_reframe(struct l7_conn *c)
{
	l7_head_restart(c);
	return l7_head_frame(c);
}

/*
 * Take in-order head bytes into the buffer, as far as there is room;
 * the buffer grows with what arrives.  What is not taken is not
 * acknowledged: the client sends it again.  True when a head is
 * complete (l7_head_frame()).
 */
bool l7_head_take(struct l7_conn *c, const struct sk_buff *skb, u32 off,
		  u32 len)
{
	u32 room = l7_max_head - c->head_len;

	lockdep_assert_held(&c->lock);

	if (len > room)
		len = room;	/* the rest comes again once there is room */
	if (!l7_head_reserve(c, c->head_len + len))
		len = min(len, c->head_cap - c->head_len);
	if (!len || skb_copy_bits(skb, off, c->head + c->head_len, len))
		return false;
	c->head_len += len;
	c->c_rcv_nxt += len;
	l7_conn_progress(c);
	return l7_head_frame(c);
}

/*
 * The head just bound went out with the buffered bytes of its body: the
 * rest of ->head (pipelined requests) moves to the front, for the framer
 * to start over.
 */
void l7_head_consume(struct l7_conn *c, u32 n)
{
	c->head_len -= n;
	memmove(c->head, c->head + n, c->head_len);
	l7_head_release(c);	/* if empty */
	c->c_seq0 += n;
	l7_head_restart(c);
}
