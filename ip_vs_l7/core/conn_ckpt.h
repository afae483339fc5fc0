/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: checkpoints of client connections between two requests,
 * for a backup director to take them over.
 *
 * Between two requests a client connection holds no request head, no
 * binding and no backend state: the director's side of TCP towards the
 * client is all there is, a few numbers.  A checkpoint carries them to
 * the backup, which keeps the newest one per connection (the store
 * below) and, when the client's next segment reaches it after a
 * failover, adopts the connection if that segment fits the checkpoint
 * exactly.  Anything else in the connection's window drops the
 * checkpoint: the client then gets what it gets without one (a RST),
 * never a connection in a wrong state.  A segment out of the window is
 * dropped and answered with a probe of the connection, whose client
 * then answers with its own numbers: a blind guess at the tuple ends no
 * checkpoint.
 *
 * What a checkpoint holds (struct l7_ckpt_conn), from struct l7_conn:
 *   tuple             caddr:cport -> vaddr:vport, IPv4 or IPv6: the key
 *   rcv_nxt           c_rcv_nxt: the client's next byte; its next request
 *                     starts there, and an adopted segment must too
 *   rcv_wup           c_acked: the ACK last sent, the receive window's
 *                     left edge for tcp_accept.c (and its TS.Recent rule)
 *   rcv_edge          c_rcv_edge: the right edge announced to the client,
 *                     which Linux never shrinks: a client may fill it
 *   snd_una, snd_nxt  d_snd_una, d_snd_nxt: what the director sent and
 *                     what of it the client acknowledged; a client ACK
 *                     outside them is not of this connection
 *   snd_isn           d_snd_isn: bounds how old an ACK may be and still
 *                     be only old (tcp_accept.c, RFC 5961 5.2)
 *   win, snd_wl1      c_win, c_wl1: the client's window field and the seq
 *                     that set it, so that its window moves as before
 *   max_window        c_max_win: the largest window it announced
 *   c_wscale          the shift of its window field, or -1
 *   d_wscale          the shift it applies to the director's, or -1
 *   mss               c_mss: what one segment to the client carries
 *   ts, sack          timestamps and SACK as agreed in the handshake
 *   ts_recent         c_tsval: TS.Recent, the client's newest TSval; it
 *                     seeds the backup's PAWS check
 *   ts_last, ts_age   d_ts_last, and how many ms before the record was
 *                     written it was sent: the director's TSval clock of
 *                     the connection, which the client's PAWS check holds
 *                     the backup to (l7_ckpt_ts_offset())
 *   requests          how many requests it had, for the counters
 *   gen               the record's generation (below)
 * Not carried: the request head, bindings and reply (empty between
 * requests), c_fin (a client that sent FIN is closing: its connection
 * gets a DELETE, not a record), the clock, the progress floors and the
 * challenge-ACK limit (a connection adopted starts them afresh).
 *
 * A busy record (flag busy) is the same UPSERT of a connection that has
 * had no record yet and whose request has been under way for sync_idle:
 * its numbers are those of the moment it was written, and it is never
 * adopted - the backup cannot finish a response it never saw.  It is
 * there so that its client, which waits for that response and may send
 * nothing for as long as its own timeout, is found: the takeover's probe
 * draws an ACK from it, and any segment of the client in the record's
 * window buries the record and is answered, as with no record, by a RST
 * at the segment's ACK (one out of the window by the probe and that RST).
 * The client learns at once that its request is lost.
 *
 * Generations.  Every record a sender writes, UPSERT or DELETE, has a
 * greater generation than any record it wrote before for the same tuple,
 * including for an earlier connection on that tuple - but the resend of
 * a boundary's record, below; a sender's counter is raised past the
 * generation of any record it adopts.  The store takes an UPSERT only if
 * it is newer than anything it holds or has forgotten for the tuple, so
 * a late or duplicated record never replaces a newer one and never
 * brings back a connection that ended.  A writer resends the record of a
 * boundary that lasts (with what the client's ACK brought since, or in
 * case the first was lost) under the generation the first went with: it
 * says nothing newer, so a director that adopted the connection from the
 * first - whose own records are newer than that - is never displaced by
 * it.  Such a resend refreshes the record held (same writer, same
 * boundary; REFRESHED), never a tombstone.
 *
 * The records on the wire (the datagram around them: sync_peer.h), all
 * integers big-endian:
 *   UPSERT  kind u8 (1), family u8 (4 or 6), reserved u16 (0), gen u64,
 *           cport u16, vport u16, caddr, vaddr (4 or 16 bytes each),
 *           rcv_nxt, rcv_wup, rcv_edge, snd_una, snd_nxt, snd_isn,
 *           snd_wl1, max_window, ts_recent, ts_last, ts_age, requests
 *           (u32 each), win u16, mss u16, c_wscale s8, d_wscale s8,
 *           flags u8 (1 ts, 2 sack, 4 busy), reserved u8 (0)
 *   DELETE  kind u8 (2), family, reserved u16 (0), gen u64, ports and
 *           addresses as above
 *   LOAD    kind u8 (3), VIP family u8, reserved u16 (0), real server
 *           family u8, reserved u8 (0), vport u16, rport u16, reserved
 *           u16 (0), outstanding u32, vaddr, raddr (4 or 16 bytes each)
 * A LOAD is no checkpoint: directors side by side tell each other how
 * many requests each has outstanding on each real server of each
 * service, for the tier's balance (l7_wlo_peers(), sched_wlo.h).
 * A datagram's records are taken all or none: a nonzero reserved byte, a
 * record cut short, an unknown kind or family, a field out of its range,
 * fewer or more records than its header counts, or a byte after the last
 * refuses all of them.
 */
#ifndef _IP_VS_L7_CORE_CONN_CKPT_H
#define _IP_VS_L7_CORE_CONN_CKPT_H

#include "l7_types.h"
#include "tcp_pmtu.h"

#define L7_CKPT_REC_MIN		24	/* an IPv4 DELETE or LOAD */
#define L7_CKPT_REC_MAX		104	/* an IPv6 UPSERT */
#define L7_CKPT_MAX_WSCALE	14	/* RFC 7323 2.3 */

enum l7_ckpt_kind {
	L7_CKPT_UPSERT = 1,
	L7_CKPT_DELETE = 2,
	L7_CKPT_LOAD = 3,
};

#define L7_CKPT_F_TS	0x01
#define L7_CKPT_F_SACK	0x02
#define L7_CKPT_F_BUSY	0x04

/* A client connection's key; an IPv4 address is in the first 4 bytes. */
struct l7_ckpt_tuple {
	uint8_t family;		/* 4 or 6 */
	uint8_t caddr[16];	/* network order, the rest zero for IPv4 */
	uint8_t vaddr[16];
	uint16_t cport;		/* host order */
	uint16_t vport;
};

/* The director's side of TCP towards a client, between two requests. */
struct l7_ckpt_conn {
	struct l7_ckpt_tuple t;
	uint64_t gen;
	uint32_t rcv_nxt;
	uint32_t rcv_wup;
	uint32_t rcv_edge;
	uint32_t snd_una;
	uint32_t snd_nxt;
	uint32_t snd_isn;
	uint32_t snd_wl1;
	uint32_t max_window;
	uint32_t ts_recent;
	uint32_t ts_last;
	uint32_t ts_age;	/* ms from ts_last to the record's writing */
	uint32_t requests;
	uint16_t win;
	uint16_t mss;
	int8_t c_wscale;
	int8_t d_wscale;
	bool ts;
	bool sack;
	bool busy;	/* a request under way: never adopted (above) */
};

/*
 * A director's requests outstanding on one real server of one service
 * (kind LOAD), at most L7_CKPT_MAX_LOAD: more than any server holds, and
 * the sum over IPVS_L7_SYNC_PEERS_MAX peers stays far inside an int.
 */
#define L7_CKPT_MAX_LOAD	(1u << 20)

struct l7_ckpt_load {
	uint8_t vfamily;	/* 4 or 6 */
	uint8_t rfamily;
	uint8_t vaddr[16];	/* network order, the rest zero for IPv4 */
	uint8_t raddr[16];
	uint16_t vport;		/* host order */
	uint16_t rport;
	uint32_t outstanding;
};

/*
 * One decoded record; a DELETE has only ->conn.t and ->conn.gen, a LOAD
 * only ->load.  ->from
 * is not on the wire: the caller's number for the director it came from
 * (the channel's peer), which the store keeps with the record.
 */
struct l7_ckpt_rec {
	enum l7_ckpt_kind kind;
	struct l7_ckpt_conn conn;
	struct l7_ckpt_load load;
	uint8_t from;
};

/*
 * Bytes of one UPSERT or DELETE of @family on the wire; 0 if neither (a
 * LOAD's length depends on two families: l7_ckpt_load_len()).
 */
size_t l7_ckpt_rec_len(enum l7_ckpt_kind kind, uint8_t family);

/* Bytes of one LOAD of those families; 0 if either is neither 4 nor 6. */
size_t l7_ckpt_load_len(uint8_t vfamily, uint8_t rfamily);

/*
 * The ranges of a record's fields: those a live Linux connection (and
 * the director's own, which it mirrors) can have at a request boundary.
 * A record is the peer's word, and the connection adopted from it goes
 * into code that divides by its MSS and compares its sequence numbers
 * modulo 2^32: outside these, that code would not be safe.
 *   mss         the floor Linux holds a peer's MSS to (tcp_min_snd_mss,
 *               tcp_pmtu.h), which the director keeps on ICMP too
 *   windows     a 16-bit field shifted by at most 14 (RFC 7323 2.3)
 *   ts_age      below 24 days: beyond that the client's PAWS forgets
 *               TS.Recent (RFC 7323 5.5, TCP_PAWS_24DAYS), and below
 *               2^31 the TSval the adopter sends stays after ts_last
 */
#define L7_CKPT_MIN_MSS		L7_TCP_MIN_SND_MSS
#define L7_CKPT_MAX_WINDOW	(65535u << L7_CKPT_MAX_WSCALE)
#define L7_CKPT_MAX_TS_AGE	(24u * 24 * 3600 * 1000)	/* ms */

/*
 * Generations: a record at or above 2^63, or more than 2^56 above the
 * newest the store has taken, is refused (counted as ahead).  Honest
 * generations count nanoseconds from an epoch: 2^56 ns is over two
 * years.  One bogus record cannot push the floor (evict_oldest()) to
 * where no genuine record is ever newer again.
 */
#define L7_CKPT_GEN_MAX		(1ull << 63)
#define L7_CKPT_GEN_AHEAD	(1ull << 56)

/*
 * Whether @c may be written: every field in its range (above), as
 * decoding asks.
 */
bool l7_ckpt_conn_valid(const struct l7_ckpt_conn *c);

/* ---- writing a datagram's records ---- */

struct l7_ckpt_writer {
	uint8_t *buf;
	size_t cap;
	size_t len;
	uint16_t count;
};

/* Start the records of a datagram: at most @cap bytes at @buf. */
void l7_ckpt_write_begin(struct l7_ckpt_writer *w, uint8_t *buf, size_t cap);

/*
 * Add a record; false (nothing written) if it does not fit - send this
 * datagram and start another - or if @r is not valid.
 */
bool l7_ckpt_write_rec(struct l7_ckpt_writer *w, const struct l7_ckpt_rec *r);

/* The records' length in bytes (->count of them). */
size_t l7_ckpt_write_end(const struct l7_ckpt_writer *w);

/* ---- reading them ---- */

struct l7_ckpt_reader {
	const uint8_t *buf;
	size_t len;
	size_t at;
	uint16_t left;
};

/*
 * Check all of @len bytes at @buf as @count records: 0, ready for
 * l7_ckpt_read_next(); -1 if any of it is refused.
 */
int l7_ckpt_read_begin(struct l7_ckpt_reader *r, const uint8_t *buf,
		       size_t len, uint16_t count);

/* The next record into @out; false after the last. */
bool l7_ckpt_read_next(struct l7_ckpt_reader *r, struct l7_ckpt_rec *out);

/* ---- the backup's store ---- */

#define L7_CKPT_NIL	0xffffffffu

/* One slot: a record, or a tombstone of a connection that ended. */
struct l7_ckpt_slot {
	struct l7_ckpt_conn conn;
	uint32_t ts_off;	/* the connection's TSval clock - ours */
	uint32_t probe_at;	/* when it was last probed, if probe_any */
	uint32_t wait_at;	/* when it waited out the first, if waited */
	bool waited;		/* an answer past the record waited out */
	uint8_t probes;		/* takeover probes (l7_ckpt_probe_mark()) */
	uint8_t owner;		/* the director that holds it: its ->from */
	bool probe_any;		/* a probe of it went, at probe_at */
	uint32_t hnext;		/* in its hash bucket */
	uint32_t prev;		/* in its age list, oldest first */
	uint32_t next;
	bool tomb;
};

struct l7_ckpt_list {
	uint32_t head;		/* oldest */
	uint32_t tail;
	uint32_t count;
};

struct l7_ckpt_stats {
	uint64_t stored;	/* UPSERTs taken */
	uint64_t stale;		/* records not newer than what is known */
	uint64_t deleted;	/* DELETEs taken */
	uint64_t evicted;	/* records pushed out by newer ones */
	uint64_t evicted_tombs;	/* tombstones pushed out */
	uint64_t adopted;
	uint64_t refused;	/* a segment that did not fit its record */
	uint64_t waited;	/* an answer past the record, waited out */
	uint64_t blind;		/* segments out of the record's window */
	uint64_t ahead;		/* records with a generation too far ahead */
	uint64_t expired;	/* records probed out, never adopted */
	uint64_t busy;		/* clients of a busy record, reset */
	uint64_t forwarded;	/* segments sent on to a live owner */
};

/*
 * Records and tombstones have a cap each, so that connections ending
 * fast cannot push out the records of idle ones.  A tombstone pushed
 * out raises the floor, as does a record: no record at or below it is
 * taken for a tuple the store does not hold.
 */
struct l7_ckpt_store {
	struct l7_ckpt_slot *slots;	/* rec_cap + tomb_cap of them */
	uint32_t *buckets;
	uint32_t nbuckets;		/* a power of two */
	uint64_t key[2];		/* of the hash */
	uint32_t rec_cap;
	uint32_t tomb_cap;
	uint32_t free;			/* free slots, through ->hnext */
	struct l7_ckpt_list recs;
	struct l7_ckpt_list tombs;
	uint64_t floor;
	uint64_t newest;		/* the newest generation taken */
	struct l7_ckpt_stats stats;
};

/*
 * A store in the caller's memory: @slots of @rec_cap + @tomb_cap (each
 * at least 1), @buckets of @nbuckets (a power of two), @key random
 * (SipHash's: the clients pick the tuples, and must not be able to
 * lengthen one chain).  -1 if the sizes do not fit.
 */
int l7_ckpt_store_init(struct l7_ckpt_store *s, struct l7_ckpt_slot *slots,
		       uint32_t rec_cap, uint32_t tomb_cap, uint32_t *buckets,
		       uint32_t nbuckets, const uint64_t key[2]);

enum l7_ckpt_applied {
	L7_CKPT_STORED,		/* an UPSERT is the tuple's record now */
	L7_CKPT_REFRESHED,	/* its writer's resend refreshed it */
	L7_CKPT_DELETED,	/* a DELETE is the tuple's tombstone now */
	L7_CKPT_STALE,		/* older than what is known: nothing done */
};

/*
 * Apply a decoded record at our TSval-clock time @now_ms.  One whose
 * generation is too far ahead (L7_CKPT_GEN_*) is STALE, counted as ahead;
 * a LOAD is STALE, not counted (it is no checkpoint).
 */
enum l7_ckpt_applied l7_ckpt_apply(struct l7_ckpt_store *s,
				   const struct l7_ckpt_rec *r,
				   uint32_t now_ms);

/*
 * Whether slot @i (any index) holds a record, not a tombstone or nothing:
 * a walk over the slots by index, which eviction cannot move under it,
 * visits each record once.
 */
bool l7_ckpt_slot_live(const struct l7_ckpt_store *s, uint32_t i);

/*
 * The bucket of @t: a reader outside the store's lock that finds it
 * L7_CKPT_NIL knows the store held nothing of @t a moment ago.
 */
uint32_t l7_ckpt_bucket(const struct l7_ckpt_store *s,
			const struct l7_ckpt_tuple *t);

/* How many slots a walk by index covers: indexes 0 .. this - 1. */
static inline uint32_t l7_ckpt_slots(const struct l7_ckpt_store *s)
{
	return s->rec_cap + s->tomb_cap;
}

/*
 * One step of a walk over the records, short enough for one hold of the
 * store's lock (a store may have 2M slots): from slot *@cursor, look at
 * @max_slots slots at most, and copy each record found into @out[n] and
 * its index into @idx[n] (@idx may be NULL), stopping after @max_out.
 * *@cursor moves past the last slot looked at; the walk is over when it
 * reaches l7_ckpt_slots().  Returns n.  Between two steps the lock may
 * be dropped: a record stored meanwhile at an index already passed is
 * not visited, one evicted is not returned.
 */
uint32_t l7_ckpt_walk(const struct l7_ckpt_store *s, uint32_t *cursor,
		      uint32_t max_slots, struct l7_ckpt_slot *out,
		      uint32_t *idx, uint32_t max_out);

/* A takeover probes a record this many times before it expires. */
#define L7_CKPT_PROBES		2

/*
 * A takeover's probe of the record @k (as l7_ckpt_walk() returned it from
 * slot @i) went at @now_ms: count it, and hold blind segments' probes
 * off from then (l7_ckpt_adopt()).  False, nothing done, if slot @i no
 * longer holds that record (adopted, deleted, replaced or evicted since
 * the walk).
 */
bool l7_ckpt_probe_mark(struct l7_ckpt_store *s, uint32_t i,
			const struct l7_ckpt_conn *k, uint32_t now_ms);

/*
 * After the takeover's last probe, and time for its answer: if slot @i
 * still holds the record @k and it was probed L7_CKPT_PROBES times, its
 * client never answered (gone, or it answered a director that had no
 * record and was reset): the record is buried, as if adopted (a late copy
 * is never taken), and counted as expired.  Whether it was.
 */
bool l7_ckpt_expire(struct l7_ckpt_store *s, uint32_t i,
		    const struct l7_ckpt_conn *k);

/* The first segment of a client to a VIP, with no connection there. */
struct l7_ckpt_seg {
	struct l7_ckpt_tuple t;
	uint32_t seq;
	uint32_t ack;
	uint32_t tsval;
	uint32_t len;		/* payload bytes */
	uint8_t flags;		/* L7_TCPF_* */
	bool has_ts;
};

enum l7_ckpt_verdict {
	L7_CKPT_NONE,		/* no record: as without checkpoints */
	L7_CKPT_ADOPT,		/* adopt the connection from *out */
	L7_CKPT_REFUSE,		/* the record is dropped: as without */
	/*
	 * Drop the segment, keep the record, answer nothing: an answer
	 * from past the record waited out once, or a blind segment while
	 * its record's probe is held off (L7_CKPT_PROBE_GAP_MS).
	 */
	L7_CKPT_WAIT,
	/*
	 * Drop the segment, keep the record, and answer with the record's
	 * probe (*out is the record) and a RST at the segment's ACK: a
	 * segment out of the record's window, which cannot be told from a
	 * blind guess at the tuple.  The real client of a record that fits
	 * it answers the probe with its own numbers and is adopted; the
	 * client of a stale record takes the RST.
	 */
	L7_CKPT_PROBE,
	/*
	 * The segment goes to the director that holds the connection
	 * (*out's owner), which lives: it is in the middle of a request or
	 * a response there (l7_ckpt_claim()).  The record stays.
	 */
	L7_CKPT_FORWARD,
};

/*
 * A record's probe answers blind segments at most once in this long, as
 * Linux limits challenge ACKs (RFC 5961 7, tcp_challenge_ack_limit's
 * per-socket half-second, tcp_invalid_ratelimit).
 */
#define L7_CKPT_PROBE_GAP_MS	500

/*
 * Whether @g fits @c exactly: an ACK without SYN or RST, at seq rcv_nxt,
 * acknowledging within [snd_una, snd_nxt], and, with timestamps agreed,
 * one no older than TS.Recent (PAWS).
 */
bool l7_ckpt_match(const struct l7_ckpt_conn *c, const struct l7_ckpt_seg *g);

/*
 * Whether @g is a client's bare ACK from past the record: everything the
 * record expects but a sequence number after rcv_nxt, within the window.
 * That is how a client answers a probe (or anything) while bytes it sent
 * to the dead director are unacknowledged - it sends its snd_nxt - and
 * also when the dead director had acknowledged them: the segment cannot
 * tell which.  Once, the record waits for the client's retransmission
 * at rcv_nxt (unacknowledged bytes); a second such answer refuses (the
 * director had them, and the client waits for a response never coming) -
 * if it comes L7_CKPT_PAST_GAP_MS or more after the first.
 */
bool l7_ckpt_past(const struct l7_ckpt_conn *c, const struct l7_ckpt_seg *g);

/*
 * A second answer from past the record sooner than this after the first
 * is waited out too: the client has not had the time to send its bytes
 * again (its retransmission timer backs off while its director is dead),
 * and the answer is to another probe of the same pass - several
 * directors probe a lost peer's clients at once, and a pass may start
 * over when an address comes up.  The takeover's second pass comes later
 * than this (ip_vs_l7_sync_ctl.c), so a client that had its bytes
 * acknowledged is still refused by it.
 */
#define L7_CKPT_PAST_GAP_MS	4000

/*
 * A segment @g with no connection, at @now_ms (the clock of
 * l7_ckpt_apply()).  Only a segment in the record's window can end it,
 * as in a live connection (RFC 5961): one whose seq is outside
 * [rcv_wup, rcv_edge], or a RST not exactly at rcv_nxt, leaves the record
 * as it was and is counted as blind - PROBE, or WAIT within
 * L7_CKPT_PROBE_GAP_MS of the record's last probe.  In the window: adopt
 * if it fits (the record and its TSval offset into @out), wait for a
 * bare ACK from past it (l7_ckpt_past(): once, and again within
 * L7_CKPT_PAST_GAP_MS of that), else refuse; a RST at rcv_nxt
 * (the client ended the connection) refuses too.  Adopted or refused,
 * the record goes, leaving a tombstone of its generation: a late copy of
 * it is never adopted again.  A busy record refuses any segment in its
 * window (counted as busy, not refused).
 */
enum l7_ckpt_verdict l7_ckpt_adopt(struct l7_ckpt_store *s,
				   const struct l7_ckpt_seg *g,
				   uint32_t now_ms, struct l7_ckpt_slot *out);

/*
 * A segment @g with no connection, on a director side by side with the
 * peers in @live (bit i: the owner ->owner == i sends, not lost).  The
 * record of a live owner is a connection that director holds, whose
 * flow the routers moved here: a segment that fits it exactly (the
 * client at the boundary the record has, its next request starting) is
 * adopted, the connection handed over where no byte is under way either
 * way; any other - a busy record's, one in the middle of a request or a
 * response, a RST, one out of the record's window the owner judges with
 * the connection's live numbers - is FORWARD to the owner, the record
 * kept.  A record of an owner not live is as l7_ckpt_adopt() decides:
 * the takeover after a death.
 */
enum l7_ckpt_verdict l7_ckpt_claim(struct l7_ckpt_store *s,
				   const struct l7_ckpt_seg *g,
				   uint32_t now_ms, uint32_t live,
				   struct l7_ckpt_slot *out);

/*
 * A peer's record @k, just stored, of a connection this director still
 * has - at a request boundary (@at_boundary) or not, ending already
 * (@ending) or not - whose newest record, written here or the one it was
 * adopted from, had generation @ours: does it displace our copy?  Only
 * a newer record, of a connection at a boundary: the peer took it over
 * from the client's segment after our last record (its flow moved, or
 * VRRP alone moved the VIP without this director noticing), and our
 * copy's numbers are behind the client's now.  It ends without a word:
 * the record was written as of the client's ACK of all we sent, so the
 * client has everything (struct l7_csm's handed_over).  A record as old
 * or older is a copy of ours the peer still had, or the resend of the
 * boundary ours was adopted from: never a takeover.  In the middle of a
 * request the peer forwards the client's segments here instead.
 */
static inline bool l7_ckpt_displaces(const struct l7_ckpt_conn *k,
				     uint64_t ours, bool at_boundary,
				     bool ending)
{
	return at_boundary && !ending && k->gen > ours;
}

/*
 * The connection's TSval clock against ours, from a record applied at
 * @now_ms: the TSval the writer would have sent then, less @now_ms.  The
 * adopter sends @now + offset, never below ts_last.
 */
static inline uint32_t l7_ckpt_ts_offset(const struct l7_ckpt_conn *c,
					 uint32_t now_ms)
{
	return c->ts_last + c->ts_age - now_ms;
}

#endif /* _IP_VS_L7_CORE_CONN_CKPT_H */
