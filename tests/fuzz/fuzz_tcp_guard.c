// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for core/tcp_guard.c: the option sanitizer of
 * forwarded segments.
 *
 * Control bytes: [0] bit 0 the segment is a SYN; [1..3] unused.  The
 * rest, up to 40 bytes, is the option area.
 *
 * When the sanitizer refuses an area (the segment is dropped), the area
 * must be as it was.  When it accepts one, the area keeps its length and
 * linux_view() - a reading written after Linux's tcp_parse_options(),
 * which is what a backend or client runs - must find in it only the
 * forwarded kinds (TS and SACK; MSS, WS, SACK_PERM on a SYN), with the
 * very TS values and SACK blocks the director parsed; the bytes of those
 * options must be untouched; and a second pass must change nothing.
 */
#include "tcp_guard.h"
#include "fuzz_util.h"

struct linux_view {
	unsigned int kinds;	/* bit k: kind k (< 32) seen */
	bool other;		/* a kind >= 32 seen */
	bool ts;
	uint32_t tsval, tsecr;
	unsigned int sack_len;
	const uint8_t *sack;
};

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* Linux's loop: stop at EOL, at a silly or partial option. */
static void linux_view(const uint8_t *p, int length, struct linux_view *v)
{
	memset(v, 0, sizeof(*v));
	while (length > 0) {
		int opcode = *p++, opsize;

		if (opcode == 0)
			return;
		if (opcode == 1) {
			length--;
			continue;
		}
		if (length < 2)
			return;
		opsize = *p++;
		if (opsize < 2 || opsize > length)
			return;
		if (opcode < 32)
			v->kinds |= 1u << opcode;
		else
			v->other = true;
		if (opcode == 8 && opsize == 10) {
			v->ts = true;
			v->tsval = be32(p);
			v->tsecr = be32(p + 4);
		}
		if (opcode == 5) {
			v->sack = p;
			v->sack_len = (unsigned int)opsize - 2;
		}
		p += opsize - 2;
		length -= opsize;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t area[L7_TCP_OPT_MAX_LEN], again[L7_TCP_OPT_MAX_LEN];
	unsigned int allowed = 1u << 8 | 1u << 5, len, i;
	struct l7_tcp_opts o, o2;
	struct linux_view v;
	bool syn;
	int rc;

	if (size < FUZZ_CTL_BYTES)
		return 0;
	syn = data[0] & 1;
	if (syn)
		allowed |= 1u << 2 | 1u << 3 | 1u << 4;
	len = (unsigned int)(size - FUZZ_CTL_BYTES);
	if (len > L7_TCP_OPT_MAX_LEN)
		len = L7_TCP_OPT_MAX_LEN;
	memcpy(area, data + FUZZ_CTL_BYTES, len);

	rc = l7_tcp_opts_sanitize(area, len, syn, &o);
	if (rc < 0) {
		FUZZ_ASSERT(!memcmp(area, data + FUZZ_CTL_BYTES, len));
		return 0;
	}
	FUZZ_ASSERT((unsigned int)rc <= len);

	linux_view(area, (int)len, &v);
	FUZZ_ASSERT(!v.other && !(v.kinds & ~allowed));
	FUZZ_ASSERT(v.ts == !!(o.present & L7_TCPO_TS));
	FUZZ_ASSERT(!v.ts || (v.tsval == o.tsval && v.tsecr == o.tsecr));
	FUZZ_ASSERT(!(o.present & L7_TCPO_SACK) ||
		    v.sack_len == 8 * o.sack_count);
	for (i = 0; v.sack && i < o.sack_count; i++)
		FUZZ_ASSERT(be32(v.sack + 8 * i) == o.sack[i].start &&
			    be32(v.sack + 8 * i + 4) == o.sack[i].end);
	/* the forwarded options' bytes are the client's own */
	if (o.present & L7_TCPO_TS)
		FUZZ_ASSERT(!memcmp(area + o.off_ts,
				    data + FUZZ_CTL_BYTES + o.off_ts, 10));
	if (o.present & L7_TCPO_SACK)
		FUZZ_ASSERT(!memcmp(area + o.off_sack,
				    data + FUZZ_CTL_BYTES + o.off_sack,
				    2 + 8 * o.sack_count));

	memcpy(again, area, len);
	FUZZ_ASSERT(l7_tcp_opts_sanitize(again, len, syn, &o2) == 0);
	FUZZ_ASSERT(!memcmp(again, area, len) && o2.present == o.present);
	return 0;
}
