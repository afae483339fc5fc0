// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for core/head_copy.c.
 *
 * Control bytes: [0] the forwarding mode and keep-alive, [1] the client
 * address (one of a few, v4 and v6), [2] [3] unused.  The rest is fed to
 * the request framer with the module's limits for clients; a head it
 * frames to DONE is copied, and the copy must be a head the framer frames
 * to DONE with its default limits (the head's size raised by the copy's
 * growth: servers limit lines and fields, not the sum) over exactly its
 * length, with
 * the same method, target, version, Host and body framing; no shorter
 * than the head minus the fields it may leave out, no longer than
 * L7_COPY_GROWTH more; keep-alive where asked, with the client's other
 * Connection tokens in order, and no Expect field where Apache would be
 * left expecting to send a 100 (no body, or HTTP/1.0); and, replacing
 * X-Forwarded-For, exactly one such field carrying the client's address.
 */
#include "head_copy.h"
#include "fuzz_util.h"

static const struct { const char *s; bool v6; } addrs[] = {
	{ "192.0.2.7", false },
	{ "2001:db8::1", true },
	{ "::ffff:198.51.100.200", true },
	{ "2001:db8:aaaa:bbbb:cccc:dddd:eeee:ffff", true },
};

static bool same_span(const uint8_t *a, struct l7_http_span x,
		      const uint8_t *b, struct l7_http_span y)
{
	return x.len == y.len && !memcmp(a + x.off, b + y.off, x.len);
}

/* Field lines of @h named @name (case-insensitive), and the last value. */
static int count_fields(const uint8_t *h, uint32_t len, const char *name,
			const uint8_t **val, uint32_t *vlen)
{
	uint32_t nl = strlen(name), i = 0, n = 0;

	while (i < len && h[i] != '\n')
		i++;
	for (i++; i + nl < len; ) {
		uint32_t j = i, k;

		while (j < len && h[j] != '\n')
			j++;
		for (k = 0; k < nl && l7_to_lower(h[i + k]) == name[k]; k++)
			;
		if (k == nl && h[i + nl] == ':') {
			n++;
			*val = h + i + nl + 1;
			*vlen = j - 1 - (i + nl + 1);
		}
		i = j + 1;
	}
	return n;
}

/*
 * The tokens of @h's Connection fields other than "close" and
 * "keep-alive", each followed by a NUL, into @out: how many bytes.
 */
static uint32_t other_connection_tokens(const uint8_t *h, uint32_t len,
					uint8_t *out)
{
	uint32_t i = 0, n = 0;

	while (i < len && h[i] != '\n')
		i++;
	for (i++; i < len; i++) {
		uint32_t j = i, k;

		while (j < len && h[j] != '\n')
			j++;
		k = i;
		while (k < j && h[k] != ':')
			k++;
		if (k < j && l7_name_is(h + i, k - i, "connection")) {
			while (++k < j) {
				uint32_t t = k;

				while (k < j && l7_is_tchar(h[k]))
					k++;
				if (k == t || l7_name_is(h + t, k - t, "close") ||
				    l7_name_is(h + t, k - t, "keep-alive"))
					continue;
				memcpy(out + n, h + t, k - t);
				n += k - t;
				out[n++] = 0;
			}
		}
		i = j;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[L7_HTTP_DEFAULT_MAX_HEAD + L7_COPY_GROWTH];
	static uint8_t tok_head[2 * L7_HTTP_DEFAULT_MAX_HEAD];
	static uint8_t tok_copy[2 * L7_HTTP_DEFAULT_MAX_HEAD];
	bool bodiless;
	struct l7_http_req req, again;
	struct l7_copy_opts o;
	const uint8_t *h, *v;
	uint32_t n, vlen;
	size_t used;
	int k;

	if (size < FUZZ_CTL_BYTES)
		return 0;
	h = data + FUZZ_CTL_BYTES;
	/* as the module frames clients: room for the fields a copy adds */
	l7_http_req_init(&req, &(struct l7_http_limits){
		.max_head = L7_HTTP_DEFAULT_MAX_HEAD,
		.max_headers = L7_HTTP_DEFAULT_MAX_HEADERS - L7_COPY_FIELDS,
	});
	if (l7_http_req_feed(&req, h, size - FUZZ_CTL_BYTES, &used) !=
	    L7_HTTP_DONE)
		return 0;
	k = data[1] % 4;
	o = (struct l7_copy_opts){
		.fwd = (enum l7_fwd_mode)(data[0] % L7_FWD_COUNT),
		.client = addrs[k].s,
		.client_len = (uint8_t)strlen(addrs[k].s),
		.client_v6 = addrs[k].v6,
		.keep_alive = data[0] & 0x80,
	};
	n = l7_head_copy(out, h, &req, &o);
	FUZZ_ASSERT(n <= req.head_len + L7_COPY_GROWTH);

	/*
	 * The copy may be L7_COPY_GROWTH longer than the longest head the
	 * director takes (servers limit lines and fields, not the sum), but
	 * has no more fields than the default limit.
	 */
	l7_http_req_init(&again, &(struct l7_http_limits){
		.max_head = L7_HTTP_DEFAULT_MAX_HEAD + L7_COPY_GROWTH,
		.max_headers = L7_HTTP_DEFAULT_MAX_HEADERS,
	});
	FUZZ_ASSERT(l7_http_req_feed(&again, out, n, &used) == L7_HTTP_DONE);
	FUZZ_ASSERT(used == n && again.head_len == n);
	FUZZ_ASSERT(again.method == req.method && again.body == req.body &&
		    again.content_length == req.content_length &&
		    again.version_minor == req.version_minor &&
		    again.has_host == req.has_host &&
		    again.upgrade == req.upgrade);
	FUZZ_ASSERT(same_span(h, req.target, out, again.target));
	FUZZ_ASSERT(same_span(h, req.method_span, out, again.method_span));
	if (req.has_host)
		FUZZ_ASSERT(same_span(h, req.host, out, again.host));
	if (o.keep_alive || req.keep_alive)
		FUZZ_ASSERT(again.keep_alive);
	if (o.keep_alive) {
		FUZZ_ASSERT(other_connection_tokens(h, req.head_len, tok_head) ==
			    (vlen = other_connection_tokens(out, n, tok_copy)));
		FUZZ_ASSERT(!memcmp(tok_head, tok_copy, vlen));
		/* Apache closes on an expectation it never met */
		bodiless = req.body == L7_HTTP_BODY_NONE ||
			   (req.body == L7_HTTP_BODY_LENGTH &&
			    !req.content_length);
		if (bodiless || req.version_minor == 0)
			FUZZ_ASSERT(count_fields(out, n, "expect", &v,
						 &vlen) == 0 &&
				    !again.expect_continue);
		else
			FUZZ_ASSERT(again.expect_continue ==
				    req.expect_continue);
	}
	if (o.fwd == L7_FWD_XFF_REPLACE) {
		FUZZ_ASSERT(count_fields(out, n, "x-forwarded-for", &v,
					 &vlen) == 1);
		FUZZ_ASSERT(vlen == o.client_len + 1 &&
			    !memcmp(v + 1, o.client, o.client_len));
	}
	return 0;
}
