#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bodyhead.py HOST MODE [--rounds R]: POST requests on one keep-alive
connection, each followed by a GET, with the end of the POST's body and
the next head handed to TCP in a way MODE names:

  apart    the body's end alone; the GET only once the POST's answer is in
           (nothing follows a body before its server has it: the baseline)
  joined   the body's end and the GET head in ONE segment (TCP_NODELAY,
           one send())
  two      the body's end, then at once the GET head: two segments
  piped    the body's end and two GET heads in one segment
  chunked  as joined, the body chunked: its last chunk, the 0-chunk and
           the GET head in one segment
  fin      as joined, and the client's FIN in the same segment
           (MSG_MORE, then shutdown()): one round, then the connection
           must end after the answers

Each round sends the POST head and the first part of its body first, and
waits until TCP has them acknowledged, so that what follows goes out as
described.  Every answer is checked byte for byte (the POST against what
/cgi-bin/echo must echo, a GET against the static file's SHA-256).  Per
round, from the send of the body's end: the time until TCP has all the
client sent acknowledged (what a retransmission timeout would delay;
the CGI's own time does not count in it), the time until the last
answer, and the client's own TCP retransmissions and the data segments the
body's end took (TCP_INFO).  Prints one line per round and a summary
"MODE ack_ms=... median_ms=... max_ms=... retrans=... segs=..." (medians
of the rounds; segs summed); exits 1 on any mismatch.
"""

import argparse
import os
import socket
import statistics
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import l7http  # noqa: E402
from l7http import Mismatch  # noqa: E402

# struct tcp_info (include/uapi/linux/tcp.h): byte offsets of u32 fields
TI_UNACKED = 24
TI_TOTAL_RETRANS = 100
TI_DATA_SEGS_OUT = 156
TI_LEN = 160

BODY = 1000	# bytes of each POST body
FIRST = 600	# ... sent with its head


def tcp_info(sock, off):
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
    if len(info) < TI_LEN:
        raise Mismatch("TCP_INFO too short: %d bytes" % len(info))
    return struct.unpack_from("I", info, off)[0]


def wait_acked(sock):
    """Until TCP has everything sent acknowledged (10 s at most)."""
    deadline = time.time() + 10
    while tcp_info(sock, TI_UNACKED):
        if time.time() > deadline:
            raise Mismatch("not acknowledged in 10 s")
        time.sleep(0.001)


def body_of(r):
    return bytes((r * 131 + i * 7 + (i >> 8)) & 0xff for i in range(BODY))


def post_parts(host, r, chunked):
    """(first send, body's end, the body the echo must return)"""
    body = body_of(r)
    if not chunked:
        head = ("POST /cgi-bin/echo?r=%d HTTP/1.1\r\nHost: %s\r\n"
                "Content-Length: %d\r\n\r\n" % (r, host, BODY)).encode()
        return head + body[:FIRST], body[FIRST:], body
    head = ("POST /cgi-bin/echo?r=%d HTTP/1.1\r\nHost: %s\r\n"
            "Transfer-Encoding: chunked\r\n\r\n" % (r, host)).encode()
    wire = b"%x\r\n" % BODY + body
    split = len(wire) - (BODY - FIRST)
    return head + wire[:split], wire[split:] + b"\r\n0\r\n\r\n", body


def get_head(host, path):
    return ("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (path, host)).encode()


def check_post(f, r, body):
    status, headers, got = l7http.read_response(f, "POST")
    if status != 200 or got != body:
        raise Mismatch("round %d: POST answer %d, %d bytes, %s" %
                       (r, status, len(got),
                        "exact" if got == body else "differs"))


def check_get(f, checker, path):
    status, headers, got = l7http.read_response(f)
    if status != 200:
        raise Mismatch("%s: status %d" % (path, status))
    return checker.check(path, headers.get("x-backend"), got)


def round_trip(sock, f, host, mode, r, checker):
    """One round: (ack ms, answer ms, retransmits, segments of the end)."""
    first, tail, body = post_parts(host, r, mode == "chunked")
    gets = ["/static/1k.bin?r=%d" % r]
    if mode == "piped":
        gets.append("/static/10k.bin?r=%d" % r)
    sock.sendall(first)
    wait_acked(sock)
    retrans = tcp_info(sock, TI_TOTAL_RETRANS)
    segs = tcp_info(sock, TI_DATA_SEGS_OUT)
    t0 = time.monotonic()
    heads = b"".join(get_head(host, p) for p in gets)
    if mode == "apart":
        sock.sendall(tail)
        segs = tcp_info(sock, TI_DATA_SEGS_OUT) - segs
        wait_acked(sock)
        ack_ms = (time.monotonic() - t0) * 1000
        check_post(f, r, body)
        sock.sendall(heads)
    elif mode == "two":
        sock.sendall(tail)
        segs = tcp_info(sock, TI_DATA_SEGS_OUT) - segs
        sock.sendall(heads)
    elif mode == "fin":
        if sock.send(tail + heads, socket.MSG_MORE) != len(tail + heads):
            raise Mismatch("short send")
        sock.shutdown(socket.SHUT_WR)
        segs = tcp_info(sock, TI_DATA_SEGS_OUT) - segs
    else:
        if sock.send(tail + heads) != len(tail + heads):
            raise Mismatch("short send")
        segs = tcp_info(sock, TI_DATA_SEGS_OUT) - segs
    if mode != "apart":
        wait_acked(sock)	# the answers wait in the socket meanwhile
        ack_ms = (time.monotonic() - t0) * 1000
        check_post(f, r, body)
    backends = [check_get(f, checker, p) for p in gets]
    if mode == "fin" and f.read(1) != b"":
        raise Mismatch("bytes after the last answer")
    ms = (time.monotonic() - t0) * 1000
    retrans = tcp_info(sock, TI_TOTAL_RETRANS) - retrans
    print("round %d: acked in %.1f ms, answered in %.1f ms, %d retransmits, "
          "%d segment(s), GET from %s" %
          (r, ack_ms, ms, retrans, segs, " ".join(backends)))
    return ack_ms, ms, retrans, segs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("mode", choices=["apart", "joined", "two", "piped",
                                     "chunked", "fin"])
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()
    rounds = 1 if args.mode == "fin" else args.rounds
    checker = l7http.Checker()
    sock = l7http.connect(args.host)
    f = sock.makefile("rb")
    acks, times, retrans, segs = [], [], 0, 0
    try:
        for r in range(rounds):
            a, ms, n, s = round_trip(sock, f, args.host, args.mode, r,
                                     checker)
            acks.append(a)
            times.append(ms)
            retrans += n
            segs += s
    except (OSError, ValueError, Mismatch) as e:
        print("FAILED: %s: %s" % (type(e).__name__, e))
        return 1
    finally:
        sock.close()
    print("%s ack_ms=%.1f median_ms=%.1f max_ms=%.1f retrans=%d segs=%d" %
          (args.mode, statistics.median(acks), statistics.median(times),
           max(times), retrans, segs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
