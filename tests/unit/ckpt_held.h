/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the checkpoint store's tests and fuzzer: the tuple's record, read
 * off its hash chain through the store's public struct (the module has no
 * use for a lookup of its own).
 */
#ifndef _IP_VS_L7_TESTS_CKPT_HELD_H
#define _IP_VS_L7_TESTS_CKPT_HELD_H

#include <string.h>

#include "conn_ckpt.h"

/* The tuple's record, or NULL (none, or a tombstone). */
static inline const struct l7_ckpt_slot *held(const struct l7_ckpt_store *s,
					      const struct l7_ckpt_tuple *t)
{
	uint32_t i;

	for (i = s->buckets[l7_ckpt_bucket(s, t)]; i != L7_CKPT_NIL;
	     i = s->slots[i].hnext) {
		const struct l7_ckpt_tuple *u = &s->slots[i].conn.t;

		if (u->family == t->family && u->cport == t->cport &&
		    u->vport == t->vport &&
		    !memcmp(u->caddr, t->caddr, sizeof(u->caddr)) &&
		    !memcmp(u->vaddr, t->vaddr, sizeof(u->vaddr)))
			return s->slots[i].tomb ? NULL : &s->slots[i];
	}
	return NULL;
}

#endif /* _IP_VS_L7_TESTS_CKPT_HELD_H */
