#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kaloop.py HOST [options]: keep-alive client loops.

--conns N threads each open one http.client connection and send
--requests M GET requests on it, cycling through the --path values; every
answer is checked byte for byte (see l7http.Checker).  A failed request
(exception, wrong status or body) is counted, its connection closed, and
the loop goes on with a new connection; a connection closed by the server
after a complete answer ("Connection: close") is counted as a reconnect.

--pace S sleeps S seconds after each request.  --timeout S bounds each
socket operation (default l7http.TIMEOUT).  --until FILE: each loop stops
after the request under way once FILE exists (--requests is then a cap).
Prints "requests N ok N errors N reconnects N" and "backend sN COUNT" lines.
--log FILE gets one line per request:
    CONN SEQ START END BACKEND ok|error [reason]
(times in seconds since the epoch, flushed as it goes, so a test can watch
the progress).  Exits 1 when errors exceed --max-errors (default 0), or
when --no-reconnect is given and any connection was reopened.
"""

import argparse
import collections
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
    ap.add_argument("--conns", type=int, default=1)
    ap.add_argument("--requests", type=int, default=100)
    ap.add_argument("--path", action="append")
    ap.add_argument("--log")
    ap.add_argument("--max-errors", type=int, default=0)
    ap.add_argument("--no-reconnect", action="store_true")
    ap.add_argument("--pace", type=float, default=0,
                    help="seconds to sleep after each request")
    ap.add_argument("--timeout", type=float, default=l7http.TIMEOUT)
    ap.add_argument("--until")
    args = ap.parse_args()
    paths = args.path or ["/static/1k.bin"]
    checker = l7http.Checker()
    lock = threading.Lock()
    log = open(args.log, "w", buffering=1) if args.log else None
    served = collections.Counter()
    totals = collections.Counter()
    failures = []

    def record(c, i, t0, backend, ok, reason="", port=0):
        with lock:
            totals["requests"] += 1
            totals["ok" if ok else "errors"] += 1
            if ok:
                served[backend] += 1
            else:
                failures.append("conn %d (port %d) request %d: %s"
                                % (c, port, i, reason))
            if log:
                log.write("%d %d %.3f %.3f %s %s %s\n" % (
                    c, i, t0, l7http.now(), backend or "-",
                    "ok" if ok else "error", reason))

    def loop(c):
        conn = http.client.HTTPConnection(args.host, timeout=args.timeout)
        sock = None
        for i in range(args.requests):
            if args.until and os.path.exists(args.until):
                break
            path = paths[(c + i) % len(paths)]
            t0 = l7http.now()
            backend = None
            port = 0
            try:
                conn.request("GET", path)
                if sock is not None and conn.sock is not sock:
                    with lock:
                        totals["reconnects"] += 1
                sock = conn.sock
                port = sock.getsockname()[1]
                resp = conn.getresponse()
                body = resp.read()
                backend = resp.getheader("X-Backend")
                if resp.status != 200:
                    raise l7http.Mismatch("%s: status %d from %s"
                                          % (path, resp.status, backend))
                checker.check(path, backend, body)
                record(c, i, t0, backend, True)
            except (OSError, http.client.HTTPException, l7http.Mismatch,
                    ValueError) as e:
                record(c, i, t0, backend, False,
                       "%s: %s" % (type(e).__name__, e), port)
                conn.close()
                sock = None
                with lock:
                    if totals["errors"] > max(50, args.max_errors):
                        return
            if args.pace:
                time.sleep(args.pace)
        conn.close()

    threads = [threading.Thread(target=loop, args=(c,)) for c in range(args.conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    print("requests %d ok %d errors %d reconnects %d" % (
        totals["requests"], totals["ok"], totals["errors"], totals["reconnects"]))
    for b in sorted(served):
        print("backend %s %d" % (b, served[b]))
    for f in failures[:10]:
        print("error: " + f)
    if not args.until and totals["requests"] != args.conns * args.requests:
        print("gave up after %d errors" % totals["errors"])
        return 1
    if totals["errors"] > args.max_errors:
        return 1
    if args.no_reconnect and totals["reconnects"]:
        print("a connection was reopened")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
