# SPDX-License-Identifier: GPL-2.0
"""slowget.py HOST PATH OUT [BYTES_PER_S]: one GET read slowly, body to OUT.

A download that stays under way for seconds whatever the buffers: a
small receive buffer and a paced reader keep the client's window small,
so the server (through the splice) can only send as fast as it is read.
curl --limit-rate cannot do this here: curl 7.88 reads a fast local
download whole before its limiter acts.  Prints the status and sizes.
"""

import socket
import sys
import time

CHUNK = 4096


def main():
    host, path, out = sys.argv[1:4]
    rate = int(sys.argv[4]) if len(sys.argv) > 4 else 200_000
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2 * CHUNK)
    s.settimeout(120)
    s.connect((host, 80))
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n"
              "Connection: close\r\n\r\n".encode())
    data = bytearray()
    start = time.monotonic()
    while True:
        chunk = s.recv(CHUNK)
        if not chunk:
            break
        data += chunk
        # pace: at most RATE bytes a second since the start
        ahead = len(data) / rate - (time.monotonic() - start)
        if ahead > 0:
            time.sleep(ahead)
    s.close()
    head, sep, body = bytes(data).partition(b"\r\n\r\n")
    if not sep:
        sys.exit("no complete response head")
    status = head.split(b"\r\n", 1)[0].decode(errors="replace")
    with open(out, "wb") as f:
        f.write(body)
    print(f"{status}, {len(body)} bytes in {time.monotonic() - start:.1f} s")
    sys.exit(0 if status.split()[1:2] == ["200"] else 1)


if __name__ == "__main__":
    main()
