/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: HTTP character classes (RFC 9110 5.6), the shrinking
 * candidate mask that recognises a known word one byte at a time, so that
 * a framer never has to buffer a name or token to compare it, and the
 * #token list reader the request and response framers share.
 */
#ifndef _IP_VS_L7_CORE_HTTP_CHARS_H
#define _IP_VS_L7_CORE_HTTP_CHARS_H

#include "l7_types.h"

#ifndef L7_ARRAY_SIZE
#define L7_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

static inline bool l7_is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

static inline bool l7_is_alpha(uint8_t c)
{
	return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

/* Value of a hex digit, or -1. */
static inline int l7_hex_val(uint8_t c)
{
	if (l7_is_digit(c))
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (c | 0x20) - 'a' + 10;
	return -1;
}

/*
 * RFC 9110 tchar: ALPHA DIGIT and "!#$%&'*+-.^_`|~", one bit per byte
 * value.  Names and tokens are read a byte at a time, so this is a load
 * and a shift rather than a chain of compares.
 */
static inline bool l7_is_tchar(uint8_t c)
{
	static const uint64_t tchar[4] = {
		0x03ff6cfa00000000ull,	/* 0x00-0x3f: ! # $ % & ' * + - . 0-9 */
		0x57ffffffc7fffffeull,	/* 0x40-0x7f: A-Z ^ _ ` a-z | ~ */
	};

	return (tchar[c >> 6] >> (c & 63)) & 1;
}

static inline bool l7_is_ows(uint8_t c)
{
	return c == ' ' || c == '\t';
}

/* A byte a field value may not carry: CTL other than HTAB, and DEL. */
static inline bool l7_is_value_ctl(uint8_t c)
{
	return (c < 0x20 && c != '\t') || c == 0x7f;
}

/*
 * Word-at-a-time tests for the runs of plain bytes that are most of a
 * head: a few ALU operations per eight bytes instead of compares per
 * byte.  Each says only whether some byte of the word qualifies, and that
 * answer is exact (a borrow or carry only marks bytes above one that truly
 * qualifies); the byte loop then finds which one, so the result does not
 * depend on byte order or alignment.
 */
#define L7_BYTES_ONES	0x0101010101010101ull
#define L7_BYTES_HIGHS	0x8080808080808080ull

static inline uint64_t l7_load_word(const uint8_t *p)
{
	uint64_t w;

	__builtin_memcpy(&w, p, sizeof(w));	/* unaligned, no libc */
	return w;
}

/* The high bit of each byte of @w below @n (@n <= 0x80), and maybe above. */
static inline uint64_t l7_word_below(uint64_t w, uint8_t n)
{
	return (w - L7_BYTES_ONES * n) & ~w & L7_BYTES_HIGHS;
}

/* Some byte of @w is below @n, for @n <= 0x80. */
static inline bool l7_word_has_below(uint64_t w, uint8_t n)
{
	return l7_word_below(w, n) != 0;
}

/* Some byte of @w is @c. */
static inline bool l7_word_has(uint64_t w, uint8_t c)
{
	return l7_word_has_below(w ^ (L7_BYTES_ONES * c), 1);
}

/* Some byte of @w is 0x7f or above. */
static inline bool l7_word_has_del_or_high(uint64_t w)
{
	return ((w | (w + L7_BYTES_ONES)) & L7_BYTES_HIGHS) != 0;
}

/*
 * The first of the eight bytes at @p that may be a CTL or DEL (HTAB is
 * one of them), or 8.  In memory order the lowest mark is exact: where
 * words load little-endian it is the lowest set bit; elsewhere the bytes
 * are tested one by one.
 */
static inline unsigned int l7_word_first_ctl(const uint8_t *p)
{
	uint64_t w = l7_load_word(p);
	uint64_t m = l7_word_below(w, 0x20) |
		     l7_word_below(w ^ (L7_BYTES_ONES * 0x7f), 1);
	unsigned int i;

	if (!m)
		return 8;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	i = (unsigned int)__builtin_ctzll(m) / 8;
#else
	for (i = 0; p[i] >= 0x20 && p[i] != 0x7f; i++)
		;
#endif
	return i;
}

/*
 * How many of the @n bytes at @p a field value (or reason) may carry:
 * eight at a time up to the first byte that may be a CTL, which is then
 * tested alone (HTAB is allowed: the run goes on after it).
 */
static inline size_t l7_value_run(const uint8_t *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		if (n - i >= 8) {
			unsigned int k = l7_word_first_ctl(p + i);

			i += k;
			if (k == 8)
				continue;
		}
		if (l7_is_value_ctl(p[i]))
			break;
		i++;
	}
	return i;
}

static inline uint8_t l7_to_lower(uint8_t c)
{
	return (c >= 'A' && c <= 'Z') ? c | 0x20 : c;
}

/* A token being matched against up to 32 known words. */
struct l7_tok {
	uint32_t mask;	/* words the bytes so far still match */
	uint8_t len;	/* bytes so far, saturating */
};

static inline void l7_tok_begin(struct l7_tok *t, size_t nwords)
{
	t->len = 0;
	t->mask = (1u << nwords) - 1;
}

/*
 * Narrow the candidates by one more byte.  A word that ended is dropped
 * by comparing against its NUL, so no word is ever read past its end.
 */
static inline void l7_tok_byte(struct l7_tok *t, const char *const *words,
			       uint8_t c)
{
	uint32_t m;

	/* only the candidates left: one or two once a name is under way */
	for (m = t->mask; m; m &= m - 1) {
		unsigned int i = (unsigned int)__builtin_ctz(m);

		if ((uint8_t)words[i][t->len] != c)
			t->mask &= ~(1u << i);
	}
	if (t->len == (uint8_t)~0)
		t->mask = 0;	/* longer than any word we know */
	else
		t->len++;
}

/* Index of the word the token equals, or -1. */
static inline int l7_tok_match(const struct l7_tok *t,
			       const char *const *words)
{
	uint32_t m;

	for (m = t->mask; m; m &= m - 1) {
		unsigned int i = (unsigned int)__builtin_ctz(m);

		if (words[i][t->len] == '\0')
			return (int)i;
	}
	return -1;
}

/*
 * A #token list field value (RFC 9110 5.6.1: Connection, Transfer-Encoding,
 * Expect) read one byte at a time: elements separated by commas and OWS,
 * empty elements allowed.  Two tokens without a comma are an error, and
 * parameters (";...", where the caller allows them) may not be quoted:
 * both could make the director read a list differently from the peer.
 */
enum l7_list_ev {
	L7_LIST_MORE,	/* nothing to act on yet */
	L7_LIST_TOKEN,	/* a token ended: l7_list_word() says which */
	L7_LIST_PARAMS,	/* ';' after a token: it carries parameters */
	L7_LIST_ERROR,	/* not a valid list */
};

struct l7_list {
	struct l7_tok tok;	/* the token being read */
	uint8_t sub;
};

enum {
	L7_LIST_ELEM,	/* before a token (start or after ',') */
	L7_LIST_IN_TOKEN,
	L7_LIST_AFTER,	/* OWS after a token: only OWS, ',' or end may follow */
	L7_LIST_PARAM,	/* parameters: skipped up to ',' */
};

static inline void l7_list_begin(struct l7_list *l)
{
	l->sub = L7_LIST_ELEM;
}

/* Token separators: OWS ends a token, ',' ends an element. */
static inline enum l7_list_ev l7_list_sep(struct l7_list *l, uint8_t c)
{
	bool ended = l->sub == L7_LIST_IN_TOKEN;

	if (c == ',')
		l->sub = L7_LIST_ELEM;
	else if (ended)
		l->sub = L7_LIST_AFTER;
	return ended ? L7_LIST_TOKEN : L7_LIST_MORE;
}

/* One byte of the value; @words are the tokens to recognise, lower-case. */
static inline enum l7_list_ev l7_list_byte(struct l7_list *l,
					   const char *const *words,
					   size_t nwords, bool params,
					   uint8_t c)
{
	if (l->sub == L7_LIST_PARAM) {
		if (c == '"')
			return L7_LIST_ERROR;
		if (c == ',')
			l->sub = L7_LIST_ELEM;
		return L7_LIST_MORE;
	}
	if (l7_is_tchar(c)) {
		if (l->sub == L7_LIST_AFTER)
			return L7_LIST_ERROR;
		if (l->sub == L7_LIST_ELEM) {
			l7_tok_begin(&l->tok, nwords);
			l->sub = L7_LIST_IN_TOKEN;
		}
		l7_tok_byte(&l->tok, words, l7_to_lower(c));
		return L7_LIST_MORE;
	}
	if (l7_is_ows(c) || c == ',')
		return l7_list_sep(l, c);
	if (c == ';' && params && (l->sub == L7_LIST_IN_TOKEN ||
				   l->sub == L7_LIST_AFTER)) {
		l->sub = L7_LIST_PARAM;
		return L7_LIST_PARAMS;
	}
	return L7_LIST_ERROR;
}

/* The value ended: a token still being read is complete. */
static inline enum l7_list_ev l7_list_end(const struct l7_list *l)
{
	return l->sub == L7_LIST_IN_TOKEN ? L7_LIST_TOKEN : L7_LIST_MORE;
}

/* Index of the word the token that just ended equals, or -1. */
static inline int l7_list_word(const struct l7_list *l,
			       const char *const *words)
{
	return l7_tok_match(&l->tok, words);
}

#endif /* _IP_VS_L7_CORE_HTTP_CHARS_H */
