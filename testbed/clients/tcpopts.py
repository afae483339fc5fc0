#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tcpopts.py HOST POSTFILE: what this host's TCP agreed with the VIP in
the handshake, and whether the connection carries bytes exactly with it.

On one keep-alive connection: GET /static/1m.bin (checked against
SHA256SUMS), then POST POSTFILE to /cgi-bin/echo (the echo compared),
then the options the client's kernel says the handshake agreed on
(TCP_INFO).  Prints
    ts=0|1 sack=0|1 wscale=0|1 snd_wscale=N rcv_wscale=N
(snd_wscale: the shift the client applies to the director's windows;
rcv_wscale: the one it announced for its own); exits 1 on any mismatch.
"""

import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import l7http  # noqa: E402

# struct tcp_info: tcpi_options at byte 5, the two shifts' nibbles at 6
TI_OPTIONS = 5
TI_WSCALE = 6
TCPI_OPT_TIMESTAMPS = 1
TCPI_OPT_SACK = 2
TCPI_OPT_WSCALE = 4


def main():
    host, post_file = sys.argv[1], sys.argv[2]
    with open(post_file, "rb") as f:
        post = f.read()
    s = l7http.connect(host)
    f = s.makefile("rb")
    path = "/static/1m.bin"
    s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (path, host)).encode())
    status, headers, body = l7http.read_response(f)
    if status != 200:
        raise l7http.Mismatch("GET %s: status %d" % (path, status))
    l7http.Checker().check(path, headers.get("x-backend"), body)
    s.sendall(("POST /cgi-bin/echo HTTP/1.1\r\nHost: %s\r\n"
               "Content-Length: %d\r\n\r\n" % (host, len(post))).encode()
              + post)
    status, headers, body = l7http.read_response(f)
    if status != 200 or body != post:
        raise l7http.Mismatch("POST of %d bytes: status %d, %d bytes back%s"
                              % (len(post), status, len(body),
                                 "" if len(body) != len(post) else
                                 ", not the same"))
    info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    opts, ws = info[TI_OPTIONS], info[TI_WSCALE]
    print("ts=%d sack=%d wscale=%d snd_wscale=%d rcv_wscale=%d" % (
        bool(opts & TCPI_OPT_TIMESTAMPS), bool(opts & TCPI_OPT_SACK),
        bool(opts & TCPI_OPT_WSCALE), ws & 0xf, ws >> 4))
    s.close()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, ValueError, l7http.Mismatch) as e:
        print("error: %s: %s" % (type(e).__name__, e))
        sys.exit(1)
