// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the character classes and runs the head framers share
 * (core/http_chars.h, core/http_field.h): each fast form against the
 * byte-at-a-time definition it stands for.  The framers' own tests feed
 * heads at every segmentation, but a run and the steps it replaces give
 * the same result there whatever the split, so only a side-by-side
 * comparison shows a run taking a byte its step would refuse.
 */
#include <string.h>

#include "http_field.h"
#include "l7_test.h"

/* Mostly bytes on either side of each class's edges, some of any value. */
static uint8_t edge_byte(void)
{
	static const uint8_t edges[] = {
		0x00, 0x01, 0x08, '\t', '\n', '\r', 0x1f, ' ', '!', '"',
		'#', ',', ':', ';', 'A', 'Z', 'a', 'z', '~', 0x7e, 0x7f,
		0x80, 0x81, 0xfe, 0xff,
	};
	uint64_t r = l7_rand();

	if (r % 4 == 0)
		return (uint8_t)(r >> 8);
	if (r % 4 == 1)
		return edges[(r >> 8) % L7_ARRAY_SIZE(edges)];
	return 'a' + (r >> 8) % 26;	/* long plain runs */
}

static void fill(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = edge_byte();
}

/* RFC 9110 5.6.2, as written there. */
static bool rfc_tchar(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') ||
	       (c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static void test_tchar_table(void)
{
	int c;

	for (c = 0; c < 256; c++)
		CHECK(l7_is_tchar((uint8_t)c) == rfc_tchar(c),
		      "byte 0x%02x", c);
}

static bool word_byte_below(uint64_t w, uint8_t n)
{
	int i;

	for (i = 0; i < 8; i++)
		if ((uint8_t)(w >> (8 * i)) < n)
			return true;
	return false;
}

static bool word_byte_is(uint64_t w, uint8_t c)
{
	int i;

	for (i = 0; i < 8; i++)
		if ((uint8_t)(w >> (8 * i)) == c)
			return true;
	return false;
}

static bool word_byte_del_or_high(uint64_t w)
{
	int i;

	for (i = 0; i < 8; i++)
		if ((uint8_t)(w >> (8 * i)) >= 0x7f)
			return true;
	return false;
}

static void check_word(uint64_t w)
{
	static const uint8_t below[] = { 1, 0x20, 0x21, 0x80 };
	size_t k;

	for (k = 0; k < L7_ARRAY_SIZE(below); k++)
		CHECK(l7_word_has_below(w, below[k]) ==
		      word_byte_below(w, below[k]),
		      "%016llx below 0x%02x", (unsigned long long)w, below[k]);
	CHECK(l7_word_has(w, 0x7f) == word_byte_is(w, 0x7f), "%016llx DEL",
	      (unsigned long long)w);
	CHECK(l7_word_has(w, '#') == word_byte_is(w, '#'), "%016llx #",
	      (unsigned long long)w);
	CHECK(l7_word_has_del_or_high(w) == word_byte_del_or_high(w),
	      "%016llx high", (unsigned long long)w);
}

/* Every byte value at every place in a plain word, then random words. */
static void test_word_tests(void)
{
	uint8_t b[8];
	uint64_t w;
	int pos, c, i;

	for (pos = 0; pos < 8; pos++) {
		for (c = 0; c < 256; c++) {
			memset(b, 'a', sizeof(b));
			b[pos] = (uint8_t)c;
			check_word(l7_load_word(b));
			/* and with a borrow or carry from the byte below */
			memset(b, pos ? 0x00 : 0xff, sizeof(b));
			b[pos] = (uint8_t)c;
			check_word(l7_load_word(b));
		}
	}
	for (i = 0; i < 200000; i++) {
		fill(b, sizeof(b));
		memcpy(&w, b, sizeof(w));
		check_word(w);
	}
}

/* l7_word_first_ctl(): every byte value at every place, after others */
static void test_word_first_ctl(void)
{
	uint8_t b[8];
	unsigned int want, pos;
	int c, i;

	for (i = 0; i < 300000; i++) {
		fill(b, sizeof(b));
		if (i < 8 * 256) {
			pos = (unsigned int)i / 256;
			c = i % 256;
			memset(b, 'a', sizeof(b));
			b[pos] = (uint8_t)c;
		}
		for (want = 0; want < 8; want++)
			if (b[want] < 0x20 || b[want] == 0x7f)
				break;
		CHECK(l7_word_first_ctl(b) == want, "%02x%02x%02x%02x%02x%02x%02x%02x: %u, want %u",
		      b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
		      l7_word_first_ctl(b), want);
	}
}

static size_t value_run_bytes(const uint8_t *p, size_t n)
{
	size_t i = 0;

	while (i < n && !l7_is_value_ctl(p[i]))
		i++;
	return i;
}

/* At every alignment and length, as far as the byte loop goes. */
static void test_value_run(void)
{
	uint8_t buf[64 + 8];
	size_t off, n;
	int i;

	for (i = 0; i < 20000; i++) {
		fill(buf, sizeof(buf));
		for (off = 0; off < 8; off++)
			for (n = 0; n <= 64; n += 1 + (i & 3))
				CHECK(l7_value_run(buf + off, n) ==
				      value_run_bytes(buf + off, n),
				      "off %zu n %zu", off, n);
	}
}

/*
 * l7_fields_quiet_run() from @h over @p: the bytes it takes must be the
 * ones the lexer takes one by one with no event a framer acts on, every
 * one of them, leaving the same state.  Quiet, as both framers handle
 * the events: a name's bytes after the first, the ':' of a name that is
 * none of ours, and an unread (L7_F_OTHER) value's bytes, CR and LF.
 */
static void check_fields_run(const struct l7_fields *h, size_t nnames,
			     const uint8_t *p, size_t n)
{
	struct l7_fields run = *h, step = *h;
	size_t k = l7_fields_quiet_run(&run, p, n);
	size_t i;

	CHECK(k <= n, "run %zu of %zu", k, n);
	for (i = 0; i < n; i++) {
		struct l7_fields before = step;
		uint8_t state = step.fl.state;
		enum l7_fl_ev ev = l7_fl_byte(&step.fl, l7_field_names, nnames,
					      p[i]);
		bool quiet;

		switch (ev) {
		case L7_FL_MORE:
			quiet = state == L7_FL_NAME || state == L7_FL_LF;
			break;
		case L7_FL_NAME_END:
			quiet = l7_tok_match(&step.fl.tok, l7_field_names) < 0;
			if (quiet)
				l7_fields_name_end(&step);
			break;
		case L7_FL_VALUE_BYTE:
		case L7_FL_VALUE_END:
			quiet = step.field == L7_F_OTHER;
			break;
		default:
			quiet = false;
		}
		if (!quiet) {
			step = before;
			break;
		}
	}
	CHECK(k == i, "run %zu, steps %zu (state %u)", k, i, h->fl.state);
	CHECK(run.fl.state == step.fl.state && run.field == step.field,
	      "state %u field %u, steps %u %u", run.fl.state, run.field,
	      step.fl.state, step.field);
	CHECK(run.fl.tok.mask == step.fl.tok.mask, "mask %x, steps %x",
	      run.fl.tok.mask, step.fl.tok.mask);
	if (step.fl.tok.mask)
		CHECK(run.fl.tok.len == step.fl.tok.len, "len %u, steps %u",
		      run.fl.tok.len, step.fl.tok.len);
	CHECK(memcmp(&run.list, &step.list, sizeof(run.list)) == 0 &&
	      run.cl_cur == step.cl_cur && run.cl_digits == step.cl_digits &&
	      run.cl_gap == step.cl_gap && run.te_seen == step.te_seen,
	      "the fields' value state differs");
}

/* Names near ours, in any case, cut anywhere. */
static size_t name_like(uint8_t *p, size_t room)
{
	static const char *const near[] = {
		"content-length", "Content-Type", "CONNECTION", "Connectio",
		"host", "Hostname", "expect", "Transfer-Encoding", "x",
		"transfer-encodings", "conTENT-length",
	};
	const char *s = near[l7_rand() % L7_ARRAY_SIZE(near)];
	size_t n = strlen(s), i;

	n = n < room ? n : room;
	for (i = 0; i < n; i++)
		p[i] = l7_rand() % 8 ? (uint8_t)s[i] : edge_byte();
	return n;
}

/* A field line or a few: a name like ours, ':', a value, CRLF, another. */
static void line_like(uint8_t *p, size_t room)
{
	size_t i = 0;

	while (i < room) {
		size_t v;

		i += name_like(p + i, room - i);
		if (i < room)
			p[i++] = l7_rand() % 16 ? ':' : edge_byte();
		for (v = l7_rand() % 24; v && i < room; v--)
			p[i++] = l7_rand() % 4 ? ' ' + (uint8_t)(l7_rand() % 95) :
					     edge_byte();
		if (i < room)
			p[i++] = l7_rand() % 16 ? '\r' : edge_byte();
		if (i < room)
			p[i++] = l7_rand() % 16 ? '\n' : edge_byte();
	}
}

static void test_fields_quiet_run(void)
{
	static const size_t counts[] = { 0, L7_F_RESP_COUNT, L7_F_REQ_COUNT };
	uint8_t buf[96];
	int i;

	for (i = 0; i < 200000; i++) {
		size_t nnames = counts[i % 3], first;
		struct l7_fields h = { .fl.state = L7_FL_LINE };

		line_like(buf, sizeof(buf));
		/* a line's first byte is an event (a field begins): a step's */
		if (l7_fl_byte(&h.fl, l7_field_names, nnames, buf[0]) !=
		    L7_FL_NAME_BEGIN)
			continue;
		/* from inside the name, a few bytes more in at times */
		first = 1;
		while (first < sizeof(buf) && l7_rand() % 3 == 0 &&
		       l7_fl_byte(&h.fl, l7_field_names, nnames,
				  buf[first]) == L7_FL_MORE &&
		       h.fl.state == L7_FL_NAME)
			first++;
		if (h.fl.state != L7_FL_NAME)
			continue;
		check_fields_run(&h, nnames, buf + first, sizeof(buf) - first);
		/* and from inside a value, unread or not, and at its CR */
		h.fl.state = L7_FL_VALUE;
		h.field = (uint8_t)(l7_rand() % (L7_F_EXPECT + 1));
		check_fields_run(&h, nnames, buf + first, sizeof(buf) - first);
		h.fl.state = L7_FL_LF;
		check_fields_run(&h, nnames, buf + first, sizeof(buf) - first);
	}
}

/*
 * What the lexer makes of the field line at @p, one byte at a time from
 * a line's start: the length of the line if it ends (its LF) within @n
 * bytes with no error, the name's length in *name; 0 if it fails, is the
 * empty line, or runs past @n.
 */
static size_t field_line_bytes(const uint8_t *p, size_t n, size_t *name)
{
	struct l7_field_line f = { .state = L7_FL_LINE };
	size_t i;

	for (i = 0; i < n; i++) {
		enum l7_fl_ev ev = l7_fl_byte(&f, l7_field_names,
					      L7_F_REQ_COUNT, p[i]);

		if (ev == L7_FL_NAME_END)
			*name = i;
		if (ev >= L7_FL_END)
			return 0;
		if (f.state == L7_FL_LINE)
			return i + 1;
	}
	return 0;
}

/*
 * l7_field_line() takes a whole line exactly when the lexer takes each
 * of its bytes without an error: every byte value in every place of a
 * few lines, every length they are cut to, and random lines.
 */
static void check_field_line(const uint8_t *p, size_t n)
{
	size_t name = 0, want_name = 0;
	size_t got = l7_field_line(p, n, &name);
	size_t want = field_line_bytes(p, n, &want_name);

	CHECK(got == want, "line of %zu bytes: %zu, lexer %zu", n, got, want);
	if (got && want)
		CHECK(name == want_name, "name %zu, lexer %zu", name, want_name);
}

static void test_field_line(void)
{
	static const char *const lines[] = {
		"Host: a.example\r\n", "X:\r\n", "Content-Length:\t 12 \r\n",
		"a-b_c: x\ty, z\r\n",
	};
	uint8_t buf[64];
	size_t i, k, n;
	int c;

	for (i = 0; i < L7_ARRAY_SIZE(lines); i++) {
		size_t len = strlen(lines[i]);

		for (k = 0; k < len; k++)
			for (c = 0; c < 256; c++) {
				memcpy(buf, lines[i], len);
				buf[k] = (uint8_t)c;
				for (n = 0; n <= len; n++)
					check_field_line(buf, n);
			}
	}
	for (i = 0; i < 20000; i++) {
		n = 1 + l7_rand() % sizeof(buf);
		fill(buf, n);
		if (n > 2) {
			buf[n - 2] = '\r';
			buf[n - 1] = '\n';
		}
		check_field_line(buf, n);
	}
}

/* l7_version_byte() itself: every byte in every place, against RFC 9112 2.3. */
static void test_version_grammar(void)
{
	static const char good[] = "HTTP/1.1 ";
	size_t pos, i;
	int c;

	for (pos = 0; pos < sizeof(good) - 1; pos++) {
		for (c = 0; c < 256; c++) {
			uint8_t sub = 0, major = 0, minor = 0;
			enum l7_ver_ev ev = L7_VER_MORE, want;
			bool ok;

			for (i = 0; i <= pos && ev == L7_VER_MORE; i++)
				ev = l7_version_byte(&sub, &major, &minor, ' ',
						     i == pos ? (uint8_t)c :
						     (uint8_t)good[i]);
			if (pos < 5)
				ok = c == good[pos];
			else if (pos == 6)
				ok = c == '.';
			else if (pos == 8)
				ok = c == ' ';
			else
				ok = c >= '0' && c <= '9';
			want = !ok ? L7_VER_BAD : pos < 8 ? L7_VER_MORE :
			       L7_VER_DONE;
			if (ok && pos == 5 && c != '1') {
				/* well-formed, another major version */
				CHECK(ev == L7_VER_MORE && major == c - '0',
				      "major 0x%02x", c);
				continue;
			}
			CHECK(ev == want, "byte %zu = 0x%02x: %d, want %d", pos,
			      c, ev, want);
			if (ok && pos == 7)
				CHECK(minor == c - '0', "minor 0x%02x", c);
		}
	}
}

/*
 * How many bytes of @p l7_version_byte() takes one by one with no event,
 * from the state given, and the state it leaves.
 */
static size_t version_steps(uint8_t *sub, uint8_t *major, uint8_t *minor,
			    const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && *sub < 8; i++) {
		uint8_t s = *sub, a = *major, b = *minor;

		if (l7_version_byte(&s, &a, &b, ' ', p[i]) != L7_VER_MORE)
			break;
		*sub = s;
		*major = a;
		*minor = b;
	}
	return i;
}

/* l7_version_run() from every byte of @p on, against the steps. */
static void check_version(const uint8_t *p, size_t n)
{
	size_t from;

	for (from = 0; from <= n; from++) {
		uint8_t sub = 0, major = 9, minor = 9, s2, ma2, mi2;
		size_t k, i;

		if (version_steps(&sub, &major, &minor, p, from) < from)
			return;
		s2 = sub;
		ma2 = major;
		mi2 = minor;
		k = l7_version_run(&sub, &major, &minor, p + from, n - from);
		i = version_steps(&s2, &ma2, &mi2, p + from, n - from);
		CHECK(k == i && sub == s2 && major == ma2 && minor == mi2,
		      "\"%.*s\" from %zu: run %zu steps %zu", (int)n,
		      (const char *)p, from, k, i);
	}
}

/* Every byte value in every place of a version, and cut short. */
static void test_version_run(void)
{
	uint8_t v[] = "HTTP/1.1 ";
	size_t n = sizeof(v) - 1, pos;
	int c;

	for (pos = 0; pos < n; pos++) {
		for (c = 0; c < 256; c++) {
			v[pos] = (uint8_t)c;
			check_version(v, n);
			check_version(v, pos + 1);
		}
		v[pos] = (uint8_t)"HTTP/1.1 "[pos];
	}
}

int main(void)
{
	RUN(test_tchar_table);
	RUN(test_word_tests);
	RUN(test_word_first_ctl);
	RUN(test_value_run);
	RUN(test_fields_quiet_run);
	RUN(test_field_line);
	RUN(test_version_grammar);
	RUN(test_version_run);
	return l7_test_summary("http_chars");
}
