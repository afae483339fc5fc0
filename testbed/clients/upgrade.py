#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""upgrade.py HOST PORT PATH [--ask] [--hold S [--until FILE]]: one request,
upgrade or not.

Sends "GET PATH" (with "Connection: Upgrade" and "Upgrade: echo" when
--ask is given) and prints what came of it, one line, flushed:
    tunnel ok      101, and a line sent through came back
    status N       another status
    reset          the connection was reset
    closed         closed without a full response head
    timeout        nothing within 10 s
After "tunnel ok", --hold S keeps the tunnel open S seconds (or until
FILE exists, with --until), then closes it (and prints "released").
"""

import argparse
import os
import socket
import sys
import time


def read_head(sock):
    buf = b""
    while b"\r\n\r\n" not in buf:
        data = sock.recv(4096)
        if not data:
            return None, buf
        buf += data
    head, rest = buf.split(b"\r\n\r\n", 1)
    return head, rest


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("path")
    ap.add_argument("--ask", action="store_true")
    ap.add_argument("--hold", type=float, default=0)
    ap.add_argument("--until")
    args = ap.parse_args()
    req = "GET %s HTTP/1.1\r\nHost: vip\r\n" % args.path
    if args.ask:
        req += "Connection: Upgrade\r\nUpgrade: echo\r\n"
    req += "\r\n"
    sock = socket.create_connection((args.host, args.port), timeout=10)
    try:
        sock.sendall(req.encode())
        head, rest = read_head(sock)
        if head is None:
            print("closed", flush=True)
            return 0
        status = int(head.split(b" ", 2)[1])
        if status != 101:
            print("status %d" % status, flush=True)
            return 0
        sock.sendall(b"ping\n")
        while len(rest) < 5:
            data = sock.recv(4096)
            if not data:
                print("closed", flush=True)
                return 0
            rest += data
        print("tunnel ok" if rest == b"ping\n" else "tunnel bad %r" % rest,
              flush=True)
        if args.hold:
            end = time.time() + args.hold
            while time.time() < end and not (
                    args.until and os.path.exists(args.until)):
                time.sleep(0.1)
            print("released", flush=True)
    except ConnectionResetError:
        print("reset", flush=True)
    except socket.timeout:
        print("timeout", flush=True)
    finally:
        sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
