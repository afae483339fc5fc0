// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for core/conn_ckpt.c, in two parts on every input.
 *
 * The input as a checkpoint datagram: reading it never goes out of its
 * bytes (ASan), and one that reads is written back byte for byte by the
 * writer (the HMAC field aside, which the channel owns): one encoding
 * per datagram, nothing read that the writer would not write.
 *
 * The input as a sequence of what a backup sees - UPSERTs and DELETEs of
 * a few tuples with small generations, client segments, time passing -
 * each record through the writer and the reader first, then the store,
 * held against a model of what the store promises:
 *   - an UPSERT is taken only if it is newer than anything ever offered
 *     for its tuple, a DELETE only if no older, and a record newer than
 *     anything offered at all is always taken;
 *   - a connection is adopted only from the newest record of its tuple,
 *     never after a DELETE of that generation or newer, never twice, and
 *     only by a segment that fits it exactly (checked here apart from
 *     l7_ckpt_match()); a refusal is only of a segment that does not;
 *   - its TSval offset continues the writer's clock from the apply;
 *   - the store keeps to its caps and its hash and age lists agree.
 *
 * Input: a control byte (caps, buckets), then records of 8 bytes: op,
 * tuple, generation, then five bytes of arguments.
 */
#include "conn_ckpt.h"
#include "tcp_guard.h"
#include "fuzz_util.h"

#define NTUPLES		6
#define OP_LEN		8
#define MAX_CAP		4
#define MAX_BUCKETS	4

struct model_tuple {
	uint64_t maxgen;	/* newest generation offered */
	bool dead;		/* at maxgen: a DELETE, or adopted/refused */
	bool have;		/* ->conn is the UPSERT at maxgen */
	struct l7_ckpt_conn conn;
	uint32_t applied_at;	/* now_ms when ->conn was taken */
	bool waited;		/* an answer past ->conn was waited out */
};

struct model {
	struct l7_ckpt_store s;
	struct l7_ckpt_slot slots[2 * MAX_CAP];
	uint32_t buckets[MAX_BUCKETS];
	struct model_tuple t[NTUPLES];
	uint64_t maxgen;	/* of any tuple */
	uint32_t now;
};

/* ---- the input as a datagram ---- */

static void datagram_round_trip(const uint8_t *data, size_t size)
{
	static uint8_t out[20000];
	struct l7_ckpt_writer w;
	struct l7_ckpt_reader r;
	struct l7_ckpt_rec rec;
	uint16_t count;
	size_t len;

	/* the first two bytes: the count a datagram's header would give */
	if (size < 2 || size - 2 > sizeof(out))
		return;
	count = (uint16_t)(data[0] << 8 | data[1]);
	data += 2;
	size -= 2;
	if (l7_ckpt_read_begin(&r, data, size, count))
		return;
	l7_ckpt_write_begin(&w, out, size);
	while (l7_ckpt_read_next(&r, &rec))
		FUZZ_ASSERT(l7_ckpt_write_rec(&w, &rec));
	FUZZ_ASSERT(w.count == count);
	len = l7_ckpt_write_end(&w);
	FUZZ_ASSERT(len == size && !memcmp(out, data, size));
}

/* ---- the input as what a backup sees ---- */

static struct l7_ckpt_tuple tuple_of(int i)
{
	struct l7_ckpt_tuple t = {
		.family = i & 1 ? 6 : 4, .cport = 1000 + i / 2, .vport = 80,
	};

	t.caddr[0] = 10;
	t.caddr[3] = i / 2;	/* IPv4 and IPv6 alike in the first bytes */
	t.vaddr[0] = 192;
	if (t.family == 6)
		t.caddr[15] = 1;
	return t;
}

/* A record of @kind through the writer and the reader, as on the wire. */
static struct l7_ckpt_rec via_wire(enum l7_ckpt_kind kind,
				   const struct l7_ckpt_conn *c)
{
	struct l7_ckpt_rec in = { .kind = kind, .conn = *c }, out;
	struct l7_ckpt_writer w;
	struct l7_ckpt_reader r;
	uint8_t buf[L7_CKPT_REC_MAX];
	size_t len;

	l7_ckpt_write_begin(&w, buf, sizeof(buf));
	FUZZ_ASSERT(l7_ckpt_write_rec(&w, &in));
	len = l7_ckpt_write_end(&w);
	FUZZ_ASSERT(!l7_ckpt_read_begin(&r, buf, len, 1));
	FUZZ_ASSERT(l7_ckpt_read_next(&r, &out));
	FUZZ_ASSERT(!l7_ckpt_read_next(&r, &out));
	FUZZ_ASSERT(out.kind == kind && out.conn.gen == c->gen &&
		    !memcmp(&out.conn.t, &c->t, sizeof(c->t)));
	if (kind == L7_CKPT_UPSERT)
		FUZZ_ASSERT(out.conn.rcv_nxt == c->rcv_nxt &&
			    out.conn.snd_una == c->snd_una &&
			    out.conn.snd_nxt == c->snd_nxt &&
			    out.conn.ts_recent == c->ts_recent &&
			    out.conn.ts == c->ts &&
			    out.conn.ts_age == c->ts_age);
	return out;
}

/* Small numbers, so that segments can hit them. */
static struct l7_ckpt_conn conn_of(int i, uint64_t gen, const uint8_t *a)
{
	uint32_t una = (uint32_t)a[1] << 24 | a[0];
	int8_t ws = a[4] % 16 - 1;	/* -1 .. 14 */

	return (struct l7_ckpt_conn){
		.t = tuple_of(i), .gen = gen,
		.rcv_nxt = (uint32_t)a[0] << 28 | a[1], .rcv_wup = 0,
		.snd_una = una, .snd_nxt = una + a[2] % 8,
		.ts_recent = (uint32_t)a[3] << 25, .ts_last = a[3],
		.ts_age = a[2], .mss = 1460, .win = 512,
		.c_wscale = ws, .d_wscale = ws < 0 ? -1 : 7,
		.ts = a[4] & 0x10, .sack = a[4] & 0x20,
	};
}

static void m_upsert(struct model *m, int i, uint64_t gen, const uint8_t *a)
{
	struct model_tuple *mt = &m->t[i];
	struct l7_ckpt_conn c = conn_of(i, gen, a);
	struct l7_ckpt_rec r = via_wire(L7_CKPT_UPSERT, &c);
	enum l7_ckpt_applied v = l7_ckpt_apply(&m->s, &r, m->now);

	FUZZ_ASSERT(v == L7_CKPT_STORED || v == L7_CKPT_STALE);
	if (v == L7_CKPT_STORED)
		FUZZ_ASSERT(gen > mt->maxgen);
	if (gen > m->maxgen)
		FUZZ_ASSERT(v == L7_CKPT_STORED);
	if (gen > mt->maxgen) {
		*mt = (struct model_tuple){ .maxgen = gen, .have = true,
					    .conn = c,
					    .applied_at = m->now };
	}
}

static void m_delete(struct model *m, int i, uint64_t gen)
{
	struct model_tuple *mt = &m->t[i];
	struct l7_ckpt_conn c = { .t = tuple_of(i), .gen = gen };
	struct l7_ckpt_rec r = via_wire(L7_CKPT_DELETE, &c);
	enum l7_ckpt_applied v = l7_ckpt_apply(&m->s, &r, m->now);
	bool newer = gen > mt->maxgen || (gen == mt->maxgen && !mt->dead);

	FUZZ_ASSERT(v == L7_CKPT_DELETED || v == L7_CKPT_STALE);
	if (v == L7_CKPT_DELETED)
		FUZZ_ASSERT(newer);
	if (gen > m->maxgen)
		FUZZ_ASSERT(v == L7_CKPT_DELETED);
	if (newer)
		*mt = (struct model_tuple){ .maxgen = gen, .dead = true };
}

/* The adoption rule, written apart from l7_ckpt_match(). */
static bool fits(const struct l7_ckpt_conn *c, const struct l7_ckpt_seg *g)
{
	if (!(g->flags & L7_TCPF_ACK) ||
	    (g->flags & (L7_TCPF_SYN | L7_TCPF_RST)))
		return false;
	if (g->seq != c->rcv_nxt ||
	    g->ack - c->snd_una > c->snd_nxt - c->snd_una)
		return false;
	return !c->ts || (g->has_ts && (int32_t)(g->tsval - c->ts_recent) >= 0);
}

/* A bare ACK past rcv_nxt in the window, else fitting: waited out once. */
static bool past(const struct l7_ckpt_conn *c, const struct l7_ckpt_seg *g)
{
	struct l7_ckpt_seg at = *g;

	if (g->len || g->flags != L7_TCPF_ACK || g->seq == c->rcv_nxt ||
	    g->seq - c->rcv_nxt > c->rcv_edge - c->rcv_nxt)
		return false;
	at.seq = c->rcv_nxt;
	return fits(c, &at);
}

static const uint8_t seg_flags[] = {
	L7_TCPF_ACK, L7_TCPF_ACK | L7_TCPF_PSH, L7_TCPF_ACK | L7_TCPF_FIN,
	L7_TCPF_PSH, L7_TCPF_SYN | L7_TCPF_ACK, L7_TCPF_RST | L7_TCPF_ACK,
};

static void m_adopt(struct model *m, int i, const uint8_t *a)
{
	struct model_tuple *mt = &m->t[i];
	const struct l7_ckpt_conn *c = &mt->conn;
	struct l7_ckpt_seg g = {
		.t = tuple_of(i),
		.seq = c->rcv_nxt + (a[0] % 4 ? 0 : a[0] / 4 - 32),
		.ack = c->snd_una + a[1] % 10 - 1,
		.tsval = c->ts_recent + (int8_t)a[2],
		.flags = seg_flags[a[3] % sizeof(seg_flags)],
		.has_ts = !(a[4] & 1),
		.len = a[4] & 2 ? a[2] : 0,
	};
	struct l7_ckpt_slot out;
	enum l7_ckpt_verdict v;

	FUZZ_ASSERT(l7_ckpt_match(c, &g) == fits(c, &g));
	FUZZ_ASSERT(l7_ckpt_past(c, &g) == past(c, &g));
	v = l7_ckpt_adopt(&m->s, &g, &out);
	if (v == L7_CKPT_NONE)
		return;
	FUZZ_ASSERT(mt->have && !mt->dead);
	if (v == L7_CKPT_WAIT) {
		FUZZ_ASSERT(past(c, &g) && !mt->waited);
		FUZZ_ASSERT(l7_ckpt_lookup(&m->s, &g.t));
		mt->waited = true;
		return;
	}
	if (v == L7_CKPT_ADOPT) {
		FUZZ_ASSERT(fits(c, &g));
		FUZZ_ASSERT(out.conn.gen == mt->maxgen &&
			    out.conn.rcv_nxt == c->rcv_nxt &&
			    out.conn.snd_nxt == c->snd_nxt &&
			    out.conn.ts_recent == c->ts_recent);
		FUZZ_ASSERT(mt->applied_at + out.ts_off ==
			    c->ts_last + c->ts_age);
	} else {
		FUZZ_ASSERT(v == L7_CKPT_REFUSE && !fits(c, &g) &&
			    (!past(c, &g) || mt->waited));
	}
	mt->dead = true;
	FUZZ_ASSERT(!l7_ckpt_lookup(&m->s, &g.t));
}

/* Walk @l: its length, each of its slots of its kind and hashed. */
static uint32_t list_walk(const struct l7_ckpt_store *s,
			  const struct l7_ckpt_list *l, bool tomb)
{
	uint32_t i, n = 0, prev = L7_CKPT_NIL;

	for (i = l->head; i != L7_CKPT_NIL; i = s->slots[i].next) {
		FUZZ_ASSERT(n++ < 2 * MAX_CAP);
		FUZZ_ASSERT(s->slots[i].tomb == tomb);
		FUZZ_ASSERT(s->slots[i].prev == prev);
		FUZZ_ASSERT(tomb || s->slots[i].conn.gen > 0);
		prev = i;
	}
	FUZZ_ASSERT(l->tail == prev);
	return n;
}

static void check_store(const struct model *m)
{
	const struct l7_ckpt_store *s = &m->s;
	uint32_t b, i, hashed = 0;

	FUZZ_ASSERT(s->recs.count <= s->rec_cap);
	FUZZ_ASSERT(s->tombs.count <= s->tomb_cap);
	FUZZ_ASSERT(list_walk(s, &s->recs, false) == s->recs.count);
	FUZZ_ASSERT(list_walk(s, &s->tombs, true) == s->tombs.count);
	for (b = 0; b < s->nbuckets; b++)
		for (i = s->buckets[b]; i != L7_CKPT_NIL; i = s->slots[i].hnext)
			FUZZ_ASSERT(hashed++ < 2 * MAX_CAP);
	FUZZ_ASSERT(hashed == s->recs.count + s->tombs.count);
	/* the walk by index the takeover's probe does finds every record */
	for (i = 0, hashed = 0; i < s->rec_cap + s->tomb_cap + 2; i++)
		hashed += l7_ckpt_slot_live(s, i);
	FUZZ_ASSERT(hashed == s->recs.count);
}

static void ops(const uint8_t *data, size_t size)
{
	static const uint64_t key[2] = { 1, 2 };
	static struct model m;
	uint8_t ctl = size ? data[0] : 0;
	size_t at;

	memset(&m, 0, sizeof(m));
	m.now = 0xfffff000u;	/* the clock wraps */
	FUZZ_ASSERT(!l7_ckpt_store_init(&m.s, m.slots, 1 + ctl % MAX_CAP,
					1 + ctl / MAX_CAP % MAX_CAP, m.buckets,
					1u << (ctl >> 4) % 3, key));
	for (at = 1; at + OP_LEN <= size; at += OP_LEN) {
		const uint8_t *op = data + at;
		int i = op[1] % NTUPLES;
		uint64_t gen = 1 + op[2] % 64;

		switch (op[0] % 4) {
		case 0:
			m_upsert(&m, i, gen, op + 3);
			break;
		case 1:
			m_delete(&m, i, gen);
			break;
		case 2:
			m_adopt(&m, i, op + 3);
			break;
		case 3:
			m.now += (uint32_t)op[3] << 8 | op[4];
			break;
		}
		if (gen > m.maxgen && op[0] % 4 < 2)
			m.maxgen = gen;
		check_store(&m);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	datagram_round_trip(data, size);
	ops(data, size);
	return 0;
}
