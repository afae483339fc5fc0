// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/conn_ckpt.c: a checkpoint datagram reads back
 * as written, IPv4 and IPv6, and nothing short, long or out of range is
 * read at all; the backup's store keeps the newest record of a tuple,
 * never brings back one that a DELETE or a newer record outdated, keeps
 * to its caps and counts what it pushes out; a connection is adopted
 * only by a segment that fits its record exactly, and its record goes
 * either way.
 */
#include <string.h>

#include "conn_ckpt.h"
#include "ckpt_held.h"
#include "tcp_guard.h"
#include "l7_test.h"

#define MTU_PAYLOAD	1472	/* UDP over IPv4 at MTU 1500 */

static struct l7_ckpt_tuple tuple4(uint8_t host, uint16_t cport)
{
	struct l7_ckpt_tuple t = {
		.family = 4, .cport = cport, .vport = 80,
		.caddr = { 10, 0, 0, host }, .vaddr = { 192, 168, 1, 1 },
	};
	return t;
}

static struct l7_ckpt_tuple tuple6(uint16_t cport)
{
	struct l7_ckpt_tuple t = { .family = 6, .cport = cport, .vport = 443 };

	t.caddr[0] = 0x20;
	t.caddr[1] = 0x01;
	t.caddr[15] = 0x07;
	t.vaddr[0] = 0xfd;
	t.vaddr[15] = 0x01;
	return t;
}

/* Every field different, most of them with all four bytes in use. */
static struct l7_ckpt_conn conn_of(struct l7_ckpt_tuple t, uint64_t gen)
{
	return (struct l7_ckpt_conn){
		.t = t, .gen = gen,
		.rcv_nxt = 0x11223344, .rcv_wup = 0x11223340,
		.rcv_edge = 0x11233344, .snd_una = 0x00000010,
		.snd_nxt = 0x00000010, .snd_isn = 0xabcdef01,
		.snd_wl1 = 0x11220000, .max_window = 0x3fff8000,
		.ts_recent = 0x7fffffff, .ts_last = 0x80000001,
		.ts_age = 250, .requests = 41, .win = 0xfffe, .mss = 1460,
		.c_wscale = 7, .d_wscale = 14, .ts = true, .sack = true,
	};
}

static bool conn_eq(const struct l7_ckpt_conn *a, const struct l7_ckpt_conn *b)
{
	return !memcmp(&a->t, &b->t, sizeof(a->t)) && a->gen == b->gen &&
	       a->rcv_nxt == b->rcv_nxt && a->rcv_wup == b->rcv_wup &&
	       a->rcv_edge == b->rcv_edge && a->snd_una == b->snd_una &&
	       a->snd_nxt == b->snd_nxt && a->snd_isn == b->snd_isn &&
	       a->snd_wl1 == b->snd_wl1 && a->max_window == b->max_window &&
	       a->ts_recent == b->ts_recent && a->ts_last == b->ts_last &&
	       a->ts_age == b->ts_age && a->requests == b->requests &&
	       a->win == b->win && a->mss == b->mss &&
	       a->c_wscale == b->c_wscale && a->d_wscale == b->d_wscale &&
	       a->ts == b->ts && a->sack == b->sack && a->busy == b->busy;
}

static struct l7_ckpt_rec upsert(struct l7_ckpt_conn c)
{
	return (struct l7_ckpt_rec){ .kind = L7_CKPT_UPSERT, .conn = c };
}

static struct l7_ckpt_rec delete_of(struct l7_ckpt_tuple t, uint64_t gen)
{
	return (struct l7_ckpt_rec){
		.kind = L7_CKPT_DELETE, .conn = { .t = t, .gen = gen },
	};
}

/* the count of the records write_dgram() wrote last */
static uint16_t dgram_count;

/* A datagram's @n records into @buf: their length. */
static size_t write_dgram(uint8_t *buf, size_t cap,
			  const struct l7_ckpt_rec *recs, int n)
{
	struct l7_ckpt_writer w;
	int i;

	l7_ckpt_write_begin(&w, buf, cap);
	for (i = 0; i < n; i++)
		if (!l7_ckpt_write_rec(&w, &recs[i]))
			return 0;
	dgram_count = w.count;
	return l7_ckpt_write_end(&w);
}

static bool reads_n(const uint8_t *buf, size_t len, uint16_t count)
{
	struct l7_ckpt_reader r;

	return !l7_ckpt_read_begin(&r, buf, len, count);
}

static bool reads(const uint8_t *buf, size_t len)
{
	return reads_n(buf, len, dgram_count);
}

/* Three records of both families read back field for field. */
static void round_trip(void)
{
	struct l7_ckpt_rec in[3] = {
		upsert(conn_of(tuple4(7, 40000), 1)),
		upsert(conn_of(tuple6(50000), 0xfedcba9876543210ull)),
		delete_of(tuple6(50001), 3),
	};
	struct l7_ckpt_reader r;
	struct l7_ckpt_rec out;
	uint8_t buf[512];
	size_t len;
	int i;

	in[1].conn.c_wscale = -1;
	in[1].conn.d_wscale = -1;
	in[1].conn.ts = false;
	in[1].conn.ts_recent = 0;
	in[1].conn.ts_last = 0;
	in[1].conn.ts_age = 0;
	len = write_dgram(buf, sizeof(buf), in, 3);
	CHECK(len == 80 + 104 + 48, "len %zu", len);
	CHECK(!l7_ckpt_read_begin(&r, buf, len, 3), "read");
	for (i = 0; i < 3; i++) {
		CHECK(l7_ckpt_read_next(&r, &out), "record %d", i);
		CHECK(out.kind == in[i].kind, "kind %d", i);
		CHECK(conn_eq(&out.conn, &in[i].conn), "record %d differs", i);
	}
	CHECK(!l7_ckpt_read_next(&r, &out), "after the last");
}

/* The format is big-endian and fixed: fields where the header says. */
static void wire_layout(void)
{
	struct l7_ckpt_rec rec = upsert(conn_of(tuple4(7, 0x9c40), 0x0102));
	const uint8_t *p = NULL;
	uint8_t buf[256];
	size_t len = write_dgram(buf, sizeof(buf), &rec, 1);

	CHECK(len == 80, "len %zu", len);
	p = buf;
	CHECK(p[0] == 1 && p[1] == 4 && p[10] == 1 && p[11] == 2, "key");
	CHECK(p[12] == 0x9c && p[13] == 0x40 && p[16] == 10 && p[19] == 7,
	      "tuple");
	CHECK(p[24] == 0x11 && p[27] == 0x44, "rcv_nxt");
	CHECK(p[78] == (L7_CKPT_F_TS | L7_CKPT_F_SACK) && p[79] == 0, "flags");
	CHECK(l7_ckpt_rec_len(L7_CKPT_DELETE, 4) == 24 &&
	      l7_ckpt_rec_len(L7_CKPT_UPSERT, 6) == 104 &&
	      !l7_ckpt_rec_len(L7_CKPT_UPSERT, 5) && !l7_ckpt_rec_len(3, 4),
	      "lengths");
}

/* Every prefix of a datagram is refused, and so is a byte more. */
static void every_truncation_refused(void)
{
	struct l7_ckpt_rec in[3] = {
		upsert(conn_of(tuple6(1), 9)),
		delete_of(tuple4(1, 2), 10),
		upsert(conn_of(tuple4(2, 3), 11)),
	};
	uint8_t buf[512];
	size_t len = write_dgram(buf, sizeof(buf) - 1, in, 3), n;
	int accepted = 0;

	CHECK(len && reads(buf, len), "whole");
	for (n = 0; n < len; n++)
		accepted += reads(buf, n);
	CHECK(!accepted, "%d prefixes read", accepted);
	buf[len] = 0;
	CHECK(!reads(buf, len + 1), "a byte after the last record");
}

/* Change bytes @at, @at2 of a good datagram to @v, @v2: refused? */
static bool refused_with2(size_t at, uint8_t v, size_t at2, uint8_t v2)
{
	struct l7_ckpt_rec in[2] = {
		upsert(conn_of(tuple4(3, 4), 5)),
		delete_of(tuple4(3, 5), 6),
	};
	uint8_t buf[256];
	size_t len = write_dgram(buf, sizeof(buf), in, 2);

	buf[at] = v;
	buf[at2] = v2;
	return !reads(buf, len);
}

static bool refused_with(size_t at, uint8_t v)
{
	return refused_with2(at, v, at, v);
}

static void out_of_range_refused(void)
{
	size_t r0 = 0, r1 = 80;
	uint8_t buf[256];
	struct l7_ckpt_rec in[2] = {
		upsert(conn_of(tuple4(3, 4), 5)),
		delete_of(tuple4(3, 5), 6),
	};
	size_t len = write_dgram(buf, sizeof(buf), in, 2);

	CHECK(!reads_n(buf, len, 1) && !reads_n(buf, len, 3) &&
	      !reads_n(buf, len, 0), "count");
	CHECK(refused_with(r0 + 0, 3) && refused_with(r1 + 0, 0), "kind");
	CHECK(refused_with(r0 + 1, 5) && refused_with(r0 + 1, 6), "family");
	CHECK(refused_with(r0 + 2, 1) && refused_with(r1 + 3, 1), "reserved");
	/* gen 0: the record is written with gen 5 in its last byte */
	CHECK(refused_with(r0 + 11, 0) && refused_with(r1 + 11, 0), "gen 0");
	CHECK(refused_with(r0 + 13, 0) && refused_with(r1 + 15, 0), "port 0");
	CHECK(refused_with2(r0 + 74, 0, r0 + 75, 0), "mss 0");
	CHECK(refused_with2(r0 + 74, 0, r0 + 75, 12), "mss 12");
	CHECK(refused_with2(r0 + 74, 0, r0 + 75, 47), "mss 47");
	CHECK(!refused_with2(r0 + 74, 0, r0 + 75, 48), "mss 48");
	CHECK(refused_with(r0 + 76, 15) && refused_with(r0 + 77, 0xfe),
	      "wscale");
	CHECK(refused_with(r0 + 76, 0xff), "scaling one way only");
	CHECK(refused_with(r0 + 78, 8) && refused_with(r0 + 79, 1), "flags");
	/* without timestamps its TS fields must be zero: this one has some */
	CHECK(refused_with(r0 + 78, 0), "TS fields without timestamps");
	/* the same bytes in range read */
	CHECK(!refused_with(r0 + 76, 14) && !refused_with(r0 + 78, 1),
	      "in range");
}

/* The writer keeps to its buffer, and refuses what it cannot encode. */
static void writer_bounds(void)
{
	struct l7_ckpt_rec rec = upsert(conn_of(tuple4(1, 1), 1));
	struct l7_ckpt_writer w;
	uint8_t buf[MTU_PAYLOAD + 1];
	int n = 0;

	l7_ckpt_write_begin(&w, buf, 79);
	CHECK(!l7_ckpt_write_rec(&w, &rec) && !w.len, "tiny");
	buf[MTU_PAYLOAD] = 0xa5;
	l7_ckpt_write_begin(&w, buf, MTU_PAYLOAD);
	while (l7_ckpt_write_rec(&w, &rec))
		n++;
	CHECK(n == MTU_PAYLOAD / 80, "%d records", n);
	CHECK(buf[MTU_PAYLOAD] == 0xa5, "wrote past the end");
	CHECK(l7_ckpt_write_end(&w) == 80u * n, "len");
	CHECK(reads_n(buf, 80u * n, n), "reads");

	l7_ckpt_write_begin(&w, buf, sizeof(buf));
	rec.conn.gen = 0;
	CHECK(!l7_ckpt_write_rec(&w, &rec), "gen 0");
	rec = upsert(conn_of(tuple4(1, 1), 1));
	rec.conn.t.caddr[9] = 1;
	CHECK(!l7_ckpt_write_rec(&w, &rec), "IPv4 with more bytes");
	rec = upsert(conn_of(tuple4(1, 1), 1));
	rec.conn.d_wscale = -1;
	CHECK(!l7_ckpt_write_rec(&w, &rec), "scaling one way");
	CHECK(w.count == 0 && w.len == 0, "nothing written");
}

static const uint64_t key[2] = { 0x0706050403020100ull,
				 0x0f0e0d0c0b0a0908ull };

#define CAP_RECS	4
#define CAP_TOMBS	3

struct store {
	struct l7_ckpt_store s;
	struct l7_ckpt_slot slots[CAP_RECS + CAP_TOMBS];
	uint32_t buckets[4];
};

static void store_init(struct store *st)
{
	int rc = l7_ckpt_store_init(&st->s, st->slots, CAP_RECS, CAP_TOMBS,
				    st->buckets, 4, key);

	CHECK(!rc, "init");
}

static uint64_t held_gen(const struct store *st, struct l7_ckpt_tuple t)
{
	const struct l7_ckpt_slot *e = held(&st->s, &t);

	return e ? e->conn.gen : 0;
}

static enum l7_ckpt_applied put(struct store *st, struct l7_ckpt_rec r)
{
	return l7_ckpt_apply(&st->s, &r, 0);
}

/* A LOAD: an IPv4 VIP's server of @rfamily, @out outstanding. */
static struct l7_ckpt_rec load_of(uint8_t rfamily, uint32_t out)
{
	struct l7_ckpt_rec r = { .kind = L7_CKPT_LOAD };

	r.load.vfamily = 4;
	r.load.rfamily = rfamily;
	r.load.vaddr[0] = 198;
	r.load.vaddr[3] = 1;
	r.load.raddr[0] = rfamily == 4 ? 192 : 0x20;
	r.load.raddr[rfamily == 4 ? 3 : 15] = 11;
	r.load.vport = 80;
	r.load.rport = 8080;
	r.load.outstanding = out;
	return r;
}

/*
 * LOADs beside checkpoints: read back field for field, at their place on
 * the wire; every prefix refused; a reserved byte, a family, a port or a
 * count out of range refuses the datagram; the store takes none of them.
 */
static void load_records(void)
{
	struct l7_ckpt_rec in[3] = {
		load_of(4, 7),
		upsert(conn_of(tuple4(7, 40000), 1)),
		load_of(6, L7_CKPT_MAX_LOAD),
	};
	static const size_t bad[][2] = {
		{ 1, 5 }, { 2, 1 }, { 4, 0 }, { 5, 1 }, { 7, 0 },
		{ 10, 1 }, { 11, 1 }, { 12, 0xff },
	};
	struct l7_ckpt_reader r;
	struct l7_ckpt_rec out;
	struct store st;
	uint8_t buf[512];
	size_t len, n, i;
	int accepted = 0;

	len = write_dgram(buf, sizeof(buf), in, 3);
	CHECK(len == 24 + 80 + 36, "len %zu", len);
	CHECK(l7_ckpt_load_len(6, 6) == 48 && !l7_ckpt_load_len(4, 5),
	      "lengths");
	CHECK(buf[0] == 3 && buf[1] == 4 && buf[4] == 4 && buf[6] == 0 &&
	      buf[7] == 80 && buf[8] == 0x1f && buf[9] == 0x90 &&
	      buf[15] == 7 && buf[16] == 198 && buf[20] == 192, "layout");
	CHECK(!l7_ckpt_read_begin(&r, buf, len, 3), "read");
	for (i = 0; i < 3; i++) {
		CHECK(l7_ckpt_read_next(&r, &out), "record %zu", i);
		CHECK(out.kind == in[i].kind, "kind %zu", i);
		if (out.kind == L7_CKPT_LOAD)
			CHECK(!memcmp(&out.load, &in[i].load, sizeof(out.load)),
			      "load %zu differs", i);
	}
	for (n = 0; n < len; n++)
		accepted += reads(buf, n);
	CHECK(!accepted, "%d prefixes read", accepted);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t was = buf[bad[i][0]];

		buf[bad[i][0]] = (uint8_t)bad[i][1];
		CHECK(!reads(buf, len), "byte %zu = %zu read", bad[i][0],
		      bad[i][1]);
		buf[bad[i][0]] = was;
	}
	CHECK(reads(buf, len), "restored");
	buf[8] = 0;
	buf[9] = 0;
	CHECK(!reads(buf, len), "server port 0 read");
	in[0] = load_of(4, L7_CKPT_MAX_LOAD + 1);
	CHECK(!write_dgram(buf, sizeof(buf), in, 1), "count past the cap written");
	store_init(&st);
	CHECK(put(&st, load_of(4, 3)) == L7_CKPT_STALE &&
	      !st.s.stats.stale && !st.s.stats.stored && !st.s.recs.count,
	      "the store took a LOAD");
}

static void store_init_sizes(void)
{
	struct store st;

	CHECK(l7_ckpt_store_init(&st.s, st.slots, 0, 1, st.buckets, 4, key),
	      "no records");
	CHECK(l7_ckpt_store_init(&st.s, st.slots, 1, 0, st.buckets, 4, key),
	      "no tombstones");
	CHECK(l7_ckpt_store_init(&st.s, st.slots, 1, 1, st.buckets, 3, key),
	      "buckets not a power of two");
	CHECK(l7_ckpt_store_init(&st.s, st.slots, 0xfffffff0u, 0x10,
				 st.buckets, 4, key), "overflow");
}

/*
 * Only a newer generation replaces a record; its writer's resend of the
 * same boundary under the same generation refreshes it, nothing else of
 * that generation does.
 */
static void generation_order(void)
{
	struct l7_ckpt_tuple t = tuple4(1, 1000);
	struct l7_ckpt_rec again, other;
	struct store st;

	store_init(&st);
	CHECK(put(&st, upsert(conn_of(t, 5))) == L7_CKPT_STORED, "first");
	CHECK(put(&st, upsert(conn_of(t, 4))) == L7_CKPT_STALE, "older");
	again = upsert(conn_of(t, 5));
	again.conn.win = 999;
	CHECK(put(&st, again) == L7_CKPT_REFRESHED, "its resend");
	CHECK(held(&st.s, &t) && held(&st.s, &t)->conn.win == 999,
	      "refreshed");
	other = upsert(conn_of(t, 5));
	other.conn.rcv_nxt += 100;
	other.conn.rcv_wup += 100;
	other.conn.rcv_edge += 100;
	CHECK(put(&st, other) == L7_CKPT_STALE, "another boundary, same gen");
	other = upsert(conn_of(t, 5));
	other.from = 1;
	CHECK(put(&st, other) == L7_CKPT_STALE, "another writer, same gen");
	CHECK(held_gen(&st, t) == 5, "held %llu",
	      (unsigned long long)held_gen(&st, t));
	CHECK(put(&st, upsert(conn_of(t, 6))) == L7_CKPT_STORED, "newer");
	CHECK(held_gen(&st, t) == 6, "newer held");
	CHECK(st.s.stats.stored == 3 && st.s.stats.stale == 3, "counts");
	CHECK(st.s.recs.count == 1, "one record per tuple");
}

/*
 * A DELETE wins over its generation and older ones, before or after
 * them; only a later connection on the tuple (a newer generation) is
 * kept again.
 */
static void delete_then_stale_upsert(void)
{
	struct l7_ckpt_tuple t = tuple6(2000), u = tuple6(2001);
	struct l7_ckpt_seg g = { .t = t, .seq = 0x11223344, .ack = 0x10,
				 .tsval = 0x7fffffff, .flags = L7_TCPF_ACK,
				 .has_ts = true };
	struct l7_ckpt_slot out;
	struct store st;

	store_init(&st);
	put(&st, upsert(conn_of(t, 5)));
	CHECK(put(&st, delete_of(t, 6)) == L7_CKPT_DELETED, "delete");
	CHECK(!held(&st.s, &t), "gone");
	CHECK(put(&st, upsert(conn_of(t, 5))) == L7_CKPT_STALE, "resent");
	CHECK(put(&st, upsert(conn_of(t, 6))) == L7_CKPT_STALE, "same gen");
	CHECK(l7_ckpt_adopt(&st.s, &g, 0, &out) == L7_CKPT_NONE,
	      "not adopted");
	CHECK(put(&st, upsert(conn_of(t, 7))) == L7_CKPT_STORED,
	      "a later connection on the tuple");

	/* a DELETE that overtook the record it ends */
	CHECK(put(&st, delete_of(u, 9)) == L7_CKPT_DELETED, "early delete");
	CHECK(put(&st, upsert(conn_of(u, 8))) == L7_CKPT_STALE, "late record");
	CHECK(put(&st, delete_of(u, 9)) == L7_CKPT_STALE, "delete twice");

	/* a DELETE of an earlier connection leaves a later one alone */
	CHECK(put(&st, delete_of(t, 6)) == L7_CKPT_STALE, "old delete");
	CHECK(held_gen(&st, t) == 7, "later connection kept");
	/* and one of the same generation wins */
	CHECK(put(&st, delete_of(t, 7)) == L7_CKPT_DELETED, "same gen");
	CHECK(!held(&st.s, &t), "deleted");
}

/* The oldest record goes first, counted; what goes raises the floor. */
static void eviction_counted(void)
{
	struct l7_ckpt_tuple t[6];
	struct store st;
	int i;

	store_init(&st);
	for (i = 0; i < 6; i++)
		t[i] = tuple4(i, 3000 + i);
	for (i = 0; i < CAP_RECS; i++)
		put(&st, upsert(conn_of(t[i], 10 + i)));
	/* t[0] is refreshed: t[1] is the oldest now */
	CHECK(put(&st, upsert(conn_of(t[0], 20))) == L7_CKPT_STORED,
	      "refresh");
	CHECK(put(&st, upsert(conn_of(t[4], 21))) == L7_CKPT_STORED, "new");
	CHECK(st.s.stats.evicted == 1 && st.s.recs.count == CAP_RECS,
	      "evicted %llu, %u held",
	      (unsigned long long)st.s.stats.evicted, st.s.recs.count);
	CHECK(!held(&st.s, &t[1]) && held_gen(&st, t[0]) == 20,
	      "the oldest went");
	CHECK(st.s.floor == 11, "floor %llu", (unsigned long long)st.s.floor);
	CHECK(put(&st, upsert(conn_of(t[1], 11))) == L7_CKPT_STALE,
	      "a copy of what went");
	put(&st, upsert(conn_of(t[5], 22)));
	CHECK(st.s.stats.evicted == 2 && st.s.recs.count == CAP_RECS,
	      "evicted again");

	/* tombstones have a cap of their own: deletes push out no record */
	for (i = 0; i < CAP_TOMBS + 2; i++)
		put(&st, delete_of(tuple6(4000 + i), 30 + i));
	CHECK(st.s.tombs.count == CAP_TOMBS && st.s.stats.evicted_tombs == 2,
	      "tombs %u, evicted %llu", st.s.tombs.count,
	      (unsigned long long)st.s.stats.evicted_tombs);
	CHECK(st.s.recs.count == CAP_RECS, "records kept");
	CHECK(put(&st, upsert(conn_of(tuple6(4000), 29))) == L7_CKPT_STALE,
	      "forgotten tombstone still refuses its record");
}

static struct l7_ckpt_seg seg_fits(const struct l7_ckpt_conn *c)
{
	return (struct l7_ckpt_seg){
		.t = c->t, .seq = c->rcv_nxt, .ack = c->snd_nxt,
		.tsval = c->ts_recent, .flags = L7_TCPF_ACK | L7_TCPF_PSH,
		.has_ts = c->ts,
	};
}

static void adopt_fitting(void)
{
	struct l7_ckpt_conn c = conn_of(tuple4(9, 5000), 3);
	struct l7_ckpt_seg g = seg_fits(&c);
	struct l7_ckpt_slot out;
	struct store st;

	store_init(&st);
	/* no record of its tuple: nothing done, nothing counted */
	put(&st, upsert(conn_of(tuple4(9, 5001), 3)));
	CHECK(l7_ckpt_adopt(&st.s, &g, 0, &out) == L7_CKPT_NONE, "none");
	CHECK(st.s.recs.count == 1 && !st.s.stats.refused, "untouched");

	l7_ckpt_apply(&st.s, &(struct l7_ckpt_rec){ L7_CKPT_UPSERT, c }, 1000);
	CHECK(l7_ckpt_adopt(&st.s, &g, 0, &out) == L7_CKPT_ADOPT, "adopt");
	CHECK(conn_eq(&out.conn, &c), "the record");
	/* TSvals go on from the writer's clock: ts_last + age at 1000 */
	CHECK(1000 + out.ts_off == c.ts_last + c.ts_age, "ts_off %#x",
	      out.ts_off);
	CHECK(1500 + out.ts_off == c.ts_last + c.ts_age + 500, "later");
	CHECK(st.s.stats.adopted == 1, "counted");
	CHECK(l7_ckpt_adopt(&st.s, &g, 0, &out) == L7_CKPT_NONE, "once only");
	CHECK(put(&st, upsert(c)) == L7_CKPT_STALE, "nor from a late copy");

	/* sequence numbers across the wrap; a FIN with the request */
	c.gen = 4;
	c.snd_una = c.snd_nxt = 0xfffffffe;
	c.snd_isn = 0xfffff000;
	c.rcv_wup = c.rcv_nxt = 0xfffffff0;
	c.rcv_edge = 0x10000;
	put(&st, upsert(c));
	g = seg_fits(&c);
	g.tsval = c.ts_recent + 1000;
	g.flags = L7_TCPF_ACK | L7_TCPF_FIN;
	CHECK(l7_ckpt_adopt(&st.s, &g, 0, &out) == L7_CKPT_ADOPT, "wrap");

	/* without timestamps agreed, none is needed or looked at */
	c.gen = 5;
	c.ts = false;
	c.ts_recent = c.ts_last = c.ts_age = 0;
	CHECK(put(&st, upsert(c)) == L7_CKPT_STORED, "stored");
	g = seg_fits(&c);
	g.tsval = c.ts_recent - 1;
	CHECK(l7_ckpt_adopt(&st.s, &g, 0, &out) == L7_CKPT_ADOPT, "no ts");
}

/* @g against a fresh record of @c: refused, and the record gone. */
static void check_refused(const struct l7_ckpt_conn *c,
			  const struct l7_ckpt_seg *g, const char *why)
{
	struct l7_ckpt_seg right = seg_fits(c);
	struct l7_ckpt_slot out;
	struct store st;

	store_init(&st);
	put(&st, upsert(*c));
	CHECK(l7_ckpt_adopt(&st.s, g, 0, &out) == L7_CKPT_REFUSE, "%s", why);
	CHECK(!held(&st.s, &c->t), "%s: record kept", why);
	CHECK(l7_ckpt_adopt(&st.s, &right, 0, &out) == L7_CKPT_NONE,
	      "%s: adopted after", why);
	CHECK(st.s.stats.refused == 1 && !st.s.stats.adopted, "%s: counts",
	      why);
}

static void adopt_refused(void)
{
	struct l7_ckpt_conn c = conn_of(tuple6(6000), 8);
	struct l7_ckpt_seg g;

#define REFUSED_IF(change, why)						\
	do {								\
		g = seg_fits(&c);					\
		change;							\
		check_refused(&c, &g, why);				\
	} while (0)

	REFUSED_IF(g.seq++, "seq after rcv_nxt");
	REFUSED_IF(g.seq--, "seq before rcv_nxt");
	REFUSED_IF(g.ack = c.snd_nxt + 1, "ACK of bytes never sent");
	REFUSED_IF(g.ack = c.snd_una - 1, "ACK before snd_una");
	REFUSED_IF(g.flags = L7_TCPF_PSH, "no ACK");
	REFUSED_IF(g.flags |= L7_TCPF_SYN, "SYN");
	REFUSED_IF(g.flags |= L7_TCPF_RST, "RST at rcv_nxt");
	REFUSED_IF(g.flags = L7_TCPF_RST, "RST at rcv_nxt, no ACK");
	REFUSED_IF(g.seq = c.rcv_wup, "seq at the window's left edge");
	REFUSED_IF(g.seq = c.rcv_edge, "seq at the window's right edge");
	REFUSED_IF(g.has_ts = false, "no timestamp where agreed");
	REFUSED_IF(g.tsval = c.ts_recent - 1, "timestamp older (PAWS)");
#undef REFUSED_IF
}

/*
 * A bare ACK from past the record (a client with bytes in flight to the
 * dead director) is waited out once: its retransmission at rcv_nxt is
 * adopted.  A second one refuses; data past rcv_nxt refuses at once.
 */
static void past_answer_waits_once(void)
{
	struct l7_ckpt_conn c = conn_of(tuple4(7, 7000), 9);
	struct l7_ckpt_seg past = seg_fits(&c), data;
	struct l7_ckpt_slot out;
	struct store st;

	past.seq = c.rcv_nxt + 300;
	past.flags = L7_TCPF_ACK;
	store_init(&st);
	put(&st, upsert(c));
	CHECK(l7_ckpt_adopt(&st.s, &past, 0, &out) == L7_CKPT_WAIT, "waits");
	CHECK(held(&st.s, &c.t), "record kept");
	data = seg_fits(&c);
	CHECK(l7_ckpt_adopt(&st.s, &data, 0, &out) == L7_CKPT_ADOPT,
	      "retransmission adopted");
	CHECK(st.s.stats.waited == 1 && st.s.stats.adopted == 1, "counts");

	put(&st, upsert(conn_of(c.t, 10)));
	CHECK(l7_ckpt_adopt(&st.s, &past, 1000, &out) == L7_CKPT_WAIT,
	      "new record");
	CHECK(l7_ckpt_adopt(&st.s, &past, 1000 + L7_CKPT_PAST_GAP_MS, &out) ==
	      L7_CKPT_REFUSE, "a second answer past it, the gap later");
}

/*
 * Answers from past the record to probes of one pass (several directors
 * probing a lost peer's clients, a pass started over) come closer than
 * the client's retransmission: each is waited out within the gap, and the
 * retransmission still adopts; the first answer after the gap refuses.
 */
static void past_answers_within_gap_wait(void)
{
	struct l7_ckpt_conn c = conn_of(tuple4(7, 7001), 9);
	struct l7_ckpt_seg past = seg_fits(&c), data = seg_fits(&c);
	struct l7_ckpt_slot out;
	struct store st;
	uint32_t t0 = 0xfffff000u;	/* the clock wraps within the gap */
	int k;

	past.seq = c.rcv_nxt + 300;
	past.flags = L7_TCPF_ACK;
	store_init(&st);
	put(&st, upsert(c));
	for (k = 0; k < 3; k++)
		CHECK(l7_ckpt_adopt(&st.s, &past, t0 + k * 1000, &out) ==
		      L7_CKPT_WAIT, "answer %d within the gap waits", k);
	CHECK(l7_ckpt_adopt(&st.s, &data, t0 + 3500, &out) == L7_CKPT_ADOPT,
	      "the retransmission adopted");

	put(&st, upsert(conn_of(c.t, 10)));
	CHECK(l7_ckpt_adopt(&st.s, &past, t0, &out) == L7_CKPT_WAIT, "first");
	CHECK(l7_ckpt_adopt(&st.s, &past, t0 + L7_CKPT_PAST_GAP_MS - 1, &out) ==
	      L7_CKPT_WAIT, "just within the gap");
	CHECK(l7_ckpt_adopt(&st.s, &past, t0 + L7_CKPT_PAST_GAP_MS, &out) ==
	      L7_CKPT_REFUSE, "the gap from the first, not the last");
	CHECK(st.s.stats.waited == 5 && st.s.stats.refused == 1, "counts");
}

/*
 * Not waited out: data past rcv_nxt, a bare ACK past the window (blind:
 * probed), one past rcv_nxt that acknowledges bytes never sent.
 */
static void past_answer_data_refuses(void)
{
	struct l7_ckpt_conn c = conn_of(tuple4(7, 7000), 9);
	struct l7_ckpt_seg past = seg_fits(&c), data = seg_fits(&c);
	struct l7_ckpt_slot out;
	struct store st;

	past.flags = L7_TCPF_ACK;
	store_init(&st);
	put(&st, upsert(conn_of(c.t, 11)));
	data.seq = c.rcv_nxt + 300;
	data.len = 100;
	CHECK(l7_ckpt_adopt(&st.s, &data, 0, &out) == L7_CKPT_REFUSE,
	      "data past rcv_nxt");
	put(&st, upsert(conn_of(c.t, 12)));
	past.seq = c.rcv_edge + 1;
	CHECK(l7_ckpt_adopt(&st.s, &past, 0, &out) == L7_CKPT_PROBE,
	      "past the window: blind, probed");
	CHECK(held(&st.s, &c.t), "past the window: record kept");
	put(&st, upsert(conn_of(c.t, 13)));
	past.seq = c.rcv_nxt + 1;
	past.ack = c.snd_nxt + 1;
	CHECK(l7_ckpt_adopt(&st.s, &past, 0, &out) == L7_CKPT_REFUSE,
	      "past, with an ACK of bytes never sent");
}

/*
 * A walk over the slots by index finds each record once: not free slots
 * (which keep the tuple they had), not tombstones, not evicted ones.
 */
static void slot_walk_finds_records(void)
{
	struct l7_ckpt_tuple t[6];
	struct store st;
	int i, live, tomb_live;

	store_init(&st);
	for (i = 0; i < 6; i++)
		t[i] = tuple4(i, 6000 + i);
	for (i = 0; i < 6; i++)		/* t[0], t[1] evicted */
		put(&st, upsert(conn_of(t[i], 10 + i)));
	put(&st, delete_of(t[2], 30));	/* a tombstone now */
	live = 0;
	tomb_live = 0;
	for (i = 0; i < CAP_RECS + CAP_TOMBS + 3; i++) {
		if (!l7_ckpt_slot_live(&st.s, i))
			continue;
		live++;
		if (!held(&st.s, &st.slots[i].conn.t))
			tomb_live++;
	}
	CHECK(live == 3 && (int)st.s.recs.count == 3,
	      "%d live slots, %u records", live, st.s.recs.count);
	CHECK(!tomb_live, "a tombstone or a freed slot walked");
}


/* @change to a valid record: still valid? (the writer agrees) */
static bool valid_with(void (*change)(struct l7_ckpt_conn *, uint32_t),
		       uint32_t v)
{
	struct l7_ckpt_rec r = upsert(conn_of(tuple4(1, 1), 1));
	struct l7_ckpt_writer w;
	uint8_t buf[256];
	bool valid, written;

	change(&r.conn, v);
	valid = l7_ckpt_conn_valid(&r.conn);
	l7_ckpt_write_begin(&w, buf, sizeof(buf));
	written = l7_ckpt_write_rec(&w, &r);
	CHECK(valid == written, "the writer disagrees at %#x", v);
	return valid;
}

static void set_mss(struct l7_ckpt_conn *c, uint32_t v) { c->mss = v; }

/* rcv_nxt @v after rcv_wup, the window's edge 1000 after rcv_nxt */
static void set_rcv_nxt(struct l7_ckpt_conn *c, uint32_t v)
{
	c->rcv_wup = 0xfffffff0;
	c->rcv_nxt = c->rcv_wup + v;
	c->rcv_edge = c->rcv_wup + 1000;
}

/* the window's edge @v after rcv_wup (= rcv_nxt) */
static void set_rcv_edge(struct l7_ckpt_conn *c, uint32_t v)
{
	c->rcv_wup = c->rcv_nxt;
	c->rcv_edge = c->rcv_wup + v;
}

static void set_snd_una(struct l7_ckpt_conn *c, uint32_t v)
{
	c->snd_una = c->snd_nxt + v;
}

/* snd_nxt @v bytes after the first one */
static void set_snd_sent(struct l7_ckpt_conn *c, uint32_t v)
{
	c->snd_isn = c->snd_nxt - v;
}

static void set_max_window(struct l7_ckpt_conn *c, uint32_t v)
{
	c->win = 0;
	c->max_window = v;
}

/* max_window @v against the window 0xfffe << 7 announced now */
static void set_max_below_win(struct l7_ckpt_conn *c, uint32_t v)
{
	c->max_window = (0xfffeu << 7) - v;
}

/* the same without scaling: 0xfffe itself */
static void set_max_unscaled(struct l7_ckpt_conn *c, uint32_t v)
{
	c->c_wscale = -1;
	c->d_wscale = -1;
	c->max_window = 0xfffe - v;
}

static void set_ts_age(struct l7_ckpt_conn *c, uint32_t v) { c->ts_age = v; }

/* no timestamps agreed, and bit @v of 0..2 names a field left set */
static void set_no_ts(struct l7_ckpt_conn *c, uint32_t v)
{
	c->ts = false;
	c->ts_recent = v & 1 ? 5 : 0;
	c->ts_last = v & 2 ? 5 : 0;
	c->ts_age = v & 4 ? 5 : 0;
}

/*
 * Every field in the range of a live connection at a boundary, each
 * bound tried on both sides (issue 38, N2: mss 12 divided by zero).
 */
static void fields_in_range(void)
{
	CHECK(!valid_with(set_mss, 0) && !valid_with(set_mss, 12) &&
	      !valid_with(set_mss, L7_CKPT_MIN_MSS - 1), "mss below 48");
	CHECK(valid_with(set_mss, L7_CKPT_MIN_MSS) && valid_with(set_mss, 65535),
	      "mss 48 .. 65535");
	CHECK(L7_CKPT_MIN_MSS == 48, "tcp_min_snd_mss's floor");

	CHECK(valid_with(set_rcv_nxt, 0) && valid_with(set_rcv_nxt, 1000),
	      "rcv_nxt at either edge (across the wrap)");
	CHECK(!valid_with(set_rcv_nxt, -1u) && !valid_with(set_rcv_nxt, 1001),
	      "rcv_nxt outside [rcv_wup, rcv_edge]");
	CHECK(valid_with(set_rcv_edge, 0) &&
	      valid_with(set_rcv_edge, L7_CKPT_MAX_WINDOW), "rcv window");
	CHECK(!valid_with(set_rcv_edge, L7_CKPT_MAX_WINDOW + 1) &&
	      !valid_with(set_rcv_edge, 0x7fffffff),
	      "a window no field shifted by 14 announces");

	CHECK(valid_with(set_snd_una, 0), "snd_una == snd_nxt");
	CHECK(!valid_with(set_snd_una, 1) && !valid_with(set_snd_una, -1u) &&
	      !valid_with(set_snd_una, 1u << 31), "bytes unacknowledged");
	CHECK(valid_with(set_snd_sent, 0) &&
	      valid_with(set_snd_sent, 0x7fffffff), "snd_isn behind");
	CHECK(!valid_with(set_snd_sent, 1u << 31) &&
	      !valid_with(set_snd_sent, -1u), "snd_isn 2^31 or more behind");

	CHECK(valid_with(set_max_window, 0) &&
	      valid_with(set_max_window, L7_CKPT_MAX_WINDOW), "max_window");
	CHECK(!valid_with(set_max_window, L7_CKPT_MAX_WINDOW + 1) &&
	      !valid_with(set_max_window, -1u), "max_window too large");
	CHECK(valid_with(set_max_below_win, 0) &&
	      !valid_with(set_max_below_win, 1),
	      "max_window below the window announced now (scaled)");
	CHECK(valid_with(set_max_unscaled, 0) &&
	      !valid_with(set_max_unscaled, 1),
	      "max_window below the window announced now (unscaled)");

	CHECK(valid_with(set_ts_age, 0) &&
	      valid_with(set_ts_age, L7_CKPT_MAX_TS_AGE - 1), "ts_age");
	CHECK(!valid_with(set_ts_age, L7_CKPT_MAX_TS_AGE) &&
	      !valid_with(set_ts_age, 1u << 31) && !valid_with(set_ts_age, -1u),
	      "ts_age of 24 days or more");
	CHECK(L7_CKPT_MAX_TS_AGE < 1u << 31, "24 days < 2^31 ms");
	CHECK(valid_with(set_no_ts, 0), "no timestamps, none carried");
	CHECK(!valid_with(set_no_ts, 1) && !valid_with(set_no_ts, 2) &&
	      !valid_with(set_no_ts, 4), "no timestamps, one carried");
}

/*
 * A generation at or past 2^63, or more than 2^56 past the newest taken,
 * is refused and counted: it can push the floor nowhere (N7).
 */
static void generation_bounds(void)
{
	struct l7_ckpt_tuple t = tuple4(2, 2000), u = tuple4(2, 2001);
	uint64_t base = 1ull << 60;
	struct store st;
	int i;

	store_init(&st);
	CHECK(put(&st, upsert(conn_of(t, L7_CKPT_GEN_MAX))) == L7_CKPT_STALE,
	      "2^63 into an empty store");
	CHECK(put(&st, upsert(conn_of(t, ~0ull))) == L7_CKPT_STALE, "2^64-1");
	CHECK(put(&st, delete_of(t, ~0ull)) == L7_CKPT_STALE, "DELETE 2^64-1");
	CHECK(st.s.stats.ahead == 3 && !st.s.newest && !st.s.floor,
	      "ahead %llu", (unsigned long long)st.s.stats.ahead);
	/* the first one taken sets the newest: a clock's nanoseconds, say */
	CHECK(put(&st, upsert(conn_of(t, base))) == L7_CKPT_STORED, "first");
	CHECK(st.s.newest == base, "newest");
	CHECK(put(&st, upsert(conn_of(u, base + L7_CKPT_GEN_AHEAD + 1))) ==
	      L7_CKPT_STALE && st.s.stats.ahead == 4, "2^56 + 1 ahead");
	CHECK(put(&st, delete_of(u, base + L7_CKPT_GEN_AHEAD + 1)) ==
	      L7_CKPT_STALE && st.s.stats.ahead == 5, "a DELETE too");
	CHECK(put(&st, upsert(conn_of(u, base + L7_CKPT_GEN_AHEAD))) ==
	      L7_CKPT_STORED, "2^56 ahead");
	CHECK(st.s.newest == base + L7_CKPT_GEN_AHEAD, "newest moved");
	CHECK(put(&st, delete_of(t, base + L7_CKPT_GEN_AHEAD + 5)) ==
	      L7_CKPT_DELETED && st.s.newest == base + L7_CKPT_GEN_AHEAD + 5,
	      "a DELETE moves it");
	/* older ones are taken as before */
	CHECK(put(&st, upsert(conn_of(tuple4(2, 2002), 7))) == L7_CKPT_STORED,
	      "far behind");
	/* eviction raises the floor no higher than what was taken */
	for (i = 0; i < 8; i++)
		put(&st, upsert(conn_of(tuple4(3, 3000 + i), base + 100 + i)));
	CHECK(st.s.floor <= st.s.newest, "floor %llu",
	      (unsigned long long)st.s.floor);
	CHECK(put(&st, upsert(conn_of(tuple4(3, 4000), st.s.newest + 1))) ==
	      L7_CKPT_STORED, "a new tuple is still taken");
}

/*
 * A segment out of the record's window (a blind one: seq 2^31 away, any
 * ACK) leaves the record and is answered by its probe, once per 500 ms;
 * the client's own segment is then adopted (N5).
 */
static void blind_segment_probed(void)
{
	struct l7_ckpt_conn c = conn_of(tuple4(8, 8000), 3);
	struct l7_ckpt_seg g = seg_fits(&c), blind;
	struct l7_ckpt_slot out;
	struct store st;

	store_init(&st);
	put(&st, upsert(c));
	blind = g;
	blind.seq = c.rcv_nxt + (1u << 31);
	blind.ack = 0x5eed1234;
	CHECK(l7_ckpt_adopt(&st.s, &blind, 1000, &out) == L7_CKPT_PROBE,
	      "probe");
	CHECK(conn_eq(&out.conn, &c), "the record's probe");
	CHECK(held(&st.s, &c.t), "record kept");
	CHECK(l7_ckpt_adopt(&st.s, &blind, 1499, &out) == L7_CKPT_WAIT,
	      "within 500 ms: dropped, no probe");
	CHECK(l7_ckpt_adopt(&st.s, &blind, 1500, &out) == L7_CKPT_PROBE,
	      "500 ms later: probed again");
	CHECK(st.s.stats.blind == 3 && !st.s.stats.refused, "blind %llu",
	      (unsigned long long)st.s.stats.blind);
	CHECK(l7_ckpt_adopt(&st.s, &g, 1600, &out) == L7_CKPT_ADOPT,
	      "the client's segment adopted");

	/* each side of the window, and RSTs */
	c.gen = 4;
	put(&st, upsert(c));
	blind = g;
	blind.seq = c.rcv_wup - 1;
	CHECK(l7_ckpt_adopt(&st.s, &blind, 0, &out) == L7_CKPT_PROBE,
	      "seq before rcv_wup");
	blind.seq = c.rcv_edge + 1;
	CHECK(l7_ckpt_adopt(&st.s, &blind, 0, &out) == L7_CKPT_WAIT,
	      "seq past rcv_edge, held off");
	blind = g;
	blind.flags = L7_TCPF_RST;
	blind.seq = c.rcv_nxt + 1;
	CHECK(l7_ckpt_adopt(&st.s, &blind, 600, &out) == L7_CKPT_PROBE,
	      "RST in the window, not at rcv_nxt");
	blind.seq = c.rcv_nxt + (1u << 31);
	CHECK(l7_ckpt_adopt(&st.s, &blind, 700, &out) == L7_CKPT_WAIT,
	      "RST out of the window");
	CHECK(held(&st.s, &c.t) && st.s.stats.blind == 7,
	      "record kept through them");
	blind.seq = c.rcv_nxt;
	CHECK(l7_ckpt_adopt(&st.s, &blind, 800, &out) == L7_CKPT_REFUSE,
	      "RST at rcv_nxt: the client ended it");
	CHECK(!held(&st.s, &c.t) && st.s.stats.refused == 1,
	      "buried");

	/* the clock wraps between two blind segments */
	c.gen = 5;
	put(&st, upsert(c));
	blind = g;
	blind.seq = c.rcv_nxt - 0x40000000;
	CHECK(l7_ckpt_adopt(&st.s, &blind, 0xffffff00u, &out) ==
	      L7_CKPT_PROBE, "before the wrap");
	CHECK(l7_ckpt_adopt(&st.s, &blind, 0xf3, &out) == L7_CKPT_WAIT,
	      "499 ms later, across the wrap: held off");
	CHECK(l7_ckpt_adopt(&st.s, &blind, 0xf4, &out) == L7_CKPT_PROBE,
	      "500 ms later, across the wrap: probed");
}

/*
 * A busy record (a request under way at the failover) reads back as
 * written; it is never adopted nor waited on: the client's segment in its
 * window, fitting or from past it, buries it and is refused (the client
 * reset); a segment out of its window draws its probe, as any record's.
 */
static void busy_record_resets(void)
{
	struct l7_ckpt_conn c = conn_of(tuple4(9, 9000), 3);
	struct l7_ckpt_seg g = seg_fits(&c), past;
	struct l7_ckpt_rec r = upsert(c), back;
	struct l7_ckpt_reader rd;
	struct l7_ckpt_writer w;
	struct l7_ckpt_slot out;
	uint8_t buf[MTU_PAYLOAD];
	struct store st;

	c.busy = true;
	r.conn.busy = true;
	l7_ckpt_write_begin(&w, buf, sizeof(buf));
	CHECK(l7_ckpt_write_rec(&w, &r), "written");
	CHECK(buf[78] == (L7_CKPT_F_TS | L7_CKPT_F_SACK | L7_CKPT_F_BUSY),
	      "flag on the wire");
	CHECK(!l7_ckpt_read_begin(&rd, buf, l7_ckpt_write_end(&w), 1) &&
	      l7_ckpt_read_next(&rd, &back) && conn_eq(&back.conn, &c),
	      "read back busy");

	store_init(&st);
	CHECK(put(&st, back) == L7_CKPT_STORED, "stored");
	past = g;
	past.seq = c.rcv_nxt + 1;
	past.len = 0;
	past.flags = L7_TCPF_ACK;
	CHECK(l7_ckpt_adopt(&st.s, &past, 0, &out) == L7_CKPT_REFUSE,
	      "a bare ACK from past it: refused, not waited on");
	CHECK(!held(&st.s, &c.t) && st.s.stats.busy == 1 &&
	      !st.s.stats.refused && !st.s.stats.waited, "buried, busy");

	c.gen = 4;
	put(&st, upsert(c));
	CHECK(l7_ckpt_adopt(&st.s, &g, 0, &out) == L7_CKPT_REFUSE,
	      "a segment that would fit: refused");
	CHECK(!st.s.stats.adopted && st.s.stats.busy == 2, "never adopted");
	CHECK(put(&st, upsert(c)) == L7_CKPT_STALE, "a late copy not taken");

	c.gen = 5;
	put(&st, upsert(c));
	g.seq = c.rcv_nxt + (1u << 31);
	CHECK(l7_ckpt_adopt(&st.s, &g, 0, &out) == L7_CKPT_PROBE &&
	      out.conn.busy, "out of its window: its probe");
	CHECK(held(&st.s, &c.t), "kept");

	/* the store's next record of it, not busy, replaces it */
	c.gen = 6;
	c.busy = false;
	CHECK(put(&st, upsert(c)) == L7_CKPT_STORED, "its boundary's record");
	g.seq = c.rcv_nxt;
	CHECK(l7_ckpt_adopt(&st.s, &g, 1000, &out) == L7_CKPT_ADOPT,
	      "then adopted");
}

/*
 * The probe's walk: bounded steps find each record once; a record probed
 * L7_CKPT_PROBES times expires, one the walk's copy no longer names is
 * left alone (N6).
 */
/*
 * Each record is kept as the director's it came from (->from, the
 * caller's number for a peer): a newer record of the connection from
 * another director makes that one its holder; a walk returns it.
 */
static void records_keep_their_owner(void)
{
	struct l7_ckpt_slot out[CAP_RECS + CAP_TOMBS];
	struct l7_ckpt_tuple t = tuple4(1, 9001);
	struct l7_ckpt_rec r = upsert(conn_of(t, 10));
	uint32_t cursor = 0;
	struct store st;

	store_init(&st);
	r.from = 3;
	CHECK(put(&st, r) == L7_CKPT_STORED && held(&st.s, &t)->owner == 3,
	      "from peer 3");
	r.from = 5;
	CHECK(put(&st, r) == L7_CKPT_STALE && held(&st.s, &t)->owner == 3,
	      "a copy no newer changes no holder");
	r.conn.gen = 11;
	CHECK(put(&st, r) == L7_CKPT_STORED && held(&st.s, &t)->owner == 5,
	      "taken over by peer 5");
	CHECK(l7_ckpt_walk(&st.s, &cursor, CAP_RECS + CAP_TOMBS, out, NULL,
			   CAP_RECS) == 1 && out[0].owner == 5, "walked");
}

/*
 * Side by side: a live owner's record hands over a client at its
 * boundary and sends on every other segment, keeping the record; an
 * owner not live is a takeover as before.
 */
static void live_owner_forwards(void)
{
	struct l7_ckpt_tuple t = tuple4(2, 9100);
	struct l7_ckpt_rec r = upsert(conn_of(t, 10));
	struct l7_ckpt_seg fits = seg_fits(&r.conn), g;
	const uint32_t live = 1u << 2;
	struct l7_ckpt_slot out;
	struct store st;

	store_init(&st);
	r.from = 2;
	put(&st, r);
	/* the request's next bytes, past the boundary the record has */
	g = fits;
	g.seq += 100;
	CHECK(l7_ckpt_claim(&st.s, &g, 0, live, &out) == L7_CKPT_FORWARD &&
	      out.owner == 2, "mid-request: forwarded to 2");
	/* an ACK of response bytes the record never saw */
	g = fits;
	g.ack += 5000;
	g.flags = L7_TCPF_ACK;
	CHECK(l7_ckpt_claim(&st.s, &g, 0, live, &out) == L7_CKPT_FORWARD,
	      "mid-response: forwarded");
	/* a RST, even at rcv_nxt: the owner's connection judges it */
	g = fits;
	g.flags = L7_TCPF_RST;
	CHECK(l7_ckpt_claim(&st.s, &g, 0, live, &out) == L7_CKPT_FORWARD,
	      "RST forwarded");
	/* far out of the window: the owner's numbers may be far ahead */
	g = fits;
	g.seq += 0x40000000;
	CHECK(l7_ckpt_claim(&st.s, &g, 0, live, &out) == L7_CKPT_FORWARD,
	      "out of the record's window: forwarded");
	CHECK(st.s.stats.forwarded == 4 && held(&st.s, &t) &&
	      !st.s.stats.refused && !st.s.stats.blind && !st.s.stats.waited,
	      "the record kept, nothing else counted");
	/* another peer's life says nothing of this one's owner */
	g = fits;
	g.seq += 100;
	CHECK(l7_ckpt_claim(&st.s, &g, 0, ~live, &out) == L7_CKPT_REFUSE,
	      "owner not live: refused as in a takeover");

	/* at the boundary: handed over, the record gone */
	put(&st, upsert(conn_of(t, 11)));
	r = upsert(conn_of(t, 12));
	r.from = 2;
	put(&st, r);
	CHECK(l7_ckpt_claim(&st.s, &fits, 0, live, &out) == L7_CKPT_ADOPT &&
	      st.s.stats.adopted == 1 && !held(&st.s, &t), "boundary: adopted");
	CHECK(l7_ckpt_claim(&st.s, &fits, 0, live, &out) == L7_CKPT_NONE,
	      "once");

	/* a busy record of a live owner: every segment goes to it */
	r = upsert(conn_of(t, 13));
	r.from = 2;
	r.conn.busy = true;
	put(&st, r);
	CHECK(l7_ckpt_claim(&st.s, &fits, 0, live, &out) == L7_CKPT_FORWARD &&
	      held(&st.s, &t), "busy: forwarded, kept");
	CHECK(l7_ckpt_claim(&st.s, &fits, 0, 0, &out) == L7_CKPT_REFUSE &&
	      st.s.stats.busy == 1, "busy, owner dead: reset");
}

static void walk_probe_expire(void)
{
	struct l7_ckpt_slot out[CAP_RECS + CAP_TOMBS];
	uint32_t idx[CAP_RECS + CAP_TOMBS], cursor = 0, n, total = 0, k;
	struct l7_ckpt_seg blind;
	struct l7_ckpt_slot one;
	struct store st;
	int i, steps = 0;

	store_init(&st);
	for (i = 0; i < 6; i++)		/* two evicted */
		put(&st, upsert(conn_of(tuple4(i, 9000 + i), 10 + i)));
	put(&st, delete_of(tuple4(2, 9002), 30));
	while (cursor < l7_ckpt_slots(&st.s)) {
		n = l7_ckpt_walk(&st.s, &cursor, 2, out + total, idx + total,
				 CAP_RECS);
		CHECK(n <= 2, "a step of 2 slots found %u", n);
		total += n;
		steps++;
	}
	CHECK(total == st.s.recs.count && total == 3, "%u records found",
	      total);
	CHECK(steps == (CAP_RECS + CAP_TOMBS + 1) / 2, "%d steps", steps);
	for (k = 0; k < total; k++)
		CHECK(held(&st.s, &out[k].conn.t) ==
		      &st.slots[idx[k]], "index %u", k);
	CHECK(!l7_ckpt_walk(&st.s, &cursor, 2, out, idx, 1), "done");
	cursor = 0;
	CHECK(l7_ckpt_walk(&st.s, &cursor, 100, out, NULL, 1) == 1 &&
	      cursor <= idx[0] + 1, "stops at max_out");

	/* two probes, then it expires; a late copy is stale */
	CHECK(!l7_ckpt_expire(&st.s, idx[0], &out[0].conn), "not probed");
	CHECK(l7_ckpt_probe_mark(&st.s, idx[0], &out[0].conn, 100), "mark");
	/* a blind segment right after the probe: no second probe */
	blind = seg_fits(&out[0].conn);
	blind.seq += 1u << 31;
	CHECK(l7_ckpt_adopt(&st.s, &blind, 300, &one) == L7_CKPT_WAIT,
	      "probe held off by the takeover's");
	CHECK(!l7_ckpt_expire(&st.s, idx[0], &out[0].conn), "probed once");
	CHECK(l7_ckpt_probe_mark(&st.s, idx[0], &out[0].conn, 1100), "again");
	CHECK(l7_ckpt_expire(&st.s, idx[0], &out[0].conn), "expired");
	CHECK(!held(&st.s, &out[0].conn.t) &&
	      st.s.stats.expired == 1, "gone, counted");
	CHECK(put(&st, upsert(out[0].conn)) == L7_CKPT_STALE, "late copy");
	CHECK(!l7_ckpt_probe_mark(&st.s, idx[0], &out[0].conn, 1200) &&
	      !l7_ckpt_expire(&st.s, idx[0], &out[0].conn), "a tombstone now");

	/* replaced since the walk: a newer record is not the one probed */
	CHECK(l7_ckpt_probe_mark(&st.s, idx[1], &out[1].conn, 0), "mark");
	CHECK(l7_ckpt_probe_mark(&st.s, idx[1], &out[1].conn, 0), "mark");
	one = out[1];
	one.conn.gen = 50;
	CHECK(put(&st, upsert(one.conn)) == L7_CKPT_STORED, "newer record");
	CHECK(!l7_ckpt_expire(&st.s, idx[1], &out[1].conn) &&
	      !l7_ckpt_expire(&st.s, idx[1], &one.conn),
	      "a newer record starts unprobed");
	CHECK(!l7_ckpt_probe_mark(&st.s, idx[1], &out[1].conn, 0),
	      "the old copy marks nothing");
	CHECK(st.s.stats.expired == 1, "one expired");
}

/*
 * A peer's record ends our copy of a connection only when it is newer
 * than our last record of it, and ours is at a boundary and not ending:
 * the resend of the boundary ours was adopted from, an old record of
 * ours the peer still had, or a connection in the middle of a request
 * (whose client's segments the peer forwards here) keep it.
 */
static void displaced_only_by_newer(void)
{
	struct l7_ckpt_conn k = { .gen = 1000 };

	CHECK(l7_ckpt_displaces(&k, 999, true, false), "newer: taken over");
	CHECK(!l7_ckpt_displaces(&k, 1000, true, false),
	      "the resend of the boundary ours was adopted from");
	CHECK(!l7_ckpt_displaces(&k, 1001, true, false), "an old one of ours");
	CHECK(!l7_ckpt_displaces(&k, 999, false, false),
	      "mid-request: forwarded here, kept");
	CHECK(!l7_ckpt_displaces(&k, 999, true, true), "ending already");
	k.gen = (uint64_t)1 << 62;
	CHECK(l7_ckpt_displaces(&k, ((uint64_t)1 << 62) - 1, true, false),
	      "generations compare as 64 bits");
}

int main(void)
{
	RUN(round_trip);
	RUN(wire_layout);
	RUN(every_truncation_refused);
	RUN(out_of_range_refused);
	RUN(writer_bounds);
	RUN(store_init_sizes);
	RUN(generation_order);
	RUN(delete_then_stale_upsert);
	RUN(eviction_counted);
	RUN(adopt_fitting);
	RUN(adopt_refused);
	RUN(slot_walk_finds_records);
	RUN(past_answer_waits_once);
	RUN(past_answers_within_gap_wait);
	RUN(past_answer_data_refuses);
	RUN(fields_in_range);
	RUN(generation_bounds);
	RUN(blind_segment_probed);
	RUN(walk_probe_expire);
	RUN(busy_record_resets);
	RUN(records_keep_their_owner);
	RUN(live_owner_forwards);
	RUN(displaced_only_by_newer);
	RUN(load_records);
	return l7_test_summary("conn_ckpt");
}
