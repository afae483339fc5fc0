// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/tcp_accept.c: which segments of a connection
 * the director may act on, and what an acceptable one may change.  The
 * attacks are those of RFC 5961 and of a blind sender who knows the
 * connection's addresses and ports: TS.Recent poisoning, a forged zero
 * window, an ACK of data never sent, a RST or FIN at a guessed seq.
 */
#include "tcp_accept.h"
#include "tcp_guard.h"
#include "l7_test.h"

#define ACK L7_TCPF_ACK

/*
 * A keep-alive connection after one request and response: the client's
 * next byte is 1000, the director acknowledged up to it and announced
 * 64 KB; the director sent up to 5000, the client acknowledged 4000.
 */
static struct l7_tcp_endpoint conn(void)
{
	return (struct l7_tcp_endpoint){
		.rcv_nxt = 1000, .rcv_wup = 1000, .rcv_edge = 1000 + 65535,
		.snd_una = 4000, .snd_nxt = 5000, .snd_isn = 1,
		.snd_wnd = 29200, .snd_wl1 = 990, .max_window = 29200,
		.ts_recent = 777, .snd_wscale = 0, .ts = true,
	};
}

static struct l7_tcp_in seg(uint32_t seq, uint32_t ack, uint32_t len,
			    uint32_t tsval, uint8_t flags)
{
	return (struct l7_tcp_in){
		.seq = seq, .ack = ack, .len = len, .tsval = tsval,
		.win = 29200, .flags = flags, .ts = true,
	};
}

static void test_genuine_pure_ack(void)
{
	struct l7_tcp_endpoint e = conn();
	struct l7_tcp_in s = seg(1000, 4500, 0, 800, ACK);
	struct l7_tcp_accept v = l7_tcp_accept(&e, &s);

	CHECK(v.act == L7_ACC_OK && v.ack_ok && v.ts_recent && v.window,
	      "act %d ack %d ts %d win %d", v.act, v.ack_ok, v.ts_recent,
	      v.window);
	l7_tcp_accept_apply(&e, &s, &v);
	CHECK(e.snd_una == 4500 && e.ts_recent == 800 && e.snd_wl1 == 1000,
	      "una %u ts %u wl1 %u", e.snd_una, e.ts_recent, e.snd_wl1);
}

/*
 * Four forged pure ACKs, seq X and X + 2^31, TSval Y and Y + 2^31: one
 * of each pair passes a one-sided check.  None is in the window, so
 * TS.Recent stays, and the genuine segment after them passes PAWS.
 */
static void test_ts_recent_poisoning(void)
{
	struct l7_tcp_endpoint e = conn();
	const uint32_t seqs[2] = { 0x10000000, 0x90000000 };
	const uint32_t tsvals[2] = { 0x20000000, 0xa0000000 };
	struct l7_tcp_in s;
	struct l7_tcp_accept v;
	int i, j;

	for (i = 0; i < 2; i++)
		for (j = 0; j < 2; j++) {
			s = seg(seqs[i], 4000, 0, tsvals[j], ACK);
			v = l7_tcp_accept(&e, &s);
			CHECK(v.act != L7_ACC_OK, "seq %#x ts %#x: act %d",
			      seqs[i], tsvals[j], v.act);
			l7_tcp_accept_apply(&e, &s, &v);
		}
	CHECK(e.ts_recent == 777, "TS.Recent %u", e.ts_recent);
	s = seg(1000, 4000, 10, 801, ACK | L7_TCPF_PSH);
	v = l7_tcp_accept(&e, &s);
	CHECK(v.act == L7_ACC_OK && v.ts_recent, "genuine after: act %d",
	      v.act);
}

/* In the window but past Last.ACK.sent: acceptable, TS.Recent stays. */
static void test_ts_recent_only_at_ack_point(void)
{
	struct l7_tcp_endpoint e = conn();
	struct l7_tcp_in s = seg(1500, 4000, 100, 900, ACK);
	struct l7_tcp_accept v = l7_tcp_accept(&e, &s);

	CHECK(v.act == L7_ACC_OK && !v.ts_recent, "ahead: act %d ts %d",
	      v.act, v.ts_recent);
	/* a segment from below the ACK point that reaches it: it moves */
	s = seg(900, 4000, 100, 900, ACK);
	v = l7_tcp_accept(&e, &s);
	CHECK(v.act == L7_ACC_OK && v.ts_recent, "covering: act %d ts %d",
	      v.act, v.ts_recent);
	/* wholly below it: an old duplicate, refused with our ACK */
	s = seg(800, 4000, 100, 900, ACK);
	v = l7_tcp_accept(&e, &s);
	CHECK(v.act == L7_ACC_CHALLENGE, "below: act %d", v.act);
}

static void test_paws(void)
{
	struct l7_tcp_endpoint e = conn();
	struct l7_tcp_in s = seg(1000, 4000, 0, 776, ACK);

	CHECK(l7_tcp_accept(&e, &s).act == L7_ACC_CHALLENGE, "older TSval");
	s.ts = false;
	CHECK(l7_tcp_accept(&e, &s).act == L7_ACC_DROP, "no TS option");
	e.ts = false;
	CHECK(l7_tcp_accept(&e, &s).act == L7_ACC_OK, "TS not agreed");
	/* a RST is judged by its seq alone */
	e.ts = true;
	s = seg(1000, 0, 0, 1, L7_TCPF_RST);
	CHECK(l7_tcp_accept(&e, &s).act == L7_ACC_RESET, "RST, old TSval");
}

/* A forged zero window with a wrong seq leaves the window alone. */
static void test_zero_window_forged(void)
{
	struct l7_tcp_endpoint e = conn();
	struct l7_tcp_in s = seg(1000 + 0x80000000u, 4000, 0, 800, ACK);
	struct l7_tcp_accept v;

	s.win = 0;
	v = l7_tcp_accept(&e, &s);
	CHECK(v.act == L7_ACC_CHALLENGE, "act %d", v.act);
	l7_tcp_accept_apply(&e, &s, &v);
	CHECK(e.snd_wnd == 29200, "window %u", e.snd_wnd);
}

/* The window only from a segment that may update it (snd_wl1). */
static void test_window_update_rule(void)
{
	struct l7_tcp_endpoint e = conn();
	struct l7_tcp_in s = seg(980, 4000, 10, 800, ACK);	/* reordered */
	struct l7_tcp_accept v;

	e.rcv_wup = 980;
	s.win = 0;
	v = l7_tcp_accept(&e, &s);
	CHECK(v.act == L7_ACC_OK && !v.window, "older seq: window %d",
	      v.window);
	/* same seq as the last update: only a larger window counts */
	s = seg(990, 4000, 10, 800, ACK);
	s.win = 100;
	CHECK(!l7_tcp_accept(&e, &s).window, "same seq, smaller");
	s.win = 30000;
	CHECK(l7_tcp_accept(&e, &s).window, "same seq, larger");
	/* an ACK that moves snd_una always may */
	s = seg(980, 4100, 10, 800, ACK);
	s.win = 0;
	v = l7_tcp_accept(&e, &s);
	CHECK(v.window && v.ack_ok, "new ACK: window %d", v.window);
	l7_tcp_accept_apply(&e, &s, &v);
	CHECK(e.snd_wnd == 0 && e.max_window == 29200, "wnd %u max %u",
	      e.snd_wnd, e.max_window);
}

static void test_window_scaled(void)
{
	struct l7_tcp_endpoint e = conn();
	struct l7_tcp_in s = seg(1000, 4100, 0, 800, ACK);
	struct l7_tcp_accept v;

	e.snd_wscale = 7;
	s.win = 1000;
	v = l7_tcp_accept(&e, &s);
	l7_tcp_accept_apply(&e, &s, &v);
	CHECK(e.snd_wnd == 128000 && e.max_window == 128000, "wnd %u max %u",
	      e.snd_wnd, e.max_window);
}

/* ACK: [snd_una - max_window, snd_nxt]; old ones ignored, not refused. */
static void test_ack_range(void)
{
	struct l7_tcp_endpoint e = conn();
	struct l7_tcp_in s = seg(1000, 5000, 0, 800, ACK);
	struct l7_tcp_accept v = l7_tcp_accept(&e, &s);

	CHECK(v.act == L7_ACC_OK && v.ack_ok, "snd_nxt");
	s.ack = 5001;
	CHECK(l7_tcp_accept(&e, &s).act == L7_ACC_CHALLENGE, "unsent");
	s.ack = 5000 + 0x70000000;
	CHECK(l7_tcp_accept(&e, &s).act == L7_ACC_CHALLENGE, "far unsent");
	s = seg(1000, 3000, 5, 800, ACK);
	v = l7_tcp_accept(&e, &s);
	CHECK(v.act == L7_ACC_OK && !v.ack_ok && !v.window,
	      "old: act %d ack %d win %d", v.act, v.ack_ok, v.window);
	l7_tcp_accept_apply(&e, &s, &v);
	CHECK(e.snd_una == 4000, "snd_una %u", e.snd_una);
	/* older than max_window: refused, data and all */
	s.ack = 4000 - 29201;
	CHECK(l7_tcp_accept(&e, &s).act == L7_ACC_CHALLENGE, "too old");
	/* never below the first byte, whatever max_window says */
	e.snd_isn = 3990;
	s.ack = 3980;
	CHECK(l7_tcp_accept(&e, &s).act == L7_ACC_CHALLENGE, "before ISN");
}

static void test_rst(void)
{
	struct l7_tcp_endpoint e = conn();
	struct l7_tcp_in s = seg(1000, 0, 0, 800, L7_TCPF_RST);

	CHECK(l7_tcp_accept(&e, &s).act == L7_ACC_RESET, "exact");
	s.seq = 1001;
	CHECK(l7_tcp_accept(&e, &s).act == L7_ACC_CHALLENGE, "in window");
	s.seq = 1000 + 65536;
	CHECK(l7_tcp_accept(&e, &s).act == L7_ACC_DROP, "out of window");
	s.seq = 999;
	CHECK(l7_tcp_accept(&e, &s).act == L7_ACC_DROP, "before");
	/* after the peer's FIN, on the FIN's own seq */
	e.fin_in = true;
	CHECK(l7_tcp_accept(&e, &s).act == L7_ACC_RESET, "on the FIN");
}

static void test_syn_and_flags(void)
{
	struct l7_tcp_endpoint e = conn();
	struct l7_tcp_in s = seg(1000, 4000, 1, 800, L7_TCPF_SYN);

	CHECK(l7_tcp_accept(&e, &s).act == L7_ACC_CHALLENGE, "SYN in window");
	s.seq = 0x80000000;
	CHECK(l7_tcp_accept(&e, &s).act == L7_ACC_CHALLENGE, "SYN outside");
	s.flags = L7_TCPF_SYN | L7_TCPF_FIN;
	CHECK(l7_tcp_accept(&e, &s).act == L7_ACC_DROP, "SYN+FIN");
	s = seg(1000, 4000, 5, 800, L7_TCPF_PSH);
	CHECK(l7_tcp_accept(&e, &s).act == L7_ACC_DROP, "no ACK");
}

/* A zero window holds rcv_nxt only, as Linux's tcp_receive_window(). */
static void test_zero_receive_window(void)
{
	struct l7_tcp_endpoint e = conn();
	struct l7_tcp_in s = seg(1000, 4000, 0, 800, ACK);

	e.rcv_edge = 1000;
	CHECK(l7_tcp_accept(&e, &s).act == L7_ACC_OK, "probe at rcv_nxt");
	s.seq = 1001;
	CHECK(l7_tcp_accept(&e, &s).act == L7_ACC_CHALLENGE, "past it");
	/* an edge announced before rcv_nxt moved past it counts as zero */
	e.rcv_nxt = 1500;
	e.rcv_wup = 1500;
	s.seq = 1501;
	CHECK(l7_tcp_accept(&e, &s).act == L7_ACC_CHALLENGE, "shrunk");
}

static void test_idle(void)
{
	const struct l7_tcp_idle idle = {
		.rcv_nxt = 5000, .rcv_wnd = 65535, .snd_nxt = 100,
		.max_window = 65535,
	};
	struct l7_tcp_in s = seg(5000, 100, 1, 1, ACK | L7_TCPF_FIN);

	CHECK(l7_tcp_accept_idle(&idle, &s) == L7_IDLE_RETIRE,
	      "FIN at rcv_nxt");
	s.seq = 5001;
	CHECK(l7_tcp_accept_idle(&idle, &s) == L7_IDLE_CHALLENGE,
	      "FIN ahead, in window");
	s.seq = 5000 + 0x80000000;
	CHECK(l7_tcp_accept_idle(&idle, &s) == L7_IDLE_DROP,
	      "FIN far away");
	s.seq = 4000;
	CHECK(l7_tcp_accept_idle(&idle, &s) == L7_IDLE_DROP,
	      "FIN behind");
	s = seg(4990, 100, 10, 1, ACK);
	CHECK(l7_tcp_accept_idle(&idle, &s) == L7_IDLE_ACK, "resend");
	s = seg(4999, 100, 1, 1, ACK);
	CHECK(l7_tcp_accept_idle(&idle, &s) == L7_IDLE_ACK, "probe");
	s = seg(4999, 100, 2, 1, ACK);
	CHECK(l7_tcp_accept_idle(&idle, &s) == L7_IDLE_RETIRE,
	      "a new byte");
	s = seg(5000, 100, 0, 1, L7_TCPF_RST);
	CHECK(l7_tcp_accept_idle(&idle, &s) == L7_IDLE_RETIRE, "RST");
	s.seq = 5010;
	CHECK(l7_tcp_accept_idle(&idle, &s) == L7_IDLE_CHALLENGE,
	      "RST in window");
	s.seq = 4000;
	CHECK(l7_tcp_accept_idle(&idle, &s) == L7_IDLE_DROP,
	      "RST outside");
	s = seg(5000, 100, 0, 1, ACK);
	CHECK(l7_tcp_accept_idle(&idle, &s) == L7_IDLE_DROP, "ACK");
	/* a FIN at rcv_nxt with an ACK of nothing the director sent */
	s = seg(5000, 101, 1, 1, ACK | L7_TCPF_FIN);
	CHECK(l7_tcp_accept_idle(&idle, &s) == L7_IDLE_CHALLENGE,
	      "ACK of unsent data");
	s.ack = 100 - 65536;
	CHECK(l7_tcp_accept_idle(&idle, &s) == L7_IDLE_CHALLENGE,
	      "ACK too old");
}
/* what a challenge ACK says: rcv_nxt to a RST, a D-SACK to a resend */
static void test_challenge(void)
{
	struct l7_tcp_endpoint e = conn();
	struct l7_tcp_in s = seg(1500, 4500, 0, 800, L7_TCPF_RST);
	struct l7_tcp_challenge ch;

	e.rcv_nxt = 1200;	/* 200 bytes in, not acknowledged yet */
	ch = l7_tcp_challenge(&e, &s);
	CHECK(ch.ack == 1200 && !ch.dsack, "RST in the window: ack %u", ch.ack);
	s = seg(900, 4500, 100, 800, ACK);
	ch = l7_tcp_challenge(&e, &s);
	CHECK(ch.ack == 1000 && ch.dsack && ch.dup.start == 900 &&
	      ch.dup.end == 1000, "a resend of acknowledged bytes: D-SACK");
	s = seg(950, 4500, 100, 800, ACK);
	ch = l7_tcp_challenge(&e, &s);
	CHECK(!ch.dsack && ch.ack == 1000,
	      "bytes past the ACK sent are never reported as a duplicate");
	s = seg(900, 4500, 101, 800, ACK | L7_TCPF_FIN);
	ch = l7_tcp_challenge(&e, &s);
	CHECK(ch.dsack && ch.dup.end == 1000, "the FIN is not a byte");
}

int main(void)
{
	RUN(test_genuine_pure_ack);
	RUN(test_ts_recent_poisoning);
	RUN(test_ts_recent_only_at_ack_point);
	RUN(test_paws);
	RUN(test_zero_window_forged);
	RUN(test_window_update_rule);
	RUN(test_window_scaled);
	RUN(test_ack_range);
	RUN(test_rst);
	RUN(test_syn_and_flags);
	RUN(test_zero_receive_window);
	RUN(test_idle);
	RUN(test_challenge);
	return l7_test_summary("tcp_accept");
}
