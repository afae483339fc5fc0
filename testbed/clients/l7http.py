# SPDX-License-Identifier: GPL-2.0
"""Shared pieces of the testbed's HTTP clients (Python 3 stdlib only).

What the testbed serves (testbed/apache) and how to tell that an answer
is right, byte for byte:
  /static/NAME.bin          sha256 listed in www/SHA256SUMS
  /cgi-bin/burn?iters=N     "backend=sN iters=N mix=<16 hex>\\n", the mix a
                            function of N only
  /cgi-bin/chunked?n=N      N lines "line I of N from sN\\n"
  /cgi-bin/echo             the request body
and every answer names its backend in the X-Backend header.
"""

import hashlib
import os
import re
import socket
import time

TIMEOUT = 120  # seconds; the guest is emulated and ~30x slower than metal

BURN_RE = re.compile(rb"^backend=(s[0-9]+) iters=([0-9]+) mix=([0-9a-f]{16})\n$")


class Mismatch(Exception):
    """An answer that is not what the testbed serves."""


def www_dir(arg=None):
    """The build's www directory (static files and their sizes)."""
    if arg:
        return arg
    here = os.path.dirname(os.path.abspath(__file__))
    build = os.environ.get("L7_BUILD", os.path.join(here, "..", "..", "build"))
    return os.path.join(build, "www")


def load_digests(sums):
    """{"/static/1k.bin": hexdigest, ...} from a SHA256SUMS file."""
    out = {}
    with open(sums) as f:
        for line in f:
            digest, name = line.split()
            out["/" + name] = digest
    return out


def sums_path():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "..", "www", "SHA256SUMS")


def burn_mix(iters):
    """The mix value /cgi-bin/burn prints for ITERS (its loop, in Python)."""
    m = (1 << 64) - 1
    x = 0x9E3779B97F4A7C15
    for _ in range(iters * 1000):
        x ^= x >> 31
        x = (x * 0xBF58476D1CE4E5B9) & m
        x ^= x >> 29
    return "%016x" % x


def query(path, key):
    if "?" not in path:
        return None
    for kv in path.split("?", 1)[1].split("&"):
        k, _, v = kv.partition("=")
        if k == key:
            return v
    return None


class Checker:
    """Checks a 200 answer to GET PATH; returns the backend that sent it."""

    def __init__(self, sums=None):
        self.digests = load_digests(sums or sums_path())
        self.mixes = {}

    def check(self, path, backend, body):
        base = path.split("?", 1)[0]
        if backend is None or not re.match(r"^s[0-9]+$", backend):
            raise Mismatch("%s: X-Backend %r" % (path, backend))
        if base in self.digests:
            got = hashlib.sha256(body).hexdigest()
            if got != self.digests[base]:
                raise Mismatch("%s from %s: %d bytes, sha256 %s"
                               % (path, backend, len(body), got))
        elif base == "/cgi-bin/burn":
            iters = int(query(path, "iters") or 1000)
            m = BURN_RE.match(body)
            if not m:
                raise Mismatch("%s from %s: body %r" % (path, backend, body[:200]))
            if m.group(1).decode() != backend or int(m.group(2)) != iters:
                raise Mismatch("%s: X-Backend %s, body %r" % (path, backend, body))
            if iters not in self.mixes:
                self.mixes[iters] = burn_mix(iters) if iters <= 200 else m.group(3).decode()
            if m.group(3).decode() != self.mixes[iters]:
                raise Mismatch("%s from %s: mix %s, expected %s"
                               % (path, backend, m.group(3).decode(), self.mixes[iters]))
        elif base == "/cgi-bin/chunked":
            n = int(query(path, "n") or 16)
            want = "".join("line %d of %d from %s\n" % (i, n, backend)
                           for i in range(n)).encode()
            if body != want:
                raise Mismatch("%s from %s: %d bytes, expected %d"
                               % (path, backend, len(body), len(want)))
        return backend


# ---- a raw HTTP/1.1 response reader, for pipelining and 100-continue ----

def read_line(f):
    line = f.readline(65537)
    if not line:
        raise Mismatch("connection closed while reading a response head")
    if not line.endswith(b"\r\n"):
        raise Mismatch("bad line %r" % line[:200])
    return line[:-2]


def read_head(f):
    """(status, {lower-case name: value}) of the next response head."""
    status_line = read_line(f)
    parts = status_line.split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1."):
        raise Mismatch("bad status line %r" % status_line[:200])
    status = int(parts[1])
    headers = {}
    while True:
        line = read_line(f)
        if not line:
            return status, headers
        name, _, value = line.partition(b":")
        headers[name.strip().lower().decode()] = value.strip().decode()


def read_exact(f, n):
    data = f.read(n)
    if len(data) != n:
        raise Mismatch("connection closed after %d of %d body bytes" % (len(data), n))
    return data


def read_body(f, method, status, headers):
    """The body of a response (HEAD, 1xx, 204 and 304 have none)."""
    if method == "HEAD" or status < 200 or status in (204, 304):
        return b""
    if "chunked" in headers.get("transfer-encoding", "").lower():
        out = []
        while True:
            size = int(read_line(f).split(b";")[0].strip(), 16)
            if size == 0:
                while read_line(f):  # trailers
                    pass
                return b"".join(out)
            out.append(read_exact(f, size))
            if read_line(f) != b"":
                raise Mismatch("chunk not followed by CRLF")
    if "content-length" in headers:
        return read_exact(f, int(headers["content-length"]))
    return f.read()  # close-delimited


def read_response(f, method="GET"):
    """(status, headers, body) of the next final response; 1xx skipped."""
    while True:
        status, headers = read_head(f)
        if status >= 200 or status == 101:
            return status, headers, read_body(f, method, status, headers)


def connect(host, port=80):
    s = socket.create_connection((host, port), timeout=TIMEOUT)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def connect_from(host, sport, timeout, port=80, rcvbuf=0):
    """A connection from local port @sport, which a test routes by;
    @rcvbuf: its receive buffer, set before the handshake."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.bind(("", sport))
    s.settimeout(timeout)
    s.connect((host, port))
    return s


def now():
    return time.time()
