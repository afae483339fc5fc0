#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""l7route.py: clients for the content-routing suite (rules_route.sh),
Python 3 stdlib only.  Every answer is read with l7http's raw reader and
checked byte for byte (static files by sha256, /cgi-bin/echo by the body
sent, /cgi-bin/burn by its output); every request carries a tag in its
query ("t=TAG") so the suite can find it in the backends' access logs.

  l7route.py seq HOST TAG < REQUESTS
      the requests, one after another on ONE keep-alive connection; a
      line is "WANT METHOD PATH [HEADER...]", tab-separated: WANT the
      backends allowed to serve it ("s1" or "s1|s2"), HEADER "Name: value",
      or "body=N" for an N-byte body (POST/PUT to /cgi-bin/echo).
      Prints "TAG-N BACKEND" per request; exits 1 at the first wrong answer,
      wrong backend, or if the connection was not kept open.

  l7route.py raw HOST TAG < TARGETS
      each request-target (a line, sent as is, the tag appended to its
      query) in a GET of its own connection; prints "TAG-N STATUS BACKEND
      KIND" with BACKEND "-" for an answer without X-Backend (the
      director's) and KIND "cgi" when the body is /cgi-bin/burn's output.

  l7route.py keys HOST TAG PATH COOKIE VALUE...
      one connection per value, sequentially: GET PATH with "Cookie:
      COOKIE=VALUE" (COOKIE "-": no cookie, VALUE is a path instead);
      prints "VALUE BACKEND".

  l7route.py skew HOST TAG PATH COOKIE --conns C --requests M --hot P
      C keep-alive connections at once, M requests each; a request carries
      COOKIE=hot with probability P, else one of 1000 other values (seeded).
      Prints "BACKEND ALL HOT" per backend.

  l7route.py swap VIP:PORT SECONDS
      atomic replaces of the service's whole rule set (IPVS_L7_CMD_SET_RULESET,
      through l7nl.py) for SECONDS, alternating two sets that route every
      path differently: A sends /cgi-bin to s1+s2 (wlo) and /static to s3,
      B sends /cgi-bin to s3 (wrr) and /static to s1+s2 by hash of the
      path; both reject /admin.  Prints the number of replaces; the set
      in place at the end is A.
"""

import argparse
import collections
import hashlib
import os
import random
import re
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import l7http  # noqa: E402
from l7http import Mismatch  # noqa: E402


def tagged(path, tag):
    return path + ("&" if "?" in path else "?") + "t=" + tag


def request_bytes(method, target, host, headers=(), body=b""):
    lines = ["%s %s HTTP/1.1" % (method, target)]
    if not any(h.lower().startswith("host:") for h in headers):
        lines.append("Host: " + host)
    lines += list(headers)
    if body or method in ("POST", "PUT"):
        lines.append("Content-Length: %d" % len(body))
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def body_of(n, seq):
    """N deterministic bytes, different for every request."""
    out, i = b"", 0
    while len(out) < n:
        out += hashlib.sha256(b"%d.%d" % (seq, i)).digest()
        i += 1
    return out[:n]


def cmd_seq(args):
    checker = l7http.Checker()
    s = l7http.connect(args.host)
    f = s.makefile("rb")
    port = s.getsockname()[1]
    for n, line in enumerate(sys.stdin.read().splitlines(), 1):
        if not line.strip():
            continue
        want, method, path, *rest = line.split("\t")
        headers = [h for h in rest if not h.startswith("body=")]
        size = [int(h[5:]) for h in rest if h.startswith("body=")]
        body = body_of(size[0], n) if size else b""
        tag = "%s-%d" % (args.tag, n)
        target = tagged(path, tag)
        s.sendall(request_bytes(method, target, args.host, headers, body))
        status, hdrs, got = l7http.read_response(f, method)
        backend = hdrs.get("x-backend")
        where = "request %d (%s %s %s)" % (n, method, path, " ".join(headers))
        if status != 200:
            raise Mismatch("%s: status %d from %s" % (where, status, backend))
        if backend not in want.split("|"):
            raise Mismatch("%s: served by %s, want %s" % (where, backend, want))
        if path.startswith("/cgi-bin/echo"):
            if got != body:
                raise Mismatch("%s: echo of %d bytes came back as %d"
                               % (where, len(body), len(got)))
        elif method != "HEAD":
            # of an absolute-form target the checker wants the path
            checker.check(re.sub(r"^http://[^/]*", "", target), backend, got)
        if "close" in hdrs.get("connection", "").lower():
            raise Mismatch("%s: the director closed the connection" % where)
        print(tag, backend, flush=True)
    # the same connection from first to last: nothing was reopened
    if s.getsockname()[1] != port:
        raise Mismatch("local port changed")
    s.close()


def cmd_raw(args):
    for n, target in enumerate(sys.stdin.read().splitlines(), 1):
        if not target:
            continue
        tag = "%s-%d" % (args.tag, n)
        s = l7http.connect(args.host)
        f = s.makefile("rb")
        s.sendall(request_bytes("GET", tagged(target, tag), args.host))
        try:
            status, hdrs, body = l7http.read_response(f)
        except (Mismatch, OSError) as e:
            print(tag, "none", "-", "error:%s" % str(e).replace(" ", "_"))
            s.close()
            continue
        s.close()
        kind = "cgi" if l7http.BURN_RE.match(body) else "other"
        print(tag, status, hdrs.get("x-backend", "-"), kind, flush=True)


def get(host, target, headers):
    s = l7http.connect(host)
    f = s.makefile("rb")
    s.sendall(request_bytes("GET", target, host, headers))
    status, hdrs, _ = l7http.read_response(f)
    s.close()
    return status, hdrs.get("x-backend")


def cmd_keys(args):
    for n, value in enumerate(args.values, 1):
        tag = "%s-%d" % (args.tag, n)
        if args.cookie == "-":
            target, headers = tagged(value, tag), []
        else:
            target = tagged(args.path, tag)
            headers = ["Cookie: a=1; %s=%s" % (args.cookie, value)]
        _, backend = get(args.host, target, headers)
        print(value, backend, flush=True)


def cmd_skew(args):
    counts = collections.Counter()
    hot = collections.Counter()
    errors = []
    lock = threading.Lock()

    def conn(i):
        rnd = random.Random(1000 + i)
        checker = l7http.Checker()
        try:
            s = l7http.connect(args.host)
            f = s.makefile("rb")
            for j in range(args.requests):
                is_hot = rnd.random() < args.hot
                value = "hot" if is_hot else "k%d" % rnd.randrange(1000)
                target = tagged(args.path, "%s-%d-%d" % (args.tag, i, j))
                s.sendall(request_bytes("GET", target, args.host,
                                        ["Cookie: %s=%s" % (args.cookie, value)]))
                status, hdrs, body = l7http.read_response(f)
                if status != 200:
                    raise Mismatch("status %d" % status)
                backend = checker.check(target, hdrs.get("x-backend"), body)
                with lock:
                    counts[backend] += 1
                    hot[backend] += is_hot
            s.close()
        except (Mismatch, OSError) as e:
            with lock:
                errors.append("connection %d: %s" % (i, e))

    threads = [threading.Thread(target=conn, args=(i,)) for i in range(args.conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for b in sorted(counts):
        print(b, counts[b], hot[b])
    if errors:
        print("\n".join(errors), file=sys.stderr)
        sys.exit(1)


def cmd_swap(args):
    import l7nl
    key = l7nl.parse_vs(args.vs)
    s1, s2, s3 = ("192.0.2.11", 80), ("192.0.2.12", 80), ("192.0.2.13", 80)
    sets = [
        ({"cgi": ([s1, s2], l7nl.POLICY_WLO, None),
          "static": ([s3], l7nl.POLICY_WRR, None)}),
        ({"cgi": ([s3], l7nl.POLICY_WRR, None),
          "static": ([s1, s2], l7nl.POLICY_HASH, l7nl.HASH_URI)}),
    ]
    g = l7nl.Genl()
    n, end = 0, time.time() + args.seconds
    while True:
        pools = sets[n % 2]
        g.do(l7nl.CMD_SET_RULESET, key,
             l7nl.nest(l7nl.A_POOLS, *[
                 l7nl.nest(j + 1, *l7nl.pool_attrs(name, m, pol, hk))
                 for j, (name, (m, pol, hk)) in enumerate(sorted(pools.items()))]),
             l7nl.nest(l7nl.A_RULES,
                       l7nl.nest(1, *l7nl.rule_attrs(5, reject=403 + n % 2,
                                                     path="/admin", prefix=True)),
                       l7nl.nest(2, *l7nl.rule_attrs(10, pool="cgi",
                                                     path="/cgi-bin", prefix=True)),
                       l7nl.nest(3, *l7nl.rule_attrs(20, pool="static",
                                                     path="/static", prefix=True))))
        n += 1
        if n % 2 == 1 and time.time() >= end:
            break
    print(n)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("seq")
    p.add_argument("host")
    p.add_argument("tag")
    p.set_defaults(fn=cmd_seq)
    p = sub.add_parser("raw")
    p.add_argument("host")
    p.add_argument("tag")
    p.set_defaults(fn=cmd_raw)
    p = sub.add_parser("keys")
    p.add_argument("host")
    p.add_argument("tag")
    p.add_argument("path")
    p.add_argument("cookie")
    p.add_argument("values", nargs="+")
    p.set_defaults(fn=cmd_keys)
    p = sub.add_parser("skew")
    p.add_argument("host")
    p.add_argument("tag")
    p.add_argument("path")
    p.add_argument("cookie")
    p.add_argument("--conns", type=int, default=12)
    p.add_argument("--requests", type=int, default=50)
    p.add_argument("--hot", type=float, default=0.6)
    p.set_defaults(fn=cmd_skew)
    p = sub.add_parser("swap")
    p.add_argument("vs")
    p.add_argument("seconds", type=float)
    p.set_defaults(fn=cmd_swap)
    args = ap.parse_args()
    try:
        args.fn(args)
    except (Mismatch, OSError) as e:
        print("l7route: %s" % e, file=sys.stderr)
        sys.exit(1)
    except Exception as e:  # l7nl.NlError: the kernel refused
        print("l7route: %s" % e, file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
