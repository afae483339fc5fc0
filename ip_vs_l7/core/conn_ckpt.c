// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: checkpoints of client connections between two requests
 * (conn_ckpt.h).
 */
#include "conn_ckpt.h"
#include "l7_chash.h"
#include "tcp_guard.h"
#include "tcp_map.h"
#include "wire_be.h"

#define CKPT_REC_HEAD	12	/* kind, family, reserved, gen */
#define CKPT_BODY_LEN	56	/* an UPSERT's numbers after its tuple */
#define CKPT_LOAD_HEAD	16	/* a LOAD's before its addresses */
#define CKPT_FLAGS	(L7_CKPT_F_TS | L7_CKPT_F_SACK | L7_CKPT_F_BUSY)

/* ---- what a record may hold ---- */

static unsigned int addr_len(uint8_t family)
{
	return family == 4 ? 4 : family == 6 ? 16 : 0;
}

size_t l7_ckpt_rec_len(enum l7_ckpt_kind kind, uint8_t family)
{
	size_t tuple = 4 + 2 * addr_len(family);

	if (!addr_len(family))
		return 0;
	if (kind == L7_CKPT_DELETE)
		return CKPT_REC_HEAD + tuple;
	if (kind == L7_CKPT_UPSERT)
		return CKPT_REC_HEAD + tuple + CKPT_BODY_LEN;
	return 0;
}

size_t l7_ckpt_load_len(uint8_t vfamily, uint8_t rfamily)
{
	if (!addr_len(vfamily) || !addr_len(rfamily))
		return 0;
	return CKPT_LOAD_HEAD + addr_len(vfamily) + addr_len(rfamily);
}

static bool zero_from(const uint8_t *a, unsigned int from)
{
	for (; from < 16; from++)
		if (a[from])
			return false;
	return true;
}

/* One encoding per tuple: an IPv4 address's other 12 bytes are zero. */
static bool tuple_valid(const struct l7_ckpt_tuple *t)
{
	unsigned int n = addr_len(t->family);

	return n && t->cport && t->vport && zero_from(t->caddr, n) &&
	       zero_from(t->vaddr, n);
}

static bool wscale_valid(int8_t ws)
{
	return ws >= -1 && ws <= L7_CKPT_MAX_WSCALE;
}

static bool key_valid(const struct l7_ckpt_conn *c)
{
	return c->gen && tuple_valid(&c->t);
}

/*
 * The receive side: the client's next byte within the window the
 * director announced, which no 16-bit field shifted by 14 exceeds.
 */
static bool rcv_valid(const struct l7_ckpt_conn *c)
{
	return c->rcv_edge - c->rcv_wup <= L7_CKPT_MAX_WINDOW &&
	       l7_seq_between(c->rcv_nxt, c->rcv_wup, c->rcv_edge);
}

/*
 * The send side: at a boundary everything sent is acknowledged; the
 * first byte is less than 2^31 behind (the glue pulls it along past
 * 2^30, l7_take_client_ack()), so that modular comparisons with it mean what
 * they say; the largest window the client announced is one a window
 * field can announce, and no smaller than the one it announces now.
 */
static bool snd_valid(const struct l7_ckpt_conn *c)
{
	uint32_t win = (uint32_t)c->win << (c->c_wscale > 0 ? c->c_wscale : 0);

	return c->snd_una == c->snd_nxt &&
	       c->snd_nxt - c->snd_isn < 1u << 31 &&
	       c->max_window <= L7_CKPT_MAX_WINDOW && win <= c->max_window;
}

/* Timestamps: an age the client's PAWS still holds to; none without. */
static bool ts_valid(const struct l7_ckpt_conn *c)
{
	if (!c->ts)
		return !c->ts_recent && !c->ts_last && !c->ts_age;
	return c->ts_age < L7_CKPT_MAX_TS_AGE;
}

/* Window scaling is agreed both ways or neither (l7_client_new()). */
bool l7_ckpt_conn_valid(const struct l7_ckpt_conn *c)
{
	return key_valid(c) && c->mss >= L7_CKPT_MIN_MSS &&
	       wscale_valid(c->c_wscale) && wscale_valid(c->d_wscale) &&
	       (c->c_wscale < 0) == (c->d_wscale < 0) && rcv_valid(c) &&
	       snd_valid(c) && ts_valid(c);
}

static bool load_valid(const struct l7_ckpt_load *l)
{
	return l7_ckpt_load_len(l->vfamily, l->rfamily) && l->vport &&
	       l->rport && zero_from(l->vaddr, addr_len(l->vfamily)) &&
	       zero_from(l->raddr, addr_len(l->rfamily)) &&
	       l->outstanding <= L7_CKPT_MAX_LOAD;
}

static bool rec_valid(const struct l7_ckpt_rec *r)
{
	if (r->kind == L7_CKPT_LOAD)
		return load_valid(&r->load);
	if (r->kind == L7_CKPT_DELETE)
		return key_valid(&r->conn);
	return r->kind == L7_CKPT_UPSERT && l7_ckpt_conn_valid(&r->conn);
}

/* ---- writing ---- */

static uint8_t *put_key(uint8_t *p, enum l7_ckpt_kind kind,
			const struct l7_ckpt_conn *c)
{
	unsigned int n = addr_len(c->t.family);

	*p++ = kind;
	*p++ = c->t.family;
	p = l7_put16(p, 0);
	p = l7_put64(p, c->gen);
	p = l7_put16(p, c->t.cport);
	p = l7_put16(p, c->t.vport);
	__builtin_memcpy(p, c->t.caddr, n);
	__builtin_memcpy(p + n, c->t.vaddr, n);
	return p + 2 * n;
}

static void put_body(uint8_t *p, const struct l7_ckpt_conn *c)
{
	p = l7_put32(p, c->rcv_nxt);
	p = l7_put32(p, c->rcv_wup);
	p = l7_put32(p, c->rcv_edge);
	p = l7_put32(p, c->snd_una);
	p = l7_put32(p, c->snd_nxt);
	p = l7_put32(p, c->snd_isn);
	p = l7_put32(p, c->snd_wl1);
	p = l7_put32(p, c->max_window);
	p = l7_put32(p, c->ts_recent);
	p = l7_put32(p, c->ts_last);
	p = l7_put32(p, c->ts_age);
	p = l7_put32(p, c->requests);
	p = l7_put16(p, c->win);
	p = l7_put16(p, c->mss);
	*p++ = (uint8_t)c->c_wscale;
	*p++ = (uint8_t)c->d_wscale;
	*p++ = (c->ts ? L7_CKPT_F_TS : 0) | (c->sack ? L7_CKPT_F_SACK : 0) |
	       (c->busy ? L7_CKPT_F_BUSY : 0);
	*p = 0;
}

static void put_load(uint8_t *p, const struct l7_ckpt_load *l)
{
	unsigned int vn = addr_len(l->vfamily);

	*p++ = L7_CKPT_LOAD;
	*p++ = l->vfamily;
	p = l7_put16(p, 0);
	*p++ = l->rfamily;
	*p++ = 0;
	p = l7_put16(p, l->vport);
	p = l7_put16(p, l->rport);
	p = l7_put16(p, 0);
	p = l7_put32(p, l->outstanding);
	__builtin_memcpy(p, l->vaddr, vn);
	__builtin_memcpy(p + vn, l->raddr, addr_len(l->rfamily));
}

/* Bytes of @r on the wire; 0 for no kind. */
static size_t rec_len(const struct l7_ckpt_rec *r)
{
	if (r->kind == L7_CKPT_LOAD)
		return l7_ckpt_load_len(r->load.vfamily, r->load.rfamily);
	return l7_ckpt_rec_len(r->kind, r->conn.t.family);
}

void l7_ckpt_write_begin(struct l7_ckpt_writer *w, uint8_t *buf, size_t cap)
{
	*w = (struct l7_ckpt_writer){ .buf = buf, .cap = cap };
}

bool l7_ckpt_write_rec(struct l7_ckpt_writer *w, const struct l7_ckpt_rec *r)
{
	size_t n;
	uint8_t *p;

	if (!rec_valid(r) || w->count == 0xffff)
		return false;
	n = rec_len(r);
	if (n > w->cap - w->len)
		return false;
	if (r->kind == L7_CKPT_LOAD) {
		put_load(w->buf + w->len, &r->load);
	} else {
		p = put_key(w->buf + w->len, r->kind, &r->conn);
		if (r->kind == L7_CKPT_UPSERT)
			put_body(p, &r->conn);
	}
	w->len += n;
	w->count++;
	return true;
}

size_t l7_ckpt_write_end(const struct l7_ckpt_writer *w)
{
	return w->len;
}

/* ---- reading ---- */

static const uint8_t *get_key(const uint8_t *p, struct l7_ckpt_rec *r)
{
	unsigned int n;

	r->kind = p[0];
	r->conn.t.family = p[1];
	n = addr_len(p[1]);
	p += 4;
	r->conn.gen = l7_get64(&p);
	r->conn.t.cport = l7_get16(&p);
	r->conn.t.vport = l7_get16(&p);
	__builtin_memcpy(r->conn.t.caddr, p, n);
	__builtin_memcpy(r->conn.t.vaddr, p + n, n);
	return p + 2 * n;
}

static bool get_body(const uint8_t *p, struct l7_ckpt_conn *c)
{
	c->rcv_nxt = l7_get32(&p);
	c->rcv_wup = l7_get32(&p);
	c->rcv_edge = l7_get32(&p);
	c->snd_una = l7_get32(&p);
	c->snd_nxt = l7_get32(&p);
	c->snd_isn = l7_get32(&p);
	c->snd_wl1 = l7_get32(&p);
	c->max_window = l7_get32(&p);
	c->ts_recent = l7_get32(&p);
	c->ts_last = l7_get32(&p);
	c->ts_age = l7_get32(&p);
	c->requests = l7_get32(&p);
	c->win = l7_get16(&p);
	c->mss = l7_get16(&p);
	c->c_wscale = (int8_t)p[0];
	c->d_wscale = (int8_t)p[1];
	c->ts = p[2] & L7_CKPT_F_TS;
	c->sack = p[2] & L7_CKPT_F_SACK;
	c->busy = p[2] & L7_CKPT_F_BUSY;
	return !(p[2] & ~CKPT_FLAGS) && !p[3];
}

/* A LOAD at @p, @left bytes to the datagram's end: its length, or 0. */
static size_t get_load(const uint8_t *p, size_t left, struct l7_ckpt_rec *r)
{
	struct l7_ckpt_load *l = &r->load;
	unsigned int vn;
	size_t n;

	if (left < CKPT_LOAD_HEAD || p[5] || p[10] || p[11])
		return 0;
	n = l7_ckpt_load_len(p[1], p[4]);
	if (!n || n > left)
		return 0;
	*r = (struct l7_ckpt_rec){ .kind = L7_CKPT_LOAD };
	l->vfamily = p[1];
	l->rfamily = p[4];
	p += 6;
	l->vport = l7_get16(&p);
	l->rport = l7_get16(&p);
	p += 2;
	l->outstanding = l7_get32(&p);
	vn = addr_len(l->vfamily);
	__builtin_memcpy(l->vaddr, p, vn);
	__builtin_memcpy(l->raddr, p + vn, addr_len(l->rfamily));
	return load_valid(l) ? n : 0;
}

/* The record at @p, @left bytes to the datagram's end: its length, or 0. */
static size_t get_rec(const uint8_t *p, size_t left, struct l7_ckpt_rec *r)
{
	const uint8_t *body;
	size_t n;

	if (left < 4 || p[2] || p[3])
		return 0;
	if (p[0] == L7_CKPT_LOAD)
		return get_load(p, left, r);
	n = l7_ckpt_rec_len(p[0], p[1]);
	if (!n || n > left)
		return 0;
	*r = (struct l7_ckpt_rec){ 0 };
	body = get_key(p, r);
	if (r->kind == L7_CKPT_UPSERT && !get_body(body, &r->conn))
		return 0;
	return rec_valid(r) ? n : 0;
}

int l7_ckpt_read_begin(struct l7_ckpt_reader *r, const uint8_t *buf,
		       size_t len, uint16_t count)
{
	struct l7_ckpt_rec rec;
	size_t at = 0, n;
	uint16_t i;

	for (i = 0; i < count; i++, at += n) {
		n = get_rec(buf + at, len - at, &rec);
		if (!n)
			return -1;
	}
	if (at != len)
		return -1;
	*r = (struct l7_ckpt_reader){ .buf = buf, .len = len, .left = count };
	return 0;
}

bool l7_ckpt_read_next(struct l7_ckpt_reader *r, struct l7_ckpt_rec *out)
{
	size_t n;

	if (!r->left)
		return false;
	n = get_rec(r->buf + r->at, r->len - r->at, out);
	if (!n)
		return false;	/* read_begin() checked it: not reached */
	r->at += n;
	r->left--;
	return true;
}

/* ---- the store: slots in a hash table and in two age lists ---- */

/*
 * SipHash-2-4 of the tuple: the clients choose their addresses and
 * ports, and must not be able to make one chain long.
 */
static uint32_t tuple_hash(const struct l7_ckpt_store *s,
			   const struct l7_ckpt_tuple *t)
{
	uint8_t key[40] = { t->family, t->cport >> 8, t->cport,
			    t->vport >> 8, t->vport };

	__builtin_memcpy(key + 8, t->caddr, 16);
	__builtin_memcpy(key + 24, t->vaddr, 16);
	return (uint32_t)l7_siphash(s->key[0], s->key[1], key, sizeof(key)) &
	       (s->nbuckets - 1);
}

static bool tuple_eq(const struct l7_ckpt_tuple *a,
		     const struct l7_ckpt_tuple *b)
{
	return a->family == b->family && a->cport == b->cport &&
	       a->vport == b->vport &&
	       !__builtin_memcmp(a->caddr, b->caddr, sizeof(a->caddr)) &&
	       !__builtin_memcmp(a->vaddr, b->vaddr, sizeof(a->vaddr));
}

static uint32_t slot_find(const struct l7_ckpt_store *s,
			  const struct l7_ckpt_tuple *t)
{
	uint32_t i;

	for (i = s->buckets[tuple_hash(s, t)]; i != L7_CKPT_NIL;
	     i = s->slots[i].hnext)
		if (tuple_eq(&s->slots[i].conn.t, t))
			return i;
	return L7_CKPT_NIL;
}

static void list_add_tail(struct l7_ckpt_store *s, struct l7_ckpt_list *l,
			  uint32_t i)
{
	struct l7_ckpt_slot *e = &s->slots[i];

	e->prev = l->tail;
	e->next = L7_CKPT_NIL;
	if (l->tail == L7_CKPT_NIL)
		l->head = i;
	else
		s->slots[l->tail].next = i;
	l->tail = i;
	l->count++;
}

static void list_del(struct l7_ckpt_store *s, struct l7_ckpt_list *l,
		     uint32_t i)
{
	struct l7_ckpt_slot *e = &s->slots[i];

	if (e->prev == L7_CKPT_NIL)
		l->head = e->next;
	else
		s->slots[e->prev].next = e->next;
	if (e->next == L7_CKPT_NIL)
		l->tail = e->prev;
	else
		s->slots[e->next].prev = e->prev;
	l->count--;
}

static struct l7_ckpt_list *list_of(struct l7_ckpt_store *s, uint32_t i)
{
	return s->slots[i].tomb ? &s->tombs : &s->recs;
}

static void slot_unhash(struct l7_ckpt_store *s, uint32_t i)
{
	uint32_t *pp = &s->buckets[tuple_hash(s, &s->slots[i].conn.t)];

	while (*pp != i)
		pp = &s->slots[*pp].hnext;
	*pp = s->slots[i].hnext;
}

/*
 * The oldest of @l goes.  What the store forgets raises its floor: no
 * record at or below it comes back for a tuple it no longer holds.
 */
static void evict_oldest(struct l7_ckpt_store *s, struct l7_ckpt_list *l)
{
	uint32_t i = l->head;
	struct l7_ckpt_slot *e = &s->slots[i];

	if (e->conn.gen > s->floor)
		s->floor = e->conn.gen;
	if (e->tomb)
		s->stats.evicted_tombs++;
	else
		s->stats.evicted++;
	list_del(s, l, i);
	slot_unhash(s, i);
	/* free: no tuple, so that a walk by index tells it without a hash */
	e->conn.t.family = 0;
	e->hnext = s->free;
	s->free = i;
}

/* A free slot for @l, pushing out its oldest if it is full. */
static uint32_t slot_new(struct l7_ckpt_store *s, struct l7_ckpt_list *l,
			 uint32_t cap, const struct l7_ckpt_tuple *t)
{
	uint32_t i, b;

	if (l->count == cap)
		evict_oldest(s, l);
	i = s->free;
	s->free = s->slots[i].hnext;
	b = tuple_hash(s, t);
	s->slots[i].conn.t = *t;
	s->slots[i].hnext = s->buckets[b];
	s->buckets[b] = i;
	s->slots[i].tomb = l == &s->tombs;
	list_add_tail(s, l, i);
	return i;
}

/* Slot @i (in either list) is the newest of @l now. */
static void slot_move(struct l7_ckpt_store *s, uint32_t i,
		      struct l7_ckpt_list *l, uint32_t cap)
{
	list_del(s, list_of(s, i), i);
	if (l->count == cap)
		evict_oldest(s, l);
	s->slots[i].tomb = l == &s->tombs;
	list_add_tail(s, l, i);
}

int l7_ckpt_store_init(struct l7_ckpt_store *s, struct l7_ckpt_slot *slots,
		       uint32_t rec_cap, uint32_t tomb_cap, uint32_t *buckets,
		       uint32_t nbuckets, const uint64_t key[2])
{
	uint32_t i;

	if (!rec_cap || !tomb_cap || rec_cap >= L7_CKPT_NIL - tomb_cap ||
	    !nbuckets || (nbuckets & (nbuckets - 1)))
		return -1;
	*s = (struct l7_ckpt_store){
		.slots = slots, .buckets = buckets, .nbuckets = nbuckets,
		.key = { key[0], key[1] }, .rec_cap = rec_cap, .tomb_cap = tomb_cap,
		.recs = { L7_CKPT_NIL, L7_CKPT_NIL, 0 },
		.tombs = { L7_CKPT_NIL, L7_CKPT_NIL, 0 },
	};
	for (i = 0; i < nbuckets; i++)
		buckets[i] = L7_CKPT_NIL;
	/* zeroed: a slot never used holds no tuple (l7_ckpt_slot_live()) */
	for (i = 0; i < rec_cap + tomb_cap; i++)
		slots[i] = (struct l7_ckpt_slot){
			.hnext = i + 1 < rec_cap + tomb_cap ? i + 1 :
							      L7_CKPT_NIL,
		};
	return 0;
}

/*
 * A generation too far ahead of the newest taken (L7_CKPT_GEN_*).  The
 * first record a store takes is bounded by 2^63 only: it has nothing to
 * compare with, and honest generations are counted from an epoch.
 */
static bool gen_ahead(const struct l7_ckpt_store *s, uint64_t gen)
{
	return gen >= L7_CKPT_GEN_MAX ||
	       (s->newest && gen > s->newest &&
		gen - s->newest > L7_CKPT_GEN_AHEAD);
}

static void gen_taken(struct l7_ckpt_store *s, uint64_t gen)
{
	if (gen > s->newest)
		s->newest = gen;
}

/*
 * @c is its writer's resend of the record slot @e holds (the same
 * generation, writer and boundary): what the client's ACK brought since.
 * Never of a tombstone: a connection adopted stays adopted.
 */
static bool resends(const struct l7_ckpt_slot *e, const struct l7_ckpt_conn *c,
		    uint8_t from)
{
	return !e->tomb && c->gen == e->conn.gen && from == e->owner &&
	       !c->busy && !e->conn.busy && c->rcv_nxt == e->conn.rcv_nxt &&
	       c->snd_nxt == e->conn.snd_nxt;
}

/*
 * An UPSERT newer than everything known of its tuple becomes its record;
 * its writer's resend of the record held refreshes it.
 */
static enum l7_ckpt_applied ckpt_upsert(struct l7_ckpt_store *s,
					const struct l7_ckpt_conn *c,
					uint8_t from, uint32_t now_ms)
{
	uint32_t i = slot_find(s, &c->t);

	if (i == L7_CKPT_NIL) {
		if (c->gen <= s->floor)
			goto stale;
		i = slot_new(s, &s->recs, s->rec_cap, &c->t);
	} else {
		if (resends(&s->slots[i], c, from)) {
			s->slots[i].conn = *c;
			s->slots[i].ts_off = l7_ckpt_ts_offset(c, now_ms);
			s->stats.stored++;
			return L7_CKPT_REFRESHED;
		}
		if (c->gen <= s->slots[i].conn.gen)
			goto stale;
		slot_move(s, i, &s->recs, s->rec_cap);
	}
	s->slots[i].conn = *c;
	s->slots[i].waited = false;
	s->slots[i].probes = 0;
	s->slots[i].probe_any = false;
	s->slots[i].owner = from;
	s->slots[i].ts_off = l7_ckpt_ts_offset(c, now_ms);
	gen_taken(s, c->gen);
	s->stats.stored++;
	return L7_CKPT_STORED;
stale:
	s->stats.stale++;
	return L7_CKPT_STALE;
}

/* The tuple's record, if any, becomes a tombstone of generation @gen. */
static void slot_bury(struct l7_ckpt_store *s, uint32_t i, uint64_t gen)
{
	slot_move(s, i, &s->tombs, s->tomb_cap);
	s->slots[i].conn = (struct l7_ckpt_conn){ .t = s->slots[i].conn.t,
						  .gen = gen };
	s->slots[i].ts_off = 0;
	s->slots[i].probes = 0;
	s->slots[i].probe_any = false;
}

/*
 * A DELETE wins over a record of its generation or older, and leaves a
 * tombstone that refuses any later copy of those.
 */
static enum l7_ckpt_applied ckpt_delete(struct l7_ckpt_store *s,
					const struct l7_ckpt_conn *c)
{
	uint32_t i = slot_find(s, &c->t);

	if (i == L7_CKPT_NIL) {
		if (c->gen <= s->floor)
			goto stale;
		i = slot_new(s, &s->tombs, s->tomb_cap, &c->t);
	} else if (c->gen < s->slots[i].conn.gen ||
		   (s->slots[i].tomb && c->gen == s->slots[i].conn.gen)) {
		goto stale;
	}
	slot_bury(s, i, c->gen);
	gen_taken(s, c->gen);
	s->stats.deleted++;
	return L7_CKPT_DELETED;
stale:
	s->stats.stale++;
	return L7_CKPT_STALE;
}

enum l7_ckpt_applied l7_ckpt_apply(struct l7_ckpt_store *s,
				   const struct l7_ckpt_rec *r,
				   uint32_t now_ms)
{
	if (r->kind == L7_CKPT_LOAD)
		return L7_CKPT_STALE;	/* no checkpoint: not the store's */
	if (gen_ahead(s, r->conn.gen)) {
		s->stats.ahead++;
		s->stats.stale++;
		return L7_CKPT_STALE;
	}
	if (r->kind == L7_CKPT_DELETE)
		return ckpt_delete(s, &r->conn);
	return ckpt_upsert(s, &r->conn, r->from, now_ms);
}

uint32_t l7_ckpt_bucket(const struct l7_ckpt_store *s,
			const struct l7_ckpt_tuple *t)
{
	return tuple_hash(s, t);
}

bool l7_ckpt_match(const struct l7_ckpt_conn *c, const struct l7_ckpt_seg *g)
{
	struct l7_tcp_opts o = {
		.present = g->has_ts ? L7_TCPO_TS : 0,
		.tsval = g->tsval,
	};

	if ((g->flags & (L7_TCPF_SYN | L7_TCPF_RST)) ||
	    !(g->flags & L7_TCPF_ACK))
		return false;
	return g->seq == c->rcv_nxt &&
	       l7_seq_between(g->ack, c->snd_una, c->snd_nxt) &&
	       l7_tcp_paws_ok(c->ts, false, &o, c->ts_recent);
}

bool l7_ckpt_slot_live(const struct l7_ckpt_store *s, uint32_t i)
{
	/* a free slot has no family (evict_oldest(), l7_ckpt_store_init()) */
	return i < l7_ckpt_slots(s) && !s->slots[i].tomb &&
	       s->slots[i].conn.t.family;
}

uint32_t l7_ckpt_walk(const struct l7_ckpt_store *s, uint32_t *cursor,
		      uint32_t max_slots, struct l7_ckpt_slot *out,
		      uint32_t *idx, uint32_t max_out)
{
	uint32_t i = *cursor, end = l7_ckpt_slots(s), n = 0;

	if (i >= end)
		return 0;
	if (max_slots < end - i)
		end = i + max_slots;
	for (; i < end && n < max_out; i++) {
		if (!l7_ckpt_slot_live(s, i))
			continue;
		out[n] = s->slots[i];
		if (idx)
			idx[n] = i;
		n++;
	}
	*cursor = i;
	return n;
}

/* Slot @i still holds the record @k was copied from. */
static bool slot_holds(const struct l7_ckpt_store *s, uint32_t i,
		       const struct l7_ckpt_conn *k)
{
	return l7_ckpt_slot_live(s, i) && s->slots[i].conn.gen == k->gen &&
	       tuple_eq(&s->slots[i].conn.t, &k->t);
}

bool l7_ckpt_probe_mark(struct l7_ckpt_store *s, uint32_t i,
			const struct l7_ckpt_conn *k, uint32_t now_ms)
{
	struct l7_ckpt_slot *e = &s->slots[i];

	if (!slot_holds(s, i, k))
		return false;
	if (e->probes < 0xff)
		e->probes++;
	e->probe_at = now_ms;
	e->probe_any = true;
	return true;
}

bool l7_ckpt_expire(struct l7_ckpt_store *s, uint32_t i,
		    const struct l7_ckpt_conn *k)
{
	if (!slot_holds(s, i, k) || s->slots[i].probes < L7_CKPT_PROBES)
		return false;
	slot_bury(s, i, s->slots[i].conn.gen);
	s->stats.expired++;
	return true;
}

bool l7_ckpt_past(const struct l7_ckpt_conn *c, const struct l7_ckpt_seg *g)
{
	struct l7_ckpt_seg at = *g;

	if (g->len || g->flags != L7_TCPF_ACK || g->seq == c->rcv_nxt ||
	    !l7_seq_between(g->seq, c->rcv_nxt, c->rcv_edge))
		return false;
	at.seq = c->rcv_nxt;
	return l7_ckpt_match(c, &at);
}

/*
 * Whether @g may end its record: a seq in [rcv_wup, rcv_edge], as a live
 * connection takes it (tcp_accept.c), and a RST only exactly at rcv_nxt
 * (RFC 5961 3.2: a RST elsewhere in the window gets a challenge ACK).
 */
static bool in_window(const struct l7_ckpt_conn *c,
		      const struct l7_ckpt_seg *g)
{
	if (g->flags & L7_TCPF_RST)
		return g->seq == c->rcv_nxt;
	return l7_seq_between(g->seq, c->rcv_wup, c->rcv_edge);
}

/*
 * Out of the window: whoever sent it does not know the connection, or it
 * is an old duplicate.  The record stays; its probe asks the client for
 * its numbers, at most once per L7_CKPT_PROBE_GAP_MS.
 */
static enum l7_ckpt_verdict blind(struct l7_ckpt_store *s, uint32_t i,
				  uint32_t now_ms, struct l7_ckpt_slot *out)
{
	struct l7_ckpt_slot *e = &s->slots[i];

	s->stats.blind++;
	if (e->probe_any && now_ms - e->probe_at < L7_CKPT_PROBE_GAP_MS)
		return L7_CKPT_WAIT;
	e->probe_at = now_ms;
	e->probe_any = true;
	*out = *e;
	return L7_CKPT_PROBE;
}

/* l7_ckpt_adopt() for the record in slot @i */
static enum l7_ckpt_verdict adopt_slot(struct l7_ckpt_store *s, uint32_t i,
				       const struct l7_ckpt_seg *g,
				       uint32_t now_ms,
				       struct l7_ckpt_slot *out)
{
	bool fits;

	if (!in_window(&s->slots[i].conn, g))
		return blind(s, i, now_ms, out);
	if (s->slots[i].conn.busy) {
		s->stats.busy++;
		slot_bury(s, i, s->slots[i].conn.gen);
		return L7_CKPT_REFUSE;
	}
	if (l7_ckpt_past(&s->slots[i].conn, g) &&
	    (!s->slots[i].waited ||
	     now_ms - s->slots[i].wait_at < L7_CKPT_PAST_GAP_MS)) {
		if (!s->slots[i].waited) {
			s->slots[i].waited = true;
			s->slots[i].wait_at = now_ms;
		}
		s->stats.waited++;
		return L7_CKPT_WAIT;
	}
	fits = l7_ckpt_match(&s->slots[i].conn, g);
	if (fits) {
		*out = s->slots[i];
		s->stats.adopted++;
	} else {
		s->stats.refused++;
	}
	slot_bury(s, i, s->slots[i].conn.gen);
	return fits ? L7_CKPT_ADOPT : L7_CKPT_REFUSE;
}

enum l7_ckpt_verdict l7_ckpt_adopt(struct l7_ckpt_store *s,
				   const struct l7_ckpt_seg *g,
				   uint32_t now_ms, struct l7_ckpt_slot *out)
{
	uint32_t i = slot_find(s, &g->t);

	if (i == L7_CKPT_NIL || s->slots[i].tomb)
		return L7_CKPT_NONE;
	return adopt_slot(s, i, g, now_ms, out);
}

enum l7_ckpt_verdict l7_ckpt_claim(struct l7_ckpt_store *s,
				   const struct l7_ckpt_seg *g,
				   uint32_t now_ms, uint32_t live,
				   struct l7_ckpt_slot *out)
{
	uint32_t i = slot_find(s, &g->t);
	const struct l7_ckpt_slot *e;

	if (i == L7_CKPT_NIL || s->slots[i].tomb)
		return L7_CKPT_NONE;
	e = &s->slots[i];
	if (e->owner >= 32 || !(live & (1u << e->owner)) ||
	    (!e->conn.busy && !(g->flags & L7_TCPF_RST) &&
	     l7_ckpt_match(&e->conn, g)))
		return adopt_slot(s, i, g, now_ms, out);
	*out = *e;
	s->stats.forwarded++;
	return L7_CKPT_FORWARD;
}
