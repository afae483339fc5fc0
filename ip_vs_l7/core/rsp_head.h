/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: the director's copy of a response head, for an HTTP/1.0
 * client that asked for keep-alive, or an HTTP/1.1 client that asked to
 * close.
 *
 * The pooled connection is the server's business, the client's
 * connection the director's (head_copy.h).  An HTTP/1.1 client goes on
 * unless told to close, so hiding the server's Connection field in place
 * is enough (rsp_guard.h, L7_CLOAKED_NAME).  An HTTP/1.0 client closes
 * unless the response says "Connection: keep-alive": when a server's
 * response does not (it says close, as Apache's last response under
 * MaxKeepAliveRequests does, or nothing), the client would close and
 * reconnect although the director would go on.  So the director takes
 * such a response's head, as it takes a request head, and sends the
 * client a copy of its own, which says keep-alive.  The other way round,
 * an HTTP/1.1 client that asked to close is closed after the response,
 * but the server, which was not asked (the pooled connection goes on),
 * does not say close: a client that goes by the response alone, as wrk
 * does, would send its next request into the closing connection.  Its
 * copy says close.
 *
 * Why a copy of the director's (the head taken, acknowledged to the
 * server, the copy resent to the client until acknowledged, the rest of
 * the response mapped with the constant offset copy - head) rather than
 * a field inserted into the server's segments on the way: the head is
 * known whole before a byte of the copy is written, so what it says
 * decides the copy, whatever the segmentation; the mapping stays one
 * offset per binding (tcp_map.h, as for a request's copy), and no
 * resend of the server's has to be rebuilt with the same bytes.
 *
 * The copy: interim (1xx) heads before the final one as they came; the
 * status line; every field but Connection and Keep-Alive (about the
 * pooled connection: its close, its timeout and request count); then
 * "Connection: keep-alive" (or "close").  Nothing that frames the
 * response changes: the copy frames to the same body (same
 * Content-Length or chunking).
 */
#ifndef _IP_VS_L7_CORE_RSP_HEAD_H
#define _IP_VS_L7_CORE_RSP_HEAD_H

#include "http_resp.h"

/* The head bytes the director takes at most; a longer head passes. */
#define L7_RSP_HEAD_MAX		2048
/* "Connection: keep-alive\r\n" */
#define L7_RSP_HEAD_GROWTH	24

/*
 * Whether the final response head framed by @r tells the client what the
 * director does with its connection: for an HTTP/1.0 keep-alive client
 * (@close false) that it says keep-alive, for an HTTP/1.1 client that
 * asked to close (@close true) that it says close; or its body runs to
 * the close (the client's connection ends with it).  If not, the client
 * gets the director's copy.
 */
bool l7_rsp_head_keeps_client(const struct l7_http_resp *r, bool close);

/*
 * Write the copy of @head (@len bytes: every response head @r framed,
 * interim ones first, the final head last and complete) to @out, which
 * has room for @len + L7_RSP_HEAD_GROWTH bytes.  A head that keeps the
 * client as it is comes out unchanged.  Returns the copy's length, or 0
 * when there is no copy: the server's head has as many fields as @r's
 * limit (max_headers) and none to leave out, so the copy's field would
 * be one too many.  Such a head passes as it came, and the client's
 * connection closes after the response (as for a head too long to take).
 */
uint32_t l7_rsp_head_copy(uint8_t *out, const uint8_t *head, uint32_t len,
			  const struct l7_http_resp *r, bool close);

#endif /* _IP_VS_L7_CORE_RSP_HEAD_H */
