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
 * client's window cannot take a segment.  What becomes of a client
 * below a floor is the connection's events' (ip_vs_l7_events.c): this
 * only keeps the floors.  All under c->lock.
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

/* The ticks until @f runs out, brought into *@next; false if it has. */
static bool l7_floor_holds(struct l7_rate_floor *f,
			   const struct l7_rate_rule *r, unsigned long now,
			   unsigned long *next)
{
	u32 left = l7_rate_floor_left(f, r, now);

	if (!left)
		return false;
	if (left != L7_RATE_FLOOR_NONE && time_before(now + left, *next))
		*next = now + left;
	return true;
}

/*
 * L7_CLK_FLOOR: which floor the client fell below, if any; while it
 * holds to both, look again when the first bucket could run out.
 */
enum l7_floor_verdict l7_floor_due(struct l7_conn *c)
{
	struct l7_rate_rule body = l7_body_rule(), read = l7_read_rule();
	unsigned long now = jiffies;
	unsigned long next = now + max_t(u32, body.size, read.size);

	lockdep_assert_held(&c->lock);

	l7_floor_update(c);
	if (!l7_floor_holds(&c->body_floor, &body, now, &next))
		return L7_FLOOR_SLOW_BODY;
	if (!l7_floor_holds(&c->read_floor, &read, now, &next))
		return L7_FLOOR_SLOW_READER;
	/*
	 * The director may start to wait on the client between two looks
	 * (the response begins): look again within a quarter of a bucket.
	 */
	if (!list_empty(&c->bindings) && read.size &&
	    time_before(now + read.size / 4, next))
		next = now + max_t(u32, read.size / 4, 1);
	l7_conn_due_in(c, L7_CLK_FLOOR, max_t(long, next - now, 1));
	return L7_FLOOR_HOLDS;
}
