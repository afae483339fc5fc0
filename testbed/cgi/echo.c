// SPDX-License-Identifier: GPL-2.0
/*
 * /cgi-bin/echo: answer a request body byte-exact.  The whole body is read
 * before anything is written: Apache writes the body to the CGI before it
 * reads the CGI's output, so streaming would deadlock past a pipe buffer.
 * With no CONTENT_LENGTH (a chunked request) the body ends at EOF.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_BODY (64UL << 20)

int main(void)
{
	const char *cl = getenv("CONTENT_LENGTH");
	size_t want = cl && *cl ? strtoul(cl, NULL, 10) : MAX_BODY;
	size_t have = 0, cap = 65536;
	char *buf = malloc(cap);

	if (want > MAX_BODY || !buf) {
		printf("Status: 413 Payload Too Large\r\n\r\n");
		return 0;
	}
	while (have < want) {
		ssize_t n;

		if (have == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				return 1;
		}
		n = read(0, buf + have, (want < cap ? want : cap) - have);
		if (n <= 0)
			break;
		have += n;
	}
	if (cl && *cl && have != want) {
		printf("Status: 400 Bad Request\r\n\r\nshort body\n");
		return 0;
	}
	printf("Content-Type: application/octet-stream\r\n");
	printf("Content-Length: %zu\r\n\r\n", have);
	fflush(stdout);
	return fwrite(buf, 1, have, stdout) == have ? 0 : 1;
}
