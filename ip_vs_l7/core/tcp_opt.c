// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: TCP options on raw bytes.
 *
 * Wire fields are big-endian and may sit at any offset (options are not
 * aligned), so every multi-byte field is loaded and stored byte by byte.
 */
#include "tcp_opt.h"

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

unsigned int l7_tcp_opt_kind_bit(uint8_t kind)
{
	switch (kind) {
	case L7_TCPOPT_MSS:
		return L7_TCPO_MSS;
	case L7_TCPOPT_WINDOW:
		return L7_TCPO_WSCALE;
	case L7_TCPOPT_SACK_PERM:
		return L7_TCPO_SACK_PERM;
	case L7_TCPOPT_SACK:
		return L7_TCPO_SACK;
	case L7_TCPOPT_TIMESTAMP:
		return L7_TCPO_TS;
	}
	return 0;
}

/*
 * A known option with a length its kind cannot have is refused rather
 * than skipped: we would otherwise forward it to a peer whose parser may
 * read it differently from ours, and rewrite the wrong bytes.
 */
static bool len_ok(unsigned int bit, unsigned int olen)
{
	unsigned int n;

	switch (bit) {
	case L7_TCPO_MSS:
		return olen == L7_TCPOLEN_MSS;
	case L7_TCPO_WSCALE:
		return olen == L7_TCPOLEN_WINDOW;
	case L7_TCPO_SACK_PERM:
		return olen == L7_TCPOLEN_SACK_PERM;
	case L7_TCPO_TS:
		return olen == L7_TCPOLEN_TIMESTAMP;
	}
	/* SACK: 2 + 8n bytes, 1 <= n <= 4 */
	if (olen < L7_TCPOLEN_SACK_BASE + L7_TCPOLEN_SACK_BLOCK)
		return false;
	n = olen - L7_TCPOLEN_SACK_BASE;
	return n % L7_TCPOLEN_SACK_BLOCK == 0 &&
	       n / L7_TCPOLEN_SACK_BLOCK <= L7_TCP_SACK_MAX_BLOCKS;
}

static void record_sack(const uint8_t *p, unsigned int olen,
			struct l7_tcp_opts *o)
{
	unsigned int i;

	o->sack_count = (uint8_t)((olen - L7_TCPOLEN_SACK_BASE) /
				  L7_TCPOLEN_SACK_BLOCK);
	for (i = 0; i < o->sack_count; i++) {
		const uint8_t *b = p + L7_TCPOLEN_SACK_BASE +
				   i * L7_TCPOLEN_SACK_BLOCK;

		o->sack[i].start = get32(b);
		o->sack[i].end = get32(b + 4);
	}
}

/* Store a known, well-formed option found at @off. */
static void record(const uint8_t *opt, unsigned int off, unsigned int olen,
		   unsigned int bit, struct l7_tcp_opts *o)
{
	const uint8_t *p = opt + off;

	o->present |= (uint8_t)bit;
	switch (bit) {
	case L7_TCPO_MSS:
		o->off_mss = (uint8_t)off;
		o->mss = get16(p + 2);
		break;
	case L7_TCPO_WSCALE:
		o->off_wscale = (uint8_t)off;
		o->wscale_raw = p[2];
		/* RFC 7323 2.3: a larger shift is used as 14 */
		o->wscale = p[2] > L7_TCP_WSCALE_MAX ? L7_TCP_WSCALE_MAX : p[2];
		break;
	case L7_TCPO_SACK_PERM:
		o->off_sack_perm = (uint8_t)off;
		break;
	case L7_TCPO_SACK:
		o->off_sack = (uint8_t)off;
		record_sack(p, olen, o);
		break;
	case L7_TCPO_TS:
		o->off_ts = (uint8_t)off;
		o->tsval = get32(p + 2);
		o->tsecr = get32(p + 6);
		break;
	}
}

int l7_tcp_opts_parse(const uint8_t *opt, unsigned int len,
		      struct l7_tcp_opts *o)
{
	unsigned int off = 0, olen, bit;

	*o = (struct l7_tcp_opts){ 0 };
	if (len > L7_TCP_OPT_MAX_LEN)
		return L7_TCPOPT_E_AREA;
	while (off < len) {
		if (opt[off] == L7_TCPOPT_EOL)
			break;
		if (opt[off] == L7_TCPOPT_NOP) {
			off++;
			continue;
		}
		if (off + 1 >= len || opt[off + 1] < 2)
			return L7_TCPOPT_E_SHORT;
		olen = opt[off + 1];
		if (olen > len - off)
			return L7_TCPOPT_E_OVERRUN;
		bit = l7_tcp_opt_kind_bit(opt[off]);
		if (bit) {
			if (!len_ok(bit, olen))
				return L7_TCPOPT_E_LEN;
			/*
			 * Two copies of one option: the two ends of the
			 * splice could each believe a different one.
			 */
			if (o->present & bit)
				return L7_TCPOPT_E_DUP;
			record(opt, off, olen, bit, o);
		}
		off += olen;
	}
	return 0;
}

unsigned int l7_tcp_opt_len(const struct l7_tcp_opts *o, unsigned int which)
{
	if (!(o->present & which))
		return 0;
	switch (which) {
	case L7_TCPO_MSS:
		return L7_TCPOLEN_MSS;
	case L7_TCPO_WSCALE:
		return L7_TCPOLEN_WINDOW;
	case L7_TCPO_SACK_PERM:
		return L7_TCPOLEN_SACK_PERM;
	case L7_TCPO_SACK:
		return L7_TCPOLEN_SACK_BASE +
		       o->sack_count * L7_TCPOLEN_SACK_BLOCK;
	case L7_TCPO_TS:
		return L7_TCPOLEN_TIMESTAMP;
	}
	return 0;
}

static unsigned int opt_off(const struct l7_tcp_opts *o, unsigned int which)
{
	switch (which) {
	case L7_TCPO_MSS:
		return o->off_mss;
	case L7_TCPO_WSCALE:
		return o->off_wscale;
	case L7_TCPO_SACK_PERM:
		return o->off_sack_perm;
	case L7_TCPO_SACK:
		return o->off_sack;
	}
	return o->off_ts;
}

/*
 * The recorded offsets come from parse(), but @o and @opt are handed
 * around separately; check that the bytes still fit before writing.
 */
static bool fits(unsigned int len, unsigned int off, unsigned int n)
{
	return len <= L7_TCP_OPT_MAX_LEN && off <= len && n <= len - off;
}

int l7_tcp_opt_nop(uint8_t *opt, unsigned int len, unsigned int off,
		   unsigned int n)
{
	unsigned int i;

	if (!fits(len, off, n))
		return L7_TCPOPT_E_RANGE;
	for (i = 0; i < n; i++)
		opt[off + i] = L7_TCPOPT_NOP;
	return 0;
}

/*
 * NOPs rather than removal: shortening the header would move the payload
 * and change the IP length, and a receiver skips NOPs for free.
 */
int l7_tcp_opts_strip(uint8_t *opt, unsigned int len, struct l7_tcp_opts *o,
		      unsigned int which)
{
	unsigned int n = l7_tcp_opt_len(o, which);
	int err;

	if (!n || (which & (which - 1)))
		return L7_TCPOPT_E_ABSENT;
	err = l7_tcp_opt_nop(opt, len, opt_off(o, which), n);
	if (err)
		return err;
	o->present &= (uint8_t)~which;
	if (which == L7_TCPO_SACK)
		o->sack_count = 0;
	return 0;
}

int l7_tcp_opts_set_ts(uint8_t *opt, unsigned int len, struct l7_tcp_opts *o,
		       uint32_t tsval, uint32_t tsecr)
{
	if (!(o->present & L7_TCPO_TS))
		return L7_TCPOPT_E_ABSENT;
	if (!fits(len, o->off_ts, L7_TCPOLEN_TIMESTAMP))
		return L7_TCPOPT_E_RANGE;
	put32(opt + o->off_ts + 2, tsval);
	put32(opt + o->off_ts + 6, tsecr);
	o->tsval = tsval;
	o->tsecr = tsecr;
	return 0;
}

int l7_tcp_opts_set_sack(uint8_t *opt, unsigned int len, struct l7_tcp_opts *o,
			 const struct l7_tcp_sack_block *blk, unsigned int n)
{
	unsigned int old = l7_tcp_opt_len(o, L7_TCPO_SACK);
	unsigned int i, olen;
	uint8_t *p;

	if (!old)
		return L7_TCPOPT_E_ABSENT;
	if (n > o->sack_count || !fits(len, o->off_sack, old))
		return L7_TCPOPT_E_RANGE;
	if (n == 0)
		return l7_tcp_opts_strip(opt, len, o, L7_TCPO_SACK);
	p = opt + o->off_sack;
	olen = L7_TCPOLEN_SACK_BASE + n * L7_TCPOLEN_SACK_BLOCK;
	p[1] = (uint8_t)olen;
	for (i = 0; i < n; i++) {
		put32(p + 2 + i * 8, blk[i].start);
		put32(p + 6 + i * 8, blk[i].end);
		o->sack[i] = blk[i];
	}
	for (i = olen; i < old; i++)
		p[i] = L7_TCPOPT_NOP;
	o->sack_count = (uint8_t)n;
	return 0;
}

/* ---- building the director's own options ---- */

static unsigned int build_len(const struct l7_tcp_opts *want,
			      unsigned int *sack_blocks)
{
	unsigned int len = 0, fixed, n = 0;

	if (want->present & L7_TCPO_MSS)
		len += 4;
	if (want->present & L7_TCPO_TS)
		len += 12;	/* NOP NOP or SACK_PERM, then TS */
	else if (want->present & L7_TCPO_SACK_PERM)
		len += 4;	/* NOP NOP SACK_PERM */
	if (want->present & L7_TCPO_WSCALE)
		len += 4;	/* NOP WS */
	fixed = len;
	if (want->present & L7_TCPO_SACK) {
		n = want->sack_count;
		if (n > L7_TCP_SACK_MAX_BLOCKS)
			n = L7_TCP_SACK_MAX_BLOCKS;
		/* NOP NOP SACK len, then 8 bytes a block */
		while (n && fixed + 4 + n * 8 > L7_TCP_OPT_MAX_LEN)
			n--;
		if (n)
			len += 4 + n * 8;
	}
	*sack_blocks = n;
	return len;
}

static uint8_t *put4(uint8_t *p, uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	p[0] = a;
	p[1] = b;
	p[2] = c;
	p[3] = d;
	return p + 4;
}

static uint8_t *build_sack(uint8_t *p, const struct l7_tcp_opts *want,
			   unsigned int n)
{
	unsigned int i;

	p = put4(p, L7_TCPOPT_NOP, L7_TCPOPT_NOP, L7_TCPOPT_SACK,
		 (uint8_t)(L7_TCPOLEN_SACK_BASE + n * L7_TCPOLEN_SACK_BLOCK));
	for (i = 0; i < n; i++) {
		put32(p, want->sack[i].start);
		put32(p + 4, want->sack[i].end);
		p += 8;
	}
	return p;
}

void l7_tcp_opts_own(struct l7_tcp_opts *o, bool ts, uint32_t tsval,
		     uint32_t tsecr, const struct l7_tcp_sack_block *dup)
{
	*o = (struct l7_tcp_opts){ 0 };
	if (ts) {
		o->present = L7_TCPO_TS;
		o->tsval = tsval;
		o->tsecr = tsecr;
	}
	if (dup) {
		o->present |= L7_TCPO_SACK;
		o->sack_count = 1;
		o->sack[0] = *dup;
	}
}

/*
 * Linux's own layout (tcp_options_write()): every option is padded to a
 * 4-byte word on its own, so the TS words stay aligned for the fast-path
 * check that receivers do on "NOP NOP TS 10", and a director segment looks
 * like any other Linux segment to middleboxes that fingerprint layouts.
 */
unsigned int l7_tcp_opts_build(uint8_t *buf, unsigned int room,
			       const struct l7_tcp_opts *want)
{
	unsigned int n, len = build_len(want, &n);
	uint8_t ws, *p = buf;

	if (len > room)
		return 0;
	if (want->present & L7_TCPO_MSS) {
		p = put4(p, L7_TCPOPT_MSS, L7_TCPOLEN_MSS, 0, 0);
		put16(p - 2, want->mss);
	}
	if (want->present & L7_TCPO_TS) {
		if (want->present & L7_TCPO_SACK_PERM)
			p = put4(p, L7_TCPOPT_SACK_PERM, L7_TCPOLEN_SACK_PERM,
				 L7_TCPOPT_TIMESTAMP, L7_TCPOLEN_TIMESTAMP);
		else
			p = put4(p, L7_TCPOPT_NOP, L7_TCPOPT_NOP,
				 L7_TCPOPT_TIMESTAMP, L7_TCPOLEN_TIMESTAMP);
		put32(p, want->tsval);
		put32(p + 4, want->tsecr);
		p += 8;
	} else if (want->present & L7_TCPO_SACK_PERM) {
		p = put4(p, L7_TCPOPT_NOP, L7_TCPOPT_NOP, L7_TCPOPT_SACK_PERM,
			 L7_TCPOLEN_SACK_PERM);
	}
	if (want->present & L7_TCPO_WSCALE) {
		ws = want->wscale > L7_TCP_WSCALE_MAX ? L7_TCP_WSCALE_MAX :
							want->wscale;
		p = put4(p, L7_TCPOPT_NOP, L7_TCPOPT_WINDOW, L7_TCPOLEN_WINDOW,
			 ws);
	}
	if (n)
		p = build_sack(p, want, n);
	return (unsigned int)(p - buf);
}
