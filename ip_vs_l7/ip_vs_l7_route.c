// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: content routing - which real server a framed request goes to.
 *
 * A service whose tuple has a rule set (ip_vs_l7_rules.c) has each
 * request head read once into a request view, and the core's matcher
 * (core/l7_rule.c) decides: a reject status the director answers, a pool,
 * or the whole service as without rules.  A pool's members count only
 * while they are real servers of the service with weight > 0 and not down
 * in their connection pool, so the health checker that drives IPVS keeps
 * deciding who serves; the pool's policy (core/l7_chash.c) picks among
 * them.
 *
 * Everything runs under the client connection's lock with bottom halves
 * off, and reads the rule set under RCU: a replace is seen by the next
 * request, never half-way through one.  The view (a few KB) and the
 * normalised path live in per-CPU scratch space.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/local_lock.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include "ip_vs_l7.h"
#include "ip_vs_l7_rules.h"
#include "ip_vs_l7_trace.h"
#include "core/sched_wlo.h"

/*
 * One per CPU, for the decision under way on it.  Softirq and process
 * context (l7_queue_kick()) both decide with BH off, which on most
 * kernels is enough to have the CPU's scratch alone; on PREEMPT_RT it is
 * not (spin_lock_bh() leaves preemption on), hence the local lock.
 */
struct l7_route_scratch {
	local_lock_t		lock;
	struct l7_req_view	view;
	/* the members of the pool last looked at, in the pool's order */
	int			pool;		/* its index, -1: none yet */
	struct l7_dest		*dest[IPVS_L7_MAX_MEMBERS];
	struct l7_member_load	load[IPVS_L7_MAX_MEMBERS];
	struct l7_dest		*cand[IPVS_L7_MAX_MEMBERS];
	char			*path;		/* l7_max_head + 1 bytes */
};

static struct l7_route_scratch __percpu *l7_scratch;

/* what one decision needs, for the matcher's ready() callback */
struct l7_route {
	struct l7_service	*ls;
	const struct l7_rset	*set;
	struct l7_route_scratch	*x;
	/* without pre-forked pools: where to ask for a connection */
	struct l7_pool		**want;
};

/* under RCU: the server of @ls that @m names, if it is one */
static struct l7_dest *l7_route_dest(struct l7_service *ls,
				     const struct l7_rmember *m)
{
	struct l7_dest *ld;

	list_for_each_entry_rcu(ld, &ls->dests, list)
		if (ld->pool.af == m->af && ld->pool.bport == m->port &&
		    l7_addr_eq(m->af, &ld->pool.baddr, &m->addr))
			return ld;
	return NULL;
}

/* each member of pool @pi as the policies see it now; weight 0: not eligible */
static void l7_route_members(struct l7_route *r, unsigned int pi)
{
	const struct l7_rpool *pool = r->set->pools[pi];
	struct l7_route_scratch *x = r->x;
	u32 i;

	if (x->pool == (int)pi)
		return;
	for (i = 0; i < pool->n_members; i++) {
		struct l7_dest *ld = l7_route_dest(r->ls, &pool->members[i]);
		int w = ld ? READ_ONCE(ld->pool.weight) : 0;

		x->dest[i] = ld;
		x->load[i].weight = ld && w > 0 && !READ_ONCE(ld->pool.down) ?
				    w : 0;
		x->load[i].outstanding =
			ld ? l7_pool_tier_outstanding(&ld->pool) : 0;
	}
	x->pool = pi;
}

/* l7_pool_ready_fn: whether pool @pi has an eligible member now */
static bool l7_route_ready(void *ctx, unsigned int pi)
{
	struct l7_route *r = ctx;
	const struct l7_rpool *pool = r->set->pools[pi];
	u32 i;

	l7_route_members(r, pi);
	for (i = 0; i < pool->n_members; i++)
		if (r->x->load[i].weight)
			return true;
	atomic64_inc(&pool->count->unavailable);
	return false;
}

/* ---- the service-wide scheduler (core/sched_wlo.h) ---- */

/* Offer @ld to the pick @s: whether it is the best so far. */
static bool l7_wlo_offer_dest(struct l7_wlo *s, struct l7_dest *ld)
{
	struct l7_pool *p = &ld->pool;
	const struct l7_wlo_cand c = {
		.weight = READ_ONCE(p->weight),
		.outstanding = l7_pool_tier_outstanding(p),
		.pass = READ_ONCE(p->pass),
		.down = READ_ONCE(p->down),
		.full = l7_pool_full(p),
		.idle = READ_ONCE(p->n_idle),
	};

	return l7_wlo_offer(s, &c);
}

static struct l7_dest *l7_wlo_pick(struct l7_service *ls,
				   struct l7_dest **cand, unsigned int n,
				   bool any)
{
	struct l7_dest *ld, *best = NULL;
	struct l7_wlo s;
	unsigned int i;

	l7_wlo_begin(&s, READ_ONCE(ls->pass_clock), any);
	if (cand) {
		for (i = 0; i < n; i++)
			if (l7_wlo_offer_dest(&s, cand[i]))
				best = cand[i];
	} else {
		list_for_each_entry_rcu(ld, &ls->dests, list)
			if (l7_wlo_offer_dest(&s, ld))
				best = ld;
	}
	if (best) {
		WRITE_ONCE(ls->pass_clock, l7_wlo_clock(&s));
		WRITE_ONCE(best->pool.pass, l7_wlo_next_pass(&s));
	}
	return best;
}

/*
 * Under RCU: among the @n servers @cand (a content rule's pool), or
 * among all of the service's if @cand is NULL.  None idle: with @want
 * (a service without pre-forked pools) *@want is the server's pool to
 * open a connection to, once the request waits.
 */
static struct l7_pconn *l7_pick_among(struct l7_service *ls,
				      struct l7_dest **cand, unsigned int n,
				      struct l7_pool **want)
{
	struct l7_dest *ld = l7_wlo_pick(ls, cand, n, false);

	if (ld)
		return l7_pool_take(&ld->pool);
	if (want) {
		ld = l7_wlo_pick(ls, cand, n, true);
		*want = ld ? &ld->pool : NULL;
	}
	return NULL;
}

/* ---- content rules' pools ---- */

/*
 * member @m of the pool last looked at: its connection, or one to ask
 * for (not while the member has no room for the request anyway)
 */
static struct l7_pconn *l7_route_take(struct l7_route *r, int m)
{
	struct l7_pool *p;
	struct l7_pconn *pc;

	if (m < 0)
		return NULL;
	p = &r->x->dest[m]->pool;
	pc = l7_pool_take(p);
	if (!pc && r->want && !l7_pool_full(p))
		*r->want = p;
	return pc;
}

/*
 * smooth WRR among the members of pool @pi below their upper threshold,
 * with an idle connection or @any
 */
static int l7_route_wrr(struct l7_route *r, unsigned int pi, bool any)
{
	struct l7_rpool *pool = r->set->pools[pi];
	struct l7_route_scratch *x = r->x;
	unsigned int i;
	int m;

	l7_route_members(r, pi);
	for (i = 0; i < pool->n_members; i++) {
		const struct l7_pool *p;

		if (!x->load[i].weight)
			continue;
		p = &x->dest[i]->pool;
		if (l7_pool_full(p) || (!any && !READ_ONCE(p->n_idle)))
			x->load[i].weight = 0;
	}
	spin_lock(&pool->lock);
	m = l7_pick_wrr(&pool->wrr, x->load, pool->n_members);
	spin_unlock(&pool->lock);
	x->pool = -1;	/* ->load changed */
	return m;
}

/*
 * A pooled connection to a member of pool @pi, by the pool's policy, or
 * NULL: none idle now (the request waits).  WLO and WRR choose among the
 * members with an idle connection and below their upper threshold; a
 * hash keeps a key on its member and waits for it - for a connection or
 * for a slot under its threshold - rather than break affinity.  A member
 * at its threshold stays eligible for l7_route_ready(): the request
 * waits for it instead of being answered 503.  Without pre-forked pools,
 * the member to ask for a connection is chosen by the same policy.
 */
static struct l7_pconn *l7_route_pick(struct l7_route *r, unsigned int pi)
{
	struct l7_rpool *pool = r->set->pools[pi];
	struct l7_route_scratch *x = r->x;
	unsigned int n = 0, i;
	const u8 *key;
	u32 key_len;
	int m;

	l7_route_members(r, pi);
	switch (pool->policy) {
	case IPVS_L7_POLICY_HASH:
		if (!l7_view_hash_key(&x->view, &pool->core, &key, &key_len))
			break;	/* no such cookie or header: by load */
		m = l7_pick_chash(pool->ring, pool->n_points, x->load,
				  pool->n_members, l7_hash_bytes(key, key_len));
		return l7_route_take(r, m);
	case IPVS_L7_POLICY_WRR:
		m = l7_route_wrr(r, pi, false);
		if (m < 0 && r->want)
			m = l7_route_wrr(r, pi, true);
		return l7_route_take(r, m);
	}
	for (i = 0; i < pool->n_members; i++)
		if (x->load[i].weight)
			x->cand[n++] = x->dest[i];
	return l7_pick_among(r->ls, x->cand, n, r->want);
}

/* the rule and pool @rt names to the request's tracepoint, if it is on */
static void l7_route_note(struct l7_routed *rt, const struct l7_rrule *rule,
			  const struct l7_rpool *pool)
{
	if (!trace_l7_request_enabled())
		return;
	rt->rule = rule ? rule->id : -1;
	strscpy(rt->pool, pool->name, sizeof(rt->pool));
}

/*
 * c->lock held, BH off, c->req framed to its end.  The pooled connection
 * for the request, or NULL and *@status: 0 to wait for one, else the
 * status to answer (a reject rule, no eligible member, or a request a
 * service with rules cannot read safely).  *@fwd: how the request carries
 * the client's address, by the service's option or the module parameter,
 * read from the same set as the rules.
 */
/*
 * Under RCU and the CPU's scratch (@r->x): the request's rules in @r->set
 * decide, as l7_route() says.
 */
static struct l7_pconn *l7_route_by_rules(struct l7_route *r,
					  struct l7_conn *c, int *status,
					  struct l7_routed *rt)
{
	struct l7_pconn *pc = NULL;
	struct l7_verdict v;
	struct l7_rrule *rule;

	lockdep_assert_held(&c->lock);

	r->x->pool = -1;
	*status = l7_req_view_build(&r->x->view, c->head, c->req.head_len,
				    &c->req, r->x->path, l7_max_head + 1);
	if (*status)
		return NULL;
	l7_rules_decide(r->set->match, r->set->n_rules, r->set->index,
			&r->x->view, l7_route_ready, r, &v);
	if (v.kind == L7_V_SERVICE)
		return l7_pick_among(r->ls, NULL, 0, r->want);
	rule = v.rule >= 0 ? r->set->rules[v.rule] : NULL;
	if (v.kind == L7_V_REJECT) {
		if (rule)
			atomic64_inc(&rule->count->hits);
		*status = v.status;
		return NULL;
	}
	pc = l7_route_pick(r, v.pool);
	if (pc) {
		l7_route_note(rt, rule, r->set->pools[v.pool]);
		if (rule)
			atomic64_inc(&rule->count->hits);
		atomic64_inc(&r->set->pools[v.pool]->count->hits);
	}
	return pc;
}

/*
 * c->lock held, BH off, c->req framed to its end.  The pooled connection
 * for the request, or NULL and *@status: 0 to wait for one, else the
 * status to answer (a reject rule, no eligible member, or a request a
 * service with rules cannot read safely).  *@fwd: how the request carries
 * the client's address, by the service's option or the module parameter,
 * read from the same set as the rules.
 */
struct l7_pconn *l7_route(struct l7_conn *c, int *status,
			  enum l7_fwd_mode *fwd, struct l7_routed *rt)
{
	struct l7_service *ls = c->ls;
	struct l7_rkey key;
	struct l7_route r = {
		.ls = ls,
		.want = READ_ONCE(ls->no_prefork) ? &c->want : NULL,
	};
	struct l7_pconn *pc;

	lockdep_assert_held(&c->lock);

	*status = 0;
	rt->rule = -1;
	rt->pool[0] = '\0';
	l7_rkey_init(&key, ls->af, &ls->vaddr, ls->vport);
	rcu_read_lock();
	r.set = ip_vs_l7_rules_lookup(ls->net, &key);
	*fwd = l7_rset_forwarded(r.set, READ_ONCE(l7_forwarded));
	if (!r.set || !r.set->n_rules) {
		pc = l7_pick_among(ls, NULL, 0, r.want);
	} else {
		local_lock(&l7_scratch->lock);
		r.x = this_cpu_ptr(l7_scratch);
		pc = l7_route_by_rules(&r, c, status, rt);
		local_unlock(&l7_scratch->lock);
	}
	rcu_read_unlock();
	return pc;
}

int l7_route_init(void)
{
	int cpu;

	l7_scratch = alloc_percpu(struct l7_route_scratch);
	if (!l7_scratch)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		char *path = kvmalloc(l7_max_head + 1, GFP_KERNEL);

		if (!path) {
			l7_route_exit();
			return -ENOMEM;
		}
		local_lock_init(&per_cpu_ptr(l7_scratch, cpu)->lock);
		per_cpu_ptr(l7_scratch, cpu)->path = path;
	}
	return 0;
}

void l7_route_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		kvfree(per_cpu_ptr(l7_scratch, cpu)->path);
	free_percpu(l7_scratch);
}
