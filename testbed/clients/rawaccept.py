#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""rawaccept.py DMAC REFPORT TEST...: forged segments with the tuple of a
live connection, which the director must treat as a Linux endpoint does
- change nothing, pass nothing on.  Each client-side TEST runs twice:
against the l7 service (VIP:80) and against a plain Linux listener on
VIP:REFPORT in the director's namespace (the reference, started by the
suite), each a keep-alive connection with timestamps written by hand
(rawtcp.Conn).  The next request on it must be answered with the same
bytes as before.  One line per TEST and target, "ok   TEST" or
"FAIL TEST: why" (the reference's lines say "TEST-linux").

Tests:
  ts-poison  four pure ACKs, seq X and X + 2^31, TSval Y and Y + 2^31,
             none in the window (RFC 7323 TS.Recent poisoning)
  zero-window  a pure ACK with a wrong seq announcing a zero window,
             while a POST waits for its body: the body, sent after the
             suite's ack_timeout, is echoed
  ack-past   during a response of 10 KB the client does not acknowledge,
             a pure ACK at the right seq acknowledging 2^30 bytes past
             it: on br0 no segment from the director to the server
             acknowledges any of the response before the client does
  idle-fin   (l7 only) from a server's namespace, a FIN and a data byte
             at wrong seqs to the director's end of a pooled connection
             idle after a request: it stays (still established at the
             server, no RST on br0, Closed unchanged in /proc)
  idle-acks  (l7 only) from a server's namespace, 50 segments in a
             second to the director's end of a pooled connection idle
             after a request, each one the director answers with an ACK
             when alone (a data byte 2^30 behind its rcv_nxt, a SYN):
             at most 3 ACKs on br0 (one per 500 ms, as Linux's
             tcp_oow_rate_limited()), and the connection stays
  srv-ts-poison  (l7 only) from the namespace of the server sending a
             10 KB response the client does not acknowledge yet, two
             pure ACKs at wrong seqs with a TSval 2^30 ahead: no segment
             from the director to a server echoes it, and the response
             and the next one are whole
  srv-syn    (l7 only) from the namespace of the server sending a 10 KB
             response, a SYN on its pooled connection: a challenge ACK
             to the server, nothing reset or forwarded, the response and
             the next one whole
"""

import random
import socket
import subprocess
import sys
import time

import l7proc
import rawtcp
from rawnet import netns
from rawtcp import (GW, IP, TCP, VIP, Capture, Conn, Fail, Peer,
                    payload_of)
from scapy.packet import Raw

GET = rawtcp.GET
GET10K = b"GET /static/10k.bin HTTP/1.1\r\nHost: h\r\n\r\n"


def forge(c, seq, ack, window=65535, tsval=None, flags="A"):
    """A segment with @c's tuple, built as @c builds its own."""
    opts = []
    if c.ts:
        opts = [("NOP", None), ("NOP", None),
                ("Timestamp", ((c.tsval() if tsval is None else tsval)
                               % 2**32, c.ts_recent))]
    c.peer.send(IP(src=c.peer.src, dst=VIP) /
                TCP(sport=c.sport, dport=c.dport, flags=flags,
                    seq=seq % 2**32, ack=ack % 2**32, window=window,
                    options=opts))


def body(c, req=GET):
    c.send(req)
    status, got = c.response()
    if b" 200 " not in status:
        raise Fail("%r answered %r" % (req.split(b"\r")[0], status))
    return got


def live(peer, dport):
    """A keep-alive connection with timestamps, one request done."""
    c = Conn(peer, dport=dport, ts=True)
    c.connect()
    return c, body(c)


def goes_on(c, before):
    """The next request on @c is answered, with the same bytes."""
    c.pump(1, lambda: False)        # take any challenge ACKs first
    after = body(c)
    if after != before:
        raise Fail("the next response differs: %d bytes, want %d" %
                   (len(after), len(before)))
    c.close()


def t_ts_poison(peer, dport):
    c, before = live(peer, dport)
    x, y = c.snd_nxt + 2**30, c.tsval() + 2**30
    for seq in (x, x + 2**31):
        for tsval in (y, y + 2**31):
            forge(c, seq, c.rcv_nxt, tsval=tsval)
    goes_on(c, before)


# longer than the suite's ack_timeout (6 s): a shut window with a request
# under way ends the connection (slow_reader) after that.  Tests that
# hold back their ACKs of a response (ACK_HOLD) do so for well under it.
STALL_WAIT = 8
ACK_HOLD = 2


def t_zero_window(peer, dport):
    c, before = live(peer, dport)
    c.send(b"POST /cgi-bin/echo HTTP/1.1\r\nHost: h\r\n"
           b"Content-Length: 10\r\n\r\n")
    forge(c, c.snd_nxt + 2**31, c.rcv_nxt, window=0)
    c.pump(STALL_WAIT, lambda: False)
    c.send(b"0123456789")
    status, got = c.response()
    if b" 200 " not in status or got != b"0123456789":
        raise Fail("echo after the forged window: %r %r" % (status, got))
    goes_on(c, before)


def acks_into_response(pkts):
    """Segments to a server on br0 that acknowledge bytes of the response
    it sent there (the largest one in @pkts)."""
    sent = {}
    for p in pkts:
        if TCP in p and p[TCP].sport == 80 and payload_of(p):
            key = (p[IP].src, p[TCP].dport)
            s = sent.setdefault(key, [p[TCP].seq, 0])
            s[1] += len(payload_of(p))
    if not sent:
        raise Fail("no response on br0")
    key, (start, _) = max(sent.items(), key=lambda kv: kv[1][1])
    return [p for p in pkts if TCP in p and p[IP].dst == key[0] and
            p[TCP].sport == key[1] and p[TCP].flags.A and
            0 < (p[TCP].ack - start) % 2**32 < 2**31]


def t_ack_past(peer, dport):
    c, _ = live(peer, dport)
    cap = Capture("accept-ack-past", "br0", "tcp port 80") \
        if dport == 80 else None
    try:
        c.ack_data = False
        c.seg("PA", GET10K)
        c.snd_nxt = (c.snd_nxt + len(GET10K)) % 2**32
        c.pump(ACK_HOLD, lambda: False)
        forge(c, c.snd_nxt, c.rcv_nxt + 2**30)
        c.pump(1, lambda: False)
    finally:
        pkts = cap.stop() if cap else []
    if cap:
        acks = acks_into_response(pkts)
        if acks:
            raise Fail("the director acknowledged the response to its "
                       "server before the client did: %s" %
                       acks[0].summary())
    c.ack_data = True
    c.seg("A")
    status, got = c.response()
    if b" 200 " not in status or len(got) != 10240:
        raise Fail("10k.bin: %r, %d bytes" % (status, len(got)))
    goes_on(c, body(c))


def backend_ns(addr):
    return "l7s" + addr.rsplit(".", 1)[1][-1]


def established(addr):
    """Ports of the director's end of the established connections to the
    server at @addr."""
    out = subprocess.run(["ip", "netns", "exec", backend_ns(addr), "ss",
                          "-Htn", "state", "established", "( sport = :80 )"],
                         capture_output=True, text=True).stdout
    return {int(line.split()[-1].rsplit(":", 1)[1])
            for line in out.splitlines() if line.strip()}


def served_pconn(peer, numbers=False):
    """(server, director's port) of a pooled connection that served a
    request and is idle again: only those are the splice's to judge (one
    never bound is its socket's).  @numbers: and the server's next seq
    and ACK on it, from its last segment with data."""
    for _ in range(4):
        cap = Capture("accept-idle-served", "br0", "tcp src port 80")
        try:
            c = Conn(peer, ts=True)
            c.connect()
            for _ in range(6):
                body(c)     # left open: a reset would end its bindings
        finally:
            pkts = cap.stop()
        served = {(p[IP].src, p[TCP].dport) for p in pkts
                  if TCP in p and payload_of(p)}
        for addr, lport in sorted(served):
            if lport not in established(addr):
                continue
            if not numbers:
                return addr, lport
            last = [p for p in pkts if TCP in p and payload_of(p) and
                    p[IP].src == addr and p[TCP].dport == lport][-1]
            return (addr, lport,
                    (last[TCP].seq + len(payload_of(last))) % 2**32,
                    last[TCP].ack)
    raise Fail("no pooled connection that served a request is left")


def pool_closed(addr):
    for row in l7proc.read()[1]:
        if row["RemoteAddress:Port"] == addr + ":80":
            return int(row["Closed"])
    raise Fail("no line for %s in /proc/net/ip_vs_l7" % addr)


def backend_raw_socket(addr):
    """A raw TCP socket in the namespace of the backend at @addr, to
    write segments from its side."""
    with netns(backend_ns(addr)):
        return socket.socket(socket.AF_INET, socket.SOCK_RAW,
                             socket.IPPROTO_TCP)


def pconn_kept(addr, lport, closed):
    """The pooled connection from @lport to @addr is still established,
    and the pool closed none since it counted @closed."""
    if lport not in established(addr):
        raise Fail("the pooled connection from port %d to %s is gone" %
                   (lport, addr))
    if pool_closed(addr) != closed:
        raise Fail("Closed went from %d to %d" % (closed, pool_closed(addr)))


def t_idle_fin(peer, dport):
    addr, lport = served_pconn(peer)
    closed = pool_closed(addr)
    sock = backend_raw_socket(addr)
    cap = Capture("accept-idle-fin", "br0", "tcp port %d" % lport)
    try:
        for flags, data in (("FA", b""), ("PA", b"X")):
            seg = IP(src=addr, dst=GW) / TCP(
                sport=80, dport=lport, flags=flags,
                seq=random.getrandbits(32), ack=random.getrandbits(32),
                window=502)
            if data:
                seg = seg / Raw(data)
            sock.sendto(bytes(seg)[20:], (GW, 0))
        time.sleep(1)
    finally:
        pkts = cap.stop()
    rsts = [p for p in pkts if TCP in p and p[TCP].flags.R]
    if rsts:
        raise Fail("the director reset it: %s" % rsts[0].summary())
    pconn_kept(addr, lport, closed)


IDLE_FORGED = 50
IDLE_ACKS_MAX = 3   # one at once, then one per 500 ms for about a second


def t_idle_acks(peer, dport):
    """Segments an idle pooled connection answers with an ACK, forged
    from its server's side: an old data byte (a resend, for all the
    director knows) and a SYN (a challenge), IDLE_FORGED of them spread
    over a second.  Each once drew an ACK to the server (N9)."""
    addr, lport, rcv_nxt, ack = served_pconn(peer, numbers=True)
    closed = pool_closed(addr)
    sock = backend_raw_socket(addr)
    cap = Capture("accept-idle-acks", "br0", "tcp port %d" % lport)
    try:
        segs = []
        for i in range(IDLE_FORGED):
            if i % 2:
                seg = IP(src=addr, dst=GW) / TCP(
                    sport=80, dport=lport, flags="S",
                    seq=random.getrandbits(32), window=502)
            else:
                seg = IP(src=addr, dst=GW) / TCP(
                    sport=80, dport=lport, flags="PA",
                    seq=(rcv_nxt - 2**30) % 2**32, ack=ack,
                    window=502) / Raw(b"X")
            segs.append(bytes(seg)[20:])
        t0 = time.monotonic()
        for i, seg in enumerate(segs):
            time.sleep(max(0.0, t0 + i / IDLE_FORGED - time.monotonic()))
            sock.sendto(seg, (GW, 0))
        spent = time.monotonic() - t0
        time.sleep(0.5)
    finally:
        pkts = cap.stop()
    acks = [p for p in pkts if TCP in p and p[IP].src == GW and
            p[TCP].sport == lport and p[TCP].flags.A and
            not p[TCP].flags.R and not payload_of(p)]
    print("note idle-acks: %d forged in %.2f s, %d ACKs from the director" %
          (IDLE_FORGED, spent, len(acks)), flush=True)
    if not acks:
        raise Fail("no ACK at all: the forged segments missed the "
                   "connection")
    if len(acks) > IDLE_ACKS_MAX:
        raise Fail("%d ACKs to %d forged segments, want at most %d" %
                   (len(acks), IDLE_FORGED, IDLE_ACKS_MAX))
    pconn_kept(addr, lport, closed)


def ts_of(p):
    for kind, val in p[TCP].options:
        if kind == "Timestamp":
            return val
    return None


def hold_response(c, cap):
    """A GET of 10k.bin on @c whose response the client does not
    acknowledge yet: the server's last segment of it seen on @cap, and a
    raw socket in that server's namespace to forge segments from its
    side."""
    c.ack_data = False
    c.seg("PA", GET10K)
    c.snd_nxt = (c.snd_nxt + len(GET10K)) % 2**32
    c.pump(ACK_HOLD, lambda: False)
    sent = [p for p in cap.packets() if TCP in p and
            p[TCP].sport == 80 and payload_of(p)]
    if not sent:
        raise Fail("no response on br0")
    last = sent[-1]
    with netns(backend_ns(last[IP].src)):
        sock = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                             socket.IPPROTO_TCP)
    return last, sock


def release_response(c):
    """The client acknowledges the held response: it arrives whole."""
    c.ack_data = True
    c.seg("A")
    status, got = c.response()
    if b" 200 " not in status or len(got) != 10240:
        raise Fail("10k.bin: %r, %d bytes" % (status, len(got)))
    c.pump(1, lambda: False)


def t_srv_ts_poison(peer, dport):
    """Segments forged from a server's side at wrong seqs, with a TSval
    far ahead, during a response: the director never echoes a TSval the
    server did not send (its TS.Recent moves only with an acceptable
    segment), and the response and the next one are whole."""
    c, _ = live(peer, dport)
    cap = Capture("accept-srv-ts", "br0", "tcp port 80")
    forged = set()
    try:
        last, sock = hold_response(c, cap)
        if not ts_of(last):
            raise Fail("no timestamps on the server's segments")
        addr, lport = last[IP].src, last[TCP].dport
        tsval = (ts_of(last)[0] + 2**30) % 2**32
        for off in (2**30, 2**31 + 2**30):
            forged.add(tsval)
            seg = IP(src=addr, dst=GW) / TCP(
                sport=80, dport=lport, flags="A",
                seq=(last[TCP].seq + off) % 2**32, ack=last[TCP].ack,
                window=502, options=[("NOP", None), ("NOP", None),
                                     ("Timestamp", (tsval, 0))])
            sock.sendto(bytes(seg)[20:], (GW, 0))
            tsval = (tsval + 1) % 2**32
        release_response(c)
    finally:
        pkts = cap.stop()
    echoed = [p for p in pkts if TCP in p and p[TCP].dport == 80 and
              ts_of(p) and ts_of(p)[1] in forged]
    if echoed:
        raise Fail("the director echoed a forged TSval to the server: %s" %
                   echoed[0].summary())
    goes_on(c, body(c))


def t_srv_syn(peer, dport):
    """A SYN forged from a server's side on the pooled connection serving
    a response: never forwarded, answered as Linux answers one on an
    established connection (RFC 5961 4.2: a challenge ACK, no RST), and
    the response and the next one are whole."""
    c, _ = live(peer, dport)
    cap = Capture("accept-srv-syn", "br0", "tcp port 80")
    try:
        last, sock = hold_response(c, cap)
        addr, lport = last[IP].src, last[TCP].dport
        # with the server's own newest TSval: a segment that fails PAWS
        # (or lacks the option the connection agreed) is dropped first
        ts = ts_of(last)
        opts = [("NOP", None), ("NOP", None), ("Timestamp", (ts[0], 0))] \
            if ts else []
        t0 = time.time()
        seg = IP(src=addr, dst=GW) / TCP(
            sport=80, dport=lport, flags="S",
            seq=random.getrandbits(32), window=502, options=opts)
        sock.sendto(bytes(seg)[20:], (GW, 0))
        time.sleep(0.5)
        t1 = time.time()
        release_response(c)
    finally:
        pkts = cap.stop()
    back = [p for p in pkts if TCP in p and p.time >= t0 and
            p[IP].src == GW and p[IP].dst == addr and
            p[TCP].sport == lport]
    if any(p[TCP].flags.R for p in back):
        raise Fail("the director reset the server's connection")
    # the client acknowledges nothing until t1: an ACK to the server
    # before then is the director's own, the challenge
    if not any(p[TCP].flags.A and not payload_of(p) and p.time < t1
               for p in back):
        raise Fail("no challenge ACK to the server's SYN")
    goes_on(c, body(c))


CLIENT_TESTS = {"ts-poison": t_ts_poison, "zero-window": t_zero_window,
                "ack-past": t_ack_past}
L7_TESTS = {"idle-fin": t_idle_fin, "idle-acks": t_idle_acks,
            "srv-ts-poison": t_srv_ts_poison, "srv-syn": t_srv_syn}


def main():
    tests = sys.argv[3:]
    if len(sys.argv) < 4 or any(t not in CLIENT_TESTS and t not in L7_TESTS
                                for t in tests):
        print(__doc__, file=sys.stderr)
        return 2
    peer = Peer(sys.argv[1])
    runs = [(t, 80, t) for t in tests]
    runs += [(t, int(sys.argv[2]), t + "-linux") for t in tests
             if t in CLIENT_TESTS]
    failed = 0
    for test, dport, name in runs:
        try:
            (CLIENT_TESTS.get(test) or L7_TESTS[test])(peer, dport)
            print("ok   %s" % name, flush=True)
        except Exception as e:  # a test's own failure or a broken client
            failed += 1
            print("FAIL %s: %s: %s" % (name, type(e).__name__, e),
                  flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
