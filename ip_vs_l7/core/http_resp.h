/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ip_vs_l7 core: incremental HTTP/1.1 response framer.
 *
 * To rebind a client at every request, the director must know exactly
 * where each response on a backend connection ends.  The framer follows a
 * response fed in any segmentation: it reads the head a line at a time
 * (byte by byte what a segment cuts, as the request framer does) and
 * hands the body to the body framer (http_body.h), which walks chunk-size
 * lines but skips Content-Length bodies and chunk data by count, so
 * large bodies cost one step per segment, not per byte.  Like
 * the request framer it keeps no copy of the bytes, and it is strict: a
 * response the director frames differently from the client is a response
 * splitting vector, so every ambiguity is an error.
 *
 * One framer follows one response.  A 1xx interim response is reported on
 * its own (L7_RESP_INTERIM) and the framer then follows the final response
 * that comes after it; 101 Switching Protocols ends HTTP on the connection
 * (L7_RESP_UPGRADE).
 */
#ifndef _IP_VS_L7_CORE_HTTP_RESP_H
#define _IP_VS_L7_CORE_HTTP_RESP_H

#include "l7_types.h"
#include "http_body.h"
#include "http_field.h"
#include "http_req.h"

#define L7_RESP_DEFAULT_MAX_HEAD	16384
#define L7_RESP_DEFAULT_MAX_HEADERS	100
#define L7_RESP_DEFAULT_MAX_TRAILER	L7_BODY_DEFAULT_MAX_TRAILER
#define L7_RESP_DEFAULT_MAX_CHUNK_LINE	L7_BODY_DEFAULT_MAX_CHUNK_LINE

/* Connection field names of a final head whose place is kept */
#define L7_RESP_CONN_NAMES		4

/* How the body after a final response head is delimited (RFC 9112 6.3). */
enum l7_resp_body {
	L7_RESP_BODY_NONE = 0,	/* HEAD request, 204, 304 (and 1xx) */
	L7_RESP_BODY_LENGTH,	/* content_length bytes follow the head */
	L7_RESP_BODY_CHUNKED,
	L7_RESP_BODY_CLOSE,	/* runs to connection close: retire it */
};

enum l7_resp_status {
	L7_RESP_MORE = 0,	/* every byte consumed, response not complete */
	L7_RESP_HEAD,		/* final head complete, a body follows */
	L7_RESP_INTERIM,	/* a 1xx other than 101 complete */
	L7_RESP_UPGRADE,	/* 101 head complete: no more HTTP here */
	L7_RESP_DONE,		/* response complete; *used says where it ended */
	L7_RESP_ERROR,		/* see ->err; the framer stays in error */
};

enum l7_resp_err {
	L7_RESP_E_NONE = 0,
	L7_RESP_E_VERSION,		/* not "HTTP/" DIGIT "." DIGIT SP */
	L7_RESP_E_VERSION_UNSUPPORTED,	/* major version other than 1 */
	L7_RESP_E_STATUS,		/* not three digits from 100 to 599 */
	L7_RESP_E_REASON,		/* control character in reason phrase */
	L7_RESP_E_LINE_END,		/* bare CR or bare LF */
	L7_RESP_E_HEADER_NAME,		/* empty/non-token name, space before ':' */
	L7_RESP_E_OBS_FOLD,		/* line folding or whitespace-led line */
	L7_RESP_E_HEADER_VALUE,		/* control character in a field value */
	L7_RESP_E_CONTENT_LENGTH,	/* not digits, overflow, or conflicting */
	L7_RESP_E_TE_AND_CL,		/* both framings: splitting risk */
	L7_RESP_E_TRANSFER_ENCODING,	/* empty, chunked twice, quoted, in 1.0 */
	L7_RESP_E_HEAD_TOO_LARGE,	/* head longer than max_head */
	L7_RESP_E_TOO_MANY_HEADERS,	/* more header or trailer fields than allowed */
	L7_RESP_E_CHUNK_SIZE,		/* no hex digit, bad byte, or overflow */
	L7_RESP_E_CHUNK_EXT,		/* malformed chunk extension */
	L7_RESP_E_CHUNK_LINE_TOO_LARGE,	/* chunk-size line over max_chunk_line */
	L7_RESP_E_CHUNK_DATA_END,	/* chunk data not followed by CRLF */
	L7_RESP_E_TRAILER_TOO_LARGE,	/* trailer section over max_trailer */
	L7_RESP_E_TRUNCATED,		/* connection closed inside a response */
	L7_RESP_E_CLOSED,		/* connection closed before any byte */
	L7_RESP_E_COUNT
};

struct l7_http_resp_limits {
	uint32_t max_head;	/* bytes, including the final CRLF CRLF */
	uint32_t max_headers;	/* header fields; trailer fields likewise */
	uint32_t max_trailer;	/* bytes from last-chunk to the final CRLF */
	uint32_t max_chunk_line; /* chunk-size line with its extensions */
};

struct l7_http_resp {
	/*
	 * Results, valid once feed() returned HEAD, INTERIM, UPGRADE or
	 * DONE (for INTERIM, until the next feed()).
	 */
	enum l7_resp_body body;
	enum l7_resp_err err;
	struct l7_http_span reason;	/* reason phrase, may be empty */
	uint64_t content_length;	/* as sent, even when body is NONE */
	uint64_t err_off;		/* offset of the offending byte */
	uint32_t head_len;		/* bytes of the head */
	uint16_t status_code;
	uint32_t header_count;
	uint8_t version_major;
	uint8_t version_minor;
	bool has_body;			/* at least one byte follows the head */
	bool keep_alive;		/* the connection may carry another */
	/*
	 * A Connection field said keep-alive and none said close: what an
	 * HTTP/1.0 client needs to hear to go on (rsp_head.h).
	 */
	bool conn_keep_alive;
	/*
	 * Where the "Connection" field names of a final (2xx-5xx) head
	 * begin, counted from the first byte fed to the framer (interim
	 * responses included), as soon as each name is complete: the
	 * director hides them from a client whose connection goes on.
	 */
	uint64_t conn_name_at[L7_RESP_CONN_NAMES];
	uint8_t conn_names;
	bool conn_names_over;		/* more than L7_RESP_CONN_NAMES */

	/* Framer state: private to http_resp.c. */
	struct l7_http_resp_limits lim;
	enum l7_http_method req_method;
	uint64_t pos;		/* bytes of this response consumed so far */
	struct l7_http_body framer;	/* a Content-Length or chunked body */
	uint32_t budget;	/* bytes the rest of the head may add */
	uint8_t state;
	uint8_t sub;		/* position inside a literal */
	struct l7_fields f;	/* header fields that decide framing */
	bool after_interim;	/* a 1xx came first: a close truncates */
	uint64_t start;		/* bytes fed before this response (1xx) */
};

/*
 * @lim may be NULL for the defaults.  @req_method is the method of the
 * request this response answers: a response to HEAD has no body, whatever
 * its head says.
 */
void l7_http_resp_init(struct l7_http_resp *r,
		       const struct l7_http_resp_limits *lim,
		       enum l7_http_method req_method);

/*
 * Feed the next @len bytes of the backend stream.  *used is set to the
 * number of bytes that belong to the response: all of them on MORE; up to
 * the end of the head on HEAD, INTERIM and UPGRADE; up to the last byte of
 * the response on DONE; up to and including the offending byte on ERROR.
 * After HEAD or INTERIM, feed the bytes after *used to go on.  A response
 * without a body (HEAD, 204, 304, Content-Length: 0) goes straight from
 * MORE to DONE.  UPGRADE does not check that the request asked for one:
 * that is the caller's to do.
 */
enum l7_resp_status l7_http_resp_feed(struct l7_http_resp *r,
				      const uint8_t *buf, size_t len,
				      size_t *used);

/*
 * The backend closed the connection (FIN).  DONE if that ends a
 * close-delimited body (or a response already done); otherwise ERROR
 * with L7_RESP_E_TRUNCATED, or L7_RESP_E_CLOSED if no byte of the
 * response had arrived.
 */
enum l7_resp_status l7_http_resp_eof(struct l7_http_resp *r);

/*
 * How many bytes the framer would take next without looking at them: the
 * rest of a Content-Length body or of the current chunk's data, ~0 (all
 * there will be) in a close-delimited body, else 0.
 */
uint64_t l7_http_resp_skippable(const struct l7_http_resp *r);

/*
 * Take @n bytes, at most skippable(), without their contents: the caller
 * knows they are there.  If that ends the response, the next feed()
 * returns DONE with *used = 0.
 */
void l7_http_resp_skip(struct l7_http_resp *r, uint64_t n);

#endif /* _IP_VS_L7_CORE_HTTP_RESP_H */
