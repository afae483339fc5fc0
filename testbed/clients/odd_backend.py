#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""odd_backend.py MODE ADDR PORT: a misbehaving real server, for tests.

MODE accept-close: accept every connection and close it at once; prints
    the number of connections accepted so far to --count FILE after each.
MODE upgrade: HTTP/1.1 keep-alive server (heads only, no bodies) that
    answers "101 Switching Protocols" to every request for a path under
    /up - whether or not the request asked to upgrade - and then echoes
    what it receives until the peer closes; /fields gets a 200 with
    "ok\\n" and exactly 100 header fields, none of them Connection (a
    head at the framer's field limit: the director's copy for an
    HTTP/1.0 keep-alive client has no room for its own field); any other
    path gets a 200 with "ok\\n" and Content-Length alone.
MODE chatty: as upgrade, but a connection on which no request came
    within a second of accept gets one byte ("X") nobody asked for.

Runs until killed.
"""

import argparse
import socket
import socketserver
import threading


def accept_close(addr, port, count_file):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(128)
    n = 0
    while True:
        c, _ = s.accept()
        c.close()
        n += 1
        if count_file:
            with open(count_file, "w") as f:
                f.write("%d\n" % n)


FIELDS_100 = (b"HTTP/1.1 200 OK\r\n" +
              b"".join(b"X-F%d: v\r\n" % i for i in range(99)) +
              b"Content-Length: 3\r\n\r\nok\n")


class UpgradeHandler(socketserver.BaseRequestHandler):
    def handle(self):
        sock = self.request
        # as Apache: a write goes out at once, never held back by Nagle
        # until the peer's next ACK (which would carry its next request)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        buf = b""
        while True:
            while b"\r\n\r\n" not in buf:
                data = sock.recv(4096)
                if not data:
                    return
                buf += data
            head, buf = buf.split(b"\r\n\r\n", 1)
            target = head.split(b"\r\n", 1)[0].split(b" ")
            path = target[1] if len(target) > 1 else b"/"
            if path.startswith(b"/up"):
                sock.sendall(b"HTTP/1.1 101 Switching Protocols\r\n"
                             b"Connection: Upgrade\r\nUpgrade: echo\r\n\r\n")
                if buf:
                    sock.sendall(buf)
                while True:
                    data = sock.recv(4096)
                    if not data:
                        return
                    sock.sendall(data)
            if path.startswith(b"/fields"):
                sock.sendall(FIELDS_100)
                continue
            sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n")


class ChattyHandler(UpgradeHandler):
    """One byte nobody asked for, a second after accept if no request
    came by then; then requests as UpgradeHandler answers them."""

    def handle(self):
        self.request.settimeout(1.0)
        try:
            first = self.request.recv(4096, socket.MSG_PEEK)
        except socket.timeout:
            first = None
        self.request.settimeout(None)
        if first is None:
            self.request.sendall(b"X")
        elif not first:
            return
        super().handle()


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True
    request_queue_size = 128


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["accept-close", "upgrade", "chatty"])
    ap.add_argument("addr")
    ap.add_argument("port", type=int)
    ap.add_argument("--count")
    args = ap.parse_args()
    if args.mode == "accept-close":
        accept_close(args.addr, args.port, args.count)
    else:
        srv = Server((args.addr, args.port), ChattyHandler
                     if args.mode == "chatty" else UpgradeHandler)
        threading.Thread(target=srv.serve_forever).start()


if __name__ == "__main__":
    main()
