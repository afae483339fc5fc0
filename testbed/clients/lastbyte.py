#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""lastbyte.py HOST KILL-FIFO: clients answered just before the director
dies, which send their next request afterwards.

Two connections: one pipelines (ten requests in one send(), as
pipeline.py writes them), one sends a single keep-alive GET at a time.
Each does one round, then idles 1 s at the request boundary (an old
record of it reaches the other director whatever the channel's timing),
then, once the file --go names exists, a second round.  Right after the
second round's last answer the director is killed: --delay-ms after the
later of the two answers (the keep-alive one; the pipelined round is
read first), by writing --kill-text into KILL-FIFO (testbed/tests/ha.sh:
an nft waiting on it in the director's namespace cuts all its links at
once).  --after S later both connections send their third round, on the
same connection, and read it back within --timeout.  Prints one line per
connection:
    NAME ANSWERED ok|error ELAPSED [REASON]
ANSWERED: when it had the second round's last byte (s since the epoch);
ELAPSED: from the third rounds' sending to this one's last answer.  Then
"kill T": when the kill was written.  Exits 0 in every case: the test
decides.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import l7http  # noqa: E402
from pipeline import requests  # noqa: E402


class Conn:
    def __init__(self, name, host, pipelined, timeout):
        self.name = name
        self.host = host
        self.pipelined = pipelined
        self.sock = l7http.connect(host)
        self.sock.settimeout(timeout)
        self.f = self.sock.makefile("rb")
        self.checker = l7http.Checker()

    def send(self, r):
        if self.pipelined:
            self.paths, wire = requests(self.host, r)
        else:
            self.paths = ["/static/1k.bin?r=%d" % r]
            wire = ("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n"
                    % (self.paths[0], self.host)).encode()
        self.sock.sendall(wire)

    def read(self):
        for i, path in enumerate(self.paths):
            status, headers, body = l7http.read_response(self.f)
            if status != 200:
                raise l7http.Mismatch("answer %d (%s): status %d"
                                      % (i, path, status))
            self.checker.check(path, headers.get("x-backend"), body)
        return l7http.now()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("fifo")
    ap.add_argument("--kill-text", required=True)
    ap.add_argument("--delay-ms", type=float, default=20)
    ap.add_argument("--after", type=float, default=0.3)
    ap.add_argument("--timeout", type=float, default=25)
    ap.add_argument("--go", help="second round once this file exists")
    args = ap.parse_args()
    pipe = Conn("pipeline", args.host, True, args.timeout)
    ka = Conn("keepalive", args.host, False, args.timeout)
    conns = (pipe, ka)
    for c in conns:
        c.send(0)
        c.read()
    time.sleep(1)
    while args.go and not os.path.exists(args.go):
        time.sleep(0.01)
    answered = {}
    for c in conns:
        c.send(1)
        answered[c.name] = c.read()
    wait = answered["keepalive"] + args.delay_ms / 1000 - l7http.now()
    if wait > 0:
        time.sleep(wait)
    t_kill = l7http.now()
    with open(args.fifo, "w") as f:
        f.write(args.kill_text.replace("\\n", "\n"))
    time.sleep(args.after)
    t0 = l7http.now()
    failed = {}
    for c in conns:
        try:
            c.send(2)
        except OSError as e:
            failed[c.name] = e
    for c in conns:
        try:
            if c.name in failed:
                raise failed[c.name]
            c.read()
            print("%s %.3f ok %.2f" % (c.name, answered[c.name],
                                       l7http.now() - t0))
        except (OSError, ValueError, l7http.Mismatch) as e:
            print("%s %.3f error %.2f %s: %s" % (
                c.name, answered[c.name], l7http.now() - t0,
                type(e).__name__, e))
        c.sock.close()
    print("kill %.3f" % t_kill)
    return 0


if __name__ == "__main__":
    sys.exit(main())
