#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hostile_client.py SCENARIO [options]: a TCP peer made of raw packets, for
testing what the director does with segments no kernel would send.

It does its own handshake and then sends segments with any seq, flags,
option bytes and payload, and reads what comes back through a scapy
sniffer on the interface (BPF-filtered to the connection).  Segments are
built here byte by byte (header, options, checksum) and sent on a raw
IPPROTO_TCP socket, so the kernel adds only the IP header.  The local
kernel knows nothing of the connection and would answer the peer's
segments with RST: run it from ports 61000-61999 and drop the kernel's
bare RSTs from those ports (testbed/tests/hostile.sh does, with nft); the
RSTs this script sends carry ACK and pass.

Every wait is bounded.  Scenarios (client side unless said):

  smuggle-body   a chunked body segment with malformed options, then the
                 same sequence range again with other bytes that end the
                 body and carry a CONNECT the director would refuse
  head-resend    a request head, then once the director has acknowledged
                 it, the same range again with a CONNECT of equal length
  fin-badopt     a FIN with malformed options inside a chunked body, then
                 the rest of the body and a CONNECT after it
  body-error     head and a chunked body with an invalid chunk-size line
                 in one segment
  pin            hundreds of pipelined GETs, and an ACK that never
                 acknowledges a response byte
  forge-rst      (backend namespace) wait for a server's data segment to
                 the director, then forge RSTs on that connection at
                 given offsets from the director's rcv_nxt

Prints what the peer sent back as "key: value" lines: statuses of the
complete responses, whether the connection was reset or closed.
"""

import argparse
import os
import queue
import random
import socket
import struct
import sys
import threading
import time

from scapy.all import AsyncSniffer, IP, TCP  # noqa: E402

from rawnet import csum, next_response  # noqa: E402

FIN, SYN, RST, PSH, ACK, URG = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20
M32 = 0xFFFFFFFF

# Option areas the director must not frame and then drop: a timestamp
# option of length 9, and one whose length runs past the header.
BAD_OPTS = {
    "ts9": bytes([8, 9]) + bytes(7) + bytes(3),
    "past": bytes([1, 1, 8, 10, 0, 0, 0, 1]),
}


def segment(src, dst, sport, dport, seq, ack, flags, win, opts=b"",
            payload=b""):
    """A TCP segment as bytes, checksum included; opts padded with EOL."""
    opts = opts + bytes(-len(opts) % 4)
    hdr = struct.pack("!HHIIBBHHH", sport, dport, seq & M32, ack & M32,
                      (20 + len(opts)) // 4 << 4, flags, win, 0, 0) + opts
    seg = hdr + payload
    pseudo = socket.inet_aton(src) + socket.inet_aton(dst) + \
        struct.pack("!BBH", 0, socket.IPPROTO_TCP, len(seg))
    c = csum(pseudo + seg)
    return seg[:16] + struct.pack("!H", c) + seg[18:]


def local_addr(dst):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect((dst, 9))
        return s.getsockname()[0]
    finally:
        s.close()


def payload_of(pkt):
    """A captured segment's payload, without link-layer padding."""
    ip, t = pkt[IP], pkt[TCP]
    n = ip.len - ip.ihl * 4 - t.dataofs * 4
    return bytes(t.payload)[:max(n, 0)]


def ts_of(t):
    for o in t.options:
        if o[0] == "Timestamp":
            return o[1]
    return None


class Conn:
    """One client connection to dst:dport, driven by hand."""

    def __init__(self, dst, dport, iface, sport=None):
        self.dst, self.dport, self.iface = dst, dport, iface
        self.src = local_addr(dst)
        self.sport = sport or random.randint(61000, 61999)
        self.iss = random.getrandbits(32)
        self.snd_nxt = (self.iss + 1) & M32
        self.peer_ack = self.iss
        self.irs = None
        self.rx = bytearray()		# in-order payload from the peer
        self.ooo = {}			# relative offset -> bytes
        self.got_fin = False
        self.got_rst = False
        self.freeze_ack = False		# never acknowledge payload
        self.peer_ts = 0
        self.q = queue.Queue()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                                  socket.IPPROTO_TCP)
        started = threading.Event()
        self.sniffer = AsyncSniffer(
            iface=iface, store=False, prn=self.q.put,
            filter="tcp and src host %s and src port %d and dst port %d" %
            (dst, dport, self.sport),
            started_callback=started.set)
        self.sniffer.start()
        if not started.wait(60):
            raise SystemExit("sniffer did not start")

    # ---- sending ----

    def tsval(self):
        return int(time.monotonic() * 1000) & M32

    def ts_opt(self):
        return bytes([1, 1, 8, 10]) + struct.pack("!II", self.tsval(),
                                                  self.peer_ts)

    def ack_value(self):
        if self.irs is None:
            return 0
        if self.freeze_ack:
            return self.irs + 1
        return self.irs + 1 + len(self.rx) + self.got_fin

    def raw(self, flags, seq, payload=b"", opts=None, ack=None, win=65535):
        if opts is None:
            opts = self.ts_opt()
        if ack is None:
            ack = self.ack_value()
        seg = segment(self.src, self.dst, self.sport, self.dport, seq, ack,
                      flags, win, opts, payload)
        self.sock.sendto(seg, (self.dst, 0))

    def send(self, data, flags=PSH | ACK, opts=None, seq=None):
        """Send data at seq (default snd_nxt) and advance snd_nxt past it."""
        seq = self.snd_nxt if seq is None else seq
        self.raw(flags, seq, data, opts)
        end = (seq + len(data) + (1 if flags & FIN else 0)) & M32
        if ((end - self.snd_nxt) & M32) < 1 << 31:
            self.snd_nxt = end

    def abort(self):
        """RST where the peer is, and where we are (one of them exact)."""
        self.raw(RST | ACK, self.peer_ack, opts=b"")
        if self.snd_nxt != self.peer_ack:
            self.raw(RST | ACK, self.snd_nxt, opts=b"")

    def open(self, timeout=30):
        syn_opts = struct.pack("!BBH", 2, 4, 1460) + bytes([4, 2]) + \
            bytes([8, 10]) + struct.pack("!II", self.tsval(), 0) + \
            bytes([1, 3, 3, 7])
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.raw(SYN, self.iss, opts=syn_opts, ack=0)
            p = self.wait_pkt(lambda t: t.flags & (SYN | ACK) == SYN | ACK,
                              min(1.0, deadline - time.monotonic()))
            if p is not None:
                t = p[TCP]
                self.irs = t.seq
                ts = ts_of(t)
                if ts:
                    self.peer_ts = ts[0]
                self.peer_ack = t.ack
                self.raw(ACK, self.snd_nxt)
                return
        raise SystemExit("no SYN-ACK from %s:%d" % (self.dst, self.dport))

    # ---- receiving ----

    def wait_pkt(self, pred, timeout):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                p = self.q.get(timeout=min(left, 0.2))
            except queue.Empty:
                continue
            if TCP in p and pred(p[TCP]):
                return p

    def take(self, p):
        """Account for one segment from the peer; True if news to ACK."""
        t = p[TCP]
        if t.flags & RST:
            self.got_rst = True
            return False
        if t.flags & ACK and ((t.ack - self.peer_ack) & M32) < 1 << 31:
            self.peer_ack = t.ack
        ts = ts_of(t)
        if ts:
            self.peer_ts = ts[0]
        if self.irs is None or t.flags & SYN:
            return False
        data = payload_of(p)
        off = (t.seq - self.irs - 1) & M32
        if off >= 1 << 31:
            return bool(data)	# old: ACK again
        news = False
        if data:
            self.ooo.setdefault(off, data)
            news = True
        while True:
            have = len(self.rx)
            hit = [o for o in self.ooo if o <= have < o + len(self.ooo[o])]
            if not hit:
                break
            o = hit[0]
            self.rx += self.ooo.pop(o)[have - o:]
        for o in [o for o in self.ooo if o + len(self.ooo[o]) <= len(self.rx)]:
            del self.ooo[o]
        if t.flags & FIN and not self.got_fin and \
                off + len(data) == len(self.rx):
            self.got_fin = True
            news = True
        return news or bool(data)

    def pump(self, timeout, until=lambda: False):
        """Read and acknowledge for up to timeout s, or until until()."""
        deadline = time.monotonic() + timeout
        while not until() and not self.got_rst:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                p = self.q.get(timeout=min(left, 0.1))
            except queue.Empty:
                continue
            if TCP in p and self.take(p) and not self.freeze_ack:
                self.raw(ACK, self.snd_nxt)
        return until()

    def acked(self):
        return self.peer_ack == self.snd_nxt

    def close(self):
        self.sniffer.stop()
        self.sock.close()


def responses(buf):
    """Statuses of the complete HTTP responses at the front of buf."""
    out, pos = [], 0
    while True:
        r = next_response(buf, pos)
        if r is None:
            return out
        out.append(r[1])
        pos = r[3]


def report(c):
    st = responses(c.rx)
    print("responses: %s" % (" ".join(map(str, st)) or "none"))
    print("bytes: %d" % len(c.rx))
    print("reset: %s" % ("yes" if c.got_rst else "no"))
    print("fin: %s" % ("yes" if c.got_fin else "no"))
    sys.stdout.flush()


def padded(start, end, length):
    """start + X-Pad bytes + end, exactly length bytes long."""
    pad = length - len(start) - len(end)
    if pad < 1:
        raise SystemExit("no room for %r in %d bytes" % (start, length))
    return start + b"p" * pad + end


def connect_req(tag):
    return b"CONNECT %s:443 HTTP/1.1\r\nHost: %s:443\r\nX-Pad: " % (tag, tag)


CHUNKED_POST = (b"POST /cgi-bin/echo?t=%s HTTP/1.1\r\nHost: h\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n")


def mark(a):
    """Tell the test script the scenario got where it waits for."""
    if a.mark and not os.path.exists(a.mark):
        open(a.mark, "w").close()


def head_taken(c, head, what):
    c.send(head)
    if not c.pump(15, c.acked):
        report(c)
        raise SystemExit("the director never acknowledged the %s" % what)


def smuggle_body(c, a):
    """A body segment framed and dropped, then resent with other bytes."""
    head_taken(c, CHUNKED_POST % b"SMUG1", "head")
    body = b"60\r\n" + b"h" * 0x60 + b"\r\n0\r\n\r\n"
    other = padded(b"0\r\n\r\n" + connect_req(b"SMUGGLED1"), b"\r\n\r\n",
                   len(body))
    seq = c.snd_nxt
    c.send(body, opts=c.ts_opt()[:2] + BAD_OPTS[a.badopt])
    c.pump(0.5)
    c.send(other, seq=seq)
    c.pump(a.wait)


def head_resend(c, a):
    """The director's copy of a head, and a different resend of it."""
    head = b"GET /static/1k.bin?t=ORIGINAL2 HTTP/1.1\r\nHost: h\r\n" \
        b"X-Pad: pppppppppppppppppppppppppppppp\r\n\r\n"
    other = padded(connect_req(b"SMUGGLED2"), b"\r\n\r\n", len(head))
    seq = c.snd_nxt
    head_taken(c, head, "head")
    c.pump(0.3)
    c.send(other, seq=seq)
    mark(a)
    c.pump(a.wait, lambda: responses(c.rx))


def fin_badopt(c, a):
    """A FIN the director sees and drops in the middle of a body."""
    head_taken(c, CHUNKED_POST % b"FIN3", "head")
    c.send(b"40\r\n" + b"f" * 32)
    c.pump(15, c.acked)
    c.raw(FIN | ACK, c.snd_nxt, opts=c.ts_opt()[:2] + BAD_OPTS[a.badopt])
    c.pump(0.5)
    c.send(b"f" * 32 + b"\r\n0\r\n\r\n" +
           connect_req(b"SMUGGLED3") + b"p\r\n\r\n")
    c.pump(a.wait)


def body_error(c, a):
    """Head and a body with a bad chunk-size line, in one segment."""
    c.send(CHUNKED_POST % b"BADCHUNK4" + b"5\r\nhello\r\nZZ\r\n")
    c.pump(a.wait, lambda: responses(c.rx) or c.got_fin)


def pin(c, a):
    """Pipelined GETs; the ACK never covers a response byte."""
    reqs = b"".join(b"GET /static/1k.bin?pin=%d HTTP/1.1\r\nHost: h\r\n\r\n"
                    % i for i in range(a.requests))
    c.freeze_ack = True
    base = (c.iss + 1) & M32
    deadline = time.monotonic() + a.wait
    while time.monotonic() < deadline and not c.got_rst and \
            not (a.stop and os.path.exists(a.stop)):
        off = (c.peer_ack - base) & M32
        # resend what the director has not taken, a few segments a round
        for i in range(off, min(off + 8 * 1400, len(reqs)), 1400):
            c.send(reqs[i:i + 1400], seq=base + i)
        mark(a)
        c.pump(0.5)
    print("pinned for: %.0f s" % (a.wait - (deadline - time.monotonic())))
    print("taken: %d of %d bytes" % ((c.peer_ack - base) & M32, len(reqs)))
    print("responses seen: %d" % bytes(c.rx).count(b"HTTP/1.1 "))


def forge_rst(a):
    """Backend side: RSTs on the first connection that carries a response."""
    me = local_addr(a.director)
    q = queue.Queue()
    started = threading.Event()
    sn = AsyncSniffer(
        iface=a.iface, store=False, prn=q.put, started_callback=started.set,
        filter="tcp and src port %d and dst host %s" % (a.port, a.director))
    sn.start()
    if not started.wait(60):
        raise SystemExit("sniffer did not start")
    if a.ready:
        open(a.ready, "w").close()
    dport, end, ack, deadline = None, None, 0, time.monotonic() + a.wait
    while time.monotonic() < deadline:
        try:
            p = q.get(timeout=0.2)
        except queue.Empty:
            if dport is not None:
                break	# the burst is over
            continue
        t = p[TCP]
        n = len(payload_of(p))
        if not n or (dport is not None and t.dport != dport):
            continue
        dport = t.dport
        e = (t.seq + n) & M32
        if end is None or ((e - end) & M32) < 1 << 31:
            end, ack = e, t.ack
    sn.stop()
    if dport is None:
        raise SystemExit("no data segment from port %d seen" % a.port)
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP)
    for off in a.offsets:
        seg = segment(me, a.director, a.port, dport, end + off, 0, RST, 0)
        s.sendto(seg, (a.director, 0))
        print("forged RST to %s:%d at rcv_nxt%+d" % (a.director, dport, off))
    s.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    ap.add_argument("host", nargs="?", default="198.51.100.1")
    ap.add_argument("--port", type=int, default=80)
    ap.add_argument("--iface", default="eth0")
    ap.add_argument("--badopt", choices=sorted(BAD_OPTS), default="ts9")
    ap.add_argument("--wait", type=float, default=4,
                    help="seconds to read answers (pin: to keep pinning)")
    ap.add_argument("--requests", type=int, default=300)
    ap.add_argument("--mark", help="file to create at the scenario's key point")
    ap.add_argument("--stop", help="pin: stop once this file exists")
    # forge-rst
    ap.add_argument("--director", default="192.0.2.1")
    ap.add_argument("--offsets", type=lambda s: [int(x) for x in s.split(",")],
                    default=[1 << 31])
    ap.add_argument("--ready", help="file to create once sniffing")
    a = ap.parse_args()

    if a.scenario == "forge-rst":
        forge_rst(a)
        return 0
    run = {
        "smuggle-body": smuggle_body,
        "head-resend": head_resend,
        "fin-badopt": fin_badopt,
        "body-error": body_error,
        "pin": pin,
    }.get(a.scenario)
    if not run:
        ap.error("unknown scenario %s" % a.scenario)
    c = Conn(a.host, a.port, a.iface)
    try:
        c.open()
        run(c, a)
        report(c)
        if not c.got_rst:
            c.abort()
    finally:
        c.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
