// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: services and real servers, as IPVS tells us about them.
 *
 * IPVS calls the scheduler's init_service/done_service when a service is
 * bound to or unbound from "l7" (ipvsadm -A/-E/-D) and add/del/upd_dest
 * when its real servers change (ipvsadm -a/-d/-e).  All of these run in
 * process context under __ip_vs_mutex, so they may sleep, and they are
 * serialised against each other.  l7_services_mutex only orders them
 * against readers of our own lists (/proc).
 *
 * They, and l7_service_opts_changed() from the rule store's writers, are
 * all that calls this file: the data path finds a service in the VIP
 * hash (ip_vs_l7_vip.c), which l7_service_init() and l7_service_done()
 * fill and empty.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/netfilter/ipv4/nf_defrag_ipv4.h>
#include <net/netfilter/ipv6/nf_defrag_ipv6.h>

#include "ip_vs_l7.h"
#include "ip_vs_l7_rules.h"

/* every l7 service, for /proc and for setup; under l7_services_mutex */
LIST_HEAD(l7_services);
DEFINE_MUTEX(l7_services_mutex);

/* the families the data path serves, as VIPs and as real servers */
static bool l7_af_spliced(u16 af)
{
	return af == AF_INET || af == AF_INET6;
}

/*
 * A pool is for the data path: only a service it serves (hashed: TCP by
 * VIP:port, module loaded with it) gets them, for real servers of a
 * family it serves - of either family whatever the VIP's: the director
 * terminates the client's TCP.  Others are only scheduled, connection
 * by connection.
 */
static bool l7_dest_pooled(const struct l7_service *ls,
			   const struct ip_vs_dest *dest)
{
	return ls->hashed && l7_af_spliced(dest->af);
}

/* whether the key of @ls has the option prefork off in the rule store */
static bool l7_service_no_prefork(const struct l7_service *ls)
{
	const struct l7_rset *set;
	struct l7_rkey key;
	bool off;

	l7_rkey_init(&key, ls->af, &ls->vaddr, ls->vport);
	rcu_read_lock();
	set = ip_vs_l7_rules_lookup(ls->net, &key);
	off = set && set->opts.prefork == IPVS_L7_PREFORK_OFF;
	rcu_read_unlock();
	return off;
}

/*
 * The prefork option of a key of @net changed in the rule store (or may
 * have: a flush).  Every pooled service of @net takes it from there; the
 * pools of one that changed are kicked, to fill up or to empty.  Under
 * l7_services_mutex, which keeps the services and their servers alive
 * and orders this against l7_service_init() reading the option.
 */
void l7_service_opts_changed(struct net *net)
{
	struct l7_service *ls;
	struct l7_dest *ld;
	bool off;

	mutex_lock(&l7_services_mutex);
	list_for_each_entry(ls, &l7_services, list) {
		if (!ls->hashed || !net_eq(ls->net, net))
			continue;
		off = l7_service_no_prefork(ls);
		if (off == ls->no_prefork)
			continue;
		WRITE_ONCE(ls->no_prefork, off);
		list_for_each_entry(ld, &ls->dests, list)
			l7_pool_mode_changed(&ld->pool);
	}
	mutex_unlock(&l7_services_mutex);
}

static struct l7_dest *l7_dest_find(struct l7_service *ls,
				    const struct ip_vs_dest *dest)
{
	struct l7_dest *ld;

	list_for_each_entry(ld, &ls->dests, list)
		if (ld->dest == dest)
			return ld;
	return NULL;
}

/*
 * The server's upper threshold (ipvsadm -a/-e -x N), which IPVS applies
 * to the connections it schedules, caps the requests outstanding on it:
 * a request that finds every eligible server at its cap waits in the
 * service's queue.  The service looks for freed slots from the first cap
 * on (never cleared: see l7_queue_retry()), before the pool has one.
 */
static void l7_dest_set_max(struct l7_service *ls, struct l7_dest *ld,
			    const struct ip_vs_dest *dest)
{
	unsigned int max = READ_ONCE(dest->u_threshold);

	if (max)
		WRITE_ONCE(ls->capped, true);
	l7_pool_set_max(&ld->pool, max);
}

static int l7_dest_new(struct l7_service *ls, struct ip_vs_dest *dest)
{
	struct l7_dest *ld;

	if (!l7_dest_pooled(ls, dest))
		return 0;
	/* its pooled connections' segments must reach the hook's lookup */
	if (l7_ports_add(ls->net, false, dest->port))
		return -ENOMEM;
	ld = kzalloc(sizeof(*ld), GFP_KERNEL);
	if (!ld)
		return -ENOMEM;
	ld->dest = dest;
	if (l7_pool_init(&ld->pool, ls, dest)) {
		kfree(ld);
		return -ENOMEM;
	}

	mutex_lock(&l7_services_mutex);
	list_add_tail_rcu(&ld->list, &ls->dests);	/* dispatch reads it */
	mutex_unlock(&l7_services_mutex);

	l7_dest_set_max(ls, ld, dest);
	l7_pool_set_weight(&ld->pool, atomic_read(&dest->weight));
	return 0;
}

static void l7_dest_free(struct l7_service *ls, struct l7_dest *ld)
{
	mutex_lock(&l7_services_mutex);
	list_del_rcu(&ld->list);
	mutex_unlock(&l7_services_mutex);
	synchronize_rcu();	/* no dispatch picks this server any more */
	/* connections bound to this server's pool end with it */
	l7_conn_flush(ls, &ld->pool);
	/* l7_pool_destroy() waits for an RCU grace period before freeing */

	l7_pool_destroy(&ld->pool);
	kfree(ld);
	l7_ports_rebuild(ls->net);
}

/* the data path serves TCP services by VIP; others are scheduled */
static bool l7_service_spliced(const struct ip_vs_service *svc)
{
	return l7_datapath && l7_af_spliced(svc->af) &&
	       svc->protocol == IPPROTO_TCP && !svc->fwmark;
}

/* reassembly of the VIP's family, counted per namespace by its users */
static int l7_defrag_enable(struct net *net, u16 af)
{
	return af == AF_INET6 ? nf_defrag_ipv6_enable(net) :
				nf_defrag_ipv4_enable(net);
}

static void l7_defrag_disable(struct net *net, u16 af)
{
	if (af == AF_INET6)
		nf_defrag_ipv6_disable(net);
	else
		nf_defrag_ipv4_disable(net);
}

static struct l7_service *l7_service_alloc(struct ip_vs_service *svc)
{
	struct l7_service *ls;

	ls = kzalloc(sizeof(*ls), GFP_KERNEL);
	if (!ls)
		return NULL;
	ls->stats = alloc_percpu(struct l7_service_stats);
	if (!ls->stats) {
		kfree(ls);
		return NULL;
	}
	ls->svc = svc;
	ls->net = svc->ipvs->net;
	INIT_LIST_HEAD(&ls->dests);
	spin_lock_init(&ls->waitq_lock);
	INIT_LIST_HEAD(&ls->waitq);
	return ls;
}

static void l7_service_free(struct l7_service *ls)
{
	free_percpu(ls->stats);
	kfree(ls);
}

/*
 * The packet hooks, and the whole datagrams they need (a fragmented
 * segment would otherwise reach the local stack (RST) or IPVS (an L4
 * connection) reassembled), come with a spliced service: only namespaces
 * with one pay for them.  Both count their users per namespace.
 */
static int l7_service_hook(struct l7_service *ls,
			   const struct ip_vs_service *svc)
{
	int err;

	err = l7_hook_get(ls->net);
	if (err)
		return err;
	err = l7_defrag_enable(ls->net, svc->af);
	if (err)
		goto hook;
	/* the hook looks up packets to the VIP's port from now on */
	err = l7_ports_add(ls->net, true, svc->port);
	if (err)
		goto defrag;
	return 0;

defrag:
	l7_defrag_disable(ls->net, svc->af);
hook:
	l7_hook_put(ls->net);
	return err;
}

/* In the list of services, and in the VIP hash if @spliced. */
static void l7_service_publish(struct l7_service *ls,
			       const struct ip_vs_service *svc, bool spliced)
{
	mutex_lock(&l7_services_mutex);
	list_add_tail(&ls->list, &l7_services);
	if (spliced) {
		ls->af = svc->af;
		ls->vaddr = svc->addr;
		ls->vport = svc->port;
		ls->hashed = true;
		ls->no_prefork = l7_service_no_prefork(ls);
		l7_service_hash(ls);
	}
	mutex_unlock(&l7_services_mutex);
}

int l7_service_init(struct ip_vs_service *svc)
{
	bool spliced = l7_service_spliced(svc);
	struct l7_service *ls;
	struct ip_vs_dest *dest;
	int err;

	if (!l7_net_allowed(svc->ipvs->net)) {
		pr_info_ratelimited("l7: refused a service in a network namespace outside the initial user namespace\n");
		return -EPERM;
	}
	ls = l7_service_alloc(svc);
	if (!ls)
		return -ENOMEM;
	if (spliced) {
		err = l7_service_hook(ls, svc);
		if (err) {
			l7_service_free(ls);
			return err;
		}
	}
	l7_service_publish(ls, svc, spliced);
	svc->sched_data = ls;

	/* "ipvsadm -E -s l7" binds a service that already has servers */
	list_for_each_entry(dest, &svc->destinations, n_list) {
		err = l7_dest_new(ls, dest);
		if (err) {
			l7_service_done(svc);
			return err;
		}
	}
	return 0;
}

void l7_service_done(struct ip_vs_service *svc)
{
	struct l7_service *ls = svc->sched_data;
	struct l7_dest *ld, *next;

	if (ls->hashed) {
		mutex_lock(&l7_services_mutex);
		l7_service_unhash(ls);
		mutex_unlock(&l7_services_mutex);
		/* no packet can find the service, or make a connection, now */
		synchronize_rcu();
		l7_conn_flush(ls, NULL);
		/* and no packet still looks at a connection of it */
		synchronize_rcu();
		l7_defrag_disable(ls->net, ls->af);
	}

	list_for_each_entry_safe(ld, next, &ls->dests, list)
		l7_dest_free(ls, ld);

	mutex_lock(&l7_services_mutex);
	list_del(&ls->list);
	mutex_unlock(&l7_services_mutex);
	l7_ports_rebuild(ls->net);
	/* nothing of the service is left for the hooks to find */
	if (ls->hashed)
		l7_hook_put(ls->net);
	svc->sched_data = NULL;
	l7_service_free(ls);
}

int l7_service_add_dest(struct ip_vs_service *svc, struct ip_vs_dest *dest)
{
	return l7_dest_new(svc->sched_data, dest);
}

int l7_service_del_dest(struct ip_vs_service *svc, struct ip_vs_dest *dest)
{
	struct l7_service *ls = svc->sched_data;
	struct l7_dest *ld = l7_dest_find(ls, dest);

	if (ld)
		l7_dest_free(ls, ld);
	return 0;
}

int l7_service_upd_dest(struct ip_vs_service *svc, struct ip_vs_dest *dest)
{
	struct l7_dest *ld = l7_dest_find(svc->sched_data, dest);

	if (ld) {
		l7_dest_set_max(svc->sched_data, ld, dest);
		l7_pool_set_weight(&ld->pool, atomic_read(&dest->weight));
	}
	return 0;
}
