#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""midresp.py HOST READY: a keep-alive client caught in a response.

One connection: a GET of /static/1k.bin, then 0.5 s idle at the request
boundary (long enough for a checkpoint of it), then a GET of
/static/1m.bin read slowly, 8 KB every 50 ms (about 6 s in all).  With
--first, the GET of /static/1m.bin is the connection's first request (a
director has no record of its boundary, only a busy one).  READY is
created once 64 KB of the body have been read: the test kills the
director then.  Prints one line:
    complete S          the body arrived whole and right, S s after READY
    reset S ERROR       the connection failed S s after READY
    timeout S           nothing for --timeout seconds: left hanging
Exits 0 in every case: the test decides.
"""

import argparse
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import l7http  # noqa: E402


def get(sock, f, path):
    sock.sendall(("GET %s HTTP/1.1\r\nHost: l7\r\n\r\n" % path).encode())
    status, headers = l7http.read_head(f)
    return status, headers


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("ready")
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--first", action="store_true",
                    help="no request before the 1 MB one")
    args = ap.parse_args()
    checker = l7http.Checker()
    sock = socket.create_connection((args.host, 80), timeout=args.timeout)
    f = sock.makefile("rb")
    if not args.first:
        status, headers = get(sock, f, "/static/1k.bin")
        body = l7http.read_exact(f, int(headers["content-length"]))
        checker.check("/static/1k.bin", headers.get("x-backend"), body)
        time.sleep(0.5)
    t0 = None
    try:
        status, headers = get(sock, f, "/static/1m.bin")
        left = int(headers["content-length"])
        body = b""
        while left:
            chunk = f.read1(min(8192, left)) if hasattr(f, "read1") else \
                f.read(min(8192, left))
            if not chunk:
                raise ConnectionError("closed after %d bytes" % len(body))
            body += chunk
            left -= len(chunk)
            if t0 is None and len(body) >= 65536:
                t0 = time.time()
                open(args.ready, "w").close()
            time.sleep(0.05)
        checker.check("/static/1m.bin", headers.get("x-backend"), body)
        print("complete %.2f" % (time.time() - (t0 or time.time())))
    except socket.timeout:
        print("timeout %.2f" % (time.time() - (t0 or time.time())))
    except (OSError, ValueError, l7http.Mismatch) as e:
        print("reset %.2f %s: %s" % (time.time() - (t0 or time.time()),
                                     type(e).__name__, e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
