/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal host test harness for the ip_vs_l7 pure-C core.
 *
 * Each CHECK counts once; a test function prints one "ok"/"FAIL" line.
 * l7_test_summary() prints the closing "N passed, N failed" line that CI
 * reads and returns the process exit status.
 */
#ifndef L7_TEST_H
#define L7_TEST_H

#include <stdint.h>
#include <stdio.h>

static int l7_checks_failed;
static int l7_tests_passed;
static int l7_tests_failed;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			l7_checks_failed++;				\
			fprintf(stderr, "  %s:%d: CHECK(%s) failed: ",	\
				__FILE__, __LINE__, #cond);		\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
		}							\
	} while (0)

#define RUN(fn)								\
	do {								\
		int before = l7_checks_failed;				\
		fn();							\
		if (l7_checks_failed == before) {			\
			l7_tests_passed++;				\
			printf("ok   %s\n", #fn);			\
		} else {						\
			l7_tests_failed++;				\
			printf("FAIL %s\n", #fn);			\
		}							\
	} while (0)

/* Pseudo-random numbers (xorshift64*): the same on every run. */
static uint64_t l7_rand_state = 0x9e3779b97f4a7c15ull;

static inline uint64_t l7_rand(void)
{
	l7_rand_state ^= l7_rand_state >> 12;
	l7_rand_state ^= l7_rand_state << 25;
	l7_rand_state ^= l7_rand_state >> 27;
	return l7_rand_state * 0x2545f4914f6cdd1dull;
}

static inline int l7_test_summary(const char *suite)
{
	printf("%s: %d passed, %d failed\n", suite, l7_tests_passed,
	       l7_tests_failed);
	return l7_tests_failed ? 1 : 0;
}

#endif /* L7_TEST_H */
