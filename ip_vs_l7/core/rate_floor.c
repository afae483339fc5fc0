// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: a progress floor (rate_floor.h).
 */
#include "rate_floor.h"

/* Drain what waiting since ->at took from the bucket. */
static void rate_floor_drain(struct l7_rate_floor *f, uint32_t now)
{
	uint32_t spent = now - f->at;

	/* a clock that went back (it does not) takes nothing */
	if ((int32_t)spent < 0)
		spent = 0;
	if (f->waiting)
		f->left = spent < f->left ? f->left - spent : 0;
	f->at = now;
}

void l7_rate_floor_init(struct l7_rate_floor *f, const struct l7_rate_rule *r,
			uint32_t now)
{
	f->left = r->size;
	f->at = now;
	f->waiting = false;
}

void l7_rate_floor_wait(struct l7_rate_floor *f, uint32_t now, bool waiting)
{
	rate_floor_drain(f, now);
	f->waiting = waiting;
}

void l7_rate_floor_moved(struct l7_rate_floor *f, const struct l7_rate_rule *r,
			 uint32_t now, uint64_t bytes)
{
	uint64_t more;

	rate_floor_drain(f, now);
	if (!r->minrate) {
		/* no rate: any progress fills it, an idle timer */
		if (bytes)
			f->left = r->size;
		return;
	}
	/* bytes * hz / minrate ticks, saturating: a bucket is never over */
	if (bytes > L7_RATE_FLOOR_NONE)
		bytes = L7_RATE_FLOOR_NONE;
	more = bytes * r->hz / r->minrate;
	if (more >= r->size - f->left)
		f->left = r->size;
	else
		f->left += (uint32_t)more;
}

uint32_t l7_rate_floor_left(struct l7_rate_floor *f,
			    const struct l7_rate_rule *r, uint32_t now)
{
	rate_floor_drain(f, now);
	if (!f->waiting || !r->size)
		return L7_RATE_FLOOR_NONE;
	return f->left;
}
