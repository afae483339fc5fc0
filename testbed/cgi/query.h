/* SPDX-License-Identifier: GPL-2.0 */
/* The testbed's CGIs: a field of the query string. */
#ifndef L7TB_CGI_QUERY_H
#define L7TB_CGI_QUERY_H

#include <string.h>

/* the value of NAME= in the query string, up to '&', or "" */
static inline void query_get(const char *q, const char *name, char *out,
			     size_t size)
{
	size_t len = strlen(name), n = 0;
	const char *p = q;

	out[0] = '\0';
	while (p && *p) {
		if (!strncmp(p, name, len) && p[len] == '=') {
			p += len + 1;
			while (p[n] && p[n] != '&' && n + 1 < size)
				n++;
			memcpy(out, p, n);
			out[n] = '\0';
			return;
		}
		p = strchr(p, '&');
		if (p)
			p++;
	}
}

#endif
