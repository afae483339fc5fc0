#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""xff_pipeline.py HOST --tag T [--count N] [--depth D] [--client-xff ADDR]
[--min-backends B]: N requests pipelined on one keep-alive connection, at
most D of them sent and not yet answered (a writer thread sends while the
main thread reads, so neither side waits on the other's buffers).

Request I carries the query "xl=T-I-x" when it also carries the client's
own "X-Forwarded-For: ADDR" (every other group of four), else "xl=T-I-n":
a unique key per request that the backends' access logs show.  The kinds
rotate: GET /static/1k.bin, POST /cgi-bin/echo with a body of its own
size and bytes, GET /cgi-bin/chunked?n=..., GET /static/10k.bin.  Every
answer is read in order and checked byte for byte (l7http.Checker; the
echo against the body sent).  Prints "backend sN COUNT" lines; exits 1
on any mismatch or when fewer than B (default 3) backends answered.
"""

import argparse
import collections
import os
import random
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import l7http  # noqa: E402
from l7http import Mismatch  # noqa: E402


def build(host, tag, i, xff, rng):
    """(method, path, wire bytes, body) of request I."""
    key = "xl=%s-%d-%s" % (tag, i, "x" if xff else "n")
    extra = "X-Forwarded-For: %s\r\n" % xff if xff else ""
    kind = i % 4
    body = b""
    if kind == 0:
        method, path = "GET", "/static/1k.bin?" + key
    elif kind == 1:
        method, path = "POST", "/cgi-bin/echo?" + key
        body = rng.randbytes(1 + (i * 2711) % 24000)
        extra += "Content-Length: %d\r\n" % len(body)
    elif kind == 2:
        method, path = "GET", "/cgi-bin/chunked?n=%d&%s" % (3 + i, key)
    else:
        method, path = "GET", "/static/10k.bin?" + key
    head = "%s %s HTTP/1.1\r\nHost: %s\r\n%s\r\n" % (method, path, host, extra)
    return method, path, head.encode() + body, body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("--tag", required=True)
    ap.add_argument("--count", type=int, default=60)
    ap.add_argument("--depth", type=int, default=12)
    ap.add_argument("--client-xff", default="203.0.113.66")
    ap.add_argument("--min-backends", type=int, default=3)
    ap.add_argument("--port", type=int, default=80)
    a = ap.parse_args()
    rng = random.Random(a.tag)
    reqs = [build(a.host, a.tag, i, a.client_xff if (i // 4) % 2 else None, rng)
            for i in range(a.count)]
    checker = l7http.Checker()
    sock = l7http.connect(a.host, a.port)
    f = sock.makefile("rb")
    room = threading.Semaphore(a.depth)
    sent_err = []

    def writer():
        try:
            for _, _, wire, _ in reqs:
                room.acquire()
                sock.sendall(wire)
        except OSError as e:
            sent_err.append(e)

    w = threading.Thread(target=writer, daemon=True)
    w.start()
    served = collections.Counter()
    try:
        for i, (method, path, _, body) in enumerate(reqs):
            status, headers, got = l7http.read_response(f, method)
            room.release()
            backend = headers.get("x-backend")
            if status != 200:
                raise Mismatch("answer %d (%s): status %d" % (i, path, status))
            if headers.get("connection", "").lower() == "close":
                raise Mismatch("answer %d (%s): Connection: close" % (i, path))
            if method == "POST":
                if got != body:
                    raise Mismatch("answer %d (%s) from %s: %d bytes echoed "
                                   "of %d, or not the same"
                                   % (i, path, backend, len(got), len(body)))
            else:
                checker.check(path, backend, got)
            served[backend] += 1
    except (OSError, ValueError, Mismatch) as e:
        print("FAILED: %s: %s%s" % (type(e).__name__, e,
                                     " (send: %s)" % sent_err[0] if sent_err else ""))
        return 1
    finally:
        sock.close()
    for b in sorted(served):
        print("backend %s %d" % (b, served[b]))
    if len(served) < a.min_backends:
        print("served by %d backend(s), expected %d" % (len(served), a.min_backends))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
