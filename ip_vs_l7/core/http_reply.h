/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: the few complete HTTP responses the director writes
 * itself, when a request never reaches a backend (malformed head, no
 * server available, client too slow).  Each closes the connection.
 */
#ifndef _IP_VS_L7_CORE_HTTP_REPLY_H
#define _IP_VS_L7_CORE_HTTP_REPLY_H

#include "l7_types.h"

/* The whole response for @status, or the 400 one for a status we lack. */
const char *l7_http_reply(int status, uint32_t *len);

#endif /* _IP_VS_L7_CORE_HTTP_REPLY_H */
