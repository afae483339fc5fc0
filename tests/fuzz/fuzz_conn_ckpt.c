// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for core/conn_ckpt.c, in two parts on every input.
 *
 * The input as a datagram's records (a count in its first two bytes, as
 * the header would give it): reading them never goes out of their bytes
 * (ASan), and records that read are written back byte for byte by the
 * writer: one encoding per datagram, nothing read that the writer would
 * not write.
 *
 * The input as a sequence of what a backup sees - UPSERTs and DELETEs of
 * a few tuples with small generations, client segments, time passing -
 * each record through the writer and the reader first, then the store,
 * held against a model of what the store promises:
 *   - an UPSERT is taken only if it is newer than anything ever offered
 *     for its tuple, a DELETE only if no older, and a record newer than
 *     anything offered at all is always taken; an UPSERT of the record
 *     held's generation, writer and boundary (a resend) refreshes it,
 *     and nothing else of that generation is taken;
 *   - a connection is adopted only from the newest record of its tuple,
 *     never after a DELETE of that generation or newer, never twice, and
 *     only by a segment that fits it exactly (checked here apart from
 *     l7_ckpt_match()); a refusal is only of a segment that does not;
 *   - side by side, a record whose owner lives sends every segment that
 *     does not fit it (any of a busy record's, a RST) on to that owner,
 *     the record kept; one that fits is adopted as above;
 *   - a segment out of the record's window (or a RST not at rcv_nxt)
 *     leaves the record, and is answered by its probe at most once per
 *     L7_CKPT_PROBE_GAP_MS; a record a takeover probed twice expires;
 *   - a generation at or past 2^63, or too far past the newest taken,
 *     is refused;
 *   - an UPSERT the store takes displaces a connection adopted from any
 *     record of its tuple offered before it; a resend displaces none
 *     adopted from the record it resends (l7_ckpt_displaces());
 *   - its TSval offset continues the writer's clock from the apply;
 *   - the store keeps to its caps and its hash and age lists agree.
 *
 * The input as one record's fields: if l7_ckpt_conn_valid() takes them,
 * the arithmetic the adopter does with them stays in range (segments of
 * at least 36 bytes, windows and spans below 2^31, the TSval clock after
 * ts_last), whatever segment then comes.
 *
 * Input: a control byte (caps, buckets), then records of 8 bytes: op
 * (and, above its 6 values, the UPSERT's owner or the live owners of a
 * segment), tuple, generation, then five bytes of arguments.
 */
#include "conn_ckpt.h"
#include "../unit/ckpt_held.h"
#include "tcp_accept.h"
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
	uint8_t owner;		/* the peer that sent ->conn */
	bool waited;		/* an answer past ->conn was waited out */
	uint32_t wait_at;	/* the first, if waited */
	bool probed;		/* a probe of ->conn went at probe_at */
	uint32_t probe_at;
	int probes;		/* the takeover's */
};

struct model {
	struct l7_ckpt_store s;
	struct l7_ckpt_slot slots[2 * MAX_CAP];
	uint32_t buckets[MAX_BUCKETS];
	struct model_tuple t[NTUPLES];
	uint64_t maxgen;	/* of any tuple */
	uint64_t newest;	/* of any record taken */
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

/* Small numbers, so that segments can hit them; always valid. */
static struct l7_ckpt_conn conn_of(int i, uint64_t gen, const uint8_t *a)
{
	uint32_t una = (uint32_t)a[1] << 24 | a[0];
	uint32_t nxt = (uint32_t)a[0] << 28 | a[1];
	int8_t ws = a[4] % 16 - 1;	/* -1 .. 14 */
	bool ts = a[4] & 0x10;
	struct l7_ckpt_conn c = {
		.t = tuple_of(i), .gen = gen,
		.rcv_nxt = nxt, .rcv_wup = nxt - a[2] % 4,
		.rcv_edge = nxt + 8 + a[3] % 64,
		.snd_una = una, .snd_nxt = una, .snd_isn = una - a[2],
		.ts_recent = ts ? (uint32_t)a[3] << 25 : 0,
		.ts_last = ts ? a[3] : 0, .ts_age = ts ? a[2] : 0,
		.mss = 1460, .win = 512,
		.c_wscale = ws, .d_wscale = ws < 0 ? -1 : 7,
		.ts = ts, .sack = a[4] & 0x20, .busy = a[4] & 0x40,
	};

	c.max_window = l7_win_bytes(c.win, ws);
	FUZZ_ASSERT(l7_ckpt_conn_valid(&c));
	return c;
}

/* The generation bound, written apart from the store's. */
static bool ahead(const struct model *m, uint64_t gen)
{
	return gen >= 1ull << 63 ||
	       (m->newest && gen > m->newest && gen - m->newest > 1ull << 56);
}

static void m_upsert(struct model *m, int i, uint64_t gen, uint8_t from,
		     const uint8_t *a)
{
	struct model_tuple *mt = &m->t[i];
	struct l7_ckpt_conn c = conn_of(i, gen, a);
	struct l7_ckpt_rec r = via_wire(L7_CKPT_UPSERT, &c);
	uint64_t n_ahead = m->s.stats.ahead;
	enum l7_ckpt_applied v;

	/*
	 * Its writer's resend of the record the model has at that
	 * generation, the same boundary - if the store still holds it (not
	 * pushed out by its caps).
	 */
	bool resend = gen == mt->maxgen && mt->have && !mt->dead &&
		      from == mt->owner && !c.busy && !mt->conn.busy &&
		      c.rcv_nxt == mt->conn.rcv_nxt &&
		      c.snd_nxt == mt->conn.snd_nxt && held(&m->s, &c.t);

	r.from = from;
	v = l7_ckpt_apply(&m->s, &r, m->now);
	FUZZ_ASSERT(v == L7_CKPT_STORED || v == L7_CKPT_STALE ||
		    v == L7_CKPT_REFRESHED);
	FUZZ_ASSERT(m->s.stats.ahead - n_ahead == ahead(m, gen));
	if (ahead(m, gen)) {
		FUZZ_ASSERT(v == L7_CKPT_STALE);
		return;
	}
	FUZZ_ASSERT((v == L7_CKPT_REFRESHED) == resend);
	if (resend) {
		/* a copy adopted from the record it resends stays */
		FUZZ_ASSERT(!l7_ckpt_displaces(&r.conn, mt->maxgen, true,
					       false));
		mt->conn = c;
		mt->applied_at = m->now;
		return;
	}
	/*
	 * What the store takes displaces, at a boundary, a copy of the
	 * connection adopted from any record offered before it.
	 */
	if (v == L7_CKPT_STORED)
		FUZZ_ASSERT(gen > mt->maxgen &&
			    l7_ckpt_displaces(&r.conn, mt->maxgen, true,
					      false) &&
			    !l7_ckpt_displaces(&r.conn, gen, true, false));
	if (gen > m->maxgen)
		FUZZ_ASSERT(v == L7_CKPT_STORED);
	if (v == L7_CKPT_STORED && gen > m->newest)
		m->newest = gen;
	FUZZ_ASSERT(m->s.newest == m->newest && m->s.floor <= m->newest);
	if (gen > mt->maxgen) {
		*mt = (struct model_tuple){ .maxgen = gen, .have = true,
					    .conn = c, .owner = from,
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
	if (ahead(m, gen)) {
		FUZZ_ASSERT(v == L7_CKPT_STALE);
		return;
	}
	if (v == L7_CKPT_DELETED)
		FUZZ_ASSERT(newer);
	if (gen > m->maxgen)
		FUZZ_ASSERT(v == L7_CKPT_DELETED);
	if (v == L7_CKPT_DELETED && gen > m->newest)
		m->newest = gen;
	FUZZ_ASSERT(m->s.newest == m->newest && m->s.floor <= m->newest);
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

/* May @g end its record: its seq in [rcv_wup, rcv_edge], a RST exact. */
static bool in_window(const struct l7_ckpt_conn *c,
		      const struct l7_ckpt_seg *g)
{
	if (g->flags & L7_TCPF_RST)
		return g->seq == c->rcv_nxt;
	return g->seq - c->rcv_wup <= c->rcv_edge - c->rcv_wup;
}

static const uint8_t seg_flags[] = {
	L7_TCPF_ACK, L7_TCPF_ACK | L7_TCPF_PSH, L7_TCPF_ACK | L7_TCPF_FIN,
	L7_TCPF_PSH, L7_TCPF_SYN | L7_TCPF_ACK, L7_TCPF_RST | L7_TCPF_ACK,
	L7_TCPF_RST,
};

static void m_adopt(struct model *m, int i, uint32_t live, const uint8_t *a)
{
	struct model_tuple *mt = &m->t[i];
	const struct l7_ckpt_conn *c = &mt->conn;
	struct l7_ckpt_seg g = {
		.t = tuple_of(i),
		.seq = c->rcv_nxt + (a[0] % 4 ? 0 : a[0] / 4 - 32) +
		       (a[4] & 4 ? 1u << 31 : 0),
		.ack = c->snd_una + a[1] % 10 - 1,
		.tsval = c->ts_recent + (int8_t)a[2],
		.flags = seg_flags[a[3] % sizeof(seg_flags)],
		.has_ts = !(a[4] & 1),
		.len = a[4] & 2 ? a[2] : 0,
	};
	struct l7_ckpt_slot out;
	enum l7_ckpt_verdict v;
	bool again;

	FUZZ_ASSERT(l7_ckpt_match(c, &g) == fits(c, &g));
	FUZZ_ASSERT(l7_ckpt_past(c, &g) == past(c, &g));
	v = l7_ckpt_claim(&m->s, &g, m->now, live, &out);
	if (v == L7_CKPT_NONE)
		return;
	FUZZ_ASSERT(mt->have && !mt->dead);
	if ((live & 1u << mt->owner) && (c->busy || !fits(c, &g))) {
		FUZZ_ASSERT(v == L7_CKPT_FORWARD && out.owner == mt->owner &&
			    out.conn.gen == mt->maxgen);
		FUZZ_ASSERT(held(&m->s, &g.t));
		return;
	}
	FUZZ_ASSERT(v != L7_CKPT_FORWARD);
	if (!in_window(c, &g)) {
		bool may = !mt->probed ||
			   m->now - mt->probe_at >= L7_CKPT_PROBE_GAP_MS;

		FUZZ_ASSERT(v == (may ? L7_CKPT_PROBE : L7_CKPT_WAIT));
		FUZZ_ASSERT(held(&m->s, &g.t));
		if (may) {
			FUZZ_ASSERT(out.conn.gen == mt->maxgen &&
				    out.conn.rcv_nxt == c->rcv_nxt);
			mt->probed = true;
			mt->probe_at = m->now;
		}
		return;
	}
	FUZZ_ASSERT(v != L7_CKPT_PROBE);
	if (c->busy) {
		/* never adopted, never waited on: its client is reset */
		FUZZ_ASSERT(v == L7_CKPT_REFUSE);
		mt->dead = true;
		FUZZ_ASSERT(!held(&m->s, &g.t));
		return;
	}
	/* waited out: the first answer past it, and any within the gap */
	again = mt->waited && m->now - mt->wait_at < L7_CKPT_PAST_GAP_MS;
	if (v == L7_CKPT_WAIT) {
		FUZZ_ASSERT(past(c, &g) && (!mt->waited || again));
		FUZZ_ASSERT(held(&m->s, &g.t));
		if (!mt->waited)
			mt->wait_at = m->now;
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
			    (!past(c, &g) || (mt->waited && !again)));
	}
	mt->dead = true;
	FUZZ_ASSERT(!held(&m->s, &g.t));
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

static int tuple_index(const struct l7_ckpt_tuple *t)
{
	int i;

	for (i = 0; i < NTUPLES; i++) {
		struct l7_ckpt_tuple u = tuple_of(i);

		if (!memcmp(&u, t, sizeof(u)))
			return i;
	}
	FUZZ_ASSERT(0);
	return 0;
}

/*
 * A takeover's sweep in steps of @step slots: each record once, marked
 * probed - or, @expire, buried if probed twice before.
 */
static void m_sweep(struct model *m, uint32_t step, bool expire)
{
	struct l7_ckpt_slot out[2 * MAX_CAP];
	uint32_t idx[2 * MAX_CAP], cursor = 0, n, k, found = 0;
	uint32_t recs = m->s.recs.count;

	while (cursor < l7_ckpt_slots(&m->s)) {
		n = l7_ckpt_walk(&m->s, &cursor, step, out, idx, 2 * MAX_CAP);
		FUZZ_ASSERT(n <= step);
		found += n;
		for (k = 0; k < n; k++) {
			struct model_tuple *mt =
				&m->t[tuple_index(&out[k].conn.t)];

			FUZZ_ASSERT(mt->have && !mt->dead &&
				    out[k].conn.gen == mt->maxgen);
			if (expire) {
				bool gone = l7_ckpt_expire(&m->s, idx[k],
							   &out[k].conn);

				FUZZ_ASSERT(gone == (mt->probes >= 2));
				if (gone)
					mt->dead = true;
				continue;
			}
			FUZZ_ASSERT(l7_ckpt_probe_mark(&m->s, idx[k],
						       &out[k].conn, m->now));
			mt->probes++;
			mt->probed = true;
			mt->probe_at = m->now;
		}
	}
	FUZZ_ASSERT(found == recs);
}

/* A generation from @b: mostly small, sometimes at the bounds. */
static uint64_t gen_of(const struct model *m, uint8_t b)
{
	switch (b) {
	case 255:
		return 1ull << 63;
	case 254:
		return (1ull << 63) - 1;
	case 253:
		return m->newest + (1ull << 56) + 1;
	case 252:
		return m->newest + (1ull << 56);
	default:
		return 1 + b % 64;
	}
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
		uint64_t gen = gen_of(&m, op[2]);
		bool refused = ahead(&m, gen);

		switch (op[0] % 6) {
		case 0:
			m_upsert(&m, i, gen, op[0] / 6 % 3, op + 3);
			break;
		case 1:
			m_delete(&m, i, gen);
			break;
		case 2:
			m_adopt(&m, i, op[0] / 6 % 8, op + 3);
			break;
		case 3:
			m.now += (uint32_t)op[3] << 8 | op[4];
			break;
		case 4:
			m_sweep(&m, 1 + op[3] % 3, false);
			break;
		case 5:
			m_sweep(&m, 1 + op[3] % 3, true);
			break;
		}
		if (gen > m.maxgen && op[0] % 6 < 2 && !refused)
			m.maxgen = gen;
		check_store(&m);
	}
}

/* ---- the input as one record's fields ---- */

static uint32_t take32(const uint8_t **p)
{
	uint32_t v;

	memcpy(&v, *p, sizeof(v));
	*p += sizeof(v);
	return v;
}

/*
 * Whatever fields l7_ckpt_conn_valid() takes, the adopter's arithmetic
 * with them stays in range: it cuts responses into segments of mss less
 * 12 (l7_forward(), l7_rsp_copy_xmit()), compares sequence numbers
 * modulo 2^32 against the windows (tcp_accept.c), and sends TSvals from
 * the record's clock.
 */
static void record_arith(const uint8_t *data, size_t size)
{
	struct l7_ckpt_conn c = { .t = tuple_of(0), .gen = 1 };
	const uint8_t *p = data;
	struct l7_tcp_endpoint e;
	struct l7_seg_bounds b;
	struct l7_tcp_accept v;
	struct l7_tcp_in in;
	uint32_t pay, now;

	if (size < 76)	/* 56 bytes of fields, 20 of what comes after */
		return;
	c.rcv_nxt = take32(&p);
	c.rcv_wup = take32(&p);
	c.rcv_edge = take32(&p);
	c.snd_una = take32(&p);
	c.snd_nxt = take32(&p);
	c.snd_isn = take32(&p);
	c.snd_wl1 = take32(&p);
	c.max_window = take32(&p);
	c.ts_recent = take32(&p);
	c.ts_last = take32(&p);
	c.ts_age = take32(&p);
	c.win = (uint16_t)take32(&p);
	c.mss = (uint16_t)take32(&p);
	c.c_wscale = (int8_t)p[0];
	c.d_wscale = (int8_t)p[1];
	c.ts = p[2] & 1;
	c.sack = p[2] & 2;
	p += 4;
	if (!l7_ckpt_conn_valid(&c))
		return;

	/* segments: never 0 bytes (a division), never more than 1821 */
	pay = c.mss - 12u;
	FUZZ_ASSERT(c.mss >= 48 && pay >= 36 && (65535 + pay - 1) / pay <= 1821);

	e = (struct l7_tcp_endpoint){
		.rcv_nxt = c.rcv_nxt, .rcv_wup = c.rcv_wup,
		.rcv_edge = c.rcv_edge, .snd_una = c.snd_una,
		.snd_nxt = c.snd_nxt, .snd_isn = c.snd_isn,
		.snd_wnd = l7_win_bytes(c.win, c.c_wscale),
		.snd_wl1 = c.snd_wl1, .max_window = c.max_window,
		.ts_recent = c.ts_recent, .snd_wscale = c.c_wscale, .ts = c.ts,
	};
	b = l7_tcp_accept_bounds(&e);
	/* what a live connection accepts is less than half the number space */
	FUZZ_ASSERT(b.seq.hi - b.seq.lo < 1u << 31 &&
		    b.ack.hi - b.ack.lo < 1u << 31);
	FUZZ_ASSERT(l7_seq_between(c.rcv_nxt, b.seq.lo, b.seq.hi) &&
		    l7_seq_between(c.snd_nxt, b.ack.lo, b.ack.hi));
	FUZZ_ASSERT(e.snd_wnd <= e.max_window);

	/* the TSval the adopter sends at the apply is the writer's, after */
	now = take32(&p);
	FUZZ_ASSERT(!c.ts || (int32_t)(now + l7_ckpt_ts_offset(&c, now) -
				       c.ts_last) >= 0);

	/* and any segment keeps it so */
	in = (struct l7_tcp_in){
		.seq = c.rcv_nxt + take32(&p) % 4096 - 2048,
		.ack = c.snd_nxt + take32(&p) % 4096 - 2048,
		.len = p[0], .tsval = c.ts_recent + p[1] - 128,
		.win = (uint16_t)(p[2] << 8 | p[3]),
		.flags = p[4], .ts = c.ts,
	};
	v = l7_tcp_accept(&e, &in);
	l7_tcp_accept_apply(&e, &in, &v);
	FUZZ_ASSERT(e.max_window <= L7_CKPT_MAX_WINDOW &&
		    e.snd_wnd <= e.max_window);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	datagram_round_trip(data, size);
	ops(data, size);
	record_arith(data, size);
	return 0;
}
