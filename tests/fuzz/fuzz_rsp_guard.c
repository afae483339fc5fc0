// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for core/rsp_guard.c, differential: a backend stream
 * arrives as segments in any order, with duplicates, overlaps and a FIN,
 * and the guard must come to the same framing as one in-order pass of
 * the response framer over the whole stream - and never let a byte past
 * the response's end reach the client.
 *
 * Control bytes: [0] bit 0 the request was HEAD, bit 1 the stream ends
 * with FIN, bit 2 the client's connection goes on (Connection fields are
 * cloaked), bit 3 the guard takes the head (an HTTP/1.0 keep-alive
 * client: core/rsp_head.c); [1] how many segments; [2] [3] seeds of the
 * schedule.  The rest is the backend's stream.
 *
 * Invariants, after every segment:
 *  - a FORWARD never carries a byte at or past the reference end (when
 *    the reference frames a response: DONE at E);
 *  - "ended" happens once, at E exactly, and only if the reference
 *    finishes (DONE, or a close-delimited body ended by the FIN);
 *  - rcv_nxt is the start plus the contiguous bytes delivered (+FIN).
 * And after a final in-order pass of the whole stream: the guard ended
 * iff the reference did, said BAD iff the reference failed, UPGRADE iff
 * the reference saw a 101.  What the client received (first copy of each
 * byte wins, cloaking included) frames to the same end, and with cloaking
 * and nothing missed its head holds no Connection field.  When the guard
 * took the head: no byte below the taken end was forwarded, the taken
 * bytes are the stream's, the taking ended once, and the client's stream
 * - the director's copy, then what was forwarded after the taken end -
 * frames to the same end moved by the copy's offset; a copy of a whole
 * head keeps an HTTP/1.0 client (says keep-alive, or runs to the close)
 * and is at most L7_RSP_HEAD_GROWTH longer; only a head at the field
 * limit gets no copy (it passes as it came).
 */
#include "rsp_guard.h"
#include "fuzz_util.h"

#define S0 0xfffffc00u	/* near the wrap: sequence arithmetic is tested */
#define A0 0x7ffffff0u	/* the request's first byte, on the backend */
#define MAX_SEGS 64
#define MAX_STREAM 8192

enum ref_end { REF_MORE, REF_DONE, REF_BAD, REF_UPGRADE };

struct ref {
	enum ref_end how;
	uint32_t end;	/* stream offset just past the response (DONE) */
	uint32_t head_from, head_to;	/* the final head (DONE) */
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
			return (struct ref){ REF_DONE, at, (uint32_t)r.start,
					     (uint32_t)r.start + r.head_len };
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
		return (struct ref){ REF_DONE, n, (uint32_t)r.start,
				     (uint32_t)r.start + r.head_len };
	return (struct ref){ REF_BAD, 0 };
}

static const uint8_t *peek(const void *ctx, uint32_t off, uint32_t n,
			   uint8_t *buf)
{
	(void)n;
	(void)buf;
	return (const uint8_t *)ctx + off;
}

static bool poke(const void *ctx, uint32_t off, const uint8_t *p, uint32_t n)
{
	memcpy((uint8_t *)ctx + off, p, n);
	return true;
}

struct run {
	struct l7_rsp_guard g;
	const uint8_t *d;
	uint32_t n;
	bool fin;
	struct ref ref;
	bool ended, bad, upgrade;
	bool asked;		/* the guard knows where the request begins */
	uint32_t contig;	/* bytes delivered in order from the start */
	bool fin_in;
	unsigned int took;	/* verdicts that ended the taking */
	uint8_t head[L7_RSP_HEAD_MAX];
	uint8_t copy[MAX_STREAM + L7_RSP_HEAD_MAX + L7_RSP_HEAD_GROWTH];
	uint8_t wire[MAX_STREAM];	/* the segment as forwarded */
	uint8_t view[MAX_STREAM];	/* what the client received */
	bool have[MAX_STREAM];
};

static void deliver(struct run *r, uint32_t from, uint32_t len)
{
	bool fin = r->fin && from + len == r->n;
	struct l7_rsp_seg s = {
		.seq = S0 + from,
		.len = len,
		.fin = fin,
		.peek = peek,
		.poke = poke,
		.ctx = r->wire,
	};
	struct l7_rsp_verdict v;
	uint32_t i;

	if (r->bad || r->upgrade || (!len && !fin))
		return;
	memcpy(r->wire, r->d + from, len);
	/*
	 * The same bytes as sent before the backend had the request: new
	 * ones are refused as nobody's response, and nothing moves.
	 */
	if (r->asked) {
		struct l7_rsp_guard before = r->g;

		s.has_ack = true;
		s.ack = A0 - (from & 0xff);
		v = l7_rsp_guard_seg(&r->g, &s);
		if (len && !before.tunnel && from + len > before.fed - S0) {
			FUZZ_ASSERT(v.act == L7_RSP_BAD && v.unsolicited);
			FUZZ_ASSERT(!memcmp(&before, &r->g, sizeof(before)));
		} else {
			r->g = before;	/* not judged: as if never sent */
		}
		memcpy(r->wire, r->d + from, len);	/* a poke's undone */
		s.ack = A0 + 1;	/* the real one acknowledges the request */
	}
	v = l7_rsp_guard_seg(&r->g, &s);
	FUZZ_ASSERT(v.skip <= len && (!v.skip || v.act == L7_RSP_FORWARD));
	r->took += v.took;
	if (v.act == L7_RSP_FORWARD)
		for (i = v.skip; i < len; i++)
			if (!r->have[from + i]) {
				r->have[from + i] = true;
				r->view[from + i] = r->wire[i];
			}
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

/* "\r\nconnection:" in any case, in the client's view of a head */
static bool view_has_connection(const struct run *r, uint32_t from,
				uint32_t to)
{
	static const char pat[] = "\r\nconnection:";
	uint32_t i, k;

	for (i = from; i + sizeof(pat) - 1 <= to; i++) {
		for (k = 0; k < sizeof(pat) - 1; k++)
			if (l7_to_lower(r->view[i + k]) != (uint8_t)pat[k])
				break;
		if (k == sizeof(pat) - 1)
			return true;
	}
	return false;
}

/* What a client gets when the guard took the head (see the top). */
static void check_taken(struct run *r, enum l7_http_method m)
{
	uint32_t i, n, end;
	struct ref seen;
	bool copied;

	FUZZ_ASSERT(r->took <= 1);
	if (!r->g.taken)
		return;
	FUZZ_ASSERT(r->g.taken <= L7_RSP_HEAD_MAX && r->g.taken <= r->n &&
		    !memcmp(r->head, r->d, r->g.taken));
	for (i = 0; i < r->g.taken; i++)
		FUZZ_ASSERT(!r->have[i]);
	if (!r->ended)
		return;
	FUZZ_ASSERT(r->took == 1 && (r->g.taken_whole || r->g.take_over));
	n = 0;
	if (r->g.taken_whole) {
		n = l7_rsp_head_copy(r->copy, r->head, r->g.taken, &r->g.resp,
				     r->g.take_close);
		FUZZ_ASSERT(n <= r->g.taken + L7_RSP_HEAD_GROWTH);
		/* no copy only for a head at the field limit */
		FUZZ_ASSERT(n || r->g.resp.header_count ==
				 L7_RESP_DEFAULT_MAX_HEADERS);
	}
	copied = n;
	if (!copied) {
		/* as the caller does: the head as it came, then close */
		memcpy(r->copy, r->head, r->g.taken);
		n = r->g.taken;
	}
	end = r->ref.end;
	memcpy(r->copy + n, r->view + r->g.taken, end - r->g.taken);
	seen = reference(r->copy, n + end - r->g.taken, m,
			 r->fin && end == r->n);
	FUZZ_ASSERT(seen.how == REF_DONE && seen.end == n + end - r->g.taken);
	if (copied) {
		struct l7_http_resp c;
		enum l7_resp_status st;
		size_t used, at = 0;

		l7_http_resp_init(&c, NULL, m);
		do {
			st = l7_http_resp_feed(&c, r->copy + at, n - at, &used);
			at += used;
		} while (st == L7_RESP_INTERIM);
		FUZZ_ASSERT((st == L7_RESP_HEAD || st == L7_RESP_DONE) &&
			    at == n &&
			    l7_rsp_head_keeps_client(&c, r->g.take_close) &&
			    c.body == r->g.resp.body &&
			    c.content_length == r->g.resp.content_length);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct run r;
	uint32_t seed, i, nsegs;
	enum l7_http_method m;

	if (size < FUZZ_CTL_BYTES)
		return 0;
	if (size - FUZZ_CTL_BYTES > MAX_STREAM)
		return 0;
	memset(&r, 0, sizeof(r));
	m = (data[0] & 1) ? L7_HTTP_M_HEAD : L7_HTTP_M_GET;
	r.fin = data[0] & 2;
	nsegs = data[1] % MAX_SEGS;
	seed = (uint32_t)data[2] << 8 | data[3];
	r.d = data + FUZZ_CTL_BYTES;
	r.n = (uint32_t)(size - FUZZ_CTL_BYTES);
	r.ref = reference(r.d, r.n, m, r.fin);
	l7_rsp_guard_init(&r.g, S0, m, (data[0] & 4) && !(data[0] & 8));
	if (data[0] & 8)
		l7_rsp_guard_take(&r.g, r.head, data[0] & 16);
	r.asked = data[0] & 32;
	if (r.asked)
		l7_rsp_guard_asked(&r.g, A0);

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
		/* no tunnel from a head the director took */
		FUZZ_ASSERT(r.g.head ? r.bad : r.upgrade);
		break;
	case REF_MORE:
		FUZZ_ASSERT(!r.ended && !r.bad && !r.upgrade);
		break;
	}
	if (r.ended && !r.g.taken) {
		/* cloaking moves no boundary: the client frames the same */
		struct ref seen = reference(r.view, r.ref.end, m,
					    r.fin && r.ref.end == r.n);

		FUZZ_ASSERT(seen.how == REF_DONE && seen.end == r.ref.end);
		if (r.g.cloak && !r.g.cloak_missed)
			FUZZ_ASSERT(!view_has_connection(&r, r.ref.head_from,
							 r.ref.head_to));
	}
	if (r.g.head)
		check_taken(&r, m);
	return 0;
}
