// SPDX-License-Identifier: GPL-2.0
/*
 * /cgi-bin/burn?iters=N: spend a fixed amount of CPU (N thousand rounds of
 * a 64-bit mix, default 1000) and say which backend did it.  A count, not
 * a time, so every request costs the same wherever it runs.  The answer
 * has no Content-Length, so Apache sends it chunked to HTTP/1.1 clients.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long query_ulong(const char *key, unsigned long def)
{
	const char *q = getenv("QUERY_STRING");
	size_t klen = strlen(key);

	while (q && *q) {
		if (!strncmp(q, key, klen) && q[klen] == '=')
			return strtoul(q + klen + 1, NULL, 10);
		q = strchr(q, '&');
		if (q)
			q++;
	}
	return def;
}

int main(void)
{
	unsigned long iters = query_ulong("iters", 1000);
	const char *backend = getenv("L7TB_BACKEND");
	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned long i;

	if (iters > 10000000)
		iters = 10000000;
	for (i = 0; i < iters * 1000; i++) {
		x ^= x >> 31;
		x *= 0xbf58476d1ce4e5b9ull;
		x ^= x >> 29;
	}
	printf("Content-Type: text/plain\r\n\r\n");
	printf("backend=%s iters=%lu mix=%016llx\n", backend ? backend : "?",
	       iters, (unsigned long long)x);
	return 0;
}
