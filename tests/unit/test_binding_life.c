// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for core/binding_life.c, the decisions of a binding's
 * life: a pooled connection goes back only when its server has exactly
 * the request; the client's ACK of a whole response finishes a binding,
 * or holds it for the report of a resend; finishing resets a server that
 * does not keep the connection and tells one that would probe for the
 * tail; a server's RST retires, loses or resets the client by what the
 * client has; a lost request goes again only when that is safe.
 */
#include "binding_life.h"
#include "l7_test.h"

#define COPY_END	1000u
#define RSP_END		5000u

/* A keep-alive GET answered whole, its server with all of it. */
static struct l7_bl answered(void)
{
	return (struct l7_bl){
		.req_end = COPY_END, .acked = COPY_END, .snd_nxt = COPY_END,
		.copy_end = COPY_END, .passed = 300, .last_pkt = 300,
		.rsp_end = RSP_END, .passed_c = RSP_END,
		.req_done = true, .rsp_done = true, .keep = true,
		.rsp_seen = true, .idempotent = true, .under_way = true,
	};
}

static void keeps_only_exact_request(void)
{
	struct l7_bl b = answered();

	CHECK(l7_bl_keeps(&b), "answered whole");
	b.acked = COPY_END - 1;
	CHECK(!l7_bl_keeps(&b), "request not all acknowledged");
	b = answered();
	b.snd_nxt = COPY_END + 10;
	CHECK(!l7_bl_keeps(&b), "bytes past the request in flight");
	b = answered();
	b.rsp_fin = true;
	CHECK(!l7_bl_keeps(&b), "server closing");
	b = answered();
	b.srv_rst = true;
	CHECK(!l7_bl_keeps(&b), "server reset");
	b = answered();
	b.keep = false;
	CHECK(!l7_bl_keeps(&b), "response says close");
	b = answered();
	b.req_done = false;
	CHECK(!l7_bl_keeps(&b), "request end unknown");
}

static void client_ack_finishes_in_order(void)
{
	struct l7_bl b = answered();

	CHECK(l7_bl_client_acked(&b, RSP_END - 1, false) == L7_BL_NOT_DONE,
	      "one byte short");
	CHECK(l7_bl_client_acked(&b, RSP_END, false) == L7_BL_FINISH,
	      "all of it");
	CHECK(l7_bl_client_acked(&b, RSP_END + 100, false) == L7_BL_FINISH,
	      "and more");
	b.rsp_done = false;
	CHECK(l7_bl_client_acked(&b, RSP_END, false) == L7_BL_NOT_DONE,
	      "response not framed to its end");
	b = answered();
	b.req_done = false;
	CHECK(l7_bl_client_acked(&b, RSP_END, false) == L7_BL_NOT_DONE,
	      "request body still coming");
	/* wrap: the response ends past 2^32 */
	b = answered();
	b.rsp_end = 10;
	CHECK(l7_bl_client_acked(&b, 0xfffffff0u, false) == L7_BL_NOT_DONE,
	      "before, across the wrap");
	CHECK(l7_bl_client_acked(&b, 10, false) == L7_BL_FINISH, "at it");
}

static void resend_holds_for_dup(void)
{
	struct l7_bl b = answered();

	b.rsp_resent = true;
	b.sack = true;
	CHECK(l7_bl_client_acked(&b, RSP_END, false) == L7_BL_HOLD_FOR_DUP,
	      "a report follows");
	CHECK(l7_bl_client_acked(&b, RSP_END, true) == L7_BL_FINISH,
	      "the report came with the ACK");
	b.sack = false;
	CHECK(l7_bl_client_acked(&b, RSP_END, false) == L7_BL_FINISH,
	      "no SACK: no report to wait for");
	b.sack = true;
	b.keep = false;
	CHECK(l7_bl_client_acked(&b, RSP_END, false) == L7_BL_FINISH,
	      "the connection is retired anyway");
}

static void finish_acks_or_resets(void)
{
	struct l7_bl b = answered();
	struct l7_bl_end e = l7_bl_finish(&b, false);

	CHECK(e.keep && !e.reset && !e.ack_now && !e.ack_owed && !e.error,
	      "kept quietly: the client's ACK was passed on");
	b.passed_c = RSP_END - 100;
	e = l7_bl_finish(&b, false);
	CHECK(e.keep && !e.ack_now && e.ack_owed, "the ACK is owed");
	b.last_pkt = 400;	/* more than its last packet out */
	e = l7_bl_finish(&b, false);
	CHECK(e.keep && e.ack_now && !e.ack_owed, "it would probe: now");
	b = answered();
	e = l7_bl_finish(&b, true);
	CHECK(e.keep && e.ack_now, "a duplicate reported: now");
	b.keep = false;
	e = l7_bl_finish(&b, true);
	CHECK(!e.keep && e.reset && !e.ack_now, "retired: reset");
	b.srv_rst = true;
	e = l7_bl_finish(&b, false);
	CHECK(!e.keep && !e.reset, "it reset first");
}

static void abort_resets_and_counts(void)
{
	struct l7_bl b = answered();
	struct l7_bl_end e = l7_bl_abort(&b, false);

	CHECK(!e.keep && e.reset && !e.error, "aborted after its response");
	b.rsp_done = false;
	e = l7_bl_abort(&b, false);
	CHECK(e.reset && e.error, "mid-response: the server's error");
	b.rsp_fin = true;
	e = l7_bl_abort(&b, true);
	CHECK(!e.reset, "a tunnel both ends closed");
	b.rsp_fin = false;
	e = l7_bl_abort(&b, true);
	CHECK(e.reset, "only the client closed the tunnel");
	b.srv_rst = true;
	e = l7_bl_abort(&b, false);
	CHECK(!e.reset, "it reset first");
}

static void server_rst_by_what_client_has(void)
{
	struct l7_bl b = answered();

	CHECK(l7_bl_server_rst(&b, RSP_END) == L7_BL_RST_RETIRE,
	      "client has all");
	CHECK(l7_bl_server_rst(&b, RSP_END - 1) == L7_BL_RST_CLIENT,
	      "client lacks a byte");
	b.rsp_done = false;
	b.rsp_seen = false;
	CHECK(l7_bl_server_rst(&b, 0) == L7_BL_RST_LOST, "nothing sent yet");
	b.under_way = false;
	CHECK(l7_bl_server_rst(&b, 0) == L7_BL_RST_CLIENT,
	      "an older binding's server");
	b.under_way = true;
	b.tunnel = true;
	CHECK(l7_bl_server_rst(&b, 0) == L7_BL_RST_CLIENT, "a tunnel");
	b = answered();
	b.rsp_seen = false;
	b.rsp_done = false;
	CHECK(l7_bl_refused_lost(&b, true), "closed before answering");
	CHECK(!l7_bl_refused_lost(&b, false), "bytes that are no response");
	b.rsp_seen = true;
	CHECK(!l7_bl_refused_lost(&b, true), "the client saw some");
}

static void retry_only_when_safe(void)
{
	struct l7_bl b = answered();

	CHECK(l7_bl_retry(&b), "GET, all of it the copy");
	b.tries = L7_BL_RETRIES - 1;
	CHECK(l7_bl_retry(&b), "lost again, within the bound");
	b.tries = L7_BL_RETRIES;
	CHECK(!l7_bl_retry(&b), "lost once more than the bound");
	b = answered();
	b.idempotent = false;
	CHECK(!l7_bl_retry(&b), "POST");
	b = answered();
	b.req_end = COPY_END + 20;
	CHECK(!l7_bl_retry(&b), "a body went through");
	b = answered();
	b.req_done = false;
	CHECK(!l7_bl_retry(&b), "a body still coming");
}

/* a body counts as acknowledged once its server has all of it */
static void body_acked_by_its_server(void)
{
	CHECK(l7_bl_body_acked(1000, 1000, 900), "no body: the copy is ours");
	CHECK(!l7_bl_body_acked(1500, 1000, 1499), "one byte short");
	CHECK(l7_bl_body_acked(1500, 1000, 1500), "all of it");
	CHECK(l7_bl_body_acked(5, 0xfffffff0u, 5), "across the wrap");
	CHECK(!l7_bl_body_acked(5, 0xfffffff0u, 0xfffffff8u),
	      "across the wrap, short");
}

int main(void)
{
	RUN(keeps_only_exact_request);
	RUN(body_acked_by_its_server);
	RUN(client_ack_finishes_in_order);
	RUN(resend_holds_for_dup);
	RUN(finish_acks_or_resets);
	RUN(abort_resets_and_counts);
	RUN(server_rst_by_what_client_has);
	RUN(retry_only_when_safe);
	return l7_test_summary("binding_life");
}
