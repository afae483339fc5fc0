// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for core/binding_life.c: any sequence of what happens
 * to a binding - body bytes sent to its server, the request's end, the
 * server's ACKs, response bytes to the client, the response's end (kept
 * or closing), server resends, RSTs and refusals, client ACKs, an abort,
 * even bytes sent past the request's end - with its numbers anywhere in
 * the sequence space.  A model keeps what really happened (how many
 * bytes went each way, what each side acknowledged), reads the binding
 * into struct l7_bl as the glue does, and after each decision checks it
 * against that truth:
 *   - a binding is finished (or held for a duplicate's report) only when
 *     both its request and response were framed to their end and the
 *     client acknowledged every response byte;
 *   - a pooled connection goes back only when its server acknowledged
 *     exactly the request, nothing was sent past it, and the server
 *     neither closed nor reset; any other is reset unless its server
 *     reset first; an ACK is sent now only on a kept connection;
 *   - a held binding keeps its connection;
 *   - a server's RST retires a binding only when the client has all of
 *     its response, and loses one only when the client saw none of it;
 *   - a lost request goes again at most L7_BL_RETRIES times, only for an
 *     idempotent method and only when no byte of a body went to the
 *     server;
 *   - an abort is an error exactly when the response was not whole;
 *   - the body counts as acknowledged exactly when its server has every
 *     byte of it.
 * Each binding ends once; the next record starts another life.
 *
 * Input: 4 bytes of initial numbers, then records of 4 bytes: op and
 * three bytes of arguments.
 */
#include "binding_life.h"
#include "tcp_map.h"
#include "fuzz_util.h"

#define REC_LEN		4

struct model {
	uint32_t copy_end;	/* server seq after the director's copy */
	uint32_t sent;		/* highest server seq sent */
	uint32_t body;		/* body bytes sent after the copy */
	uint32_t srv_acked;	/* the server's ACK */
	uint32_t req_end;
	uint32_t rsp_start;	/* client seq of the response's first byte */
	uint32_t rsp_out;	/* response bytes sent to the client */
	uint32_t rsp_len;	/* its length, once framed to its end */
	uint32_t cl_acked;	/* client seq the client acknowledged */
	uint32_t passed_c;	/* the newest of its ACKs passed on */
	uint32_t srv_rsp0;	/* server seq of the response's first byte */
	uint32_t last_pkt;	/* offset of its newest packet */
	bool req_done, rsp_done, keep, fin, rst, resent, sack;
	uint8_t tries;
	bool idempotent, under_way, tunnel;
};

static void m_start(struct model *m, uint32_t seed)
{
	memset(m, 0, sizeof(*m));
	m->copy_end = seed * 2654435761u;
	m->sent = m->copy_end;
	m->srv_acked = m->copy_end - (seed & 0xff);
	m->rsp_start = seed * 40503u + 0x80000000u;
	m->cl_acked = m->rsp_start;
	m->passed_c = m->rsp_start;
	m->srv_rsp0 = ~seed;
	m->idempotent = seed & 1;
	m->under_way = true;
	m->sack = seed & 2;
}

/* The binding as the glue reads it (l7_bl_of()). */
static struct l7_bl m_view(const struct model *m)
{
	return (struct l7_bl){
		.req_end = m->req_done ? m->req_end : 0,
		.acked = m->srv_acked,
		.snd_nxt = m->sent,
		.copy_end = m->copy_end,
		.passed = m->srv_rsp0 + (m->passed_c - m->rsp_start),
		.last_pkt = m->srv_rsp0 + m->last_pkt,
		.rsp_end = m->rsp_start + (m->rsp_done ? m->rsp_len : 0),
		.passed_c = m->passed_c,
		.req_done = m->req_done,
		.rsp_done = m->rsp_done,
		.keep = m->keep,
		.rsp_fin = m->fin,
		.srv_rst = m->rst,
		.rsp_seen = m->rsp_out > 0,
		.rsp_resent = m->resent,
		.sack = m->sack,
		.tries = m->tries,
		.idempotent = m->idempotent,
		.under_way = m->under_way,
		.tunnel = m->tunnel,
	};
}

/* Does the client have every byte of a response framed to its end? */
static bool m_client_has_all(const struct model *m)
{
	return m->rsp_done && m->rsp_out == m->rsp_len &&
	       m->cl_acked - m->rsp_start == m->rsp_len;
}

static void check_end(const struct model *m, const struct l7_bl_end *e)
{
	FUZZ_ASSERT(!e->keep || (m->req_done && m->keep && !m->fin &&
				 !m->rst && m->srv_acked == m->req_end &&
				 m->sent == m->req_end));
	FUZZ_ASSERT(e->keep || e->reset == !m->rst || (m->fin && !e->reset));
	FUZZ_ASSERT(!e->reset || !m->rst);
	FUZZ_ASSERT(!e->ack_now || e->keep);
	FUZZ_ASSERT(!(e->ack_now && e->ack_owed));
}

static void m_finish(const struct model *m, bool dup)
{
	struct l7_bl v = m_view(m);
	struct l7_bl_end e = l7_bl_finish(&v, dup);

	check_end(m, &e);
	FUZZ_ASSERT(e.keep || e.reset || m->rst);
	FUZZ_ASSERT(!e.error);
}

/* One event; true when the binding's life ended. */
static bool m_step(struct model *m, const uint8_t *r)
{
	uint32_t n = r[1] | (uint32_t)r[2] << 8;
	struct l7_bl v = m_view(m);
	struct l7_bl_end e;

	switch (r[0] % 12) {
	case 0:		/* body bytes to the server */
		if (m->req_done)
			break;
		m->sent += n;
		m->body += n;
		break;
	case 1:		/* the request's end */
		if (!m->req_done) {
			m->req_done = true;
			m->req_end = m->sent;
		}
		break;
	case 2:		/* the server's ACK, of bytes it was sent */
		if (l7_seq_before(m->srv_acked, m->copy_end + 0) ||
		    (uint32_t)(m->sent - m->srv_acked) >= n)
			m->srv_acked = m->srv_acked + n;
		if (l7_seq_after(m->srv_acked, m->sent))
			m->srv_acked = m->sent;
		/* the client may hear its body went only once it did */
		FUZZ_ASSERT(l7_bl_body_acked(m->copy_end + m->body, m->copy_end,
					     m->srv_acked) ==
			    (!m->body || (l7_seq_after(m->srv_acked,
						       m->copy_end) &&
					  m->srv_acked - m->copy_end >=
					  m->body)));
		break;
	case 3:		/* response bytes to the client */
		if (m->rsp_done && m->rsp_out + n > m->rsp_len)
			n = m->rsp_len - m->rsp_out;
		if (n)
			m->last_pkt = m->rsp_out + n - (r[3] % n) - 1;
		m->rsp_out += n;
		break;
	case 4:		/* the response framed to its end */
		if (m->rsp_done)
			break;
		m->rsp_done = true;
		m->rsp_len = m->rsp_out + (r[3] & 0x10 ? n : 0);
		m->keep = r[3] & 1;
		m->fin = r[3] & 2;
		break;
	case 5:		/* the server resent response bytes */
		m->resent = true;
		break;
	case 6: {	/* a client ACK, of bytes it was sent */
		uint32_t ack = m->rsp_start + (n > m->rsp_out ? m->rsp_out : n);
		bool dup = r[3] & 1;
		enum l7_bl_acked a;

		if (l7_seq_after(ack, m->cl_acked))
			m->cl_acked = ack;
		if (r[3] & 2)
			m->passed_c = m->cl_acked;
		v = m_view(m);
		a = l7_bl_client_acked(&v, m->cl_acked, dup);
		if (a == L7_BL_NOT_DONE) {
			FUZZ_ASSERT(!m_client_has_all(m) || !m->req_done);
			break;
		}
		FUZZ_ASSERT(m->req_done && m_client_has_all(m));
		if (a == L7_BL_HOLD_FOR_DUP) {
			FUZZ_ASSERT(l7_bl_keeps(&v) && m->resent && m->sack &&
				    !dup);
			m->passed_c = m->cl_acked;	/* ACK sent on hold */
			dup = r[3] & 4;			/* came, or timed out */
		}
		m_finish(m, dup);
		return true;
	}
	case 7:		/* a RST from the server */
		m->rst = true;
		v = m_view(m);
		switch (l7_bl_server_rst(&v, m->cl_acked)) {
		case L7_BL_RST_RETIRE:
			FUZZ_ASSERT(m->rsp_done && m_client_has_all(m));
			if (m->req_done) {
				m_finish(m, false);
				return true;
			}
			break;	/* the request's end, then it is done */
		case L7_BL_RST_LOST:
			FUZZ_ASSERT(!m->rsp_out && m->under_way && !m->tunnel);
			goto lost;
		case L7_BL_RST_CLIENT:
			FUZZ_ASSERT(!(m->rsp_done && m_client_has_all(m)));
			e = l7_bl_abort(&v, false);
			check_end(m, &e);
			return true;
		}
		break;
	case 8:		/* the framer refused the server's bytes */
		if (!l7_bl_refused_lost(&v, r[3] & 1))
			return true;	/* the client's connection ends */
		FUZZ_ASSERT(!m->rsp_out && m->under_way && (r[3] & 1));
		goto lost;
	case 9:		/* aborted */
		e = l7_bl_abort(&v, r[3] & 1);
		check_end(m, &e);
		FUZZ_ASSERT(e.error == !m->rsp_done);
		FUZZ_ASSERT(!e.keep);
		return true;
	case 10:	/* what the request and connection are */
		m->tries = (r[3] >> 5) % (L7_BL_RETRIES + 2);
		m->under_way = !(r[3] & 2);
		m->tunnel = r[3] & 4;
		m->idempotent = r[3] & 8;
		m->sack = r[3] & 16;
		break;
	case 11:	/* bytes past the request's end (a fault) */
		if (m->req_done)
			m->sent += n | 1;
		break;
	}
	return false;

lost:
	v = m_view(m);
	e = l7_bl_abort(&v, false);
	check_end(m, &e);
	if (l7_bl_retry(&v))
		FUZZ_ASSERT(m->tries < L7_BL_RETRIES && m->idempotent && m->req_done &&
			    m->body == 0 && m->req_end == m->copy_end);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model m;
	size_t off;

	if (size < 4)
		return 0;
	m_start(&m, data[0] | data[1] << 8 | data[2] << 16 |
		    (uint32_t)data[3] << 24);
	for (off = 4; off + REC_LEN <= size; off += REC_LEN)
		if (m_step(&m, data + off))
			m_start(&m, (uint32_t)off * 7919u ^ m.sent);
	return 0;
}
