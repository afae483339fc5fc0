#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""handshake_moves.py HOST PATH --sport N --before CMD --after CMD: one
keep-alive connection whose handshake ends on another director than the
one that answered its SYN.

The shell command CMD of --before runs first, with the client's source
port N chosen: it routes that flow to one director and drops every
segment of it but the SYN, so the handshake's last ACK is lost on the
way.  connect() returns on that director's SYN-ACK; then --after runs
(the flow routed to another director, the drop gone) and the requests
go: the first completes the handshake where it arrives (its ACK returns
the cookie), which must take the other's cookie and go on with the
TSval clock the SYN-ACK showed (the client's PAWS check would drop
anything older).  --requests answers, each byte-exact.

With --split the handshake is left alone (--before only routes) and
the flow moves in the middle of the first request instead: its head's
first line goes, then --after runs, then the rest of the head - a young
connection, with no request done yet, whose segments now reach a
director that did not make it.

Prints "complete N requests" or "reset after N requests" (the connection
reset or closed) and exits 0 when that is what --expect says (complete,
the default, or reset), 1 otherwise.
"""

import argparse
import os
import socket
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
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--requests", type=int, default=3)
    ap.add_argument("--expect", choices=("complete", "reset"),
                    default="complete")
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--split", action="store_true")
    args = ap.parse_args()
    checker = l7http.Checker()

    subprocess.run(args.before, shell=True, check=True)
    sock = l7http.connect_from(args.host, args.sport, args.timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    head = ("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n"
            % (args.path, args.host)).encode()
    if args.split:
        first = head.index(b"\r\n") + 2
        sock.sendall(head[:first])
        time.sleep(0.5)  # taken in, and acknowledged, where it went
        subprocess.run(args.after, shell=True, check=True)
        sock.sendall(head[first:])
    else:
        subprocess.run(args.after, shell=True, check=True)
    f = sock.makefile("rb")
    done = 0
    try:
        for i in range(args.requests):
            if i or not args.split:
                sock.sendall(head)
            status, headers, body = l7http.read_response(f)
            if status != 200:
                raise l7http.Mismatch("status %d" % status)
            checker.check(args.path, headers.get("x-backend"), body)
            done += 1
    except (ConnectionError, EOFError, l7http.Mismatch) as e:
        if isinstance(e, l7http.Mismatch) and "closed" not in str(e):
            print("FAIL after %d requests: %s" % (done, e))
            return 1
        print("reset after %d requests (%s)" % (done, e.__class__.__name__))
        return 0 if args.expect == "reset" else 1
    except socket.timeout:
        print("FAIL after %d requests: no answer in %.0f s"
              % (done, args.timeout))
        return 1
    sock.close()
    print("complete %d requests" % done)
    return 0 if args.expect == "complete" else 1


if __name__ == "__main__":
    sys.exit(main())
