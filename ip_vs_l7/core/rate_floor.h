/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: a progress floor - how far a peer may fall behind a
 * minimum rate before the director gives up on it.
 *
 * An idle timer alone is no bound: a client that sends one body byte,
 * or acknowledges one response byte, every little while keeps it from
 * firing forever, and with it the pooled connection its request holds.
 * So the director keeps, per connection and for whatever it waits for
 * (a request body, the client's reading of a response), a bucket of
 * time: it drains while the director waits on the peer, and every byte
 * the peer moves refills it by 1 / minrate seconds, up to its size.  An
 * empty bucket means the peer went below the floor for as long as the
 * bucket holds.  A peer at or above minrate never empties it; one that
 * stops empties it in exactly the bucket's size (what the plain idle
 * timer gave); a trickle empties it a little later.
 *
 * Apache's mod_reqtimeout "body=10,minrate=500" is the model for a
 * request body; the bucket's cap keeps a fast start from buying an
 * unbounded stall after it.  Time is in the caller's ticks, wrap-safe
 * (32-bit differences, as jiffies are compared).
 */
#ifndef _IP_VS_L7_CORE_RATE_FLOOR_H
#define _IP_VS_L7_CORE_RATE_FLOOR_H

#include "l7_types.h"

/* l7_rate_floor_left(): the director does not wait, or there is no floor */
#define L7_RATE_FLOOR_NONE	0xffffffffu

struct l7_rate_floor {
	uint32_t left;		/* ticks still in the bucket */
	uint32_t at;		/* when ->left was last brought up to date */
	bool waiting;		/* the director waits on the peer: it drains */
};

/* What a floor is made of: its size and refill, in ticks and bytes/s. */
struct l7_rate_rule {
	uint32_t size;		/* ticks: the bucket, how full it starts; 0: none */
	uint32_t minrate;	/* bytes per second; 0: any byte fills it */
	uint32_t hz;		/* ticks per second */
};

/* A full bucket at @now; not waiting yet. */
void l7_rate_floor_init(struct l7_rate_floor *f, const struct l7_rate_rule *r,
			uint32_t now);

/*
 * From @now on the director waits on the peer (@waiting), or does not
 * (it has everything it asked for, or waits on someone else).
 */
void l7_rate_floor_wait(struct l7_rate_floor *f, uint32_t now, bool waiting);

/* The peer moved @bytes at @now (sent them, or acknowledged them). */
void l7_rate_floor_moved(struct l7_rate_floor *f, const struct l7_rate_rule *r,
			 uint32_t now, uint64_t bytes);

/*
 * Ticks from @now until the bucket is empty if nothing moves; 0 when it
 * is empty already: the peer is below the floor.  L7_RATE_FLOOR_NONE
 * while the director does not wait on it, or with no floor (size 0).
 */
uint32_t l7_rate_floor_left(struct l7_rate_floor *f,
			    const struct l7_rate_rule *r, uint32_t now);

#endif /* _IP_VS_L7_CORE_RATE_FLOOR_H */
