// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the progress floors of a client connection (core/rate_floor.h).
 *
 * A request body must come at body_minrate bytes a second, a response
 * must be read at read_minrate, each allowed to fall behind by its
 * bucket (body_timeout, ack_timeout seconds) and no more: a client that
 * sends or acknowledges one byte now and then holds a pooled connection
 * for about as long as one that stopped, not for ever.  Only time the
 * director waits on the client counts: a body while its server has room
 * for it, a response while bytes of it are unacknowledged or the
 * client's window cannot take a segment.  All under c->lock.
 */

#include <net/tcp.h>

#include "ip_vs_l7.h"

static struct l7_rate_rule l7_body_rule(void)
{
	return (struct l7_rate_rule){
		.size = READ_ONCE(l7_body_timeout) * HZ,
		.minrate = READ_ONCE(l7_body_minrate),
		.hz = HZ,
	};
}

static struct l7_rate_rule l7_read_rule(void)
{
	return (struct l7_rate_rule){
		.size = READ_ONCE(l7_ack_timeout) * HZ,
		.minrate = READ_ONCE(l7_read_minrate),
		.hz = HZ,
	};
}

/* The director waits on the client's body: its server has room for it. */
static bool l7_floor_owes_body(const struct l7_conn *c)
{
	const struct l7_req_guard *g;

	if (c->state != L7C_BODY || !c->cur)
		return false;
	g = &c->cur->req_guard;
	return !g->wnd_known || before(g->nxt, g->wnd_end);
}

/*
 * The director waits on the client to read: response bytes it has not
 * acknowledged, or a window too small for one segment.
 */
static bool l7_floor_owes_read(const struct l7_conn *c)
{
	u32 wnd = l7_client_snd_wnd(c);

	return !list_empty(&c->bindings) &&
	       (c->d_snd_una != c->d_snd_nxt || wnd < c->c_mss);
}

/* A new connection: both buckets full. */
void l7_floor_init(struct l7_conn *c)
{
	struct l7_rate_rule body = l7_body_rule(), read = l7_read_rule();

	l7_rate_floor_init(&c->body_floor, &body, jiffies);
	l7_rate_floor_init(&c->read_floor, &read, jiffies);
}

/* A request with a body was bound: its body starts with a full bucket. */
void l7_floor_body_start(struct l7_conn *c)
{
	struct l7_rate_rule body = l7_body_rule();

	l7_rate_floor_init(&c->body_floor, &body, jiffies);
}

/* @n new body bytes came in order. */
void l7_floor_body_moved(struct l7_conn *c, u32 n)
{
	struct l7_rate_rule body = l7_body_rule();

	l7_rate_floor_moved(&c->body_floor, &body, jiffies, n);
}

/* The client acknowledged @n more response bytes. */
void l7_floor_read_moved(struct l7_conn *c, u32 n)
{
	struct l7_rate_rule read = l7_read_rule();

	l7_rate_floor_moved(&c->read_floor, &read, jiffies, n);
}

/*
 * After a segment either way, and in the timer: whether the director
 * waits on the client from now on.
 */
void l7_floor_update(struct l7_conn *c)
{
	unsigned long now = jiffies;

	l7_rate_floor_wait(&c->body_floor, now, l7_floor_owes_body(c));
	l7_rate_floor_wait(&c->read_floor, now, l7_floor_owes_read(c));
}

/*
 * The connection timer: L7_FLOOR_HELD while both floors hold, and in
 * *@next (brought forward only) when to look again; else the floor the
 * client fell below.
 */
enum l7_floor_verdict l7_floor_check(struct l7_conn *c, unsigned long *next)
{
	struct l7_rate_rule body = l7_body_rule(), read = l7_read_rule();
	unsigned long now = jiffies;
	u32 left;

	l7_floor_update(c);
	left = l7_rate_floor_left(&c->body_floor, &body, now);
	if (!left)
		return L7_FLOOR_BODY;
	if (left != L7_RATE_FLOOR_NONE && time_before(now + left, *next))
		*next = now + left;
	left = l7_rate_floor_left(&c->read_floor, &read, now);
	if (!left)
		return L7_FLOOR_READ;
	if (left != L7_RATE_FLOOR_NONE && time_before(now + left, *next))
		*next = now + left;
	/*
	 * The director may start to wait on the client between two looks
	 * (the response begins): look again within a quarter of a bucket.
	 */
	if (!list_empty(&c->bindings) && read.size &&
	    time_before(now + read.size / 4, *next))
		*next = now + max_t(u32, read.size / 4, 1);
	return L7_FLOOR_HELD;
}
