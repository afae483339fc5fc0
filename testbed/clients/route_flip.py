#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""route_flip.py HOST PATH --flip BLOCK UNBLOCK [--flip ...]: one keep-alive
connection across route changes on the director.

A first request is answered as usual.  Then for each --flip: the shell
command BLOCK runs (it takes a route away on the director), a request is
sent and nothing of its answer may arrive within --quiet seconds - the
director must not go on using a route it had cached; then UNBLOCK runs
and the answer must arrive whole (TCP resends what was dropped) and
byte-exact.  Prints one line per step; exits 1 on the first failure.
"""

import argparse
import os
import socket
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import l7http  # noqa: E402


def request(sock, host, path):
    sock.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (path, host)).encode())


def answer(f, checker, path):
    status, headers, body = l7http.read_response(f)
    if status != 200:
        raise l7http.Mismatch("%s: status %d" % (path, status))
    return checker.check(path, headers.get("x-backend"), body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("path")
    ap.add_argument("--flip", nargs=2, action="append", default=[],
                    metavar=("BLOCK", "UNBLOCK"))
    ap.add_argument("--quiet", type=float, default=3.0)
    ap.add_argument("--timeout", type=float, default=60.0)
    args = ap.parse_args()
    checker = l7http.Checker()

    sock = l7http.connect(args.host)
    f = sock.makefile("rb")
    request(sock, args.host, args.path)
    print("before: answered by %s" % answer(f, checker, args.path))
    for block, unblock in args.flip:
        subprocess.run(block, shell=True, check=True)
        request(sock, args.host, args.path)
        sock.settimeout(args.quiet)
        try:
            got = sock.recv(1, socket.MSG_PEEK)
        except socket.timeout:
            got = None
        if got is not None:
            subprocess.run(unblock, shell=True, check=True)
            print("FAIL %r: %s" % (block, "the connection closed" if not got
                                   else "answer bytes came by the route taken away"))
            return 1
        subprocess.run(unblock, shell=True, check=True)
        sock.settimeout(args.timeout)
        print("after %r: nothing for %.0f s, then answered by %s"
              % (block, args.quiet, answer(f, checker, args.path)))
    sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
