// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/client_seg.c: what the director does with a
 * client segment - take it into the head, give it to a body guard, or
 * only pass its ACK on.
 */
#include "client_seg.h"
#include "l7_test.h"

#define R 7000u	/* where the director stands in the client's stream */
#define A 6500u	/* the highest ACK it sent */

static struct l7_cseg_ctx ctx(enum l7_conn_state st)
{
	return (struct l7_cseg_ctx){ .state = st, .rcv_nxt = R, .acked = A,
				     .may_ack = true, .idle = true };
}

static struct l7_cseg_plan plan(const struct l7_cseg_ctx *x, uint32_t seq,
				uint32_t len, bool fin)
{
	struct l7_cseg s = { .seq = seq, .len = len, .fin = fin };

	return l7_cseg_plan(x, &s);
}

static void in_order_head_bytes_are_taken(void)
{
	struct l7_cseg_ctx x = ctx(L7C_HEAD);
	struct l7_cseg_plan p = plan(&x, R, 100, false);

	CHECK(p.act == L7_CSEG_TAKE && p.skip == 0, "act %d skip %u", p.act,
	      p.skip);
	/* a resend overlapping the end of what we have: the new part */
	p = plan(&x, R - 40, 100, false);
	CHECK(p.act == L7_CSEG_TAKE && p.skip == 40, "act %d skip %u", p.act,
	      p.skip);
	/* held or queued heads take pipelined bytes too */
	x.state = L7C_HELD;
	p = plan(&x, R, 10, false);
	CHECK(p.act == L7_CSEG_TAKE, "held: act %d", p.act);
}

/* Never a byte twice: a resend of taken bytes only goes to a guard. */
static void resends_are_old(void)
{
	struct l7_cseg_ctx x = ctx(L7C_HEAD);
	struct l7_cseg_plan p = plan(&x, R - 100, 100, false);

	CHECK(p.act == L7_CSEG_OLD, "act %d", p.act);
	/* reaching past a body its backend has not acknowledged yet */
	x.may_ack = false;
	p = plan(&x, R - 40, 100, false);
	CHECK(p.act == L7_CSEG_OLD, "unacked body: act %d", p.act);
}

static void not_taken(void)
{
	struct l7_cseg_ctx x = ctx(L7C_HEAD);
	struct l7_cseg_plan p;

	p = plan(&x, R + 10, 100, false);
	CHECK(p.act == L7_CSEG_PASS && p.ack && !p.pure,
	      "out of order: act %d ack %d", p.act, p.ack);
	x.may_ack = false;
	p = plan(&x, R + 10, 100, false);
	CHECK(p.act == L7_CSEG_PASS && !p.ack,
	      "out of order, body unacked: act %d ack %d", p.act, p.ack);
	x = ctx(L7C_HEAD);
	x.fin = true;
	p = plan(&x, R, 5, false);
	CHECK(p.act == L7_CSEG_PASS, "after FIN: act %d", p.act);
	x = ctx(L7C_HEAD);
	p = plan(&x, R, 0, false);
	CHECK(p.act == L7_CSEG_PASS && p.pure && !p.ack, "pure ACK: act %d",
	      p.act);
}

static void states_that_hand_over(void)
{
	struct l7_cseg_ctx x = ctx(L7C_BODY);

	CHECK(plan(&x, R, 10, false).act == L7_CSEG_BODY, "body");
	x.state = L7C_TUNNEL;
	CHECK(plan(&x, R + 999, 10, true).act == L7_CSEG_TUNNEL, "tunnel");
}

static void closing_takes_only_a_fin(void)
{
	struct l7_cseg_ctx x = ctx(L7C_CLOSING);
	struct l7_cseg_plan p;

	p = plan(&x, R - 5, 5, true);
	CHECK(p.act == L7_CSEG_PASS && p.take_fin && p.ack && !p.pure,
	      "in-order FIN: act %d fin %d", p.act, p.take_fin);
	p = plan(&x, R, 5, true);
	CHECK(p.act == L7_CSEG_PASS && !p.take_fin, "FIN after data: %d",
	      p.take_fin);
	x.fin = true;
	p = plan(&x, R - 5, 5, true);
	CHECK(!p.take_fin, "second FIN");
	p = plan(&x, R, 0, false);
	CHECK(p.act == L7_CSEG_PASS && p.pure, "pure ACK");
}

static void after_take(void)
{
	struct l7_cseg_ctx x = ctx(L7C_HEAD);
	struct l7_cseg s = { .seq = R - 20, .len = 20, .fin = true };
	struct l7_cseg_plan p;

	/* all taken, FIN in order, nothing under way: close */
	p = l7_cseg_after_take(&x, &s);
	CHECK(p.take_fin && p.ack && p.close && p.act == L7_CSEG_DROP,
	      "fin %d close %d act %d", p.take_fin, p.close, p.act);
	/* a response under way: the FIN waits for it */
	x.idle = false;
	p = l7_cseg_after_take(&x, &s);
	CHECK(p.take_fin && !p.close && p.act == L7_CSEG_PASS,
	      "close %d act %d", p.close, p.act);
	/* head dispatched, the rest of the segment is its body */
	x = ctx(L7C_BODY);
	s = (struct l7_cseg){ .seq = R - 20, .len = 50 };
	p = l7_cseg_after_take(&x, &s);
	CHECK(p.act == L7_CSEG_BODY && p.ack, "act %d", p.act);
	/* not all taken (buffer full): acknowledge what was */
	x = ctx(L7C_HEAD);
	p = l7_cseg_after_take(&x, &s);
	CHECK(p.act == L7_CSEG_PASS && p.ack && !p.take_fin, "act %d", p.act);
	/* queued: no backend to pass the ACK to */
	x.state = L7C_QUEUED;
	p = l7_cseg_after_take(&x, &s);
	CHECK(p.act == L7_CSEG_DROP, "queued: act %d", p.act);
}

/*
 * A request that went on to its server whole: the director's ACK may
 * wait for the server's; a head still in the buffer, a queued request
 * or a FIN is acknowledged now.
 */
static void ack_later_when_sent(void)
{
	static const struct {
		enum l7_conn_state state;
		bool sent;
		const char *what;
	} now[] = {
		{ L7C_HEAD, false, "buffered" },
		{ L7C_HELD, true, "held" },
		{ L7C_QUEUED, true, "queued" },
	};
	struct l7_cseg_ctx x = ctx(L7C_HEAD);
	struct l7_cseg s = { .seq = R - 20, .len = 20 };
	struct l7_cseg_plan p;
	unsigned int i;

	x.idle = false;
	x.sent = true;
	p = l7_cseg_after_take(&x, &s);
	CHECK(!p.ack && p.ack_later && p.act == L7_CSEG_PASS,
	      "sent: ack %d later %d act %d", p.ack, p.ack_later, p.act);
	/* its body in the same segment */
	x.state = L7C_BODY;
	s.len = 50;
	p = l7_cseg_after_take(&x, &s);
	CHECK(p.act == L7_CSEG_BODY && !p.ack && p.ack_later,
	      "body: ack %d later %d", p.ack, p.ack_later);
	/*
	 * Part of a head waits in the buffer; held behind a response, or
	 * queued: no server has it yet
	 */
	s.len = 20;
	for (i = 0; i < 3; i++) {
		x = ctx(now[i].state);
		x.idle = false;
		x.sent = now[i].sent;
		p = l7_cseg_after_take(&x, &s);
		CHECK(p.ack && !p.ack_later, "%s: ack %d later %d", now[i].what,
		      p.ack, p.ack_later);
	}
	x.sent = true;
	/* a FIN: the server never sees it */
	x.state = L7C_HEAD;
	s.fin = true;
	p = l7_cseg_after_take(&x, &s);
	CHECK(p.take_fin && p.ack && !p.ack_later, "fin: ack %d later %d",
	      p.ack, p.ack_later);
	/* nothing the director may acknowledge: nothing later either */
	s.fin = false;
	x.may_ack = false;
	p = l7_cseg_after_take(&x, &s);
	CHECK(!p.ack && !p.ack_later, "may not: ack %d later %d", p.ack,
	      p.ack_later);
}

/*
 * A head after a body its server has not acknowledged yet: taken (the
 * client must not have to resend it), acknowledged only later.
 */
static void taken_unacknowledged_after_a_body(void)
{
	struct l7_cseg_ctx x = ctx(L7C_HEAD);
	struct l7_cseg s = { .seq = R, .len = 100 };
	struct l7_cseg_plan p;

	x.may_ack = false;
	p = l7_cseg_plan(&x, &s);
	CHECK(p.act == L7_CSEG_TAKE && p.skip == 0 && !p.ack, "act %d ack %d",
	      p.act, p.ack);
	x.state = L7C_HELD;	/* a second head behind a held one */
	CHECK(l7_cseg_plan(&x, &s).act == L7_CSEG_TAKE, "held");
	/* after the take: its ACK goes on, the director's own waits */
	x.rcv_nxt = R + 100;
	p = l7_cseg_after_take(&x, &s);
	CHECK(p.act == L7_CSEG_PASS && !p.ack && !p.take_fin, "act %d ack %d",
	      p.act, p.ack);
	/* a FIN with it counts, unacknowledged, and closes nothing yet */
	s.fin = true;
	x.idle = false;
	p = l7_cseg_after_take(&x, &s);
	CHECK(p.take_fin && !p.ack && !p.close && p.act == L7_CSEG_PASS,
	      "fin %d ack %d close %d act %d", p.take_fin, p.ack, p.close,
	      p.act);
	/* the same in CLOSING */
	x = ctx(L7C_CLOSING);
	x.may_ack = false;
	p = plan(&x, R - 5, 5, true);
	CHECK(p.take_fin && !p.ack, "closing: fin %d ack %d", p.take_fin,
	      p.ack);
	/* a head dispatched meanwhile, its body in the same segment */
	x = ctx(L7C_BODY);
	x.may_ack = false;
	s = (struct l7_cseg){ .seq = R - 20, .len = 50 };
	p = l7_cseg_after_take(&x, &s);
	CHECK(p.act == L7_CSEG_BODY && !p.ack, "body: act %d ack %d", p.act,
	      p.ack);
}

/* The segment that ended a body: what follows in it is taken. */
static void after_body(void)
{
	struct l7_cseg_ctx x = ctx(L7C_HEAD);
	struct l7_cseg s = { .seq = R - 300, .len = 400 };
	struct l7_cseg_plan p;

	x.may_ack = false;
	p = l7_cseg_after_body(&x, &s);
	CHECK(p.act == L7_CSEG_TAKE && p.skip == 300 && !p.ack,
	      "head after: act %d skip %u", p.act, p.skip);
	/* a FIN right after the body */
	s = (struct l7_cseg){ .seq = R - 300, .len = 300, .fin = true };
	p = l7_cseg_after_body(&x, &s);
	CHECK(p.act == L7_CSEG_TAKE && p.skip == 300, "fin after: act %d",
	      p.act);
	x.rcv_nxt = R + 1;	/* ... and after it is taken: done */
	x.fin = true;
	p = l7_cseg_after_body(&x, &s);
	CHECK(p.act == L7_CSEG_PASS && !p.take_fin, "taken FIN: act %d", p.act);
	/* the body's end and nothing else */
	x = ctx(L7C_HEAD);
	s = (struct l7_cseg){ .seq = R - 300, .len = 300 };
	p = l7_cseg_after_body(&x, &s);
	CHECK(p.act == L7_CSEG_PASS && !p.ack, "body only: act %d", p.act);
}

/* The director's ACK never passes body bytes a server may lack. */
static void ack_point(void)
{
	struct l7_cseg_ctx x = ctx(L7C_HEAD);

	CHECK(l7_cseg_ack(&x) == R, "may ack: %u", l7_cseg_ack(&x));
	x.may_ack = false;
	CHECK(l7_cseg_ack(&x) == A, "body unacked: %u", l7_cseg_ack(&x));
	x.state = L7C_CLOSING;
	CHECK(l7_cseg_ack(&x) == A, "closing: %u", l7_cseg_ack(&x));
}

static struct l7_tunnel_seg tunnel(uint32_t seq, uint32_t len, bool fin)
{
	struct l7_cseg s = { .seq = seq, .len = len, .fin = fin };

	return l7_tunnel_seg(R, &s);
}

/*
 * Through a tunnel the stream moves only with in-order bytes, and only
 * an in-order FIN counts: a blind one anywhere else closes nothing.
 */
static void tunnel_follows_the_stream(void)
{
	struct l7_tunnel_seg t = tunnel(R, 100, false);

	CHECK(t.progress && t.rcv_nxt == R + 100 && !t.fin, "in order: %u",
	      t.rcv_nxt);
	t = tunnel(R - 40, 100, true);
	CHECK(t.progress && t.rcv_nxt == R + 61 && t.fin,
	      "overlap + FIN: %u fin %d", t.rcv_nxt, t.fin);
	t = tunnel(R, 0, true);
	CHECK(t.progress && t.rcv_nxt == R + 1 && t.fin, "bare FIN: %u",
	      t.rcv_nxt);
	/* the FIN's resend (or a FIN where data was): counted already */
	t = tunnel(R - 1, 0, true);
	CHECK(!t.progress && t.rcv_nxt == R && !t.fin, "FIN again: %u fin %d",
	      t.rcv_nxt, t.fin);
	t = tunnel(R - 100, 100, false);
	CHECK(!t.progress && t.rcv_nxt == R, "resend: %u", t.rcv_nxt);
	t = tunnel(R, 0, false);
	CHECK(!t.progress && !t.fin, "pure ACK: progress %d", t.progress);
	/* a gap before it, or far from the stream: nothing counts */
	t = tunnel(R + 1, 10, true);
	CHECK(!t.progress && !t.fin && t.rcv_nxt == R, "gap: fin %d", t.fin);
	t = tunnel(R + 0x80000000u, 0, true);
	CHECK(!t.progress && !t.fin, "blind FIN: fin %d", t.fin);
	t = tunnel(R - 5000, 10, true);
	CHECK(!t.progress && !t.fin, "old FIN: fin %d", t.fin);
}

/* a server's ACK of a body: the head bytes taken after it, acked now */
static void server_ack_releases_our_ack(void)
{
	struct l7_cseg_ctx x = ctx(L7C_HEAD);

	/* the request ended at A - 10; the director holds [A, R) unacked */
	CHECK(l7_cseg_server_acked(&x, true, A - 10), "bytes after it: ack");
	CHECK(!l7_cseg_server_acked(&x, false, A - 10), "body not framed");
	CHECK(!l7_cseg_server_acked(&x, true, R), "nothing after its end");
	x.may_ack = false;
	CHECK(!l7_cseg_server_acked(&x, true, A - 10),
	      "another body not at its server yet");
	x = ctx(L7C_BODY);
	CHECK(!l7_cseg_server_acked(&x, true, A - 10), "a body under way");
	x = ctx(L7C_HEAD);
	x.acked = R;
	CHECK(!l7_cseg_server_acked(&x, true, A - 10), "all acked already");
}

static const struct l7_copy_carrier carrier = {
	.client_len = 80, .same = true, .bindings = 1, .after = L7_CSEG_PASS,
	.ts_wanted = true,
};

static bool carries(const struct l7_cseg *s, const struct l7_copy_carrier *k)
{
	return l7_cseg_carries_copy(s, k);
}

/* The client's segment goes as the copy only when it is the copy. */
static void segment_carries_the_copy(void)
{
	struct l7_cseg s = { .seq = R, .len = 80, .ts = true };
	struct l7_cseg t = s;
	struct l7_copy_carrier k = carrier;

	CHECK(carries(&s, &k), "the whole head, alone: it goes");
	k.ts_wanted = false;
	CHECK(carries(&s, &k), "a timestamp the copy drops");
	t.ts = false;
	CHECK(carries(&t, &k), "no timestamp either side");
	k.ts_wanted = true;
	CHECK(!carries(&t, &k), "no timestamp where the copy needs one");
	k = carrier;
	k.same = false;
	CHECK(!carries(&s, &k), "a copy that differs (a field added)");
	k = carrier;
	k.skip = 10;
	CHECK(!carries(&s, &k), "a resend overlapping taken bytes");
	k = carrier;
	k.buffered = 20;	/* a head of 20 + 60, a pipelined one's 20 */
	CHECK(!carries(&s, &k), "the head began in an earlier segment");
	k = carrier;
	t = s;
	t.len = 120;
	CHECK(!carries(&t, &k), "a pipelined head after it");
	t.len = 40;
	CHECK(!carries(&t, &k), "the copy holds bytes of an earlier segment");
	t.len = 0;
	k.client_len = 0;
	CHECK(!carries(&t, &k), "no payload");
	k = carrier;
	t = s;
	t.fin = true;
	CHECK(!carries(&t, &k), "a FIN: the director takes it");
	k.bindings = 2;
	CHECK(!carries(&s, &k),
	      "an older response's server still waits for its ACK");
	k = carrier;
	k.after = L7_CSEG_BODY;
	CHECK(!carries(&s, &k), "body bytes follow: the guard's");
	k.after = L7_CSEG_DROP;
	CHECK(!carries(&s, &k), "nothing of it goes on");
}

int main(void)
{
	RUN(in_order_head_bytes_are_taken);
	RUN(server_ack_releases_our_ack);
	RUN(resends_are_old);
	RUN(not_taken);
	RUN(states_that_hand_over);
	RUN(closing_takes_only_a_fin);
	RUN(after_take);
	RUN(ack_later_when_sent);
	RUN(taken_unacknowledged_after_a_body);
	RUN(after_body);
	RUN(ack_point);
	RUN(tunnel_follows_the_stream);
	RUN(segment_carries_the_copy);
	return l7_test_summary("client_seg");
}
