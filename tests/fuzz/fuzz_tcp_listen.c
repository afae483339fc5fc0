// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for core/tcp_listen.c, a VIP's LISTEN state: any
 * segment (flags, whether its options parse, its numbers and timestamp,
 * the kernel's cookie verdict) meeting any record-store verdict, asked
 * in the glue's order (l7_client_new()).  Whatever the input:
 *   - only a SYN alone (no ACK, FIN or RST) is answered with a SYN-ACK;
 *   - a RST is never answered and never makes a connection;
 *   - a connection is made only by an ACK without SYN or RST whose
 *     options parse, from a record the store adopted or a valid cookie
 *     whose timestamp (if any) decodes;
 *   - a segment the store answers with its probe or makes wait is never
 *     checked against a cookie;
 *   - a new connection's numbers are the ACK's, its window edge our
 *     SYN-ACK's 65535 bytes on from the client's next seq, its window
 *     scale and SACK what the cookie's timestamp carried, or without
 *     one what the cookie did (a shift never above 14, and of a cookie
 *     never above the largest it can carry), our shift announced
 *     exactly when the client's is, its largest window its first one
 *     scaled;
 *   - our TSval clock of it is moved up to the TSecr it echoes when it
 *     is behind (a peer's SYN-ACK), and nothing else;
 *   - a cookie claims a period only of the last L7_COOKIE_MAX_AGE + 1
 *     or the next, and made again from what it claims and its own MAC
 *     bits it is the same cookie; options put in a cookie come out as
 *     put, the shift rounded down, its MSS index untouched by them.
 *
 * Input: records of 24 bytes: flags, options-ok, record verdict, then
 * the ACK's seq, ack, mss, window, tsval and tsecr, our clock.
 */
#include "tcp_listen.h"
#include "tcp_cookie.h"
#include "tcp_guard.h"
#include "fuzz_util.h"

#define REC_LEN		24

static uint32_t get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void one(const uint8_t *r)
{
	uint8_t flags = r[0];
	bool opts_ok = !(r[1] & 0x80);
	enum l7_ckpt_verdict store = r[2] % (L7_CKPT_FORWARD + 1);
	struct l7_listen_ack a = {
		.seq = get32(r + 3),
		.ack = get32(r + 7),
		.mss = r[1] & 1 ? 0 : 536 + (r[11] << 2),
		.win = r[12] | r[13] << 8,
		.ts = r[1] & 2,
		.tsval = get32(r + 14) ^ r[18],
		.tsecr = (uint32_t)r[18] | (uint32_t)r[19] << 8,
	};
	uint32_t ts_now = get32(r + 20), lag;
	bool plain_ack = (flags & L7_TCPF_ACK) &&
			 !(flags & (L7_TCPF_SYN | L7_TCPF_RST));
	struct l7_listen_conn n;
	int wscale = -1, put_ws = (int)(r[19] % 17) - 1;
	bool sack = false, made;
	uint32_t period, data, c;

	l7_cookie_claims(a.ack, a.seq, &period, &data);
	FUZZ_ASSERT(a.seq - period <= L7_COOKIE_MAX_AGE ||
		    period == a.seq + 1);
	FUZZ_ASSERT(l7_cookie_make(a.ack, period, data) == a.ack);
	FUZZ_ASSERT(l7_cookie_mss(r[1] & 4, a.ack, a.ack));
	/* options in, options out */
	c = l7_cookie_make(a.ack, period,
			   l7_cookie_data(r[18], put_ws, r[1] & 8));
	l7_cookie_opts(c, &wscale, &sack);
	FUZZ_ASSERT(sack == !!(r[1] & 8));
	FUZZ_ASSERT(put_ws < 0 ? wscale == -1 : (wscale >= 0 &&
						  wscale <= put_ws));
	FUZZ_ASSERT(put_ws < 9 || wscale == 9);
	FUZZ_ASSERT(l7_cookie_mss(false, c, a.ack) ==
		    l7_cookie_mss(false, l7_cookie_make(a.ack, period,
				  l7_cookie_data(r[18], -1, false)), a.ack));
	wscale = -1;
	sack = false;
	switch (l7_listen_seg(flags, opts_ok)) {
	case L7_LISTEN_DROP:
		return;
	case L7_LISTEN_SYNACK:
		FUZZ_ASSERT((flags & (L7_TCPF_SYN | L7_TCPF_ACK | L7_TCPF_RST |
				      L7_TCPF_FIN)) == L7_TCPF_SYN && opts_ok);
		return;
	case L7_LISTEN_RST:
		FUZZ_ASSERT(flags & L7_TCPF_RST);
		FUZZ_ASSERT(!(flags & L7_TCPF_SYN) && opts_ok);
		return;		/* the store may end its record: no answer */
	case L7_LISTEN_ACK:
		FUZZ_ASSERT(plain_ack && opts_ok);
		break;
	}
	switch (l7_listen_record(store)) {
	case L7_LISTEN_ADOPT:
		FUZZ_ASSERT(store == L7_CKPT_ADOPT);
		return;		/* the record's numbers: conn_ckpt's fuzzer */
	case L7_LISTEN_PROBE:
	case L7_LISTEN_WAIT:
		FUZZ_ASSERT(store == L7_CKPT_PROBE || store == L7_CKPT_WAIT);
		return;
	case L7_LISTEN_FORWARD:
		FUZZ_ASSERT(store == L7_CKPT_FORWARD);
		return;		/* to the peer, unchanged */
	case L7_LISTEN_COOKIE:
		FUZZ_ASSERT(store == L7_CKPT_NONE || store == L7_CKPT_REFUSE);
		break;
	}
	made = l7_listen_accept(&a, &n);
	FUZZ_ASSERT(made == (a.mss &&
			     (!a.ts || l7_cookie_ts_decode(a.tsecr, &wscale,
							    &sack))));
	if (!a.ts)
		l7_cookie_opts(a.ack - 1, &wscale, &sack);
	if (!made)
		return;
	FUZZ_ASSERT(n.rcv_nxt == a.seq && n.snd_nxt == a.ack &&
		    n.mss == a.mss && n.win == a.win);
	FUZZ_ASSERT(n.rcv_edge - n.rcv_nxt == L7_LISTEN_SYNACK_WIN);
	FUZZ_ASSERT(n.ts == a.ts && n.ts_recent == a.tsval &&
		    n.ts_last == a.tsecr);
	lag = l7_listen_ts_lag(&n, ts_now);
	FUZZ_ASSERT(lag <= 1u << 31);
	FUZZ_ASSERT(lag == 0 || (a.ts && ts_now + lag == a.tsecr));
	FUZZ_ASSERT(!a.ts || (int32_t)(ts_now + lag - a.tsecr) >= 0);
	FUZZ_ASSERT(n.wscale == wscale && n.sack == sack);
	FUZZ_ASSERT(n.wscale <= (a.ts ? 14 : 9));
	FUZZ_ASSERT((n.our_wscale >= 0) == (n.wscale >= 0));
	FUZZ_ASSERT(n.max_win ==
		    (uint32_t)a.win << (n.wscale > 0 ? n.wscale : 0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off;

	for (off = 0; off + REC_LEN <= size; off += REC_LEN)
		one(data + off);
	return 0;
}
