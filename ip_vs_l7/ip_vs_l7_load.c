// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the tier's load.  Directors side by side each count only
 * the requests they sent; every L7_LOAD_SHARE_MS each tells its peers,
 * over the checkpoint channel, how many it has outstanding on each real
 * server of each l7 service (LOAD records, core/conn_ckpt.h), and each
 * keeps the peers' last word in the server's pool, where the pick adds
 * it to its own count (l7_pool_tier_outstanding()).  So a request goes
 * to the server least loaded by the whole tier, not by one director.
 *
 * A service or server is named by its addresses and ports: directors of
 * one tier have the same services (keepalived gives each the same
 * configuration), and a LOAD of one this director lacks is ignored.
 * It calls nothing above the services.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/rculist.h>

#include "ip_vs_l7.h"

/*
 * LOAD records of @net's real servers into @w, from the @skip'th on, as
 * many as fit: how many there are in all (the caller sends @w, then asks
 * again from @skip + w->count while that is short of it).
 */
u32 l7_load_write(struct net *net, struct l7_ckpt_writer *w, u32 skip)
{
	struct l7_ckpt_rec rec = { .kind = L7_CKPT_LOAD };
	struct l7_ckpt_load *l = &rec.load;
	struct l7_service *ls;
	struct l7_dest *ld;
	u32 n = 0;
	bool full = false;

	mutex_lock(&l7_services_mutex);
	list_for_each_entry(ls, &l7_services, list) {
		if (!ls->hashed || !net_eq(ls->net, net))
			continue;
		list_for_each_entry(ld, &ls->dests, list) {
			if (n++ < skip || full)
				continue;
			memset(l, 0, sizeof(*l));
			l->vfamily = l7_addr_put(l->vaddr, ls->af, &ls->vaddr);
			l->rfamily = l7_addr_put(l->raddr, ld->pool.af,
						 &ld->pool.baddr);
			l->vport = ntohs(ls->vport);
			l->rport = ntohs(ld->pool.bport);
			l->outstanding = min_t(u32, L7_CKPT_MAX_LOAD,
					       max(0, atomic_read(&ld->pool.outstanding)));
			full = !l7_ckpt_write_rec(w, &rec);
		}
	}
	mutex_unlock(&l7_services_mutex);
	return n;
}

/*
 * Peer @from's word @l: its count on that real server, if this director
 * serves it too.  From the channel's receiver alone, which is ordered:
 * each word is written by one writer.
 */
void l7_load_apply(struct net *net, const struct l7_ckpt_load *l, u8 from)
{
	union nf_inet_addr vaddr, raddr;
	u16 vaf = l7_addr_get(&vaddr, l->vfamily, l->vaddr);
	u16 raf = l7_addr_get(&raddr, l->rfamily, l->raddr);
	struct l7_service *ls;
	struct l7_dest *ld;

	if (from >= IPVS_L7_SYNC_PEERS_MAX)
		return;
	rcu_read_lock();
	ls = l7_service_lookup(net, vaf, &vaddr, htons(l->vport));
	if (ls) {
		list_for_each_entry_rcu(ld, &ls->dests, list) {
			struct l7_peer_load *pl = &ld->pool.peers[from];

			if (ld->pool.af != raf ||
			    ld->pool.bport != htons(l->rport) ||
			    !l7_addr_eq(raf, &ld->pool.baddr, &raddr))
				continue;
			WRITE_ONCE(pl->outstanding, l->outstanding);
			WRITE_ONCE(pl->at_ms, l7_load_now_ms());
			break;
		}
	}
	rcu_read_unlock();
}
