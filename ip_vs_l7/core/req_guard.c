// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: what of a client's request body may go to the backend
 * (see req_guard.h for the invariant and why it holds).
 */

#include "req_guard.h"
#include "tcp_map.h"

void l7_req_guard_init(struct l7_req_guard *g, uint32_t lo,
		       const struct l7_http_body *body, bool done,
		       struct l7_guard_log *log)
{
	*g = (struct l7_req_guard){
		.body = *body,
		.lo = lo,
		.nxt = lo,
		.acked = lo,
		.done = done,
		/* a body to frame and nowhere to log it: nothing goes */
		.failed = !done && !log,
		.log = done ? NULL : log,
	};
}

/* ---- the log of read bytes ---- */

static uint32_t run_end(const struct l7_guard_run *r)
{
	return r->seq + r->len;
}

/* Append @n bytes at @seq, which is at or after the last run's end. */
static void log_append(struct l7_req_guard *g, uint32_t seq, const uint8_t *p,
		       uint32_t n)
{
	struct l7_guard_log *log = g->log;
	struct l7_guard_run *last = g->nruns ? &log->run[g->nruns - 1] : NULL;
	uint32_t i;

	if (!n)
		return;
	if (!last || run_end(last) != seq) {
		last = &log->run[g->nruns++];
		*last = (struct l7_guard_run){ .seq = seq, .off = g->used };
	}
	for (i = 0; i < n; i++)
		log->bytes[g->used + i] = p[i];
	g->used += n;
	last->len += n;
}

/*
 * How many bytes from @seq the log can take now.  A short gap after the
 * last run (*gap, bytes the framer skipped) is logged with them, so that
 * a body of tiny chunks does not use one run per chunk.
 */
static uint32_t log_room(const struct l7_req_guard *g, uint32_t seq,
			 uint32_t seg_start, uint32_t *gap)
{
	const struct l7_guard_run *last = g->nruns ? &g->log->run[g->nruns - 1] :
						     NULL;
	uint32_t room = L7_GUARD_LOG_BYTES - g->used;

	*gap = 0;
	if (last && run_end(last) != seq) {
		uint32_t d = seq - run_end(last);

		if (d <= L7_GUARD_GAP && d < room &&
		    !l7_seq_before(run_end(last), seg_start))
			*gap = d;
		else if (g->nruns == L7_GUARD_LOG_RUNS)
			return 0;
	}
	return room - *gap;
}

void l7_req_guard_acked(struct l7_req_guard *g, uint32_t ack)
{
	uint32_t drop = 0, i, k = 0;

	if (!l7_seq_after(ack, g->acked))
		return;
	g->acked = ack;
	for (i = 0; i < g->nruns; i++) {
		struct l7_guard_run r = g->log->run[i];

		if (!l7_seq_after(run_end(&r), ack)) {
			drop += r.len;
			continue;
		}
		if (l7_seq_before(r.seq, ack)) {
			uint32_t cut = ack - r.seq;

			drop += cut;
			r.seq = ack;
			r.off += cut;
			r.len -= cut;
		}
		r.off -= drop;
		g->log->run[k++] = r;
	}
	g->nruns = k;
	for (i = 0; i + drop < g->used; i++)
		g->log->bytes[i] = g->log->bytes[i + drop];
	g->used -= drop;
}

void l7_req_guard_window(struct l7_req_guard *g, uint32_t edge)
{
	if (!g->wnd_known || l7_seq_after(edge, g->wnd_end))
		g->wnd_end = edge;	/* a right edge never moves back */
	g->wnd_known = true;
}

/* Do the bytes of @s in [from, to) match the log where it has them? */
static bool log_matches(const struct l7_req_guard *g,
			const struct l7_req_seg *s, uint32_t from, uint32_t to)
{
	uint8_t buf[L7_GUARD_LOG_BYTES];
	uint32_t i, j;

	for (i = 0; i < g->nruns; i++) {
		const struct l7_guard_run *r = &g->log->run[i];
		uint32_t a = r->seq, b = run_end(r);
		const uint8_t *p;

		if (l7_seq_before(a, from))
			a = from;
		if (l7_seq_after(b, to))
			b = to;
		if (!l7_seq_before(a, b))
			continue;
		p = s->peek(s->ctx, a - s->seq, b - a, buf);
		if (!p)
			return false;
		for (j = 0; j < b - a; j++)
			if (p[j] != g->log->bytes[r->off + (a - r->seq) + j])
				return false;
	}
	return true;
}

/* ---- framing ---- */

/* ->nxt stays where the body ended: nothing frames past it */
static void body_ended(struct l7_req_guard *g, struct l7_guard_verdict *v)
{
	g->done = true;
	v->ended = true;
}

/*
 * The framer reads lines (chunk-size lines, chunk ends, trailers) and
 * skips the data after them: fed up to a line end at most, it never
 * takes bulk bytes through the log.
 */
static uint32_t line_part(const uint8_t *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (p[i] == '\n')
			return i + 1;
	return n;
}

/*
 * Frame in-order bytes of @s from ->nxt up to @limit, logging what the
 * framer reads.  Stops early when the log is full.
 */
static enum l7_guard_why frame(struct l7_req_guard *g,
			       const struct l7_req_seg *s, uint32_t limit,
			       struct l7_guard_verdict *v)
{
	uint8_t buf[L7_GUARD_PEEK + L7_GUARD_GAP];

	while (!g->done && l7_seq_before(g->nxt, limit)) {
		uint64_t skip = l7_http_body_skippable(&g->body);
		uint32_t n = limit - g->nxt, gap, room;
		enum l7_body_status st;
		const uint8_t *p;
		size_t used;

		if (skip) {
			if (n > skip)
				n = skip;
			l7_http_body_skip(&g->body, n);
			g->nxt += n;
		} else {
			room = log_room(g, g->nxt, s->seq, &gap);
			if (!room)
				return L7_GUARD_HOLD;
			if (n > room)
				n = room;
			if (n > L7_GUARD_PEEK)
				n = L7_GUARD_PEEK;
			p = s->peek(s->ctx, g->nxt - gap - s->seq, gap + n, buf);
			if (!p)
				return L7_GUARD_UNREADABLE;
			n = line_part(p + gap, n);
			st = l7_http_body_feed(&g->body, p + gap, n, &used);
			if (st == L7_BODY_ERROR) {
				g->failed = true;
				return L7_GUARD_BAD_BODY;
			}
			log_append(g, g->nxt - gap, p, gap + used);
			g->nxt += used;
		}
		if (l7_http_body_done(&g->body))
			body_ended(g, v);
	}
	return L7_GUARD_OK;
}

static struct l7_guard_verdict verdict(enum l7_guard_act act,
				       enum l7_guard_why why)
{
	return (struct l7_guard_verdict){ .act = act, .why = why };
}

/* Out of order, in a body: only bulk bytes can be framed unseen. */
static enum l7_guard_why frame_early(struct l7_req_guard *g, uint32_t end,
				     struct l7_guard_verdict *v)
{
	if (g->done)
		return L7_GUARD_AFTER_END;
	if (g->wnd_known && l7_seq_after(end, g->wnd_end))
		return L7_GUARD_HOLD;
	if (end - g->nxt > l7_http_body_skippable(&g->body))
		return L7_GUARD_EARLY;
	l7_http_body_skip(&g->body, end - g->nxt);
	g->nxt = end;
	if (l7_http_body_done(&g->body))
		body_ended(g, v);
	return L7_GUARD_OK;
}

struct l7_guard_verdict l7_req_guard_seg(struct l7_req_guard *g,
					 const struct l7_req_seg *s)
{
	uint32_t end = s->seq + s->len, start = s->seq, framed, limit;
	struct l7_guard_verdict v = verdict(L7_GUARD_DROP, L7_GUARD_OK);
	enum l7_guard_why why = L7_GUARD_OK;

	if (g->failed)
		return verdict(L7_GUARD_RESET, L7_GUARD_BAD_BODY);
	if (!s->len && !s->fin)
		return v;	/* nothing for the backend's byte stream */
	if (l7_seq_before(start, g->lo)) {
		/* the backend reads the director's copy there, never these */
		if (!l7_seq_after(end, g->lo)) {
			v.why = L7_GUARD_OLD;
			v.resync = true;
			return v;
		}
		start = g->lo;
	}
	/* what the framer read in a resent range must not have changed */
	framed = l7_seq_before(end, g->nxt) ? end : g->nxt;
	if (l7_seq_before(start, framed) &&
	    !log_matches(g, s, start, framed)) {
		g->failed = true;
		return verdict(L7_GUARD_RESET, L7_GUARD_CHANGED);
	}

	if (l7_seq_after(start, g->nxt)) {
		why = frame_early(g, end, &v);
	} else if (!g->done) {
		limit = end;
		if (g->wnd_known && l7_seq_before(g->wnd_end, limit))
			limit = l7_seq_before(g->wnd_end, g->nxt) ? g->nxt :
								    g->wnd_end;
		why = frame(g, s, limit, &v);
		if (why == L7_GUARD_BAD_BODY)
			return verdict(L7_GUARD_RESET, why);
	}

	if (s->fin && !g->done && end == g->nxt) {
		g->failed = true;
		return verdict(L7_GUARD_RESET, L7_GUARD_FIN_IN_BODY);
	}
	if (start == end) {
		v.why = L7_GUARD_OLD;	/* a FIN behind its bytes */
		return v;
	}
	framed = g->nxt;
	if (!l7_seq_after(framed, start)) {
		v.why = why != L7_GUARD_OK ? why :
			g->done ? L7_GUARD_AFTER_END : L7_GUARD_HOLD;
		return v;
	}
	v.act = L7_GUARD_FORWARD;
	v.why = why;
	v.skip = start - s->seq;
	v.keep = (l7_seq_before(end, framed) ? end : framed) - s->seq;
	return v;
}

const char *l7_guard_why_name(enum l7_guard_why why)
{
	static const char *const names[] = {
		[L7_GUARD_OK] = "ok",
		[L7_GUARD_OLD] = "old",
		[L7_GUARD_EARLY] = "early",
		[L7_GUARD_AFTER_END] = "after-end",
		[L7_GUARD_HOLD] = "hold",
		[L7_GUARD_CHANGED] = "changed",
		[L7_GUARD_BAD_BODY] = "bad-body",
		[L7_GUARD_FIN_IN_BODY] = "fin-in-body",
		[L7_GUARD_UNREADABLE] = "unreadable",
	};

	return (unsigned int)why < L7_ARRAY_SIZE(names) ? names[why] : "?";
}
