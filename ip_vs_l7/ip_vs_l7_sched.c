// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the "l7" IPVS scheduler.
 *
 * IPVS calls ->schedule() only for the SYN of a new connection, before any
 * HTTP byte exists, so the scheduler object is where ip_vs_l7 learns its
 * services and real servers; the per-request decision is made later, in
 * the data path.  Until a service is served by that data path, each new
 * connection is scheduled by weighted least-connection, so that "-s l7"
 * always balances honestly.  Service and real-server life cycle callbacks
 * live in ip_vs_l7_svc.c.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>

#include "ip_vs_l7.h"

/*
 * Weighted least-connection: the destination with the smallest
 * overhead/weight, compared as overhead_a * weight_b < overhead_b * weight_a
 * in 64 bits so that neither a division nor an overflow can skew it.
 * Weight 0 (drained) and overloaded destinations are never chosen.
 */
static struct ip_vs_dest *
ip_vs_l7_schedule(struct ip_vs_service *svc, const struct sk_buff *skb,
		  struct ip_vs_iphdr *iph)
{
	struct ip_vs_dest *dest, *least = NULL;
	u64 least_oh = 0, least_w = 0;

	list_for_each_entry_rcu(dest, &svc->destinations, n_list) {
		int w = atomic_read(&dest->weight);
		u64 oh;

		if ((dest->flags & IP_VS_DEST_F_OVERLOAD) || w <= 0)
			continue;
		oh = ip_vs_dest_conn_overhead(dest);
		if (!least || oh * least_w < least_oh * w) {
			least = dest;
			least_oh = oh;
			least_w = w;
		}
	}

	if (!least)
		ip_vs_scheduler_err(svc, "no destination available");
	return least;
}

static struct ip_vs_scheduler ip_vs_l7_scheduler = {
	.name =			"l7",
	.refcnt =		ATOMIC_INIT(0),
	.module =		THIS_MODULE,
	.n_list =		LIST_HEAD_INIT(ip_vs_l7_scheduler.n_list),
	.init_service =		l7_service_init,
	.done_service =		l7_service_done,
	.add_dest =		l7_service_add_dest,
	.del_dest =		l7_service_del_dest,
	.upd_dest =		l7_service_upd_dest,
	.schedule =		ip_vs_l7_schedule,
};

int l7_sched_init(void)
{
	return register_ip_vs_scheduler(&ip_vs_l7_scheduler);
}

void l7_sched_exit(void)
{
	unregister_ip_vs_scheduler(&ip_vs_l7_scheduler);
	/* packets may still be inside ->schedule() */
	synchronize_rcu();
}
