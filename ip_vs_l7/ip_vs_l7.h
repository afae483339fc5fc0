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

#include "core/http_req.h"
#include "core/tcp_map.h"

#include "core/http_req.h"

struct l7_pool;
struct l7_conn;

enum l7_pconn_state {
	L7_PC_IDLE,	/* established, ready to be bound */
	L7_PC_BUSY,	/* bound to a client connection */
	L7_PC_DEAD,	/* closed or reset by the server: to be reaped */
};

/*
 * The TCP state of a pooled connection, read from its socket once it is
 * established and before it is ever bound; from its first binding on the
 * socket never sees the connection's packets again, and it is closed
 * silently (TCP_REPAIR) when the connection is retired.
 */
struct l7_pconn_tcp {
	__be32	laddr;		/* the director's end */
	__be16	lport;
	u32	snd_nxt;	/* director's next seq to the backend */
	u32	rcv_nxt;	/* backend's next seq */
	u32	ts_recent;	/* backend's newest TSval */
	u32	ts_last;	/* newest TSval the director sent */
	u16	mss;		/* payload bytes per segment to the backend */
	s8	snd_wscale;	/* backend's shift of its own window field */
	s8	rcv_wscale;	/* shift the backend applies to ours */
	bool	ts;
	bool	sack;
};

struct l7_pconn {
	struct list_head	list;		/* in pool->idle or pool->busy */
	struct hlist_node	b_node;		/* backend tuple hash, bound */
	struct l7_pool		*pool;
	struct l7_conn		*conn;		/* bound to, RCU */
	struct socket		*sock;
	enum l7_pconn_state	state;
	bool			spliced;	/* socket state is stale */
	unsigned long		born;		/* jiffies when established */
	struct l7_pconn_tcp	tcp;
	/* the socket's own callback, restored before release */
	void			(*saved_state_change)(struct sock *sk);
};

struct l7_pool_stats {
	u64	bindings;	/* client connections bound to one */
	u64	opened;		/* connections established */
	u64	failed;		/* connect attempts that failed */
	u64	closed;		/* closed by the server while pooled */
	u64	aged;		/* closed by us after pool_idle_ttl */
};

struct l7_pool {
	spinlock_t		lock;		/* lists, counts, flags; BH-safe */
	struct list_head	idle;
	struct list_head	busy;
	struct list_head	dead;		/* waiting for the refill work */
	unsigned int		n_idle;
	unsigned int		n_busy;
	bool			dying;		/* no more refills */
	bool			down;		/* last connect failed */
	unsigned int		backoff_ms;	/* retry delay while down */
	struct l7_pool_stats	stats;
	struct delayed_work	refill;
	/* what to connect to, fixed for the pool's life */
	struct net		*net;
	struct l7_service	*ls;		/* whose waiting requests to serve */
	struct sockaddr_in	addr;
	int			weight;		/* mirror of the dest's weight */
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
	L7_END_IDLE,		/* idle_timeout */
	L7_END_FLUSHED,		/* service, server or module went away */
	L7_END_COUNT
};

struct l7_service_stats {
	atomic64_t	conns;		/* client handshakes completed */
	atomic64_t	bad_requests;	/* heads answered 4xx/5xx by us */
	atomic64_t	queued;		/* requests that waited for a conn */
	atomic64_t	retried;	/* sent again: server closed first */
	atomic64_t	ended[L7_END_COUNT];
};

struct l7_service {
	struct list_head	list;		/* in l7_services */
	struct hlist_node	hnode;		/* in the VIP hash, RCU */
	struct ip_vs_service	*svc;
	struct net		*net;
	__be32			vaddr;		/* VIP and port, IPv4 TCP only */
	__be16			vport;
	bool			hashed;
	struct list_head	dests;		/* l7_dest */
	atomic_t		nr_conns;	/* l7_conn objects alive */
	atomic_t		pick_cursor;	/* round-robin among equals */
	spinlock_t		waitq_lock;	/* after a conn's lock */
	struct list_head	waitq;		/* L7C_QUEUED, oldest first */
	unsigned int		waitq_len;
	struct l7_service_stats	stats;
};

/*
 * A client connection answered by the director.  Lives in the client
 * tuple hash (RCU); all fields below the hash node are under ->lock.
 * Whoever sets ->dead owns freeing it.
 */
/* the window scale the director announces (Linux's for a 6 MB rcvbuf) */
#define L7_OUR_WSCALE	7

enum l7_conn_state {
	L7C_HEAD,	/* collecting the first request head */
	L7C_QUEUED,	/* head framed, waiting for a pooled connection */
	L7C_SPLICED,	/* bound to a pooled connection, packets rewritten */
	L7C_CLOSING,	/* our reply and FIN sent; waiting for the client */
};

struct l7_conn {
	struct hlist_node	c_node;
	struct list_head	wait_node;	/* in ls->waitq while queued */
	struct rcu_head		rcu;
	spinlock_t		lock;
	bool			dead;
	const char		*dead_reason;	/* set: die at the next tick */
	enum l7_end		end;		/* why a spliced one ended */
	enum l7_conn_state	state;
	struct l7_service	*ls;
	struct net		*net;
	__be32			caddr;
	__be32			vaddr;
	__be16			cport;
	__be16			vport;
	struct timer_list	timer;		/* idle timeout, retransmit */
	unsigned int		retries;

	/* the client side of TCP, as the director plays it */
	u32			c_rcv_nxt;	/* next client seq expected */
	u32			d_snd_una;	/* oldest of ours not acked */
	u32			d_snd_nxt;	/* our next seq */
	u32			c_tsval;	/* newest client TSval */
	u32			d_ts_last;	/* newest TSval we sent */
	u16			c_mss;		/* what the client takes */
	s8			c_wscale;	/* shift of its window field */
	s8			d_wscale;	/* shift it applies to ours */
	bool			c_ts;
	bool			c_sack;
	bool			c_fin;		/* client sent FIN */

	/* the first request head, bounded by l7_max_head */
	u8			*head;
	u32			head_len;
	struct l7_http_req	req;

	/* our own reply (an error response), resent until acked */
	const char		*reply;
	u32			reply_len;
	u32			reply_seq;

	/* the binding to a pooled connection (FPS step 4) */
	struct l7_pconn		*pc;
	struct l7_binding_map	map;
	u32			c_seq0;		/* client seq of first head byte */
	u32			b_head_end;	/* backend seq after our copy */
	u32			b_snd_nxt;	/* highest seq sent to backend */
	u32			b_tsval;	/* newest backend TSval */
	u16			c_win;		/* client's last window field */
	bool			head_acked;	/* backend has our copy */
	bool			rsp_seen;	/* a response byte went out */
	bool			retried;	/* already rebound once */
	bool			b_fin;		/* backend sent FIN */
	bool			reset;		/* a RST went through */
};

/* ip_vs_l7_main.c: module parameters */
extern unsigned int l7_pool_min_idle;
extern unsigned int l7_pool_max;
extern unsigned int l7_pool_idle_ttl;
extern bool l7_datapath;
extern unsigned int l7_max_head;
extern unsigned int l7_head_timeout;
extern unsigned int l7_idle_timeout;
extern unsigned int l7_queue_max;
extern unsigned int l7_queue_timeout;

/* ip_vs_l7_svc.c */
extern struct list_head l7_services;
extern struct mutex l7_services_mutex;
int l7_service_init(struct ip_vs_service *svc);
void l7_service_done(struct ip_vs_service *svc);
int l7_service_add_dest(struct ip_vs_service *svc, struct ip_vs_dest *dest);
int l7_service_del_dest(struct ip_vs_service *svc, struct ip_vs_dest *dest);
int l7_service_upd_dest(struct ip_vs_service *svc, struct ip_vs_dest *dest);
struct l7_service *l7_service_lookup(const struct net *net, __be32 vaddr,
				     __be16 vport);

/* ip_vs_l7_conn.c */
struct l7_conn *l7_conn_lookup(const struct net *net, __be32 caddr,
			       __be16 cport, __be32 vaddr, __be16 vport);
struct l7_conn *l7_conn_alloc(struct l7_service *ls, __be32 caddr,
			      __be16 cport, __be32 vaddr, __be16 vport);
bool l7_conn_insert(struct l7_conn *c);
void l7_conn_expire_in(struct l7_conn *c, unsigned long delay);
void l7_conn_flush(struct l7_service *ls, struct l7_pool *pool);
struct l7_conn *l7_conn_lookup_backend(const struct net *net, __be32 baddr,
				       __be16 bport, __be32 laddr,
				       __be16 lport);
void l7_conn_hash_backend(struct l7_conn *c);
void l7_conn_unhash_backend(struct l7_conn *c);

/* ip_vs_l7_splice.c */
int l7_bind(struct l7_conn *c);
void l7_bind_timer(struct l7_conn *c);
unsigned int l7_splice_c2b(struct l7_conn *c, struct sk_buff *skb);
unsigned int l7_splice_b2c(struct l7_conn *c, struct sk_buff *skb);
void l7_unbind(struct l7_conn *c);
int l7_queue_add(struct l7_conn *c);
void l7_queue_del(struct l7_conn *c);
void l7_queue_kick(struct l7_service *ls);

/* ip_vs_l7_xmit.c */
u32 l7_now_ts(void);
void l7_send_client(struct l7_conn *c, u8 flags,
		    u32 seq, const void *data, u32 len);
void l7_send_synack(struct net *net, const struct sk_buff *syn, u32 cookie,
		    u16 mss, int wscale, bool sack, bool ts, u32 tsecr);
void l7_send_rst(struct net *net, const struct sk_buff *in);
void l7_send_backend(struct l7_conn *c, u8 flags, u32 seq, u32 ack,
		     u16 win, const void *data, u32 len);

/* ip_vs_l7_client.c */
unsigned int l7_client_new(struct l7_service *ls, struct sk_buff *skb);
unsigned int l7_client_packet(struct l7_conn *c, struct sk_buff *skb);
unsigned int l7_backend_packet(struct l7_conn *c, struct sk_buff *skb);
void l7_reply_503(struct l7_conn *c);
void l7_client_timer(struct l7_conn *c);

/* ip_vs_l7_hook.c */
int l7_hook_init(void);
void l7_hook_exit(void);

/* ip_vs_l7_pool.c */
int l7_pool_module_init(void);
void l7_pool_module_exit(void);
void l7_pool_init(struct l7_pool *pool, struct l7_service *ls,
		  const struct ip_vs_dest *dest);
void l7_pool_set_weight(struct l7_pool *pool, int weight);
void l7_pool_destroy(struct l7_pool *pool);
struct l7_pconn *l7_pool_take(struct l7_pool *pool);
void l7_pool_retire(struct l7_pconn *pc);

/* ip_vs_l7_proc.c */
int l7_proc_init(void);
void l7_proc_exit(void);

/* ip_vs_l7_sched.c */
int l7_sched_init(void);
void l7_sched_exit(void);

#endif /* _IP_VS_L7_H */
