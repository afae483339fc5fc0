// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/tcp_guard.c: the option sanitizer of forwarded
 * segments, the flag and RST decisions of RFC 5961, and the challenge ACK
 * rate limit.  Option areas are sanitized in exact-size heap copies, so
 * ASan catches a read or write past the end of the area.
 */
#include <stdlib.h>
#include <string.h>

#include "tcp_guard.h"
#include "l7_test.h"

struct sanitized {
	int rc;
	uint8_t out[L7_TCP_OPT_MAX_LEN];
	struct l7_tcp_opts o;
};

static struct sanitized sanitize(const uint8_t *in, unsigned int len,
				 bool syn)
{
	struct sanitized r = { 0 };
	uint8_t *copy = malloc(len ? len : 1);

	if (len)
		memcpy(copy, in, len);
	r.rc = l7_tcp_opts_sanitize(copy, len, syn, &r.o);
	if (len)
		memcpy(r.out, copy, len);
	free(copy);
	return r;
}

/* Linux ACK with timestamps: forwarded as it is */
static const uint8_t ack_ts[12] = {
	0x01, 0x01, 0x08, 0x0a, 0x00, 0x00, 0x10, 0x00,
	0x00, 0x00, 0x20, 0x00,
};

/* ACK with TS and two SACK blocks */
static const uint8_t ack_sack2[32] = {
	0x01, 0x01, 0x08, 0x0a, 0x00, 0x01, 0x00, 0x02,
	0x00, 0x03, 0x00, 0x04,
	0x01, 0x01, 0x05, 0x12,
	0x10, 0x00, 0x00, 0x00, 0x10, 0x00, 0x05, 0xb4,
	0x20, 0x00, 0x00, 0x00, 0x20, 0x00, 0x0b, 0x68,
};

/* Linux SYN: MSS 1460, SACK_PERM, TS, NOP, WS 7 */
static const uint8_t syn[20] = {
	0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a,
	0x9a, 0x3c, 0x11, 0x02, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x03, 0x03, 0x07,
};

static void test_known_options_untouched(void)
{
	struct sanitized r = sanitize(ack_ts, sizeof(ack_ts), false);

	CHECK(r.rc == 0, "rc %d", r.rc);
	CHECK(!memcmp(r.out, ack_ts, sizeof(ack_ts)), "bytes changed");
	CHECK(r.o.present == L7_TCPO_TS && r.o.tsval == 0x1000 &&
	      r.o.tsecr == 0x2000, "present %#x", r.o.present);

	r = sanitize(ack_sack2, sizeof(ack_sack2), false);
	CHECK(r.rc == 0, "rc %d", r.rc);
	CHECK(!memcmp(r.out, ack_sack2, sizeof(ack_sack2)), "bytes changed");
	CHECK(r.o.present == (L7_TCPO_TS | L7_TCPO_SACK) &&
	      r.o.sack_count == 2 && r.o.sack[1].end == 0x20000b68,
	      "present %#x", r.o.present);

	r = sanitize(syn, sizeof(syn), true);
	CHECK(r.rc == 0 && !memcmp(r.out, syn, sizeof(syn)),
	      "a SYN keeps MSS, SACK_PERM, WS: rc %d", r.rc);
	CHECK(r.o.present == (L7_TCPO_MSS | L7_TCPO_SACK_PERM | L7_TCPO_TS |
			      L7_TCPO_WSCALE), "present %#x", r.o.present);

	r = sanitize(NULL, 0, false);
	CHECK(r.rc == 0 && r.o.present == 0, "empty area: rc %d", r.rc);
}

/* The handshake options mean nothing after it: NOPs, TS stays. */
static void test_handshake_options_off_syn(void)
{
	static const uint8_t want[20] = {
		1, 1, 1, 1, 1, 1, 0x08, 0x0a,
		0x9a, 0x3c, 0x11, 0x02, 0x00, 0x00, 0x00, 0x00,
		0x01, 1, 1, 1,
	};
	struct sanitized r = sanitize(syn, sizeof(syn), false);

	CHECK(r.rc == 9, "rc %d (MSS 4 + SACK_PERM 2 + WS 3 bytes)", r.rc);
	CHECK(!memcmp(r.out, want, sizeof(want)), "bytes");
	CHECK(r.o.present == L7_TCPO_TS && r.o.off_ts == 6 &&
	      r.o.tsval == 0x9a3c1102, "present %#x", r.o.present);
}

struct nop_case {
	const char *name;
	uint8_t in[L7_TCP_OPT_MAX_LEN];
	unsigned int len;
	uint8_t want[L7_TCP_OPT_MAX_LEN];
	int changed;
	uint8_t present;
};

/* Every option outside the forwarded set becomes NOPs, in place. */
static const struct nop_case nop_cases[] = {
	{ "TCP-MD5 (19, 18 bytes) before TS",
	  { 19, 18, 0xde, 0xad, 0xbe, 0xef, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
	    12, 13, 1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2 }, 30,
	  { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	    1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2 }, 18, L7_TCPO_TS },
	{ "TCP-AO (29)", { 29, 4, 7, 9 }, 4, { 1, 1, 1, 1 }, 4, 0 },
	{ "MPTCP (30) DSS: bytes already 1 do not count",
	  { 30, 8, 0x20, 1, 0, 0, 0, 1 }, 8,
	  { 1, 1, 1, 1, 1, 1, 1, 1 }, 6, 0 },
	{ "Fast Open (34) cookie", { 34, 10, 2, 3, 4, 5, 6, 7, 8, 9, 1, 1 },
	  12, { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 }, 10, 0 },
	{ "experimental 253, 254", { 253, 4, 0xf9, 0x89, 254, 2, 1, 1 }, 8,
	  { 1, 1, 1, 1, 1, 1, 1, 1 }, 6, 0 },
	{ "unassigned 99 between SACK and TS",
	  { 5, 10, 0, 0, 0, 1, 0, 0, 0, 2, 99, 2, 8, 10, 0, 0, 0, 3, 0, 0,
	    0, 4 }, 22,
	  { 5, 10, 0, 0, 0, 1, 0, 0, 0, 2, 1, 1, 8, 10, 0, 0, 0, 3, 0, 0,
	    0, 4 }, 2, L7_TCPO_SACK | L7_TCPO_TS },
	{ "unknown with its length of 2", { 200, 2, 1, 1 }, 4,
	  { 1, 1, 1, 1 }, 2, 0 },
	{ "garbage after EOL is zeroed", { 1, 0, 19, 18, 1, 0x55 }, 6,
	  { 1, 0, 0, 0, 0, 0 }, 4, 0 },
	{ "padding after EOL stays", { 8, 10, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0 },
	  12, { 8, 10, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0 }, 0, L7_TCPO_TS },
	{ "a NOP-filled unknown option is idempotent",
	  { 1, 1, 1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2 }, 14,
	  { 1, 1, 1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2 }, 0, L7_TCPO_TS },
};

static void test_unknown_options_nopped(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(nop_cases) / sizeof(nop_cases[0]); i++) {
		const struct nop_case *t = &nop_cases[i];
		struct sanitized r = sanitize(t->in, t->len, false);
		struct sanitized again;

		CHECK(r.rc == t->changed, "%s: rc %d, want %d", t->name, r.rc,
		      t->changed);
		CHECK(!memcmp(r.out, t->want, t->len), "%s: bytes", t->name);
		CHECK(r.o.present == t->present, "%s: present %#x", t->name,
		      r.o.present);
		/* the same on a SYN, and a second pass changes nothing */
		again = sanitize(t->in, t->len, true);
		CHECK(again.rc == t->changed, "%s: SYN rc %d", t->name,
		      again.rc);
		again = sanitize(r.out, t->len, false);
		CHECK(again.rc == 0 && !memcmp(again.out, r.out, t->len),
		      "%s: second pass rc %d", t->name, again.rc);
	}
}

/* What makes the segment be dropped: the area does not parse. */
static void test_unparsable_areas_refused(void)
{
	static const struct {
		const char *name;
		uint8_t in[L7_TCP_OPT_MAX_LEN];
		unsigned int len;
		int rc;
	} bad[] = {
		{ "MD5 overrunning the area", { 19, 18, 1, 2 }, 4,
		  L7_TCPOPT_E_OVERRUN },
		{ "unknown, length 1", { 99, 1, 1, 1 }, 4, L7_TCPOPT_E_SHORT },
		{ "unknown, length 0", { 99, 0, 1, 1 }, 4, L7_TCPOPT_E_SHORT },
		{ "kind without length byte", { 1, 1, 1, 99 }, 4,
		  L7_TCPOPT_E_SHORT },
		{ "TS of 8 bytes", { 8, 8, 0, 0, 0, 0, 0, 0 }, 8,
		  L7_TCPOPT_E_LEN },
		{ "MSS of 3 bytes off a SYN", { 2, 3, 1, 1 }, 4,
		  L7_TCPOPT_E_LEN },
		{ "two timestamps", { 8, 10, 0, 0, 0, 1, 0, 0, 0, 2, 8, 10, 0,
		  0, 0, 3, 0, 0, 0, 4 }, 20, L7_TCPOPT_E_DUP },
		{ "41 bytes", { 1 }, 41, L7_TCPOPT_E_AREA },
	};
	uint8_t area[41];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct l7_tcp_opts o;
		int rc;

		memset(area, 1, sizeof(area));
		memcpy(area, bad[i].in, sizeof(bad[i].in));
		if (bad[i].len <= L7_TCP_OPT_MAX_LEN) {
			struct sanitized r = sanitize(area, bad[i].len, false);

			rc = r.rc;
			CHECK(!memcmp(r.out, area, bad[i].len),
			      "%s: refused area was changed", bad[i].name);
		} else {
			rc = l7_tcp_opts_sanitize(area, bad[i].len, false, &o);
		}
		CHECK(rc == bad[i].rc, "%s: rc %d, want %d", bad[i].name, rc,
		      bad[i].rc);
	}
}

/*
 * Random areas: whenever sanitize() accepts one, the result keeps its
 * length, parses to the same TS and SACK, holds no kind outside the
 * forwarded set before an EOL, and is a fixed point.
 */
static void test_sanitize_random(void)
{
	uint8_t a[L7_TCP_OPT_MAX_LEN], b[L7_TCP_OPT_MAX_LEN];
	unsigned int iter, len, off, accepted = 0;

	srand(1);
	for (iter = 0; iter < 200000; iter++) {
		struct l7_tcp_opts before, after;
		bool syn = iter & 1;
		int rc, i;

		len = (unsigned int)rand() % (L7_TCP_OPT_MAX_LEN + 1);
		for (i = 0; i < (int)len; i++) {
			static const uint8_t kinds[] = { 0, 1, 2, 3, 4, 5, 8,
							 19, 29, 30, 34, 253 };
			int r = rand();

			a[i] = r & 0x100 ? kinds[(r >> 9) % sizeof(kinds)] :
					   (uint8_t)r;
		}
		memcpy(b, a, len);
		if (l7_tcp_opts_parse(a, len, &before))
			continue;
		rc = l7_tcp_opts_sanitize(b, len, syn, &after);
		CHECK(rc >= 0, "accepted by parse, refused: %d", rc);
		if (rc < 0)
			continue;
		accepted++;
		CHECK(after.present == (before.present &
			(syn ? 0xff : (L7_TCPO_TS | L7_TCPO_SACK))),
		      "present %#x from %#x", after.present, before.present);
		CHECK(after.tsval == before.tsval && after.off_ts ==
		      before.off_ts && after.sack_count == before.sack_count,
		      "TS or SACK moved");
		for (off = 0; off < len;) {
			if (b[off] == L7_TCPOPT_EOL)
				break;
			if (b[off] == L7_TCPOPT_NOP) {
				off++;
				continue;
			}
			CHECK(b[off] == 8 || b[off] == 5 ||
			      (syn && b[off] >= 2 && b[off] <= 4),
			      "kind %u left at %u", b[off], off);
			off += b[off + 1];
		}
		for (; off < len; off++)
			CHECK(b[off] == 0, "byte %u after EOL: %u", off,
			      b[off]);
		memcpy(a, b, len);
		CHECK(l7_tcp_opts_sanitize(b, len, syn, &after) == 0 &&
		      !memcmp(a, b, len), "not a fixed point");
	}
	CHECK(accepted > 10000, "some random areas accepted: %u", accepted);
}

static void test_flags(void)
{
	const uint8_t S = L7_TCPF_SYN, F = L7_TCPF_FIN, R = L7_TCPF_RST,
		      A = L7_TCPF_ACK, P = L7_TCPF_PSH, U = L7_TCPF_URG;

	/* to a listener: only impossible combinations are the guard's */
	CHECK(l7_tcp_flags_check(S, false) == L7_FLAGS_OK, "SYN");
	CHECK(l7_tcp_flags_check(S | F, false) == L7_FLAGS_DROP, "SYN+FIN");
	CHECK(l7_tcp_flags_check(S | F | P | U, false) == L7_FLAGS_DROP,
	      "SYN+FIN+PSH+URG");
	CHECK(l7_tcp_flags_check(S | R, false) == L7_FLAGS_DROP, "SYN+RST");
	CHECK(l7_tcp_flags_check(A, false) == L7_FLAGS_OK, "ACK");
	CHECK(l7_tcp_flags_check(R, false) == L7_FLAGS_OK, "RST");

	/* on a connection */
	CHECK(l7_tcp_flags_check(S, true) == L7_FLAGS_CHALLENGE, "SYN");
	CHECK(l7_tcp_flags_check(S | A, true) == L7_FLAGS_CHALLENGE,
	      "SYN+ACK");
	CHECK(l7_tcp_flags_check(S | F, true) == L7_FLAGS_DROP, "SYN+FIN");
	CHECK(l7_tcp_flags_check(S | F | A, true) == L7_FLAGS_DROP,
	      "SYN+FIN+ACK");
	CHECK(l7_tcp_flags_check(S | R | A, true) == L7_FLAGS_DROP,
	      "SYN+RST+ACK");
	CHECK(l7_tcp_flags_check(R, true) == L7_FLAGS_RST, "RST");
	CHECK(l7_tcp_flags_check(R | A, true) == L7_FLAGS_RST, "RST+ACK");
	CHECK(l7_tcp_flags_check(A | P, true) == L7_FLAGS_OK, "ACK+PSH");
	CHECK(l7_tcp_flags_check(A | F | U, true) == L7_FLAGS_OK,
	      "ACK+FIN+URG");
	CHECK(l7_tcp_flags_check(0, true) == L7_FLAGS_DROP, "no flags");
	CHECK(l7_tcp_flags_check(P | F, true) == L7_FLAGS_DROP,
	      "FIN+PSH without ACK");
}

static void test_rst_window(void)
{
	CHECK(l7_tcp_rst_check(1000, 1000, 65535, false) == L7_RST_ACCEPT,
	      "exact");
	CHECK(l7_tcp_rst_check(1001, 1000, 65535, false) == L7_RST_CHALLENGE,
	      "one past");
	CHECK(l7_tcp_rst_check(1000 + 65534, 1000, 65535, false) ==
	      L7_RST_CHALLENGE, "last in window");
	CHECK(l7_tcp_rst_check(1000 + 65535, 1000, 65535, false) == L7_RST_DROP,
	      "first past the window");
	CHECK(l7_tcp_rst_check(999, 1000, 65535, false) == L7_RST_DROP,
	      "one before rcv_nxt");
	CHECK(l7_tcp_rst_check(0, 0x80000000u, 65535, false) == L7_RST_DROP,
	      "half the space away");
	/* across the wrap */
	CHECK(l7_tcp_rst_check(5, 0xfffffff0u, 65535, false) ==
	      L7_RST_CHALLENGE,
	      "in window across 2^32");
	CHECK(l7_tcp_rst_check(0xfffffff0u, 0xfffffff0u, 0, false) ==
	      L7_RST_ACCEPT,
	      "exact, zero window");
	CHECK(l7_tcp_rst_check(0xfffffff1u, 0xfffffff0u, 0, false) ==
	      L7_RST_DROP,
	      "zero window holds only rcv_nxt");
	CHECK(l7_tcp_rst_check(0xfffffff1u, 0xfffffff0u, 1, false) ==
	      L7_RST_DROP,
	      "one-byte window holds only rcv_nxt");
	CHECK(l7_tcp_rst_check(1, 0, 1u << 30, false) == L7_RST_CHALLENGE,
	      "largest scaled window");
	/* after the peer's FIN, on the FIN itself */
	CHECK(l7_tcp_rst_check(999, 1000, 65535, true) == L7_RST_ACCEPT,
	      "on the FIN, FIN in");
	CHECK(l7_tcp_rst_check(1000, 1000, 65535, true) == L7_RST_ACCEPT,
	      "exact, FIN in");
	CHECK(l7_tcp_rst_check(998, 1000, 65535, true) == L7_RST_DROP,
	      "before the FIN");
	CHECK(l7_tcp_rst_check(0xffffffffu, 0, 65535, true) ==
	      L7_RST_ACCEPT, "on the FIN across 2^32");
	CHECK(l7_tcp_rst_check(1001, 1000, 65535, true) == L7_RST_CHALLENGE,
	      "in window, FIN in");
}

static void test_ratelimit(void)
{
	struct l7_tcp_ratelimit rl = { 0 };

	/* the first one goes whatever the clock says (jiffies start high) */
	CHECK(l7_tcp_ratelimit_allow(&rl, 0xfffffff0u, 125), "first");
	CHECK(!l7_tcp_ratelimit_allow(&rl, 0xfffffff0u, 125), "same tick");
	CHECK(!l7_tcp_ratelimit_allow(&rl, 0xfffffff0u + 124, 125),
	      "one tick early, across the wrap");
	CHECK(l7_tcp_ratelimit_allow(&rl, 0xfffffff0u + 125, 125),
	      "on time, across the wrap");
	CHECK(!l7_tcp_ratelimit_allow(&rl, 0xfffffff0u + 200, 125),
	      "interval restarts from the last allowed");
	CHECK(l7_tcp_ratelimit_allow(&rl, 0xfffffff0u + 250, 125), "next");

	rl = (struct l7_tcp_ratelimit){ 0 };
	CHECK(l7_tcp_ratelimit_allow(&rl, 0, 125), "first at clock 0");
	CHECK(!l7_tcp_ratelimit_allow(&rl, 1, 125), "then limited");
}

static void test_paws(void)
{
	struct l7_tcp_opts ts = { .present = L7_TCPO_TS, .tsval = 100 };
	struct l7_tcp_opts none = { 0 };

	CHECK(l7_tcp_paws_ok(true, false, &ts, 100), "equal TSval");
	CHECK(l7_tcp_paws_ok(true, false, &ts, 99), "newer TSval");
	CHECK(!l7_tcp_paws_ok(true, false, &ts, 101), "older TSval");
	CHECK(!l7_tcp_paws_ok(true, false, &none, 0), "no TS when agreed");
	CHECK(l7_tcp_paws_ok(true, true, &none, 5), "a RST is not checked");
	CHECK(l7_tcp_paws_ok(false, false, &none, 5), "not agreed");
	ts.tsval = 5;	/* modulo 2^32 */
	CHECK(l7_tcp_paws_ok(true, false, &ts, 0xfffffff0u), "across wrap");
}

static void test_no_urgent(void)
{
	uint8_t th[20] = { 0 };

	th[13] = L7_TCPF_URG | L7_TCPF_ACK | L7_TCPF_PSH;
	th[18] = 0x12;
	th[19] = 0x34;
	l7_tcp_hdr_no_urgent(th);
	CHECK(th[13] == (L7_TCPF_ACK | L7_TCPF_PSH), "flags %#x", th[13]);
	CHECK(th[18] == 0 && th[19] == 0, "urgent pointer left");
}

int main(void)
{
	RUN(test_paws);
	RUN(test_no_urgent);
	RUN(test_known_options_untouched);
	RUN(test_handshake_options_off_syn);
	RUN(test_unknown_options_nopped);
	RUN(test_unparsable_areas_refused);
	RUN(test_sanitize_random);
	RUN(test_flags);
	RUN(test_rst_window);
	RUN(test_ratelimit);
	return l7_test_summary("tcp_guard");
}
