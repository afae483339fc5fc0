// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/rsp_guard.c: what of a backend's segment goes
 * to the client, and where a response ends.  The client may get exactly
 * the bytes of one response, never one past its end.
 */
#include <string.h>

#include "rsp_guard.h"
#include "tcp_guard.h"
#include "l7_test.h"

#define S0 5000u	/* backend seq where the response starts */

static const uint8_t *peek_mem(const void *ctx, uint32_t off, uint32_t n,
			       uint8_t *buf)
{
	(void)n;
	(void)buf;
	return (const uint8_t *)ctx + off;
}

static bool poke_mem(const void *ctx, uint32_t off, const uint8_t *p,
		     uint32_t n)
{
	memcpy((uint8_t *)ctx + off, p, n);
	return true;
}

static struct l7_rsp_verdict seg(struct l7_rsp_guard *g, uint32_t seq,
				 const char *data, bool fin)
{
	struct l7_rsp_seg s = {
		.seq = seq,
		.len = strlen(data),
		.fin = fin,
		.peek = peek_mem,
		.poke = poke_mem,
		.ctx = data,
	};

	return l7_rsp_guard_seg(g, &s);
}

static const char rsp5[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";

static void whole_response_in_one(void)
{
	struct l7_rsp_guard g;
	struct l7_rsp_verdict v;

	l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
	v = seg(&g, S0, rsp5, false);
	CHECK(v.act == L7_RSP_FORWARD && v.ended && !v.strip_fin,
	      "act %d ended %d", v.act, v.ended);
	CHECK(g.done && l7_rsp_guard_end(&g) == S0 + strlen(rsp5), "end %u",
	      l7_rsp_guard_end(&g));
	CHECK(g.resp.keep_alive, "keep-alive");
	/* a resend of it changes nothing */
	v = seg(&g, S0, rsp5, false);
	CHECK(v.act == L7_RSP_FORWARD && !v.ended, "act %d", v.act);
}

/* Bytes past the end in the same segment: not HTTP, never forwarded. */
static void bytes_after_end_are_bad(void)
{
	struct l7_rsp_guard g;
	struct l7_rsp_verdict v;

	l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
	v = seg(&g, S0, "HTTP/1.1 204 No Content\r\n\r\nX", false);
	CHECK(v.act == L7_RSP_BAD && !v.closed, "act %d", v.act);

	l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
	v = seg(&g, S0, rsp5, false);
	v = seg(&g, S0 + strlen(rsp5), "HTTP/1.1 200 OK\r\n", false);
	CHECK(v.act == L7_RSP_BAD, "a second response: act %d", v.act);
}

/* Out of order: a head must be read in order, bulk body may skip. */
static void out_of_order(void)
{
	struct l7_rsp_guard g;
	struct l7_rsp_verdict v;
	const char *head = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n";
	uint32_t h = strlen(head);

	l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
	v = seg(&g, S0 + 5, head + 5, false);
	CHECK(v.act == L7_RSP_WAIT, "head out of order: act %d", v.act);
	v = seg(&g, S0, head, false);
	CHECK(v.act == L7_RSP_FORWARD && !v.ended, "act %d", v.act);
	v = seg(&g, S0 + h + 5, "56789", false);
	CHECK(v.act == L7_RSP_FORWARD && v.ended, "body skipped: act %d ended %d",
	      v.act, v.ended);
	CHECK(l7_rsp_guard_end(&g) == S0 + h + 10, "end %u",
	      l7_rsp_guard_end(&g));
	/* the hole is body too: it goes through, nothing new is framed */
	v = seg(&g, S0 + h, "01234", false);
	CHECK(v.act == L7_RSP_FORWARD && !v.ended, "act %d", v.act);
	/* past the end of the body: never */
	l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
	seg(&g, S0, head, false);
	v = seg(&g, S0 + h + 5, "56789X", false);
	CHECK(v.act == L7_RSP_WAIT, "over the end out of order: act %d", v.act);
}

/* A FIN: after the response it is the backend's own; before, it cuts. */
static void fin_placement(void)
{
	struct l7_rsp_guard g;
	struct l7_rsp_verdict v;

	l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
	v = seg(&g, S0, rsp5, true);
	CHECK(v.act == L7_RSP_FORWARD && v.ended && v.strip_fin && !g.eof_end,
	      "act %d ended %d strip %d", v.act, v.ended, v.strip_fin);
	CHECK(g.fin && g.rcv_nxt == S0 + strlen(rsp5) + 1, "rcv_nxt %u",
	      g.rcv_nxt);

	/* close-delimited: the FIN is the end, the client gets ours */
	l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
	v = seg(&g, S0, "HTTP/1.0 200 OK\r\n\r\nabc", false);
	CHECK(v.act == L7_RSP_FORWARD && !v.ended, "act %d", v.act);
	v = seg(&g, S0 + 22, "", true);
	CHECK(v.act == L7_RSP_FORWARD && v.ended && v.strip_fin && g.eof_end,
	      "act %d ended %d eof %d", v.act, v.ended, g.eof_end);

	/* a FIN ahead of missing bytes waits for them */
	l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
	v = seg(&g, S0, "HTTP/1.0 200 OK\r\n\r\nabc", false);
	v = seg(&g, S0 + 30, "", true);
	CHECK(v.act == L7_RSP_WAIT, "act %d", v.act);

	/*
	 * After a finished response, a FIN anywhere but at its end is not
	 * the backend's: it changes nothing (the binding is kept).
	 */
	l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
	seg(&g, S0, rsp5, false);
	v = seg(&g, S0 + 0x80000000u, "", true);
	CHECK(v.act == L7_RSP_WAIT && !g.fin, "blind FIN: act %d fin %d",
	      v.act, g.fin);
	v = seg(&g, S0 + strlen(rsp5) + 1, "", true);
	CHECK(v.act == L7_RSP_WAIT && !g.fin, "FIN ahead: act %d", v.act);
	v = seg(&g, S0 + strlen(rsp5), "", true);
	CHECK(v.act == L7_RSP_FORWARD && v.strip_fin && g.fin,
	      "FIN at the end: act %d", v.act);

	/* a Content-Length body cut short */
	l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
	v = seg(&g, S0, "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nab",
		true);
	CHECK(v.act == L7_RSP_BAD && v.closed, "truncated: act %d", v.act);
}

static void upgrade_and_tunnel(void)
{
	struct l7_rsp_guard g;
	struct l7_rsp_verdict v;

	l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
	v = seg(&g, S0, "HTTP/1.1 101 Switching Protocols\r\n"
			"Connection: upgrade\r\nUpgrade: websocket\r\n\r\n",
		false);
	CHECK(v.act == L7_RSP_UPGRADE, "act %d", v.act);
	l7_rsp_guard_tunnel(&g);
	v = seg(&g, S0 + 500, "any bytes at all", true);
	CHECK(v.act == L7_RSP_FORWARD && !v.strip_fin && g.fin,
	      "tunnel: act %d strip %d", v.act, v.strip_fin);
}

/*
 * RFC 5961: a RST counts only where the backend's in-order bytes end -
 * the guard's rcv_nxt, which the server's side of a binding reads
 * (l7_server_endpoint() in the glue, core/tcp_accept.c).
 */
static enum l7_tcp_rst_verdict rst(const struct l7_rsp_guard *g, uint32_t seq)
{
	return l7_tcp_rst_check(seq, g->rcv_nxt, 1000, g->fin);
}

static void rst_only_at_rcv_nxt(void)
{
	struct l7_rsp_guard g;

	l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
	CHECK(rst(&g, S0) == L7_RST_ACCEPT, "at start");
	seg(&g, S0, "HTTP/1.1 200 OK\r\n", false);
	CHECK(rst(&g, S0) == L7_RST_DROP, "old seq");
	CHECK(rst(&g, S0 + 20) == L7_RST_CHALLENGE, "in window, not exact");
	CHECK(rst(&g, S0 + 17) == L7_RST_ACCEPT, "exact");
	CHECK(rst(&g, S0 + 5000) == L7_RST_DROP, "out of window");
	/* bytes the framer made wait still move the backend's position */
	seg(&g, S0 + 17, "X-A: 1\r\n", false);
	CHECK(g.rcv_nxt == S0 + 25, "rcv_nxt %u", g.rcv_nxt);
}

/* A response to HEAD has no body, whatever its head says. */
static void head_method(void)
{
	struct l7_rsp_guard g;
	struct l7_rsp_verdict v;
	const char *r = "HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n";

	l7_rsp_guard_init(&g, S0, L7_HTTP_M_HEAD, false);
	v = seg(&g, S0, r, false);
	CHECK(v.act == L7_RSP_FORWARD && v.ended &&
	      l7_rsp_guard_end(&g) == S0 + strlen(r), "act %d ended %d",
	      v.act, v.ended);
}

/* The server's Connection fields are hidden from a client that goes on. */
static void connection_cloaked(void)
{
	static const char r[] = "HTTP/1.1 200 OK\r\nConnection: close\r\n"
				"Content-Length: 2\r\n\r\nok";
	char buf[2 * sizeof(r)], a[sizeof(r)], b[sizeof(r)];
	struct l7_rsp_guard g;
	struct l7_rsp_verdict v;
	size_t cut;

	/* whole, and cut at every byte: the name is hidden whenever a byte
	 * of it was still to go when it was complete
	 */
	for (cut = 0; cut < sizeof(r) - 1; cut++) {
		memcpy(a, r, cut);
		a[cut] = 0;
		strcpy(b, r + cut);
		l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, true);
		if (cut)
			seg(&g, S0, a, false);
		v = seg(&g, S0 + cut, b, false);
		CHECK(v.act == L7_RSP_FORWARD && v.ended, "cut %zu: act %d",
		      cut, v.act);
		snprintf(buf, sizeof(buf), "%s%s", a, b);
		if (cut <= 17 + 9) {
			CHECK(!g.cloak_missed && !strstr(buf, "Connection"),
			      "cut %zu: %s", cut, buf);
		} else if (cut == 17 + 10) {
			CHECK(g.cloak_missed, "cut %zu: all of it went out",
			      cut);
		}
		/* framing does not move: it ended where the bytes end */
		CHECK(l7_rsp_guard_end(&g) == S0 + sizeof(r) - 1, "cut %zu",
		      cut);
	}
	/* any byte of the cloak differs from "connection" at its place */
	for (cut = 0; cut < 10; cut++)
		CHECK((L7_CLOAKED_NAME[cut] | 0x20) != "connection"[cut],
		      "byte %zu", cut);
	/* a resend of the head is cloaked again */
	strcpy(b, r);
	v = seg(&g, S0, b, false);
	CHECK(!strncmp(b + 17, L7_CLOAKED_NAME, 10), "resend: %s", b);
	/* off: left alone */
	strcpy(b, r);
	l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
	seg(&g, S0, b, false);
	CHECK(!strcmp(b, r), "not cloaked: %s", b);
}

/* @data at @seq, acknowledging backend seq @ack */
static struct l7_rsp_verdict seg_ack(struct l7_rsp_guard *g, uint32_t seq,
				     const char *data, uint32_t ack)
{
	struct l7_rsp_seg s = {
		.seq = seq,
		.len = strlen(data),
		.has_ack = true,
		.ack = ack,
		.peek = peek_mem,
		.poke = poke_mem,
		.ctx = data,
	};

	return l7_rsp_guard_seg(g, &s);
}

/*
 * A response comes after its request: new bytes sent before the backend
 * had a byte of it are nobody's response; resends of bytes before the
 * response, and bytes that acknowledge the request, are not refused.
 */
static void bytes_before_the_request_are_unsolicited(void)
{
	const uint32_t asked = 90000;
	struct l7_rsp_guard g;
	struct l7_rsp_verdict v;

	l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
	l7_rsp_guard_asked(&g, asked);
	v = seg_ack(&g, S0, rsp5, asked);
	CHECK(v.act == L7_RSP_BAD && v.unsolicited, "at the request: act %d",
	      v.act);
	v = seg_ack(&g, S0, rsp5, asked - 1000);
	CHECK(v.act == L7_RSP_BAD && v.unsolicited, "before it: act %d", v.act);
	CHECK(g.fed == S0 && g.rcv_nxt == S0, "no state moved: %u %u", g.fed,
	      g.rcv_nxt);
	/* a resend of the response before (all below ->fed): not new */
	v = seg_ack(&g, S0 - 10, "0123456789", asked);
	CHECK(v.act == L7_RSP_FORWARD, "resend before: act %d", v.act);
	v = seg_ack(&g, S0, rsp5, asked + 1);
	CHECK(v.act == L7_RSP_FORWARD && v.ended, "one byte in: act %d",
	      v.act);
	/* unknown request start: no judgement (the host tests' default) */
	l7_rsp_guard_init(&g, S0, L7_HTTP_M_GET, false);
	v = seg_ack(&g, S0, rsp5, asked - 1000);
	CHECK(v.act == L7_RSP_FORWARD, "not set: act %d", v.act);
}

int main(void)
{
	RUN(connection_cloaked);
	RUN(whole_response_in_one);
	RUN(bytes_after_end_are_bad);
	RUN(out_of_order);
	RUN(fin_placement);
	RUN(upgrade_and_tunnel);
	RUN(rst_only_at_rcv_nxt);
	RUN(head_method);
	RUN(bytes_before_the_request_are_unsolicited);
	return l7_test_summary("rsp_guard");
}
