/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: incremental HTTP/1.1 message body framer.
 *
 * A keep-alive connection carries messages back to back, so the director
 * must know exactly where a body ends to find the next head: after a
 * response head (http_resp.c uses it) and after a request head with
 * Content-Length or Transfer-Encoding: chunked.  The framer follows a
 * body fed in any segmentation.  It walks chunk-size lines and trailers
 * byte by byte, but takes Content-Length bodies and chunk data by count:
 * the caller may even skip them without reading (l7_http_body_skip()),
 * so bulk payload costs one step per segment, not per byte.
 *
 * It is strict (RFC 9112 7.1): a body the director frames differently
 * from the peer is a smuggling vector, so every ambiguity is an error.
 * Where Apache 2.4 refuses a chunk-size line (a size of 2^63 or more,
 * more than L7_BODY_MAX_CHUNK_BWS blanks after it) so does the framer,
 * so that a body in the head's segment is answered before it costs a
 * pooled connection.
 */
#ifndef _IP_VS_L7_CORE_HTTP_BODY_H
#define _IP_VS_L7_CORE_HTTP_BODY_H

#include "http_field.h"

#define L7_BODY_DEFAULT_MAX_TRAILER	4096
#define L7_BODY_DEFAULT_MAX_TRAILERS	100	/* trailer fields */
#define L7_BODY_DEFAULT_MAX_CHUNK_LINE	4096
/* blanks after a chunk size, at most: Apache's limit (http_filters.c) */
#define L7_BODY_MAX_CHUNK_BWS		10

struct l7_http_body_limits {
	uint32_t max_trailer;	/* bytes after last-chunk, final CRLF included */
	uint32_t max_trailers;	/* trailer fields */
	uint32_t max_chunk_line; /* chunk-size line with extensions and CRLF */
};

enum l7_body_status {
	L7_BODY_MORE = 0,	/* every byte consumed, body not complete */
	L7_BODY_DONE,		/* body complete; *used says where it ended */
	L7_BODY_ERROR,		/* see ->err; the framer stays in error */
};

enum l7_body_err {
	L7_BODY_E_NONE = 0,
	L7_BODY_E_CHUNK_SIZE,		/* bad or 2^63+, 11+ blanks after it */
	L7_BODY_E_CHUNK_EXT,		/* malformed chunk extension */
	L7_BODY_E_CHUNK_LINE_TOO_LARGE,	/* chunk-size line over max_chunk_line */
	L7_BODY_E_CHUNK_DATA_END,	/* chunk data not followed by CRLF */
	L7_BODY_E_LINE_END,		/* bare CR or bare LF */
	L7_BODY_E_TRAILER,		/* empty/non-token name, space before ':' */
	L7_BODY_E_TRAILER_VALUE,	/* control character in a trailer value */
	L7_BODY_E_OBS_FOLD,		/* folded or whitespace-led trailer line */
	L7_BODY_E_TRAILER_TOO_LARGE,	/* trailer section over max_trailer */
	L7_BODY_E_TOO_MANY_TRAILERS,	/* more than max_trailers fields */
	L7_BODY_E_COUNT
};

struct l7_http_body {
	enum l7_body_err err;
	/* bytes consumed; on ERROR, the offset of the offending byte */
	uint64_t pos;

	/* Framer state: private to http_body.c. */
	struct l7_http_body_limits lim;
	uint64_t remaining;	/* body or chunk bytes to take; chunk size */
	uint32_t budget;	/* bytes the current line or trailer may add */
	uint32_t trailer_count;
	struct l7_field_line fl;	/* the trailer field line being read */
	uint8_t state;
	uint8_t sub;		/* sub-state of a chunk-size line */
	uint8_t bws;		/* blanks after the chunk size */
};

/*
 * @lim may be NULL for the defaults.  @chunked false: the body is exactly
 * @length bytes (0: done at once); true: @length is ignored.
 */
void l7_http_body_init(struct l7_http_body *b,
		       const struct l7_http_body_limits *lim, bool chunked,
		       uint64_t length);

/*
 * Feed the next @len bytes (0 is allowed) of the stream.  *used is set to
 * the number of bytes that belong to the body: all of them on MORE; up to
 * and including its last byte on DONE; up to and including the offending
 * byte on ERROR, except for a limit (*_TOO_LARGE), where it stops before
 * the first byte over it, as the head framers do.  Feeding a body that is
 * done returns DONE with *used = 0.
 */
enum l7_body_status l7_http_body_feed(struct l7_http_body *b,
				      const uint8_t *buf, size_t len,
				      size_t *used);

/*
 * How many bytes the framer would take next without looking at them: the
 * rest of a Content-Length body or of the current chunk's data.  0 where
 * it has to read bytes (chunk-size line, CRLF, trailer), is done or failed.
 */
uint64_t l7_http_body_skippable(const struct l7_http_body *b);

/*
 * Take @n bytes, at most skippable(), without their contents: the caller
 * knows they are there.  If that ends the body, done() turns true.
 */
void l7_http_body_skip(struct l7_http_body *b, uint64_t n);

bool l7_http_body_done(const struct l7_http_body *b);

#endif /* _IP_VS_L7_CORE_HTTP_BODY_H */
