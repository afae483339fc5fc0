// SPDX-License-Identifier: GPL-2.0
/*
 * Differential fuzz target for core/req_guard.c: a hostile client stream
 * against a model of the backend's Linux TCP receiver.
 *
 * The director has sent its copy of a request head; the body follows
 * from client seq LO, framed by the guard.  The fuzzer plays the client
 * and the network: it sends ranges of a body stream S in any order, with
 * any segmentation and FIN placement, resends ranges with other bytes,
 * makes the director drop a segment after the guard framed it (as a
 * failure in the kernel glue would), loses segments on the link, moves
 * (even shrinks) the backend's window, and loses or delays the
 * director's copy.  The backend model delivers in order, drops what lies
 * beyond its window, and resolves overlaps of out-of-order data first-
 * or last-writer-wins (Linux keeps in-order bytes; for overlapping
 * out-of-order ones either outcome is possible).
 *
 * Each segment also carries a TCP header of the fuzzer's making: option
 * garbage (TCP-MD5, unknown kinds, malformed areas, SACK), URG with an
 * urgent pointer, timestamps that go backwards.  The director's side
 * applies the module's own per-segment checks in the module's order
 * (options parse, PAWS, sanitize, guard, urgent data cleared); the
 * backend model reads options as Linux does (an MD5 option without a key
 * drops the segment), applies PAWS, and takes the urgent byte out of the
 * stream its application reads, as a socket without SO_OOBINLINE does.
 *
 * After every step the bytes the backend's application reads must be the
 * bytes the guard framed: the copy region holds the director's copy; every byte a
 * fresh framer has to read in the delivered stream was framed, with the
 * same value; the fresh framer never fails; it ends exactly where the
 * guard said the request ends; and nothing past that end (or past what
 * the guard framed) is ever delivered.
 *
 * Input: 4 control bytes, then (ops) 8 bytes per operation, then S.
 */
#include <stdint.h>
#include <string.h>

#include "req_guard.h"
#include "tcp_guard.h"
#include "tcp_map.h"
#include "fuzz_util.h"

#define COPYLEN		16
#define CAP		4096		/* stream bytes modelled */
#define MAX_OPS		64
#define OP_BYTES	8

static const uint8_t copy[COPYLEN] = "POST /x HTTP/1.1";

struct backend {
	uint8_t buf[COPYLEN + CAP];
	bool have[COPYLEN + CAP];
	bool urgent[COPYLEN + CAP];	/* taken out of band */
	uint32_t rcv_nxt;	/* offset from base, as all below */
	uint32_t rwnd;
	uint32_t ts_recent;
	bool last_wins;		/* for overlapping out-of-order bytes */
};

/* A TCP header as the fuzzer makes it: flags, urgent pointer, options. */
struct seg_hdr {
	uint8_t th[20 + L7_TCP_OPT_MAX_LEN];
	unsigned int optlen;
};

struct run {
	uint32_t base;		/* client seq of the copy's first byte */
	uint32_t lo;		/* base + COPYLEN */
	const uint8_t *s;
	uint32_t slen;
	bool chunked;
	uint64_t length;
	struct l7_req_guard g;
	struct l7_guard_log log;
	struct backend b;
	/* what the guard framed, by offset from lo */
	uint8_t framed[CAP];
	bool known[CAP];
	bool reset;
	uint32_t c_tsval;	/* the director's newest in-order TSval */
	uint32_t clock;		/* the client's TS clock */
};

static const uint8_t *peek_mem(const void *ctx, uint32_t off, uint32_t n,
			       uint8_t *buf)
{
	(void)n;
	(void)buf;
	return (const uint8_t *)ctx + off;
}

/* Linux drops a segment with an MD5 option on a connection without key. */
static bool has_md5(const struct seg_hdr *h)
{
	const uint8_t *o = h->th + 20;
	unsigned int i = 0;

	while (i < h->optlen && o[i] != L7_TCPOPT_EOL) {
		if (o[i] == L7_TCPOPT_NOP) {
			i++;
			continue;
		}
		if (o[i] == 19)
			return true;
		if (i + 1 >= h->optlen || o[i + 1] < 2)
			break;
		i += o[i + 1];
	}
	return false;
}

/*
 * The backend's TCP receives @n bytes at offset @off with header @h (NULL:
 * the director's own copy, plain).
 */
static void backend_rx(struct backend *b, uint32_t off, const uint8_t *p,
		       uint32_t n, const struct seg_hdr *h)
{
	bool in_order = off <= b->rcv_nxt;
	struct l7_tcp_opts o = { 0 };
	uint32_t i, urg = 0;

	if (off > b->rcv_nxt + b->rwnd || (!b->rwnd && in_order))
		return;		/* outside the window */
	if (off + n <= b->rcv_nxt)
		return;		/* a duplicate */
	if (h) {
		if (has_md5(h) ||
		    l7_tcp_opts_parse(h->th + 20, h->optlen, &o) < 0)
			return;
		if ((o.present & L7_TCPO_TS) &&
		    (int32_t)(o.tsval - b->ts_recent) < 0)
			return;	/* PAWS */
		if ((o.present & L7_TCPO_TS) && in_order)
			b->ts_recent = o.tsval;
		if (h->th[13] & L7_TCPF_URG)
			urg = (uint32_t)h->th[18] << 8 | h->th[19];
	}
	if (urg && urg <= n && off + urg - 1 < sizeof(b->buf) &&
	    off + urg - 1 >= b->rcv_nxt)
		b->urgent[off + urg - 1] = true;
	for (i = 0; i < n && off + i < sizeof(b->buf); i++) {
		uint32_t at = off + i;

		if (at < b->rcv_nxt)
			continue;
		if (in_order || !b->have[at] || b->last_wins) {
			b->buf[at] = p[i];
			b->have[at] = true;
		}
	}
	while (b->rcv_nxt < sizeof(b->buf) && b->have[b->rcv_nxt])
		b->rcv_nxt++;
}

/* The invariant, checked after every step. */
static void check(struct run *r)
{
	const struct backend *b = &r->b;
	uint32_t i, got = 0, framed_to;
	struct l7_http_body fresh;
	static uint8_t app[CAP];
	size_t used;

	for (i = 0; i < b->rcv_nxt && i < COPYLEN; i++)
		FUZZ_ASSERT(b->buf[i] == copy[i] && !b->urgent[i]);
	/* what the application reads: urgent bytes went out of band */
	for (i = COPYLEN; i < b->rcv_nxt; i++)
		if (!b->urgent[i])
			app[got++] = b->buf[i];
	if (!got)
		return;
	framed_to = r->g.nxt - r->lo;
	FUZZ_ASSERT(got <= framed_to);

	l7_http_body_init(&fresh, NULL, r->chunked, r->length);
	for (i = 0; i < got && !l7_http_body_done(&fresh);) {
		uint64_t skip = l7_http_body_skippable(&fresh);
		enum l7_body_status st;

		if (skip) {
			if (skip > got - i)
				skip = got - i;
			l7_http_body_skip(&fresh, skip);
			i += skip;
			continue;
		}
		/* a byte the backend's parser reads: framed, and the same */
		FUZZ_ASSERT(r->known[i]);
		FUZZ_ASSERT(r->framed[i] == app[i]);
		st = l7_http_body_feed(&fresh, &app[i], 1, &used);
		FUZZ_ASSERT(st != L7_BODY_ERROR);
		i += used;
	}
	if (l7_http_body_done(&fresh)) {
		FUZZ_ASSERT(r->g.done);
		FUZZ_ASSERT(r->g.nxt - r->lo == i);
		FUZZ_ASSERT(got == i);
	}
}

/*
 * Send the client segment @seg of @len bytes at client seq @seq with
 * header @h through the director's checks, in the module's order.
 */
static void client_send(struct run *r, uint32_t seq, const uint8_t *seg,
			uint32_t len, bool fin, struct seg_hdr *h,
			bool director_drops, bool link_drops)
{
	struct l7_req_seg s = {
		.seq = seq, .len = len, .fin = fin,
		.peek = peek_mem, .ctx = seg,
	};
	uint32_t nxt0 = r->g.nxt, i;
	struct l7_guard_verdict v;
	struct l7_tcp_opts o;

	if (r->reset)
		return;
	/* l7_client_segment(): options that parse, PAWS */
	if (l7_tcp_opts_parse(h->th + 20, h->optlen, &o) < 0 ||
	    !l7_tcp_paws_ok(true, false, &o, r->c_tsval))
		return;
	if (!l7_seq_after(seq, r->g.nxt) &&
	    (int32_t)(o.tsval - r->c_tsval) > 0)
		r->c_tsval = o.tsval;
	/* l7_seg_take(): only the known options go on */
	if (l7_tcp_opts_sanitize(h->th + 20, h->optlen, false, &o) < 0)
		return;
	v = l7_req_guard_seg(&r->g, &s);
	/* what the guard framed in order, it framed from this segment */
	for (i = nxt0; l7_seq_before(i, r->g.nxt); i++) {
		uint32_t at = i - r->lo;

		if (l7_seq_before(i, seq) || !l7_seq_before(i, seq + len))
			continue;	/* skipped unseen: bulk */
		if (at < CAP && !r->known[at]) {
			r->framed[at] = seg[i - seq];
			r->known[at] = true;
		}
	}
	switch (v.act) {
	case L7_GUARD_RESET:
		r->reset = true;	/* the backend gets a RST */
		break;
	case L7_GUARD_FORWARD:
		FUZZ_ASSERT(v.skip < v.keep && v.keep <= len);
		FUZZ_ASSERT(!l7_seq_before(seq + v.skip, r->lo));
		/* l7_seg_rewrite(): no urgent data; the pointer is cleared
		 * with the flag, so a cut front does not move it
		 */
		l7_tcp_hdr_no_urgent(h->th);
		if (!director_drops && !link_drops)
			backend_rx(&r->b, seq + v.skip - r->base,
				   seg + v.skip, v.keep - v.skip, h);
		break;
	case L7_GUARD_DROP:
		break;
	}
}

/* Bytes of a resend: S again, or other bytes from elsewhere in S. */
static void fill(const struct run *r, uint8_t *dst, uint32_t from,
		 uint32_t len, uint32_t shift)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		dst[i] = r->slen ? r->s[(from + i + shift) % r->slen] : 0;
}

static void backend_ack(struct run *r)
{
	l7_req_guard_acked(&r->g, r->base + r->b.rcv_nxt);
	l7_req_guard_window(&r->g, r->base + r->b.rcv_nxt + r->b.rwnd);
}

/*
 * The header of a client segment: @op[4] picks flags and options, @op[5]
 * the urgent pointer, @op[6] garbage, @op[7] how the TS clock moves.
 */
static void make_hdr(struct run *r, const uint8_t *op, struct seg_hdr *h)
{
	static const uint8_t areas[][20] = {
		{ 1, 1, 8, 10 },			/* NOP NOP TS */
		{ 19, 18, 0 },				/* TCP-MD5 */
		{ 253, 4, 0xab, 0xcd },			/* experimental */
		{ 30, 4, 0x10, 0 },			/* MPTCP */
		{ 8, 9, 0 },				/* TS, bad length */
		{ 5, 10, 0, 0, 0, 1, 0, 0, 0, 2 },	/* SACK */
		{ 0, 8, 10, 0 },			/* EOL, then bytes */
		{ 2, 4, 5, 0xb4, 3, 3, 7 },		/* MSS, WS off a SYN */
	};
	uint8_t *opt = h->th + 20;
	unsigned int k = op[4] & 7, at;

	memset(h, 0, sizeof(*h));
	h->th[13] = L7_TCPF_ACK | ((op[4] & 0x08) ? L7_TCPF_URG : 0);
	h->th[18] = 0;
	h->th[19] = op[5];
	r->clock += (int8_t)op[7];
	/* NOP NOP TS first (missing if asked), then one area of the menu */
	at = 0;
	if (!(op[4] & 0x10)) {
		memcpy(opt, areas[0], 4);
		opt[4] = r->clock >> 24;
		opt[5] = r->clock >> 16;
		opt[6] = r->clock >> 8;
		opt[7] = r->clock;
		at = 12;
	}
	if (op[4] & 0x20) {
		memcpy(opt + at, areas[k], 20);
		if (k == 1)
			memset(opt + at + 2, op[6], 16);
		at += 20;
	}
	h->optlen = at;
}

static void do_op(struct run *r, const uint8_t *op)
{
	uint8_t seg[256 + COPYLEN];
	uint32_t off, len, seq;
	bool fin = op[0] & 0x08;
	struct seg_hdr h;

	make_hdr(r, op, &h);

	switch (op[0] & 7) {
	case 0: case 1: case 2: case 3:
		/* a segment of S; maybe other bytes, maybe lost */
		off = r->slen ? op[1] * r->slen / 256 : 0;
		len = op[2] % 200 + (op[0] & 7 ? 1 : 0);
		if (off + len > r->slen)
			len = r->slen - off;
		fill(r, seg, off, len, (op[0] & 0x10) ? op[3] + 1 : 0);
		client_send(r, r->lo + off, seg, len, fin, &h, op[0] & 0x20,
			    op[0] & 0x40);
		break;
	case 4:
		r->b.rwnd = op[1] * 16u;	/* may even shrink */
		/* fall through */
	case 5:
		backend_ack(r);
		break;
	case 6:
		/* the director resends its copy */
		backend_rx(&r->b, 0, copy, COPYLEN, NULL);
		break;
	case 7:
		/* a resend reaching into the copy region */
		off = op[1] % COPYLEN + 1;
		len = off + op[2] % 64;
		seq = r->lo - off;
		memcpy(seg, copy, COPYLEN);
		fill(r, seg, op[3], len, 0);
		client_send(r, seq, seg, len, false, &h, false, false);
		break;
	}
}

/* An honest client resends S from what the backend has, window open. */
static void flush(struct run *r)
{
	uint8_t plain[OP_BYTES] = { [7] = 1 };	/* TS, clock + 1 */
	uint32_t last = ~0u, n, at;
	struct seg_hdr h;

	r->b.rwnd = CAP;
	backend_rx(&r->b, 0, copy, COPYLEN, NULL);
	while (!r->reset && r->b.rcv_nxt != last) {
		last = r->b.rcv_nxt;
		backend_ack(r);
		at = r->b.rcv_nxt - COPYLEN;
		if (at >= r->slen)
			break;
		n = r->slen - at < 64 ? r->slen - at : 64;
		make_hdr(r, plain, &h);
		client_send(r, r->lo + at, r->s + at, n, false, &h, false,
			    false);
		check(r);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct run r;
	struct l7_http_body body;
	uint32_t nops, i;

	if (size < FUZZ_CTL_BYTES)
		return 0;
	memset(&r, 0, sizeof(r));
	/* seq spaces near the wrap as well as far from it */
	r.base = (data[0] & 1) ? 0xffffff00u + data[1] : 1000u + data[1];
	r.lo = r.base + COPYLEN;
	r.chunked = !(data[0] & 2);
	r.length = data[2] * 8u;
	r.b.last_wins = data[0] & 4;
	r.b.rwnd = (data[0] & 8) ? data[3] * 16u : CAP;
	nops = (data[0] >> 4) * 4;
	if (nops > MAX_OPS)
		nops = MAX_OPS;
	data += FUZZ_CTL_BYTES;
	size -= FUZZ_CTL_BYTES;
	if (nops * OP_BYTES > size)
		nops = size / OP_BYTES;
	r.s = data + nops * OP_BYTES;
	r.slen = size - nops * OP_BYTES;
	if (r.slen > CAP)
		r.slen = CAP;

	l7_http_body_init(&body, NULL, r.chunked, r.length);
	l7_req_guard_init(&r.g, r.lo, &body, l7_http_body_done(&body),
			  &r.log);
	r.clock = (uint32_t)data[-1] << 24;
	r.c_tsval = r.clock;
	r.b.ts_recent = r.clock;
	if (!(data[-4] & 0x80 && nops))
		backend_rx(&r.b, 0, copy, COPYLEN, NULL);	/* arrived */
	for (i = 0; i < nops; i++) {
		do_op(&r, data + i * OP_BYTES);
		check(&r);
	}
	flush(&r);
	check(&r);
	return 0;
}
