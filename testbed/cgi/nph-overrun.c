// SPDX-License-Identifier: GPL-2.0
/*
 * /cgi-bin/nph-overrun?id=X[&ms=N][&go=NAME]: a script that writes past
 * its own Content-Length.  It answers "overrun id=X\n" with a
 * Content-Length of exactly that, flushes, waits, and writes a whole
 * second response whose body is the marker "OVERRUN-X": the answer, as
 * far as the bytes on the connection go, to whatever request comes next
 * on it.  A non-parsed-header script (nph-): Apache frames a parsed
 * script's output itself (chunked, whatever Content-Length the script
 * gave), but sends an nph script's bytes as they come, then closes.
 *
 * The wait: N ms (at most 10 s), or, with go=NAME, until the file
 * go-NAME exists in the directory above the document root (at most
 * 20 s), so that a test chooses the moment the bytes leave.
 */
#include <ctype.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "query.h"

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

/* NAME names a file of one directory: letters, digits, '_' and '-' */
static int name_ok(const char *name)
{
	for (; *name; name++)
		if (!isalnum((unsigned char)*name) && *name != '_' &&
		    *name != '-')
			return 0;
	return 1;
}

/* wait until DOCUMENT_ROOT/../go-NAME exists */
static void wait_go(const char *name)
{
	const char *root = getenv("DOCUMENT_ROOT");
	char dir[512], path[600];
	int i;

	if (!root || !name_ok(name))
		return;
	snprintf(dir, sizeof(dir), "%s", root);
	snprintf(path, sizeof(path), "%s/go-%s", dirname(dir), name);
	for (i = 0; i < 2000 && access(path, F_OK); i++)
		sleep_ms(10);
}

int main(void)
{
	const char *q = getenv("QUERY_STRING");
	const char *backend = getenv("L7TB_BACKEND");
	char id[32], ms_s[16], go[32], body[64], marker[64];
	long ms;

	query_get(q, "id", id, sizeof(id));
	query_get(q, "ms", ms_s, sizeof(ms_s));
	query_get(q, "go", go, sizeof(go));
	snprintf(body, sizeof(body), "overrun id=%s\n", id);
	printf("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
	       "X-Backend: %s\r\nContent-Length: %zu\r\n\r\n%s",
	       backend ? backend : "-", strlen(body), body);
	fflush(stdout);

	if (go[0]) {
		wait_go(go);
	} else {
		ms = atol(ms_s);
		sleep_ms(ms < 0 || ms > 10000 ? 0 : ms);
	}
	snprintf(marker, sizeof(marker), "OVERRUN-%s\n", id);
	printf("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
	       "X-Backend: %s\r\nContent-Length: %zu\r\n\r\n%s",
	       backend ? backend : "-", strlen(marker), marker);
	return 0;
}
