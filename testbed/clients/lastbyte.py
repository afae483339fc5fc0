#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""lastbyte.py HOST GO: clients answered just before the director dies,
which send their next request afterwards.

--pairs pairs of connections, each connection in a process of its own
(threads would share one interpreter lock, and a thread that waits for
it reads its answer late):
in each pair one pipelines (ten GETs of distinct static files in one
send()), one sends a single keep-alive GET at a time.  Each does one
round, then idles 1 s at the request boundary (an old record of it
reaches the other director whatever the channel's timing).  Then, once
the file GO exists, it holds the time of the director's death (s since
the epoch; testbed/tests/ha.sh's kill_arm has the director drop
everything from then on).  Each connection rehearses its last round
in whole 200 ms periods ahead of it (so that all connections' rehearsals
crowd the guest as their last rounds will) until that one can start so
as to end its own gap ahead of the death, given the longest of its last
two rounds (at once, should a slow round leave less time than that and
a round still end before the death).  A last round that ended further ahead of the death than
--window ms (or its own aim, if that is further) is followed by another
while one 1.5 times as long still ends before it: the longest of two
rounds is an estimate that lands early more often than late.
Pair i's keep-alive connection aims at --before + i * --step ms, its
pipelining one at --pipe-before + i * --pipe-step: under a loaded guest
ten answers land tens of ms either side of their estimate (straddling
the death, or 70-100 ms ahead of it, in one run and another), and the
wider spread with the second chance keeps some of each kind inside the
window the test asks for.
--after S past the
death all send their next round, on the same connection, and read it
back within --timeout.  Prints one line per connection:
    NAME ANSWERED ok|error ELAPSED [REASON]
NAME: pipelineI or keepaliveI; ANSWERED: when it had its last round
before the death whole (s since the epoch; when this process read it,
which is at or after when its last byte came); ELAPSED: from the round's
sending after the death to its last answer; "straddled" instead of
ok|error: the last round before the death did not end before it (that
connection then tests nothing).  Gives up when GO has not come after 4
times --timeout.  Exits 0 in every case: the test decides.
"""

import argparse
import os
import sys
import multiprocessing
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import l7http  # noqa: E402

# s between a connection's rehearsals of its last round: longer than any
# round, so that each ends before the next
REHEARSAL_PERIOD = 0.2


class Conn:
    def __init__(self, name, host, pipelined, gap, timeout):
        self.name = name
        self.gap = gap / 1000
        self.host = host
        self.pipelined = pipelined
        self.sock = l7http.connect(host)
        self.sock.settimeout(timeout)
        self.f = self.sock.makefile("rb")
        self.checker = l7http.Checker()

    def send(self, r):
        n = 10 if self.pipelined else 1
        self.paths = ["/static/%s.bin?r=%d&i=%d" % (["1k", "10k"][i % 2], r, i)
                      for i in range(n)]
        wire = b"".join(("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n"
                         % (p, self.host)).encode() for p in self.paths)
        if self.sock.send(wire) != len(wire):
            raise l7http.Mismatch("the round did not go in one send()")

    def read(self):
        for i, path in enumerate(self.paths):
            status, headers, body = l7http.read_response(self.f)
            if status != 200:
                raise l7http.Mismatch("answer %d (%s): status %d"
                                      % (i, path, status))
            self.checker.check(path, headers.get("x-backend"), body)
        return l7http.now()


def run(c, args, results):
    """One connection's rounds (see the module's docstring), its line
    put on @results."""
    out = {}
    try:
        rounds(c, args, out)
    finally:
        results.put((c.name, out.get(c.name)))


def rounds(c, args, out):
    r = 0

    def round_trip():
        nonlocal r
        t0 = l7http.now()
        c.send(r)
        c.answered = c.read()
        r += 1
        return c.answered - t0

    took = [round_trip()]
    time.sleep(1)
    give_up = l7http.now() + args.timeout * 4
    while not os.path.exists(args.go):
        if l7http.now() > give_up:
            out[c.name] = "%s - error 0 no death after %d s" % (
                c.name, args.timeout * 4)
            return
        time.sleep(0.01)
    with open(args.go) as f:
        death = float(f.read())
    before = c.gap
    # a last round ending further ahead than this is followed by another
    again = max(before, args.window / 1000)
    while True:
        d = max(took[-2:])
        start = death - before - d
        # Rehearse the last round whole periods ahead of it: every
        # connection's rehearsals then overlap as their last rounds will,
        # and time the same crowding (rounds timed at random moments ran
        # 40-80 ms faster than the last ones, when all twelve go at once).
        ahead = int((start - l7http.now() - d) / REHEARSAL_PERIOD)
        if ahead >= 1:
            time.sleep(max(0, start - ahead * REHEARSAL_PERIOD -
                           l7http.now()))
            took.append(round_trip())
            continue
        # A timing round slower than the two before it can leave less
        # time than that: the last round goes at once if it still ends
        # before the death, else the one before is the last (and the
        # test reports it too early).
        if start > l7http.now() or l7http.now() + d < death - 0.002:
            time.sleep(max(0, start - l7http.now()))
            try:
                took.append(round_trip())
                # a round faster than the estimate ended too early:
                # another, while one as long as it still ends in time
                while (death - c.answered > again and
                       l7http.now() + 1.5 * took[-1] < death - 0.003):
                    took.append(round_trip())
            except (OSError, ValueError, l7http.Mismatch) as e:
                out[c.name] = "%s %.3f straddled 0 %s: %s" % (
                    c.name, death, type(e).__name__, e)
                return
        break
    time.sleep(max(0, death + args.after - l7http.now()))
    t0 = l7http.now()
    try:
        c.send(r)
        c.read()
        out[c.name] = "%s %.3f ok %.2f" % (c.name, c.answered,
                                           l7http.now() - t0)
    except (OSError, ValueError, l7http.Mismatch) as e:
        out[c.name] = "%s %.3f error %.2f %s: %s" % (
            c.name, c.answered, l7http.now() - t0, type(e).__name__, e)
    c.sock.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("go")
    ap.add_argument("--before", type=float, default=25,
                    help="ms between the first pair's last answer and "
                    "the death")
    ap.add_argument("--step", type=float, default=15,
                    help="ms more for each next pair")
    ap.add_argument("--pipe-before", type=float, default=30,
                    help="ms between the first pair's pipelining "
                    "connection's last answers and the death")
    ap.add_argument("--pipe-step", type=float, default=10,
                    help="ms more for each next pair's pipelining one")
    ap.add_argument("--window", type=float, default=60,
                    help="ms: a last round that ended further ahead of "
                    "the death (and of its own aim) is followed by another")
    ap.add_argument("--pairs", type=int, default=4)
    ap.add_argument("--after", type=float, default=0.3)
    ap.add_argument("--timeout", type=float, default=25)
    args = ap.parse_args()
    conns = []
    for i in range(args.pairs):
        conns += [Conn("pipeline%d" % (i + 1), args.host, True,
                       args.pipe_before + i * args.pipe_step, args.timeout),
                  Conn("keepalive%d" % (i + 1), args.host, False,
                       args.before + i * args.step, args.timeout)]
    results = multiprocessing.get_context("fork").Queue()
    procs = [multiprocessing.get_context("fork").Process(
        target=run, args=(c, args, results)) for c in conns]
    for p in procs:
        p.start()
    out = dict(results.get() for _ in procs)
    for p in procs:
        p.join()
    for c in conns:
        print(out.get(c.name) or "%s - error 0 no result" % c.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
