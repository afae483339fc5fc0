// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for core/conn_clock.c: any sequence of what a client
 * connection does - time passing, progress, its waits beginning and
 * ending, deadlines set and stopped by events, its timer firing - and
 * after each step the clock's promises hold:
 *   - IDLE is always armed, progress + the idle span of the moment
 *     (tunnel_timeout in a tunnel, else idle_timeout);
 *   - every wait has its bound, no further than its span from when it
 *     began, and a bound without its wait is stopped: HEAD while
 *     awaiting a head, QUEUE while queued, FLOOR while bound, CLOSE
 *     while closing with nothing bound;
 *   - SYNC is armed exactly sync_idle after a boundary began, until it
 *     fires or the boundary ends, and never twice in one boundary;
 *   - BUSY is armed while a request of an unrecorded connection is
 *     under way, sync_idle after it began (or after it last fired);
 *   - the timer, kept here as the glue keeps it (moved as
 *     l7_clock_rearm() says when ->moved says so, set again after each
 *     tick), is never later than the earliest armed deadline: no
 *     deadline is missed; when it is set, it is set to that deadline.
 *
 * Input: records of 4 bytes: op, then three bytes of arguments.
 */
#include "conn_clock.h"
#include "fuzz_util.h"

#define REC_LEN		4
#define SLACK		10

static const struct l7_clock_rule rule = {
	.head = 3000, .queue = 500, .idle = 90000, .tunnel = 360000,
	.close = 3000, .floor_look = 1000, .sync = 200,
};

struct model {
	struct l7_clock k;
	struct l7_clock_facts f;
	uint32_t now;
	uint32_t begun[L7_CLK_NR];	/* when each bound's wait began */
	bool synced;			/* SYNC fired in this boundary */
	uint32_t timer;			/* the glue's timer */
	bool timer_on;
};

static bool m_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/* l7_conn_timer_arm(): where l7_clock_rearm() says, if moved. */
static void m_arm(struct model *m)
{
	uint32_t at;

	if (!m->k.moved)
		return;
	m->k.moved = false;
	if (!l7_clock_rearm(&m->k, m->timer_on, m->timer, SLACK, &at))
		return;
	m->timer = at;
	m->timer_on = true;
	FUZZ_ASSERT(l7_clock_next(&m->k, &at) && m->timer == at);
}

static bool awaiting(const struct l7_clock_facts *f)
{
	return !f->bound && !f->queued && !f->tunnel && !f->closing;
}

/* The facts change: a wait that begins now begins at m->now. */
static void m_settle(struct model *m, struct l7_clock_facts f)
{
	const struct l7_clock_facts was = m->f;

	if (awaiting(&f) && !awaiting(&was))
		m->begun[L7_CLK_HEAD] = m->now;
	if (f.queued && !was.queued)
		m->begun[L7_CLK_QUEUE] = m->now;
	if (f.bound && !was.bound)
		m->begun[L7_CLK_FLOOR] = m->now;
	if (f.closing && !f.bound && !(was.closing && !was.bound))
		m->begun[L7_CLK_CLOSE] = m->now;
	if (f.unrecorded && !was.unrecorded)
		m->begun[L7_CLK_BUSY] = m->now;
	if (f.boundary && !was.boundary) {
		m->begun[L7_CLK_SYNC] = m->now;
		m->synced = false;
	}
	m->f = f;
	l7_clock_settle(&m->k, &f, &rule, m->now);
	m_arm(m);
}

/* A bound's deadline: armed iff its wait holds, within its span. */
static void check_bound(const struct model *m, enum l7_clock_slot s,
			bool wait, uint32_t span)
{
	FUZZ_ASSERT(l7_clock_armed(&m->k, s) == wait);
	if (wait)
		FUZZ_ASSERT(!m_before(m->begun[s] + span, m->k.at[s]));
}

static void check(const struct model *m)
{
	uint32_t span = m->f.tunnel ? rule.tunnel : rule.idle, next;

	FUZZ_ASSERT(l7_clock_armed(&m->k, L7_CLK_IDLE));
	FUZZ_ASSERT(m->k.at[L7_CLK_IDLE] == m->k.progress + span);
	check_bound(m, L7_CLK_HEAD, awaiting(&m->f), rule.head);
	check_bound(m, L7_CLK_QUEUE, m->f.queued, rule.queue);
	check_bound(m, L7_CLK_FLOOR, m->f.bound, rule.floor_look);
	check_bound(m, L7_CLK_CLOSE, m->f.closing && !m->f.bound, rule.close);
	check_bound(m, L7_CLK_BUSY, m->f.unrecorded, rule.sync);
	FUZZ_ASSERT(l7_clock_armed(&m->k, L7_CLK_SYNC) ==
		    (m->f.boundary && !m->synced));
	if (l7_clock_armed(&m->k, L7_CLK_SYNC))
		FUZZ_ASSERT(m->k.at[L7_CLK_SYNC] ==
			    m->begun[L7_CLK_SYNC] + rule.sync);
	FUZZ_ASSERT(l7_clock_next(&m->k, &next));
	FUZZ_ASSERT(m->timer_on && !m_before(next, m->timer));
}

/* The timer fires: each due deadline is stopped, then acted on. */
static void m_tick(struct model *m, uint8_t act)
{
	int s;

	if (!m->timer_on || m_before(m->now, m->timer))
		return;
	m->timer_on = false;
	for (s = 0; s < L7_CLK_NR; s++) {
		if (!l7_clock_due(&m->k, s, m->now))
			continue;
		l7_clock_stop(&m->k, s);
		/* SYNC's handler sends a checkpoint and sets nothing */
		if (s == L7_CLK_SYNC) {
			m->synced = true;
			continue;
		}
		/* BUSY's sends a busy record; unsent, settle arms it again */
		if (s == L7_CLK_BUSY) {
			m->begun[s] = m->now;
			continue;
		}
		/* a handler may set its own deadline again, later */
		if (act & 1u << (s % 8))
			l7_clock_set(&m->k, s, m->now + 1 + act);
		/* in the module the IDLE handler ends the connection */
		if (s == L7_CLK_IDLE)
			l7_clock_set(&m->k, s, m->k.progress +
				     (m->f.tunnel ? rule.tunnel : rule.idle));
		if (s != L7_CLK_IDLE && (s == L7_CLK_HEAD || s == L7_CLK_FLOOR ||
					 s == L7_CLK_QUEUE ||
					 s == L7_CLK_CLOSE))
			m->begun[s] = m->now;	/* settle sets it again */
	}
	m->k.moved = true;
	m_settle(m, m->f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model m = { .now = 0xfff00000u };
	size_t i;

	l7_clock_init(&m.k, &rule, m.now);
	m.k.moved = true;
	m_settle(&m, m.f);
	check(&m);
	for (i = 0; i + REC_LEN <= size; i += REC_LEN) {
		const uint8_t *r = data + i;
		enum l7_clock_slot ev = r[1] % (L7_CLK_REPLY + 1);

		switch (r[0] % 6) {
		case 0:	/* time passes */
			m.now += (uint32_t)r[1] << 8 | r[2];
			break;
		case 1:	/* progress */
			l7_clock_progress(&m.k, m.now);
			break;
		case 2:	/* the connection's waits change */
			m_settle(&m, (struct l7_clock_facts){
				.bound = r[1] & 1, .queued = r[1] & 2,
				.tunnel = r[1] & 4, .closing = r[1] & 8,
				.boundary = r[1] & 16, .unrecorded = r[1] & 32,
			});
			break;
		case 3:	/* an event arms its deadline */
			l7_clock_set(&m.k, ev, m.now + ((uint32_t)r[2] << 4));
			m_arm(&m);
			break;
		case 4:	/* an event stops its deadline */
			l7_clock_stop(&m.k, ev);
			break;
		case 5:
			m_tick(&m, r[2]);
			break;
		}
		check(&m);
	}
	return 0;
}
