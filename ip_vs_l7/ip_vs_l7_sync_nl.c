// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the IPVS_L7 family's commands of the checkpoint channel
 * (START_SYNC, STOP_SYNC, GET_SYNC; uapi/ip_vs_l7_genl.h), in front of
 * ip_vs_l7_sync.c.  Refused, as rule sets are, in a network namespace
 * outside the initial user namespace.  The key is taken, handed to the
 * channel and wiped; no answer carries it.
 */

#include <linux/if.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <net/genetlink.h>

#include "ip_vs_l7_rules.h"
#include "ip_vs_l7_sync.h"

/* not const: 6.1's policy points to them so */
static struct netlink_range_validation l7_sync_idle_range = {
	.min = 1,
	.max = IPVS_L7_SYNC_IDLE_MAX,
};

static struct netlink_range_validation l7_sync_records_range = {
	.min = 1,
	.max = IPVS_L7_SYNC_RECORDS_MAX,
};

static const struct nla_policy l7_sync_policy[IPVS_L7_SYNC_ATTR_MAX + 1] = {
	[IPVS_L7_SYNC_ATTR_ROLE]	= NLA_POLICY_RANGE(NLA_U8,
							   IPVS_L7_SYNC_MASTER,
							   IPVS_L7_SYNC_BOTH),
	[IPVS_L7_SYNC_ATTR_IFNAME]	= { .type = NLA_NUL_STRING,
					    .len = IFNAMSIZ - 1 },
	[IPVS_L7_SYNC_ATTR_PEER]	= { .type = NLA_BINARY, .len = 16 },
	[IPVS_L7_SYNC_ATTR_PEERS]	= { .type = NLA_NESTED },
	[IPVS_L7_SYNC_ATTR_PORT]	= { .type = NLA_BE16 },
	[IPVS_L7_SYNC_ATTR_SYNC_ID]	= { .type = NLA_U32 },
	[IPVS_L7_SYNC_ATTR_KEY]	= NLA_POLICY_EXACT_LEN(IPVS_L7_SYNC_KEY_LEN),
	[IPVS_L7_SYNC_ATTR_IDLE]	=
		NLA_POLICY_FULL_RANGE(NLA_U32, &l7_sync_idle_range),
	[IPVS_L7_SYNC_ATTR_MAX_RECORDS]	=
		NLA_POLICY_FULL_RANGE(NLA_U32, &l7_sync_records_range),
	/* answers only */
	[IPVS_L7_SYNC_ATTR_STATS]	= { .type = NLA_REJECT },
	[IPVS_L7_SYNC_ATTR_DGRAM_MAX]	= { .type = NLA_REJECT },
};

const struct nla_policy l7_sync_cmd_policy[IPVS_L7_ATTR_MAX + 1] = {
	[IPVS_L7_ATTR_SYNC]	= NLA_POLICY_NESTED(l7_sync_policy),
};

/* (l7_nl_u32_or() is 6.12's) */
static u32 l7_nl_u32_or(const struct nlattr *nla, u32 dflt)
{
	return nla ? nla_get_u32(nla) : dflt;
}

/* the attributes every start needs */
static int l7_nl_sync_required(struct nlattr *nla, struct nlattr **tb,
			       struct netlink_ext_ack *extack)
{
	static const struct {
		unsigned int type;
		const char *msg;
	} need[] = {
		{ IPVS_L7_SYNC_ATTR_ROLE, "sync: role missing" },
		{ IPVS_L7_SYNC_ATTR_IFNAME, "sync: interface missing" },
		{ IPVS_L7_SYNC_ATTR_PORT, "sync: port missing" },
		{ IPVS_L7_SYNC_ATTR_KEY, "sync: key missing" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(need); i++) {
		if (tb[need[i].type])
			continue;
		/* NL_SET_ERR_MSG_ATTR() takes literals only; these are static */
		extack->_msg = need[i].msg;
		extack->bad_attr = nla;
		return -EINVAL;
	}
	return 0;
}

/* a peer address attribute: 4 bytes (IPv4) or 16 (IPv6) */
static int l7_nl_sync_addr(const struct nlattr *nla, union nf_inet_addr *a,
			   u16 *af, struct netlink_ext_ack *extack)
{
	memset(a, 0, sizeof(*a));
	if (nla_len(nla) == sizeof(a->ip)) {
		*af = AF_INET;
		a->ip = nla_get_in_addr(nla);
	} else if (nla_len(nla) == sizeof(a->in6)) {
		*af = AF_INET6;
		a->in6 = nla_get_in6_addr(nla);
	} else {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "sync: a peer address has 4 or 16 bytes");
		return -EINVAL;
	}
	return 0;
}

/* one more peer: of the first's family, not given before, room for it */
static int l7_nl_sync_peer(const struct nlattr *nla, struct l7_sync_cfg *cfg,
			   struct netlink_ext_ack *extack)
{
	union nf_inet_addr a;
	u16 af;
	u8 i;

	if (cfg->npeers == IPVS_L7_SYNC_PEERS_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, nla, "sync: too many peers");
		return -E2BIG;
	}
	if (l7_nl_sync_addr(nla, &a, &af, extack))
		return -EINVAL;
	if (cfg->npeers && af != cfg->af) {
		NL_SET_ERR_MSG_ATTR(extack, nla,
				    "sync: the peers are of one family");
		return -EINVAL;
	}
	for (i = 0; i < cfg->npeers; i++) {
		if (nf_inet_addr_cmp(&cfg->peers[i], &a)) {
			NL_SET_ERR_MSG_ATTR(extack, nla,
					    "sync: a peer given twice");
			return -EINVAL;
		}
	}
	cfg->af = af;
	cfg->peers[cfg->npeers++] = a;
	return 0;
}

/*
 * The peers: IPVS_L7_SYNC_ATTR_PEERS' addresses, or the one
 * IPVS_L7_SYNC_ATTR_PEER; when both are given, PEER is PEERS' first.
 */
static int l7_nl_sync_peers(struct nlattr *nla, struct nlattr **tb,
			    struct l7_sync_cfg *cfg,
			    struct netlink_ext_ack *extack)
{
	const struct nlattr *one = tb[IPVS_L7_SYNC_ATTR_PEER];
	const struct nlattr *pos;
	union nf_inet_addr first;
	int rem, err;
	u16 af;

	cfg->npeers = 0;
	if (!tb[IPVS_L7_SYNC_ATTR_PEERS]) {
		if (!one) {
			NL_SET_ERR_MSG_ATTR(extack, nla,
					    "sync: peer address missing");
			return -EINVAL;
		}
		return l7_nl_sync_peer(one, cfg, extack);
	}
	nla_for_each_nested(pos, tb[IPVS_L7_SYNC_ATTR_PEERS], rem) {
		if (nla_type(pos) != IPVS_L7_SYNC_ATTR_PEER) {
			NL_SET_ERR_MSG_ATTR(extack, pos,
					    "sync: peers holds peer addresses only");
			return -EINVAL;
		}
		err = l7_nl_sync_peer(pos, cfg, extack);
		if (err)
			return err;
	}
	if (!cfg->npeers) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IPVS_L7_SYNC_ATTR_PEERS],
				    "sync: no peer in peers");
		return -EINVAL;
	}
	if (!one)
		return 0;
	if (l7_nl_sync_addr(one, &first, &af, extack))
		return -EINVAL;
	if (af != cfg->af || !nf_inet_addr_cmp(&first, &cfg->peers[0])) {
		NL_SET_ERR_MSG_ATTR(extack, one,
				    "sync: peer is not the first of peers");
		return -EINVAL;
	}
	return 0;
}

static int l7_nl_sync_cfg(struct nlattr *nla, struct l7_sync_cfg *cfg,
			  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[IPVS_L7_SYNC_ATTR_MAX + 1];
	int err;

	err = nla_parse_nested(tb, IPVS_L7_SYNC_ATTR_MAX, nla, l7_sync_policy,
			       extack);
	if (!err)
		err = l7_nl_sync_required(nla, tb, extack);
	if (!err)
		err = l7_nl_sync_peers(nla, tb, cfg, extack);
	if (err)
		return err;
	cfg->role = nla_get_u8(tb[IPVS_L7_SYNC_ATTR_ROLE]);
	nla_strscpy(cfg->ifname, tb[IPVS_L7_SYNC_ATTR_IFNAME],
		    sizeof(cfg->ifname));
	cfg->port = nla_get_be16(tb[IPVS_L7_SYNC_ATTR_PORT]);
	if (!cfg->port) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IPVS_L7_SYNC_ATTR_PORT],
				    "sync: port 0");
		return -EINVAL;
	}
	cfg->sync_id = l7_nl_u32_or(tb[IPVS_L7_SYNC_ATTR_SYNC_ID], 0);
	cfg->idle_ms = l7_nl_u32_or(tb[IPVS_L7_SYNC_ATTR_IDLE],
					   IPVS_L7_SYNC_IDLE_DEFAULT);
	cfg->max_records =
		l7_nl_u32_or(tb[IPVS_L7_SYNC_ATTR_MAX_RECORDS],
				    IPVS_L7_SYNC_RECORDS_DEFAULT);
	nla_memcpy(cfg->key, tb[IPVS_L7_SYNC_ATTR_KEY], sizeof(cfg->key));
	return 0;
}

int l7_nl_start_sync(struct sk_buff *skb, struct genl_info *info)
{
	struct l7_sync_cfg cfg = {};
	int err;

	err = l7_nl_net_allowed(genl_info_net(info), info->extack);
	if (err)
		return err;
	if (GENL_REQ_ATTR_CHECK(info, IPVS_L7_ATTR_SYNC)) {
		NL_SET_ERR_MSG(info->extack, "no sync settings given");
		return -EINVAL;
	}
	err = l7_nl_sync_cfg(info->attrs[IPVS_L7_ATTR_SYNC], &cfg,
			     info->extack);
	if (!err)
		err = ip_vs_l7_sync_start(genl_info_net(info), &cfg,
					  info->extack);
	memzero_explicit(cfg.key, sizeof(cfg.key));
	return err;
}

int l7_nl_stop_sync(struct sk_buff *skb, struct genl_info *info)
{
	int err = l7_nl_net_allowed(genl_info_net(info), info->extack);

	if (err)
		return err;
	err = ip_vs_l7_sync_stop(genl_info_net(info));
	if (err == -ENOENT)
		NL_SET_ERR_MSG(info->extack, "no sync channel runs");
	return err;
}

static int l7_nl_put_sync_stats(struct sk_buff *skb,
				const struct l7_sync_stats *st)
{
	const u64 v[] = {
		[IPVS_L7_SYNC_STATS_SENT]		= st->sent,
		[IPVS_L7_SYNC_STATS_SENT_RECORDS]	= st->sent_records,
		[IPVS_L7_SYNC_STATS_DROPPED]		= st->dropped,
		[IPVS_L7_SYNC_STATS_RECEIVED]		= st->received,
		[IPVS_L7_SYNC_STATS_BAD_HMAC]		= st->bad_hmac,
		[IPVS_L7_SYNC_STATS_BAD_SYNC_ID]	= st->bad_sync_id,
		[IPVS_L7_SYNC_STATS_MALFORMED]		= st->malformed,
		[IPVS_L7_SYNC_STATS_STORED]		= st->stored,
		[IPVS_L7_SYNC_STATS_DELETED]		= st->deleted,
		[IPVS_L7_SYNC_STATS_STALE]		= st->stale,
		[IPVS_L7_SYNC_STATS_EVICTED]		= st->evicted,
		[IPVS_L7_SYNC_STATS_RECORDS]		= st->records,
		[IPVS_L7_SYNC_STATS_ADOPTED]		= st->adopted,
		[IPVS_L7_SYNC_STATS_REFUSED]		= st->refused,
		[IPVS_L7_SYNC_STATS_DISPLACED]		= st->displaced,
		[IPVS_L7_SYNC_STATS_PROBED]		= st->probed,
		[IPVS_L7_SYNC_STATS_WAITED]		= st->waited,
		[IPVS_L7_SYNC_STATS_REPLAYED]		= st->replayed,
		[IPVS_L7_SYNC_STATS_REFLECTED]		= st->reflected,
		[IPVS_L7_SYNC_STATS_UNKNOWN_PEER]	= st->unknown_peer,
		[IPVS_L7_SYNC_STATS_BAD_SOURCE]		= st->bad_source,
		[IPVS_L7_SYNC_STATS_AHEAD]		= st->ahead,
		[IPVS_L7_SYNC_STATS_EXPIRED]		= st->expired,
		[IPVS_L7_SYNC_STATS_PEERS]		= st->peers,
		[IPVS_L7_SYNC_STATS_BLIND]		= st->blind,
		[IPVS_L7_SYNC_STATS_BUSY]		= st->busy,
		[IPVS_L7_SYNC_STATS_LOST]		= st->lost,
		[IPVS_L7_SYNC_STATS_FORWARDED]		= st->forwarded,
		[IPVS_L7_SYNC_STATS_FORWARDED_IN]	= st->forwarded_in,
	};
	struct nlattr *nest = nla_nest_start(skb, IPVS_L7_SYNC_ATTR_STATS);
	unsigned int i;

	if (!nest)
		return -EMSGSIZE;
	for (i = IPVS_L7_SYNC_STATS_SENT; i < ARRAY_SIZE(v); i++)
		if (nla_put_u64_64bit(skb, i, v[i], IPVS_L7_SYNC_STATS_PAD))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int l7_nl_put_peer(struct sk_buff *skb, const struct l7_sync_cfg *cfg,
			  const union nf_inet_addr *a)
{
	return cfg->af == AF_INET ?
	       nla_put_in_addr(skb, IPVS_L7_SYNC_ATTR_PEER, a->ip) :
	       nla_put_in6_addr(skb, IPVS_L7_SYNC_ATTR_PEER, &a->in6);
}

/* the first peer alone, as one-peer tools read it, then all of them */
static int l7_nl_put_sync_peers(struct sk_buff *skb,
				const struct l7_sync_cfg *cfg)
{
	struct nlattr *nest;
	u8 i;

	if (l7_nl_put_peer(skb, cfg, &cfg->peers[0]))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, IPVS_L7_SYNC_ATTR_PEERS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < cfg->npeers; i++)
		if (l7_nl_put_peer(skb, cfg, &cfg->peers[i]))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int l7_nl_put_sync(struct sk_buff *skb, const struct l7_sync_cfg *cfg,
			  const struct l7_sync_stats *st, u32 dgram_max)
{
	struct nlattr *nest = nla_nest_start(skb, IPVS_L7_ATTR_SYNC);

	if (!nest ||
	    nla_put_u8(skb, IPVS_L7_SYNC_ATTR_ROLE, cfg->role) ||
	    nla_put_string(skb, IPVS_L7_SYNC_ATTR_IFNAME, cfg->ifname) ||
	    l7_nl_put_sync_peers(skb, cfg) ||
	    nla_put_be16(skb, IPVS_L7_SYNC_ATTR_PORT, cfg->port) ||
	    nla_put_u32(skb, IPVS_L7_SYNC_ATTR_SYNC_ID, cfg->sync_id) ||
	    nla_put_u32(skb, IPVS_L7_SYNC_ATTR_IDLE, cfg->idle_ms) ||
	    nla_put_u32(skb, IPVS_L7_SYNC_ATTR_MAX_RECORDS, cfg->max_records) ||
	    nla_put_u32(skb, IPVS_L7_SYNC_ATTR_DGRAM_MAX, dgram_max) ||
	    l7_nl_put_sync_stats(skb, st))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

int l7_nl_get_sync(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct l7_sync_stats st;
	struct l7_sync_cfg cfg;
	struct sk_buff *msg;
	u32 dgram_max;
	void *hdr;
	int err;

	err = l7_nl_net_allowed(net, info->extack);
	if (err)
		return err;
	err = ip_vs_l7_sync_get(net, &cfg, &st, &dgram_max);
	if (err) {
		NL_SET_ERR_MSG(info->extack, "no sync channel runs");
		return err;
	}
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &l7_genl_family, 0,
				IPVS_L7_CMD_GET_SYNC);
	if (!hdr || l7_nl_put_sync(msg, &cfg, &st, dgram_max)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}
