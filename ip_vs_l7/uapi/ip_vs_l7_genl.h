/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ip_vs_l7: the "IPVS_L7" generic-netlink family - content rules and pools
 * of l7 services.  Usable from user space as is (linux/types.h only), e.g.
 * with libnl-3's genl_ctrl_resolve(sk, IPVS_L7_GENL_NAME).
 *
 * Model
 *   Rules and pools belong to a *service key*: address family, protocol,
 *   virtual address and port - not to the IPVS service object.  A key may
 *   hold rules before IPVS has a service with that tuple, and keeps them
 *   when the service is deleted and added again (keepalived does that);
 *   they apply while the tuple is an IPVS service with scheduler "l7".
 *   A key holds one *rule set*: its pools and its rules, replaced as a
 *   whole at each change, so the data path always sees one consistent
 *   set (old or new, never a mix).
 *
 *   Rules are evaluated in ascending id order; the first rule whose every
 *   present match holds decides.  Absent matches hold.  No rule matching:
 *   the request is scheduled over the whole service as without rules.
 *
 *   A pool names real servers of the service by address family, address
 *   and port - of either family, whatever the key's (IPVS lets an IPv6
 *   service have IPv4 real servers and the other way round).  A
 *   member is eligible, at the time of each request, only while it is a
 *   real server of the service with weight > 0 and is not down in its
 *   connection pool.  The kernel does not require members to be real
 *   servers when a pool is stored (health checkers remove and add real
 *   servers at any time); user space (ipvsadm) checks them for the
 *   operator.  A rule whose pool has no eligible member answers 503, or
 *   continues with the next rule if it has IPVS_L7_RULE_F_FALLTHROUGH.
 *
 * Validation is strict (a policy for every command): unknown attributes,
 * trailing bytes, reserved genlmsghdr bits and nlmsg_flags other than
 * NLM_F_REQUEST, NLM_F_ACK, NLM_F_ECHO and NLM_F_DUMP are refused, and
 * every nested attribute must carry NLA_F_NESTED (with libnl-3:
 * nla_nest_start(msg, type | NLA_F_NESTED)).  Every command needs
 * CAP_NET_ADMIN, as IPVS's own family does.
 *
 * Errors: every refusal carries an extended-ack message
 * (NETLINK_EXT_ACK) - but a dump's filter (ATTR_SERVICE of GET_RULE and
 * GET_POOL) is checked in the dump's start, whose message kernels before
 * 6.5 do not pass on: there only the errno says why.  EEXIST: id or pool name taken; ENOENT: no such
 * rule, pool or key; EBUSY: pool still used by a rule; E2BIG: over a
 * limit below; EINVAL: malformed; EAFNOSUPPORT: a family other than
 * AF_INET and AF_INET6; EPERM: no CAP_NET_ADMIN.
 *
 * Options (IPVS_L7_ATTR_OPTIONS) belong to the key as its rule set does:
 * they survive the service's delete and re-add, are kept by every rule
 * and pool change (SET_RULESET included), and go with FLUSH.  A key
 * exists while it has a rule, a pool or an option that is not the
 * default.
 *
 * Counters (u64) belong to a rule id, or to a pool name, within a key:
 * they survive IPVS_L7_CMD_REPLACE_RULE, IPVS_L7_CMD_REPLACE_POOL and
 * IPVS_L7_CMD_SET_RULESET for ids and names that stay, and start at 0
 * for new ones.
 */
#ifndef _UAPI_IP_VS_L7_GENL_H
#define _UAPI_IP_VS_L7_GENL_H

#include <linux/types.h>

#define IPVS_L7_GENL_NAME	"IPVS_L7"
#define IPVS_L7_GENL_VERSION	1

/* Limits, enforced by the kernel with E2BIG and a message. */
#define IPVS_L7_MAX_RULES	1024	/* rules per service key */
#define IPVS_L7_MAX_POOLS	32	/* pools per service key */
#define IPVS_L7_MAX_MEMBERS	64	/* members per pool */
#define IPVS_L7_MAX_HEADERS	4	/* header tests per rule */
#define IPVS_L7_MAX_ALTS	8	/* '|'-separated values per header test */
#define IPVS_L7_POOL_NAME_LEN	16	/* pool name with its NUL */
#define IPVS_L7_NAME_MAX	64	/* header or cookie name, bytes */
#define IPVS_L7_VALUE_MAX	128	/* host, path, cookie value, values */

enum {
	IPVS_L7_CMD_UNSPEC,
	/*
	 * ATTR_SERVICE + ATTR_RULE: adds the rule.  EEXIST if its id is
	 * taken, ENOENT if its pool is not in the key's set.
	 */
	IPVS_L7_CMD_ADD_RULE,
	/* ATTR_SERVICE + ATTR_RULE with only RULE_ATTR_ID: deletes it. */
	IPVS_L7_CMD_DEL_RULE,
	/* ATTR_SERVICE + ATTR_RULE: replaces the rule with that id. */
	IPVS_L7_CMD_REPLACE_RULE,
	/* ATTR_SERVICE + ATTR_POOL: adds the pool.  EEXIST if named so. */
	IPVS_L7_CMD_ADD_POOL,
	/*
	 * ATTR_SERVICE + ATTR_POOL with only POOL_ATTR_NAME: deletes it.
	 * EBUSY while a rule sends requests to it.
	 */
	IPVS_L7_CMD_DEL_POOL,
	/* ATTR_SERVICE + ATTR_POOL: replaces the pool with that name. */
	IPVS_L7_CMD_REPLACE_POOL,
	/*
	 * ATTR_SERVICE + optional ATTR_POOLS + optional ATTR_RULES: the
	 * key's whole set becomes exactly these pools and rules, in one
	 * step (checked as a whole first: on error nothing changes).
	 * Neither present: the key's pools and rules are removed.  The
	 * key's options stay.
	 */
	IPVS_L7_CMD_SET_RULESET,
	/*
	 * optional ATTR_SERVICE: removes that key's set and options, else
	 * those of every key.
	 */
	IPVS_L7_CMD_FLUSH,
	/*
	 * Dump (NLM_F_DUMP), optional ATTR_SERVICE as a filter: one
	 * message per rule, ATTR_SERVICE + ATTR_RULE (with RULE_ATTR_STATS),
	 * keys in no particular order, rules in id order.
	 */
	IPVS_L7_CMD_GET_RULE,
	/* Dump, as GET_RULE: ATTR_SERVICE + ATTR_POOL (with stats). */
	IPVS_L7_CMD_GET_POOL,
	/* Plain request: answers ATTR_INFO (version and limits). */
	IPVS_L7_CMD_GET_INFO,
	/*
	 * ATTR_SERVICE + ATTR_OPTIONS: the options present take their new
	 * values, the others stay as they are (at least one is needed).
	 */
	IPVS_L7_CMD_SET_OPTIONS,
	/*
	 * ATTR_SERVICE: answers ATTR_SERVICE + ATTR_OPTIONS with every
	 * option, the default ones too (a key without options has only
	 * defaults).
	 */
	IPVS_L7_CMD_GET_OPTIONS,
	/*
	 * ATTR_SYNC: starts the network namespace's checkpoint channel
	 * (below).  EEXIST if it runs: stop it first.
	 */
	IPVS_L7_CMD_START_SYNC,
	/* no attribute: stops it, its queue and records go.  ENOENT if none. */
	IPVS_L7_CMD_STOP_SYNC,
	/*
	 * no attribute: answers ATTR_SYNC with its settings (never the
	 * key) and SYNC_ATTR_STATS.  ENOENT if it does not run.
	 */
	IPVS_L7_CMD_GET_SYNC,

	__IPVS_L7_CMD_MAX,
};
#define IPVS_L7_CMD_MAX (__IPVS_L7_CMD_MAX - 1)

/* Top-level attributes. */
enum {
	IPVS_L7_ATTR_UNSPEC,
	IPVS_L7_ATTR_SERVICE,	/* nested IPVS_L7_SVC_ATTR_* */
	IPVS_L7_ATTR_RULE,	/* nested IPVS_L7_RULE_ATTR_* */
	IPVS_L7_ATTR_POOL,	/* nested IPVS_L7_POOL_ATTR_* */
	/*
	 * nested: a list of nested IPVS_L7_RULE_ATTR_* (each entry's own
	 * type is ignored; use 1, 2, ...), at most IPVS_L7_MAX_RULES
	 */
	IPVS_L7_ATTR_RULES,
	IPVS_L7_ATTR_POOLS,	/* nested list of IPVS_L7_POOL_ATTR_*, likewise */
	IPVS_L7_ATTR_INFO,	/* nested IPVS_L7_INFO_ATTR_* (answers only) */
	IPVS_L7_ATTR_OPTIONS,	/* nested IPVS_L7_OPT_ATTR_* */
	IPVS_L7_ATTR_SYNC,	/* nested IPVS_L7_SYNC_ATTR_* */

	__IPVS_L7_ATTR_MAX,
};
#define IPVS_L7_ATTR_MAX (__IPVS_L7_ATTR_MAX - 1)

/* Service key: the tuple of an IPVS virtual service (no fwmark). */
enum {
	IPVS_L7_SVC_ATTR_UNSPEC,
	IPVS_L7_SVC_ATTR_AF,		/* u16: AF_INET or AF_INET6 */
	IPVS_L7_SVC_ATTR_PROTOCOL,	/* u16: IPPROTO_TCP */
	IPVS_L7_SVC_ATTR_ADDR,		/* binary: exactly 4 or 16 bytes, as AF */
	IPVS_L7_SVC_ATTR_PORT,		/* u16, network byte order, != 0 */

	__IPVS_L7_SVC_ATTR_MAX,
};
#define IPVS_L7_SVC_ATTR_MAX (__IPVS_L7_SVC_ATTR_MAX - 1)

/* How a pool chooses among its eligible members. */
enum ipvs_l7_policy {
	IPVS_L7_POLICY_WLO,	/* weighted least outstanding requests */
	IPVS_L7_POLICY_WRR,	/* weighted round robin */
	/* consistent hash of a request key, with bounded load */
	IPVS_L7_POLICY_HASH,

	__IPVS_L7_POLICY_MAX,
};
#define IPVS_L7_POLICY_MAX (__IPVS_L7_POLICY_MAX - 1)

/* What IPVS_L7_POLICY_HASH hashes. */
enum ipvs_l7_hash_key {
	IPVS_L7_HASH_URI,	/* the normalised path */
	IPVS_L7_HASH_HOST,	/* the Host, lower case, no port */
	IPVS_L7_HASH_COOKIE,	/* value of cookie POOL_ATTR_HASH_NAME */
	IPVS_L7_HASH_HEADER,	/* value of header POOL_ATTR_HASH_NAME */

	__IPVS_L7_HASH_MAX,
};
#define IPVS_L7_HASH_MAX (__IPVS_L7_HASH_MAX - 1)

enum {
	IPVS_L7_POOL_ATTR_UNSPEC,
	/* NUL-terminated string, 1..IPVS_L7_POOL_NAME_LEN - 1 bytes of
	 * [A-Za-z0-9_.-]; required
	 */
	IPVS_L7_POOL_ATTR_NAME,
	IPVS_L7_POOL_ATTR_POLICY,	/* u8 enum ipvs_l7_policy; default WLO */
	/* u8 enum ipvs_l7_hash_key: required with POLICY_HASH, else refused */
	IPVS_L7_POOL_ATTR_HASH_KEY,
	/* string: the cookie or header name (a token) for HASH_COOKIE and
	 * HASH_HEADER; refused otherwise
	 */
	IPVS_L7_POOL_ATTR_HASH_NAME,
	/*
	 * nested list of nested IPVS_L7_MEMBER_ATTR_* (entry types ignored),
	 * 1..IPVS_L7_MAX_MEMBERS distinct members; required except in
	 * DEL_POOL
	 */
	IPVS_L7_POOL_ATTR_MEMBERS,
	IPVS_L7_POOL_ATTR_STATS,	/* nested IPVS_L7_STATS_ATTR_* (dumps) */

	__IPVS_L7_POOL_ATTR_MAX,
};
#define IPVS_L7_POOL_ATTR_MAX (__IPVS_L7_POOL_ATTR_MAX - 1)

/* A pool member: a real server of either family, whatever the key's. */
enum {
	IPVS_L7_MEMBER_ATTR_UNSPEC,
	IPVS_L7_MEMBER_ATTR_ADDR,	/* binary: exactly 4 or 16 bytes, as AF */
	IPVS_L7_MEMBER_ATTR_PORT,	/* u16, network byte order, != 0 */
	/*
	 * u16: AF_INET or AF_INET6.  Optional in requests (absent: AF_INET6
	 * for a 16-byte address, else AF_INET); always in dumps.
	 */
	IPVS_L7_MEMBER_ATTR_AF,

	__IPVS_L7_MEMBER_ATTR_MAX,
};
#define IPVS_L7_MEMBER_ATTR_MAX (__IPVS_L7_MEMBER_ATTR_MAX - 1)

/* HTTP methods, for IPVS_L7_RULE_ATTR_METHODS. */
#define IPVS_L7_METHOD_GET	(1U << 0)
#define IPVS_L7_METHOD_HEAD	(1U << 1)
#define IPVS_L7_METHOD_POST	(1U << 2)
#define IPVS_L7_METHOD_PUT	(1U << 3)
#define IPVS_L7_METHOD_DELETE	(1U << 4)
#define IPVS_L7_METHOD_OPTIONS	(1U << 5)
#define IPVS_L7_METHOD_TRACE	(1U << 6)
#define IPVS_L7_METHOD_PATCH	(1U << 7)
#define IPVS_L7_METHOD_CONNECT	(1U << 8)
#define IPVS_L7_METHOD_OTHER	(1U << 9)	/* any other valid token */
#define IPVS_L7_METHOD_ALL	((1U << 10) - 1)

/* IPVS_L7_RULE_ATTR_FLAGS */
/* RULE_ATTR_PATH is a prefix on path segments: "/api" matches "/api" and
 * "/api/x", not "/apix".  Without it the path must be equal.
 */
#define IPVS_L7_RULE_F_PATH_PREFIX	(1U << 0)
/* pool without eligible member: try the next rules instead of a 503 */
#define IPVS_L7_RULE_F_FALLTHROUGH	(1U << 1)
/* RULE_ATTR_PATH compared ASCII-case-insensitively */
#define IPVS_L7_RULE_F_PATH_NOCASE	(1U << 2)
#define IPVS_L7_RULE_F_ALL		((1U << 3) - 1)

enum {
	IPVS_L7_RULE_ATTR_UNSPEC,
	IPVS_L7_RULE_ATTR_ID,		/* u32, >= 1, unique in the key; required */
	IPVS_L7_RULE_ATTR_FLAGS,	/* u32 IPVS_L7_RULE_F_*; default 0 */
	/*
	 * string: Host to match, case-insensitive, compared without the
	 * request's port: "a.example" exactly, or "*.example" for any name
	 * ending in ".example" on a label boundary
	 */
	IPVS_L7_RULE_ATTR_HOST,
	/*
	 * string: path to match (see IPVS_L7_RULE_F_PATH_PREFIX), compared
	 * with the request's normalised path (query removed, unreserved
	 * percent-encodings decoded, dot-segments resolved).  Must start with
	 * '/' and be normal itself (as the request's path would be after
	 * normalisation): no '?', '#' or space, no "//", "." or ".."
	 * segment, no percent-encoded unreserved character, other
	 * percent-encodings in upper case.  Case-sensitive unless
	 * IPVS_L7_RULE_F_PATH_NOCASE.
	 */
	IPVS_L7_RULE_ATTR_PATH,
	IPVS_L7_RULE_ATTR_METHODS,	/* u32 IPVS_L7_METHOD_* set, != 0 */
	/*
	 * nested list of 1..IPVS_L7_MAX_HEADERS nested IPVS_L7_MATCH_ATTR_*
	 * (entry types ignored): each a header name (a token,
	 * case-insensitive) and 1..IPVS_L7_MAX_ALTS '|'-separated values;
	 * the test holds when a field of that name has one of the values
	 */
	IPVS_L7_RULE_ATTR_HEADERS,
	/* nested IPVS_L7_MATCH_ATTR_*: cookie name and its exact value */
	IPVS_L7_RULE_ATTR_COOKIE,
	/* action, exactly one of the two: */
	IPVS_L7_RULE_ATTR_POOL,		/* string: a pool of the same key */
	IPVS_L7_RULE_ATTR_REJECT,	/* u16: answer 403, 404 or 503 */
	IPVS_L7_RULE_ATTR_STATS,	/* nested IPVS_L7_STATS_ATTR_* (dumps) */

	__IPVS_L7_RULE_ATTR_MAX,
};
#define IPVS_L7_RULE_ATTR_MAX (__IPVS_L7_RULE_ATTR_MAX - 1)

/*
 * A name = value test.  Strings are NUL-terminated; values may not hold
 * control characters (bytes < 0x20 and 0x7f) and, like names, not be
 * empty.
 */
enum {
	IPVS_L7_MATCH_ATTR_UNSPEC,
	IPVS_L7_MATCH_ATTR_NAME,	/* string, 1..IPVS_L7_NAME_MAX bytes */
	IPVS_L7_MATCH_ATTR_VALUE,	/* string, 1..IPVS_L7_VALUE_MAX bytes */

	__IPVS_L7_MATCH_ATTR_MAX,
};
#define IPVS_L7_MATCH_ATTR_MAX (__IPVS_L7_MATCH_ATTR_MAX - 1)

/* Counters, u64, in dumps. */
enum {
	IPVS_L7_STATS_ATTR_UNSPEC,
	IPVS_L7_STATS_ATTR_PAD,
	IPVS_L7_STATS_ATTR_HITS,	/* rule: requests it decided */
	IPVS_L7_STATS_ATTR_REQUESTS,	/* pool: requests sent to a member */
	/* pool: requests that found no eligible member (503 or fallthrough) */
	IPVS_L7_STATS_ATTR_UNAVAILABLE,

	__IPVS_L7_STATS_ATTR_MAX,
};
#define IPVS_L7_STATS_ATTR_MAX (__IPVS_L7_STATS_ATTR_MAX - 1)

/*
 * Which header carries the client's address to the server
 * (IPVS_L7_OPT_ATTR_FORWARDED).  DEFAULT follows the module parameter
 * "forwarded" at each request; the others are the parameter's values.
 */
enum ipvs_l7_forwarded {
	IPVS_L7_FORWARDED_DEFAULT,
	IPVS_L7_FORWARDED_OFF,		/* none */
	IPVS_L7_FORWARDED_XFF,		/* X-Forwarded-For, after the client's */
	IPVS_L7_FORWARDED_XFF_REPLACE,	/* X-Forwarded-For, instead */
	IPVS_L7_FORWARDED_FORWARDED,	/* Forwarded: for= (RFC 7239) */

	__IPVS_L7_FORWARDED_MAX,
};
#define IPVS_L7_FORWARDED_MAX (__IPVS_L7_FORWARDED_MAX - 1)

/*
 * Whether the service's real servers have pools of pre-established
 * connections (IPVS_L7_OPT_ATTR_PREFORK).  OFF is a baseline for
 * measurements, what post-splicing switches (TCPSP) cost: no connection
 * is kept idle, one is opened to the chosen server for each request that
 * waits for it and closed after its response.
 */
enum ipvs_l7_prefork {
	IPVS_L7_PREFORK_ON,		/* pool_min_idle kept ready (default) */
	IPVS_L7_PREFORK_OFF,		/* a connection per request */

	__IPVS_L7_PREFORK_MAX,
};
#define IPVS_L7_PREFORK_MAX (__IPVS_L7_PREFORK_MAX - 1)

/*
 * Per-service options: each one optional in SET_OPTIONS, all present in
 * GET_OPTIONS' answer.  Every option's zero value is "default".
 */
enum {
	IPVS_L7_OPT_ATTR_UNSPEC,
	IPVS_L7_OPT_ATTR_FORWARDED,	/* u32 enum ipvs_l7_forwarded */
	IPVS_L7_OPT_ATTR_PREFORK,	/* u32 enum ipvs_l7_prefork */

	__IPVS_L7_OPT_ATTR_MAX,
};
#define IPVS_L7_OPT_ATTR_MAX (__IPVS_L7_OPT_ATTR_MAX - 1)

/*
 * The checkpoint channel of a network namespace: client connections
 * idle between two requests, carried from the master director to the
 * backup in UDP datagrams (the format is core/conn_ckpt.h's), each
 * authenticated with HMAC-SHA256 under a key both directors are given.
 * The master sends to the peer; the backup takes what comes to its port
 * on the interface and keeps the newest record of each connection, up
 * to a cap, and takes a connection over from its record when that
 * client's next segment reaches it (the VIP has moved).  BOTH is the two
 * at once, the role for the two directors of a VRRP pair: whichever
 * holds the VIP sends, the other keeps, and no role changes on a
 * failover.  One channel per network namespace, in one role: a role
 * change is a stop and a start.
 */
enum ipvs_l7_sync_role {
	IPVS_L7_SYNC_MASTER = 1,
	IPVS_L7_SYNC_BACKUP = 2,
	IPVS_L7_SYNC_BOTH = 3,
};

#define IPVS_L7_SYNC_KEY_LEN		32	/* the shared key, bytes */
#define IPVS_L7_SYNC_IDLE_DEFAULT	200	/* ms */
#define IPVS_L7_SYNC_IDLE_MAX		60000	/* ms */
#define IPVS_L7_SYNC_RECORDS_DEFAULT	65536
#define IPVS_L7_SYNC_RECORDS_MAX	(1U << 20)
/* directors a channel sends to and takes records from, at most */
#define IPVS_L7_SYNC_PEERS_MAX		8

enum {
	IPVS_L7_SYNC_ATTR_UNSPEC,
	IPVS_L7_SYNC_ATTR_ROLE,		/* u8 enum ipvs_l7_sync_role; required */
	/* string: the dedicated interface, bound to; required */
	IPVS_L7_SYNC_ATTR_IFNAME,
	/*
	 * binary, 4 or 16 bytes: the other director's unicast address, when
	 * there is one other (else IPVS_L7_SYNC_ATTR_PEERS; one of the two
	 * is required).  A director sends to each of its peers, and takes
	 * datagrams from their addresses and IPVS_L7_SYNC_ATTR_PORT only.
	 * Its size gives the channel's address family.  Answers carry the
	 * first peer here.
	 */
	IPVS_L7_SYNC_ATTR_PEER,
	IPVS_L7_SYNC_ATTR_PORT,		/* u16, network byte order, != 0; required */
	IPVS_L7_SYNC_ATTR_SYNC_ID,	/* u32; default 0 */
	/* binary, exactly IPVS_L7_SYNC_KEY_LEN bytes; required, never answered */
	IPVS_L7_SYNC_ATTR_KEY,
	/* u32 ms a connection stays idle before its record; 1..IDLE_MAX */
	IPVS_L7_SYNC_ATTR_IDLE,
	/* u32: records a backup keeps at most (as many tombstones); 1..RECORDS_MAX */
	IPVS_L7_SYNC_ATTR_MAX_RECORDS,
	IPVS_L7_SYNC_ATTR_STATS,	/* nested IPVS_L7_SYNC_STATS_* (answers) */
	/* u32 (answers): bytes of a datagram at most, from the interface's MTU */
	IPVS_L7_SYNC_ATTR_DGRAM_MAX,
	/*
	 * nested: 1 to IPVS_L7_SYNC_PEERS_MAX IPVS_L7_SYNC_ATTR_PEER, each
	 * another director, all of one family and distinct: the channel's
	 * peers, in place of IPVS_L7_SYNC_ATTR_PEER (which, if given too,
	 * is the first of them).  Answers carry all of them here.
	 */
	IPVS_L7_SYNC_ATTR_PEERS,

	__IPVS_L7_SYNC_ATTR_MAX,
};
#define IPVS_L7_SYNC_ATTR_MAX (__IPVS_L7_SYNC_ATTR_MAX - 1)

/* The channel's counters, u64, since its start. */
enum {
	IPVS_L7_SYNC_STATS_UNSPEC,
	IPVS_L7_SYNC_STATS_PAD,
	IPVS_L7_SYNC_STATS_SENT,	/* datagrams sent */
	IPVS_L7_SYNC_STATS_SENT_RECORDS,	/* records in them */
	/* records not sent: the queue was full or sending failed */
	IPVS_L7_SYNC_STATS_DROPPED,
	IPVS_L7_SYNC_STATS_RECEIVED,	/* datagrams taken (all checks passed) */
	IPVS_L7_SYNC_STATS_BAD_HMAC,	/* datagrams dropped: wrong HMAC */
	IPVS_L7_SYNC_STATS_BAD_SYNC_ID,	/* datagrams dropped: another sync id */
	/* datagrams dropped: short, another version, a record that does not read */
	IPVS_L7_SYNC_STATS_MALFORMED,
	IPVS_L7_SYNC_STATS_STORED,	/* UPSERT records taken */
	IPVS_L7_SYNC_STATS_DELETED,	/* DELETE records taken */
	IPVS_L7_SYNC_STATS_STALE,	/* records older than what was known */
	IPVS_L7_SYNC_STATS_EVICTED,	/* records pushed out by the cap */
	IPVS_L7_SYNC_STATS_RECORDS,	/* records held now */
	/* client connections taken over from their records */
	IPVS_L7_SYNC_STATS_ADOPTED,
	/* segments that did not fit their record: record dropped, RST */
	IPVS_L7_SYNC_STATS_REFUSED,
	/*
	 * connections of this director ended without a word because the
	 * peer sent a newer record of them: it took them over
	 */
	IPVS_L7_SYNC_STATS_DISPLACED,
	/* records probed when an address came up (a VIP moved here) */
	IPVS_L7_SYNC_STATS_PROBED,
	/*
	 * a client's bare ACK from past its record (bytes in flight to the
	 * dead director), dropped once to wait for its retransmission
	 */
	IPVS_L7_SYNC_STATS_WAITED,
	/* datagrams dropped: a sequence number the peer sent already */
	IPVS_L7_SYNC_STATS_REPLAYED,
	/* datagrams dropped: this director's own, sent back to it */
	IPVS_L7_SYNC_STATS_REFLECTED,
	/*
	 * datagrams authenticated but from a sender not yet accepted (it had
	 * not echoed this director's challenge): their records are not taken
	 */
	IPVS_L7_SYNC_STATS_UNKNOWN_PEER,
	/* datagrams dropped: not from the configured peer's address and port */
	IPVS_L7_SYNC_STATS_BAD_SOURCE,
	/* records refused: a generation too far ahead of the newest known */
	IPVS_L7_SYNC_STATS_AHEAD,
	/* records dropped unadopted after the second probe of a takeover */
	IPVS_L7_SYNC_STATS_EXPIRED,
	/* senders accepted: the peer's starts, as this director saw them */
	IPVS_L7_SYNC_STATS_PEERS,
	/* segments of a recorded tuple out of its window: dropped, probed */
	IPVS_L7_SYNC_STATS_BLIND,
	/* clients of a busy record (request under way at the failover) reset */
	IPVS_L7_SYNC_STATS_BUSY,
	/*
	 * peers that fell silent (no datagram for 1 s, four HELLOs): the
	 * records of their connections probed, as at a takeover
	 */
	IPVS_L7_SYNC_STATS_LOST,
	/*
	 * client segments of a live peer's connection sent on to it
	 * (IP-in-IP to its sync address): its flow moved here mid-request
	 */
	IPVS_L7_SYNC_STATS_FORWARDED,
	/* such segments taken from a peer, on the channel's interface */
	IPVS_L7_SYNC_STATS_FORWARDED_IN,

	__IPVS_L7_SYNC_STATS_MAX,
};
#define IPVS_L7_SYNC_STATS_MAX (__IPVS_L7_SYNC_STATS_MAX - 1)

/* IPVS_L7_CMD_GET_INFO's answer: all u32. */
enum {
	IPVS_L7_INFO_ATTR_UNSPEC,
	IPVS_L7_INFO_ATTR_VERSION,	/* IPVS_L7_GENL_VERSION */
	IPVS_L7_INFO_ATTR_MAX_RULES,
	IPVS_L7_INFO_ATTR_MAX_POOLS,
	IPVS_L7_INFO_ATTR_MAX_MEMBERS,
	IPVS_L7_INFO_ATTR_MAX_HEADERS,
	IPVS_L7_INFO_ATTR_MAX_ALTS,
	IPVS_L7_INFO_ATTR_NAME_MAX,
	IPVS_L7_INFO_ATTR_VALUE_MAX,

	__IPVS_L7_INFO_ATTR_MAX,
};
#define IPVS_L7_INFO_ATTR_MAX (__IPVS_L7_INFO_ATTR_MAX - 1)

#endif /* _UAPI_IP_VS_L7_GENL_H */
