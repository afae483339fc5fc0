// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/sync_peer.c: the v2 header reads back as
 * written, big-endian where the header says, and nothing with a wrong
 * version, a reserved byte, sender or sequence number 0 or a length that
 * cannot hold its records is read at all; the key derivation's message
 * and the nonce byte for byte.  Then the peer rule between two simulated
 * directors A and B that exchange headers (the AEAD is the glue's: here
 * every header delivered counts as authentic): they accept each other
 * within a few datagrams whichever starts first, even when their first
 * HELLOs cross; nothing taken once is taken again, nothing of our own is
 * taken, and after either end restarts nothing sealed by an earlier
 * start is taken; the window's edges.  Last, a director of two peers,
 * one state for each: neither's datagrams are taken at the other's.
 */
#include <string.h>

#include "sync_peer.h"
#include "l7_test.h"

#define SYNC_ID		0x0a0b0c0d
#define HELLO_LEN	(L7_SYNC_HDR_LEN + L7_SYNC_TAG_LEN)
#define MIN_REC		24	/* an IPv4 DELETE (conn_ckpt.h) */
#define MAX_REC		104	/* an IPv6 UPSERT */
#define MAX_SEALED	64

/* ---- the header ---- */

static struct l7_sync_hdr hdr_of(uint16_t count)
{
	return (struct l7_sync_hdr){
		.count = count, .sync_id = 0x01020304,
		.sender = 0x1112131415161718ull, .seq = 0x2122232425262728ull,
		.challenge = 0x3132333435363738ull,
		.echo = 0x4142434445464748ull, .newest = 0x5152535455565758ull,
	};
}

static bool hdr_eq(const struct l7_sync_hdr *a, const struct l7_sync_hdr *b)
{
	return a->count == b->count && a->sync_id == b->sync_id &&
	       a->sender == b->sender && a->seq == b->seq &&
	       a->challenge == b->challenge && a->echo == b->echo &&
	       a->newest == b->newest;
}

static int get(const uint8_t *buf, size_t len, struct l7_sync_hdr *h)
{
	return l7_sync_hdr_get(buf, len, MIN_REC, MAX_REC, h);
}

/* Every field where the header says, big-endian; read back alike. */
static void hdr_layout(void)
{
	struct l7_sync_hdr in = hdr_of(0x0102), out;
	uint8_t buf[HELLO_LEN + 0x0102 * MIN_REC];
	int i;

	memset(buf, 0xee, sizeof(buf));
	l7_sync_hdr_put(buf, &in);
	CHECK(buf[0] == 2 && buf[1] == 0, "version %u reserved %u", buf[0],
	      buf[1]);
	CHECK(buf[2] == 1 && buf[3] == 2, "count");
	CHECK(buf[4] == 1 && buf[5] == 2 && buf[6] == 3 && buf[7] == 4,
	      "sync id");
	for (i = 0; i < 8; i++) {
		CHECK(buf[8 + i] == 0x11 + i, "sender byte %d", i);
		CHECK(buf[16 + i] == 0x21 + i, "seq byte %d", i);
		CHECK(buf[24 + i] == 0x31 + i, "challenge byte %d", i);
		CHECK(buf[32 + i] == 0x41 + i, "echo byte %d", i);
		CHECK(buf[40 + i] == 0x51 + i, "newest byte %d", i);
	}
	CHECK(buf[L7_SYNC_HDR_LEN] == 0xee, "wrote past the header");
	CHECK(!get(buf, sizeof(buf), &out), "read");
	CHECK(hdr_eq(&in, &out), "read back differs");
}

/* All ones and the smallest valid values survive the trip too. */
static void hdr_extremes(void)
{
	struct l7_sync_hdr in = {
		.count = 0, .sync_id = 0xffffffff, .sender = ~0ull,
		.seq = ~0ull, .challenge = ~0ull, .echo = ~0ull,
		.newest = ~0ull,
	}, out;
	uint8_t buf[HELLO_LEN] = { 0 };

	l7_sync_hdr_put(buf, &in);
	CHECK(!get(buf, sizeof(buf), &out) && hdr_eq(&in, &out), "all ones");
	in = (struct l7_sync_hdr){ .sender = 1, .seq = 1 };
	l7_sync_hdr_put(buf, &in);
	CHECK(!get(buf, sizeof(buf), &out) && hdr_eq(&in, &out), "ones");
}

/* A HELLO is 64 bytes exactly; the sync id is the caller's to check. */
static void hdr_hello(void)
{
	struct l7_sync_hdr in = hdr_of(0), out;
	uint8_t buf[HELLO_LEN + 1] = { 0 };

	l7_sync_hdr_put(buf, &in);
	CHECK(!get(buf, 64, &out), "HELLO of 64 bytes");
	CHECK(get(buf, HELLO_LEN - 1, &out), "one byte short");
	CHECK(get(buf, HELLO_LEN + 1, &out), "one byte over");
	CHECK(get(buf, 0, &out) && get(buf, L7_SYNC_HDR_LEN, &out),
	      "no tag");
	in.sync_id = 0;
	l7_sync_hdr_put(buf, &in);
	CHECK(!get(buf, HELLO_LEN, &out) && out.sync_id == 0, "sync id 0");
}

/* @in with byte @off set to @val is not read. */
static void refused(const struct l7_sync_hdr *in, int off, uint8_t val,
		    const char *what)
{
	struct l7_sync_hdr out;
	uint8_t buf[HELLO_LEN] = { 0 };

	l7_sync_hdr_put(buf, in);
	buf[off] = val;
	CHECK(get(buf, sizeof(buf), &out), "%s read", what);
}

/* Each field that makes a header unreadable, alone. */
static void hdr_refused(void)
{
	struct l7_sync_hdr in = hdr_of(0);

	refused(&in, 0, 0, "version 0");
	refused(&in, 0, 1, "version 1");
	refused(&in, 0, 3, "version 3");
	refused(&in, 1, 1, "reserved 1");
	refused(&in, 1, 0x80, "reserved 0x80");
	in.sender = 0;
	refused(&in, 1, 0, "sender 0");
	in = hdr_of(0);
	in.seq = 0;
	refused(&in, 1, 0, "seq 0");
}

static bool fits(uint16_t count, size_t body, size_t min_rec, size_t max_rec)
{
	struct l7_sync_hdr in = hdr_of(count), out;
	uint8_t buf[HELLO_LEN];

	/* only the header is read: the length may exceed the buffer */
	l7_sync_hdr_put(buf, &in);
	return !l7_sync_hdr_get(buf, HELLO_LEN + body, min_rec, max_rec,
				&out);
}

/* count * min_rec <= body <= count * max_rec, and nothing wraps. */
static void hdr_lengths(void)
{
	const size_t big = (size_t)-1;

	CHECK(fits(1, MIN_REC, MIN_REC, MAX_REC), "one smallest");
	CHECK(fits(1, MAX_REC, MIN_REC, MAX_REC), "one largest");
	CHECK(!fits(1, MIN_REC - 1, MIN_REC, MAX_REC), "one short");
	CHECK(!fits(1, MAX_REC + 1, MIN_REC, MAX_REC), "one long");
	CHECK(!fits(1, 0, MIN_REC, MAX_REC), "one, no bytes");
	CHECK(fits(2, 2 * MIN_REC, MIN_REC, MAX_REC), "two smallest");
	CHECK(fits(2, MIN_REC + MAX_REC, MIN_REC, MAX_REC), "two mixed");
	CHECK(fits(2, 2 * MAX_REC, MIN_REC, MAX_REC), "two largest");
	CHECK(!fits(2, 2 * MIN_REC - 1, MIN_REC, MAX_REC), "two short");
	CHECK(!fits(2, 2 * MAX_REC + 1, MIN_REC, MAX_REC), "two long");
	CHECK(fits(3, 3 * MAX_REC - 1, MIN_REC, MAX_REC), "three, odd");
	CHECK(!fits(0, 1, MIN_REC, MAX_REC), "HELLO with a byte");
	CHECK(fits(17, 17 * 80, MIN_REC, MAX_REC), "17 IPv4 UPSERTs");
	CHECK(fits(0xffff, 0xffffull * MAX_REC, MIN_REC, MAX_REC),
	      "65535 largest");
	CHECK(!fits(0xffff, 0xffffull * MAX_REC + 1, MIN_REC, MAX_REC),
	      "65535 largest and a byte");
	CHECK(!fits(0xffff, 0xffffull * MIN_REC - 1, MIN_REC, MAX_REC),
	      "65535 smallest less a byte");
	/* sizes a multiplication would wrap */
	CHECK(fits(0xffff, big - HELLO_LEN, 1, big), "any size, the most");
	CHECK(!fits(0xffff, 0xfffe, 1, big), "any size, too few");
	CHECK(fits(2, 100, 0, big / 2 + 11), "2 * max wraps to 20");
	CHECK(!fits(2, 100, big / 2 + 11, big), "2 * min wraps to 20");
	CHECK(!fits(2, big - HELLO_LEN, 0, big / 4), "a quarter each");
	CHECK(fits(2, big - HELLO_LEN, 0, big / 2), "half each");
	CHECK(!fits(0xffff, 0, big, big), "huge records, no bytes");
	CHECK(!fits(1, big - HELLO_LEN, big, big), "huge record, too few");
	CHECK(fits(0, 0, MAX_REC, MIN_REC), "min above max, no records");
	CHECK(!fits(1, 50, MAX_REC, MIN_REC), "min above max");
}

/* The key derivation's message and the nonce, byte for byte. */
static void kdf_and_nonce(void)
{
	static const uint8_t msg_want[] = {
		'i', 'p', '_', 'v', 's', '_', 'l', '7', ' ', 's', 'y', 'n',
		'c', ' ', 'v', '2', 0x0a, 0x0b, 0x0c, 0x0d, 0x01, 0x02, 0x03,
		0x04, 0x05, 0x06, 0x07, 0x08,
	};
	static const uint8_t nonce_want[] = {
		0, 0, 0, 0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
	};
	uint8_t msg[L7_SYNC_KDF_LEN + 1], nonce[L7_SYNC_NONCE_LEN + 1];

	CHECK(sizeof(msg_want) == L7_SYNC_KDF_LEN, "KDF length %zu",
	      (size_t)L7_SYNC_KDF_LEN);
	memset(msg, 0xee, sizeof(msg));
	l7_sync_kdf_msg(msg, SYNC_ID, 0x0102030405060708ull);
	CHECK(!memcmp(msg, msg_want, sizeof(msg_want)), "KDF message");
	CHECK(msg[L7_SYNC_KDF_LEN] == 0xee, "wrote past the KDF message");
	memset(nonce, 0xee, sizeof(nonce));
	l7_sync_nonce(nonce, 0xf1f2f3f4f5f6f7f8ull);
	CHECK(!memcmp(nonce, nonce_want, sizeof(nonce_want)), "nonce");
	CHECK(nonce[L7_SYNC_NONCE_LEN] == 0xee, "wrote past the nonce");
}

/* The destination in the associated data: IPv6 as it is, IPv4 mapped. */
static void dest_bytes(void)
{
	static const uint8_t v4[] = { 203, 0, 113, 2 };
	static const uint8_t v4_want[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 203, 0, 113, 2,
	};
	static const uint8_t v6[] = {
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	};
	uint8_t out[L7_SYNC_DEST_LEN + 1];

	memset(out, 0xee, sizeof(out));
	l7_sync_dest(out, true, v4);
	CHECK(!memcmp(out, v4_want, sizeof(v4_want)), "IPv4 mapped");
	CHECK(out[L7_SYNC_DEST_LEN] == 0xee, "wrote past the address");
	l7_sync_dest(out, false, v6);
	CHECK(!memcmp(out, v6, sizeof(v6)), "IPv6 as it is");
	CHECK(out[L7_SYNC_DEST_LEN] == 0xee, "wrote past the address");
}

/* ---- two directors ---- */

struct dir {
	struct l7_sync_peer p;
	uint64_t seq;		/* of our last datagram */
	const char *name;
};

/* A random 64-bit number as the glue draws them: never 0. */
static uint64_t draw(void)
{
	uint64_t v;

	do
		v = l7_rand();
	while (!v);
	return v;
}

static void start(struct dir *d, const char *name)
{
	l7_sync_peer_init(&d->p, draw(), draw());
	d->seq = 0;
	d->name = name;
}

/* The header of @d's next datagram, a HELLO. */
static struct l7_sync_hdr seal(struct dir *d)
{
	return (struct l7_sync_hdr){
		.sync_id = SYNC_ID, .sender = d->p.self, .seq = ++d->seq,
		.challenge = d->p.challenge, .echo = d->p.echo,
	};
}

static bool peer_eq(const struct l7_sync_peer *a, const struct l7_sync_peer *b)
{
	return a->self == b->self && a->challenge == b->challenge &&
	       a->sender == b->sender && a->top == b->top &&
	       a->seen == b->seen && a->echo == b->echo;
}

/*
 * @h received by @d as the glue receives it: through the wire, the
 * precheck, then (the AEAD passed) the rule, and a new challenge on
 * NEW_PEER.  What precheck drops, the rule would have dropped alike and
 * left the state as it was.
 */
static enum l7_sync_verdict deliver(struct dir *d, const struct l7_sync_hdr *h)
{
	struct l7_sync_peer was = d->p;
	struct l7_sync_hdr got;
	enum l7_sync_verdict v, again;
	uint8_t buf[HELLO_LEN];

	l7_sync_hdr_put(buf, h);
	CHECK(!get(buf, sizeof(buf), &got) && hdr_eq(h, &got), "%s: wire",
	      d->name);
	v = l7_sync_peer_precheck(&d->p, &got);
	if (v != L7_SYNC_TAKE) {
		again = l7_sync_peer_accept(&d->p, &got);
		CHECK(again == v && peer_eq(&was, &d->p),
		      "%s: precheck %d, rule %d", d->name, v, again);
		return v;
	}
	v = l7_sync_peer_accept(&d->p, &got);
	if (v == L7_SYNC_NEW_PEER)
		l7_sync_peer_rechallenge(&d->p, draw());
	return v;
}

static bool mutual(const struct dir *a, const struct dir *b)
{
	return a->p.sender == b->p.self && b->p.sender == a->p.self;
}

/*
 * @first and @second take turns, each sealing a datagram the other
 * receives (a HELLO answers UNKNOWN and NEW_PEER; here every turn sends
 * one, as a director with records to send would): the datagrams until
 * both have accepted each other, or 0 if not within @max.
 */
static int converge(struct dir *first, struct dir *second, int max)
{
	struct dir *from = first, *to = second, *t;
	int n;

	for (n = 1; n <= max; n++) {
		struct l7_sync_hdr h = seal(from);
		enum l7_sync_verdict v = deliver(to, &h);

		CHECK(v == L7_SYNC_TAKE || v == L7_SYNC_NEW_PEER ||
		      v == L7_SYNC_UNKNOWN, "%s: fresh datagram %d",
		      to->name, v);
		if (mutual(first, second))
			return n;
		t = from;
		from = to;
		to = t;
	}
	return 0;
}

/* A is up, its first HELLO lost; B starts and both accept in 3. */
static void handshake_one_first(void)
{
	struct dir a, b;
	struct l7_sync_hdr h;
	int n;

	start(&a, "A");
	seal(&a);		/* to nobody */
	start(&b, "B");
	h = seal(&b);
	CHECK(deliver(&a, &h) == L7_SYNC_UNKNOWN, "B's HELLO at A");
	CHECK(a.p.echo == b.p.challenge, "A echoes B's challenge");
	CHECK(a.p.sender == 0, "A accepted from a HELLO echoing 0");
	h = seal(&a);
	CHECK(deliver(&b, &h) == L7_SYNC_NEW_PEER, "A's answer at B");
	h = seal(&b);
	CHECK(deliver(&a, &h) == L7_SYNC_NEW_PEER, "B's answer at A");
	CHECK(mutual(&a, &b), "accepted");
	h = seal(&a);
	CHECK(deliver(&b, &h) == L7_SYNC_TAKE, "A's next at B");
	h = seal(&b);
	CHECK(deliver(&a, &h) == L7_SYNC_TAKE, "B's next at A");

	start(&a, "A");
	start(&b, "B");
	n = converge(&b, &a, 10);
	CHECK(n >= 2 && n <= 3, "B first: %d datagrams", n);
}

/* Both start at once, their HELLOs cross, and each answers the other. */
static void handshake_crossing(void)
{
	struct dir a, b;
	struct l7_sync_hdr ha, hb;

	start(&a, "A");
	start(&b, "B");
	ha = seal(&a);
	hb = seal(&b);
	CHECK(deliver(&b, &ha) == L7_SYNC_UNKNOWN, "A's HELLO at B");
	CHECK(deliver(&a, &hb) == L7_SYNC_UNKNOWN, "B's HELLO at A");
	ha = seal(&a);
	hb = seal(&b);
	CHECK(deliver(&b, &ha) == L7_SYNC_NEW_PEER, "A's answer at B");
	CHECK(deliver(&a, &hb) == L7_SYNC_NEW_PEER, "B's answer at A");
	CHECK(mutual(&a, &b), "accepted");
	/* both drew new challenges: the next datagrams still go through */
	ha = seal(&a);
	hb = seal(&b);
	CHECK(deliver(&b, &ha) == L7_SYNC_TAKE, "A's next at B");
	CHECK(deliver(&a, &hb) == L7_SYNC_TAKE, "B's next at A");
	CHECK(a.p.echo == b.p.challenge && b.p.echo == a.p.challenge,
	      "each echoes the other's new challenge");
}

/* The answers cross too: one end accepts first, the other next. */
static void handshake_answers_cross(void)
{
	struct dir a, b;
	struct l7_sync_hdr ha, hb;

	start(&a, "A");
	start(&b, "B");
	hb = seal(&b);
	CHECK(deliver(&a, &hb) == L7_SYNC_UNKNOWN, "B's HELLO at A");
	ha = seal(&a);		/* A's answer, echoing B */
	hb = seal(&b);		/* B's resend, echoing nothing */
	CHECK(deliver(&a, &hb) == L7_SYNC_UNKNOWN, "B's resend at A");
	CHECK(deliver(&b, &ha) == L7_SYNC_NEW_PEER, "A's answer at B");
	CHECK(converge(&b, &a, 3) == 1, "B's next gets B accepted");
}

/* Converged pairs whatever the start and loss, in a handful. */
static void handshake_lossy(void)
{
	int round, i, worst = 0;

	for (round = 0; round < 200; round++) {
		struct dir a, b;
		int n;

		start(&a, "A");
		start(&b, "B");
		/* a few datagrams each, some delivered, some lost */
		for (i = 0; i < 6; i++) {
			struct dir *from = l7_rand() & 1 ? &a : &b;
			struct dir *to = from == &a ? &b : &a;
			struct l7_sync_hdr h = seal(from);

			if (l7_rand() & 1)
				deliver(to, &h);
		}
		if (l7_rand() & 1)
			n = converge(&a, &b, 8);
		else
			n = converge(&b, &a, 8);
		if (!n || n > worst)
			worst = n ? n : 99;
	}
	CHECK(worst <= 4, "worst: %d datagrams", worst);
}

/* Two directors that have accepted each other. */
static void pair(struct dir *a, struct dir *b)
{
	start(a, "A");
	start(b, "B");
	CHECK(converge(a, b, 4), "pair");
}

/* Whatever was taken, records or HELLOs, a second copy is a replay. */
static void replay_taken(void)
{
	struct l7_sync_hdr sent[40];
	struct dir a, b;
	int i;

	pair(&a, &b);
	for (i = 0; i < 40; i++) {
		sent[i] = seal(&a);
		if (i % 3 != 1)	/* some reordered: taken later */
			CHECK(deliver(&b, &sent[i]) == L7_SYNC_TAKE, "%d", i);
	}
	for (i = 1; i < 40; i += 3)
		CHECK(deliver(&b, &sent[i]) == L7_SYNC_TAKE, "late %d", i);
	for (i = 0; i < 40; i++)
		CHECK(deliver(&b, &sent[i]) == L7_SYNC_REPLAY, "again %d", i);
	/* the handshake's own datagrams too */
	for (i = 1; i <= 2; i++) {
		struct l7_sync_hdr h = sent[0];

		h.seq = i;
		CHECK(deliver(&b, &h) == L7_SYNC_REPLAY, "handshake %d", i);
	}
}

/* Our own datagrams sent back are dropped, and change nothing. */
static void reflected(void)
{
	struct dir a, b;
	struct l7_sync_hdr h;

	start(&a, "A");
	h = seal(&a);
	CHECK(deliver(&a, &h) == L7_SYNC_REFLECTED, "before a peer");
	h.echo = a.p.challenge;	/* even one that echoes us */
	CHECK(deliver(&a, &h) == L7_SYNC_REFLECTED, "echoing us");
	CHECK(a.p.sender == 0 && a.p.echo == 0, "state changed");
	pair(&a, &b);
	h = seal(&a);
	CHECK(deliver(&a, &h) == L7_SYNC_REFLECTED, "with a peer");
	h = seal(&b);
	CHECK(deliver(&b, &h) == L7_SYNC_REFLECTED, "B's own");
}

/*
 * B restarts: nothing A sealed before is ever taken by the new B, even
 * datagrams B never received; A's datagrams after B's HELLO are.
 */
static void restart_receiver(void)
{
	struct l7_sync_hdr old[MAX_SEALED], h;
	struct dir a, b;
	int i, n;

	pair(&a, &b);
	for (i = 0; i < MAX_SEALED; i++) {
		old[i] = seal(&a);
		if (i % 2)
			deliver(&b, &old[i]);
	}
	start(&b, "B2");
	for (i = 0; i < MAX_SEALED; i++)
		CHECK(deliver(&b, &old[i]) == L7_SYNC_UNKNOWN,
		      "old %d before the handshake", i);
	h = seal(&b);
	CHECK(deliver(&a, &h) != L7_SYNC_UNKNOWN ||
	      a.p.echo == b.p.challenge, "B2's HELLO at A");
	h = seal(&a);
	CHECK(deliver(&b, &h) == L7_SYNC_NEW_PEER, "A's answer at B2");
	for (i = 0; i < MAX_SEALED; i++)
		CHECK(deliver(&b, &old[i]) == L7_SYNC_REPLAY,
		      "old %d after the handshake", i);
	n = converge(&b, &a, 4);
	CHECK(n, "A accepts B2");
	h = seal(&a);
	CHECK(deliver(&b, &h) == L7_SYNC_TAKE, "A's next at B2");
}

/*
 * The same with B's HELLO held up: a datagram A sealed after B's
 * restart but before it heard B does not echo B, and is not taken.
 */
static void restart_receiver_slow_hello(void)
{
	struct l7_sync_hdr h, before;
	struct dir a, b;

	pair(&a, &b);
	start(&b, "B2");
	before = seal(&a);
	CHECK(deliver(&b, &before) == L7_SYNC_UNKNOWN, "not heard B2 yet");
	h = seal(&b);
	deliver(&a, &h);
	h = seal(&a);
	CHECK(deliver(&b, &h) == L7_SYNC_NEW_PEER, "heard B2");
	CHECK(deliver(&b, &before) == L7_SYNC_REPLAY, "the one before");
}

/*
 * A restarts as A2 and B accepts it: no datagram of A1 is taken again,
 * not even one sealed last, echoing B's challenge of then, that B never
 * received.
 */
static void restart_sender(void)
{
	struct l7_sync_hdr old[MAX_SEALED], h;
	struct dir a, b;
	int i;

	pair(&a, &b);
	h = seal(&b);		/* A hears B's challenge of now */
	CHECK(deliver(&a, &h) == L7_SYNC_TAKE, "B's at A");
	for (i = 0; i < MAX_SEALED; i++) {
		old[i] = seal(&a);
		if (i < MAX_SEALED / 2)
			deliver(&b, &old[i]);
	}
	CHECK(old[MAX_SEALED - 1].echo == b.p.challenge,
	      "A1's last echoes B's challenge");
	start(&a, "A2");
	CHECK(converge(&a, &b, 4), "A2 and B");
	CHECK(b.p.sender == a.p.self, "B accepted A2");
	for (i = 0; i < MAX_SEALED; i++) {
		CHECK(deliver(&b, &old[i]) == L7_SYNC_UNKNOWN, "A1's %d at B",
		      i);
		CHECK(deliver(&a, &old[i]) == L7_SYNC_UNKNOWN,
		      "A1's %d at A2", i);
	}
	CHECK(mutual(&a, &b), "A1's datagrams undid the pair");
	h = seal(&a);
	CHECK(deliver(&b, &h) == L7_SYNC_TAKE, "A2's next");
}

/* Both restart; the old pair's datagrams reach neither new one. */
static void restart_both(void)
{
	struct l7_sync_hdr old[16];
	struct dir a, b;
	int i;

	pair(&a, &b);
	for (i = 0; i < 16; i++)
		old[i] = seal(i % 2 ? &a : &b);
	start(&a, "A2");
	start(&b, "B2");
	for (i = 0; i < 16; i++) {
		CHECK(deliver(&a, &old[i]) == L7_SYNC_UNKNOWN, "%d at A2", i);
		CHECK(deliver(&b, &old[i]) == L7_SYNC_UNKNOWN, "%d at B2", i);
	}
	CHECK(converge(&a, &b, 4), "A2 and B2");
	for (i = 0; i < 16; i++) {
		CHECK(deliver(&a, &old[i]) == L7_SYNC_UNKNOWN, "%d at A2", i);
		CHECK(deliver(&b, &old[i]) == L7_SYNC_UNKNOWN, "%d at B2", i);
	}
}

/* ---- the window ---- */

/* @p accepted a sender by its datagram @seq. */
static void met_at(struct l7_sync_peer *p, uint64_t seq)
{
	struct l7_sync_hdr h = { .sender = 7, .seq = seq, .echo = 99 };

	l7_sync_peer_init(p, 1, 99);
	CHECK(l7_sync_peer_accept(p, &h) == L7_SYNC_NEW_PEER, "met at %llu",
	      (unsigned long long)seq);
	l7_sync_peer_rechallenge(p, 100);
}

static enum l7_sync_verdict offer(struct l7_sync_peer *p, uint64_t seq)
{
	struct l7_sync_hdr h = { .sender = 7, .seq = seq, .echo = 100 };
	enum l7_sync_verdict pre = l7_sync_peer_precheck(p, &h);
	enum l7_sync_verdict v = l7_sync_peer_accept(p, &h);

	CHECK(pre == v, "seq %llu: precheck %d, rule %d", (unsigned long long)seq, pre,
	      v);
	return v;
}

/* Nothing numbered up to the accepting datagram is taken after it. */
static void window_starts_at_meeting(void)
{
	struct l7_sync_peer p;
	uint64_t s;

	met_at(&p, 1000);
	for (s = 900; s <= 1000; s++)
		CHECK(offer(&p, s) == L7_SYNC_REPLAY, "seq %llu",
		      (unsigned long long)s);
	CHECK(offer(&p, 1002) == L7_SYNC_TAKE, "1002");
	CHECK(offer(&p, 1001) == L7_SYNC_TAKE, "1001, late");
	CHECK(offer(&p, 1001) == L7_SYNC_REPLAY, "1001 again");
	met_at(&p, 3);		/* below the window's width */
	CHECK(offer(&p, 1) == L7_SYNC_REPLAY && offer(&p, 2) == L7_SYNC_REPLAY,
	      "below 3");
	CHECK(offer(&p, 4) == L7_SYNC_TAKE, "4");
}

static void window_edges(void)
{
	struct l7_sync_peer p;

	met_at(&p, 1000);
	CHECK(offer(&p, 1000 + 1000000) == L7_SYNC_TAKE, "far ahead");
	CHECK(offer(&p, 1000) == L7_SYNC_REPLAY, "the old top");
	CHECK(offer(&p, 1001000 - 63) == L7_SYNC_TAKE, "63 behind");
	CHECK(offer(&p, 1001000 - 63) == L7_SYNC_REPLAY, "63 behind again");
	CHECK(offer(&p, 1001000 - 64) == L7_SYNC_REPLAY, "64 behind");
	CHECK(offer(&p, 1001000 - 1) == L7_SYNC_TAKE, "1 behind");

	/* a step of 63 keeps the old top in the window, one of 64 not */
	met_at(&p, 1000);
	CHECK(offer(&p, 1063) == L7_SYNC_TAKE, "63 ahead");
	CHECK(offer(&p, 1000) == L7_SYNC_REPLAY, "old top, 63 behind");
	CHECK(offer(&p, 1001) == L7_SYNC_TAKE, "62 behind");
	CHECK(offer(&p, 1001 + 64) == L7_SYNC_TAKE, "1065");
	CHECK(offer(&p, 1001) == L7_SYNC_REPLAY, "64 behind now");
	CHECK(offer(&p, 1002) == L7_SYNC_TAKE, "63 behind now");
	CHECK(offer(&p, 1063) == L7_SYNC_REPLAY, "1063 kept");
	met_at(&p, 1000);
	CHECK(offer(&p, 1064) == L7_SYNC_TAKE, "64 ahead");
	CHECK(offer(&p, 1001) == L7_SYNC_TAKE, "1001, 63 behind");
	CHECK(offer(&p, 1000) == L7_SYNC_REPLAY, "old top, 64 behind");
	CHECK(p.top == 1064, "top %llu", (unsigned long long)p.top);
}

/* The last sequence numbers: no wrap, nothing after the last. */
static void window_at_the_end(void)
{
	struct l7_sync_peer p;
	const uint64_t last = ~0ull;

	met_at(&p, 1);
	CHECK(offer(&p, last) == L7_SYNC_TAKE, "the last");
	CHECK(offer(&p, last) == L7_SYNC_REPLAY, "the last again");
	CHECK(offer(&p, last - 63) == L7_SYNC_TAKE, "63 before the last");
	CHECK(offer(&p, last - 64) == L7_SYNC_REPLAY, "64 before the last");
	CHECK(offer(&p, 1) == L7_SYNC_REPLAY, "1");
	CHECK(offer(&p, 0) == L7_SYNC_REPLAY, "0");
	met_at(&p, last);
	CHECK(offer(&p, last) == L7_SYNC_REPLAY, "met at the last");
	CHECK(offer(&p, last - 1) == L7_SYNC_REPLAY, "before the last");
}

/* Random offers around the top against a set of what was taken. */
static void window_model(void)
{
	static bool taken[4096];
	struct l7_sync_peer p;
	uint64_t top = 100;
	int i;

	memset(taken, 0, sizeof(taken));
	met_at(&p, 100);
	for (i = 0; i <= 100; i++)
		taken[i] = true;
	for (i = 0; i < 20000; i++) {
		uint64_t s = top + 8 - l7_rand() % 80;
		bool want = s < sizeof(taken) && !taken[s] &&
			    (s > top || top - s < L7_SYNC_WINDOW);
		enum l7_sync_verdict v;

		if (s >= sizeof(taken))
			break;
		v = offer(&p, s);
		CHECK(v == (want ? L7_SYNC_TAKE : L7_SYNC_REPLAY),
		      "seq %llu top %llu: %d", (unsigned long long)s,
		      (unsigned long long)top, v);
		if (v == L7_SYNC_TAKE) {
			taken[s] = true;
			if (s > top)
				top = s;
		}
	}
	CHECK(p.top == top, "top %llu, want %llu", (unsigned long long)p.top,
	      (unsigned long long)top);
}

/* ---- the echo ---- */

/* A late datagram's challenge, replaced since, is not echoed. */
static void echo_from_newest(void)
{
	struct l7_sync_peer p;
	struct l7_sync_hdr h = { .sender = 7, .seq = 5, .echo = 100,
				 .challenge = 0xa1 };

	met_at(&p, 3);
	CHECK(l7_sync_peer_accept(&p, &h) == L7_SYNC_TAKE, "5");
	CHECK(p.echo == 0xa1, "echo %llx", (unsigned long long)p.echo);
	h.seq = 4;
	h.challenge = 0xa0;
	CHECK(l7_sync_peer_accept(&p, &h) == L7_SYNC_TAKE, "4, late");
	CHECK(p.echo == 0xa1, "echo %llx", (unsigned long long)p.echo);
	h.seq = 5;
	CHECK(l7_sync_peer_accept(&p, &h) == L7_SYNC_REPLAY, "5 again");
	CHECK(p.echo == 0xa1, "echo after a replay");
}

/*
 * Directors side by side: C holds one state per peer address, each with
 * its own challenge, and numbers its datagrams once over both.  A and B
 * are each accepted at their own state; a datagram A sealed for C,
 * delivered at B's state (sent from B's address), echoes the wrong
 * challenge and is not taken, and B's acceptance stands.  C's datagrams
 * to A skip the numbers it gave B's: taken all the same, each once.
 */
static void several_peers(void)
{
	struct dir a, b, ca, cb;
	struct l7_sync_hdr h, old;
	enum l7_sync_verdict v;
	int i;

	start(&a, "A");
	start(&b, "B");
	start(&ca, "C@A");
	cb = ca;
	cb.name = "C@B";
	l7_sync_peer_init(&cb.p, ca.p.self, draw());
	CHECK(converge(&a, &ca, 8) > 0, "A and C meet");
	CHECK(converge(&b, &cb, 8) > 0, "B and C meet");
	CHECK(ca.p.challenge != cb.p.challenge, "one challenge per peer");

	/* A echoes the challenge C's state for it holds now */
	h = seal(&ca);
	CHECK(deliver(&a, &h) == L7_SYNC_TAKE, "C's datagram at A");
	CHECK(a.p.echo == ca.p.challenge, "A echoes C's current challenge");
	h = seal(&a);
	v = deliver(&cb, &h);
	CHECK(v == L7_SYNC_UNKNOWN, "A's datagram at B's state: %d", v);
	CHECK(cb.p.sender == b.p.self, "B still accepted at its state");
	h = seal(&b);
	CHECK(deliver(&cb, &h) == L7_SYNC_TAKE, "B's next datagram");
	h = seal(&a);
	CHECK(deliver(&ca, &h) == L7_SYNC_TAKE, "A's next datagram at A's");

	/* one counter over both peers: gaps at each, every one taken once */
	for (i = 0; i < 10; i++) {
		struct dir *to = i % 2 ? &cb : &ca;
		struct dir *at = i % 2 ? &b : &a;

		cb.seq = ca.seq = (ca.seq > cb.seq ? ca.seq : cb.seq);
		h = seal(to);
		if (i == 4)
			old = h;
		CHECK(deliver(at, &h) == L7_SYNC_TAKE, "C's datagram %d at %s",
		      i, at->name);
	}
	CHECK(deliver(&a, &old) == L7_SYNC_REPLAY, "a replay at A");
}

/* A challenge of 0 accepts no one: 0 is what a HELLO echoes first. */
static void challenge_zero(void)
{
	struct l7_sync_peer p;
	struct l7_sync_hdr h = { .sender = 7, .seq = 1, .challenge = 5 };

	l7_sync_peer_init(&p, 1, 0);
	CHECK(l7_sync_peer_accept(&p, &h) == L7_SYNC_UNKNOWN, "echo 0");
	CHECK(p.sender == 0 && p.echo == 5, "state");
	l7_sync_peer_rechallenge(&p, 9);
	h.seq = 2;
	h.echo = 9;
	CHECK(l7_sync_peer_accept(&p, &h) == L7_SYNC_NEW_PEER, "echo 9");
	l7_sync_peer_rechallenge(&p, 10);
	h.sender = 8;		/* echoing the challenge replaced */
	CHECK(l7_sync_peer_accept(&p, &h) == L7_SYNC_UNKNOWN, "echo 9 again");
	CHECK(p.sender == 7, "sender %llu", (unsigned long long)p.sender);
}

int main(void)
{
	RUN(hdr_layout);
	RUN(hdr_extremes);
	RUN(hdr_hello);
	RUN(hdr_refused);
	RUN(hdr_lengths);
	RUN(kdf_and_nonce);
	RUN(dest_bytes);
	RUN(handshake_one_first);
	RUN(handshake_crossing);
	RUN(handshake_answers_cross);
	RUN(handshake_lossy);
	RUN(replay_taken);
	RUN(reflected);
	RUN(restart_receiver);
	RUN(restart_receiver_slow_hello);
	RUN(restart_sender);
	RUN(restart_both);
	RUN(window_starts_at_meeting);
	RUN(window_edges);
	RUN(window_at_the_end);
	RUN(window_model);
	RUN(echo_from_newest);
	RUN(challenge_zero);
	RUN(several_peers);
	return l7_test_summary("sync_peer");
}
