/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 tracepoints (events/ip_vs_l7/ in tracefs): one per request
 * dispatched, per response ended, per request the director answered
 * itself, per client connection ended.  Off by default, a static branch
 * each; scripts/ip_vs_l7-log turns them into one log line per request.
 * Every event names the client connection by its client address:port and
 * VIP:port, so that the events of one request can be joined.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ip_vs_l7

#if !defined(_IP_VS_L7_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _IP_VS_L7_TRACE_H

#include <linux/in6.h>
#include <linux/ktime.h>
#include <linux/tracepoint.h>

#include "ip_vs_l7.h"

#ifndef _IP_VS_L7_TRACE_HELPERS
#define _IP_VS_L7_TRACE_HELPERS
#define L7_TRACE_SA	sizeof(struct sockaddr_in6)
#define L7_TRACE_METHOD	16
#define L7_TRACE_TEXT	64	/* host and path: their first bytes */
#define L7_TRACE_WHY	16

/* ip_vs_l7_trace.c */
void l7_trace_addr(u8 *sa, u16 af, const union nf_inet_addr *addr,
		   __be16 port);
void l7_trace_head(const struct l7_conn *c, char *method, char *host,
		   char *path);
u32 l7_trace_us_since(u64 then);
#endif

/* the connection's client and VIP, the key that joins its events */
#define L7_TRACE_CONN_ASSIGN(c)						    \
	do {								    \
		l7_trace_addr(__entry->client, (c)->af, &(c)->caddr,	    \
			      (c)->cport);				    \
		l7_trace_addr(__entry->vip, (c)->af, &(c)->vaddr,	    \
			      (c)->vport);				    \
	} while (0)

TRACE_DEFINE_ENUM(L7_END_CLOSED);
TRACE_DEFINE_ENUM(L7_END_CLIENT_RST);
TRACE_DEFINE_ENUM(L7_END_SERVER_RST);
TRACE_DEFINE_ENUM(L7_END_HEAD_LOST);
TRACE_DEFINE_ENUM(L7_END_BAD_RESPONSE);
TRACE_DEFINE_ENUM(L7_END_BAD_REQUEST);
TRACE_DEFINE_ENUM(L7_END_IDLE);
TRACE_DEFINE_ENUM(L7_END_SLOW_READER);
TRACE_DEFINE_ENUM(L7_END_FLUSHED);

/*
 * A request bound to a pooled connection of @b's server, after waiting
 * since @c->dispatch_ns (0: the tracepoint was off then) for one.
 */
TRACE_EVENT(l7_request,
	TP_PROTO(const struct l7_conn *c, const struct l7_binding *b,
		 const struct l7_routed *rt),
	TP_ARGS(c, b, rt),
	TP_STRUCT__entry(
		__array(u8, client, L7_TRACE_SA)
		__array(u8, vip, L7_TRACE_SA)
		__array(u8, server, L7_TRACE_SA)
		__array(char, method, L7_TRACE_METHOD)
		__array(char, host, L7_TRACE_TEXT)
		__array(char, path, L7_TRACE_TEXT)
		__array(char, pool, IPVS_L7_POOL_NAME_LEN)
		__field(int, rule)
		__field(u32, queue_us)
	),
	TP_fast_assign(
		L7_TRACE_CONN_ASSIGN(c);
		l7_trace_addr(__entry->server, b->pc->pool->af,
			      &b->pc->pool->baddr, b->pc->pool->bport);
		l7_trace_head(c, __entry->method, __entry->host,
			      __entry->path);
		strscpy(__entry->pool, rt->pool[0] ? rt->pool : "-",
			IPVS_L7_POOL_NAME_LEN);
		__entry->rule = rt->rule;
		__entry->queue_us = l7_trace_us_since(c->dispatch_ns);
	),
	TP_printk("client=%pISpc vip=%pISpc server=%pISpc method=%s host=%s path=%s rule=%d pool=%s queue_us=%u",
		  __entry->client, __entry->vip, __entry->server,
		  __entry->method, __entry->host, __entry->path,
		  __entry->rule, __entry->pool, __entry->queue_us)
);

/*
 * The response on @b ended: its status, its bytes as the server sent
 * them (head and body; @end is the server's seq after them), and the
 * time since the request was bound.
 */
TRACE_EVENT(l7_response,
	TP_PROTO(const struct l7_conn *c, const struct l7_binding *b, u32 end),
	TP_ARGS(c, b, end),
	TP_STRUCT__entry(
		__array(u8, client, L7_TRACE_SA)
		__array(u8, vip, L7_TRACE_SA)
		__field(u32, bytes)
		__field(u32, server_us)
		__field(u16, status)
	),
	TP_fast_assign(
		L7_TRACE_CONN_ASSIGN(c);
		__entry->bytes = end - b->rsp_guard.start;
		__entry->server_us = l7_trace_us_since(b->bound_ns);
		__entry->status = b->rsp_guard.resp.status_code;
	),
	TP_printk("client=%pISpc vip=%pISpc status=%u bytes=%u server_us=%u",
		  __entry->client, __entry->vip, __entry->status,
		  __entry->bytes, __entry->server_us)
);

/*
 * The director answered a request itself with @status (->reply_len
 * bytes), for @why; the request's method, host and path when its head
 * was framed and not yet bound.
 */
TRACE_EVENT(l7_reply,
	TP_PROTO(const struct l7_conn *c, int status, const char *why),
	TP_ARGS(c, status, why),
	TP_STRUCT__entry(
		__array(u8, client, L7_TRACE_SA)
		__array(u8, vip, L7_TRACE_SA)
		__array(char, method, L7_TRACE_METHOD)
		__array(char, host, L7_TRACE_TEXT)
		__array(char, path, L7_TRACE_TEXT)
		__array(char, why, L7_TRACE_WHY)
		__field(int, status)
		__field(u32, bytes)
		__field(u32, queue_us)
	),
	TP_fast_assign(
		L7_TRACE_CONN_ASSIGN(c);
		l7_trace_head(c, __entry->method, __entry->host,
			      __entry->path);
		strscpy(__entry->why, why, L7_TRACE_WHY);
		__entry->status = status;
		__entry->bytes = c->reply_len;
		__entry->queue_us = c->state == L7C_QUEUED ?
				    l7_trace_us_since(c->dispatch_ns) : 0;
	),
	TP_printk("client=%pISpc vip=%pISpc status=%d bytes=%u why=%s method=%s host=%s path=%s queue_us=%u",
		  __entry->client, __entry->vip, __entry->status,
		  __entry->bytes, __entry->why, __entry->method,
		  __entry->host, __entry->path, __entry->queue_us)
);

/* A client connection is gone: its requests, and how it ended. */
TRACE_EVENT(l7_conn_end,
	TP_PROTO(const struct l7_conn *c),
	TP_ARGS(c),
	TP_STRUCT__entry(
		__array(u8, client, L7_TRACE_SA)
		__array(u8, vip, L7_TRACE_SA)
		__field(u32, requests)
		__field(int, end)
	),
	TP_fast_assign(
		L7_TRACE_CONN_ASSIGN(c);
		__entry->requests = c->requests;
		__entry->end = c->end;
	),
	TP_printk("client=%pISpc vip=%pISpc requests=%u end=%s",
		  __entry->client, __entry->vip, __entry->requests,
		  __print_symbolic(__entry->end,
				   { L7_END_CLOSED, "closed" },
				   { L7_END_CLIENT_RST, "client_rst" },
				   { L7_END_SERVER_RST, "server_rst" },
				   { L7_END_HEAD_LOST, "head_lost" },
				   { L7_END_BAD_RESPONSE, "bad_response" },
				   { L7_END_BAD_REQUEST, "bad_request" },
				   { L7_END_IDLE, "idle" },
				   { L7_END_SLOW_READER, "slow_reader" },
				   { L7_END_FLUSHED, "flushed" }))
);

#ifndef _IP_VS_L7_TRACE_CLOCK
#define _IP_VS_L7_TRACE_CLOCK
/* a request's times are taken only while its tracepoints are on */
static inline u64 l7_trace_clock(void)
{
	return trace_l7_request_enabled() ? ktime_get_ns() : 0;
}
#endif

#endif /* _IP_VS_L7_TRACE_H */

/* an out-of-tree module: define_trace.h finds this file by -I$(src)/ip_vs_l7 */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ip_vs_l7_trace
#include <trace/define_trace.h>
