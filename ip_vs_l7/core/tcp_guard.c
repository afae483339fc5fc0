// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: what the director lets through the TCP layer of a
 * splice.
 */
#include "tcp_guard.h"

/* The presence bit of an option the splice forwards, or 0 to NOP it. */
static unsigned int forwarded_bit(uint8_t kind, bool syn)
{
	switch (kind) {
	case L7_TCPOPT_TIMESTAMP:
		return L7_TCPO_TS;
	case L7_TCPOPT_SACK:
		return L7_TCPO_SACK;
	case L7_TCPOPT_MSS:
		return syn ? L7_TCPO_MSS : 0;
	case L7_TCPOPT_WINDOW:
		return syn ? L7_TCPO_WSCALE : 0;
	case L7_TCPOPT_SACK_PERM:
		return syn ? L7_TCPO_SACK_PERM : 0;
	}
	return 0;
}

/* Overwrite @n bytes at @p with @v; how many of them changed. */
static unsigned int fill(uint8_t *p, unsigned int n, uint8_t v)
{
	unsigned int i, changed = 0;

	for (i = 0; i < n; i++) {
		changed += p[i] != v;
		p[i] = v;
	}
	return changed;
}

/*
 * The walk below follows l7_tcp_opts_parse()'s grammar, which has just
 * accepted the area: every option it steps over has a length byte of at
 * least 2 that stays inside the area.
 */
int l7_tcp_opts_sanitize(uint8_t *opt, unsigned int len, bool syn,
			 struct l7_tcp_opts *o)
{
	unsigned int off = 0, olen, changed = 0;
	int err = l7_tcp_opts_parse(opt, len, o);

	if (err)
		return err;
	while (off < len) {
		if (opt[off] == L7_TCPOPT_EOL) {
			/* padding: no parser may find an option there */
			changed += fill(opt + off + 1, len - off - 1,
					L7_TCPOPT_EOL);
			break;
		}
		if (opt[off] == L7_TCPOPT_NOP) {
			off++;
			continue;
		}
		olen = opt[off + 1];
		if (!forwarded_bit(opt[off], syn)) {
			o->present &= (uint8_t)~l7_tcp_opt_kind_bit(opt[off]);
			changed += fill(opt + off, olen, L7_TCPOPT_NOP);
		}
		off += olen;
	}
	return (int)changed;
}

enum l7_tcp_flags_verdict l7_tcp_flags_check(uint8_t flags, bool established)
{
	if ((flags & L7_TCPF_SYN) && (flags & (L7_TCPF_FIN | L7_TCPF_RST)))
		return L7_FLAGS_DROP;
	if (!established)
		return L7_FLAGS_OK;
	if (flags & L7_TCPF_RST)
		return L7_FLAGS_RST;
	if (flags & L7_TCPF_SYN)
		return L7_FLAGS_CHALLENGE;
	if (!(flags & L7_TCPF_ACK))
		return L7_FLAGS_DROP;
	return L7_FLAGS_OK;
}

enum l7_tcp_rst_verdict l7_tcp_rst_check(uint32_t seq, uint32_t rcv_nxt,
					 uint32_t rcv_wnd, bool fin_in)
{
	uint32_t ahead = seq - rcv_nxt;	/* modulo 2^32 */

	if (!ahead || (fin_in && seq == rcv_nxt - 1))
		return L7_RST_ACCEPT;
	return ahead < rcv_wnd ? L7_RST_CHALLENGE : L7_RST_DROP;
}

bool l7_tcp_ratelimit_allow(struct l7_tcp_ratelimit *rl, uint32_t now,
			    uint32_t interval)
{
	if (rl->used && now - rl->last < interval)
		return false;
	rl->last = now;
	rl->used = true;
	return true;
}

bool l7_tcp_paws_ok(bool agreed, bool rst, const struct l7_tcp_opts *o,
		    uint32_t ts_recent)
{
	if (!agreed || rst)
		return true;
	return (o->present & L7_TCPO_TS) &&
	       (int32_t)(o->tsval - ts_recent) >= 0;
}

void l7_tcp_hdr_no_urgent(uint8_t *th)
{
	th[13] &= ~L7_TCPF_URG;
	th[18] = 0;
	th[19] = 0;
}
