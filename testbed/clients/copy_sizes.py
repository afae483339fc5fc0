#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""copy_sizes.py HOST --client ADDR SIZE...: on one keep-alive connection,
one POST to /cgi-bin/echo per SIZE, its head padded so that the director's
copy of it (the head plus "X-Forwarded-For: ADDR\\r\\n") is exactly SIZE
bytes, with a body that comes in the same send(): the copy crosses the
pooled connection's segment boundaries at, just before and just after
the MSS.  Each answer must echo its body byte-exact.  Prints the backends
that answered; exits 1 on any mismatch.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import l7http  # noqa: E402
from l7http import Mismatch  # noqa: E402


def request(host, client, size, i):
    body = b"body-%d-" % i + b"x" * (i * 37 % 300)
    head = (b"POST /cgi-bin/echo HTTP/1.1\r\nHost: %s\r\n"
            b"Content-Length: %d\r\nX-Pad: " % (host.encode(), len(body)))
    xff = len(b"X-Forwarded-For: %s\r\n" % client.encode())
    pad = size - xff - len(head) - len(b"\r\n\r\n")
    if pad < 0:
        raise SystemExit("size %d too small" % size)
    return head + b"p" * pad + b"\r\n\r\n" + body, body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("--client", required=True)
    ap.add_argument("sizes", type=int, nargs="+")
    a = ap.parse_args()
    s = l7http.connect(a.host)
    f = s.makefile("rb")
    served = []
    try:
        for i, size in enumerate(a.sizes):
            req, body = request(a.host, a.client, size, i)
            s.sendall(req)
            status, headers, got = l7http.read_response(f, "POST")
            if status != 200 or got != body:
                raise Mismatch("copy of %d bytes: status %d, %d of %d body "
                               "bytes" % (size, status, len(got), len(body)))
            served.append(headers.get("x-backend", "?"))
    except (Mismatch, OSError) as e:
        print("FAIL:", e)
        return 1
    print(" ".join(served))
    return 0


if __name__ == "__main__":
    sys.exit(main())
