// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: what of a backend's segment goes to the client (see
 * rsp_guard.h).
 */

#include "rsp_guard.h"
#include "tcp_map.h"

#define L7_RSP_PEEK	128	/* bytes read per framing step */

void l7_rsp_guard_init(struct l7_rsp_guard *g, uint32_t seq,
		       enum l7_http_method method, bool cloak)
{
	*g = (struct l7_rsp_guard){
		.start = seq,
		.fed = seq,
		.rcv_nxt = seq,
		.cloak = cloak,
	};
	l7_http_resp_init(&g->resp, NULL, method);
}

void l7_rsp_guard_asked(struct l7_rsp_guard *g, uint32_t first)
{
	g->asked = first;
	g->asked_set = true;
}

void l7_rsp_guard_take(struct l7_rsp_guard *g, uint8_t *buf, bool close)
{
	g->head = buf;
	g->take = true;
	g->take_close = close;
}

/*
 * Head bytes the framer just used, into ->head.  The taking ends with
 * the final head (or a 101, which the caller refuses).
 */
static void rsp_take(struct l7_rsp_guard *g, const uint8_t *p, uint32_t n,
		     enum l7_resp_status st)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		g->head[g->taken++] = p[i];
	if (st == L7_RESP_HEAD || st == L7_RESP_DONE) {
		g->take = false;
		g->taken_whole = true;
	} else if (st != L7_RESP_MORE && st != L7_RESP_INTERIM) {
		g->take = false;
	}
}

/*
 * Where a Linux backend stands when it resets (at its snd_nxt): a
 * segment that starts at or before the in-order end moves it to its own
 * end, FIN included, framed or not.
 */
static void rsp_rcv_note(struct l7_rsp_guard *g, const struct l7_rsp_seg *s)
{
	uint32_t end = s->seq + s->len + s->fin;

	if (!l7_seq_after(s->seq, g->rcv_nxt) && l7_seq_after(end, g->rcv_nxt))
		g->rcv_nxt = end;
}

/*
 * Frame @len bytes of the segment from payload offset @off; *used: how
 * many belong to the response.  Bulk bytes are skipped by count, only
 * heads and chunk framing are read.
 */
static enum l7_resp_status rsp_frame(struct l7_rsp_guard *g,
				     const struct l7_rsp_seg *s, uint32_t off,
				     uint32_t len, uint32_t *used)
{
	enum l7_resp_status st = L7_RESP_MORE;
	uint8_t buf[L7_RSP_PEEK];
	size_t u;

	*used = 0;
	while (*used < len) {
		uint64_t skip = l7_http_resp_skippable(&g->resp);
		uint32_t n = len - *used;
		const uint8_t *p;

		if (skip) {
			if (n > skip)
				n = (uint32_t)skip;
			l7_http_resp_skip(&g->resp, n);
			*used += n;
			continue;
		}
		if (n > sizeof(buf))
			n = sizeof(buf);
		if (g->take && n > L7_RSP_HEAD_MAX - g->taken)
			n = L7_RSP_HEAD_MAX - g->taken;
		if (!n) {
			/* a head longer than that passes from here on */
			g->take = false;
			g->take_over = true;
			continue;
		}
		p = s->peek(s->ctx, off + *used, n, buf);
		if (!p)
			return L7_RESP_ERROR;
		st = l7_http_resp_feed(&g->resp, p, n, &u);
		if (g->take)
			rsp_take(g, p, (uint32_t)u, st);
		*used += (uint32_t)u;
		if (st == L7_RESP_HEAD || st == L7_RESP_INTERIM)
			continue;	/* go on with what follows the head */
		if (st != L7_RESP_MORE)
			break;
	}
	/* a skip may have ended the response: the framer says so now */
	if (st == L7_RESP_MORE || st == L7_RESP_HEAD || st == L7_RESP_INTERIM)
		st = l7_http_resp_feed(&g->resp, buf, 0, &u);
	return st;
}

/* The payload bytes of @s that are new to the framer. */
static struct l7_rsp_verdict rsp_follow(struct l7_rsp_guard *g,
					const struct l7_rsp_seg *s)
{
	const struct l7_rsp_verdict ok = { L7_RSP_FORWARD };
	uint32_t end = s->seq + s->len, used;
	enum l7_resp_status st;
	size_t none;

	if (!s->len || !l7_seq_after(end, g->fed))
		return ok;	/* nothing new */
	if (g->done)
		return (struct l7_rsp_verdict){ L7_RSP_BAD };	/* not HTTP */
	if (l7_seq_after(s->seq, g->fed)) {
		/*
		 * Out of order: fine if they are surely body bytes; else the
		 * framer has to read what comes before, so wait for it.
		 */
		if (end - g->fed > l7_http_resp_skippable(&g->resp))
			return (struct l7_rsp_verdict){ L7_RSP_WAIT };
		l7_http_resp_skip(&g->resp, end - g->fed);
		g->fed = end;
		st = l7_http_resp_feed(&g->resp, NULL, 0, &none);
	} else {
		st = rsp_frame(g, s, g->fed - s->seq, end - g->fed, &used);
		g->fed += used;
	}
	switch (st) {
	case L7_RESP_ERROR:
		return (struct l7_rsp_verdict){ L7_RSP_BAD };
	case L7_RESP_UPGRADE:
		return (struct l7_rsp_verdict){ L7_RSP_UPGRADE };
	case L7_RESP_DONE:
		if (g->fed != end)	/* more than the response */
			return (struct l7_rsp_verdict){ L7_RSP_BAD };
		g->done = true;
		return (struct l7_rsp_verdict){ L7_RSP_FORWARD, .ended = true };
	default:
		return ok;
	}
}

/*
 * The backend's FIN after @s's payload: after the response (its own
 * business: the pooled connection is retired, the client's goes on), the
 * end of a close-delimited body, or a response cut short.  Only at
 * exactly the response's end so far: anywhere else it is out of order,
 * or not the backend's at all.
 */
static struct l7_rsp_verdict rsp_fin(struct l7_rsp_guard *g,
				     const struct l7_rsp_seg *s,
				     struct l7_rsp_verdict v)
{
	if (g->fed != s->seq + s->len)
		return (struct l7_rsp_verdict){ L7_RSP_WAIT };
	if (g->done) {
		g->fin = true;
		v.strip_fin = true;
		return v;
	}
	g->fin = true;
	if (l7_http_resp_eof(&g->resp) != L7_RESP_DONE)	/* cut short */
		return (struct l7_rsp_verdict){ L7_RSP_BAD, .closed = true };
	g->done = true;
	g->eof_end = true;
	v.ended = true;
	v.strip_fin = true;
	return v;
}

/*
 * Overwrite the bytes of the server's Connection field names that @s
 * carries.  A name completed in @s whose bytes all lie below @fed (framed,
 * and so forwarded, by earlier segments) went out whole before it was
 * known: it cannot be hidden any more.
 */
static void rsp_cloak(struct l7_rsp_guard *g, const struct l7_rsp_seg *s,
		      uint32_t fed)
{
	static const uint8_t name[] = L7_CLOAKED_NAME;
	const uint32_t n = sizeof(name) - 1;
	uint8_t i;

	if (g->resp.conn_names_over)
		g->cloak_missed = true;
	for (i = 0; i < g->resp.conn_names; i++) {
		uint32_t at = g->start + (uint32_t)g->resp.conn_name_at[i];
		uint32_t from = l7_seq_after(s->seq, at) ? s->seq - at : 0;
		uint32_t to = n;

		if (i >= g->cloak_seen && !l7_seq_after(at + n, fed))
			g->cloak_missed = true;	/* all of it went out */
		if (l7_seq_after(at + n, s->seq + s->len))
			to = s->seq + s->len - at;
		if (l7_seq_before(at + from, s->seq + s->len) && from < to &&
		    to <= n &&
		    !s->poke(s->ctx, at + from - s->seq, name + from, to - from))
			g->cloak_missed = true;
	}
	g->cloak_seen = g->resp.conn_names;
}

/*
 * What taking the head means for @s: the taking may have ended in it (a
 * head that came whole in @s and keeps the client as it is goes on as
 * it came), and its bytes the guard took are not the client's.
 */
static struct l7_rsp_verdict rsp_took(struct l7_rsp_guard *g,
				      const struct l7_rsp_seg *s,
				      struct l7_rsp_verdict v, bool taking,
				      uint32_t before)
{
	uint32_t end = l7_rsp_guard_taken_end(g);

	if (v.act == L7_RSP_UPGRADE && g->taken)
		return (struct l7_rsp_verdict){ L7_RSP_BAD };
	if (v.act != L7_RSP_FORWARD)
		return v;
	if (taking && !g->take) {
		v.took = true;
		if (!before && g->taken_whole &&
		    l7_rsp_head_keeps_client(&g->resp, g->take_close)) {
			g->taken = 0;	/* nothing to change: it passes */
			g->taken_whole = false;
			v.took = false;
			return v;
		}
	}
	if (g->taken && l7_seq_before(s->seq, end))
		v.skip = end - s->seq < s->len ? end - s->seq : s->len;
	return v;
}

/*
 * New bytes (the framer has not had them) from before the backend had a
 * byte of the request.  Resends of what came before are not new.
 */
static bool rsp_unsolicited(const struct l7_rsp_guard *g,
			    const struct l7_rsp_seg *s)
{
	return g->asked_set && !g->tunnel && s->len && s->has_ack &&
	       l7_seq_after(s->seq + s->len, g->fed) &&
	       !l7_seq_after(s->ack, g->asked);
}

struct l7_rsp_verdict l7_rsp_guard_seg(struct l7_rsp_guard *g,
				       const struct l7_rsp_seg *s)
{
	uint32_t fed = g->fed, taken = g->taken;
	bool taking = g->take;
	struct l7_rsp_verdict v;

	if (rsp_unsolicited(g, s))
		return (struct l7_rsp_verdict){ L7_RSP_BAD, .unsolicited = true };
	rsp_rcv_note(g, s);
	if (g->tunnel) {
		g->fin |= s->fin;
		return (struct l7_rsp_verdict){ L7_RSP_FORWARD };
	}
	v = rsp_follow(g, s);
	if (g->head)
		v = rsp_took(g, s, v, taking, taken);
	if (v.act == L7_RSP_FORWARD && g->cloak && s->len)
		rsp_cloak(g, s, fed);
	if (v.act != L7_RSP_FORWARD || !s->fin)
		return v;
	return rsp_fin(g, s, v);
}
