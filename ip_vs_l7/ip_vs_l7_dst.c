// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the output route of a connection, cached.
 *
 * Every segment the director sends or passes on leaves through
 * ip_local_out() with a route of its own.  Looked up each time, that was
 * a FIB walk plus the check that the source is one of our addresses
 * (__ip_dev_find()) per packet: as much routing per request as IPVS does
 * on input, and for nothing, since a connection's addresses never change.
 * So the client connection keeps the route to its client and each pooled
 * connection the route to its server, as a socket keeps sk_dst_cache:
 * one reference held by the cache, checked before each use (a route
 * flush, a new PMTU exception or a device going down makes dst_check()
 * fail, and the next packet looks the route up again).
 *
 * The cache is read and replaced without a lock (a pooled connection's
 * segments are sent both under its client's lock and from the pool), so
 * the pointer is swapped with xchg() and read under RCU: dst_release()
 * frees a route after a grace period.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <net/dst.h>
#include <net/ip6_fib.h>
#include <net/ip6_route.h>
#include <net/route.h>

#include "ip_vs_l7.h"

static struct dst_entry *l7_dst_lookup(struct net *net, u16 af,
				       const union nf_inet_addr *saddr,
				       const union nf_inet_addr *daddr,
				       u32 *cookie)
{
	struct dst_entry *dst;
	struct rtable *rt;

	*cookie = 0;
	if (af == AF_INET6) {
		struct flowi6 fl6 = {
			.daddr = daddr->in6,
			.saddr = saddr->in6,
			.flowi6_proto = IPPROTO_TCP,
		};

		dst = ip6_route_output(net, NULL, &fl6);
		if (dst->error) {
			dst_release(dst);
			return NULL;
		}
		*cookie = rt6_get_cookie(container_of(dst, struct rt6_info,
						      dst));
		return dst;
	}

	rt = ip_route_output_key(net, &(struct flowi4){
		.daddr = daddr->ip,
		.saddr = saddr->ip,
		.flowi4_proto = IPPROTO_TCP,
	});
	return IS_ERR(rt) ? NULL : &rt->dst;
}

/*
 * Under RCU: route @skb from @saddr to @daddr, the pair @dc routes (NULL:
 * a segment of no connection, looked up for it alone).  A cached route is
 * attached without a reference of the skb's own, as IPVS attaches its
 * destinations' cached routes: the cache holds one, and a route swapped
 * out meanwhile is freed only after a grace period (dst_release()), so
 * it stays good through ip_local_out() in the caller's RCU section; a
 * qdisc or neighbour queue that keeps the skb longer takes a reference
 * then (skb_dst_force()).  Per packet, that spares two atomic operations
 * on a route every connection to the same peer shares.  Returns the
 * route, or NULL if there is none.
 */
struct dst_entry *l7_dst_attach(struct sk_buff *skb, struct net *net,
				struct l7_dst_cache *dc, u16 af,
				const union nf_inet_addr *saddr,
				const union nf_inet_addr *daddr)
{
	struct dst_entry *dst, *old;
	u32 cookie;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "a route attached outside RCU");
	skb_dst_drop(skb);
	if (dc) {
		dst = rcu_dereference(dc->dst);
		if (dst && dst_check(dst, READ_ONCE(dc->cookie))) {
			skb_dst_set_noref(skb, dst);
			return dst;
		}
	}
	dst = l7_dst_lookup(net, af, saddr, daddr, &cookie);
	if (!dst)
		return NULL;
	if (!dc) {
		skb_dst_set(skb, dst);
		return dst;
	}
	/* the cookie first: one read with the old route only fails a check */
	WRITE_ONCE(dc->cookie, cookie);
	/* the lookup's reference becomes the cache's */
	old = unrcu_pointer(xchg(&dc->dst, RCU_INITIALIZER(dst)));
	dst_release(old);
	skb_dst_set_noref(skb, dst);
	return dst;
}

/* No user of @dc is left: drop its route. */
void l7_dst_cache_reset(struct l7_dst_cache *dc)
{
	dst_release(unrcu_pointer(xchg(&dc->dst, NULL)));
}
