// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7: the secrets behind what the director tells its clients
 * without keeping it - the SYN cookie (core/tcp_cookie.h) and the offset
 * of each connection's TSval clock.
 *
 * Directors side by side answer one client's SYN on one director and
 * its last ACK on another, and a pair's backup may take a handshake its
 * master answered just before it died: each must check the cookies the
 * others made, and go on with the TSval clock the client saw.  So both
 * secrets belong to the tier, not to the kernel (whose syncookie secret
 * is one per boot): derived from the checkpoint channel's shared key
 * while a channel runs (l7_secrets_set()), random per namespace when
 * none does.  Whoever lacks the key can neither forge a cookie nor learn
 * either secret from the wire.
 *
 * The TSval clock is real time plus a keyed offset per address pair, as
 * Linux's secure_tcp_ts_off() keys its own: directors agree on real time
 * (NTP) where their uptimes differ by days, and the offset tells no one
 * the time or links one director's VIPs.  A connection fixes its clock's
 * offset against the monotonic one when it is made, so a step of real
 * time later never turns its TSvals back.
 *
 * Readers run in softirq, once per SYN and once per new connection; the
 * secrets change only when a channel starts or stops: a seqlock.
 */

#define KMSG_COMPONENT "IPVS"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/ipv6.h>
#include <linux/random.h>
#include <linux/seqlock.h>
#include <linux/siphash.h>
#include <linux/string.h>
#include <linux/tcp.h>
#include <linux/timekeeping.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "ip_vs_l7.h"
#include "core/tcp_cookie.h"

struct l7_secret_keys {
	siphash_key_t	cookie;
	siphash_key_t	ts;
};

struct l7_secrets_net {
	seqlock_t		lock;
	struct l7_secret_keys	keys;
};

static unsigned int l7_secrets_net_id __read_mostly;

static struct l7_secrets_net *l7_secrets_net(struct net *net)
{
	return net_generic(net, l7_secrets_net_id);
}

static void l7_secrets_read(struct net *net, struct l7_secret_keys *k)
{
	struct l7_secrets_net *sn = l7_secrets_net(net);
	unsigned int seq;

	do {
		seq = read_seqbegin(&sn->lock);
		*k = sn->keys;
	} while (read_seqretry(&sn->lock, seq));
}

void l7_secrets_set(struct net *net, const u8 *bytes)
{
	struct l7_secrets_net *sn = l7_secrets_net(net);
	struct l7_secret_keys k;

	BUILD_BUG_ON(sizeof(k) != L7_SECRETS_LEN);
	if (bytes)
		memcpy(&k, bytes, sizeof(k));
	else
		get_random_bytes(&k, sizeof(k));
	write_seqlock_bh(&sn->lock);
	sn->keys = k;
	write_sequnlock_bh(&sn->lock);
	memzero_explicit(&k, sizeof(k));
}

/* A segment's addresses and ports, and the rest of what a MAC covers. */
struct l7_cookie_msg {
	struct in6_addr	saddr;
	struct in6_addr	daddr;
	__be16		sport;
	__be16		dport;
	u32		isn;
	u32		period;
	u32		data;
} __aligned(SIPHASH_ALIGNMENT);

/* The MAC of a cookie of @skb's tuple: the SYN's, or the ACK's. */
static u32 l7_cookie_mac(const siphash_key_t *key, const struct sk_buff *skb,
			 u32 isn, u32 period, u32 data)
{
	const struct tcphdr *th = tcp_hdr(skb);
	struct l7_cookie_msg m;

	memset(&m, 0, sizeof(m));
	if (l7_skb_af(skb) == AF_INET6) {
		m.saddr = ipv6_hdr(skb)->saddr;
		m.daddr = ipv6_hdr(skb)->daddr;
	} else {
		m.saddr.s6_addr32[0] = ip_hdr(skb)->saddr;
		m.daddr.s6_addr32[0] = ip_hdr(skb)->daddr;
	}
	m.sport = th->source;
	m.dport = th->dest;
	m.isn = isn;
	m.period = period;
	m.data = data;
	return (u32)siphash(&m, sizeof(m), key);
}

static u32 l7_cookie_period(void)
{
	return (u32)div_u64(ktime_get_real_seconds(), L7_COOKIE_PERIOD_S);
}

u32 l7_syncookie_make(struct net *net, const struct sk_buff *syn, u16 *mss,
		      int wscale, bool sack)
{
	bool v6 = l7_skb_af(syn) == AF_INET6;
	u32 isn = ntohl(tcp_hdr(syn)->seq);
	u32 period = l7_cookie_period();
	struct l7_secret_keys k;
	u32 idx, data, cookie;

	*mss = l7_cookie_mss_pick(v6, *mss, &idx);
	data = l7_cookie_data(idx, wscale, sack);
	l7_secrets_read(net, &k);
	cookie = l7_cookie_make(l7_cookie_mac(&k.cookie, syn, isn, period,
					      data),
				period, data);
	memzero_explicit(&k, sizeof(k));
	return cookie;
}

u16 l7_syncookie_check(struct net *net, const struct sk_buff *ack)
{
	const struct tcphdr *th = tcp_hdr(ack);
	u32 cookie = ntohl(th->ack_seq) - 1;
	u32 isn = ntohl(th->seq) - 1;
	struct l7_secret_keys k;
	u32 period, data, mac;

	l7_cookie_claims(cookie, l7_cookie_period(), &period, &data);
	l7_secrets_read(net, &k);
	mac = l7_cookie_mac(&k.cookie, ack, isn, period, data);
	memzero_explicit(&k, sizeof(k));
	return l7_cookie_mss(l7_skb_af(ack) == AF_INET6, cookie, mac);
}

u32 l7_ts_clock_off(struct net *net, u16 af, const union nf_inet_addr *saddr,
		    const union nf_inet_addr *daddr)
{
	struct {
		struct in6_addr saddr;
		struct in6_addr daddr;
	} addrs;
	struct l7_secret_keys k;
	u32 off;

	l7_secrets_read(net, &k);
	if (af == AF_INET) {
		off = siphash_2u32((__force u32)saddr->ip,
				   (__force u32)daddr->ip, &k.ts);
	} else {
		addrs.saddr = saddr->in6;
		addrs.daddr = daddr->in6;
		off = siphash(&addrs, sizeof(addrs), &k.ts);
	}
	memzero_explicit(&k, sizeof(k));
	/* real time against the monotonic clock the TSvals are read from */
	return off + (u32)div_u64(ktime_get_real_ns(), NSEC_PER_MSEC) -
	       (u32)div_u64(ktime_get_boottime_ns(), NSEC_PER_MSEC);
}

static int __net_init l7_secrets_net_init(struct net *net)
{
	seqlock_init(&l7_secrets_net(net)->lock);
	l7_secrets_set(net, NULL);
	return 0;
}

static void __net_exit l7_secrets_net_exit(struct net *net)
{
	memzero_explicit(&l7_secrets_net(net)->keys,
			 sizeof(struct l7_secret_keys));
}

static struct pernet_operations l7_secrets_net_ops = {
	.init = l7_secrets_net_init,
	.exit = l7_secrets_net_exit,
	.id = &l7_secrets_net_id,
	.size = sizeof(struct l7_secrets_net),
};

int l7_secrets_init(void)
{
	return register_pernet_subsys(&l7_secrets_net_ops);
}

void l7_secrets_exit(void)
{
	unregister_pernet_subsys(&l7_secrets_net_ops);
}
