#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fwd_cost.py HOST PATH --sport N --route CMD --to A B --requests K
[--moves]: K requests of PATH on one keep-alive connection, each
followed, once sent, by the shell command CMD with {} replaced by a
director's front address - the client's flow routed there.

Without --moves it is always A: the connection stays where it is.  With
--moves the flow goes to the other director after every request: the
rest of that request's segments (the ACKs of its response) reach a
director that does not hold the connection, which forwards them to the
one that does; the next request, at the boundary, is taken over where
it arrives.  Both run the same command once per request, so the
difference between the two is the forwarding and the takeovers.

--pace S: the body read 8 KB at a time, S seconds apart, through a
receive buffer of 32 KB, so that a response lasts long enough for the
route to move under most of it (the command takes a while to run):
the idle time is the same in both arms.

Every answer byte-exact; prints "requests K wall S"; exits 1 on any
error.
"""

import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import l7http  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("path")
    ap.add_argument("--sport", type=int, required=True)
    ap.add_argument("--route", required=True)
    ap.add_argument("--to", nargs=2, required=True, metavar=("A", "B"))
    ap.add_argument("--requests", type=int, default=20)
    ap.add_argument("--moves", action="store_true")
    ap.add_argument("--pace", type=float, default=0.0)
    ap.add_argument("--timeout", type=float, default=60.0)
    args = ap.parse_args()
    checker = l7http.Checker()

    subprocess.run(args.route.format(args.to[0]), shell=True, check=True)
    sock = l7http.connect_from(args.host, args.sport, args.timeout,
                               rcvbuf=32768 if args.pace else 0)
    f = sock.makefile("rb")
    t0 = time.monotonic()
    for i in range(args.requests):
        sock.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n"
                      % (args.path, args.host)).encode())
        to = args.to[(i + 1) % 2] if args.moves else args.to[0]
        subprocess.run(args.route.format(to), shell=True, check=True)
        status, headers = l7http.read_head(f)
        if status != 200:
            print("FAIL request %d: status %d" % (i + 1, status))
            return 1
        left, body = int(headers["content-length"]), []
        while left:
            body.append(l7http.read_exact(f, min(left, 8192)))
            left -= len(body[-1])
            time.sleep(args.pace)
        checker.check(args.path, headers.get("x-backend"), b"".join(body))
    wall = time.monotonic() - t0
    sock.close()
    print("requests %d wall %.3f" % (args.requests, wall))
    return 0


if __name__ == "__main__":
    sys.exit(main())
