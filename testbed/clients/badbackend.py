#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""badbackend.py PORT DIR: an HTTP/1.1 server that misbehaves on request,
for the hostile suite.  Keep-alive, one thread per connection (pooled
connections may wait long for their first request).  By path:

  /cut-cl    Content-Length: 200000, 20000 bytes of it, then RST
  /cut-eof   no Content-Length (ends at close), 20000 bytes, then RST
  /slow?id=N Content-Length: 20000; 10000 bytes, then waits (at most
             30 s) for the file DIR/go-N, then the other 10000
  anything else: 200 with a 2-byte body

A body of 'x' bytes; every response has X-Backend: bad.
"""

import os
import socket
import struct
import sys
import threading
import time

DIR = None


def serve(conn):
    f = conn.makefile("rb")
    try:
        while True:
            line = f.readline(8192)
            if not line:
                return
            target = line.split(b" ")[1].decode() if b" " in line else "/"
            length = 0
            while True:
                h = f.readline(8192)
                if h in (b"\r\n", b"\n", b""):
                    break
                k, _, v = h.partition(b":")
                if k.strip().lower() == b"content-length":
                    length = int(v)
            if length:
                f.read(length)
            path, _, query = target.partition("?")
            if path in ("/cut-cl", "/cut-eof"):
                head = b"HTTP/1.1 200 OK\r\nX-Backend: bad\r\n"
                head += (b"Content-Length: 200000\r\n\r\n" if path == "/cut-cl"
                         else b"Connection: close\r\n\r\n")
                conn.sendall(head + b"x" * 20000)
                time.sleep(0.5)
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                struct.pack("ii", 1, 0))
                return		# close with linger 0: RST
            if path == "/slow":
                go = os.path.join(DIR, "go-" + query.partition("id=")[2])
                conn.sendall(b"HTTP/1.1 200 OK\r\nX-Backend: bad\r\n"
                             b"Content-Length: 20000\r\n\r\n" + b"x" * 10000)
                for _ in range(300):
                    if os.path.exists(go):
                        break
                    time.sleep(0.1)
                conn.sendall(b"x" * 10000)
                continue
            conn.sendall(b"HTTP/1.1 200 OK\r\nX-Backend: bad\r\n"
                         b"Content-Length: 2\r\n\r\nok")
    except OSError:
        pass
    finally:
        conn.close()


def main():
    global DIR
    port, DIR = int(sys.argv[1]), sys.argv[2]
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(128)
    open(os.path.join(DIR, "listening"), "w").close()
    while True:
        conn, _ = ls.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    main()
