// SPDX-License-Identifier: GPL-2.0
/*
 * /cgi-bin/chunked?n=N: N numbered lines (default 16), each flushed on its
 * own so that Apache sends them as separate chunks of a chunked response.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	const char *q = getenv("QUERY_STRING");
	const char *backend = getenv("L7TB_BACKEND");
	int n = 16, i;

	if (q && !strncmp(q, "n=", 2))
		n = atoi(q + 2);
	if (n < 0 || n > 100000)
		n = 16;
	printf("Content-Type: text/plain\r\n\r\n");
	fflush(stdout);
	for (i = 0; i < n; i++) {
		printf("line %d of %d from %s\n", i, n,
		       backend ? backend : "?");
		fflush(stdout);
	}
	return 0;
}
