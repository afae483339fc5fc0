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
 * After every step the bytes the backend delivered must be the bytes the
 * guard framed: the copy region holds the director's copy; every byte a
 * fresh framer has to read in the delivered stream was framed, with the
 * same value; the fresh framer never fails; it ends exactly where the
 * guard said the request ends; and nothing past that end (or past what
 * the guard framed) is ever delivered.
 *
 * Input: 4 control bytes, then (ops) 4 bytes per operation, then S.
 */
#include <stdint.h>
#include <string.h>

#include "req_guard.h"
#include "tcp_map.h"
#include "fuzz_util.h"

#define COPYLEN		16
#define CAP		4096		/* stream bytes modelled */
#define MAX_OPS		64
#define OP_BYTES	4

static const uint8_t copy[COPYLEN] = "POST /x HTTP/1.1";

struct backend {
	uint8_t buf[COPYLEN + CAP];
	bool have[COPYLEN + CAP];
	uint32_t rcv_nxt;	/* offset from base, as all below */
	uint32_t rwnd;
	bool last_wins;		/* for overlapping out-of-order bytes */
};

struct run {
	uint32_t base;		/* client seq of the copy's first byte */
	uint32_t lo;		/* base + COPYLEN */
	const uint8_t *s;
	uint32_t slen;
	bool chunked;
	uint64_t length;
	struct l7_req_guard g;
	struct backend b;
	/* what the guard framed, by offset from lo */
	uint8_t framed[CAP];
	bool known[CAP];
	bool reset;
};

static const uint8_t *peek_mem(const void *ctx, uint32_t off, uint32_t n,
			       uint8_t *buf)
{
	(void)n;
	(void)buf;
	return (const uint8_t *)ctx + off;
}

/* The backend's TCP receives @n bytes at offset @off. */
static void backend_rx(struct backend *b, uint32_t off, const uint8_t *p,
		       uint32_t n)
{
	bool in_order = off <= b->rcv_nxt;
	uint32_t i;

	if (off > b->rcv_nxt + b->rwnd || (!b->rwnd && in_order))
		return;		/* outside the window */
	if (off + n <= b->rcv_nxt)
		return;		/* a duplicate */
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
	uint32_t i, got, framed_to;
	struct l7_http_body fresh;
	size_t used;

	for (i = 0; i < b->rcv_nxt && i < COPYLEN; i++)
		FUZZ_ASSERT(b->buf[i] == copy[i]);
	if (b->rcv_nxt <= COPYLEN)
		return;
	got = b->rcv_nxt - COPYLEN;
	framed_to = (r->g.done ? r->g.end : r->g.nxt) - r->lo;
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
		FUZZ_ASSERT(r->framed[i] == b->buf[COPYLEN + i]);
		st = l7_http_body_feed(&fresh, &b->buf[COPYLEN + i], 1, &used);
		FUZZ_ASSERT(st != L7_BODY_ERROR);
		i += used;
	}
	if (l7_http_body_done(&fresh)) {
		FUZZ_ASSERT(r->g.done);
		FUZZ_ASSERT(r->g.end - r->lo == i);
		FUZZ_ASSERT(got == i);
	}
}

/* Send the client segment @seg of @len bytes at client seq @seq. */
static void client_send(struct run *r, uint32_t seq, const uint8_t *seg,
			uint32_t len, bool fin, bool director_drops,
			bool link_drops)
{
	struct l7_req_seg s = {
		.seq = seq, .len = len, .fin = fin,
		.peek = peek_mem, .ctx = seg,
	};
	uint32_t nxt0 = r->g.nxt, i;
	struct l7_guard_verdict v;

	if (r->reset)
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
		if (!director_drops && !link_drops)
			backend_rx(&r->b, seq + v.skip - r->base,
				   seg + v.skip, v.keep - v.skip);
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

static void do_op(struct run *r, const uint8_t *op)
{
	uint8_t seg[256 + COPYLEN];
	uint32_t off, len, seq;
	bool fin = op[0] & 0x08;

	switch (op[0] & 7) {
	case 0: case 1: case 2: case 3:
		/* a segment of S; maybe other bytes, maybe lost */
		off = r->slen ? op[1] * r->slen / 256 : 0;
		len = op[2] % 200 + (op[0] & 7 ? 1 : 0);
		if (off + len > r->slen)
			len = r->slen - off;
		fill(r, seg, off, len, (op[0] & 0x10) ? op[3] + 1 : 0);
		client_send(r, r->lo + off, seg, len, fin, op[0] & 0x20,
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
		backend_rx(&r->b, 0, copy, COPYLEN);
		break;
	case 7:
		/* a resend reaching into the copy region */
		off = op[1] % COPYLEN + 1;
		len = off + op[2] % 64;
		seq = r->lo - off;
		memcpy(seg, copy, COPYLEN);
		fill(r, seg, op[3], len, 0);
		client_send(r, seq, seg, len, false, false, false);
		break;
	}
}

/* An honest client resends S from what the backend has, window open. */
static void flush(struct run *r)
{
	uint32_t last = ~0u, n, at;

	r->b.rwnd = CAP;
	backend_rx(&r->b, 0, copy, COPYLEN);
	while (!r->reset && r->b.rcv_nxt != last) {
		last = r->b.rcv_nxt;
		backend_ack(r);
		at = r->b.rcv_nxt - COPYLEN;
		if (at >= r->slen)
			break;
		n = r->slen - at < 64 ? r->slen - at : 64;
		client_send(r, r->lo + at, r->s + at, n, false, false, false);
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
	l7_req_guard_init(&r.g, r.lo, &body, l7_http_body_done(&body));
	if (!(data[-4] & 0x80 && nops))
		backend_rx(&r.b, 0, copy, COPYLEN);	/* the copy arrived */
	for (i = 0; i < nops; i++) {
		do_op(&r, data + i * OP_BYTES);
		check(&r);
	}
	flush(&r);
	check(&r);
	return 0;
}
