/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the libFuzzer targets: an input starts with a few control
 * bytes (how to split the rest into segments, which limits and methods
 * to use), then the bytes of the stream itself.  Every target feeds the
 * stream in three segmentations and requires identical results, plus
 * the invariants it checks itself; a broken invariant aborts, which
 * libFuzzer reports as a crash with the input that caused it.
 */
#ifndef L7_FUZZ_UTIL_H
#define L7_FUZZ_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CTL_BYTES	4
#define FUZZ_MAX_CUTS	4096

#define FUZZ_ASSERT(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: invariant broken: %s\n", \
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

struct fuzz_split {
	size_t cuts[FUZZ_MAX_CUTS];
	int ncuts;
};

/* Two cut points chosen by @a and @b, scaled to @len. */
static inline void fuzz_two_cuts(struct fuzz_split *s, size_t len,
				 uint8_t a, uint8_t b)
{
	size_t x = len * a / 255, y = len * b / 255;

	s->cuts[0] = x < y ? x : y;
	s->cuts[1] = x < y ? y : x;
	s->ncuts = 2;
}

/* A cut every @k bytes (1 = byte at a time). */
static inline void fuzz_every(struct fuzz_split *s, size_t len, size_t k)
{
	size_t at;

	s->ncuts = 0;
	for (at = k; at < len && s->ncuts < FUZZ_MAX_CUTS; at += k)
		s->cuts[s->ncuts++] = at;
}

#endif /* L7_FUZZ_UTIL_H */
