// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for core/rsp_guard.c, differential: a backend stream
 * arrives as segments in any order, with duplicates, overlaps and a FIN,
 * and the guard must come to the same framing as one in-order pass of
 * the response framer over the whole stream - and never let a byte past
 * the response's end reach the client.
 *
 * Control bytes: [0] bit 0 the request was HEAD, bit 1 the stream ends
 * with FIN; [1] how many segments; [2] [3] seeds of the schedule.  The
 * rest is the backend's stream.
 *
 * Invariants, after every segment:
 *  - a FORWARD never carries a byte at or past the reference end (when
 *    the reference frames a response: DONE at E);
 *  - "ended" happens once, at E exactly, and only if the reference
 *    finishes (DONE, or a close-delimited body ended by the FIN);
 *  - rcv_nxt is the start plus the contiguous bytes delivered (+FIN).
 * And after a final in-order pass of the whole stream: the guard ended
 * iff the reference did, said BAD iff the reference failed, UPGRADE iff
 * the reference saw a 101.
 */
#include "rsp_guard.h"
#include "fuzz_util.h"

#define S0 0xfffffc00u	/* near the wrap: sequence arithmetic is tested */
#define MAX_SEGS 64

enum ref_end { REF_MORE, REF_DONE, REF_BAD, REF_UPGRADE };

struct ref {
	enum ref_end how;
	uint32_t end;	/* stream offset just past the response (DONE) */
};

/* One in-order pass of the framer over @n bytes, then the FIN if any. */
static struct ref reference(const uint8_t *d, uint32_t n,
			    enum l7_http_method m, bool fin)
{
	struct l7_http_resp r;
	uint32_t at = 0;
	size_t used;

	l7_http_resp_init(&r, NULL, m);
	for (;;) {
		enum l7_resp_status st = l7_http_resp_feed(&r, d + at, n - at,
							   &used);

		at += (uint32_t)used;
		switch (st) {
		case L7_RESP_HEAD:
		case L7_RESP_INTERIM:
			continue;
		case L7_RESP_DONE:
			return (struct ref){ REF_DONE, at };
		case L7_RESP_ERROR:
			return (struct ref){ REF_BAD, 0 };
		case L7_RESP_UPGRADE:
			return (struct ref){ REF_UPGRADE, 0 };
		case L7_RESP_MORE:
			break;
		}
		break;
	}
	if (!fin)
		return (struct ref){ REF_MORE, 0 };
	if (l7_http_resp_eof(&r) == L7_RESP_DONE)
		return (struct ref){ REF_DONE, n };
	return (struct ref){ REF_BAD, 0 };
}

static const uint8_t *peek(const void *ctx, uint32_t off, uint32_t n,
			   uint8_t *buf)
{
	(void)n;
	(void)buf;
	return (const uint8_t *)ctx + off;
}

struct run {
	struct l7_rsp_guard g;
	const uint8_t *d;
	uint32_t n;
	bool fin;
	struct ref ref;
	bool ended, bad, upgrade;
	uint32_t contig;	/* bytes delivered in order from the start */
	bool fin_in;
};

static void deliver(struct run *r, uint32_t from, uint32_t len)
{
	bool fin = r->fin && from + len == r->n;
	struct l7_rsp_seg s = {
		.seq = S0 + from,
		.len = len,
		.fin = fin,
		.peek = peek,
		.ctx = r->d + from,
	};
	struct l7_rsp_verdict v;

	if (r->bad || r->upgrade || (!len && !fin))
		return;
	v = l7_rsp_guard_seg(&r->g, &s);
	if (from <= r->contig && from + len > r->contig)
		r->contig = from + len;
	if (fin && from <= r->contig)
		r->fin_in = true;
	FUZZ_ASSERT(r->g.rcv_nxt == S0 + r->contig + r->fin_in);

	switch (v.act) {
	case L7_RSP_BAD:
		r->bad = true;
		return;
	case L7_RSP_UPGRADE:
		FUZZ_ASSERT(r->ref.how == REF_UPGRADE);
		r->upgrade = true;
		return;
	case L7_RSP_WAIT:
		FUZZ_ASSERT(!v.ended);
		return;
	case L7_RSP_FORWARD:
		break;
	}
	if (r->ref.how == REF_DONE)
		FUZZ_ASSERT(from + len <= r->ref.end);
	if (v.ended) {
		FUZZ_ASSERT(!r->ended && r->ref.how == REF_DONE);
		FUZZ_ASSERT(l7_rsp_guard_end(&r->g) == S0 + r->ref.end);
		r->ended = true;
	}
	/* a FIN after the response is never passed on */
	if (fin && r->g.done)
		FUZZ_ASSERT(v.strip_fin);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run r = { 0 };
	uint32_t seed, i, nsegs;
	enum l7_http_method m;

	if (size < FUZZ_CTL_BYTES)
		return 0;
	m = (data[0] & 1) ? L7_HTTP_M_HEAD : L7_HTTP_M_GET;
	r.fin = data[0] & 2;
	nsegs = data[1] % MAX_SEGS;
	seed = (uint32_t)data[2] << 8 | data[3];
	r.d = data + FUZZ_CTL_BYTES;
	r.n = (uint32_t)(size - FUZZ_CTL_BYTES);
	r.ref = reference(r.d, r.n, m, r.fin);
	l7_rsp_guard_init(&r.g, S0, m);

	/* segments anywhere, any length, any order, repeats allowed */
	for (i = 0; i < nsegs && r.n; i++) {
		uint32_t from, len;

		seed = seed * 1103515245u + 12345u;
		from = (seed >> 8) % r.n;
		seed = seed * 1103515245u + 12345u;
		len = 1 + (seed >> 8) % (r.n - from);
		deliver(&r, from, len);
	}
	/* then the whole stream in order, as a backend's resends would */
	for (i = 0; i < r.n; i += 97)
		deliver(&r, i, r.n - i < 97 ? r.n - i : 97);
	if (!r.n)
		deliver(&r, 0, 0);	/* just the FIN, if any */

	switch (r.ref.how) {
	case REF_DONE:
		/*
		 * Bytes after the response are not HTTP: a segment that
		 * carries them is BAD (if it also carries the end, the
		 * response never ends for the client).
		 */
		FUZZ_ASSERT(r.ended || r.ref.end < r.n);
		FUZZ_ASSERT(r.bad == (r.ref.end < r.n));
		break;
	case REF_BAD:
		FUZZ_ASSERT(r.bad && !r.ended);
		break;
	case REF_UPGRADE:
		FUZZ_ASSERT(r.upgrade);
		break;
	case REF_MORE:
		FUZZ_ASSERT(!r.ended && !r.bad && !r.upgrade);
		break;
	}
	return 0;
}
