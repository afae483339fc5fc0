/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: TCP options on raw bytes.
 *
 * The splice rewrites every segment it forwards, and some of what it has
 * to rewrite lives in the option area: timestamps (each end has its own
 * clock), SACK blocks (sequence numbers), and options one of the two
 * connections never negotiated.  The parser records where each option it
 * understands sits, so the rewriters can change those bytes in place
 * without moving anything: the packet keeps its length, and the caller
 * patches the TCP checksum over the bytes that changed.
 *
 * "opt" is always the option area: the bytes after the fixed 20-byte TCP
 * header, (doff - 5) * 4 of them, so 0..40.
 */
#ifndef _IP_VS_L7_CORE_TCP_OPT_H
#define _IP_VS_L7_CORE_TCP_OPT_H

#include "l7_types.h"

/* Option kinds (IANA) */
#define L7_TCPOPT_EOL		0
#define L7_TCPOPT_NOP		1
#define L7_TCPOPT_MSS		2
#define L7_TCPOPT_WINDOW	3
#define L7_TCPOPT_SACK_PERM	4
#define L7_TCPOPT_SACK		5
#define L7_TCPOPT_TIMESTAMP	8

/* Lengths of the known options, kind and length bytes included */
#define L7_TCPOLEN_MSS		4
#define L7_TCPOLEN_WINDOW	3
#define L7_TCPOLEN_SACK_PERM	2
#define L7_TCPOLEN_SACK_BASE	2
#define L7_TCPOLEN_SACK_BLOCK	8
#define L7_TCPOLEN_TIMESTAMP	10

#define L7_TCP_OPT_MAX_LEN	40	/* doff 15 */
#define L7_TCP_SACK_MAX_BLOCKS	4	/* 2 + 4 * 8 = 34 bytes */
#define L7_TCP_WSCALE_MAX	14	/* RFC 7323 2.3 */

/* Bits of l7_tcp_opts.present: which known options the area holds */
#define L7_TCPO_MSS		0x01
#define L7_TCPO_WSCALE		0x02
#define L7_TCPO_SACK_PERM	0x04
#define L7_TCPO_SACK		0x08
#define L7_TCPO_TS		0x10

/* Why parse() refused an option area; all negative */
enum l7_tcpopt_err {
	L7_TCPOPT_E_AREA = -1,	/* area longer than 40 bytes */
	L7_TCPOPT_E_SHORT = -2,	/* length byte missing, or below 2 */
	L7_TCPOPT_E_OVERRUN = -3, /* option runs past the end of the area */
	L7_TCPOPT_E_LEN = -4,	/* wrong length for a known kind */
	L7_TCPOPT_E_DUP = -5,	/* a known option appears twice */
	L7_TCPOPT_E_ABSENT = -6, /* rewriter: the option is not there */
	L7_TCPOPT_E_RANGE = -7,	/* rewriter: bytes outside the area */
};

/* One SACK block, host order: bytes [start, end) were received. */
struct l7_tcp_sack_block {
	uint32_t start;
	uint32_t end;
};

struct l7_tcp_opts {
	uint8_t present;	/* L7_TCPO_* */
	/* Offset of each present option's kind byte within the area. */
	uint8_t off_mss;
	uint8_t off_wscale;
	uint8_t off_sack_perm;
	uint8_t off_sack;
	uint8_t off_ts;
	uint8_t wscale;		/* as effective: values above 14 read as 14 */
	uint8_t wscale_raw;	/* as sent, for a caller that wants to log */
	uint8_t sack_count;	/* 1..4 when L7_TCPO_SACK */
	uint16_t mss;
	uint32_t tsval;
	uint32_t tsecr;
	struct l7_tcp_sack_block sack[L7_TCP_SACK_MAX_BLOCKS];
};

/*
 * Parse @len bytes of option area into @o.  Returns 0, or a negative
 * enum l7_tcpopt_err; on error @o describes the options before the bad
 * one, which a caller that keeps the packet must not rewrite.
 */
int l7_tcp_opts_parse(const uint8_t *opt, unsigned int len,
		      struct l7_tcp_opts *o);

/* The L7_TCPO_* bit of a known option kind, or 0 for one only skipped. */
unsigned int l7_tcp_opt_kind_bit(uint8_t kind);

/* Length in bytes of a present option (@which is one L7_TCPO_* bit). */
unsigned int l7_tcp_opt_len(const struct l7_tcp_opts *o, unsigned int which);

/*
 * The rewriters below change bytes of @opt in place and keep @o in step
 * with them.  They never change the area's length and never touch bytes
 * outside the option they name; the caller fixes the checksum.
 */

/* Overwrite [off, off + n) with NOPs. */
int l7_tcp_opt_nop(uint8_t *opt, unsigned int len, unsigned int off,
		   unsigned int n);

/* NOP out one present option (@which: one L7_TCPO_* bit) and forget it. */
int l7_tcp_opts_strip(uint8_t *opt, unsigned int len, struct l7_tcp_opts *o,
		      unsigned int which);

int l7_tcp_opts_set_ts(uint8_t *opt, unsigned int len, struct l7_tcp_opts *o,
		       uint32_t tsval, uint32_t tsecr);

/*
 * Replace the SACK blocks by @n blocks from @blk.  The option can only
 * shrink in place: n must not exceed o->sack_count; the freed bytes become
 * NOPs, and n == 0 strips the option.
 */
int l7_tcp_opts_set_sack(uint8_t *opt, unsigned int len, struct l7_tcp_opts *o,
			 const struct l7_tcp_sack_block *blk, unsigned int n);

/*
 * The options of a segment of the director's on an established
 * connection: timestamps when @ts, and @dup - a duplicate the receiver
 * is told of (RFC 2883), or NULL - as the one SACK block.
 */
void l7_tcp_opts_own(struct l7_tcp_opts *o, bool ts, uint32_t tsval,
		     uint32_t tsecr, const struct l7_tcp_sack_block *dup);

/*
 * Write the options of a segment the director sends itself (SYN-ACK, ACK,
 * RST) in Linux's layout: MSS, then SACK_PERM folded into the NOP pair in
 * front of the timestamps, then NOP + window scale, then NOP NOP + SACK.
 * From @want: L7_TCPO_MSS, _SACK_PERM, _TS, _WSCALE and _SACK (blocks
 * beyond what fits in 40 bytes are left out, as Linux does).  Returns the
 * length written, a multiple of 4, or 0 (and writes nothing) when the
 * options do not fit in @room.
 */
unsigned int l7_tcp_opts_build(uint8_t *buf, unsigned int room,
			       const struct l7_tcp_opts *want);

#endif /* _IP_VS_L7_CORE_TCP_OPT_H */
