#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""newconn.py HOST [options]: one new connection every --interval seconds.

Each connection (a thread of its own, so a stalled one does not delay the
next) sends one GET --path with "Connection: close" and checks the answer
byte for byte (l7http.Checker); it fails when it is not complete within
--timeout seconds.  Runs until --duration seconds have passed or the file
--stop exists, then waits for the connections under way.

--log FILE gets one line per connection, flushed as it goes:
    SEQ START END BACKEND ok|error [reason]
(times in seconds since the epoch).  Prints "conns N ok N errors N".
"""

import argparse
import http.client
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import l7http  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("--interval", type=float, default=0.1)
    ap.add_argument("--duration", type=float, default=60)
    ap.add_argument("--timeout", type=float, default=5)
    ap.add_argument("--path", default="/static/1k.bin")
    ap.add_argument("--log")
    ap.add_argument("--stop")
    args = ap.parse_args()
    checker = l7http.Checker()
    lock = threading.Lock()
    log = open(args.log, "w", buffering=1) if args.log else None
    totals = {"conns": 0, "ok": 0, "errors": 0}

    def one(seq):
        t0 = l7http.now()
        backend = None
        reason = ""
        try:
            conn = http.client.HTTPConnection(args.host, timeout=args.timeout)
            conn.request("GET", args.path, headers={"Connection": "close"})
            resp = conn.getresponse()
            body = resp.read()
            backend = resp.getheader("X-Backend")
            conn.close()
            if resp.status != 200:
                raise l7http.Mismatch("status %d" % resp.status)
            checker.check(args.path, backend, body)
            if l7http.now() - t0 > args.timeout:
                raise l7http.Mismatch("took %.1f s" % (l7http.now() - t0))
            ok = True
        except (OSError, http.client.HTTPException, l7http.Mismatch,
                ValueError) as e:
            ok = False
            reason = "%s: %s" % (type(e).__name__, e)
        with lock:
            totals["conns"] += 1
            totals["ok" if ok else "errors"] += 1
            if log:
                log.write("%d %.3f %.3f %s %s %s\n" % (
                    seq, t0, l7http.now(), backend or "-",
                    "ok" if ok else "error", reason))

    threads = []
    start = time.time()
    seq = 0
    while time.time() - start < args.duration:
        if args.stop and os.path.exists(args.stop):
            break
        t = threading.Thread(target=one, args=(seq,))
        t.start()
        threads.append(t)
        seq += 1
        # paced by the clock, not by the previous connection
        time.sleep(max(0, start + seq * args.interval - time.time()))
    for t in threads:
        t.join()
    print("conns %d ok %d errors %d" % (totals["conns"], totals["ok"], totals["errors"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
