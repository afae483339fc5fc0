// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: module entry points and parameters.
 *
 * Load order matters on the way in and out: the pool workqueue and the
 * /proc files exist before the scheduler is registered (a service may be
 * bound to it the moment it is), and the scheduler is gone - so IPVS
 * holds no service of ours any more - before they are torn down.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "ip_vs_l7.h"
#include "ip_vs_l7_rules.h"
#include "ip_vs_l7_sync.h"

/*
 * Parameters with a range are checked by their setter, which runs for a
 * value given at load and for one written to /sys/module/ip_vs_l7/
 * parameters/ alike: a bad value is refused (-EINVAL) and the old one
 * stays.  Times stay below a week, so that seconds * HZ and milliseconds
 * fit the unsigned int they are computed in.
 */
#define L7_PARAM_SECS_MAX	(7 * 24 * 3600)

/*
 * L7_PARAM_UINT(name, min, max): l7_param_<name>, the kernel_param_ops of
 * an unsigned int in min..max; any other value is refused.
 */
#define L7_PARAM_UINT(name, min, max)					\
static int l7_param_set_##name(const char *val,				\
			       const struct kernel_param *kp)		\
{									\
	return param_set_uint_minmax(val, kp, min, max);		\
}									\
static const struct kernel_param_ops l7_param_##name = {		\
	.set = l7_param_set_##name,					\
	.get = param_get_uint,						\
}

/* at least 1: 0 would refuse or expire everything */
L7_PARAM_UINT(positive, 1, UINT_MAX);
/* seconds, 0 allowed (where it means "never") */
L7_PARAM_UINT(secs, 0, L7_PARAM_SECS_MAX);
L7_PARAM_UINT(secs_positive, 1, L7_PARAM_SECS_MAX);
L7_PARAM_UINT(msecs, 0, L7_PARAM_SECS_MAX * MSEC_PER_SEC);
/* bytes: at least a short request line; a head buffer is one kmalloc */
L7_PARAM_UINT(max_head, 64, 1U << 20);

unsigned int l7_pool_min_idle = 8;
module_param_named(pool_min_idle, l7_pool_min_idle, uint, 0644);
MODULE_PARM_DESC(pool_min_idle,
		 "idle pre-established connections kept per real server (default 8)");

unsigned int l7_pool_max = 256;
module_param_cb(pool_max, &l7_param_positive, &l7_pool_max, 0644);
MODULE_PARM_DESC(pool_max,
		 "pooled connections per real server at most (default 256)");

unsigned int l7_pool_idle_ttl = 20;
module_param_cb(pool_idle_ttl, &l7_param_secs, &l7_pool_idle_ttl, 0644);
MODULE_PARM_DESC(pool_idle_ttl,
		 "seconds an idle pooled connection is kept before it is replaced, 0: forever (default 20)");

unsigned int l7_pool_reuse_delay = 100;
module_param_cb(pool_reuse_delay, &l7_param_msecs, &l7_pool_reuse_delay,
		0644);
MODULE_PARM_DESC(pool_reuse_delay,
		 "milliseconds a pooled connection rests after a response before another request may take it; bytes its server sends meanwhile retire it (default 100)");

unsigned int l7_max_tunnels = 1024;
module_param_named(max_tunnels, l7_max_tunnels, uint, 0644);
MODULE_PARM_DESC(max_tunnels,
		 "connections per service upgraded by a 101 response at once, past it a 101 is a bad response (default 1024)");

bool l7_sync_forward;
module_param_named(sync_forward, l7_sync_forward, bool, 0644);
MODULE_PARM_DESC(sync_forward,
		 "directors side by side: a client segment of a connection a live peer holds, its flow moved here mid-request, goes to that peer over IP-in-IP (default off: handled as at a takeover, as a pair wants)");

bool l7_datapath = true;
module_param_named(datapath, l7_datapath, bool, 0444);
MODULE_PARM_DESC(datapath,
		 "answer clients of l7 services on the director and switch each request (default on; off: IPVS schedules connections by weighted least-connection)");

unsigned int l7_max_head = L7_HTTP_DEFAULT_MAX_HEAD;
module_param_cb(max_head, &l7_param_max_head, &l7_max_head, 0444);
MODULE_PARM_DESC(max_head,
		 "request head limit in bytes, 64..1048576, else 431 (default 8192)");

unsigned int l7_head_mem_max = 65536;
module_param_cb(head_mem_max, &l7_param_positive, &l7_head_mem_max, 0644);
MODULE_PARM_DESC(head_mem_max,
		 "KB of request head buffers all client connections may hold together; past it head bytes are left for the client to resend (default 65536)");

unsigned int l7_head_timeout = 30;
module_param_cb(head_timeout, &l7_param_secs_positive, &l7_head_timeout,
		0644);
MODULE_PARM_DESC(head_timeout,
		 "seconds a client may take to send a request head, else 408 (default 30)");

unsigned int l7_idle_timeout = 900;
module_param_cb(idle_timeout, &l7_param_secs_positive, &l7_idle_timeout,
		0644);
MODULE_PARM_DESC(idle_timeout,
		 "seconds a spliced connection may stay silent before both ends are reset (default 900)");

unsigned int l7_tunnel_timeout = 3600;
module_param_cb(tunnel_timeout, &l7_param_secs_positive, &l7_tunnel_timeout,
		0644);
MODULE_PARM_DESC(tunnel_timeout,
		 "seconds a tunnel (after a 101) may carry no byte either way before both ends are reset (default 3600)");

unsigned int l7_queue_max = 1024;
module_param_named(queue_max, l7_queue_max, uint, 0644);
MODULE_PARM_DESC(queue_max,
		 "requests per service waiting for a pooled connection, else 503 (default 1024)");

unsigned int l7_queue_timeout = 5000;
module_param_cb(queue_timeout, &l7_param_msecs, &l7_queue_timeout, 0644);
MODULE_PARM_DESC(queue_timeout,
		 "milliseconds a request may wait for a pooled connection, else 503 (default 5000)");

unsigned int l7_client_max_pooled = 4;
module_param_cb(client_max_pooled, &l7_param_positive,
		&l7_client_max_pooled, 0644);
MODULE_PARM_DESC(client_max_pooled,
		 "pooled connections one client connection may hold at once; its further pipelined requests wait (default 4)");

unsigned int l7_ack_timeout = 30;
module_param_cb(ack_timeout, &l7_param_secs, &l7_ack_timeout, 0644);
MODULE_PARM_DESC(ack_timeout,
		 "seconds a client may fall behind read_minrate while it has response bytes to acknowledge (or a window smaller than a segment) before both ends are reset; one that stops is reset after exactly this; 0: never (default 30)");

unsigned int l7_read_minrate = 500;
module_param_named(read_minrate, l7_read_minrate, uint, 0644);
MODULE_PARM_DESC(read_minrate,
		 "bytes a second a client must read a response at, allowed to fall ack_timeout seconds behind, else both ends are reset; 0: any progress will do (default 500)");

unsigned int l7_body_timeout = 10;
module_param_cb(body_timeout, &l7_param_secs, &l7_body_timeout, 0644);
MODULE_PARM_DESC(body_timeout,
		 "seconds a request body may fall behind body_minrate, else 408 (or both ends reset once the response began); 0: no floor (default 10)");

unsigned int l7_body_minrate = 500;
module_param_named(body_minrate, l7_body_minrate, uint, 0644);
MODULE_PARM_DESC(body_minrate,
		 "bytes a second a request body must come at, allowed to fall body_timeout seconds behind; 0: any progress will do (default 500)");

unsigned int l7_max_conns = 65536;
module_param_named(max_conns, l7_max_conns, uint, 0644);
MODULE_PARM_DESC(max_conns,
		 "client connections alive at most, all services together, else the handshake's ACK is reset; 0: no cap (default 65536)");

unsigned int l7_max_conns_per_source = 256;
module_param_named(max_conns_per_source, l7_max_conns_per_source, uint, 0644);
MODULE_PARM_DESC(max_conns_per_source,
		 "client connections alive at most per client IPv4 address or IPv6 /64, else reset; 0: no cap (default 256)");

/*
 * source_max_pooled: -1 (the default) is an eighth of pool_max, and at
 * least client_max_pooled, both read when a request binds; 0 is no cap.
 * Without a cap, one address at the read_minrate floor on
 * max_conns_per_source connections, each with client_max_pooled
 * pipelined requests, holds 256 x 4 = 1,024 pooled connections for
 * about 128 KB/s: more than the pools of three servers.  An eighth of
 * one server's pool leaves that server seven eighths of it even when
 * the rules send every request of the address there; never below
 * client_max_pooled, so that one client connection's pipelined requests
 * are not refused by their address's cap alone.  A NAT, a proxy or a
 * load generator - one address for many clients - needs it raised.
 */
static int l7_param_set_source_max_pooled(const char *val,
					  const struct kernel_param *kp)
{
	int n, err;

	err = kstrtoint(val, 0, &n);
	if (err)
		return err;
	if (n < -1)
		return -EINVAL;
	WRITE_ONCE(*(int *)kp->arg, n);
	return 0;
}

static const struct kernel_param_ops l7_param_source_max_pooled = {
	.set = l7_param_set_source_max_pooled,
	.get = param_get_int,
};

int l7_source_max_pooled = -1;
module_param_cb(source_max_pooled, &l7_param_source_max_pooled,
		&l7_source_max_pooled, 0644);
MODULE_PARM_DESC(source_max_pooled,
		 "pooled connections the requests of one client IPv4 address or IPv6 /64 may hold at once, all services together, else 503; -1: pool_max / 8, at least client_max_pooled; 0: no cap (default -1)");

/* conn_buckets: 0 (sized from max_conns), or a size in range */
static int l7_param_set_conn_buckets(const char *val,
				     const struct kernel_param *kp)
{
	unsigned int n;

	if (!kstrtouint(val, 0, &n) && !n)
		return param_set_uint(val, kp);
	return param_set_uint_minmax(val, kp, L7_BUCKETS_MIN, L7_BUCKETS_MAX);
}

static const struct kernel_param_ops l7_param_conn_buckets = {
	.set = l7_param_set_conn_buckets,
	.get = param_get_uint,
};

unsigned int l7_conn_buckets;
module_param_cb(conn_buckets, &l7_param_conn_buckets, &l7_conn_buckets, 0444);
MODULE_PARM_DESC(conn_buckets,
		 "buckets of each connection hash table, 16384..1048576, rounded up to a power of two; 0: max_conns / 2 within that range (default 0)");

/*
 * forwarded=off|x-forwarded-for|x-forwarded-for-replace|forwarded: how
 * the director's copy of each request head tells the server the client's
 * address (core/head_copy.h).  For every l7 service until the control
 * plane sets it per service.
 */
unsigned int l7_forwarded = L7_FWD_OFF;

static int l7_forwarded_set(const char *val, const struct kernel_param *kp)
{
	unsigned int m;

	for (m = 0; m < L7_FWD_COUNT; m++)
		if (sysfs_streq(val, l7_fwd_mode_name(m))) {
			WRITE_ONCE(l7_forwarded, m);
			return 0;
		}
	return -EINVAL;
}

static int l7_forwarded_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", l7_fwd_mode_name(READ_ONCE(l7_forwarded)));
}

static const struct kernel_param_ops l7_forwarded_ops = {
	.set = l7_forwarded_set,
	.get = l7_forwarded_get,
};

module_param_cb(forwarded, &l7_forwarded_ops, NULL, 0644);
MODULE_PARM_DESC(forwarded,
		 "the client's address in each request to the server: off, x-forwarded-for (after the client's), x-forwarded-for-replace (instead of the client's), forwarded (RFC 7239) (default off)");

static int __init ip_vs_l7_init(void)
{
	int err;

	err = l7_reqmem_module_init();
	if (err)
		return err;
	err = l7_conn_module_init();
	if (err)
		goto reqmem;
	err = l7_pool_module_init();
	if (err)
		goto conn;
	err = l7_proc_init();
	if (err)
		goto pool;
	err = l7_ports_init();
	if (err)
		goto proc;
	err = l7_rules_init();
	if (err)
		goto ports;
	/* the routing's scratch space, for requests the rules decide */
	err = l7_route_init();
	if (err)
		goto rules;
	err = l7_secrets_init();
	if (err)
		goto route;
	err = l7_sync_init();
	if (err)
		goto secrets;
	err = l7_hook_init();
	if (err)
		goto sync;
	err = l7_sched_init();
	if (err)
		goto hook;
	return 0;

hook:
	l7_hook_exit();
sync:
	l7_sync_exit();
secrets:
	l7_secrets_exit();
route:
	l7_route_exit();
rules:
	l7_rules_exit();
ports:
	l7_ports_exit();
proc:
	l7_proc_exit();
pool:
	l7_pool_module_exit();
conn:
	l7_conn_module_exit();
reqmem:
	l7_reqmem_module_exit();
	return err;
}

static void __exit ip_vs_l7_exit(void)
{
	l7_sched_exit();
	l7_hook_exit();
	l7_sync_exit();
	l7_secrets_exit();
	l7_route_exit();
	l7_rules_exit();
	l7_ports_exit();
	l7_proc_exit();
	l7_pool_module_exit();
	/* connections and rule sets are freed by RCU callbacks */
	rcu_barrier();
	l7_conn_module_exit();
	l7_reqmem_module_exit();
}

module_init(ip_vs_l7_init);
module_exit(ip_vs_l7_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("IPVS l7 scheduler: per-request HTTP/1.1 content switch");
