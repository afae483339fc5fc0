// SPDX-License-Identifier: GPL-2.0
/*
 * /cgi-bin/sleep?ms=N&id=X: answer after N ms (at most 10 s).  The
 * headers X-Begin and X-End are the wall clock (microseconds) when the
 * CGI started and when its sleep ended, before any byte of the answer:
 * a span inside the time the request was outstanding on the backend, so
 * that a client can tell how many requests a backend ran at once.  The
 * body depends on the query alone: 32 lines "id=X line=K".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "query.h"

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

int main(void)
{
	const char *q = getenv("QUERY_STRING");
	char ms_s[16], id[32];
	long long begin = now_us(), end;
	struct timespec ts;
	long ms;
	int i;

	query_get(q, "ms", ms_s, sizeof(ms_s));
	query_get(q, "id", id, sizeof(id));
	ms = atol(ms_s);
	if (ms < 0 || ms > 10000)
		ms = 0;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts))
		;
	end = now_us();
	printf("Content-Type: text/plain\r\nX-Begin: %lld\r\nX-End: %lld\r\n\r\n",
	       begin, end);
	for (i = 0; i < 32; i++)
		printf("id=%s line=%d\n", id, i);
	return 0;
}
