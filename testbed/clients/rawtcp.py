#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""rawtcp.py DMAC TEST: a client that writes its TCP segments by hand
(scapy), for what no socket API sends: urgent data, unknown options, SYN
on an open connection, RSTs at chosen sequence numbers, spoofed sources.
Runs in the client namespace; DMAC is the director's MAC on the client
link.  Exits 0 when the director behaved, else prints why and exits 1.

The client's own kernel knows nothing of these connections and would
reset them: the suite drops its RSTs from ports 40000-40999 with nft.

Tests:
  urgent    a POST to /cgi-bin/echo whose body has a segment with URG set
            and the urgent pointer inside it: the echo is the whole body
  options   the same with a TCP-MD5 option (kind 19, 18 bytes) and an
            unknown one (kind 99) on body segments; the capture on the
            backend link is checked by "pcap-options FILE"
  synfin    SYN+FIN to the VIP: no answer at all
  syn       SYN on an open connection: a challenge ACK at our snd_nxt,
            and the connection still serves a request
  rst-window    RSTs inside the window, not exact: one challenge ACK for
                three (rate limit), the connection lives
  rst-outside   RSTs outside the window (ahead and behind): no answer, the
                connection lives
  rst-exact     a RST at exactly the director's rcv_nxt: the connection
                is gone (the next segment on it gets a RST)
  martian   SYNs from 127.0.0.1, 224.0.0.1, 0.0.0.1, 255.255.255.255 and
            the client link's broadcast, then one from the client: the
            suite's capture must hold one SYN-ACK only
"""

import os
import random
import select
import sys
import time

os.environ.setdefault("HOME", "/tmp")
from scapy.all import (IP, TCP, Ether, Raw, conf, get_if_addr,  # noqa: E402
                       get_if_hwaddr, rdpcap)

conf.verb = 0
VIP = "198.51.100.1"
IFACE = "eth0"
GET = b"GET /index.html HTTP/1.1\r\nHost: h\r\n\r\n"


class Fail(Exception):
    pass


class Peer:
    """One L2 socket on the client link: frames out, the VIP's in."""

    def __init__(self, dmac):
        self.dmac = dmac
        self.smac = get_if_hwaddr(IFACE)
        self.src = get_if_addr(IFACE)
        self.sock = conf.L2socket(
            iface=IFACE, filter="tcp and src host %s and src port 80" % VIP)

    def send(self, pkt):
        self.sock.send(Ether(src=self.smac, dst=self.dmac) / pkt)

    def recv(self, timeout, match):
        """The first segment from the VIP that @match accepts, or None."""
        end = time.time() + timeout
        while True:
            left = end - time.time()
            if left <= 0:
                return None
            r, _, _ = select.select([self.sock], [], [], left)
            if not r:
                continue
            p = self.sock.recv()
            if p is not None and TCP in p and match(p):
                return p


class Conn:
    """A TCP connection to VIP:80 kept by hand: no TS, WS or SACK."""

    def __init__(self, peer):
        self.peer = peer
        self.sport = random.randint(40000, 40999)
        self.snd_nxt = random.getrandbits(32)
        self.rcv_nxt = 0
        self.acked = None
        self.data = b""
        self.fin = False

    def seg(self, flags, payload=b"", seq=None, options=(), urgptr=0):
        t = TCP(sport=self.sport, dport=80, flags=flags,
                seq=self.snd_nxt if seq is None else seq % 2**32,
                ack=self.rcv_nxt if "A" in flags else 0, window=65535,
                urgptr=urgptr, options=list(options))
        p = IP(src=self.peer.src, dst=VIP) / t
        if payload:
            p = p / Raw(payload)
        self.peer.send(p)

    def mine(self, p):
        return p[TCP].dport == self.sport

    def connect(self):
        self.seg("S", options=[("MSS", 1460)])
        sa = self.peer.recv(5, lambda p: self.mine(p) and
                            p[TCP].flags.S and p[TCP].flags.A)
        if sa is None:
            raise Fail("no SYN-ACK")
        self.snd_nxt += 1
        self.rcv_nxt = (sa[TCP].seq + 1) % 2**32
        self.seg("A")

    def take(self, p):
        """Note what a segment of ours says; ACK any data or FIN."""
        t = p[TCP]
        if t.flags.A and (self.acked is None or
                          (t.ack - self.acked) % 2**32 < 2**31):
            self.acked = t.ack
        payload = bytes(t.payload)
        if t.flags.R:
            return
        if payload and t.seq == self.rcv_nxt:
            self.data += payload
            self.rcv_nxt = (self.rcv_nxt + len(payload)) % 2**32
        if t.flags.F and (t.seq + len(payload)) % 2**32 == self.rcv_nxt:
            self.rcv_nxt = (self.rcv_nxt + 1) % 2**32
            self.fin = True
        if payload or t.flags.F:
            self.seg("A")

    def pump(self, timeout, done):
        """Take segments until done() or @timeout s; returns done()."""
        end = time.time() + timeout
        while not done():
            left = end - time.time()
            if left <= 0:
                break
            p = self.peer.recv(left, self.mine)
            if p is not None:
                self.take(p)
        return done()

    def send(self, payload, flags="PA", **kw):
        """Send @payload at snd_nxt and wait until it is acknowledged."""
        self.seg(flags, payload, **kw)
        self.snd_nxt = (self.snd_nxt + len(payload)) % 2**32
        if not self.pump(10, lambda: self.acked == self.snd_nxt):
            raise Fail("%d bytes never acknowledged (ack %s, snd_nxt %d)" %
                       (len(payload), self.acked, self.snd_nxt))

    def response(self, timeout=20):
        """The next whole HTTP response (Content-Length framed) as
        (status line, body)."""
        def whole():
            head, sep, rest = self.data.partition(b"\r\n\r\n")
            if not sep:
                return False
            for line in head.split(b"\r\n")[1:]:
                k, _, v = line.partition(b":")
                if k.strip().lower() == b"content-length":
                    return len(rest) >= int(v)
            return False
        if not self.pump(timeout, whole):
            raise Fail("no whole response in %d s; got %r" %
                       (timeout, self.data[:300]))
        head, _, rest = self.data.partition(b"\r\n\r\n")
        n = [int(line.partition(b":")[2]) for line in head.split(b"\r\n")
             if line.lower().startswith(b"content-length:")][0]
        self.data = rest[n:]
        return head.split(b"\r\n")[0], rest[:n]

    def get_ok(self):
        self.send(GET)
        status, _ = self.response()
        if b" 200 " not in status:
            raise Fail("GET answered %r" % status)

    def close(self):
        """Reset it, at exactly the director's rcv_nxt."""
        self.seg("RA")

    def expect_nothing(self, secs, what):
        p = self.peer.recv(secs, self.mine)
        if p is not None:
            raise Fail("%s answered: %s" % (what, p[TCP].summary()))

    def expect_challenge(self, what):
        p = self.peer.recv(3, self.mine)
        if p is None:
            raise Fail("%s: no challenge ACK" % what)
        t = p[TCP]
        if str(t.flags) != "A" or t.ack != self.snd_nxt or bytes(t.payload):
            raise Fail("%s: want a pure ACK of %d, got %s ack %d" %
                       (what, self.snd_nxt, t.flags, t.ack))


def body_of(n, seed):
    rnd = random.Random(seed)
    return bytes(rnd.choice(b"abcdefghijklmnopqrstuvwxyz0123456789")
                 for _ in range(n))


def echo_post(peer, parts, opts_of=lambda i: (), urg_of=lambda i: 0):
    """POST the body @parts, one segment each, to /cgi-bin/echo; the
    echo must be their concatenation."""
    body = b"".join(parts)
    c = Conn(peer)
    c.connect()
    c.send(b"POST /cgi-bin/echo HTTP/1.1\r\nHost: h\r\n"
           b"Content-Length: %d\r\n\r\n" % len(body))
    for i, part in enumerate(parts):
        urg = urg_of(i)
        c.send(part, options=opts_of(i), urgptr=urg,
               **({"flags": "PAU"} if urg else {}))
    status, got = c.response()
    c.close()
    if b" 200 " not in status or got != body:
        raise Fail("echo %r: %d bytes, want %d%s" %
                   (status, len(got), len(body),
                    "" if len(got) != len(body) else " (differ)"))


def t_urgent(peer):
    parts = [body_of(300, 1), body_of(100, 2), body_of(300, 3)]
    echo_post(peer, parts, urg_of=lambda i: 5 if i == 1 else 0)


MD5 = (19, bytes(range(0x40, 0x50)))     # kind 19, 18 bytes
UNKNOWN = (99, b"\x5a\x5a")
MARK = b"OPTMARK"


def t_options(peer):
    parts = [body_of(200, 4), MARK + body_of(193, 5), body_of(200, 6)]
    echo_post(peer, parts, opts_of=lambda i: (
        [MD5, UNKNOWN, ("NOP", None), ("NOP", None)] if i == 1 else
        [UNKNOWN, ("NOP", None), ("NOP", None)] if i == 2 else []))


def option_kinds(t):
    """Kinds present in a segment's raw option bytes, as Linux reads."""
    raw = bytes(t)[20:t.dataofs * 4]
    kinds, i = [], 0
    while i < len(raw):
        if raw[i] == 0:
            break
        if raw[i] == 1:
            i += 1
            continue
        if i + 1 >= len(raw) or raw[i + 1] < 2:
            break
        kinds.append(raw[i])
        i += raw[i + 1]
    return kinds


def t_pcap_options(path):
    """The marked body segment reached the backend link, without the
    MD5 or unknown option."""
    seen = 0
    for p in rdpcap(path):
        if TCP not in p or p[TCP].dport != 80:
            continue
        t = p[TCP]
        kinds = option_kinds(t)
        if 19 in kinds or 99 in kinds:
            raise Fail("forwarded with options %s: %s" % (kinds, p.summary()))
        if MARK in bytes(t.payload):
            seen += 1
    if not seen:
        raise Fail("the marked segment never reached the backend link")


def t_synfin(peer):
    c = Conn(peer)
    c.seg("SF", options=[("MSS", 1460)])
    c.expect_nothing(3, "SYN+FIN")
    c.connect()
    c.close()


def t_syn(peer):
    c = Conn(peer)
    c.connect()
    c.get_ok()
    c.seg("S", seq=c.snd_nxt + 12345, options=[("MSS", 1460)])
    c.expect_challenge("SYN on an open connection")
    c.get_ok()
    c.close()


def t_rst_window(peer):
    c = Conn(peer)
    c.connect()
    c.get_ok()
    c.seg("R", seq=c.snd_nxt + 1000)
    c.expect_challenge("RST 1000 ahead")
    c.seg("R", seq=c.snd_nxt + 2000)
    c.seg("RA", seq=c.snd_nxt + 1)
    c.expect_nothing(0.3, "two more in-window RSTs within 0.5 s")
    time.sleep(0.5)
    c.get_ok()
    c.close()


def t_rst_outside(peer):
    c = Conn(peer)
    c.connect()
    c.get_ok()
    c.seg("R", seq=c.snd_nxt + 0x100000)
    c.seg("R", seq=c.snd_nxt - 1)
    c.seg("RA", seq=c.snd_nxt + 0x80000000)
    c.expect_nothing(2, "RSTs outside the window")
    c.get_ok()
    c.close()


def t_rst_exact(peer):
    c = Conn(peer)
    c.connect()
    c.get_ok()
    c.seg("RA")
    time.sleep(1)
    c.seg("PA", GET)
    p = peer.recv(5, c.mine)
    if p is None or not p[TCP].flags.R:
        raise Fail("the connection lives on: %s" %
                   (p[TCP].summary() if p is not None else "no answer"))


MARTIANS = ["127.0.0.1", "224.0.0.1", "0.0.0.1", "255.255.255.255",
            "198.51.100.255"]


def t_martian(peer):
    for src in MARTIANS:
        peer.send(IP(src=src, dst=VIP) /
                  TCP(sport=random.randint(40000, 40999), dport=80,
                      flags="S", seq=random.getrandbits(32),
                      options=[("MSS", 1460)]))
    time.sleep(1)
    c = Conn(peer)
    c.connect()     # the capture must see this one SYN-ACK
    c.close()


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "pcap-options":
        run, arg = t_pcap_options, sys.argv[2]
    elif len(sys.argv) == 3:
        tests = {"urgent": t_urgent, "options": t_options,
                 "synfin": t_synfin, "syn": t_syn,
                 "rst-window": t_rst_window, "rst-outside": t_rst_outside,
                 "rst-exact": t_rst_exact, "martian": t_martian}
        run, arg = tests[sys.argv[2]], Peer(sys.argv[1])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        run(arg)
    except Fail as e:
        print(e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
