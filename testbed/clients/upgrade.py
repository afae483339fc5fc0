#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""upgrade.py HOST PORT PATH [--ask] [--hold S [--until FILE]]
           [--pings N --every S [--blind]]: one request, upgrade or not.

Sends "GET PATH" (with "Connection: Upgrade" and "Upgrade: echo" when
--ask is given) and prints what came of it, one line, flushed:
    tunnel ok      101, and a line sent through came back
    status N       another status
    reset          the connection was reset
    closed         closed without a full response head
    timeout        nothing within 10 s
After "tunnel ok", --hold S keeps the tunnel open S seconds (or until
FILE exists, with --until), then closes it (and prints "released").
--pings N sends N more lines through the tunnel, one every --every S
seconds, each checked as it comes back, and prints "pings ok N" (or how
it failed: "reset after K", "closed after K", "timeout after K").
--blind: before the pings, a RST and a FIN of the tunnel's own tuple at
sequence numbers far from the stream's (raw socket: root), as an
off-path attacker who knows the ports would send; they must change
nothing.
"""

import argparse
import os
import socket
import struct
import sys
import time

from rawnet import csum


def read_head(sock):
    buf = b""
    while b"\r\n\r\n" not in buf:
        data = sock.recv(4096)
        if not data:
            return None, buf
        buf += data
    head, rest = buf.split(b"\r\n\r\n", 1)
    return head, rest


def blind(sock):
    """A RST, then a FIN, with @sock's tuple, half the sequence space
    away from where its stream stands."""
    src, sport = sock.getsockname()
    dst, dport = sock.getpeername()
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP)
    for flags in (0x04, 0x11):      # RST; FIN+ACK
        seq = (int.from_bytes(os.urandom(4), "big") | 1) & 0xFFFFFFFF
        th = struct.pack("!HHIIBBHHH", sport, dport, seq, 0, 5 << 4, flags,
                         512, 0, 0)
        pseudo = socket.inet_aton(src) + socket.inet_aton(dst) + \
            struct.pack("!BBH", 0, socket.IPPROTO_TCP, len(th))
        th = th[:16] + struct.pack("!H", csum(pseudo + th)) + th[18:]
        raw.sendto(th, (dst, 0))
    raw.close()


def pings(sock, n, every):
    """@n lines through the tunnel, one every @every seconds."""
    for i in range(n):
        time.sleep(every)
        line = b"ping %d\n" % i
        try:
            sock.sendall(line)
            got = b""
            while len(got) < len(line):
                data = sock.recv(4096)
                if not data:
                    return "closed after %d" % i
                got += data
        except ConnectionResetError:
            return "reset after %d" % i
        except socket.timeout:
            return "timeout after %d" % i
        if got != line:
            return "bad echo after %d: %r" % (i, got)
    return "pings ok %d" % n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("port", type=int)
    ap.add_argument("path")
    ap.add_argument("--ask", action="store_true")
    ap.add_argument("--hold", type=float, default=0)
    ap.add_argument("--until")
    ap.add_argument("--pings", type=int, default=0)
    ap.add_argument("--every", type=float, default=1)
    ap.add_argument("--blind", action="store_true")
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
        if args.blind:
            blind(sock)
        if args.pings:
            print(pings(sock, args.pings, args.every), flush=True)
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
