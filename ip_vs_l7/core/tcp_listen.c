// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: a VIP's LISTEN state (tcp_listen.h).
 */
#include "tcp_listen.h"
#include "tcp_cookie.h"
#include "tcp_guard.h"
#include "tcp_map.h"

enum l7_listen_act l7_listen_seg(uint8_t flags, bool opts_ok)
{
	/* SYN+FIN, SYN+RST: no stack sends them; no answer, no cookie */
	if (l7_tcp_flags_check(flags, false) == L7_FLAGS_DROP || !opts_ok)
		return L7_LISTEN_DROP;
	if (flags & L7_TCPF_RST)
		return L7_LISTEN_RST;
	if ((flags & (L7_TCPF_SYN | L7_TCPF_ACK)) == L7_TCPF_SYN)
		return L7_LISTEN_SYNACK;
	/* a SYN-ACK to a listener, or a segment without ACK: nothing */
	if ((flags & L7_TCPF_SYN) || !(flags & L7_TCPF_ACK))
		return L7_LISTEN_DROP;
	return L7_LISTEN_ACK;
}

enum l7_listen_next l7_listen_record(enum l7_ckpt_verdict v)
{
	switch (v) {
	case L7_CKPT_ADOPT:
		return L7_LISTEN_ADOPT;
	case L7_CKPT_PROBE:
		return L7_LISTEN_PROBE;
	case L7_CKPT_WAIT:
		return L7_LISTEN_WAIT;
	case L7_CKPT_FORWARD:
		return L7_LISTEN_FORWARD;
	case L7_CKPT_NONE:
	case L7_CKPT_REFUSE:
	default:
		/* a record the segment does not fit is dropped: as without */
		return L7_LISTEN_COOKIE;
	}
}

bool l7_listen_accept(const struct l7_listen_ack *a,
		      struct l7_listen_conn *out)
{
	int wscale = -1;
	bool sack = false;

	if (!a->mss)
		return false;
	/* the timestamp's options are exact, the cookie's rounded down */
	if (a->ts) {
		if (!l7_cookie_ts_decode(a->tsecr, &wscale, &sack))
			return false;
	} else {
		l7_cookie_opts(a->ack - 1, &wscale, &sack);
	}
	*out = (struct l7_listen_conn){
		.rcv_nxt = a->seq,
		.snd_nxt = a->ack,
		.mss = a->mss,
		.win = a->win,
		.max_win = (uint32_t)a->win << (wscale > 0 ? wscale : 0),
		.rcv_edge = a->seq + L7_LISTEN_SYNACK_WIN,
		.ts_recent = a->tsval,
		.ts_last = a->tsecr,
		.wscale = wscale,
		.our_wscale = wscale >= 0 ? L7_LISTEN_OUR_WSCALE : -1,
		.ts = a->ts,
		.sack = sack,
	};
	return true;
}

uint32_t l7_listen_ts_lag(const struct l7_listen_conn *n, uint32_t ts_now)
{
	return n->ts && l7_seq_before(ts_now, n->ts_last) ?
	       n->ts_last - ts_now : 0;
}
