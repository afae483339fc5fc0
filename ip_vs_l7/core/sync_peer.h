/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: the checkpoint channel's datagram header and the rule
 * that decides which sender's datagrams a director takes.
 *
 * Whoever reaches the sync link without the key may read, drop, delay,
 * replay and forge datagrams.  So every datagram is sealed with an AEAD
 * (ChaCha20-Poly1305, RFC 8439) under a key of its sender's own, and the
 * director takes records only from the one sender it has accepted, each
 * sequence number once.
 *
 * Senders.  Each start of a channel draws a random 64-bit sender id and
 * numbers its datagrams 1, 2, ...; its key is
 *   HMAC-SHA256(shared key, "ip_vs_l7 sync v2" | sync id u32 | sender u64)
 * and a datagram's nonce is 4 zero bytes and its sequence number (u64),
 * so no nonce repeats under a key.  Sender 0 is never drawn nor taken:
 * its derivation gives the tier's SYN-cookie and TSval secrets.  A
 * director drops datagrams of its own sender id (a reflection) and, from
 * the accepted sender, any sequence number taken already or
 * L7_SYNC_WINDOW or more behind the newest (a replay, RFC 4303 3.4.3).  A sender's window starts at the datagram
 * that got it accepted: nothing numbered below that one is taken, as it
 * may have been sealed before the receiver started.
 *
 * Freshness.  A replay of datagrams captured before a director started
 * must not be taken, and no clock is trusted for that: each director
 * holds a random challenge, and every datagram carries the sender's own
 * challenge and echoes the last challenge it heard from the other.  A
 * sender not yet accepted is accepted only by a datagram that echoes the
 * receiver's current challenge - proof that it was sealed after the
 * receiver drew it - and the receiver then draws a new challenge, so no
 * datagram of an earlier sender can ever echo it again.  Until then its
 * datagrams are authenticated but their records are not taken (counted
 * unknown_peer), and the receiver answers with a HELLO (a datagram with
 * no records) so that the sender learns the challenge.  Challenges are
 * random and never 0, the echo of a director that has heard nothing.
 *
 * Destinations.  With several peers, a director keeps that state per
 * peer address; but an address is not a key: a peer's datagram, sent to
 * another director than its own destination, could teach that one a
 * challenge meant for a third, and its answer be passed off from another
 * peer's address.  So the address a datagram is sent to is part of its
 * authenticated data, though not sent: the sender puts its peer's
 * address there, the receiver the address the datagram came in to.  A
 * datagram delivered anywhere but where its sender sent it does not
 * authenticate, and a director learns challenges and echoes only from
 * datagrams sent to it.
 *
 * Generations.  Every datagram also carries the newest generation its
 * sender holds of the other's records; the other raises its counter past
 * it, so records stay newer than what the store knows even if the
 * sender's clock stepped back.
 *
 * The datagram, version 2, integers big-endian:
 *   header (48 bytes, authenticated, in clear)
 *     version u8 (2), reserved u8 (0), count u16 (records), sync id u32,
 *     sender u64, seq u64, challenge u64, echo u64, newest u64
 *   sealed: count records (conn_ckpt.h), then the 16-byte tag
 * and its associated data the header, then the destination address (16
 * bytes, not sent: IPv6, or IPv4 mapped as ::ffff:a.b.c.d).
 * A HELLO is a datagram of 0 records: 64 bytes.
 */
#ifndef _IP_VS_L7_CORE_SYNC_PEER_H
#define _IP_VS_L7_CORE_SYNC_PEER_H

#include "l7_types.h"

#define L7_SYNC_VERSION		2
#define L7_SYNC_HDR_LEN		48
#define L7_SYNC_TAG_LEN		16	/* Poly1305 */
#define L7_SYNC_NONCE_LEN	12
#define L7_SYNC_DEST_LEN	16	/* in the associated data, not sent */
#define L7_SYNC_KDF_LABEL	"ip_vs_l7 sync v2"
#define L7_SYNC_KDF_LEN		(sizeof(L7_SYNC_KDF_LABEL) - 1 + 4 + 8)
#define L7_SYNC_WINDOW		64	/* sequence numbers behind the newest */

struct l7_sync_hdr {
	uint16_t count;
	uint32_t sync_id;
	uint64_t sender;
	uint64_t seq;
	uint64_t challenge;
	uint64_t echo;
	uint64_t newest;
};

/* Write @h into the first L7_SYNC_HDR_LEN bytes of @buf. */
void l7_sync_hdr_put(uint8_t *buf, const struct l7_sync_hdr *h);

/*
 * Read the header of a datagram of @len bytes: 0, or -1 if it is not a
 * version 2 header (reserved 0, sender and seq not 0) with room for its
 * tag and for @count records of @min_rec to @max_rec bytes each
 * (conn_ckpt.h) - checked before any cryptography is spent on it.  The
 * sync id is the caller's to check.
 */
int l7_sync_hdr_get(const uint8_t *buf, size_t len, size_t min_rec,
		    size_t max_rec, struct l7_sync_hdr *h);

/* The key derivation's message for @sender: L7_SYNC_KDF_LEN bytes. */
void l7_sync_kdf_msg(uint8_t *msg, uint32_t sync_id, uint64_t sender);

/*
 * The destination's L7_SYNC_DEST_LEN bytes in the associated data, from
 * an IPv4 (@v4, 4 bytes) or IPv6 (16 bytes) address @addr.
 */
void l7_sync_dest(uint8_t *out, bool v4, const uint8_t *addr);

/* The nonce of datagram @seq: L7_SYNC_NONCE_LEN bytes. */
void l7_sync_nonce(uint8_t *nonce, uint64_t seq);

/* What a director knows of the other end of its channel. */
struct l7_sync_peer {
	uint64_t self;		/* our sender id */
	uint64_t challenge;	/* ours, current */
	uint64_t sender;	/* the accepted sender, 0 for none */
	uint64_t top;		/* its newest sequence number taken */
	uint64_t seen;		/* bit i: top - i taken, or below the first */
	uint64_t echo;		/* the other's challenge, as last heard */
};

enum l7_sync_verdict {
	L7_SYNC_TAKE,		/* the accepted sender's: take the records */
	L7_SYNC_NEW_PEER,	/* a sender accepted now: take them; new challenge */
	L7_SYNC_UNKNOWN,	/* authentic, not accepted: HELLO, no records */
	L7_SYNC_REPLAY,		/* a sequence number taken already: drop */
	L7_SYNC_REFLECTED,	/* our own: drop */
};

/*
 * A director's start: its sender id and first challenge, both random and
 * not 0 (a challenge of 0 accepts no sender).
 */
void l7_sync_peer_init(struct l7_sync_peer *p, uint64_t self,
		       uint64_t challenge);

/*
 * Before the cryptography: whether @h could be taken at all (not ours,
 * not a replay of the accepted sender); L7_SYNC_TAKE if so.
 */
enum l7_sync_verdict l7_sync_peer_precheck(const struct l7_sync_peer *p,
					   const struct l7_sync_hdr *h);

/*
 * An authenticated datagram's header (read by l7_sync_hdr_get()): the
 * verdict, the window and the echo updated - the echo to the challenge
 * of the accepted sender's newest datagram, or of any datagram not
 * accepted.  On L7_SYNC_NEW_PEER the caller draws a new challenge with
 * l7_sync_peer_rechallenge() before it takes another datagram.  On
 * L7_SYNC_UNKNOWN, and best on L7_SYNC_NEW_PEER too (the other end may
 * not have accepted us yet), it answers with a datagram, a HELLO if it
 * has no records: it echoes the challenge just heard.
 */
enum l7_sync_verdict l7_sync_peer_accept(struct l7_sync_peer *p,
					 const struct l7_sync_hdr *h);

void l7_sync_peer_rechallenge(struct l7_sync_peer *p, uint64_t challenge);

#endif /* _IP_VS_L7_CORE_SYNC_PEER_H */
