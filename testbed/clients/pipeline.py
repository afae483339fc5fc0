#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""pipeline.py HOST [--rounds R]: ten GET requests written in a single
send() on a raw socket, then the ten answers read back and checked in
order: each request asks for something distinct (static files of different
sizes, /cgi-bin/chunked with a distinct line count, /cgi-bin/burn with a
distinct iteration count), so an answer out of order or to the wrong
request does not match.  With --rounds R the same is done R times on the
same connection.  Prints the backends that answered, in order; exits 1 on
any mismatch or when --min-backends (default 2) backends did not all take
part.
"""

import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import l7http  # noqa: E402
from l7http import Mismatch  # noqa: E402


def requests(host, r):
    paths = []
    for i in range(10):
        k = r * 10 + i
        if i % 3 == 0:
            paths.append("/cgi-bin/burn?iters=%d" % (20 + k))
        elif i % 3 == 1:
            paths.append("/static/%s.bin?i=%d" % (["1k", "10k", "100k"][k % 3], k))
        else:
            paths.append("/cgi-bin/chunked?n=%d" % (3 + k))
    wire = b"".join(("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (p, host)).encode()
                    for p in paths)
    return paths, wire


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--min-backends", type=int, default=2)
    args = ap.parse_args()
    checker = l7http.Checker()
    served = collections.Counter()
    sock = l7http.connect(args.host)
    f = sock.makefile("rb")
    rc = 0
    try:
        for r in range(args.rounds):
            paths, wire = requests(args.host, r)
            if sock.send(wire) != len(wire):
                raise Mismatch("the ten requests did not go in one send()")
            order = []
            for i, path in enumerate(paths):
                status, headers, body = l7http.read_response(f)
                backend = headers.get("x-backend")
                if status != 200:
                    raise Mismatch("answer %d (%s): status %d" % (i, path, status))
                if headers.get("connection", "").lower() == "close":
                    raise Mismatch("answer %d (%s): Connection: close" % (i, path))
                try:
                    checker.check(path, backend, body)
                except Mismatch as e:
                    raise Mismatch("answer %d: %s" % (i, e)) from e
                order.append(backend)
                served[backend] += 1
            print("round %d: %s" % (r, " ".join(order)))
    except (OSError, ValueError, Mismatch) as e:
        print("FAILED: %s: %s" % (type(e).__name__, e))
        rc = 1
    sock.close()
    for b in sorted(served):
        print("backend %s %d" % (b, served[b]))
    if rc == 0 and len(served) < args.min_backends:
        print("served by %d backend(s), expected at least %d"
              % (len(served), args.min_backends))
        rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
