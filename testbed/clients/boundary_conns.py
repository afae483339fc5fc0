#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""boundary_conns.py HOST --conns K --stage READY GO [--stage READY GO ...]:
keep-alive connections idle at a request boundary while something
changes under them, from many client addresses.

Opens K connections to HOST:80, connection i from --src-base's address
plus i modulo --src-count (so that a router hashing on addresses and
ports spreads them), each with one GET of /static/1k.bin.  Then for each
--stage in turn: creates READY, waits (up to --timeout) for GO to exist,
and sends one more GET on every connection, all of them at once.  Every
answer must be 200 with the right body, on the same connection: none is
ever reopened.  Prints
    conns K requests R ok R errors E
then one line per failed connection, and exits 0 when E is 0.
"""

import argparse
import http.client
import ipaddress
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import l7http  # noqa: E402

PATH = "/static/1k.bin"


class Conn:
    def __init__(self, host, src, timeout):
        self.c = http.client.HTTPConnection(host, 80, timeout=timeout,
                                            source_address=(src, 0))
        self.src = src
        self.error = None
        self.c.connect()
        # http.client opens a new connection by itself when the old one
        # closed: every request must go on this one
        self.sock = self.c.sock

    def send(self):
        if self.c.sock is not self.sock:
            raise l7http.Mismatch("connection closed")
        self.c.request("GET", PATH)

    def read(self, checker):
        resp = self.c.getresponse()
        body = resp.read()
        if resp.status != 200:
            raise l7http.Mismatch("status %d" % resp.status)
        checker.check(PATH, resp.getheader("X-Backend"), body)

    def port(self):
        try:
            return self.sock.getsockname()[1]
        except OSError:
            return 0


def wait_file(path, timeout):
    end = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("--conns", type=int, default=24)
    ap.add_argument("--src-base", default="198.51.100.130")
    ap.add_argument("--src-count", type=int, default=30)
    ap.add_argument("--stage", nargs=2, action="append", default=[],
                    metavar=("READY", "GO"))
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args()
    base = ipaddress.ip_address(args.src_base)
    checker = l7http.Checker()
    conns = [Conn(args.host, str(base + i % args.src_count), args.timeout)
             for i in range(args.conns)]
    requests = ok = 0

    def round_trip(live):
        nonlocal requests, ok
        for c in live:
            try:
                c.send()
            except (OSError, http.client.HTTPException, l7http.Mismatch) as e:
                c.error = "%s:%d send: %s" % (c.src, c.port(), e)
        for c in live:
            if c.error:
                continue
            requests += 1
            try:
                c.read(checker)
                if c.c.sock is not c.sock:
                    raise l7http.Mismatch("closed after the answer")
                ok += 1
            except (OSError, ValueError, http.client.HTTPException,
                    l7http.Mismatch) as e:
                c.error = "%s:%d %s: %s" % (c.src, c.port(),
                                            type(e).__name__, e)

    round_trip(conns)
    for ready, go in args.stage:
        with open(ready, "w"):
            pass
        if not wait_file(go, args.timeout):
            print("no %s after %d s" % (go, args.timeout))
            return 1
        round_trip([c for c in conns if not c.error])
    errors = [c for c in conns if c.error]
    print("conns %d requests %d ok %d errors %d" % (len(conns), requests, ok,
                                                   len(errors)))
    for c in errors:
        print("  " + c.error)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
