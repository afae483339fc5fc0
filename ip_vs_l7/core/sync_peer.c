// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: the checkpoint channel's datagram header and the rule
 * that decides which sender's datagrams a director takes (sync_peer.h).
 */
#include "sync_peer.h"
#include "wire_be.h"

#define KDF_LABEL_LEN	(sizeof(L7_SYNC_KDF_LABEL) - 1)

/* ---- the header ---- */

void l7_sync_hdr_put(uint8_t *buf, const struct l7_sync_hdr *h)
{
	uint8_t *p = buf;

	*p++ = L7_SYNC_VERSION;
	*p++ = 0;
	p = l7_put16(p, h->count);
	p = l7_put32(p, h->sync_id);
	p = l7_put64(p, h->sender);
	p = l7_put64(p, h->seq);
	p = l7_put64(p, h->challenge);
	p = l7_put64(p, h->echo);
	l7_put64(p, h->newest);
}

/*
 * @count records of @min_rec to @max_rec bytes fill exactly @body bytes.
 * Divided rather than multiplied: @max_rec may be anything a caller
 * passes, and count * max_rec could wrap even in 64 bits.
 */
static bool body_fits(size_t body, uint16_t count, size_t min_rec,
		      size_t max_rec)
{
	size_t per, rest;

	if (!count)
		return !body;
	per = body / count;
	rest = body % count;
	/* count * min_rec <= body <= count * max_rec */
	return min_rec <= per && (per < max_rec || (per == max_rec && !rest));
}

int l7_sync_hdr_get(const uint8_t *buf, size_t len, size_t min_rec,
		    size_t max_rec, struct l7_sync_hdr *h)
{
	const uint8_t *p = buf + 2;

	if (len < L7_SYNC_HDR_LEN + L7_SYNC_TAG_LEN)
		return -1;
	if (buf[0] != L7_SYNC_VERSION || buf[1])
		return -1;
	h->count = l7_get16(&p);
	h->sync_id = l7_get32(&p);
	h->sender = l7_get64(&p);
	h->seq = l7_get64(&p);
	h->challenge = l7_get64(&p);
	h->echo = l7_get64(&p);
	h->newest = l7_get64(&p);
	/* 0 is "no sender" to the peer rule, and no datagram is number 0 */
	if (!h->sender || !h->seq)
		return -1;
	if (!body_fits(len - L7_SYNC_HDR_LEN - L7_SYNC_TAG_LEN, h->count,
		       min_rec, max_rec))
		return -1;
	return 0;
}

void l7_sync_kdf_msg(uint8_t *msg, uint32_t sync_id, uint64_t sender)
{
	const char *label = L7_SYNC_KDF_LABEL;
	size_t i;

	for (i = 0; i < KDF_LABEL_LEN; i++)
		msg[i] = label[i];
	l7_put64(l7_put32(msg + KDF_LABEL_LEN, sync_id), sender);
}

void l7_sync_dest(uint8_t *out, bool v4, const uint8_t *addr)
{
	size_t i;

	if (!v4) {
		for (i = 0; i < L7_SYNC_DEST_LEN; i++)
			out[i] = addr[i];
		return;
	}
	for (i = 0; i < 10; i++)
		out[i] = 0;
	out[10] = 0xff;
	out[11] = 0xff;
	for (i = 0; i < 4; i++)
		out[12 + i] = addr[i];
}

void l7_sync_nonce(uint8_t *nonce, uint64_t seq)
{
	l7_put64(l7_put32(nonce, 0), seq);
}

/* ---- the peer rule ---- */

void l7_sync_peer_init(struct l7_sync_peer *p, uint64_t self,
		       uint64_t challenge)
{
	p->self = self;
	p->challenge = challenge;
	p->sender = 0;
	p->top = 0;
	p->seen = 0;
	p->echo = 0;
}

static bool is_accepted(const struct l7_sync_peer *p, uint64_t sender)
{
	return p->sender && sender == p->sender;
}

/* RFC 4303 3.4.3: ahead of the window is new, behind it is too old. */
static bool is_replay(const struct l7_sync_peer *p, uint64_t seq)
{
	uint64_t behind;

	if (seq > p->top)
		return false;
	behind = p->top - seq;
	if (behind >= L7_SYNC_WINDOW)
		return true;
	return p->seen >> behind & 1;
}

static void mark_seen(struct l7_sync_peer *p, uint64_t seq)
{
	uint64_t ahead;

	if (seq <= p->top) {
		p->seen |= 1ull << (p->top - seq);
		return;
	}
	ahead = seq - p->top;
	p->seen = ahead >= L7_SYNC_WINDOW ? 1 : p->seen << ahead | 1;
	p->top = seq;
}

enum l7_sync_verdict l7_sync_peer_precheck(const struct l7_sync_peer *p,
					   const struct l7_sync_hdr *h)
{
	if (h->sender == p->self)
		return L7_SYNC_REFLECTED;
	if (is_accepted(p, h->sender) && is_replay(p, h->seq))
		return L7_SYNC_REPLAY;
	return L7_SYNC_TAKE;
}

/*
 * The accepted sender's datagram.  Its challenge is remembered from the
 * newest one only: one late by reordering may carry a challenge that the
 * sender has replaced since.
 */
static enum l7_sync_verdict take(struct l7_sync_peer *p,
				 const struct l7_sync_hdr *h)
{
	if (is_replay(p, h->seq))
		return L7_SYNC_REPLAY;
	if (h->seq > p->top)
		p->echo = h->challenge;
	mark_seen(p, h->seq);
	return L7_SYNC_TAKE;
}

/*
 * A sender that echoes our current challenge sealed this datagram after
 * we drew it.  Its window starts at this datagram, as if every number
 * below had been taken: those may have been sealed before our start and
 * captured, and there is no telling which were not.
 */
static enum l7_sync_verdict meet(struct l7_sync_peer *p,
				 const struct l7_sync_hdr *h)
{
	if (!p->challenge || !h->sender || h->echo != p->challenge) {
		p->echo = h->challenge;	/* for our HELLO to echo */
		return L7_SYNC_UNKNOWN;
	}
	p->sender = h->sender;
	p->top = h->seq;
	p->seen = ~0ull;
	p->echo = h->challenge;
	return L7_SYNC_NEW_PEER;
}

enum l7_sync_verdict l7_sync_peer_accept(struct l7_sync_peer *p,
					 const struct l7_sync_hdr *h)
{
	if (h->sender == p->self)
		return L7_SYNC_REFLECTED;
	if (is_accepted(p, h->sender))
		return take(p, h);
	return meet(p, h);
}

void l7_sync_peer_rechallenge(struct l7_sync_peer *p, uint64_t challenge)
{
	p->challenge = challenge;
}
