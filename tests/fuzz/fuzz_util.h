/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the libFuzzer targets: an input starts with a few control
 * bytes (how to split the rest into segments, which limits and methods
 * to use), then the bytes of the stream itself.  Every target feeds the
 * stream in three segmentations and requires identical results, plus
 * the invariants it checks itself; a broken invariant aborts, which
 * libFuzzer reports as a crash with the input that caused it.  The
 * response and body targets also hold chunked bodies against
 * ref_chunked(), a reading of the grammar written independently of the
 * framer's state machine.
 */
#ifndef L7_FUZZ_UTIL_H
#define L7_FUZZ_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_chars.h"

#define FUZZ_CTL_BYTES	4
#define FUZZ_MAX_CUTS	20480	/* byte at a time up to scripts/fuzz's -max_len */

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

/*
 * An independent, whole-buffer reading of a chunked body (RFC 9112 7.1,
 * with BWS allowed wherever the framer allows it, but Apache 2.4's
 * limits: a chunk size below 2^63, at most 10 blanks after it) to
 * compare the framer against.  Returns 1 with *at just past the body, 0
 * if @n bytes end before it does, -1 with *at on the first byte that
 * cannot continue it.
 */
static inline bool ref_token(const uint8_t *p, size_t n, size_t *i)
{
	size_t from = *i;

	while (*i < n && l7_is_tchar(p[*i]))
		(*i)++;
	return *i > from;
}

static inline void ref_ows(const uint8_t *p, size_t n, size_t *i)
{
	while (*i < n && l7_is_ows(p[*i]))
		(*i)++;
}

#define REF_NEED(cond)							\
	do {								\
		if (i == n)						\
			return 0;					\
		if (!(cond)) {						\
			*at = i;					\
			return -1;					\
		}							\
	} while (0)

static inline int ref_chunked(const uint8_t *p, size_t n, size_t *at)
{
	size_t i = 0;

	for (;;) {
		uint64_t size = 0;
		size_t digits = 0, bws = 0;

		while (i < n && l7_hex_val(p[i]) >= 0) {
			/* Apache's off_t: 16 * size + digit < 2^63 */
			if (size >= 1ull << 59) {
				*at = i;
				return -1;
			}
			size = size << 4 | (uint64_t)l7_hex_val(p[i++]);
			digits++;
		}
		REF_NEED(digits > 0);
		for (; i < n && l7_is_ows(p[i]); i++) {
			if (++bws > 10) {
				*at = i;
				return -1;
			}
		}
		for (;;) {
			ref_ows(p, n, &i);
			REF_NEED(p[i] == '\r' || p[i] == ';');
			if (p[i] == '\r')
				break;
			i++;
			ref_ows(p, n, &i);
			REF_NEED(l7_is_tchar(p[i]));
			ref_token(p, n, &i);
			ref_ows(p, n, &i);
			REF_NEED(1);
			if (p[i] != '=')
				continue;
			i++;
			ref_ows(p, n, &i);
			REF_NEED(p[i] == '"' || l7_is_tchar(p[i]));
			if (p[i] != '"') {
				ref_token(p, n, &i);
				continue;
			}
			for (i++;; i++) {
				REF_NEED(p[i] == '\t' ||
					 (p[i] >= 0x20 && p[i] != 0x7f));
				if (p[i] == '"')
					break;
				if (p[i] == '\\') {
					i++;
					REF_NEED(p[i] == '\t' ||
						 (p[i] >= 0x20 && p[i] != 0x7f));
				}
			}
			i++;
		}
		i++;
		REF_NEED(p[i] == '\n');
		i++;
		if (!size)
			break;
		if (n - i <= size)
			return 0;
		i += size;
		REF_NEED(p[i] == '\r');
		i++;
		REF_NEED(p[i] == '\n');
		i++;
	}
	/* trailer fields, then the empty line */
	for (;;) {
		REF_NEED(p[i] == '\r' || l7_is_tchar(p[i]));
		if (p[i] == '\r')
			break;
		ref_token(p, n, &i);
		REF_NEED(p[i] == ':');
		for (i++; i < n && p[i] != '\r' && !l7_is_value_ctl(p[i]); i++)
			;
		REF_NEED(p[i] == '\r');
		i++;
		REF_NEED(p[i] == '\n');
		i++;
	}
	i++;
	REF_NEED(p[i] == '\n');
	*at = i + 1;
	return 1;
}

#endif /* L7_FUZZ_UTIL_H */
