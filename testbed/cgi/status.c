// SPDX-License-Identifier: GPL-2.0
/*
 * /cgi-bin/status?code=N: answer with status N (default 200).  204 and 304
 * carry no body; others carry a one-line body naming the backend.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	const char *q = getenv("QUERY_STRING");
	const char *backend = getenv("L7TB_BACKEND");
	int code = 200;

	if (q && !strncmp(q, "code=", 5))
		code = atoi(q + 5);
	if (code < 100 || code > 599)
		code = 400;
	printf("Status: %d\r\n", code);
	if (code == 204 || code == 304) {
		printf("\r\n");
		return 0;
	}
	printf("Content-Type: text/plain\r\n\r\n");
	printf("status=%d backend=%s\n", code, backend ? backend : "?");
	return 0;
}
