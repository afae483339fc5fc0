#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""slowheads.py HOST N [options]: N clients that start a request head and
stall (Python 3 stdlib only).

Opens N connections to HOST:80 one after the other (from --source, if
given), sends --head bytes of a request head on each and stops there.
After --settle seconds it prints

    open N reset R

(N connections made, R of them reset by the server by then, during
the handshake or after) and, with
--then-close, closes them all and exits.  Otherwise it waits, up to --hold
seconds, for the server to answer and close each; a connection the server
closed is closed too, unless --keep-open.  At the end it prints

    done answered CODE:COUNT... reset R eof E open O

(status codes of the answers, resets, closes without an answer, and
connections still open when --hold ran out).

--keepalive turns on TCP keepalive probes every second (pure ACKs, as a
client that only acknowledges would send) for as long as a connection is
open.
"""

import argparse
import collections
import errno
import resource
import selectors
import socket
import sys
import time


def connect(args):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if args.source:
        s.bind((args.source, 0))
    if args.keepalive:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, 1)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, 1)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, 120)
    s.settimeout(10)
    s.connect((args.host, 80))
    s.setblocking(False)
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("n", type=int)
    ap.add_argument("--source")
    ap.add_argument("--head", default="GET / HTTP/1.1\r\nHo")
    ap.add_argument("--settle", type=float, default=1.0)
    ap.add_argument("--hold", type=float, default=60.0)
    ap.add_argument("--then-close", action="store_true")
    ap.add_argument("--keep-open", action="store_true")
    ap.add_argument("--keepalive", action="store_true")
    args = ap.parse_args()

    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    socks = []
    reset = 0
    for _ in range(args.n):
        try:
            # a reset right after the handshake may come before
            # connect() returns
            s = connect(args)
        except ConnectionResetError:
            reset += 1
            continue
        try:
            s.send(args.head.encode())
        except OSError:
            reset += 1
        socks.append(s)
    time.sleep(args.settle)

    sel = selectors.DefaultSelector()
    got = {}         # socket -> bytes answered so far
    answered = collections.Counter()
    eof = 0

    def drain(s):
        """Read what is there; True once the server closed or reset."""
        nonlocal reset, eof
        while True:
            try:
                data = s.recv(65536)
            except BlockingIOError:
                return False
            except OSError as e:
                if e.errno not in (errno.ECONNRESET, errno.EPIPE,
                                   errno.ETIMEDOUT):
                    raise
                reset += 1
                return True
            if data:
                got[s] = got.get(s, b"") + data
                continue
            head = got.get(s, b"")
            if head.startswith(b"HTTP/1.1 "):
                answered[head[9:12].decode()] += 1
            else:
                eof += 1
            return True

    live = []
    for s in socks:
        if s in got or not drain(s):
            live.append(s)
        else:
            s.close()
    closed_early = reset
    print(f"open {args.n} reset {closed_early}", flush=True)
    if args.then_close:
        for s in live:
            s.close()
        return 0

    for s in live:
        sel.register(s, selectors.EVENT_READ)
    ended = set()
    deadline = time.monotonic() + args.hold
    while len(ended) < len(live):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        for key, _ in sel.select(timeout=min(left, 1.0)):
            s = key.fileobj
            if drain(s):
                ended.add(s)
                sel.unregister(s)
                if not args.keep_open:
                    s.close()
    if args.keep_open:
        # the rest of --hold with the sockets open (keepalive probing)
        time.sleep(max(0.0, deadline - time.monotonic()))
    codes = " ".join(f"{k}:{v}" for k, v in sorted(answered.items()))
    print(f"done answered {codes or '-'} reset {reset} eof {eof} "
          f"open {len(live) - len(ended)}", flush=True)
    for s in socks:
        s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
