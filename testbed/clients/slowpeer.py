#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""slowpeer.py HOST MODE [ARGS]: clients that hold what a request holds on
the director - a pooled connection - without moving, or barely.

  bodywait N       N connections each send a POST head to /cgi-bin/echo with
                   Content-Length: 10 and never the body; each is read until
                   it closes (30 s at most).  Prints "N answered S closed C"
                   with S the statuses seen ("408x12"), C how many closed.
  body RATE LEN    one POST of LEN body bytes to /cgi-bin/echo at RATE bytes
                   a second; prints "echoed" (the body came back whole,
                   with Content-Length),
                   "status N after B" (an answer before the body was all
                   sent), "reset after B" or "closed after B".
  read RATE SECS [RCVBUF]
                   GET /static/1m.bin read at RATE bytes a second, through
                   a receive buffer of RCVBUF bytes (2048; 0: the
                   system's), for SECS seconds at most; prints
                   "read whole H" (1 MB, H its SHA-256's first 16 digits),
                   "reset after B", "closed after B" or "still reading
                   after B" (SECS ran out).

The director must bound each: the body by its own floor or the server's
answer, the reader by its floor.
"""

import hashlib
import socket
import sys
import time

PORT = 80


def connect(host, rcvbuf=0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(30)
    s.connect((host, PORT))
    return s


def post_head(host, length):
    return ("POST /cgi-bin/echo HTTP/1.1\r\nHost: %s\r\n"
            "Content-Length: %d\r\n\r\n" % (host, length)).encode()


def status_of(data):
    """The status of the first response head in @data, or None."""
    if not data.startswith(b"HTTP/1.") or b"\r\n" not in data:
        return None
    return int(data.split(b" ", 2)[1])


def bodywait(host, n):
    socks = []
    for _ in range(n):
        s = connect(host)
        s.sendall(post_head(host, 10))
        socks.append(s)
    statuses, closed = {}, 0
    deadline = time.monotonic() + 30
    for s in socks:
        data = b""
        try:
            while True:
                s.settimeout(max(0.1, deadline - time.monotonic()))
                chunk = s.recv(4096)
                if not chunk:
                    closed += 1
                    break
                data += chunk
        except (socket.timeout, ConnectionResetError):
            pass
        st = status_of(data)
        statuses[st] = statuses.get(st, 0) + 1
        s.close()
    print("%d answered %s closed %d" % (
        n, ",".join("%sx%d" % (k, v) for k, v in sorted(
            statuses.items(), key=lambda kv: str(kv[0]))), closed))


def body(host, rate, length):
    s = connect(host)
    payload = bytes((i * 7) & 0xFF for i in range(length))
    s.sendall(post_head(host, length))
    s.setblocking(False)
    sent, got, start = 0, b"", time.monotonic()
    try:
        while sent < length:
            due = int((time.monotonic() - start) * rate) + 1
            if due > sent:
                try:
                    sent += s.send(payload[sent:min(due, length)])
                except BlockingIOError:
                    pass
            try:
                chunk = s.recv(65536)
                if not chunk:
                    print("closed after %d" % sent)
                    return
                got += chunk
                if status_of(got):
                    print("status %d after %d" % (status_of(got), sent))
                    return
            except BlockingIOError:
                pass
            time.sleep(0.05)
        s.settimeout(30)
        while b"\r\n\r\n" not in got or \
                len(got.partition(b"\r\n\r\n")[2]) < length:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    except (ConnectionResetError, BrokenPipeError):
        print("reset after %d" % sent)
        return
    except socket.timeout:
        print("timeout after %d" % sent)
        return
    rest = got.partition(b"\r\n\r\n")[2]
    if status_of(got) == 200 and rest == payload:
        print("echoed")
        return
    diff = next((i for i, (a, b) in enumerate(zip(rest, payload)) if a != b),
                min(len(rest), len(payload)))
    print("bad echo: status %s, %d of %d bytes, first difference at %d: %r"
          % (status_of(got), len(rest), length, diff, rest[diff:diff + 16]))


def read(host, rate, secs, rcvbuf=2048):
    s = connect(host, rcvbuf=rcvbuf)
    s.sendall(b"GET /static/1m.bin HTTP/1.1\r\nHost: x\r\n\r\n")
    data, start = b"", time.monotonic()
    try:
        while True:
            if time.monotonic() - start > secs:
                print("still reading after %d" % len(data))
                return
            due = int((time.monotonic() - start) * rate) + 1
            if due > len(data):
                chunk = s.recv(min(4096, due - len(data)))
                if not chunk:
                    print("closed after %d" % len(data))
                    return
                data += chunk
                head, sep, rest = data.partition(b"\r\n\r\n")
                if sep and len(rest) >= 1 << 20:
                    break
            else:
                time.sleep(0.05)
    except ConnectionResetError:
        print("reset after %d" % len(data))
        return
    except socket.timeout:
        print("timeout after %d" % len(data))
        return
    digest = hashlib.sha256(rest[:1 << 20]).hexdigest()
    print("read whole %s" % digest[:16])


def main():
    host, mode = sys.argv[1:3]
    args = [int(a) for a in sys.argv[3:]]
    {"bodywait": bodywait, "body": body, "read": read}[mode](host, *args)


if __name__ == "__main__":
    main()
