// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/req_guard.c: what of a client's request body
 * may reach the backend.  Each test is one way a client could make the
 * backend read a stream other than the one the director framed.
 */
#include <string.h>

#include "req_guard.h"
#include "l7_test.h"

#define LO 1000u	/* client seq where the director's copy ends */

static const uint8_t *peek_mem(const void *ctx, uint32_t off, uint32_t n,
			       uint8_t *buf)
{
	(void)n;
	(void)buf;
	return (const uint8_t *)ctx + off;
}

static struct l7_guard_verdict seg(struct l7_req_guard *g, uint32_t seq,
				   const char *data, bool fin)
{
	struct l7_req_seg s = {
		.seq = seq,
		.len = strlen(data),
		.fin = fin,
		.peek = peek_mem,
		.ctx = data,
	};

	return l7_req_guard_seg(g, &s);
}

static struct l7_guard_log test_log;

static void start_with(struct l7_req_guard *g, bool chunked, uint64_t length,
		       bool done, struct l7_guard_log *log)
{
	struct l7_http_body body;

	l7_http_body_init(&body, NULL, chunked, length);
	l7_req_guard_init(g, LO, &body, done, log);
}

static void start(struct l7_req_guard *g, bool chunked, uint64_t length)
{
	/* the log may hold anything: the guard must not read it unwritten */
	memset(&test_log, 0xa5, sizeof(test_log));
	start_with(g, chunked, length, false, &test_log);
}

static void chunked_in_order(void)
{
	struct l7_req_guard g;
	struct l7_guard_verdict v;

	start(&g, true, 0);
	v = seg(&g, LO, "5\r\nhello\r\n", false);
	CHECK(v.act == L7_GUARD_FORWARD && v.keep == 10 && !v.ended,
	      "act %d keep %u", v.act, v.keep);
	v = seg(&g, LO + 10, "0\r\n\r\nGET /next", false);
	CHECK(v.act == L7_GUARD_FORWARD && v.keep == 5 && v.ended,
	      "act %d keep %u ended %d", v.act, v.keep, v.ended);
	CHECK(g.done && g.nxt == LO + 15, "end %u", g.nxt);
	/* the next request is the director's: nothing of it goes through */
	v = seg(&g, LO + 15, "GET /next", false);
	CHECK(v.act == L7_GUARD_DROP && v.why == L7_GUARD_AFTER_END,
	      "act %d why %d", v.act, v.why);
}

/* Framed, dropped, then "resent" with a body end and a request. */
static void changed_resend_is_reset(void)
{
	struct l7_req_guard g;
	struct l7_guard_verdict v;

	start(&g, true, 0);
	v = seg(&g, LO, "5\r\nhello\r\n0\r\n\r\n", false);
	CHECK(v.act == L7_GUARD_FORWARD && v.ended, "act %d", v.act);
	v = seg(&g, LO, "0\r\n\r\nPOST /x HTT", false);
	CHECK(v.act == L7_GUARD_RESET && v.why == L7_GUARD_CHANGED,
	      "act %d why %d", v.act, v.why);
	/* and it stays reset */
	v = seg(&g, LO, "5\r\nhello\r\n0\r\n\r\n", false);
	CHECK(v.act == L7_GUARD_RESET, "act %d", v.act);
}

/*
 * Bulk bytes may differ on a resend: they cannot move a boundary.  (A
 * short run of them between read bytes is logged with those, and must
 * not change either: no real TCP resends other bytes.)
 */
#define DATA20 "abcdefghijklmnopqrst"

static void changed_bulk_bytes_pass(void)
{
	struct l7_req_guard g;
	struct l7_guard_verdict v;

	start(&g, true, 0);
	v = seg(&g, LO, "14\r\n" DATA20 "\r\n", false);
	CHECK(v.act == L7_GUARD_FORWARD, "act %d", v.act);
	v = seg(&g, LO, "14\r\nABCDEFGHIJKLMNOPQRST\r\n", false);
	CHECK(v.act == L7_GUARD_FORWARD && v.keep == 26, "act %d keep %u",
	      v.act, v.keep);
	v = seg(&g, LO, "14\r\n" DATA20 "\n\n", false);
	CHECK(v.act == L7_GUARD_RESET, "chunk end changed: act %d", v.act);
	start(&g, true, 0);
	seg(&g, LO, "5\r\nhello\r\n", false);
	v = seg(&g, LO, "5\r\nHELLO\r\n", false);
	CHECK(v.act == L7_GUARD_RESET, "short gap: act %d", v.act);
}

/* A resend overlapping the copy: the backend reads the director's copy. */
static void below_copy_never_forwarded(void)
{
	struct l7_req_guard g;
	struct l7_guard_verdict v;

	start(&g, false, 10);
	v = seg(&g, LO - 5, "GET /", false);
	CHECK(v.act == L7_GUARD_DROP && v.why == L7_GUARD_OLD && v.resync,
	      "act %d why %d", v.act, v.why);
	CHECK(g.nxt == LO, "nxt %u", g.nxt);
	/* a segment that straddles the copy's end: its front is cut */
	v = seg(&g, LO - 5, "GET /0123456789", false);
	CHECK(v.act == L7_GUARD_FORWARD && v.skip == 5 && v.keep == 15 &&
	      v.ended, "act %d skip %u keep %u", v.act, v.skip, v.keep);
}

/* Once the backend acknowledged read bytes, their log is gone. */
static void acked_bytes_forgotten(void)
{
	struct l7_req_guard g;
	struct l7_guard_verdict v;

	start(&g, true, 0);
	v = seg(&g, LO, "5\r\nhello\r\n", false);
	CHECK(g.used > 0, "nothing logged");
	l7_req_guard_acked(&g, LO + 10);
	CHECK(g.used == 0 && g.nruns == 0, "used %u runs %u", g.used, g.nruns);
	/* the backend has them: a changed resend is discarded there */
	v = seg(&g, LO, "9\r\nhello\r\n", false);
	CHECK(v.act == L7_GUARD_FORWARD, "act %d", v.act);
}

static void partial_ack_keeps_the_rest(void)
{
	struct l7_req_guard g;
	struct l7_guard_verdict v;

	start(&g, true, 0);
	seg(&g, LO, "5\r\nhello\r\n3\r\nabc\r\n", false);
	l7_req_guard_acked(&g, LO + 12);	/* into "3\r\n" */
	v = seg(&g, LO + 10, "3\r\nabc\r\n", false);
	CHECK(v.act == L7_GUARD_FORWARD, "same: act %d", v.act);
	v = seg(&g, LO + 10, "4\r\nabc\r\n", false);
	CHECK(v.act == L7_GUARD_FORWARD, "acked part changed: act %d", v.act);
	v = seg(&g, LO + 10, "3\r\nabc\n\n", false);
	CHECK(v.act == L7_GUARD_RESET, "logged part changed: act %d", v.act);
}

/* A FIN before the body's end: the request can never complete. */
static void fin_in_body_resets(void)
{
	struct l7_req_guard g;
	struct l7_guard_verdict v;

	start(&g, false, 100);
	v = seg(&g, LO, "0123456789", true);
	CHECK(v.act == L7_GUARD_RESET && v.why == L7_GUARD_FIN_IN_BODY,
	      "act %d why %d", v.act, v.why);
	/* a FIN right after a complete body is not the guard's business */
	start(&g, false, 10);
	v = seg(&g, LO, "0123456789", true);
	CHECK(v.act == L7_GUARD_FORWARD && v.keep == 10 && v.ended,
	      "act %d keep %u", v.act, v.keep);
}

static void bad_chunk_line_resets(void)
{
	struct l7_req_guard g;
	struct l7_guard_verdict v;

	start(&g, true, 0);
	v = seg(&g, LO, "5\r\nhello\r\nZZ\r\n", false);
	CHECK(v.act == L7_GUARD_RESET && v.why == L7_GUARD_BAD_BODY,
	      "act %d why %d", v.act, v.why);
}

/* Out of order: bulk bytes pass, bytes that must be read wait. */
static void out_of_order(void)
{
	struct l7_req_guard g;
	struct l7_guard_verdict v;

	start(&g, false, 20);
	v = seg(&g, LO + 10, "0123456789", false);
	CHECK(v.act == L7_GUARD_FORWARD && v.keep == 10 && v.ended,
	      "act %d", v.act);
	start(&g, true, 0);
	v = seg(&g, LO + 3, "hello\r\n0\r\n\r\n", false);
	CHECK(v.act == L7_GUARD_DROP && v.why == L7_GUARD_EARLY,
	      "act %d why %d", v.act, v.why);
}

/* Nothing is framed beyond the backend's window. */
static void window_clips(void)
{
	struct l7_req_guard g;
	struct l7_guard_verdict v;

	start(&g, false, 100);
	l7_req_guard_window(&g, LO + 4);
	v = seg(&g, LO, "0123456789", false);
	CHECK(v.act == L7_GUARD_FORWARD && v.keep == 4, "act %d keep %u",
	      v.act, v.keep);
	v = seg(&g, LO + 6, "6789", false);
	CHECK(v.act == L7_GUARD_DROP && v.why == L7_GUARD_HOLD,
	      "act %d why %d", v.act, v.why);
	l7_req_guard_window(&g, LO + 2);	/* never moves back */
	CHECK(g.wnd_end == LO + 4, "edge %u", g.wnd_end);
}

/* A full log stops framing until the backend acknowledges. */
static void full_log_holds(void)
{
	char body[2048];
	struct l7_req_guard g;
	struct l7_guard_verdict v;
	size_t n = 0;

	/* one-byte chunks: five of every six bytes are read */
	while (n + 6 < sizeof(body)) {
		memcpy(body + n, "1\r\nx\r\n", 6);
		n += 6;
	}
	body[n] = 0;
	start(&g, true, 0);
	v = seg(&g, LO, body, false);
	CHECK(v.act == L7_GUARD_FORWARD && v.why == L7_GUARD_HOLD,
	      "act %d why %d", v.act, v.why);
	CHECK(v.keep < n && v.keep >= L7_GUARD_LOG_BYTES - 6,
	      "keep %u", v.keep);
	CHECK(g.used <= L7_GUARD_LOG_BYTES, "used %u", g.used);
	l7_req_guard_acked(&g, LO + v.keep);
	v = seg(&g, LO + v.keep, body + v.keep, false);
	CHECK(v.act == L7_GUARD_FORWARD && v.keep > 0, "act %d", v.act);
}

/*
 * A request that came whole with its head has no log: resends of it are
 * the copy's, bytes after it the next request's.
 */
static void done_needs_no_log(void)
{
	struct l7_req_guard g;
	struct l7_guard_verdict v;

	start_with(&g, false, 0, true, NULL);
	v = seg(&g, LO - 5, "GET /", false);
	CHECK(v.act == L7_GUARD_DROP && v.why == L7_GUARD_OLD && v.resync,
	      "old: act %d why %d", v.act, v.why);
	v = seg(&g, LO, "GET /next HTTP/1.1\r\n", false);
	CHECK(v.act == L7_GUARD_DROP && v.why == L7_GUARD_AFTER_END,
	      "after: act %d why %d", v.act, v.why);
	l7_req_guard_acked(&g, LO);
	CHECK(g.used == 0 && g.nruns == 0, "used %u", g.used);
}

/* A body to frame and no log to keep its read bytes in: nothing goes. */
static void body_without_log_resets(void)
{
	struct l7_req_guard g;
	struct l7_guard_verdict v;

	start_with(&g, true, 0, false, NULL);
	v = seg(&g, LO, "5\r\nhello\r\n", false);
	CHECK(v.act == L7_GUARD_RESET, "act %d why %d", v.act, v.why);
}

int main(void)
{
	RUN(chunked_in_order);
	RUN(changed_resend_is_reset);
	RUN(changed_bulk_bytes_pass);
	RUN(below_copy_never_forwarded);
	RUN(acked_bytes_forgotten);
	RUN(partial_ack_keeps_the_rest);
	RUN(fin_in_body_resets);
	RUN(bad_chunk_line_resets);
	RUN(out_of_order);
	RUN(window_clips);
	RUN(full_log_holds);
	RUN(done_needs_no_log);
	RUN(body_without_log_resets);
	return l7_test_summary("req_guard");
}
