// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the l7 services as the data path finds and uses them.
 *
 * The VIP hash holds the TCP services the data path serves, by
 * VIP:port: the packet hook and the checkpoint channel find a service
 * there under RCU; ip_vs_l7_svc.c puts a service in and takes it out,
 * under l7_services_mutex.  What the data path asks of a service it
 * found - whether a tuple is still a connection of IPVS's own, whether
 * a connection may become a tunnel - is here too, so that nothing below
 * the scheduler's callbacks calls ip_vs_l7_svc.c.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/rculist.h>

#include "ip_vs_l7.h"

/* TCP services by VIP:port, for the packet hook; readers use RCU */
#define L7_SVC_HASH_BITS	6
static struct hlist_head l7_svc_hash[1 << L7_SVC_HASH_BITS];

/* an IPv6 VIP hashes by its last word, as the operator numbers them */
static u32 l7_svc_hashfn(const struct net *net, u16 af,
			 const union nf_inet_addr *vaddr, __be16 vport)
{
	__be32 word = af == AF_INET ? vaddr->ip : vaddr->ip6[3];

	return hash_32(jhash_2words((__force u32)word, (__force u32)vport,
				    (u32)(unsigned long)net),
		       L7_SVC_HASH_BITS);
}

struct l7_service *l7_service_lookup(const struct net *net, u16 af,
				     const union nf_inet_addr *vaddr,
				     __be16 vport)
{
	struct l7_service *ls;

	hlist_for_each_entry_rcu(ls, &l7_svc_hash[l7_svc_hashfn(net, af, vaddr,
								 vport)],
				 hnode)
		if (ls->vport == vport && ls->af == af &&
		    l7_addr_eq(af, &ls->vaddr, vaddr) && net_eq(ls->net, net))
			return ls;
	return NULL;
}

/* l7_services_mutex held: @ls (af, vaddr, vport set) found from now on */
void l7_service_hash(struct l7_service *ls)
{
	hlist_add_head_rcu(&ls->hnode,
			   &l7_svc_hash[l7_svc_hashfn(ls->net, ls->af,
						      &ls->vaddr,
						      ls->vport)]);
}

/* l7_services_mutex held: found no more once an RCU grace period ends */
void l7_service_unhash(struct l7_service *ls)
{
	hlist_del_rcu(&ls->hnode);
}

/*
 * A 101 turns a client connection into a plain splice that holds its
 * pooled connection until both sides close, outside every request
 * timeout: such tunnels have their own cap per service, else a client
 * could take every pooled connection with upgrades.
 */
bool l7_service_tunnel_begin(struct l7_service *ls)
{
	unsigned int max = READ_ONCE(l7_max_tunnels);
	int n = atomic_read(&ls->tunnels);

	do {
		if (n >= max) {
			l7_service_count(ls, tunnels_refused);
			return false;
		}
	} while (!atomic_try_cmpxchg(&ls->tunnels, &n, n + 1));
	return true;
}

void l7_service_tunnel_end(struct l7_service *ls)
{
	atomic_dec(&ls->tunnels);
}

/*
 * Under RCU, for the packet hook: whether the packet's tuple belongs to
 * a connection IPVS made - before "ipvsadm -E -s l7" switched its
 * service to us.  Such a connection stays IPVS's until it ends (IPVS
 * expires it as for any other scheduler); only tuples without one are
 * the data path's.
 */
bool l7_service_ipvs_conn(struct net *net, u16 af,
			  const union nf_inet_addr *caddr, __be16 cport,
			  const union nf_inet_addr *vaddr, __be16 vport)
{
	struct ip_vs_conn_param p;
	struct ip_vs_conn *cp;

	ip_vs_conn_fill_param(net_ipvs(net), af, IPPROTO_TCP, caddr, cport,
			      vaddr, vport, &p);
	cp = ip_vs_conn_in_get(&p);
	if (!cp)
		return false;
	__ip_vs_conn_put(cp);
	return true;
}
