#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""apache_heads.py HOST CASE... [--repeat N]: request heads on which Apache
2.4 would answer and close its connection (Python 3 stdlib only).

Each CASE is sent N times (default 1), each time on a new connection to
HOST:80 and in one send(), so that a chunk-size line after a head comes in
the head's segment; the answer is read to its end.  Prints one line per
CASE, "CASE STATUS STATUS ...", the status codes in order (0: no answer).

Refused by the director (400), as Apache would refuse them:
  cl-repeat     two Content-Length fields, equal
  cl-list       Content-Length: 5, 5
  cl-2e63       Content-Length: 2^63
  chunk-2e63    a chunk size of 2^63
  chunk-bws11   11 blanks after a chunk size
  blank-lines11 11 empty lines before the request line
  te-comma      Transfer-Encoding: chunked ,
Taken, and Apache keeps the connection:
  chunk-bws10, blank-lines10   the same with 10
  conn-close-x  Connection: close, x (the copy says only "x"; the director
                closes the client after the answer)
  expect-get    Expect: 100-continue on a GET (left out of the copy)
  expect-1.0    Expect: 100-continue on an HTTP/1.0 GET (left out too; not
                a POST: one to /cgi-bin/echo in HTTP/1.0 has its pooled
                connection retired with or without Expect)
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import l7http  # noqa: E402

GET = b"GET /static/1k.bin HTTP/1.1\r\nHost: h\r\n"
POST = b"POST /cgi-bin/echo HTTP/1.1\r\nHost: h\r\n"
CHUNKED = POST + b"Transfer-Encoding: chunked\r\n\r\n"

CASES = {
    "cl-repeat": POST + b"Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello",
    "cl-list": POST + b"Content-Length: 5, 5\r\n\r\nhello",
    "cl-2e63": POST + b"Content-Length: 9223372036854775808\r\n\r\nhello",
    "chunk-2e63": CHUNKED + b"8000000000000000\r\nhello",
    "chunk-bws11": CHUNKED + b"5" + b" " * 11 + b"\r\nhello\r\n0\r\n\r\n",
    "blank-lines11": b"\r\n" * 11 + GET + b"\r\n",
    "te-comma": POST + b"Transfer-Encoding: chunked ,\r\n\r\n"
                       b"5\r\nhello\r\n0\r\n\r\n",
    "chunk-bws10": CHUNKED + b"5" + b" " * 10 + b"\r\nhello\r\n0\r\n\r\n",
    "blank-lines10": b"\r\n" * 10 + GET + b"\r\n",
    "conn-close-x": GET + b"Connection: close, x\r\n\r\n",
    "expect-get": GET + b"Expect: 100-continue\r\n\r\n",
    "expect-1.0": b"GET /static/1k.bin HTTP/1.0\r\n"
                  b"Expect: 100-continue\r\n\r\n",
}


def status_of(host, data):
    """The status of the final answer to DATA, 0 if none came."""
    s = l7http.connect(host)
    try:
        s.sendall(data)
        f = s.makefile("rb")
        method = data.lstrip(b"\r\n").split(b" ", 1)[0].decode()
        status, _, _ = l7http.read_response(f, method)
        return status
    except (OSError, l7http.Mismatch):
        return 0
    finally:
        s.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("cases", nargs="+", choices=sorted(CASES))
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    for case in args.cases:
        codes = [status_of(args.host, CASES[case]) for _ in range(args.repeat)]
        print(case, *codes, flush=True)


if __name__ == "__main__":
    main()
