// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/tcp_listen.c, a VIP's LISTEN state: a SYN is
 * answered with a cookie and keeps nothing; only an ACK may make a
 * connection, a record's before the cookie's; a RST is never answered
 * and never makes one; flags no stack sends together, a SYN-ACK, a
 * segment without ACK or with options that do not parse get nothing;
 * a bad cookie, or a timestamp whose options do not decode, is reset;
 * a good one makes the connection the client believes in.
 */
#include "tcp_listen.h"
#include "tcp_cookie.h"
#include "tcp_guard.h"
#include "l7_test.h"

#define SYN	L7_TCPF_SYN
#define ACK	L7_TCPF_ACK
#define RST	L7_TCPF_RST
#define FIN	L7_TCPF_FIN
#define PSH	L7_TCPF_PSH

static void segments_classified(void)
{
	CHECK(l7_listen_seg(SYN, true) == L7_LISTEN_SYNACK, "SYN");
	CHECK(l7_listen_seg(SYN, false) == L7_LISTEN_DROP, "SYN, bad options");
	CHECK(l7_listen_seg(SYN | FIN, true) == L7_LISTEN_DROP, "SYN+FIN");
	CHECK(l7_listen_seg(SYN | RST, true) == L7_LISTEN_DROP, "SYN+RST");
	CHECK(l7_listen_seg(SYN | ACK, true) == L7_LISTEN_DROP, "SYN-ACK");
	CHECK(l7_listen_seg(RST, true) == L7_LISTEN_RST, "RST");
	CHECK(l7_listen_seg(RST | ACK, true) == L7_LISTEN_RST, "RST+ACK");
	CHECK(l7_listen_seg(ACK, true) == L7_LISTEN_ACK, "ACK");
	CHECK(l7_listen_seg(ACK | PSH, true) == L7_LISTEN_ACK, "data");
	CHECK(l7_listen_seg(ACK | FIN, true) == L7_LISTEN_ACK, "FIN");
	CHECK(l7_listen_seg(ACK, false) == L7_LISTEN_DROP, "bad options");
	CHECK(l7_listen_seg(PSH, true) == L7_LISTEN_DROP, "no ACK");
	CHECK(l7_listen_seg(0, true) == L7_LISTEN_DROP, "no flags");
}

static void record_before_cookie(void)
{
	CHECK(l7_listen_record(L7_CKPT_ADOPT) == L7_LISTEN_ADOPT, "adopt");
	CHECK(l7_listen_record(L7_CKPT_PROBE) == L7_LISTEN_PROBE, "probe");
	CHECK(l7_listen_record(L7_CKPT_WAIT) == L7_LISTEN_WAIT, "wait");
	CHECK(l7_listen_record(L7_CKPT_NONE) == L7_LISTEN_COOKIE, "none");
	CHECK(l7_listen_record(L7_CKPT_REFUSE) == L7_LISTEN_COOKIE,
	      "a record it does not fit");
	CHECK(l7_listen_record(L7_CKPT_FORWARD) == L7_LISTEN_FORWARD,
	      "a live peer's connection");
}

static void cookie_makes_connection(void)
{
	struct l7_listen_ack a = {
		.seq = 0xfffffff0u, .ack = 77, .mss = 1460, .win = 502,
		.ts = true, .tsval = 1234,
		.tsecr = l7_cookie_ts_encode(99999, 7, true),
	};
	struct l7_listen_conn n;

	CHECK(l7_listen_accept(&a, &n), "good cookie");
	CHECK(n.rcv_nxt == a.seq && n.snd_nxt == 77 && n.mss == 1460,
	      "numbers");
	CHECK(n.wscale == 7 && n.our_wscale == L7_LISTEN_OUR_WSCALE &&
	      n.sack && n.ts, "options from the timestamp");
	CHECK(n.max_win == 502u << 7, "its window, scaled");
	CHECK(n.rcv_edge == a.seq + 65535, "our SYN-ACK's window, across the wrap");
	CHECK(n.ts_recent == 1234 && n.ts_last == a.tsecr, "timestamps");

	a.mss = 0;
	CHECK(!l7_listen_accept(&a, &n), "bad cookie");
	a.mss = 536;
	a.tsecr |= 1u << 5;	/* a bit the director never sets */
	CHECK(!l7_listen_accept(&a, &n), "timestamp that does not decode");
	a.ts = false;
	CHECK(l7_listen_accept(&a, &n), "no timestamp, a cookie without options");
	CHECK(n.wscale == -1 && n.our_wscale == -1 && !n.sack && !n.ts,
	      "none carried");
	CHECK(n.max_win == 502, "unscaled");
	/* a client without timestamps: the cookie's options (Windows' 8) */
	a.ack = l7_cookie_make(0x123456, 9, l7_cookie_data(3, 8, true)) + 1;
	CHECK(l7_listen_accept(&a, &n), "no timestamp, options in the cookie");
	CHECK(n.wscale == 8 && n.our_wscale == L7_LISTEN_OUR_WSCALE &&
	      n.sack && !n.ts && n.snd_nxt == a.ack, "the cookie's options");
	CHECK(n.max_win == 502u << 8, "its window, scaled");
	/* a shift the cookie cannot carry is read as the one below */
	a.ack = l7_cookie_make(0x123456, 9, l7_cookie_data(3, 14, false)) + 1;
	CHECK(l7_listen_accept(&a, &n) && n.wscale == 9 && !n.sack,
	      "shift 14 read as 9: %d", n.wscale);
}

/*
 * The SYN-ACK came from a director whose TSval clock of the connection
 * runs ahead of ours (or from ours, a moment ago): the clock moves up to
 * the TSval the client saw, never back, across the wrap too.
 */
static void clock_never_behind_the_synack(void)
{
	struct l7_listen_ack a = {
		.seq = 1, .ack = 2, .mss = 1460, .win = 100, .ts = true,
		.tsval = 5, .tsecr = l7_cookie_ts_encode(50000, 7, true),
	};
	struct l7_listen_conn n;
	uint32_t lag;

	CHECK(l7_listen_accept(&a, &n), "good cookie");
	lag = l7_listen_ts_lag(&n, 20000);
	CHECK(lag == a.tsecr - 20000, "behind a peer's SYN-ACK: %u", lag);
	CHECK(l7_listen_ts_lag(&n, 60000) == 0, "ahead: as it is");
	CHECK(l7_listen_ts_lag(&n, a.tsecr) == 0, "level");
	a.tsecr = l7_cookie_ts_encode(0x00000200u, -1, false);
	CHECK(l7_listen_accept(&a, &n) &&
	      0xffffff00u + l7_listen_ts_lag(&n, 0xffffff00u) == a.tsecr,
	      "behind across the wrap");
	a.ts = false;
	CHECK(l7_listen_accept(&a, &n) && l7_listen_ts_lag(&n, 20000) == 0,
	      "no timestamps: no TSval the client saw");
}

int main(void)
{
	RUN(segments_classified);
	RUN(record_before_cookie);
	RUN(cookie_makes_connection);
	RUN(clock_never_behind_the_synack);
	return l7_test_summary("tcp_listen");
}
