/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7: definitions shared by the kernel glue.
 *
 * Object model, following IPVS:
 *   l7_service  one per IPVS virtual service whose scheduler is "l7"
 *               (svc->sched_data), created and destroyed by the scheduler's
 *               init_service/done_service callbacks;
 *   l7_dest     one per real server of such a service (add/del/upd_dest);
 *   l7_pool     the pre-established TCP connections from the director to
 *               one real server, refilled from process context;
 *   l7_pconn    one pooled connection.
 * Every callback IPVS makes into us runs in process context under its
 * __ip_vs_mutex, which is what serialises the object lifetimes.
 */
#ifndef _IP_VS_L7_H
#define _IP_VS_L7_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <net/ip_vs.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "core/binding_life.h"
#include "core/client_seg.h"
#include "core/conn_clock.h"
#include "core/conn_sm.h"
#include "core/head_copy.h"
#include "core/http_body.h"
#include "core/http_req.h"
#include "core/http_resp.h"
#include "core/rate_floor.h"
#include "core/req_guard.h"
#include "core/rsp_guard.h"
#include "core/sched_wlo.h"
#include "core/tcp_accept.h"
#include "core/tcp_guard.h"
#include "core/tcp_listen.h"
#include "core/tcp_opt.h"
#include "core/tcp_map.h"
#include "uapi/ip_vs_l7_genl.h"

struct l7_pool;
struct l7_conn;
struct l7_source;

/* A connection's output route (ip_vs_l7_dst.c): its addresses are fixed. */
struct l7_dst_cache {
	struct dst_entry __rcu	*dst;
	u32			cookie;		/* IPv6: the route's serial */
};

enum l7_pconn_state {
	L7_PC_IDLE,	/* established, ready to be bound */
	L7_PC_BUSY,	/* bound to a client connection */
	L7_PC_DEAD,	/* closed or reset by the server: to be reaped */
};

/*
 * The TCP state of a pooled connection, read from its socket once it is
 * established and before it is ever bound.  From its first binding on
 * the socket never sees the connection's packets again - the data path
 * owns the connection and keeps these numbers itself, updating them each
 * time a binding gives the connection back - and the socket is closed
 * silently (TCP_REPAIR) when the connection is retired.
 */
struct l7_pconn_tcp {
	union nf_inet_addr laddr;	/* the director's end */
	__be16	lport;
	u32	snd_nxt;	/* director's next seq to the backend */
	u32	rcv_nxt;	/* backend's next seq */
	u32	ts_recent;	/* backend's newest TSval */
	u32	ts_last;	/* newest TSval the director sent */
	u16	mss;		/* payload bytes per segment to the backend */
	u16	win;		/* window field we last announced */
	s8	snd_wscale;	/* backend's shift of its own window field */
	s8	rcv_wscale;	/* shift the backend applies to ours */
	bool	ts;
	bool	sack;
};

struct l7_pconn {
	struct list_head	list;	/* in pool->idle, resting, busy or dead */
	struct hlist_node	b_node;		/* backend tuple hash, once spliced */
	struct l7_pool		*pool;
	struct l7_conn		*conn;		/* bound to, RCU; NULL when idle */
	struct socket		*sock;
	enum l7_pconn_state	state;
	bool			spliced;	/* socket state is stale; pool->lock */
	bool			hashed;		/* in the backend tuple hash */
	bool			quiet;		/* the server has nothing to reset */
	bool			resting;	/* idle, not to be taken yet */
	unsigned int		uses;		/* bindings so far */
	unsigned long		born;		/* jiffies when (re)pooled */
	struct l7_pconn_tcp	tcp;
	struct l7_dst_cache	dst;		/* to the server */
	/*
	 * Idle after a binding, the server's response not acknowledged
	 * yet: the next request's copy will say it, else the timer does.
	 * The timer also ends its rest (l7_pool_release()).
	 */
	bool			ack_owed;	/* pool->lock */
	/*
	 * What it answers while idle (l7_pool_idle_packet()): at most one
	 * ACK per L7_CHALLENGE_GAP, as a binding's b_challenge, or whoever
	 * learns the tuple has the director send one ACK per segment it
	 * forges.  pool->lock.
	 */
	struct l7_tcp_ratelimit	idle_acks;
	struct timer_list	idle_timer;
	/* the socket's own callback, restored before release */
	void			(*saved_state_change)(struct sock *sk);
	struct rcu_head		rcu;
};

struct l7_pool_stats {
	u64	bindings;	/* requests bound to one: requests served */
	u64	reused;		/* ... to one that had served before */
	u64	errors;		/* requests that failed on this server */
	u64	opened;		/* connections established */
	u64	failed;		/* connect attempts that failed */
	u64	closed;		/* closed by the server while pooled */
	u64	aged;		/* closed by us after pool_idle_ttl */
};

/* Forwarded payload, counted per CPU on the hot path. */
struct l7_pool_bytes {
	u64	to_server;
	u64	from_server;
};

struct l7_pool {
	spinlock_t		lock;		/* lists, counts, flags; BH-safe */
	struct list_head	idle;
	struct list_head	resting;	/* idle, released < reuse_delay ago */
	struct list_head	busy;
	struct list_head	dead;		/* waiting for the refill work */
	unsigned int		n_idle;		/* may be taken: not resting */
	unsigned int		n_resting;
	unsigned int		n_busy;
	unsigned int		wanted;		/* to open for waiting requests */
	atomic_t		outstanding;	/* requests without full response */
	/*
	 * The dest's u_threshold (ipvsadm -x): at most this many requests
	 * outstanding, 0 for no cap.  Written under ->lock; a slot is taken
	 * only under it (l7_pool_take()), and freed by l7_pool_req_done().
	 */
	unsigned int		max_out;
	struct l7_pool_bytes __percpu *bytes;
	bool			dying;		/* no more refills */
	bool			down;		/* refused or closed at once */
	bool			probing;	/* down, one connection on trial */
	unsigned int		backoff_ms;	/* retry delay while down */
	unsigned long		retry_at;	/* jiffies: next try while down */
	unsigned long		probe_at;	/* jiffies: the trial began */
	struct l7_pool_stats	stats;
	struct delayed_work	refill;
	/* what to connect to, fixed for the pool's life */
	struct net		*net;
	struct l7_service	*ls;		/* whose waiting requests to serve */
	u16			af;		/* the real server's family */
	union nf_inet_addr	baddr;		/* ... address and port */
	__be16			bport;
	int			weight;		/* mirror of the dest's weight */
	u64			pass;		/* its next turn among equals */
	/*
	 * Side by side, each peer's outstanding requests here, by its
	 * number in the checkpoint channel: written by the channel's
	 * receiver alone (ip_vs_l7_load.c), read racily by the pick.
	 */
	struct l7_peer_load	peers[IPVS_L7_SYNC_PEERS_MAX];
};

struct l7_dest {
	struct list_head	list;		/* in l7_service.dests */
	struct ip_vs_dest	*dest;
	struct l7_pool		pool;
};

/* How a spliced connection ended, for /proc. */
enum l7_end {
	L7_END_CLOSED,		/* both sides sent FIN */
	L7_END_CLIENT_RST,
	L7_END_SERVER_RST,
	L7_END_HEAD_LOST,	/* the backend never took our copy of the head */
	L7_END_BAD_RESPONSE,	/* a response the framer refused */
	L7_END_BAD_REQUEST,	/* a body the client broke (req_guard) */
	L7_END_IDLE,		/* idle_timeout */
	L7_END_SLOW_READER,	/* ack_timeout: the client took no response */
	L7_END_FLUSHED,		/* service, server or module went away */
	L7_END_COUNT
};

/*
 * A service's counters, one set per CPU: a request or a connection bumps
 * its own CPU's (no cache line shared by every CPU at request rate);
 * readers add them up (l7_percpu_sum()).  All u64: the sum treats
 * them as an array.
 */
struct l7_service_stats {
	u64		conns;		/* client handshakes completed */
	u64		bad_requests;	/* heads answered 4xx/5xx by us */
	u64		queued;		/* requests that waited for a conn */
	u64		retried;	/* sent again: server closed first */
	u64		rebinds;	/* requests after a connection's first */
	u64		held;		/* pipelined heads held for their turn */
	u64		refused_max;	/* handshakes refused: max_conns */
	u64		refused_source;	/* ... max_conns_per_source */
	u64		tunnels_refused; /* 101s past l7_max_tunnels */
	u64		source_capped;	/* 503s: source_max_pooled reached */
	u64		slow_request;	/* bodies below body_minrate */
	u64		head_mem_full;	/* head bytes left: head_mem_max */
	u64		ended[L7_END_COUNT];
	u64		unacceptable;	/* client segments refused (tcp_accept) */
	u64		srv_unacceptable;	/* server segments refused */
};

/*
 * Add up a per-CPU struct made of u64 counters only (struct l7_pool_bytes,
 * struct l7_service_stats) into @sum, of the same type: for /proc, which
 * may read a counter mid-update on another CPU and be off by that one.
 */
#define l7_percpu_sum(sum, pcpu)					\
do {									\
	BUILD_BUG_ON(sizeof(*(sum)) != sizeof(*(pcpu)) ||		\
		     sizeof(*(sum)) % sizeof(u64));			\
	l7_percpu_sum_u64((u64 *)(sum), (const u64 __percpu *)(pcpu),	\
			  sizeof(*(sum)) / sizeof(u64));		\
} while (0)

static inline void l7_percpu_sum_u64(u64 *sum, const u64 __percpu *pcpu,
				     size_t n)
{
	size_t i;
	int cpu;

	memset(sum, 0, n * sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const u64 *from = per_cpu_ptr(pcpu, cpu);

		for (i = 0; i < n; i++)
			sum[i] += READ_ONCE(from[i]);
	}
}

/* any context: count one @field (an lvalue of struct l7_service_stats) */
#define l7_service_count(ls, field)	this_cpu_inc((ls)->stats->field)

struct l7_service {
	struct list_head	list;		/* in l7_services */
	struct hlist_node	hnode;		/* in the VIP hash, RCU */
	struct ip_vs_service	*svc;
	struct net		*net;
	u16			af;		/* VIP and port, TCP only */
	union nf_inet_addr	vaddr;
	__be16			vport;
	bool			hashed;
	bool			no_prefork;	/* option prefork off: no idle pool */
	struct list_head	dests;		/* l7_dest */
	atomic_t		nr_conns;	/* l7_conn objects alive */
	atomic_t		tunnels;	/* connections upgraded (101) */
	u64			pass_clock;	/* stride scheduling of ties */
	/*
	 * A server of the service has (had) an upper threshold: a request
	 * that finds no room looks once more after it queued (dispatch.c).
	 */
	bool			capped;
	spinlock_t		waitq_lock;	/* after a conn's lock */
	struct list_head	waitq;		/* L7C_QUEUED, oldest first */
	unsigned int		waitq_len;
	struct l7_service_stats	__percpu *stats;
};

/* the window scale the director announces (Linux's for a 6 MB rcvbuf) */
#define L7_OUR_WSCALE	L7_LISTEN_OUR_WSCALE

/* the director's retransmission clock, for its replies and its copies */
#define L7_RTO		(HZ / 5)
/*
 * How long an ACK of the director's may wait for a segment that carries
 * it anyway (a server's response, the next request on a pooled
 * connection): TCP's shortest delayed ACK, well inside the peer's
 * retransmission timeout (200 ms at least).
 */
#define L7_DELACK	(HZ / 25)
/*
 * How long a finished binding whose server resent its tail waits for
 * the client to report that resend as a duplicate (l7_bindings_finish_acked()):
 * the report follows the client's ACK within its round trip.
 */
#define L7_DUP_WAIT	(HZ / 5)
#define L7_TS_OPT_LEN	12		/* NOP NOP TS */

/* at most one RFC 5961 challenge ACK per this, per connection */
#define L7_CHALLENGE_GAP	(HZ / 2)

/*
 * Addresses of either family, as IPVS keeps them: an IPv4 address in
 * ->ip, compared by that word alone, so the IPv4 path costs what it
 * did when it kept a __be32.
 */
static inline bool l7_addr_eq(u16 af, const union nf_inet_addr *a,
			      const union nf_inet_addr *b)
{
	if (af == AF_INET)
		return a->ip == b->ip;
	return ipv6_addr_equal(&a->in6, &b->in6);
}

/*
 * An address as the checkpoint channel's records carry it (conn_ckpt.h):
 * its 4 or 16 bytes at @out; its family there, 4 or 6.
 */
static inline u8 l7_addr_put(u8 *out, u16 af, const union nf_inet_addr *a)
{
	memcpy(out, a, af == AF_INET ? 4 : 16);
	return af == AF_INET ? 4 : 6;
}

/* A record's address of @family (4 or 6), the rest zero; its af. */
static inline u16 l7_addr_get(union nf_inet_addr *a, u8 family, const u8 *in)
{
	memset(a, 0, sizeof(*a));
	memcpy(a, in, family == 4 ? 4 : 16);
	return family == 4 ? AF_INET : AF_INET6;
}

/*
 * The network header's length (IPv6 extension headers included): the
 * hook set the transport header of every segment it hands on.
 */
static inline u32 l7_nhlen(const struct sk_buff *skb)
{
	return skb_transport_offset(skb);
}

/*
 * The options of the segment whose TCP header is @th, read where they
 * are (the hook pulled all of the header): < 0 if they do not parse.
 */
static inline int l7_tcp_opts_of(const struct tcphdr *th,
				 struct l7_tcp_opts *o)
{
	memset(o, 0, sizeof(*o));
	return l7_tcp_opts_parse((const u8 *)(th + 1),
				 th->doff * 4 - sizeof(*th), o);
}

/* The IP header's length field, after skb->len changed. */
static inline void l7_set_ip_len(struct sk_buff *skb)
{
	if (ip_hdr(skb)->version == 4)
		ip_hdr(skb)->tot_len = htons(skb->len);
	else
		ipv6_hdr(skb)->payload_len =
			htons(skb->len - sizeof(struct ipv6hdr));
}

/* The family of a segment in the hook. */
static inline u16 l7_skb_af(const struct sk_buff *skb)
{
	return ip_hdr(skb)->version == 4 ? AF_INET : AF_INET6;
}

/* @a as text (IPv6 compressed, without brackets), like snprintf() */
static inline int l7_addr_print(char *buf, size_t size, u16 af,
				const union nf_inet_addr *a)
{
	if (af == AF_INET)
		return snprintf(buf, size, "%pI4", &a->ip);
	return snprintf(buf, size, "%pI6c", &a->in6);
}

/*
 * One request and its response, carried by one pooled connection (FPS
 * steps 4-7).  A client connection makes one binding per request; the
 * newest is "current" while its request or response is still on the way,
 * older ones only wait for the client to acknowledge the end of their
 * response before their pooled connection goes back to the pool.  All
 * fields are under the client connection's lock.
 */
struct l7_binding {
	struct list_head	node;		/* in conn->bindings, oldest first */
	struct l7_pconn		*pc;
	u32			b_req_end;	/* backend seq after the request */
	u32			b_snd_nxt;	/* highest seq sent to the backend */
	u32			b_acked;	/* backend's newest ACK */
	u32			b_tsval;	/* newest backend TSval */
	u32			ts_sent;	/* newest TSval sent to the backend */
	u8			retries;	/* resends of our copy */
	bool			head_acked;	/* the backend has our copy */
	bool			req_done;	/* request end known (req_range) */
	bool			rsp_seen;	/* a response byte went out */
	bool			keep;		/* backend keeps the connection */
	bool			close_after;	/* the client asked for close */
	bool			b_rst;		/* backend sent RST */
	u8			tries;		/* times the request was lost */
	bool			upgrade;	/* the request asked for one */
	bool			tunnel;		/* 101: counts in ls->tunnels */
	bool			rsp_resent;	/* a server resend went out */
	bool			lost;		/* its server let the request go */
	u8			from;		/* its memory's (ip_vs_l7_reqmem.c) */
	u32			c_ack_passed;	/* newest client ACK passed on */
	/* the server's side as core/tcp_accept.c reads it (backend seqs) */
	u32			b_rcv_wup;	/* newest ACK sent to it */
	u32			b_rcv_edge;	/* right edge of its window */
	u32			b_wnd;		/* its window, bytes */
	u32			b_wl1;		/* seq of the segment that set it */
	u32			b_max_win;	/* the largest it announced */
	u32			rsp_last_pkt;	/* backend seq: its newest packet */
	struct l7_tcp_ratelimit	b_challenge;
	enum l7_http_method	method;
	/*
	 * An HTTP/1.0 keep-alive client's response head, when the director
	 * takes it (ip_vs_l7_rsp_copy.c): NULL, or L7_RSP_HEAD_MAX bytes for
	 * the server's head, then room for the director's copy of it.
	 */
	u8			*rsp_head;
	u8			*rsp_copy;	/* set once the copy is made */
	u32			rsp_copy_len;
	u32			rsp_copy_seq;	/* its first byte, on C */
	u32			copy_len;	/* our copy of the request's start */
	u32			client_len;	/* the client's bytes it stands for */
	u64			bound_ns;	/* when, if traced (trace.h) */
	/*
	 * From here on each member is set whole by its own init in
	 * l7_bind(), before the binding is seen: only what comes before
	 * ->map is zeroed (the three are 448 of the binding's 560 bytes).
	 */
	struct l7_binding_map	map;
	struct l7_req_guard	req_guard;	/* frames the request body */
	struct l7_rsp_guard	rsp_guard;	/* frames the response */
	u8			copy[];		/* then the client's bytes */
};

/* The client's bytes the director's copy was made from (for a retry). */
static inline const u8 *l7_binding_client_bytes(const struct l7_binding *b)
{
	return b->copy + b->copy_len;
}

/* Server seq just after the director's copy: the request's start. */
static inline u32 l7_binding_copy_end(const struct l7_binding *b)
{
	return b->pc->tcp.snd_nxt + b->copy_len;
}

/*
 * A client connection answered by the director.  Lives in the client
 * tuple hash (RCU); all fields below the hash node are under ->lock.
 * Whoever sets ->dead owns freeing it.
 *
 * The client's byte stream alternates between request heads, which the
 * director takes into ->head and acknowledges itself, and request
 * bodies, which pass through to the current binding's backend packet by
 * packet.  The response stream is the concatenation of the bindings'
 * responses, each mapped into the director's sequence space on this
 * connection right after the one before.
 */
struct l7_conn {
	struct hlist_node	c_node;
	struct list_head	wait_node;	/* in ls->waitq while queued */
	struct rcu_head		rcu;
	spinlock_t		lock;		/* everything below */
	bool			dead;
	const char		*dead_reason;	/* set: die at the next tick */
	enum l7_end		end;		/* why a spliced one ended */
	enum l7_conn_state	state;
	struct l7_service	*ls;
	struct net		*net;
	u16			af;		/* the client's and VIP's */
	union nf_inet_addr	caddr;
	union nf_inet_addr	vaddr;
	__be16			cport;
	__be16			vport;
	struct l7_dst_cache	dst;		/* to the client */
	struct l7_source	*src;		/* its client address's count */
	struct timer_list	timer;		/* at ->clock's next deadline */
	struct l7_clock		clock;		/* every deadline (clock.c) */
	unsigned int		retries;	/* of our reply or FIN */

	/* the client side of TCP, as the director plays it */
	u32			c_rcv_nxt;	/* next client seq the director takes */
	u32			c_acked;	/* highest ACK the director sent */
	u32			d_snd_una;	/* oldest of ours not acked */
	u32			d_snd_nxt;	/* our next seq */
	u32			c_tsval;	/* newest client TSval */
	u32			d_ts_last;	/* newest TSval we sent */
	/* the connection's TSval clock against l7_now_ts() */
	u32			d_ts_off;
	u16			c_mss;		/* what the client takes */
	u16			c_win;		/* client's window field (tcp_accept) */
	u32			c_wl1;		/* client seq of the one that set it */
	u32			c_max_win;	/* the largest it announced, bytes */
	u32			c_rcv_edge;	/* right edge of our window to it */
	u32			d_snd_isn;	/* d_snd_una at the handshake */
	s8			c_wscale;	/* shift of its window field */
	s8			d_wscale;	/* shift it applies to ours */
	bool			c_ts;
	bool			c_sack;
	bool			c_fin;		/* client sent FIN */
	bool			reset;		/* a RST went through */
	bool			handed_over;	/* a peer took it over */
	/* how far it may fall behind sending a body, reading (floor.c) */
	struct l7_rate_floor	body_floor;
	struct l7_rate_floor	read_floor;
	struct l7_tcp_ratelimit	challenge;	/* our challenge ACKs */

	/* request heads not yet sent, bounded by l7_max_head */
	u8			*head;		/* NULL while empty */
	u32			head_cap;	/* bytes allocated at ->head */
	u32			head_len;	/* bytes in ->head */
	u32			c_seq0;		/* client seq of ->head[0] */
	u32			framed;		/* bytes fed to ->req */
	int			bad_status;	/* held head refused: answer */
	struct l7_http_req	req;
	unsigned int		requests;	/* bound so far */
	u64			dispatch_ns;	/* this head's, if traced */
	u8			tries_next;	/* the next bind's ->tries */
	struct l7_pool		*want;		/* prefork off: to ask, RCU */

	/* our own reply (an error response), resent until acked */
	const char		*reply;
	u32			reply_len;
	u32			reply_seq;

	u8			copy_retries;	/* of response heads of ours */

	struct list_head	bindings;	/* l7_binding, oldest first */
	unsigned int		nr_bindings;	/* at most l7_client_max_pooled */
	struct l7_binding	*cur;		/* request/response under way */
	/*
	 * While a client segment's bytes are taken (l7_client_took_head()):
	 * it is so far the whole of the next head, and a bind from it leaves
	 * its copy unsent, at ->copy_waits, for the segment to carry.
	 */
	bool			seg_whole_head;
	struct l7_binding	*copy_waits;
	/*
	 * Out of ->bindings: one whose response the client has whole and
	 * whose server resent some of it, until L7_CLK_DUP_WAIT, for the
	 * client's report of the duplicate (l7_bindings_finish_acked()).
	 */
	struct l7_binding	*probed;

	/* the generation of the backup's record of it; 0: none (sync.c) */
	u64			ckpt_gen;
	/* the boundary that record is of: its rcv_nxt and snd_nxt */
	u32			ckpt_rcv_nxt;
	u32			ckpt_snd_nxt;
};

/* Whether the director's segments to @b's server carry a timestamp. */
static inline bool l7_binding_ts(const struct l7_conn *c,
				 const struct l7_binding *b)
{
	return b->pc->tcp.ts && c->c_ts;
}

/* @b of @c, as core/binding_life.h reads it. */
static inline struct l7_bl l7_bl_of(const struct l7_conn *c,
				    const struct l7_binding *b)
{
	return (struct l7_bl){
		.req_end = b->b_req_end,
		.acked = b->b_acked,
		.snd_nxt = b->b_snd_nxt,
		.copy_end = l7_binding_copy_end(b),
		.passed = l7_seq_inv(&b->map.rsp, b->c_ack_passed),
		.last_pkt = b->rsp_last_pkt,
		.rsp_end = b->map.rsp_range.end,
		.passed_c = b->c_ack_passed,
		.req_done = b->req_done,
		.rsp_done = b->rsp_guard.done,
		.keep = b->keep,
		.rsp_fin = b->rsp_guard.fin,
		.srv_rst = b->b_rst,
		.rsp_seen = b->rsp_seen,
		.rsp_resent = b->rsp_resent,
		.sack = b->map.c_sack && b->map.b_sack,
		.tries = b->tries,
		.idempotent = l7_http_method_idempotent(b->method),
		.under_way = c->cur == b,
		.tunnel = b->rsp_guard.tunnel,
	};
}

/* The client's window in bytes: its last window field, scaled. */
static inline u32 l7_client_snd_wnd(const struct l7_conn *c)
{
	return l7_win_bytes(c->c_win, c->c_wscale);
}

/* ip_vs_l7_main.c: module parameters */
extern unsigned int l7_pool_min_idle;
extern unsigned int l7_pool_max;
extern unsigned int l7_pool_idle_ttl;
extern unsigned int l7_max_tunnels;
extern bool l7_sync_forward;
extern bool l7_datapath;
extern unsigned int l7_max_head;
extern unsigned int l7_head_timeout;
extern unsigned int l7_idle_timeout;
extern unsigned int l7_tunnel_timeout;
extern unsigned int l7_queue_max;
extern unsigned int l7_queue_timeout;
extern unsigned int l7_pool_reuse_delay;
extern unsigned int l7_head_mem_max;
extern unsigned int l7_client_max_pooled;
extern unsigned int l7_ack_timeout;
extern unsigned int l7_read_minrate;
extern unsigned int l7_body_timeout;
extern unsigned int l7_body_minrate;
extern unsigned int l7_max_conns;
extern unsigned int l7_max_conns_per_source;
extern int l7_source_max_pooled;
extern unsigned int l7_conn_buckets;
#define L7_BUCKETS_MIN		(1U << 14)	/* conn_buckets' range */
#define L7_BUCKETS_MAX		(1U << 20)
extern unsigned int l7_forwarded;

/* @c's request sequence, as core/conn_sm.h reads it.  c->lock held. */
static inline struct l7_csm l7_csm_of(const struct l7_conn *c)
{
	const struct l7_binding *b = c->cur;
	struct l7_csm m = {
		.state = c->state,
		.bindings = c->nr_bindings,
		.max_pooled = l7_client_max_pooled,
		.c_fin = c->c_fin,
		.dead = c->dead || c->dead_reason,
		.reset = c->reset,
		.handed_over = c->handed_over,
	};

	if (b) {
		m.cur = true;
		m.cur_req_done = b->req_done;
		m.cur_rsp_done = b->rsp_guard.done;
		m.cur_rsp_seen = b->rsp_seen;
		m.cur_close_after = b->close_after;
		m.cur_lost = b->lost;
		m.cur_rsp_fin = b->rsp_guard.fin;
		m.cur_srv_rst = b->b_rst;
		m.cur_upgrade = b->upgrade;
	}
	m.head_pending = c->head_len;
	return m;
}

/* ip_vs_l7_svc.c */
extern struct list_head l7_services;
extern struct mutex l7_services_mutex;
int l7_service_init(struct ip_vs_service *svc);
void l7_service_done(struct ip_vs_service *svc);
int l7_service_add_dest(struct ip_vs_service *svc, struct ip_vs_dest *dest);
int l7_service_del_dest(struct ip_vs_service *svc, struct ip_vs_dest *dest);
int l7_service_upd_dest(struct ip_vs_service *svc, struct ip_vs_dest *dest);
void l7_service_opts_changed(struct net *net);

/* ip_vs_l7_vip.c */
struct l7_service *l7_service_lookup(const struct net *net, u16 af,
				     const union nf_inet_addr *vaddr,
				     __be16 vport);
void l7_service_hash(struct l7_service *ls);
void l7_service_unhash(struct l7_service *ls);
bool l7_service_tunnel_begin(struct l7_service *ls);
void l7_service_tunnel_end(struct l7_service *ls);
bool l7_service_ipvs_conn(struct net *net, u16 af,
			  const union nf_inet_addr *caddr, __be16 cport,
			  const union nf_inet_addr *vaddr, __be16 vport);

/* ip_vs_l7_reqmem.c */
#define L7_HEAD_MIN		512	/* first allocation of ->head */
int l7_reqmem_module_init(void);
void l7_reqmem_module_exit(void);
struct l7_binding *l7_binding_alloc(u32 room, bool take, bool log,
				    struct l7_guard_log **logp);
void l7_binding_mem_free(struct l7_binding *b);
u8 *l7_head_mem_alloc(u32 cap);
void l7_head_mem_free(u8 *head, u32 cap);

/* ip_vs_l7_conn.c */
int l7_conn_module_init(void);
void l7_conn_module_exit(void);
struct l7_conn *l7_conn_lookup(const struct net *net, u16 af,
			       const union nf_inet_addr *caddr, __be16 cport,
			       const union nf_inet_addr *vaddr, __be16 vport);
struct l7_conn *l7_conn_alloc(struct l7_service *ls,
			      const union nf_inet_addr *caddr, __be16 cport,
			      const union nf_inet_addr *vaddr, __be16 vport);
bool l7_conn_insert(struct l7_conn *c);
void l7_conn_closing(struct l7_conn *c);
bool l7_source_pooled_get(struct l7_conn *c);
void l7_source_pooled_put(struct l7_conn *c);
bool l7_head_reserve(struct l7_conn *c, u32 need);
void l7_head_release(struct l7_conn *c);
void l7_conn_unhash(struct l7_conn *c);
void l7_conn_release(struct l7_conn *c);
struct l7_conn *l7_conn_kill_next(struct l7_service *ls, struct l7_pool *pool,
				  unsigned int *h);
struct l7_pconn *l7_pconn_lookup(const struct net *net, u16 af,
				 const union nf_inet_addr *baddr, __be16 bport,
				 const union nf_inet_addr *laddr, __be16 lport);
void l7_pconn_hash(struct l7_pconn *pc);
void l7_pconn_unhash(struct l7_pconn *pc);

/*
 * c->lock held: the connection moved forward - new in-order client bytes
 * taken or forwarded, an ACK that covers more of what was sent, response
 * bytes forwarded.  Only progress re-arms idle_timeout: pure ACKs,
 * window probes and dropped segments do not keep a connection alive.
 */
static inline void l7_conn_progress(struct l7_conn *c)
{
	lockdep_assert_held(&c->lock);
	l7_clock_progress(&c->clock, jiffies);
}

/* ip_vs_l7_clock.c */
struct l7_clock_rule l7_conn_clock_rule(void);
void l7_conn_clock_start(struct l7_conn *c);
void l7_conn_timer_arm(struct l7_conn *c);
void l7_conn_due_in(struct l7_conn *c, enum l7_clock_slot s,
		    unsigned long delay);
void l7_conn_end(struct l7_conn *c, enum l7_end end, const char *reason);

/* ip_vs_l7_events.c */
void l7_conn_settle(struct l7_conn *c);
void l7_conn_timer_fn(struct timer_list *t);
void l7_conn_flush(struct l7_service *ls, struct l7_pool *pool);
unsigned int l7_client_packet(struct l7_conn *c, struct sk_buff *skb);
bool l7_backend_packet(struct l7_conn *c, struct l7_pconn *pc,
		       struct sk_buff *skb, unsigned int *verdict);
void l7_queue_kick(struct l7_service *ls);

/* ip_vs_l7_dispatch.c */
void l7_head_ready(struct l7_conn *c);
void l7_held_dispatch(struct l7_conn *c);
void l7_queue_del(struct l7_conn *c);
struct l7_conn *l7_queue_pop(struct l7_service *ls);
bool l7_queue_bind(struct l7_conn *c);
void l7_queue_late(struct l7_conn *c);

/* ip_vs_l7_bind.c */
struct l7_bind_result l7_bind(struct l7_conn *c);
void l7_binding_req_end(struct l7_conn *c, struct l7_binding *b, u32 end);

/* ip_vs_l7_bind_life.c */
struct l7_binding *l7_binding_of(struct l7_conn *c, const struct l7_pconn *pc);
void l7_bindings_finish_acked(struct l7_conn *c, u32 ack,
			      const struct l7_tcp_sack_block *dup);
void l7_binding_dup_wait_over(struct l7_conn *c);
void l7_binding_abort(struct l7_conn *c, struct l7_binding *b);
void l7_binding_abort_all(struct l7_conn *c);
void l7_binding_lost(struct l7_conn *c, struct l7_binding *b);
void l7_binding_copy_due(struct l7_conn *c);

/* ip_vs_l7_bind_xmit.c */
u16 l7_win_to_backend(const struct l7_conn *c, const struct l7_binding *b);
void l7_binding_announced(struct l7_binding *b, u32 ack, u16 win);
void l7_binding_send_ack(struct l7_conn *c, struct l7_binding *b, u32 ack);
void l7_binding_dsack(struct l7_conn *c, struct l7_binding *b,
		      const struct l7_tcp_sack_block *dup);
void l7_binding_copy_numbers(struct l7_conn *c, struct l7_binding *b,
			     struct l7_tcp_seg *s);
void l7_binding_send_copy(struct l7_conn *c, struct l7_binding *b);
void l7_binding_send_first(struct l7_conn *c, struct l7_binding *b);
void l7_binding_reset(struct l7_conn *c, struct l7_binding *b);

/* ip_vs_l7_rsp_copy.c */
bool l7_rsp_copy_wanted(const struct l7_conn *c);
void l7_rsp_copy_taken(struct l7_conn *c, struct l7_binding *b);
void l7_rsp_copy_start(struct l7_conn *c, struct l7_binding *b);
void l7_rsp_copy_due(struct l7_conn *c);

/* ip_vs_l7_splice.c */
int l7_seg_trim(struct sk_buff *skb, u32 hlen, u32 keep);
int l7_seg_clip(struct sk_buff *skb, u32 hlen, u32 skip, u32 keep);
int l7_seg_take(struct sk_buff *skb, struct l7_tcp_opts *o,
		struct l7_tcp_seg *s);
void l7_seg_read(const struct sk_buff *skb, const struct l7_tcp_opts *o,
		 struct l7_tcp_seg *s);
int l7_seg_cut_front(struct sk_buff *skb, u32 hlen, u32 n);
u32 l7_seg_last_packet(const struct sk_buff *skb, u32 seq, u32 payload);
/* a segment's payload, as the guards read and write it */
struct l7_skb_payload {
	struct sk_buff *skb;
	u32 hlen;
};

const u8 *l7_skb_peek(const void *ctx, u32 off, u32 n, u8 *buf);
bool l7_skb_poke(const void *ctx, u32 off, const u8 *bytes, u32 n);
unsigned int l7_splice_out_server(struct l7_conn *c, struct l7_binding *b,
				  struct sk_buff *skb, struct l7_tcp_opts *o,
				  const struct l7_tcp_seg *s, unsigned int flags);
unsigned int l7_splice_out_client(struct l7_conn *c, struct l7_binding *b,
				  struct sk_buff *skb, struct l7_tcp_opts *o,
				  const struct l7_tcp_seg *s, unsigned int flags,
				  u32 payload);

/* ip_vs_l7_relay.c */
/* what becomes of a client segment of a request body, framed */
enum l7_body_act {
	L7_BODY_DROP,		/* nothing of it goes on */
	L7_BODY_ACK_ONLY,	/* none of its bytes: only its ACK may */
	L7_BODY_SEND,		/* l7_relay_body() sends what was framed */
	/* the request ended in it: SEND once the caller took what follows */
	L7_BODY_ENDED,
};

struct l7_body_seg {
	struct l7_guard_verdict	v;
	struct l7_tcp_opts	o;
	struct l7_tcp_seg	s;
	u32			hlen;
	bool			whole;	/* no bytes framed: it goes as it is */
};

unsigned int l7_relay_copy(struct l7_conn *c, struct l7_binding *b,
			   struct sk_buff *skb);
unsigned int l7_relay_c2b(struct l7_conn *c, struct l7_binding *b,
			  struct sk_buff *skb);
unsigned int l7_relay_body(struct l7_conn *c, struct l7_binding *b,
			   struct sk_buff *skb, struct l7_body_seg *bs);
unsigned int l7_relay_ack(struct l7_conn *c, struct l7_binding *b,
			  struct sk_buff *skb, u32 hlen, bool pure);
unsigned int l7_relay_b2c(struct l7_conn *c, struct l7_binding *b,
			  struct sk_buff *skb, struct l7_tcp_opts *o,
			  struct l7_tcp_seg *s, u32 payload);

/* ip_vs_l7_xmit.c */
/* a segment the director writes itself (l7_xmit()) */
struct l7_seg {
	u16	af;
	union nf_inet_addr saddr;
	union nf_inet_addr daddr;
	__be16	sport;
	__be16	dport;
	u32	seq;
	u32	ack;
	u8	flags;		/* TCPHDR_* */
	u16	win;
	const u8 *opt;
	unsigned int optlen;
	const void *data;
	unsigned int len;
	struct l7_dst_cache *dst;	/* the connection's route, or NULL */
};

void l7_xmit(struct net *net, const struct l7_seg *s);
u32 l7_now_ts(void);
u32 l7_conn_ts_now(const struct l7_conn *c);
u32 l7_client_tsval(const struct l7_conn *c);
void l7_conn_ts_continue(struct l7_conn *c, u32 offset);
void l7_send_synack(struct net *net, const struct sk_buff *syn, u32 cookie,
		    u16 mss, int wscale, bool sack, bool ts, u32 tsecr);
void l7_send_rst(struct net *net, const struct sk_buff *in);
struct l7_ckpt_conn;
void l7_send_probe(struct net *net, const struct l7_ckpt_conn *k,
		   u32 ts_off);
struct l7_ckpt_tuple;
u16 l7_ckpt_tuple_addrs(const struct l7_ckpt_tuple *t,
			union nf_inet_addr *caddr, union nf_inet_addr *vaddr);
bool l7_unanswerable(const struct sk_buff *skb);
/* whether @a is an address of this director (a VIP it holds now) */
bool l7_addr_local(struct net *net, u16 af, const union nf_inet_addr *a);
void l7_send_pconn(struct l7_pconn *pc, u8 flags, u32 seq, u32 ack,
		   u16 win, const struct l7_tcp_opts *opts, const void *data,
		   u32 len);

/* ip_vs_l7_dst.c */
struct dst_entry *l7_dst_attach(struct sk_buff *skb, struct net *net,
				struct l7_dst_cache *dc, u16 af,
				const union nf_inet_addr *saddr,
				const union nf_inet_addr *daddr);
void l7_dst_cache_reset(struct l7_dst_cache *dc);

/* ip_vs_l7_fwd.c: a segment to, and from, the director holding its conn */
unsigned int l7_fwd_xmit(struct net *net, struct sk_buff *skb,
			 const union nf_inet_addr *to);
unsigned int l7_fwd_rcv(struct sk_buff *skb, const struct iphdr *iph,
			const struct nf_hook_state *state);

/* ip_vs_l7_listen.c */
unsigned int l7_client_new(struct l7_service *ls, struct sk_buff *skb);

/* ip_vs_l7_server.c */
void l7_tunnel_track_close(struct l7_conn *c);
unsigned int l7_server_seg(struct l7_conn *c, struct l7_binding *b,
			   struct sk_buff *skb);

/* ip_vs_l7_client.c */
unsigned int l7_client_segment(struct l7_conn *c, struct sk_buff *skb);
unsigned int l7_server_segment(struct l7_conn *c, struct l7_binding *b,
			       struct sk_buff *skb);

/* ip_vs_l7_head.c */
bool l7_head_frame(struct l7_conn *c);
void l7_head_restart(struct l7_conn *c);
bool l7_head_reframe(struct l7_conn *c);
bool l7_head_take(struct l7_conn *c, const struct sk_buff *skb, u32 off,
		  u32 len);
void l7_head_consume(struct l7_conn *c, u32 n);

/* ip_vs_l7_reply.c */
void l7_reply(struct l7_conn *c, int status, const char *why);
void l7_close_client(struct l7_conn *c);
void l7_reply_due(struct l7_conn *c);
void l7_head_late(struct l7_conn *c);
void l7_close_late(struct l7_conn *c);

/* ip_vs_l7_client_tcp.c */
void l7_send_client(struct l7_conn *c, u8 flags,
		    u32 seq, const void *data, u32 len);
void l7_send_client_ack(struct l7_conn *c, u32 ack);
struct l7_cseg_ctx l7_cseg_ctx_of(const struct l7_conn *c);
struct l7_tcp_endpoint l7_client_endpoint(const struct l7_conn *c);
struct l7_seg_bounds l7_client_bounds(const struct l7_conn *c);
bool l7_may_ack(const struct l7_conn *c);
void l7_send_ack(struct l7_conn *c);
void l7_ack_later(struct l7_conn *c);
void l7_ack_due(struct l7_conn *c);
void l7_challenge_ack(struct l7_conn *c);
void l7_client_ack_sent(struct l7_conn *c, u32 ack);
void l7_client_announced(struct l7_conn *c, u32 ack, u16 win);
void l7_client_server_acked(struct l7_conn *c, const struct l7_binding *b);

/* ip_vs_l7_floor.c */
void l7_floor_init(struct l7_conn *c);
void l7_floor_body_start(struct l7_conn *c);
void l7_floor_body_moved(struct l7_conn *c, u32 n);
void l7_floor_read_moved(struct l7_conn *c, u32 n);
void l7_floor_update(struct l7_conn *c);
/* l7_floor_due(): which floor a client fell below */
enum l7_floor_verdict {
	L7_FLOOR_HOLDS,
	L7_FLOOR_SLOW_BODY,	/* its request body: body_minrate */
	L7_FLOOR_SLOW_READER,	/* reading its response: read_minrate */
};

enum l7_floor_verdict l7_floor_due(struct l7_conn *c);

/* ip_vs_l7_icmp.c */
struct l7_ports;
unsigned int l7_icmp_packet(struct sk_buff *skb, const struct l7_ports *ports,
			    const struct nf_hook_state *state);
unsigned int l7_icmp6_packet(struct sk_buff *skb, unsigned int off,
			     const struct l7_ports *ports,
			     const struct nf_hook_state *state);

/* ip_vs_l7_secrets.c: the SYN cookie's and the TSval clock's secrets */
#define L7_SECRETS_LEN	32
/* the tier's, from @bytes (L7_SECRETS_LEN, the channel's key), or random */
void l7_secrets_set(struct net *net, const u8 *bytes);
/*
 * a cookie for @syn, the client's MSS in *@mss made one it can carry,
 * with its window-scale shift @wscale (-1: none) and @sack
 */
u32 l7_syncookie_make(struct net *net, const struct sk_buff *syn, u16 *mss,
		      int wscale, bool sack);
/* the MSS the cookie @ack returns carries, 0 if it is none of ours */
u16 l7_syncookie_check(struct net *net, const struct sk_buff *ack);
/* the TSval clock from @saddr to @daddr against l7_now_ts() */
u32 l7_ts_clock_off(struct net *net, u16 af, const union nf_inet_addr *saddr,
		    const union nf_inet_addr *daddr);
int l7_secrets_init(void);
void l7_secrets_exit(void);

/* ip_vs_l7_hook.c */
int l7_hook_init(void);
void l7_hook_exit(void);
int l7_hook_get(struct net *net);
void l7_hook_put(struct net *net);

/* ip_vs_l7_ports.c */
const struct l7_ports *l7_ports_get(const struct net *net);
bool l7_ports_vip(const struct l7_ports *p, __be16 dport);
bool l7_ports_server(const struct l7_ports *p, __be16 sport);
int l7_ports_add(struct net *net, bool vip, __be16 port);
void l7_ports_rebuild(struct net *net);
int l7_ports_init(void);
void l7_ports_exit(void);

/* ip_vs_l7_pool.c */
/* a connection the server closes sooner than this was never usable */
#define L7_SHORT_LIVED		(HZ / 2)

/* the pool's server as a socket address of its family */
union l7_sockaddr {
	struct sockaddr		sa;
	struct sockaddr_in	sin;
	struct sockaddr_in6	sin6;
};

int l7_pool_module_init(void);
void l7_pool_module_exit(void);
struct sockaddr *l7_pool_sa(const struct l7_pool *pool, union l7_sockaddr *sa);
bool l7_pool_prefork(const struct l7_pool *pool);
void l7_pool_kick(struct l7_pool *pool, unsigned long delay);
void l7_pool_again(struct l7_pool *pool, unsigned long delay);
void l7_pconn_unlink(struct l7_pconn *pc);
void l7_pconn_discard(struct l7_pconn *pc, struct list_head *to);
void l7_pool_failed(struct l7_pool *pool);
void l7_pconn_mark_dead(struct l7_pconn *pc);
void l7_pconn_state_change(struct sock *sk);
void l7_pconn_close_list(struct list_head *head);
void l7_pconn_idle_fn(struct timer_list *t);
void l7_pool_set_max(struct l7_pool *pool, unsigned int max);
void l7_pool_req_done(struct l7_pool *pool);
void l7_pool_mode_changed(struct l7_pool *pool);
void l7_pool_want(struct l7_pool *pool);
void l7_pool_destroy(struct l7_pool *pool);
struct l7_pconn *l7_pool_take(struct l7_pool *pool);
void l7_pool_release(struct l7_pconn *pc, bool keep, bool ack_owed);
void l7_pconn_send_ack(struct l7_pconn *pc, const struct l7_pconn_tcp *t,
		       const struct l7_tcp_sack_block *dup);
void l7_pool_count_error(struct l7_pool *pool);
unsigned int l7_pool_idle_packet(struct l7_pconn *pc, struct sk_buff *skb);
bool l7_pool_sock_spliced(const struct sock *sk);

/*
 * Whether @pool's server has as many requests outstanding as its upper
 * threshold allows (racy: l7_pool_take() decides).  One read when uncapped.
 */
static inline bool l7_pool_full(const struct l7_pool *pool)
{
	unsigned int max = READ_ONCE(pool->max_out);

	return max && (unsigned int)atomic_read(&pool->outstanding) >= max;
}

/* the clock of the peers' words on the load (struct l7_peer_load) */
static inline u32 l7_load_now_ms(void)
{
	return jiffies_to_msecs(jiffies);
}

/* Side by side, the requests @pool's server has from the peers now. */
static inline u32 l7_pool_peer_outstanding(const struct l7_pool *pool)
{
	return l7_wlo_peers(pool->peers, IPVS_L7_SYNC_PEERS_MAX,
			    l7_load_now_ms(), L7_LOAD_FRESH_MS);
}

/*
 * The requests outstanding on @pool's server for the pick: this
 * director's and, side by side, its peers' (core/sched_wlo.h).  Its
 * upper threshold still caps this director's alone.
 */
static inline u32 l7_pool_tier_outstanding(const struct l7_pool *pool)
{
	return (u32)atomic_read(&pool->outstanding) +
	       l7_pool_peer_outstanding(pool);
}

/* ip_vs_l7_load.c */
u32 l7_load_write(struct net *net, struct l7_ckpt_writer *w, u32 skip);
void l7_load_apply(struct net *net, const struct l7_ckpt_load *l, u8 from);

/* ip_vs_l7_pool_refill.c */
int l7_pool_init(struct l7_pool *pool, struct l7_service *ls,
		 const struct ip_vs_dest *dest);
void l7_pool_set_weight(struct l7_pool *pool, int weight);

/* ip_vs_l7_proc.c */
int l7_proc_init(void);
void l7_proc_exit(void);

/* ip_vs_l7_route.c */
/* where l7_route() sent a request, for its tracepoint */
struct l7_routed {
	int	rule;			/* the rule's id, -1: none */
	char	pool[IPVS_L7_POOL_NAME_LEN];	/* "": the service's servers */
};

struct l7_pconn *l7_route(struct l7_conn *c, int *status,
			 enum l7_fwd_mode *fwd, struct l7_routed *rt);
int l7_route_init(void);
void l7_route_exit(void);

/* ip_vs_l7_sched.c */
int l7_sched_init(void);
void l7_sched_exit(void);

#endif /* _IP_VS_L7_H */
