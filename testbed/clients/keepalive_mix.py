#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""keepalive_mix.py HOST [--requests N] [--seed S]: N (default 200) mixed
requests on ONE keep-alive connection, every answer checked byte for byte:

  GET of every static size (sha256 against www/SHA256SUMS), HEAD (headers
  of the GET, no body), a conditional GET answered 304 (If-None-Match with
  the ETag of an earlier answer), a 204 (/cgi-bin/status?code=204), chunked
  answers (/cgi-bin/chunked?n=N, /cgi-bin/burn), POST to /cgi-bin/echo with
  bodies of 0 B, 1 B, 64 KB and 1 MB sent with Content-Length and chunked,
  and a POST with "Expect: 100-continue" whose body is sent only once the
  interim 100 has arrived (written by hand on the same socket, since
  http.client does not wait for 100 itself).

Each kind comes at least once, then cheaper ones fill up to N, in a
shuffled (seeded) order.  The connection must never be reopened: the
socket object and its local port stay the same from first to last.
Prints per-backend counts; exits 1 at the first wrong answer.
"""

import argparse
import collections
import http.client
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import l7http  # noqa: E402
from l7http import Mismatch  # noqa: E402

STATIC = ["/static/1k.bin", "/static/10k.bin", "/static/100k.bin", "/static/1m.bin"]
BODY_SIZES = [0, 1, 65536, 1 << 20]


class Mix:
    def __init__(self, host, seed):
        self.host = host
        self.rng = random.Random(seed)
        self.checker = l7http.Checker()
        www = l7http.www_dir()
        self.sizes = {p: os.path.getsize(os.path.join(www, p[1:])) for p in STATIC}
        self.bodies = {n: self.rng.randbytes(n) for n in BODY_SIZES}
        self.conn = http.client.HTTPConnection(host, timeout=l7http.TIMEOUT)
        self.sock = None
        self.port = None
        self.etag = {}
        self.served = collections.Counter()
        self.kinds = collections.Counter()

    # every request goes through here: same socket, X-Backend, status
    def exchange(self, method, path, body=None, headers=None, chunked=False):
        self.conn.request(method, path, body=body, headers=headers or {},
                          encode_chunked=chunked)
        self.same_socket()
        resp = self.conn.getresponse()
        data = resp.read()
        self.same_socket()
        backend = resp.getheader("X-Backend")
        if backend is None:
            raise Mismatch("%s %s: no X-Backend" % (method, path))
        self.served[backend] += 1
        return resp, data, backend

    def same_socket(self):
        s = self.conn.sock
        if s is None:
            raise Mismatch("the server closed the connection")
        if self.sock is None:
            self.sock, self.port = s, s.getsockname()[1]
        elif s is not self.sock or s.getsockname()[1] != self.port:
            raise Mismatch("the connection was reopened")

    def expect_status(self, resp, want, what):
        if resp.status != want:
            raise Mismatch("%s: status %d, expected %d" % (what, resp.status, want))

    # ---- the kinds of request ----

    def get_static(self, path):
        resp, data, b = self.exchange("GET", path)
        self.expect_status(resp, 200, "GET " + path)
        self.checker.check(path, b, data)
        if resp.getheader("ETag"):
            self.etag[path] = resp.getheader("ETag")

    def head(self, path):
        resp, data, b = self.exchange("HEAD", path)
        self.expect_status(resp, 200, "HEAD " + path)
        if data or int(resp.getheader("Content-Length", -1)) != self.sizes[path]:
            raise Mismatch("HEAD %s from %s: %d body bytes, Content-Length %s"
                           % (path, b, len(data), resp.getheader("Content-Length")))

    def not_modified(self, path):
        if path not in self.etag:
            self.get_static(path)
        resp, data, b = self.exchange("GET", path,
                                      headers={"If-None-Match": self.etag[path]})
        self.expect_status(resp, 304, "conditional GET " + path)
        if data:
            raise Mismatch("304 from %s with %d body bytes" % (b, len(data)))

    def no_content(self):
        resp, data, b = self.exchange("GET", "/cgi-bin/status?code=204")
        self.expect_status(resp, 204, "GET status?code=204")
        if data:
            raise Mismatch("204 from %s with %d body bytes" % (b, len(data)))

    def cgi(self, path):
        resp, data, b = self.exchange("GET", path)
        self.expect_status(resp, 200, "GET " + path)
        # Apache chunks a CGI answer unless the whole of it came at once
        if "chunked" in (resp.getheader("Transfer-Encoding") or ""):
            self.kinds["(chunked)"] += 1
        self.checker.check(path, b, data)

    def post(self, size, chunked):
        what = "POST %d B %s" % (size, "chunked" if chunked else "Content-Length")
        body = self.bodies[size]
        if chunked:
            # odd-sized chunks: an iterable body is sent chunked
            send = iter([body[i:i + 7919] for i in range(0, size, 7919)])
            headers = {"Content-Type": "application/octet-stream",
                       "Transfer-Encoding": "chunked"}
        else:
            send = body
            headers = {"Content-Type": "application/octet-stream",
                       "Content-Length": str(size)}
        resp, data, b = self.exchange("POST", "/cgi-bin/echo", body=send,
                                      headers=headers, chunked=chunked)
        self.expect_status(resp, 200, what)
        if data != body:
            raise Mismatch("%s from %s: %d bytes back, differ at %d" % (
                what, b, len(data),
                next((i for i, (x, y) in enumerate(zip(data, body)) if x != y),
                     min(len(data), len(body)))))

    def post_expect_continue(self, size):
        """Head with Expect: 100-continue, wait for 100, then the body."""
        self.same_socket()
        sock = self.conn.sock
        body = self.bodies[size]
        sock.sendall(("POST /cgi-bin/echo HTTP/1.1\r\nHost: %s\r\n"
                      "Content-Type: application/octet-stream\r\n"
                      "Content-Length: %d\r\nExpect: 100-continue\r\n\r\n"
                      % (self.host, size)).encode())
        # read the interim answer byte by byte: nothing may be read past it
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            c = sock.recv(1)
            if not c:
                raise Mismatch("closed while waiting for 100 Continue")
            head += c
            if len(head) > 8192:
                raise Mismatch("no end of head: %r" % head[:200])
        if not head.startswith(b"HTTP/1.1 100 "):
            raise Mismatch("expected 100 Continue, got %r" % head[:200])
        sock.sendall(body)
        resp = http.client.HTTPResponse(sock, method="POST")
        resp.begin()
        data = resp.read()
        resp.close()
        if resp.will_close:
            raise Mismatch("100-continue POST answered with Connection: close")
        self.same_socket()
        b = resp.getheader("X-Backend")
        self.served[b] += 1
        self.expect_status(resp, 200, "POST 100-continue")
        if data != body:
            raise Mismatch("100-continue POST of %d B from %s: %d bytes back"
                           % (size, b, len(data)))

    def plan(self, n):
        every = [("get", p) for p in STATIC] + [("head", p) for p in STATIC]
        every += [("304", "/static/10k.bin"), ("304", "/static/1k.bin"), ("204", None),
                  ("cgi", "/cgi-bin/chunked?n=50"), ("cgi", "/cgi-bin/chunked?n=1"),
                  ("cgi", "/cgi-bin/burn?iters=10")]
        every += [("post", (s, c)) for s in BODY_SIZES for c in (False, True)]
        every += [("continue", 65536), ("continue", 1)]
        cheap = [("get", p) for p in STATIC[:3]] + [("head", STATIC[3])]
        cheap += [("304", "/static/100k.bin"), ("204", None),
                  ("cgi", "/cgi-bin/chunked?n=7"), ("cgi", "/cgi-bin/burn?iters=10")]
        cheap += [("post", (s, c)) for s in BODY_SIZES[:3] for c in (False, True)]
        cheap += [("continue", 1)]
        todo = list(every)
        while len(todo) < n:
            todo.append(self.rng.choice(cheap))
        self.rng.shuffle(todo)
        return todo

    def run(self, n):
        for i, (kind, arg) in enumerate(self.plan(n)):
            try:
                if kind == "get":
                    self.get_static(arg)
                elif kind == "head":
                    self.head(arg)
                elif kind == "304":
                    self.not_modified(arg)
                elif kind == "204":
                    self.no_content()
                elif kind == "cgi":
                    self.cgi(arg)
                elif kind == "post":
                    self.post(*arg)
                else:
                    self.post_expect_continue(arg)
            except (OSError, http.client.HTTPException, ValueError) as e:
                raise Mismatch("request %d (%s %s): %s: %s"
                               % (i, kind, arg, type(e).__name__, e)) from e
            except Mismatch as e:
                raise Mismatch("request %d (%s %s): %s" % (i, kind, arg, e)) from e
            self.kinds[kind] += 1
        if not self.kinds["(chunked)"]:
            raise Mismatch("no answer came chunked")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("host")
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--seed", type=int, default=4)
    args = ap.parse_args()
    mix = Mix(args.host, args.seed)
    rc = 0
    try:
        mix.run(args.requests)
    except Mismatch as e:
        print("FAILED: %s" % e)
        rc = 1
    print("answers %d on one connection (local port %s): %s" % (
        sum(mix.served.values()), mix.port,
        " ".join("%s %d" % kv for kv in sorted(mix.kinds.items()))))
    for b in sorted(mix.served):
        print("backend %s %d" % (b, mix.served[b]))
    return rc


if __name__ == "__main__":
    sys.exit(main())
