/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: incremental HTTP/1.1 request-head framer.
 *
 * The director sees a request head as a sequence of TCP segments that may
 * split it anywhere.  The framer reads a line at a time where a segment
 * holds the whole line, and byte by byte (a state machine) what is left
 * of a line a segment cuts; either way it keeps no copy of the bytes,
 * only spans (offsets from the first byte fed) and the few values that
 * decide framing and dispatch.  The caller keeps the head bytes (it has
 * to forward them anyway) and resolves spans in them.
 *
 * The framer is deliberately strict (RFC 9112): a content switch that
 * reads a head differently from the backend that will act on it is a
 * request-smuggling vector, so every ambiguity is an error.  Nor does it
 * take a head that Apache 2.4 answers with an error and a close: sent on,
 * such a head would cost a pooled connection.  So a Content-Length field
 * comes once and holds one length below 2^63, no more than
 * L7_HTTP_MAX_BLANK_LINES empty lines come first, and nothing, not even
 * an empty list element, follows the final "chunked".
 */
#ifndef _IP_VS_L7_CORE_HTTP_REQ_H
#define _IP_VS_L7_CORE_HTTP_REQ_H

#include "http_field.h"

#define L7_HTTP_DEFAULT_MAX_HEAD	8192
#define L7_HTTP_DEFAULT_MAX_HEADERS	100
/* empty lines taken before a request line: Apache's DEFAULT_LIMIT_BLANK_LINES */
#define L7_HTTP_MAX_BLANK_LINES		10

enum l7_http_method {
	L7_HTTP_M_OTHER = 0,	/* a valid token we do not know */
	L7_HTTP_M_GET,
	L7_HTTP_M_HEAD,
	L7_HTTP_M_POST,
	L7_HTTP_M_PUT,
	L7_HTTP_M_DELETE,
	L7_HTTP_M_OPTIONS,
	L7_HTTP_M_TRACE,
	L7_HTTP_M_PATCH,
	L7_HTTP_M_CONNECT,
};

enum l7_http_target_form {
	L7_HTTP_T_ORIGIN = 0,	/* "/path?query" */
	L7_HTTP_T_ABSOLUTE,	/* "http://host/path" */
	L7_HTTP_T_ASTERISK,	/* "*", OPTIONS only */
};

/* enum, not struct, l7_http_body: that is the body framer (http_body.h) */
enum l7_http_req_body {
	L7_HTTP_BODY_NONE = 0,
	L7_HTTP_BODY_LENGTH,	/* content_length bytes follow the head */
	L7_HTTP_BODY_CHUNKED,
};

enum l7_http_status {
	L7_HTTP_MORE = 0,	/* every byte consumed, head not complete */
	L7_HTTP_DONE,		/* head complete; *used says where it ended */
	L7_HTTP_ERROR,		/* see ->err; the framer stays in error */
};

enum l7_http_err {
	L7_HTTP_E_NONE = 0,
	L7_HTTP_E_METHOD,		/* empty or non-token method */
	L7_HTTP_E_METHOD_UNSUPPORTED,	/* CONNECT: not for a content switch */
	L7_HTTP_E_TARGET,		/* bad byte or form in request-target */
	L7_HTTP_E_VERSION,		/* not "HTTP/" DIGIT "." DIGIT */
	L7_HTTP_E_VERSION_UNSUPPORTED,	/* major version other than 1 */
	L7_HTTP_E_LINE_END,		/* bare CR or bare LF */
	L7_HTTP_E_HEADER_NAME,		/* empty/non-token name, space before ':' */
	L7_HTTP_E_OBS_FOLD,		/* line folding or whitespace-led line */
	L7_HTTP_E_HEADER_VALUE,		/* control character in a field value */
	L7_HTTP_E_HOST,			/* Host missing (1.1), repeated or invalid */
	L7_HTTP_E_CONTENT_LENGTH,	/* not digits, 2^63 or more, repeated or a list */
	L7_HTTP_E_TE_AND_CL,		/* both framings: smuggling risk */
	L7_HTTP_E_TRANSFER_ENCODING,	/* chunked not last/once, or in 1.0 */
	L7_HTTP_E_BLANK_LINES,		/* more than 10 empty lines first */
	L7_HTTP_E_EXPECT,		/* an expectation other than 100-continue */
	L7_HTTP_E_HEAD_TOO_LARGE,	/* head longer than max_head */
	L7_HTTP_E_TOO_MANY_HEADERS,	/* more than max_headers fields */
	L7_HTTP_E_COUNT
};

/* A byte range of the head, relative to the first byte fed. */
struct l7_http_span {
	uint32_t off;
	uint32_t len;
};

struct l7_http_limits {
	uint32_t max_head;	/* bytes, including the final CRLF CRLF */
	uint32_t max_headers;	/* header fields */
};

struct l7_http_req {
	/* Results, valid once feed() returned L7_HTTP_DONE. */
	enum l7_http_method method;
	enum l7_http_target_form target_form;
	enum l7_http_req_body body;
	enum l7_http_err err;
	struct l7_http_span method_span;
	struct l7_http_span target;
	struct l7_http_span host;	/* value without surrounding OWS */
	uint64_t content_length;	/* with L7_HTTP_BODY_LENGTH */
	uint32_t head_len;		/* bytes of the head, on DONE */
	uint32_t err_off;		/* offset of the offending byte */
	uint16_t header_count;
	uint8_t version_major;
	uint8_t version_minor;
	bool has_host;
	bool keep_alive;		/* after this exchange, per version+Connection */
	bool expect_continue;		/* "Expect: 100-continue" on HTTP/1.1 */
	bool upgrade;			/* "Connection: upgrade" was sent */

	/* Parser state: private to http_req.c. */
	struct l7_http_limits lim;
	uint32_t pos;		/* bytes consumed so far */
	uint8_t state;
	uint8_t sub;		/* position inside a literal or sub-state */
	struct l7_tok tok;	/* known method being matched */
	struct l7_fields f;	/* header fields that decide framing */
	uint32_t val_end;	/* offset just past the last non-OWS Host byte */
	bool val_gap;		/* OWS seen after Host bytes */
	bool expect_seen;
};

void l7_http_req_init(struct l7_http_req *r, const struct l7_http_limits *lim);

/*
 * Feed the next @len bytes of the stream.  *used is set to the number of
 * bytes that belong to the head (all of them on MORE; up to the final LF
 * on DONE; up to and including the offending byte on ERROR).
 */
enum l7_http_status l7_http_req_feed(struct l7_http_req *r,
				     const uint8_t *buf, size_t len,
				     size_t *used);

/* The status line the director answers a failed head with: 400, 431... */
int l7_http_err_status(enum l7_http_err err);

/* Whether a retry on another connection cannot change server state. */
bool l7_http_method_idempotent(enum l7_http_method m);

#endif /* _IP_VS_L7_CORE_HTTP_REQ_H */
