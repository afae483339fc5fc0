// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/conn_sm.c, a client connection's requests one
 * after the other: a head goes on only with nothing under way and room
 * for a pooled connection; a done request closes the client that asked,
 * else frees what the client has and sends a held head on; a lost
 * request is only that; a server that answered and closed before the
 * body ended ends the request and the connection; deadlines end or
 * answer; a torn-down connection resets a client that lacks bytes.
 */
#include "conn_sm.h"
#include "l7_test.h"

/* A keep-alive request under way, its response framed to its end. */
static struct l7_csm answered(void)
{
	return (struct l7_csm){
		.state = L7C_HEAD, .bindings = 1, .max_pooled = 4,
		.cur = true, .cur_req_done = true, .cur_rsp_done = true,
		.cur_rsp_seen = true,
	};
}

static void head_waits_for_the_one_before(void)
{
	struct l7_csm m = { .state = L7C_HEAD, .max_pooled = 4 };

	CHECK(l7_csm_head_ready(&m) == L7_CSM_DISPATCH, "nothing under way");
	m.bindings = 3;
	CHECK(l7_csm_head_ready(&m) == L7_CSM_DISPATCH, "room for one more");
	m.bindings = 4;
	CHECK(l7_csm_head_ready(&m) == L7_CSM_HOLD, "client_max_pooled");
	m.bindings = 1;
	m.cur = true;
	CHECK(l7_csm_head_ready(&m) == L7_CSM_HOLD, "a request under way");
	m = (struct l7_csm){ .state = L7C_HELD, .bindings = 1,
			     .max_pooled = 4 };
	CHECK(l7_csm_acked(&m, true), "an ACK freed one: the held head");
	CHECK(!l7_csm_acked(&m, false), "nothing freed");
	m.state = L7C_HEAD;
	CHECK(!l7_csm_acked(&m, true), "nothing held");
}

static void done_closes_or_goes_on(void)
{
	struct l7_csm m = answered();
	struct l7_csm_plan p = l7_csm_cur_end(&m);

	CHECK(p.cur_done && p.finish_acked && !p.close && !p.close_fin &&
	      !p.dispatch_held, "keep-alive: on to the next");
	m.state = L7C_HELD;
	m.c_fin = true;
	p = l7_csm_cur_end(&m);
	CHECK(p.dispatch_held && !p.close_fin, "a held head, even after FIN");
	m.state = L7C_HEAD;
	p = l7_csm_cur_end(&m);
	CHECK(p.close_fin && p.finish_acked, "the client's FIN, nothing held");
	m = answered();
	m.cur_close_after = true;
	m.state = L7C_HELD;
	p = l7_csm_cur_end(&m);
	CHECK(p.cur_done && p.close && !p.finish_acked && !p.dispatch_held,
	      "asked to close: the held head is void");
	m = answered();
	m.cur_rsp_done = false;
	p = l7_csm_cur_end(&m);
	CHECK(!p.cur_done && !p.finish_acked, "response still coming");
	m = answered();
	m.cur_req_done = false;
	p = l7_csm_cur_end(&m);
	CHECK(!p.cur_done, "body still coming");
}

static void server_moves_the_request(void)
{
	struct l7_csm m = answered();
	struct l7_csm_plan p;

	m.cur_lost = true;
	p = l7_csm_rsp_moved(&m);
	CHECK(p.lost && !p.cur_done && !p.finish_acked, "lost: only that");
	m = answered();
	m.cur_req_done = false;
	m.state = L7C_BODY;
	m.cur_rsp_fin = true;
	p = l7_csm_rsp_moved(&m);
	CHECK(p.req_end && p.cur_done && p.close && p.finish_acked,
	      "answered and closed before the body ended");
	m.cur_rsp_fin = false;
	p = l7_csm_rsp_moved(&m);
	CHECK(!p.req_end && !p.cur_done && p.finish_acked,
	      "answered early, still open: the body goes on");
	m.cur_srv_rst = true;
	m.cur_rsp_done = false;
	p = l7_csm_rsp_moved(&m);
	CHECK(!p.req_end, "reset mid-response is not an answer");
	m = answered();
	m.dead = true;
	p = l7_csm_rsp_moved(&m);
	CHECK(!p.cur_done && !p.finish_acked && !p.lost, "dead: nothing");
	m = (struct l7_csm){ .state = L7C_HEAD, .bindings = 2 };
	p = l7_csm_rsp_moved(&m);
	CHECK(p.finish_acked && !p.cur_done, "no request under way");
}

static void deadlines_end_or_answer(void)
{
	struct l7_csm m = { .state = L7C_HEAD };

	CHECK(l7_csm_idle(&m) == L7_CSM_LATE_HEAD, "idle between requests");
	m.bindings = 1;
	CHECK(l7_csm_idle(&m) == L7_CSM_LATE_END, "a response the client owes");
	m = answered();
	m.cur_rsp_seen = false;
	CHECK(l7_csm_slow_body(&m) == L7_CSM_LATE_REPLY, "no answer yet: 408");
	m.cur_rsp_seen = true;
	CHECK(l7_csm_slow_body(&m) == L7_CSM_LATE_END, "answer begun");
	m.cur = false;
	CHECK(l7_csm_slow_body(&m) == L7_CSM_LATE_END, "nothing under way");
}

static void teardown_resets_a_client_short(void)
{
	struct l7_csm m = answered();

	CHECK(l7_csm_end_resets(&m), "a binding left");
	m.reset = true;
	CHECK(!l7_csm_end_resets(&m), "reset already");
	m = answered();
	m.state = L7C_TUNNEL;
	m.c_fin = true;
	m.cur_rsp_fin = true;
	CHECK(!l7_csm_end_resets(&m), "a tunnel both ends closed");
	m.c_fin = false;
	CHECK(l7_csm_end_resets(&m), "a tunnel the client did not close");
	m = answered();
	m.bindings = 0;
	CHECK(!l7_csm_end_resets(&m), "nothing left");
	m = answered();
	m.handed_over = true;
	CHECK(!l7_csm_end_resets(&m), "handed over to another director");
}

/* the reply and FIN: 6 resends while the response stands still */
static void reply_resent_then_reset(void)
{
	struct l7_csm_resend r = { 0 };
	int sends = 0;

	while (!r.give_up && sends < 20) {
		r = l7_csm_reply_due(true, false, r.tries);
		sends += r.send;
	}
	CHECK(sends == 6 && r.give_up, "%d resends, then a RST", sends);
	r = l7_csm_reply_due(true, true, 5);
	CHECK(r.send && r.tries == 1, "a moving response: the count starts over");
	r = l7_csm_reply_due(false, false, 3);
	CHECK(!r.send && !r.give_up && r.tries == 3, "acked: nothing");
}

/* a request's copy: 8 resends, then the head is lost */
static void copy_resent_then_lost(void)
{
	struct l7_csm_resend r = { 0 };
	int sends = 0;

	while (!r.give_up && sends < 20) {
		r = l7_csm_req_copy_due(true, r.tries);
		sends += r.send;
	}
	CHECK(sends == 8 && r.give_up, "%d resends, then it ends", sends);
	r = l7_csm_req_copy_due(false, 2);
	CHECK(!r.send && !r.give_up, "acknowledged: nothing");
}

/* response head copies: backoff capped at RTO << 6, never given up */
static void rsp_copy_backs_off(void)
{
	struct l7_csm_resend r = { 0 };
	int i;

	for (i = 0; i < 20; i++) {
		r = l7_csm_rsp_copy_due(true, r.tries);
		CHECK(r.send && !r.give_up, "resend %d", i);
	}
	CHECK(r.tries == 6, "backoff %u", r.tries);
	r = l7_csm_rsp_copy_due(false, 4);
	CHECK(!r.send && r.tries == 4, "none pending");
}

/* late deadlines that close */
static void late_closes(void)
{
	struct l7_csm m = { .state = L7C_QUEUED };

	CHECK(l7_csm_head_late(true) == L7_CSM_CLOSE_ANSWER, "part: 408");
	CHECK(l7_csm_head_late(false) == L7_CSM_CLOSE_QUIET, "none: close");
	CHECK(l7_csm_close_late(true) == L7_CSM_CLOSE_RESET, "lacks some");
	CHECK(l7_csm_close_late(false) == L7_CSM_CLOSE_QUIET, "has all");
	CHECK(l7_csm_queue_late(&m) == L7_CSM_CLOSE_ANSWER, "queued: 503");
	m.state = L7C_HEAD;
	CHECK(l7_csm_queue_late(&m) == L7_CSM_CLOSE_NONE, "bound meanwhile");
}

/* a 101: only for the request under way that asked, nothing behind */
static void upgrade_makes_a_tunnel(void)
{
	struct l7_csm m = answered();

	m.cur_rsp_done = false;
	m.cur_upgrade = true;
	CHECK(l7_csm_upgrade(&m, true), "asked, under way");
	CHECK(!l7_csm_upgrade(&m, false), "a binding before it");
	m.head_pending = true;
	CHECK(!l7_csm_upgrade(&m, true), "a request pipelined behind it");
	m.head_pending = false;
	m.cur_upgrade = false;
	CHECK(!l7_csm_upgrade(&m, true), "not asked");
	m.state = L7C_TUNNEL;
	m.c_fin = true;
	CHECK(!l7_csm_tunnel_closed(&m), "the server has not closed");
	m.cur_rsp_fin = true;
	CHECK(l7_csm_tunnel_closed(&m), "both FINs");
	m.dead = true;
	CHECK(!l7_csm_tunnel_closed(&m), "ending anyway");
}

static struct l7_bind_result res(enum l7_bind_res r, int status)
{
	return (struct l7_bind_result){ r, status };
}

/* a bind's result: bound, queued, waiting on, or answered */
static void bind_results(void)
{
	struct l7_csm_bound d;

	CHECK(l7_csm_bound(res(L7_BIND_OK, 0), false).act == L7_CSM_BOUND, "ok");
	CHECK(l7_csm_bound(res(L7_BIND_NONE, 0), false).act == L7_CSM_BOUND_QUEUE,
	      "none idle: queued");
	CHECK(l7_csm_bound(res(L7_BIND_NONE, 0), true).act == L7_CSM_BOUND_WAIT,
	      "queued already: waits on");
	d = l7_csm_bound(res(L7_BIND_NOMEM, 0), false);
	CHECK(d.act == L7_CSM_BOUND_ANSWER && d.status == 503,
	      "no memory at the first try: 503");
	CHECK(l7_csm_bound(res(L7_BIND_NOMEM, 0), true).act == L7_CSM_BOUND_WAIT,
	      "no memory, queued: the next kick");
	d = l7_csm_bound(res(L7_BIND_BAD_BODY, 0), true);
	CHECK(d.act == L7_CSM_BOUND_ANSWER && d.status == 400, "bad body");
	d = l7_csm_bound(res(L7_BIND_CAPPED, 0), false);
	CHECK(d.act == L7_CSM_BOUND_ANSWER && d.status == 503, "capped");
	d = l7_csm_bound(res(L7_BIND_STATUS, 403), false);
	CHECK(d.act == L7_CSM_BOUND_ANSWER && d.status == 403, "a rule's 403");
	d = l7_csm_bound(res(L7_BIND_QUEUE_FULL, 0), false);
	CHECK(d.act == L7_CSM_BOUND_ANSWER && d.status == 503, "queue full");
}

int main(void)
{
	RUN(head_waits_for_the_one_before);
	RUN(done_closes_or_goes_on);
	RUN(server_moves_the_request);
	RUN(deadlines_end_or_answer);
	RUN(teardown_resets_a_client_short);
	RUN(reply_resent_then_reset);
	RUN(copy_resent_then_lost);
	RUN(rsp_copy_backs_off);
	RUN(late_closes);
	RUN(upgrade_makes_a_tunnel);
	RUN(bind_results);
	return l7_test_summary("conn_sm");
}
