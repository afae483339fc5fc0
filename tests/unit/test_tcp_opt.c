// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/tcp_opt.c: TCP options on raw bytes.
 *
 * Option areas are byte strings as Linux 6.x puts them on the wire.  Each
 * is parsed from a heap copy of exactly its length, so ASan catches any
 * read past the end of the area.
 */
#include <stdlib.h>
#include <string.h>

#include "tcp_opt.h"
#include "l7_test.h"

/* Parse @len bytes from an exact-size heap copy. */
static int parse_exact(const uint8_t *bytes, unsigned int len,
		       struct l7_tcp_opts *o)
{
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	if (len)
		memcpy(copy, bytes, len);
	rc = l7_tcp_opts_parse(copy, len, o);
	free(copy);
	return rc;
}

/* Linux SYN / SYN-ACK: MSS 1460, SACK_PERM, TS, NOP, WS 7 */
static const uint8_t syn[20] = {
	0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a,
	0x9a, 0x3c, 0x11, 0x02, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x03, 0x03, 0x07,
};

static const uint8_t synack[20] = {
	0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a,
	0x0b, 0xad, 0xf0, 0x0d, 0x9a, 0x3c, 0x11, 0x02,
	0x01, 0x03, 0x03, 0x07,
};

/* Linux ACK with timestamps */
static const uint8_t ack_ts[12] = {
	0x01, 0x01, 0x08, 0x0a, 0xff, 0xff, 0xff, 0xfe,
	0x00, 0x00, 0x00, 0x01,
};

/* ACK with TS and three SACK blocks: a full 40-byte area */
static const uint8_t ack_sack3[40] = {
	0x01, 0x01, 0x08, 0x0a, 0x00, 0x01, 0x00, 0x02,
	0x00, 0x03, 0x00, 0x04,
	0x01, 0x01, 0x05, 0x1a,
	0x10, 0x00, 0x00, 0x00, 0x10, 0x00, 0x05, 0xb4,
	0x20, 0x00, 0x00, 0x00, 0x20, 0x00, 0x0b, 0x68,
	0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01, 0x00,
};

static void test_parse_syn(void)
{
	struct l7_tcp_opts o;
	int rc = parse_exact(syn, sizeof(syn), &o);

	CHECK(rc == 0, "rc %d", rc);
	CHECK(o.present == (L7_TCPO_MSS | L7_TCPO_SACK_PERM | L7_TCPO_TS |
			    L7_TCPO_WSCALE), "present %#x", o.present);
	CHECK(o.mss == 1460 && o.off_mss == 0, "mss %u @%u", o.mss,
	      o.off_mss);
	CHECK(o.off_sack_perm == 4, "sack_perm @%u", o.off_sack_perm);
	CHECK(o.off_ts == 6 && o.tsval == 0x9a3c1102 && o.tsecr == 0,
	      "ts @%u %#x %#x", o.off_ts, o.tsval, o.tsecr);
	CHECK(o.off_wscale == 17 && o.wscale == 7 && o.wscale_raw == 7,
	      "ws @%u %u", o.off_wscale, o.wscale);
	CHECK(l7_tcp_opt_len(&o, L7_TCPO_TS) == 10 &&
	      l7_tcp_opt_len(&o, L7_TCPO_MSS) == 4 &&
	      l7_tcp_opt_len(&o, L7_TCPO_WSCALE) == 3 &&
	      l7_tcp_opt_len(&o, L7_TCPO_SACK_PERM) == 2 &&
	      l7_tcp_opt_len(&o, L7_TCPO_SACK) == 0, "lengths");

	rc = parse_exact(synack, sizeof(synack), &o);
	CHECK(rc == 0 && o.tsval == 0x0badf00d && o.tsecr == 0x9a3c1102,
	      "synack rc %d ts %#x %#x", rc, o.tsval, o.tsecr);
}

static void test_parse_ack_and_empty(void)
{
	struct l7_tcp_opts o;
	int rc = parse_exact(ack_ts, sizeof(ack_ts), &o);

	CHECK(rc == 0 && o.present == L7_TCPO_TS && o.off_ts == 2,
	      "rc %d present %#x off %u", rc, o.present, o.off_ts);
	CHECK(o.tsval == 0xfffffffe && o.tsecr == 1, "ts %#x %#x", o.tsval,
	      o.tsecr);

	rc = parse_exact(NULL, 0, &o);
	CHECK(rc == 0 && o.present == 0, "empty: rc %d", rc);
}

/* NOP NOP SACK with n blocks, optionally after NOP NOP TS. */
static unsigned int make_sack_area(uint8_t *a, unsigned int n, bool ts)
{
	unsigned int len = 0, i;

	if (ts) {
		memcpy(a, ack_ts, sizeof(ack_ts));
		len = sizeof(ack_ts);
	}
	a[len++] = 1;
	a[len++] = 1;
	a[len++] = 5;
	a[len++] = (uint8_t)(2 + 8 * n);
	for (i = 0; i < 8 * n; i++)
		a[len++] = (uint8_t)(0x11 * (i / 4 + 1));
	return len;
}

static void test_parse_sack_blocks(void)
{
	uint8_t a[40];
	struct l7_tcp_opts o;
	unsigned int n, len, i;
	int rc;

	for (n = 1; n <= 4; n++) {
		bool ts = n < 4;	/* 4 blocks leave no room for TS */

		len = make_sack_area(a, n, ts);
		rc = parse_exact(a, len, &o);
		CHECK(rc == 0 && (o.present & L7_TCPO_SACK) &&
		      o.sack_count == n, "n %u: rc %d count %u", n, rc,
		      o.sack_count);
		CHECK(o.off_sack == (ts ? 14 : 2), "n %u: off %u", n,
		      o.off_sack);
		CHECK(l7_tcp_opt_len(&o, L7_TCPO_SACK) == 2 + 8 * n,
		      "n %u: len", n);
		for (i = 0; i < n; i++)
			CHECK(o.sack[i].start == 0x11111111u * (2 * i + 1) &&
			      o.sack[i].end == 0x11111111u * (2 * i + 2),
			      "n %u block %u: %#x-%#x", n, i, o.sack[i].start,
			      o.sack[i].end);
	}
}

static void test_parse_full_areas(void)
{
	uint8_t nops[40];
	struct l7_tcp_opts o;
	int rc = parse_exact(ack_sack3, sizeof(ack_sack3), &o);

	CHECK(rc == 0 && o.present == (L7_TCPO_TS | L7_TCPO_SACK) &&
	      o.sack_count == 3 && o.off_sack == 14, "rc %d", rc);
	CHECK(o.tsval == 0x00010002 && o.tsecr == 0x00030004, "ts");
	CHECK(o.sack[0].start == 0x10000000 && o.sack[0].end == 0x100005b4 &&
	      o.sack[2].start == 0xffffff00 && o.sack[2].end == 0x00000100,
	      "blocks");

	memset(nops, L7_TCPOPT_NOP, sizeof(nops));
	rc = parse_exact(nops, 40, &o);
	CHECK(rc == 0 && o.present == 0, "40 NOPs: rc %d", rc);
	rc = l7_tcp_opts_parse(nops, 41, &o);
	CHECK(rc == L7_TCPOPT_E_AREA, "41 bytes: rc %d", rc);
}

struct bad_case {
	const char *name;
	uint8_t bytes[40];
	unsigned int len;
	int err;
};

static const struct bad_case bad[] = {
	{ "TS length 0", { 8, 0, 0, 0, 0, 0, 0, 0, 0, 0 }, 10,
	  L7_TCPOPT_E_SHORT },
	{ "TS length 1", { 8, 1, 0, 0, 0, 0, 0, 0, 0, 0 }, 10,
	  L7_TCPOPT_E_SHORT },
	{ "unknown length 0", { 1, 1, 0x1e, 0 }, 4, L7_TCPOPT_E_SHORT },
	{ "unknown length 1", { 0xfe, 1, 1, 1 }, 4, L7_TCPOPT_E_SHORT },
	{ "kind in last byte", { 1, 1, 1, 8 }, 4, L7_TCPOPT_E_SHORT },
	{ "MSS in last byte", { 2 }, 1, L7_TCPOPT_E_SHORT },
	{ "TS past end", { 1, 1, 8, 10, 0, 0, 0, 0, 0, 0 }, 10,
	  L7_TCPOPT_E_OVERRUN },
	{ "unknown past end", { 0x1e, 6, 0, 0 }, 4, L7_TCPOPT_E_OVERRUN },
	{ "SACK 5 blocks", { 1, 1, 5, 42 }, 40, L7_TCPOPT_E_OVERRUN },
	{ "MSS past end", { 1, 1, 1, 2, 4, 5 }, 6, L7_TCPOPT_E_OVERRUN },
	{ "TS length 8", { 8, 8, 0, 0, 0, 0, 0, 0 }, 8, L7_TCPOPT_E_LEN },
	{ "TS length 12", { 8, 12 }, 12, L7_TCPOPT_E_LEN },
	{ "MSS length 3", { 2, 3, 5, 1 }, 4, L7_TCPOPT_E_LEN },
	{ "MSS length 6", { 2, 6, 0, 0, 5, 0xb4 }, 6, L7_TCPOPT_E_LEN },
	{ "WS length 4", { 3, 4, 7, 0 }, 4, L7_TCPOPT_E_LEN },
	{ "WS length 2", { 1, 3, 2, 1 }, 4, L7_TCPOPT_E_LEN },
	{ "SACK_PERM length 3", { 4, 3, 0, 1 }, 4, L7_TCPOPT_E_LEN },
	{ "SACK length 2", { 1, 1, 5, 2 }, 4, L7_TCPOPT_E_LEN },
	{ "SACK length 9", { 5, 9 }, 12, L7_TCPOPT_E_LEN },
	{ "SACK length 17", { 5, 17 }, 20, L7_TCPOPT_E_LEN },
	{ "two MSS", { 2, 4, 5, 0xb4, 2, 4, 5, 0xb4 }, 8, L7_TCPOPT_E_DUP },
	{ "two SACK_PERM", { 4, 2, 4, 2 }, 4, L7_TCPOPT_E_DUP },
	{ "two WS", { 1, 3, 3, 7, 1, 3, 3, 7 }, 8, L7_TCPOPT_E_DUP },
	{ "two TS", { 1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2,
		      1, 1, 8, 10, 0, 0, 0, 3, 0, 0, 0, 4 }, 24,
	  L7_TCPOPT_E_DUP },
	{ "two SACK", { 5, 10, 0, 0, 0, 1, 0, 0, 0, 2,
			5, 10, 0, 0, 0, 3, 0, 0, 0, 4 }, 20,
	  L7_TCPOPT_E_DUP },
};

static void test_parse_malformed(void)
{
	struct l7_tcp_opts o;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rc = parse_exact(bad[i].bytes, bad[i].len, &o);
		CHECK(rc == bad[i].err, "%s: rc %d, want %d", bad[i].name, rc,
		      bad[i].err);
	}
}

static void test_parse_eol_and_unknown(void)
{
	/* MSS, EOL, then what would be a malformed TS: never read */
	static const uint8_t eol_mid[8] = { 2, 4, 5, 0xb4, 0, 8, 0, 1 };
	/* unknown kinds, some twice, are skipped by their length */
	static const uint8_t unknown[24] = {
		0x1e, 6, 0xaa, 0xbb, 0xcc, 0xdd,	/* MPTCP-like */
		0xfe, 4, 0xf9, 0x89,			/* experimental */
		0xfe, 2,				/* again */
		1, 1, 8, 10, 0, 0, 0, 7, 0, 0, 0, 9,
	};
	static const uint8_t big_ws[4] = { 1, 3, 3, 15 };
	struct l7_tcp_opts o;
	int rc;

	rc = parse_exact(eol_mid, sizeof(eol_mid), &o);
	CHECK(rc == 0 && o.present == L7_TCPO_MSS && o.mss == 1460,
	      "EOL mid: rc %d present %#x", rc, o.present);
	rc = parse_exact(eol_mid + 4, 4, &o);
	CHECK(rc == 0 && o.present == 0, "EOL first: rc %d", rc);

	rc = parse_exact(unknown, sizeof(unknown), &o);
	CHECK(rc == 0 && o.present == L7_TCPO_TS && o.off_ts == 14 &&
	      o.tsval == 7 && o.tsecr == 9, "unknown: rc %d off %u", rc,
	      o.off_ts);

	rc = parse_exact(big_ws, sizeof(big_ws), &o);
	CHECK(rc == 0 && o.wscale == 14 && o.wscale_raw == 15,
	      "WS 15 is used as 14: %u", o.wscale);
}

static void test_set_ts(void)
{
	static const uint8_t want[12] = {
		0x01, 0x01, 0x08, 0x0a, 0x12, 0x34, 0x56, 0x78,
		0x9a, 0xbc, 0xde, 0xf0,
	};
	uint8_t a[20];
	struct l7_tcp_opts o, again;
	int rc;

	memcpy(a, ack_ts, sizeof(ack_ts));
	l7_tcp_opts_parse(a, 12, &o);
	rc = l7_tcp_opts_set_ts(a, 12, &o, 0x12345678, 0x9abcdef0);
	CHECK(rc == 0 && !memcmp(a, want, 12), "bytes");
	CHECK(o.tsval == 0x12345678 && o.tsecr == 0x9abcdef0, "struct");

	memcpy(a, syn, sizeof(syn));
	l7_tcp_opts_parse(a, 20, &o);
	rc = l7_tcp_opts_set_ts(a, 20, &o, 1, 2);
	CHECK(rc == 0 && !memcmp(a, syn, 8) && !memcmp(a + 16, syn + 16, 4),
	      "SYN: other options untouched");
	CHECK(l7_tcp_opts_parse(a, 20, &again) == 0 && again.tsval == 1 &&
	      again.tsecr == 2 && again.mss == 1460 && again.wscale == 7,
	      "SYN reparsed");

	/* area shorter than the recorded option: refuse to write */
	CHECK(l7_tcp_opts_set_ts(a, 12, &o, 3, 4) == L7_TCPOPT_E_RANGE,
	      "short area");
	l7_tcp_opts_parse(a, 4, &o);	/* MSS only */
	CHECK(l7_tcp_opts_set_ts(a, 4, &o, 3, 4) == L7_TCPOPT_E_ABSENT,
	      "no TS");
}

static void test_strip(void)
{
	static const uint8_t no_ts[20] = {
		0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x01, 0x01,
		0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
		0x01, 0x03, 0x03, 0x07,
	};
	static const uint8_t bare_mss[20] = {
		0x02, 0x04, 0x05, 0xb4, 0x01, 0x01, 0x01, 0x01,
		0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
		0x01, 0x01, 0x01, 0x01,
	};
	uint8_t a[20];
	struct l7_tcp_opts o, again;
	int rc;

	memcpy(a, syn, sizeof(syn));
	l7_tcp_opts_parse(a, 20, &o);
	rc = l7_tcp_opts_strip(a, 20, &o, L7_TCPO_TS);
	CHECK(rc == 0 && !memcmp(a, no_ts, 20), "TS stripped: rc %d", rc);
	CHECK(!(o.present & L7_TCPO_TS), "TS forgotten");
	CHECK(l7_tcp_opts_parse(a, 20, &again) == 0 &&
	      again.present == (L7_TCPO_MSS | L7_TCPO_SACK_PERM |
				L7_TCPO_WSCALE) &&
	      again.off_wscale == 17, "reparsed");
	CHECK(l7_tcp_opts_strip(a, 20, &o, L7_TCPO_TS) == L7_TCPOPT_E_ABSENT,
	      "twice");
	CHECK(l7_tcp_opts_strip(a, 20, &o, L7_TCPO_SACK_PERM |
				L7_TCPO_WSCALE) == L7_TCPOPT_E_ABSENT,
	      "two at once");
	CHECK(l7_tcp_opts_strip(a, 20, &o, L7_TCPO_SACK_PERM) == 0 &&
	      l7_tcp_opts_strip(a, 20, &o, L7_TCPO_WSCALE) == 0 &&
	      !memcmp(a, bare_mss, 20) && o.present == L7_TCPO_MSS,
	      "SACK_PERM and WS stripped");

	CHECK(l7_tcp_opt_nop(a, 20, 18, 3) == L7_TCPOPT_E_RANGE &&
	      l7_tcp_opt_nop(a, 20, 21, 0) == L7_TCPOPT_E_RANGE &&
	      l7_tcp_opt_nop(a, 20, 20, 0) == 0, "nop range");
	CHECK(l7_tcp_opt_nop(a, 20, 0, 4) == 0 && a[0] == 1 && a[3] == 1,
	      "nop MSS");
}

static void test_set_sack(void)
{
	static const uint8_t one[40] = {
		0x01, 0x01, 0x08, 0x0a, 0x00, 0x01, 0x00, 0x02,
		0x00, 0x03, 0x00, 0x04,
		0x01, 0x01, 0x05, 0x0a,
		0xde, 0xad, 0xbe, 0xef, 0xfe, 0xed, 0xfa, 0xce,
		0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
		0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
	};
	const struct l7_tcp_sack_block nb[2] = {
		{ 0xdeadbeef, 0xfeedface }, { 5, 6 },
	};
	uint8_t a[40];
	struct l7_tcp_opts o, again;
	int rc;

	memcpy(a, ack_sack3, 40);
	l7_tcp_opts_parse(a, 40, &o);
	rc = l7_tcp_opts_set_sack(a, 40, &o, nb, 1);
	CHECK(rc == 0 && !memcmp(a, one, 40), "3 -> 1 block: rc %d", rc);
	CHECK(o.sack_count == 1 && o.sack[0].start == 0xdeadbeef, "struct");
	CHECK(l7_tcp_opts_parse(a, 40, &again) == 0 &&
	      again.sack_count == 1 && again.sack[0].end == 0xfeedface &&
	      again.tsval == 0x00010002, "reparsed");
	CHECK(l7_tcp_opts_set_sack(a, 40, &o, nb, 2) == L7_TCPOPT_E_RANGE,
	      "cannot grow");

	memcpy(a, ack_sack3, 40);
	l7_tcp_opts_parse(a, 40, &o);
	rc = l7_tcp_opts_set_sack(a, 40, &o, nb, 2);
	CHECK(rc == 0 && a[15] == 18 && a[30] == 0 && a[31] == 6 &&
	      a[32] == 1 && a[39] == 1, "3 -> 2 blocks");
	rc = l7_tcp_opts_set_sack(a, 40, &o, nb, 0);
	CHECK(rc == 0 && !(o.present & L7_TCPO_SACK) && !memcmp(a, one, 12),
	      "0 blocks: rc %d", rc);
	for (rc = 12; rc < 40; rc++)
		CHECK(a[rc] == 1, "byte %d is NOP", rc);
	CHECK(l7_tcp_opts_set_sack(a, 40, &o, nb, 0) == L7_TCPOPT_E_ABSENT,
	      "no SACK left");
}

static void test_build_linux_layouts(void)
{
	static const uint8_t mss_sp_ws[12] = {
		0x02, 0x04, 0x05, 0xb4, 0x01, 0x01, 0x04, 0x02,
		0x01, 0x03, 0x03, 0x07,
	};
	struct l7_tcp_opts w = { 0 };
	uint8_t b[40];
	unsigned int n;

	w.present = L7_TCPO_MSS | L7_TCPO_SACK_PERM | L7_TCPO_TS |
		    L7_TCPO_WSCALE;
	w.mss = 1460;
	w.wscale = 7;
	w.tsval = 0x0badf00d;
	w.tsecr = 0x9a3c1102;
	n = l7_tcp_opts_build(b, sizeof(b), &w);
	CHECK(n == 20 && !memcmp(b, synack, 20), "SYN-ACK: %u", n);
	CHECK(l7_tcp_opts_build(b, 19, &w) == 0, "no room");

	w.present = L7_TCPO_TS;
	w.tsval = 0xfffffffe;
	w.tsecr = 1;
	n = l7_tcp_opts_build(b, 12, &w);
	CHECK(n == 12 && !memcmp(b, ack_ts, 12), "ACK: %u", n);

	w.present = L7_TCPO_MSS | L7_TCPO_SACK_PERM | L7_TCPO_WSCALE;
	n = l7_tcp_opts_build(b, sizeof(b), &w);
	CHECK(n == 12 && !memcmp(b, mss_sp_ws, 12), "no TS: %u", n);

	w.present = 0;
	CHECK(l7_tcp_opts_build(b, 0, &w) == 0, "RST: none");

	w.present = L7_TCPO_WSCALE;
	w.wscale = 20;
	n = l7_tcp_opts_build(b, 4, &w);
	CHECK(n == 4 && b[0] == 1 && b[1] == 3 && b[2] == 3 && b[3] == 14,
	      "WS 20 sent as 14");
}

static void test_build_sack(void)
{
	struct l7_tcp_opts w = { 0 }, o;
	uint8_t b[40];
	unsigned int n;

	w.present = L7_TCPO_TS | L7_TCPO_SACK;
	w.tsval = 0x00010002;
	w.tsecr = 0x00030004;
	w.sack_count = 4;	/* one more than fits after TS */
	w.sack[0] = (struct l7_tcp_sack_block){ 0x10000000, 0x100005b4 };
	w.sack[1] = (struct l7_tcp_sack_block){ 0x20000000, 0x20000b68 };
	w.sack[2] = (struct l7_tcp_sack_block){ 0xffffff00, 0x00000100 };
	w.sack[3] = (struct l7_tcp_sack_block){ 1, 2 };
	n = l7_tcp_opts_build(b, sizeof(b), &w);
	CHECK(n == 40 && !memcmp(b, ack_sack3, 40), "TS + 3 of 4: %u", n);

	w.present = L7_TCPO_SACK;
	n = l7_tcp_opts_build(b, sizeof(b), &w);
	CHECK(n == 36 && l7_tcp_opts_parse(b, n, &o) == 0 &&
	      o.sack_count == 4 && o.sack[3].end == 2, "4 blocks: %u", n);
}

/* Every combination builds a valid, aligned area that parses back. */
static void test_build_parse_roundtrip(void)
{
	static const unsigned int bits[] = {
		L7_TCPO_MSS, L7_TCPO_WSCALE, L7_TCPO_SACK_PERM, L7_TCPO_SACK,
		L7_TCPO_TS,
	};
	struct l7_tcp_opts w = { 0 }, o;
	uint8_t b[40];
	unsigned int mask, i, n, cnt;

	w.mss = 536;
	w.wscale = 14;
	w.tsval = 0x80000000;
	w.tsecr = 0x7fffffff;
	for (i = 0; i < 4; i++)
		w.sack[i] = (struct l7_tcp_sack_block){ i * 100, i * 100 + 50 };
	for (mask = 0; mask < 32; mask++) {
		for (cnt = 1; cnt <= 4; cnt++) {
			w.present = 0;
			for (i = 0; i < 5; i++)
				if (mask & (1u << i))
					w.present |= (uint8_t)bits[i];
			w.sack_count = (uint8_t)cnt;
			n = l7_tcp_opts_build(b, sizeof(b), &w);
			CHECK(n % 4 == 0 && n <= 40, "mask %#x: %u", mask, n);
			CHECK(l7_tcp_opts_parse(b, n, &o) == 0 &&
			      o.present == w.present, "mask %#x: %#x", mask,
			      o.present);
			CHECK(o.mss == (mask & 1 ? 536 : 0) &&
			      o.wscale == (mask & 2 ? 14 : 0) &&
			      o.tsval == (mask & 16 ? 0x80000000 : 0),
			      "mask %#x: values", mask);
			CHECK(!(o.present & L7_TCPO_SACK) ||
			      (o.sack_count >= 1 && o.sack_count <= cnt &&
			       o.sack[o.sack_count - 1].end ==
			       (o.sack_count - 1) * 100u + 50),
			      "mask %#x: %u blocks", mask, o.sack_count);
		}
	}
}

/* Random areas: parse must never read past the end (ASan) or misreport. */
static void test_parse_random(void)
{
	uint8_t a[40];
	struct l7_tcp_opts o;
	unsigned int seed = 12345, i, len, k;
	int rc, ok = 0;

	for (i = 0; i < 200000; i++) {
		len = (seed = seed * 1103515245 + 12345) >> 16 & 63;
		len = len > 40 ? 40 : len;
		for (k = 0; k < len; k++) {
			seed = seed * 1103515245 + 12345;
			/* favour small kinds and lengths */
			a[k] = (uint8_t)((seed >> 16) % (k % 2 ? 12 : 10));
		}
		rc = parse_exact(a, len, &o);
		CHECK(rc <= 0 && rc >= L7_TCPOPT_E_DUP, "rc %d", rc);
		if (rc == 0) {
			ok++;
			CHECK(!(o.present & L7_TCPO_TS) ||
			      (o.off_ts + 10u <= len && a[o.off_ts] == 8),
			      "TS offset %u len %u", o.off_ts, len);
			CHECK(!(o.present & L7_TCPO_SACK) ||
			      (o.off_sack + 2u + 8u * o.sack_count <= len &&
			       a[o.off_sack] == 5), "SACK offset");
		}
	}
	CHECK(ok > 1000, "some random areas parse: %d", ok);
}

int main(void)
{
	RUN(test_parse_syn);
	RUN(test_parse_ack_and_empty);
	RUN(test_parse_sack_blocks);
	RUN(test_parse_full_areas);
	RUN(test_parse_malformed);
	RUN(test_parse_eol_and_unknown);
	RUN(test_set_ts);
	RUN(test_strip);
	RUN(test_set_sack);
	RUN(test_build_linux_layouts);
	RUN(test_build_sack);
	RUN(test_build_parse_roundtrip);
	RUN(test_parse_random);
	return l7_test_summary("tcp_opt");
}
