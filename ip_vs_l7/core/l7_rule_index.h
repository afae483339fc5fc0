/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: an index over a service's content rules, so that a
 * request is tested only against the rules that could match it, not
 * walked through all of them (each rule is over a kilobyte of mostly
 * unused value buffers: a linear walk over a thousand of them reads a
 * megabyte per request).
 *
 * Each rule is filed under one key its matching request must have:
 *
 *  - a case-sensitive path test: the rule's path, as an exact path or as
 *    a prefix;
 *  - else an exact host test: the host;
 *  - else a "*.domain" host test: ".domain", a suffix of the host;
 *  - else (no host or path test, or only a case-insensitive path) the
 *    rule is a candidate for every request.
 *
 * A request looks up the keys it has - its whole path as an exact path,
 * each prefix of its path that ends where a segment ends or begins, its
 * host, each suffix of its host that starts at a '.' - and every rule
 * filed under one of them, with every "always" rule, is a candidate.
 * The candidates are then tested in rule order by the full matcher, so
 * the index only narrows: the first rule that matches is the same as a
 * linear walk's (the rule-match fuzzer holds both to it).
 *
 * A key is its kind, its length and a hash of its bytes; a hash
 * collision only adds candidates.  Keys are at most L7_RULE_VALUE_MAX
 * bytes, so a request hashes at most that much of its path and host, and
 * since a request looks up each (kind, length) once, each slot's rules
 * are gathered at most once: a request's cost is bounded by the index's
 * size, whatever the bytes it sends.
 *
 * The glue allocates l7_rule_index_size(n) bytes (8-byte aligned), builds
 * the index once with the rule set (process context), and reads it under
 * RCU with the set; l7_rule_candidates() writes into a caller's bitmap of
 * L7_RULE_WORDS words.
 */
#ifndef _IP_VS_L7_CORE_L7_RULE_INDEX_H
#define _IP_VS_L7_CORE_L7_RULE_INDEX_H

#include "l7_rule.h"

#define L7_RULE_WORDS	((L7_RULES_MAX + 63) / 64)

enum l7_rule_key_kind {
	L7_RK_NONE = 0,		/* an empty slot; a rule: always a candidate */
	L7_RK_PATH_EXACT,
	L7_RK_PATH_PREFIX,
	L7_RK_HOST,
	L7_RK_HOST_SUFFIX,	/* "*.domain": ".domain" */
};

struct l7_rule_slot {
	uint32_t hash;
	uint8_t kind;		/* enum l7_rule_key_kind, NONE: empty */
	uint8_t len;		/* of the key */
	uint16_t first;		/* of its rules, in ->order */
	uint16_t count;
};

struct l7_rule_index {
	uint32_t nslots;	/* a power of two, at least twice the keys */
	uint16_t nrules;
	uint16_t kinds;		/* 1 << kind of every key filed */
	uint64_t always[L7_RULE_WORDS];
	struct l7_rule_slot slots[];
	/* then uint16_t order[nrules]: rule indices, by slot, ascending */
};

/* Bytes an index of @n rules (n <= L7_RULES_MAX) takes. */
size_t l7_rule_index_size(unsigned int n);

/*
 * Build the index of @rules (@n, each passed l7_rule_invalid()) in @ix,
 * l7_rule_index_size(@n) bytes.
 */
void l7_rule_index_build(struct l7_rule_index *ix,
			 const struct l7_rule *rules, unsigned int n);

/* Set in @cand (L7_RULE_WORDS words) the bit of every candidate of @v. */
void l7_rule_candidates(const struct l7_rule_index *ix,
			const struct l7_req_view *v, uint64_t *cand);

#endif /* _IP_VS_L7_CORE_L7_RULE_INDEX_H */
