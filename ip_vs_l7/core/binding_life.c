// SPDX-License-Identifier: GPL-2.0
/*
 * ip_vs_l7 core: the life of a binding (binding_life.h).
 */
#include "binding_life.h"
#include "tcp_map.h"

bool l7_bl_keeps(const struct l7_bl *b)
{
	return b->keep && b->req_done && !b->rsp_fin && !b->srv_rst &&
	       b->acked == b->req_end && b->snd_nxt == b->req_end;
}

/*
 * A server with more than its last packet of the response unacknowledged
 * probes for a lost tail (Linux's TLP) two round trips on, well before a
 * delayed ACK, and takes the answer to its probe for a loss (it shrinks
 * its window).  With only its last packet out, its probe waits for a
 * delayed ACK too, so the director's may wait as well.
 */
static bool l7_bl_server_probes(const struct l7_bl *b)
{
	return l7_seq_before(b->passed, b->last_pkt);
}

/* Has the server not heard that the client has all of its response? */
static bool l7_bl_owes_server_ack(const struct l7_bl *b)
{
	return l7_seq_before(b->passed_c, b->rsp_end);
}

enum l7_bl_acked l7_bl_client_acked(const struct l7_bl *b, uint32_t ack,
				    bool dup)
{
	if (!b->rsp_done || !b->req_done || l7_seq_before(ack, b->rsp_end))
		return L7_BL_NOT_DONE;
	/* a report is worth waiting for only where both ends send one */
	if (b->rsp_resent && b->sack && l7_bl_keeps(b) && !dup)
		return L7_BL_HOLD_FOR_DUP;
	return L7_BL_FINISH;
}

struct l7_bl_end l7_bl_finish(const struct l7_bl *b, bool dup)
{
	struct l7_bl_end e = { .keep = l7_bl_keeps(b) };

	e.reset = !e.keep && !b->srv_rst;
	e.ack_now = e.keep && (dup || l7_bl_server_probes(b));
	e.ack_owed = !e.ack_now && l7_bl_owes_server_ack(b);
	return e;
}

struct l7_bl_end l7_bl_abort(const struct l7_bl *b, bool closed_tunnel)
{
	return (struct l7_bl_end){
		.reset = !b->srv_rst && !(b->rsp_fin && closed_tunnel),
		.error = !b->rsp_done,
	};
}

enum l7_bl_rst l7_bl_server_rst(const struct l7_bl *b, uint32_t snd_una)
{
	if (b->rsp_done && !l7_seq_before(snd_una, b->rsp_end))
		return L7_BL_RST_RETIRE;
	if (!b->rsp_seen && b->under_way && !b->tunnel)
		return L7_BL_RST_LOST;
	return L7_BL_RST_CLIENT;
}

bool l7_bl_refused_lost(const struct l7_bl *b, bool early)
{
	return early && !b->rsp_seen && b->under_way;
}

bool l7_bl_retry(const struct l7_bl *b)
{
	return b->tries < L7_BL_RETRIES && b->req_done && b->idempotent &&
	       b->req_end == b->copy_end;
}

bool l7_bl_body_acked(uint32_t body_end, uint32_t copy_end, uint32_t acked)
{
	return body_end == copy_end || !l7_seq_before(acked, body_end);
}
