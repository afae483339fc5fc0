/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: the director's copy of a request head.
 *
 * A request head is the director's: it took the client's bytes, framed
 * them, and sends the server a copy of its own (FPS step 4).  The copy
 * may differ from the client's bytes where the two connections differ:
 *
 *  - the server sees the director's address, not the client's: the copy
 *    can carry the client's in X-Forwarded-For (after any the client
 *    sent, or instead of them) or in RFC 7239 Forwarded;
 *  - the pooled connection outlives the client's: the copy never asks the
 *    server to close.  "close" and "keep-alive" tokens are left out of a
 *    Connection field (the whole field if nothing else is left), and an
 *    HTTP/1.0 request asks for keep-alive; the director closes the
 *    client's side itself after the response when the client asked for
 *    that.  Nor does it leave the server expecting to send a 100 it never
 *    sends, on which Apache closes: Expect fields are left out of a
 *    request without a body and of an HTTP/1.0 one.
 *
 * Nothing that frames the request changes: request line, Host,
 * Content-Length, Transfer-Encoding and every other field are copied
 * byte for byte, in order.  The copy is a head the request framer
 * accepts with the same method, target and body framing.  Its length
 * differs from the client's by at most L7_COPY_GROWTH more bytes (or
 * fewer, for fields left out); the binding's sequence mapping carries the
 * difference (tcp_map.h: anchored at the end of the copy).
 */
#ifndef _IP_VS_L7_CORE_HEAD_COPY_H
#define _IP_VS_L7_CORE_HEAD_COPY_H

#include "http_req.h"

enum l7_fwd_mode {
	L7_FWD_OFF = 0,
	L7_FWD_XFF,		/* X-Forwarded-For: after any the client sent */
	L7_FWD_XFF_REPLACE,	/* X-Forwarded-For: instead of the client's */
	L7_FWD_FORWARDED,	/* Forwarded: for=... (RFC 7239), after any */
	L7_FWD_COUNT
};

/* the longest client address text: an IPv6 address with an IPv4 tail */
#define L7_ADDR_TEXT_MAX	46
/* "Connection: keep-alive" + "Forwarded: for=\"[...]\"", CRLFs included */
#define L7_COPY_GROWTH		(24 + 22 + L7_ADDR_TEXT_MAX)

/*
 * Fields a copy may add.  The director frames clients' heads with this
 * many fewer than the limit it (and a server such as Apache, whose
 * LimitRequestFields is 100 too) allows, so that a copy never exceeds it.
 */
#define L7_COPY_FIELDS		2

struct l7_copy_opts {
	enum l7_fwd_mode fwd;
	const char *client;	/* the client's address as text */
	uint8_t client_len;	/* at most L7_ADDR_TEXT_MAX */
	bool client_v6;		/* Forwarded quotes and brackets it */
	bool keep_alive;	/* never ask or lead the server to close */
};

/*
 * Write the copy of the complete head @head (req->head_len bytes, which
 * @req framed to L7_HTTP_DONE) to @out, which has room for
 * req->head_len + L7_COPY_GROWTH bytes.  Returns the copy's length.
 */
uint32_t l7_head_copy(uint8_t *out, const uint8_t *head,
		      const struct l7_http_req *req,
		      const struct l7_copy_opts *o);

const char *l7_fwd_mode_name(enum l7_fwd_mode m);

#endif /* _IP_VS_L7_CORE_HEAD_COPY_H */
