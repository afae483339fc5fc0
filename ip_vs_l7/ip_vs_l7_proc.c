// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: /proc/net/ip_vs_l7, per network namespace, in the layout of
 * /proc/net/ip_vs: two header lines name the columns of the lines below
 * them, one line per l7 virtual service, then one per real server with
 * its connection pool.
 */

#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>

#include "ip_vs_l7.h"

/*
 * The column names of the service lines, then of the real-server lines:
 * each group of service columns is printed by the seq_printf() at the
 * same place in l7_proc_show_service().  Readers find a column by its
 * name in these lines, not by its place.
 */
static void l7_proc_show_header(struct seq_file *seq)
{
	seq_puts(seq, "Prot LocalAddress:Port");
	seq_puts(seq, " conns active answered queued retried rebinds held");
	seq_puts(seq, " refused_max refused_source");
	seq_puts(seq, " tunnels tunnels_refused source_capped slow_request head_mem_full");
	seq_puts(seq, " closed client_rst server_rst head_lost bad_response bad_request idle slow_reader flushed");
	seq_puts(seq, " unacceptable srv_unacceptable\n");
	seq_puts(seq, "  -> RemoteAddress:Port  Weight   Idle   Busy   Opened   Failed   Closed  State Requests     Aged  Outst   Reused Errors    BytesIn     BytesOut UThresh PeerOut\n");
}

static void l7_proc_show_service(struct seq_file *seq,
				 struct l7_service *ls)
{
	const struct ip_vs_service *svc = ls->svc;
	const char *proto = svc->protocol == IPPROTO_TCP ? "TCP" :
			    svc->protocol == IPPROTO_UDP ? "UDP" : "SCTP";
	struct l7_service_stats st;

	if (svc->fwmark)
		seq_printf(seq, "FWM  %u", svc->fwmark);
	else if (svc->af == AF_INET)
		seq_printf(seq, "%-4s %pI4:%u", proto, &svc->addr.ip,
			   ntohs(svc->port));
	else
		seq_printf(seq, "%-4s [%pI6c]:%u", proto, &svc->addr.in6,
			   ntohs(svc->port));
	l7_percpu_sum(&st, ls->stats);
	seq_printf(seq, " %llu %d %llu %llu %llu %llu %llu",
		   st.conns, atomic_read(&ls->nr_conns), st.bad_requests,
		   st.queued, st.retried, st.rebinds, st.held);
	seq_printf(seq, " %llu %llu", st.refused_max, st.refused_source);
	seq_printf(seq, " %d %llu %llu %llu %llu",
		   atomic_read(&ls->tunnels), st.tunnels_refused,
		   st.source_capped, st.slow_request, st.head_mem_full);
	seq_printf(seq, " %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   st.ended[L7_END_CLOSED], st.ended[L7_END_CLIENT_RST],
		   st.ended[L7_END_SERVER_RST], st.ended[L7_END_HEAD_LOST],
		   st.ended[L7_END_BAD_RESPONSE], st.ended[L7_END_BAD_REQUEST],
		   st.ended[L7_END_IDLE], st.ended[L7_END_SLOW_READER],
		   st.ended[L7_END_FLUSHED]);
	seq_printf(seq, " %llu %llu\n", st.unacceptable, st.srv_unacceptable);
}

static void l7_proc_show_dest(struct seq_file *seq, struct l7_dest *ld)
{
	struct l7_pool *pool = &ld->pool;
	struct l7_pool_stats st;
	struct l7_pool_bytes bytes;
	unsigned int idle, busy;
	int weight;
	bool down;

	spin_lock_bh(&pool->lock);
	st = pool->stats;
	idle = pool->n_idle + pool->n_resting;
	busy = pool->n_busy;
	weight = pool->weight;
	down = pool->down;
	spin_unlock_bh(&pool->lock);
	l7_percpu_sum(&bytes, pool->bytes);

	if (pool->af == AF_INET)
		seq_printf(seq, "  -> %pI4:%-5u", &pool->baddr.ip,
			   ntohs(pool->bport));
	else
		seq_printf(seq, "  -> [%pI6c]:%u", &pool->baddr.in6,
			   ntohs(pool->bport));
	seq_printf(seq, " %6d %6u %6u %8llu %8llu %8llu  %-4s %8llu %8llu %6d %8llu %6llu %10llu %12llu %7u %7u\n",
		   weight,
		   idle, busy, st.opened, st.failed, st.closed,
		   down ? "down" : "up", st.bindings, st.aged,
		   atomic_read(&pool->outstanding), st.reused, st.errors,
		   bytes.to_server, bytes.from_server, READ_ONCE(pool->max_out),
		   l7_pool_peer_outstanding(pool));
}

static int l7_proc_show(struct seq_file *seq, void *v)
{
	struct net *net = seq_file_single_net(seq);
	struct l7_service *ls;
	struct l7_dest *ld;

	l7_proc_show_header(seq);
	mutex_lock(&l7_services_mutex);
	list_for_each_entry(ls, &l7_services, list) {
		if (!net_eq(ls->net, net))
			continue;
		l7_proc_show_service(seq, ls);
		list_for_each_entry(ld, &ls->dests, list)
			l7_proc_show_dest(seq, ld);
	}
	mutex_unlock(&l7_services_mutex);
	return 0;
}

static int __net_init l7_proc_net_init(struct net *net)
{
	if (!proc_create_net_single("ip_vs_l7", 0444, net->proc_net,
				    l7_proc_show, NULL))
		return -ENOMEM;
	return 0;
}

static void __net_exit l7_proc_net_exit(struct net *net)
{
	remove_proc_entry("ip_vs_l7", net->proc_net);
}

static struct pernet_operations l7_proc_net_ops = {
	.init = l7_proc_net_init,
	.exit = l7_proc_net_exit,
};

int l7_proc_init(void)
{
	return register_pernet_subsys(&l7_proc_net_ops);
}

void l7_proc_exit(void)
{
	unregister_pernet_subsys(&l7_proc_net_ops);
}
