// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: which packets the hook looks up at all.
 *
 * A director forwards and receives much besides l7 traffic, and the hook
 * sees all of it.  A client connection of ours is addressed to the port
 * of an l7 VIP; a pooled connection's segment comes from the port of a
 * real server with a pool.  So a packet whose destination port is no l7
 * VIP's and whose source port is no pooled server's belongs to neither,
 * and passes after two bit tests, without a hash lookup.  A namespace
 * without an l7 service has no filter at all: one pointer load.
 *
 * The filter is an immutable copy, replaced under RCU when a service or a
 * pooled real server comes (before the hook may need the new bit) or goes
 * (after its last connection is gone).  Those changes come from IPVS
 * under its own mutex, in process context, and are rare.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "ip_vs_l7.h"

#define L7_PORTS	(1U << 16)

struct l7_ports {
	struct rcu_head rcu;	/* first: kvfree_rcu() wants it near */
	DECLARE_BITMAP(vip, L7_PORTS);		/* dports of l7 VIPs */
	DECLARE_BITMAP(server, L7_PORTS);	/* sports of pooled servers */
};

struct l7_ports_net {
	struct l7_ports __rcu *ports;
};

static unsigned int l7_ports_net_id __read_mostly;

static struct l7_ports_net *l7_ports_net(const struct net *net)
{
	return net_generic(net, l7_ports_net_id);
}

/* Under RCU: the namespace's filter, NULL where it has no l7 service. */
const struct l7_ports *l7_ports_get(const struct net *net)
{
	return rcu_dereference(l7_ports_net(net)->ports);
}

bool l7_ports_vip(const struct l7_ports *p, __be16 dport)
{
	return test_bit(ntohs(dport), p->vip);
}

bool l7_ports_server(const struct l7_ports *p, __be16 sport)
{
	return test_bit(ntohs(sport), p->server);
}

static struct l7_ports *l7_ports_current(struct net *net)
{
	return rcu_dereference_protected(l7_ports_net(net)->ports,
					 lockdep_is_held(&l7_services_mutex));
}

static void l7_ports_publish(struct net *net, struct l7_ports *p)
{
	struct l7_ports *old = l7_ports_current(net);

	rcu_assign_pointer(l7_ports_net(net)->ports, p);
	if (old)
		kvfree_rcu(old, rcu);
}

/*
 * Before a VIP (@vip) or a pooled server's port becomes visible to the
 * data path: a copy of the filter with its bit set.  Callers do not hold
 * l7_services_mutex.
 */
int l7_ports_add(struct net *net, bool vip, __be16 port)
{
	struct l7_ports *p, *old;

	p = kvzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	mutex_lock(&l7_services_mutex);
	old = l7_ports_current(net);
	if (old) {
		bitmap_copy(p->vip, old->vip, L7_PORTS);
		bitmap_copy(p->server, old->server, L7_PORTS);
	}
	__set_bit(ntohs(port), vip ? p->vip : p->server);
	l7_ports_publish(net, p);
	mutex_unlock(&l7_services_mutex);
	return 0;
}

/*
 * After a service or a pooled server of @net went away with its last
 * connection: the filter from what is left, none if nothing is.  Out of
 * memory, the old filter stays - it only lets more packets be looked up.
 */
void l7_ports_rebuild(struct net *net)
{
	struct l7_service *ls;
	struct l7_ports *p;
	struct l7_dest *ld;
	bool any = false;

	p = kvzalloc(sizeof(*p), GFP_KERNEL);
	mutex_lock(&l7_services_mutex);
	list_for_each_entry(ls, &l7_services, list) {
		if (!net_eq(ls->net, net) || !ls->hashed)
			continue;
		any = true;
		if (!p)
			continue;
		__set_bit(ntohs(ls->vport), p->vip);
		list_for_each_entry(ld, &ls->dests, list)
			__set_bit(ntohs(ld->dest->port), p->server);
	}
	if (!any) {
		l7_ports_publish(net, NULL);
		kvfree(p);
	} else if (p) {
		l7_ports_publish(net, p);
	}
	mutex_unlock(&l7_services_mutex);
}

/* IPVS removed the namespace's services before, or does so after. */
static void __net_exit l7_ports_net_exit(struct net *net)
{
	mutex_lock(&l7_services_mutex);
	l7_ports_publish(net, NULL);
	mutex_unlock(&l7_services_mutex);
}

static struct pernet_operations l7_ports_net_ops = {
	.exit = l7_ports_net_exit,
	.id = &l7_ports_net_id,
	.size = sizeof(struct l7_ports_net),
};

int l7_ports_init(void)
{
	return register_pernet_subsys(&l7_ports_net_ops);
}

void l7_ports_exit(void)
{
	unregister_pernet_subsys(&l7_ports_net_ops);
}
