#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""held_conn.py HOST READY GO [--requests N]: one keep-alive connection
held across a change on the director.

Sends one GET of /static/1k.bin, creates the file READY, waits (up to
60 s) for the file GO to exist, then sends N more GETs (default 5) on the
same connection.  --again READY2 GO2 (repeatable): after those, creates
READY2, waits for GO2, and sends N more, so that the connection idles at
a boundary once per pair.  Every answer must be 200 with the right body, and the
connection must never be reopened.  Prints "ok N backend B..." or
"error ..." and exits 0 or 1.
"""

import argparse
import http.client
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import l7http  # noqa: E402

PATH = "/static/1k.bin"


def get(conn, checker):
    conn.request("GET", PATH)
    resp = conn.getresponse()
    body = resp.read()
    backend = resp.getheader("X-Backend")
    if resp.status != 200:
        raise l7http.Mismatch("status %d" % resp.status)
    checker.check(PATH, backend, body)
    return backend


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("ready")
    ap.add_argument("go")
    ap.add_argument("--requests", type=int, default=5)
    ap.add_argument("--again", nargs=2, action="append", default=[],
                    metavar=("READY", "GO"))
    args = ap.parse_args()
    checker = l7http.Checker()
    conn = http.client.HTTPConnection(args.host, timeout=10)
    backends = []
    try:
        backends.append(get(conn, checker))
        sock = conn.sock
        for ready, go in [(args.ready, args.go)] + args.again:
            open(ready, "w").close()
            deadline = time.time() + 60
            while not os.path.exists(go):
                if time.time() > deadline:
                    print("error: no %s" % go)
                    return 1
                time.sleep(0.1)
            for _ in range(args.requests):
                backends.append(get(conn, checker))
                if conn.sock is not sock:
                    print("error: the connection was reopened")
                    return 1
    except (OSError, http.client.HTTPException, l7http.Mismatch,
            ValueError) as e:
        print("error after %d requests: %s: %s"
              % (len(backends), type(e).__name__, e))
        return 1
    print("ok %d backend %s" % (len(backends), " ".join(backends)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
