// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the tracepoints' definitions (ip_vs_l7_trace.h), and what
 * their events copy out of a connection - only ever run while one is on.
 */

#include <linux/ktime.h>
#include <linux/string.h>

#include "ip_vs_l7.h"

#define CREATE_TRACE_POINTS
#include "ip_vs_l7_trace.h"

/* @sa: a sockaddr_in6's room, for the events' %pISpc */
void l7_trace_addr(u8 *sa, u16 af, const union nf_inet_addr *addr,
		   __be16 port)
{
	memset(sa, 0, L7_TRACE_SA);
	if (af == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = port;
		s6->sin6_addr = addr->in6;
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)sa;

		s4->sin_family = AF_INET;
		s4->sin_port = port;
		s4->sin_addr.s_addr = addr->ip;
	}
}

/*
 * The first bytes of a span of the head, as one word: a byte that is not
 * visible ASCII becomes '?' (the framer lets obs-text and spaces through
 * in a Host value), so that a log line splits at spaces; "-" if empty.
 */
static void l7_trace_text(char *dst, size_t size, const u8 *p, u32 len)
{
	u32 i, n = min_t(u32, len, size - 1);

	for (i = 0; i < n; i++)
		dst[i] = p[i] > ' ' && p[i] < 0x7f ? p[i] : '?';
	dst[n] = '\0';
	if (!n)
		strscpy(dst, "-", size);
}

/*
 * The method, host and path of the head at the front of ->head, if it is
 * framed and not yet bound; else "-".
 */
void l7_trace_head(const struct l7_conn *c, char *method, char *host,
		   char *path)
{
	const struct l7_http_req *r = &c->req;
	bool framed = c->head && r->head_len && !c->bad_status &&
		      r->head_len <= c->head_len &&
		      (c->state == L7C_HEAD || c->state == L7C_QUEUED);

	if (!framed) {
		strscpy(method, "-", L7_TRACE_METHOD);
		strscpy(host, "-", L7_TRACE_TEXT);
		strscpy(path, "-", L7_TRACE_TEXT);
		return;
	}
	l7_trace_text(method, L7_TRACE_METHOD, c->head + r->method_span.off,
		      r->method_span.len);
	l7_trace_text(host, L7_TRACE_TEXT, c->head + r->host.off,
		      r->has_host ? r->host.len : 0);
	l7_trace_text(path, L7_TRACE_TEXT, c->head + r->target.off,
		      r->target.len);
}

/* microseconds since ktime_get_ns() said @then; 0 for no @then */
u32 l7_trace_us_since(u64 then)
{
	if (!then)
		return 0;
	return min_t(u64, div_u64(ktime_get_ns() - then, NSEC_PER_USEC),
		     U32_MAX);
}
