// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for core/sync_peer.c, in two parts on every input.
 *
 * The input as a datagram: l7_sync_hdr_get() reads it exactly when a
 * reading written apart from it (in 128 bits, so nothing wraps) says it
 * is a v2 header with room for its records and tag, with record sizes
 * up to the largest a size_t holds; one that reads is written back byte
 * for byte by l7_sync_hdr_put().
 *
 * The input as what three directors side by side see on a link an
 * attacker holds, each the others' peer with a state of its own per
 * peer address (the glue's): datagrams sealed by any for any other,
 * delivered or not, late, again, to any director from any peer's
 * address (its sender's own included), and restarts of any.  The AEAD is
 * the glue's: a datagram here is any header a director sealed, never a
 * forged one, and it opens only at the director it was sealed for (its
 * destination address is in the associated data, sync_peer.h).  Each delivery goes through the wire, the precheck and (if
 * that lets it) the rule, as in the glue; UNKNOWN and NEW_PEER are
 * answered with a HELLO, sealed for that address and left to the input
 * to deliver.  What the rule promises:
 *   - nothing is taken (TAKE or NEW_PEER) by its own sender's director,
 *     nor twice by the same director, across restarts too;
 *   - nothing is taken as the datagram of another director than the one
 *     that sealed it (from another peer's address), whatever was
 *     delivered where before;
 *   - TAKE only from the sender accepted before it; a datagram of the
 *     accepted sender newer than its window's top always is taken;
 *   - nothing sealed before the receiver's start is taken; NEW_PEER only
 *     for a datagram sealed after the receiver drew that challenge;
 *   - once a director took a datagram of a peer's n-th start, it takes
 *     nothing of an earlier start of that peer;
 *   - what the precheck drops, the rule drops alike, changing nothing;
 *     a delivery changes the state of the address it came from only;
 *   - three fresh datagrams in turn leave two directors accepting each
 *     other, whatever came before.
 *
 * Input: pairs of bytes, an operation and its argument.
 */
#include "sync_peer.h"
#include "fuzz_util.h"

#define MIN_REC		24	/* an IPv4 DELETE (conn_ckpt.h) */
#define MAX_REC		104	/* an IPv6 UPSERT */
#define HELLO_LEN	(L7_SYNC_HDR_LEN + L7_SYNC_TAG_LEN)
#define MAX_SEALED	1024
#define SYNC_ID		0x5eed

/* ---- the input as a datagram ---- */

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static bool ref_readable(const uint8_t *d, size_t len, size_t min_rec,
			 size_t max_rec)
{
	unsigned __int128 count, body;	/* no product wraps */

	if (len < HELLO_LEN || d[0] != 2 || d[1] || !be64(d + 8) ||
	    !be64(d + 16))
		return false;
	count = d[2] << 8 | d[3];
	body = len - HELLO_LEN;
	return count * min_rec <= body && body <= count * max_rec;
}

static void datagram_round_trip(const uint8_t *data, size_t size)
{
	struct l7_sync_hdr h;
	uint8_t out[L7_SYNC_HDR_LEN];
	size_t min_rec = MIN_REC, max_rec = MAX_REC;
	int pass, r;

	for (pass = 0; pass < 2; pass++) {
		if (pass && size >= 2) {
			/* sizes from tiny to nearly SIZE_MAX */
			min_rec = (size_t)data[size - 1] << data[size - 2] % 64;
			max_rec = ~(size_t)0 >> data[size - 2] % 64;
		}
		r = l7_sync_hdr_get(data, size, min_rec, max_rec, &h);
		FUZZ_ASSERT(!r == ref_readable(data, size, min_rec, max_rec));
		if (r)
			continue;
		l7_sync_hdr_put(out, &h);
		FUZZ_ASSERT(!memcmp(out, data, sizeof(out)));
	}
}

/* ---- the input as what three directors see ---- */

#define SIDES		3

/*
 * A director: one sender id and one sequence of datagrams over all its
 * peers, and for each other director a peer state of its own (the glue's
 * struct l7_sync_remote), with a challenge of its own.
 */
struct side {
	struct l7_sync_peer p[SIDES];	/* p[j]: of director j; not p[self] */
	uint64_t seq;		/* of its last datagram, over all peers */
	int start;		/* how many times it started, from 1 */
	uint64_t started;	/* the clock at its start */
	uint64_t drawn[SIDES];	/* the clock when p[j]'s challenge was drawn */
	int newest_taken[SIDES]; /* director j's newest start it took from */
};

struct sealed {
	struct l7_sync_hdr h;
	size_t len;
	uint8_t wire[L7_SYNC_HDR_LEN];
	int side, to, start;	/* sealed by side for side to, at its start */
	uint64_t at;		/* the clock when sealed */
	bool taken[SIDES];
};

struct world {
	struct side s[SIDES];
	struct sealed d[MAX_SEALED];
	int n;
	uint64_t clock;		/* every start, draw and seal ticks it */
	uint64_t draws;
};

/* splitmix64 of a counter: as good as random, and never the same twice */
static uint64_t draw(struct world *w)
{
	uint64_t z;

	do {
		z = (w->draws += 0x9e3779b97f4a7c15ull);
		z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ z >> 27) * 0x94d049bb133111ebull;
		z ^= z >> 31;
	} while (!z);
	w->clock++;
	return z;
}

static void start(struct world *w, int i)
{
	struct side *s = &w->s[i];
	uint64_t self = draw(w);
	int j;

	for (j = 0; j < SIDES; j++) {
		if (j == i)
			continue;
		l7_sync_peer_init(&s->p[j], self, draw(w));
		s->drawn[j] = w->clock;
	}
	s->seq = 0;
	s->start++;
	s->started = w->clock;
}

/*
 * Side @i seals a datagram for side @to of @count records, @rec bytes
 * each: its index.
 */
static int seal(struct world *w, int i, int to, uint16_t count, size_t rec)
{
	struct side *s = &w->s[i];
	struct sealed *d;

	if (w->n == MAX_SEALED)
		return -1;
	d = &w->d[w->n];
	d->h = (struct l7_sync_hdr){
		.count = count, .sync_id = SYNC_ID, .sender = s->p[to].self,
		.seq = ++s->seq, .challenge = s->p[to].challenge,
		.echo = s->p[to].echo, .newest = w->clock,
	};
	d->len = HELLO_LEN + count * rec;
	l7_sync_hdr_put(d->wire, &d->h);
	d->side = i;
	d->to = to;
	d->start = s->start;
	d->at = ++w->clock;
	memset(d->taken, 0, sizeof(d->taken));
	return w->n++;
}

static bool hdr_eq(const struct l7_sync_hdr *a, const struct l7_sync_hdr *b)
{
	return a->count == b->count && a->sync_id == b->sync_id &&
	       a->sender == b->sender && a->seq == b->seq &&
	       a->challenge == b->challenge && a->echo == b->echo &&
	       a->newest == b->newest;
}

static bool peer_eq(const struct l7_sync_peer *a, const struct l7_sync_peer *b)
{
	return a->self == b->self && a->challenge == b->challenge &&
	       a->sender == b->sender && a->top == b->top &&
	       a->seen == b->seen && a->echo == b->echo;
}

/* Taken by side @to from the address of side @from. */
static void check_taken(struct world *w, int to, int from, struct sealed *d,
			enum l7_sync_verdict v)
{
	struct side *s = &w->s[to];

	/* never one director's datagram as another's */
	FUZZ_ASSERT(d->side == from);
	FUZZ_ASSERT(!d->taken[to]);
	FUZZ_ASSERT(d->at > s->started);
	FUZZ_ASSERT(d->start >= s->newest_taken[from]);
	if (v == L7_SYNC_NEW_PEER)
		FUZZ_ASSERT(d->to == to && d->at > s->drawn[from]);
	d->taken[to] = true;
	s->newest_taken[from] = d->start;
}

/*
 * Datagram @k delivered to side @to from the address of side @from (any
 * other than @to: the glue reads nothing from elsewhere), as the glue
 * receives it: with its state of @from.
 */
static enum l7_sync_verdict deliver(struct world *w, int k, int to, int from)
{
	struct sealed *d = &w->d[k];
	struct side *s = &w->s[to];
	struct l7_sync_peer *p = &s->p[from];
	struct l7_sync_peer was = *p, copy, others[SIDES];
	struct l7_sync_hdr h;
	enum l7_sync_verdict v;

	memcpy(others, s->p, sizeof(others));
	FUZZ_ASSERT(!l7_sync_hdr_get(d->wire, d->len, MIN_REC, MAX_REC, &h));
	FUZZ_ASSERT(hdr_eq(&h, &d->h));
	v = l7_sync_peer_precheck(p, &h);
	FUZZ_ASSERT((v == L7_SYNC_REFLECTED) ==
		    (d->side == to && d->start == s->start));
	if (v != L7_SYNC_TAKE) {
		copy = *p;
		FUZZ_ASSERT(l7_sync_peer_accept(&copy, &h) == v);
		FUZZ_ASSERT(peer_eq(&copy, p));
		FUZZ_ASSERT(v == L7_SYNC_REFLECTED ||
			    (h.sender == was.sender && h.seq <= was.top));
		return v;
	}
	/* sealed for another director: it does not open here (bad_hmac) */
	if (d->to != to)
		return L7_SYNC_UNKNOWN;
	v = l7_sync_peer_accept(p, &h);
	FUZZ_ASSERT(v != L7_SYNC_REFLECTED && v != L7_SYNC_REPLAY);
	if (was.sender && h.sender == was.sender)
		FUZZ_ASSERT(v == L7_SYNC_TAKE);
	else
		FUZZ_ASSERT(v == L7_SYNC_NEW_PEER || v == L7_SYNC_UNKNOWN);
	if (v == L7_SYNC_TAKE || v == L7_SYNC_NEW_PEER)
		check_taken(w, to, from, d, v);
	if (v == L7_SYNC_NEW_PEER) {
		FUZZ_ASSERT(p->sender == h.sender && p->top == h.seq);
		l7_sync_peer_rechallenge(p, draw(w));
		s->drawn[from] = w->clock;
	}
	if (v == L7_SYNC_UNKNOWN)
		FUZZ_ASSERT(p->sender == was.sender && p->top == was.top &&
			    p->seen == was.seen);
	if (v == L7_SYNC_UNKNOWN || v == L7_SYNC_NEW_PEER)
		seal(w, to, from, 0, 0);	/* the HELLO that answers */
	/* the state of @from moved, no other peer's */
	for (k = 0; k < SIDES; k++)
		if (k != to && k != from)
			FUZZ_ASSERT(peer_eq(&s->p[k], &others[k]));
	return v;
}

/* The @back-th newest datagram of side @i's current start, or -1. */
static int newest_of(const struct world *w, int i, int back)
{
	int k;

	for (k = w->n - 1; k >= 0; k--) {
		const struct sealed *d = &w->d[k];

		if (d->side == i && d->start == w->s[i].start && !back--)
			return k;
	}
	return -1;
}

/* Three fresh datagrams in turn between sides @i and @j, @i first. */
static void converge(struct world *w, int i, int j)
{
	int n, k, t;

	for (n = 0; n < 3; n++) {
		enum l7_sync_verdict v;

		k = seal(w, i, j, 0, 0);
		if (k < 0)
			return;
		v = deliver(w, k, j, i);
		FUZZ_ASSERT(v == L7_SYNC_TAKE || v == L7_SYNC_NEW_PEER ||
			    v == L7_SYNC_UNKNOWN);
		t = i;
		i = j;
		j = t;
	}
	FUZZ_ASSERT(w->s[i].p[j].sender == w->s[j].p[i].self &&
		    w->s[j].p[i].sender == w->s[i].p[j].self);
}

static void ops(const uint8_t *data, size_t size)
{
	static struct world w;
	size_t at;
	int k, i;

	memset(&w, 0, sizeof(w));
	for (i = 0; i < SIDES; i++)
		start(&w, i);
	for (at = 0; at + 2 <= size; at += 2) {
		uint8_t op = data[at], arg = data[at + 1];
		/* a director, and another */
		int j;

		i = (op >> 3) % SIDES;
		j = (i + 1 + (op >> 5 & 1)) % SIDES;
		switch (op % 8) {
		case 0:
			seal(&w, i, j, arg % 4, MIN_REC + arg / 4 % 81);
			break;
		case 1:	/* delivered from its sender, or a little late */
			k = newest_of(&w, i, arg % 4);
			if (k >= 0)
				deliver(&w, k, j, i);
			break;
		case 2:	/* anything ever sealed, to i, from any address */
		case 3:
			if (w.n)
				deliver(&w, (arg | (op >> 6) << 8) % w.n, i, j);
			break;
		case 4:
			start(&w, i);
			break;
		case 5:
			converge(&w, i, j);
			break;
		default:	/* sealed and delivered at once */
			k = seal(&w, i, j, arg % 2, MAX_REC);
			if (k >= 0)
				deliver(&w, k, j, i);
			break;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	datagram_round_trip(data, size);
	ops(data, size);
	return 0;
}
