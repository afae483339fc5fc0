#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""rawtcp.py DMAC TEST...: a client that writes its TCP segments by hand
(scapy), for what no socket API sends: urgent data, unknown options, SYN
on an open connection, RSTs at chosen sequence numbers, spoofed sources.
Runs in the client namespace; DMAC is the director's MAC on the client
link.  Runs the TESTs in turn in one process (scapy is slow to load in
an emulated guest), one line each, "ok   TEST" or "FAIL TEST: why";
exits 1 if any failed.  Captures run tcpdump in the director's namespace.

The client's own kernel knows nothing of these connections and would
reset them: the suite drops its RSTs from ports 40000-40999 with nft.

Tests:
  ack-lost  the handshake's last ACK not sent: a GET completes it (with
            and without timestamps), then another; a POST whose first
            segment completes it and holds body bytes: echoed whole
  urgent    a POST to /cgi-bin/echo whose body has a segment with URG set
            and the urgent pointer inside it: the echo is the whole body
  options   the same with a TCP-MD5 option (kind 19, 18 bytes) and an
            unknown one (kind 99) on body segments; the capture on the
            backend link holds the marked segment, without those options
  ipopts    the same with IPv4 options (Router Alert, Record Route) on a
            body segment: on the backend link it has none
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
            the client link's broadcast, then one from the client, with a
            default route on the director: a capture on all its links
            holds one SYN-ACK, the real client's
  icmp-client   ICMP "fragmentation needed" (MTU 700) quoting the
                director's segments to us out of window, or another tuple,
                then (MTU 1000) one in flight: on the client link (TSO off)
                full-size segments after the first, none over 960 bytes
                after the second
  icmp-backend  the same from a backend's namespace about a body segment
                on a pooled connection, held unacknowledged by an
                iptables drop at the backends: its resend goes whole after
                the ignored errors, in pieces of 960 bytes at most after
                the one in window (capture on br0, TSO off)
  paws      with timestamps: a body segment with a TSval older than the
            last one is not acknowledged and never reaches br0; the range
            resent with other bytes and a fresh TSval is what is echoed
  window    a service to a server that never reads (192.0.2.12:8081,
            started by the suite) and 40 KB of body, sent twice: no
            segment to it on br0 ends past its last announced right edge
  frag      a GET sent as IP fragments of 16 bytes is answered
  probe-dsack   a GET of 10 KB with SACK, unacknowledged until its server
                resends some of it; then an ACK of it all, and a D-SACK
                of the resent bytes: the capture on br0 shows the director
                passing that D-SACK to the server, naming what it resent
  probe-silent  the same without the D-SACK: no pooled connection stays
                bound a second later, and the connection serves again
  ack-ts    a client without timestamps GETs 10 KB three times: every
            pure ACK to the servers on br0 carries a timestamp, TSvals
            never going back, each TSecr one of that server's TSvals
  adopt     a connection the director has only a checkpoint record of
            (the sync suite sends it): the next request on it is answered,
            and the one after, TSvals going on from the record's
  adopt-forged  the record's tuple with a wrong sequence number: a RST,
                and the right one afterwards a RST too (record dropped)
  adopt-deleted a record followed by its DELETE: a RST
  adopt-blind   a bare ACK on a recorded tuple at seq rcv_nxt + 2^31 with
                a random ACK: the record's probe (seq 4999, ack 1100) and
                a RST at that random ACK only; the client's own GET then
                is adopted, answered
  adopt-mss12   a record with mss 12 (refused by the store): a GET of
                /static/10k.bin on its tuple gets a RST, and no oops
  adopt-not-ours  the VIP removed from the director (the suite does it):
                a SYN to it gets no SYN-ACK, a recorded tuple's segment
                that fits its record no answer (not adopted)
"""

import os
import random
import select
import signal
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("HOME", "/tmp")
# not scapy.all: loading every layer takes a minute in the guest
from scapy.arch import get_if_addr, get_if_hwaddr  # noqa: E402
from scapy.config import conf  # noqa: E402
from scapy.layers.inet import IP, TCP, IPOption_RR, \
    IPOption_Router_Alert, fragment  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.utils import rdpcap  # noqa: E402

import l7proc  # noqa: E402
from rawnet import icmp_frag_needed, icmp_socket, next_response  # noqa: E402

conf.verb = 0
VIP = "198.51.100.1"
IFACE = "eth0"
GET = b"GET /index.html HTTP/1.1\r\nHost: h\r\n\r\n"


class Fail(Exception):
    pass


def in_dir(*cmd):
    return ["ip", "netns", "exec", "l7dir"] + list(cmd)


class Capture:
    """tcpdump on the director's @iface until stop(), which returns the
    packets."""

    def __init__(self, name, iface, bpf):
        """Kept in $L7_RESULTS/NAME.pcap when the suite runs in a boot."""
        if os.environ.get("L7_RESULTS"):
            self.path = os.path.join(os.environ["L7_RESULTS"], name + ".pcap")
        else:
            fd, self.path = tempfile.mkstemp(suffix=".pcap")
            os.close(fd)
        self.proc = subprocess.Popen(
            in_dir("tcpdump", "-i", iface, "-n", "-U", "--immediate-mode",
                   "-s", "0", "-Z", "root", "-w", self.path, bpf),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        said = b""
        while b"listening" not in said:
            line = self.proc.stderr.readline()
            if not line:
                raise Fail("tcpdump: %r" % said)
            said += line

    def packets(self):
        """The packets captured so far: tcpdump writes each as it comes
        (--immediate-mode, -U), give or take the last."""
        time.sleep(0.3)
        return rdpcap(self.path)

    def stop(self):
        # without --immediate-mode, libpcap hands packets over a block at
        # a time, after up to a second: a capture stopped sooner missed
        # its last packets (seen as 0 of 1 SYN-ACKs in the guest)
        time.sleep(1.5)
        self.proc.terminate()
        self.proc.wait(10)
        pkts = rdpcap(self.path)
        if not os.environ.get("L7_RESULTS"):
            os.unlink(self.path)
        return pkts


class Peer:
    """One L2 socket on the client link: frames out, the VIP's in."""

    def __init__(self, dmac):
        self.dmac = dmac
        self.smac = get_if_hwaddr(IFACE)
        self.src = get_if_addr(IFACE)
        self.sock = conf.L2socket(
            iface=IFACE, filter="tcp and src host %s" % VIP)

    def send(self, pkt, frag=0):
        """Send @pkt, as IP fragments of @frag bytes if @frag."""
        for p in fragment(pkt, frag) if frag else [pkt]:
            self.sock.send(Ether(src=self.smac, dst=self.dmac) / p)

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
    """A TCP connection to VIP:@dport kept by hand: no WS, timestamps only
    if @ts, SACK-permitted offered only if @sack."""

    def __init__(self, peer, dport=80, ts=False, sack=False):
        self.peer = peer
        self.dport = dport
        self.sport = random.randint(40000, 40999)
        self.snd_nxt = random.getrandbits(32)
        self.rcv_nxt = 0
        self.acked = None
        self.data = b""
        self.fin = False
        self.ack_data = True    # acknowledge what arrives
        self.ack_sent = None    # the last ACK number we sent
        self.ts = ts
        self.sack = sack
        self.ts_base = random.getrandbits(32)
        self.ts_last = None     # the last TSval we sent
        self.ts_recent = 0      # the peer's last TSval

    def tsval(self):
        """A clock of 1 ms ticks that only goes forward."""
        return (self.ts_base + int(time.monotonic() * 1000)) % 2**32

    def seg(self, flags, payload=b"", seq=None, options=(), urgptr=0,
            tsval=None, frag=0, ipopts=()):
        options = list(options)
        if self.ts:
            tsval = self.tsval() if tsval is None else tsval % 2**32
            self.ts_last = tsval
            options += [("NOP", None), ("NOP", None),
                        ("Timestamp", (tsval, self.ts_recent))]
        t = TCP(sport=self.sport, dport=self.dport, flags=flags,
                seq=self.snd_nxt if seq is None else seq % 2**32,
                ack=self.rcv_nxt if "A" in flags else 0, window=65535,
                urgptr=urgptr, options=options)
        if "A" in flags:
            self.ack_sent = self.rcv_nxt
        p = IP(src=self.peer.src, dst=VIP, options=list(ipopts)) / t
        if payload:
            p = p / Raw(payload)
        self.peer.send(p, frag)

    def mine(self, p):
        return p[TCP].dport == self.sport and p[TCP].sport == self.dport

    def connect(self, final_ack=True):
        """Handshake; the SYN is resent twice, as a kernel would (an
        emulated director still busy with a previous test may be slow).
        Without @final_ack the handshake's last ACK is not sent, as if
        lost: the next segment completes it."""
        syn_opts = [("MSS", 1460)] + ([("SAckOK", b"")] if self.sack else [])
        for _ in range(3):
            self.seg("S", options=syn_opts)
            sa = self.peer.recv(5, lambda p: self.mine(p) and
                                p[TCP].flags.S and p[TCP].flags.A)
            if sa is not None:
                break
        else:
            raise Fail("no SYN-ACK to 3 SYNs")
        self.snd_nxt += 1
        self.rcv_nxt = (sa[TCP].seq + 1) % 2**32
        for o in sa[TCP].options:
            if o[0] == "Timestamp":
                self.ts_recent = o[1][0]
        if final_ack:
            self.seg("A")

    def take(self, p):
        """Note what a segment of ours says; ACK any data or FIN."""
        t = p[TCP]
        if t.flags.A and (self.acked is None or
                          (t.ack - self.acked) % 2**32 < 2**31):
            self.acked = t.ack
        for o in t.options:
            if o[0] == "Timestamp":
                self.ts_recent = o[1][0]
        payload = payload_of(p)
        if t.flags.R:
            return
        if payload and t.seq == self.rcv_nxt:
            self.data += payload
            self.rcv_nxt = (self.rcv_nxt + len(payload)) % 2**32
        if t.flags.F and (t.seq + len(payload)) % 2**32 == self.rcv_nxt:
            self.rcv_nxt = (self.rcv_nxt + 1) % 2**32
            self.fin = True
        if (payload or t.flags.F) and self.ack_data:
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
        """The next whole HTTP response (Content-Length or chunked) as
        (status line, body)."""
        if not self.pump(timeout, lambda: split_response(self.data)):
            raise Fail("no whole response in %d s; got %r" %
                       (timeout, self.data[:300]))
        status, body, self.data = split_response(self.data)
        return status, body

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


def payload_of(p):
    """A segment's payload, without link-layer padding."""
    n = p[IP].len - p[IP].ihl * 4 - p[TCP].dataofs * 4
    return bytes(p[TCP].payload)[:max(n, 0)]


def split_response(data):
    """(status line, body, rest) if @data starts with a whole response."""
    r = next_response(data)
    return r and (r[0], r[2], data[r[3]:])


def body_of(n, seed):
    rnd = random.Random(seed)
    return bytes(rnd.choice(b"abcdefghijklmnopqrstuvwxyz0123456789")
                 for _ in range(n))


def echo_post(peer, parts, opts_of=lambda i: (), urg_of=lambda i: 0,
              ipopts_of=lambda i: ()):
    """POST the body @parts, one segment each, to /cgi-bin/echo; the
    echo must be their concatenation."""
    body = b"".join(parts)
    c = Conn(peer)
    c.connect()
    c.send(b"POST /cgi-bin/echo HTTP/1.1\r\nHost: h\r\n"
           b"Content-Length: %d\r\n\r\n" % len(body))
    for i, part in enumerate(parts):
        urg = urg_of(i)
        c.send(part, options=opts_of(i), urgptr=urg, ipopts=ipopts_of(i),
               **({"flags": "PAU"} if urg else {}))
    status, got = c.response()
    c.close()
    if b" 200 " not in status or got != body:
        raise Fail("echo %r: %d bytes, want %d%s" %
                   (status, len(got), len(body),
                    "" if len(got) != len(body) else " (differ)"))


def t_ack_lost(peer):
    """The handshake's last ACK lost: the client's first request
    completes it (its cookie), without and with timestamps - a GET whose
    own segment carries the director's copy to its server, the same
    bytes - then a POST whose first segment holds body bytes too: each
    answered whole, the connection going on."""
    for ts in (False, True):
        c = Conn(peer, ts=ts)
        c.connect(final_ack=False)
        c.get_ok()
        c.get_ok()
        c.close()
    body = body_of(400, 11)
    c = Conn(peer)
    c.connect(final_ack=False)
    c.send(b"POST /cgi-bin/echo HTTP/1.1\r\nHost: h\r\n"
           b"Content-Length: %d\r\n\r\n" % len(body) + body[:100])
    c.send(body[100:])
    status, got = c.response()
    c.get_ok()
    c.close()
    if b" 200 " not in status or got != body:
        raise Fail("echo %r: %d bytes, want %d" % (status, len(got),
                                                   len(body)))


def t_urgent(peer):
    parts = [body_of(300, 1), body_of(100, 2), body_of(300, 3)]
    echo_post(peer, parts, urg_of=lambda i: 5 if i == 1 else 0)


MD5 = (19, bytes(range(0x40, 0x50)))     # kind 19, 18 bytes
UNKNOWN = (99, b"\x5a\x5a")
MARK = b"OPTMARK"


def t_options(peer):
    parts = [body_of(200, 4), MARK + body_of(193, 5), body_of(200, 6)]
    cap = Capture("options-backend", "br0", "tcp port 80")
    try:
        echo_post(peer, parts, opts_of=lambda i: (
            [MD5, UNKNOWN, ("NOP", None), ("NOP", None)] if i == 1 else
            [UNKNOWN, ("NOP", None), ("NOP", None)] if i == 2 else []))
    finally:
        pkts = cap.stop()
    check_backend_capture(pkts)


IPMARK = b"IPOPTMARK"


def t_ipopts(peer):
    parts = [body_of(200, 7), IPMARK + body_of(191, 8), body_of(200, 9)]
    cap = Capture("ipopts-backend", "br0", "tcp port 80")
    try:
        echo_post(peer, parts, ipopts_of=lambda i: (
            [IPOption_Router_Alert(), IPOption_RR()] if i == 1 else []))
    finally:
        pkts = cap.stop()
    marked = [p for p in pkts if IP in p and TCP in p and
              p[TCP].dport == 80 and IPMARK in bytes(p[TCP].payload)]
    if not marked:
        raise Fail("the marked segment never reached the backend link")
    for p in marked:
        if p[IP].ihl != 5:
            raise Fail("forwarded with IPv4 options: %r" % bytes(p[IP])[20:
                                                           p[IP].ihl * 4])


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


def check_backend_capture(pkts):
    """The marked body segment reached the backend link, and no segment
    there has the MD5 or the unknown option."""
    seen = 0
    for p in pkts:
        if TCP not in p or p[TCP].dport != 80:
            continue
        t = p[TCP]
        kinds = option_kinds(t)
        if 19 in kinds or 99 in kinds:
            raise Fail("forwarded with options %s: %s" % (kinds, p.summary()))
        if MARK in bytes(t.payload):
            seen += 1
    if not seen:
        raise Fail("the marked segment never reached the backend link "
                   "(%d packets captured, %d to port 80)" %
                   (len(pkts), sum(1 for p in pkts if TCP in p and
                                   p[TCP].dport == 80)))


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
    subprocess.run(in_dir("ip", "route", "add", "default", "via", peer.src),
                   check=True)
    try:
        cap = Capture("martian", "any", "src host %s and tcp src port 80 and "
                      "tcp[tcpflags] & (tcp-syn|tcp-rst) != 0" % VIP)
        try:
            for src in MARTIANS:
                peer.send(IP(src=src, dst=VIP) /
                          TCP(sport=random.randint(40000, 40999), dport=80,
                              flags="S", seq=random.getrandbits(32),
                              options=[("MSS", 1460)]))
            time.sleep(1)
            c = Conn(peer)
            c.connect()     # the capture must see this one SYN-ACK
            c.close()
        finally:
            pkts = cap.stop()
    finally:
        subprocess.run(in_dir("ip", "route", "del", "default"))
    answers = [p for p in pkts if TCP in p]
    if len(answers) != 1:
        raise Fail("%d SYN-ACKs or RSTs, want 1 (the real client's): %s" %
                   (len(answers), "; ".join(p.summary() for p in answers)))


GW = "192.0.2.1"                # the director on the backend bridge
BACKEND_NS = ["l7s1", "l7s2", "l7s3"]


def after_eq(a, b):
    """a is at or after b in sequence space."""
    return (a - b) % 2**32 < 2**31


def data_segments(pkts, src=None):
    """(seq, payload length, packet) of the captured segments with data."""
    out = []
    for p in pkts:
        if IP in p and TCP in p and (src is None or p[IP].src == src):
            n = len(payload_of(p))
            if n:
                out.append((p[TCP].seq, n, p))
    return out


def drain(c, secs):
    """Take what arrives for @secs s without acknowledging it: the peer
    fills its window to us and stops."""
    c.ack_data = False
    c.pump(secs, lambda: False)


def resume(c, nbytes, timeout=60):
    """Acknowledge again, and take @nbytes more."""
    want = len(c.data) + nbytes
    c.ack_data = True
    c.seg("A")
    if not c.pump(timeout, lambda: len(c.data) >= want):
        raise Fail("the download stalled at %d bytes" % len(c.data))


# MTUs the ICMP errors announce: honoured (1000) and to be ignored (700)
MTU_OK, MTU_IGNORED = 1000, 700
MSS_OK = MTU_OK - 40


def t_icmp_client(peer):
    """ICMP "fragmentation needed" about the director's segments to this
    client, sent from the client side: one quoting an out-of-window seq
    and one an unknown tuple change nothing; one quoting a segment in
    flight makes the director's next segments fit.  Sizes are read on the
    director's client link (TSO off there, so the wire is what is
    captured), and told apart by when they were sent, not by seq: a
    segment sent before an error but missed by this client's socket
    (a loaded guest) has a seq past what the client holds."""
    c = Conn(peer)
    cap = Capture("icmp-client", "dcli", "tcp src port 80 and dst port %d"
                  % c.sport)
    try:
        c.connect()
        get = b"GET /static/1m.bin HTTP/1.1\r\nHost: h\r\n\r\n"
        c.seg("PA", get)
        c.snd_nxt = (c.snd_nxt + len(get)) % 2**32
        if not c.pump(30, lambda: len(c.data) >= 20000):
            raise Fail("the download did not start (%d bytes)" % len(c.data))

        def icmp(seq, mtu, dport=c.sport):
            peer.send(IP(src=peer.src, dst=VIP, proto=1) /
                      Raw(icmp_frag_needed(VIP, peer.src, 80, dport, seq,
                                           mtu)))

        drain(c, 1.5)
        if c.ack_sent == c.rcv_nxt:
            raise Fail("nothing in flight to quote")
        icmp(c.rcv_nxt + 0x40000000, MTU_IGNORED)      # ahead
        icmp(c.ack_sent - 100000, MTU_IGNORED)         # behind
        icmp(c.ack_sent, MTU_IGNORED, dport=c.sport ^ 1)   # other tuple
        time.sleep(0.5)
        ignored_at = time.time()
        resume(c, 40000)

        drain(c, 1.5)
        if c.ack_sent == c.rcv_nxt:
            raise Fail("nothing in flight to quote")
        honoured_sent = time.time()
        icmp(c.ack_sent, MTU_OK)                        # in flight
        time.sleep(0.5)
        honoured_at = time.time()
        resume(c, 40000)
        c.seg("RA", seq=c.snd_nxt)
    finally:
        pkts = cap.stop()
    segs = data_segments(pkts)
    # everything the director sent once the errors were in (resends too)
    between = [n for _, n, p in segs if ignored_at <= p.time < honoured_sent]
    later = [n for _, n, p in segs if p.time >= honoured_at]
    if not between or not later:
        raise Fail("captured %d data segments: %d after the ignored errors,"
                   " %d after the honoured one" %
                   (len(segs), len(between), len(later)))
    if max(between) <= MSS_OK:
        raise Fail("after ICMP errors out of window or for another tuple, "
                   "segments of %d bytes at most: one was taken" %
                   max(between))
    if max(later) > MSS_OK:
        raise Fail("after \"fragmentation needed, MTU %d\" quoting a "
                   "segment in flight: segments of %s bytes (want <= %d)" %
                   (MTU_OK, sorted(set(later))[-5:], MSS_OK))


def ns_run(ns, *cmd, check=True):
    return subprocess.run(["ip", "netns", "exec", ns] + list(cmd),
                          check=check, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)


HOLD = b"HOLDBACK"      # body segments the backends drop while it is set


def hold(on):
    """Make every backend drop segments to port 80 carrying HOLD (before
    its TCP sees them, so they stay unacknowledged), or stop that."""
    for ns in BACKEND_NS:
        ns_run(ns, "iptables", "-D" if not on else "-I", "INPUT", "-p",
               "tcp", "--dport", "80", "-m", "string", "--string",
               HOLD.decode(), "--algo", "bm", "-j", "DROP", check=on)


class FirstSegment:
    """The first segment tcpdump in the director sees on br0 whose
    payload starts with HOLD: (director port, backend, seq)."""

    def __init__(self):
        word = int.from_bytes(HOLD[:4], "big")
        self.proc = subprocess.Popen(
            in_dir("tcpdump", "-l", "-t", "-nn", "-S", "-c", "1", "-i", "br0",
                   "--immediate-mode", "tcp dst port 80 and "
                   "tcp[((tcp[12] & 0xf0) >> 2):4] = 0x%08x" % word),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        said = ""
        while "listening" not in said:
            line = self.proc.stderr.readline()
            if not line:
                raise Fail("tcpdump: %r" % said)
            said += line

    def get(self):
        r, _, _ = select.select([self.proc.stdout], [], [], 10)
        line = self.proc.stdout.readline() if r else ""
        self.proc.kill()
        self.proc.wait()
        # IP 192.0.2.1.40123 > 192.0.2.12.80: Flags [P.], seq 1:2, ...
        f = line.split()
        if len(f) < 8 or f[6] != "seq":
            raise Fail("the held segment never reached br0: %r" % line)
        src, dst = f[1].rsplit(".", 1), f[3].rstrip(":").rsplit(".", 1)
        return int(src[1]), dst[0], int(f[7].split(":")[0])


def t_icmp_backend(peer):
    """ICMP "fragmentation needed" about the director's segments on a
    spliced pooled connection, sent from a backend: a POST body segment
    is held at the backends (never acknowledged), errors quoting it out
    of window or on another tuple change nothing (the resent segment
    goes whole), one quoting it in window makes the next resend go in
    pieces that fit.  Sizes are read on br0 (TSO off)."""
    icmp_sock = icmp_socket(BACKEND_NS[0])
    cap = Capture("icmp-backend", "br0", "tcp dst port 80 and src host "
                  + GW)
    parts = [body_of(1000, 7), HOLD + body_of(1392, 8),
             HOLD + body_of(1392, 9), body_of(500, 10)]
    body = b"".join(parts)
    seen = []
    try:
        c = Conn(peer)
        c.connect()
        c.send(b"POST /cgi-bin/echo HTTP/1.1\r\nHost: h\r\n"
               b"Content-Length: %d\r\n\r\n" % len(body))
        c.send(parts[0])
        for part, quotes in ((parts[1], "ignored"), (parts[2], "in window")):
            hold(True)
            first = FirstSegment()
            seq = c.snd_nxt
            c.seg("PA", part)
            c.snd_nxt = (c.snd_nxt + len(part)) % 2**32
            port, backend, bseq = first.get()
            seen.append(bseq)

            def icmp(qseq, mtu, qport=80):
                icmp_sock.sendto(icmp_frag_needed(GW, backend, port, qport,
                                                  qseq, mtu), (GW, 0))

            if quotes == "ignored":
                icmp(bseq + 0x40000000, MTU_IGNORED)
                icmp(bseq, MTU_IGNORED, qport=81)
            else:
                icmp(bseq, MTU_OK)
            time.sleep(0.5)
            hold(False)
            c.seg("PA", part, seq=seq)
            if not c.pump(10, lambda: c.acked == c.snd_nxt):
                raise Fail("the resent segment was never acknowledged")
        c.send(parts[3])
        status, got = c.response()
        c.close()
        if b" 200 " not in status or got != body:
            raise Fail("echo %r: %d bytes of %d" % (status, len(got),
                                                    len(body)))
    finally:
        hold(False)
        icmp_sock.close()
        pkts = cap.stop()
    segs = data_segments(pkts)
    at = [[n for s, n, _ in segs if s == q] for q in seen]
    if len(at) != 2 or len(at[0]) < 2 or len(at[1]) < 2:
        raise Fail("segments at the held seqs: %s" % at)
    if at[0][1:] != [len(parts[1])] * (len(at[0]) - 1):
        raise Fail("after errors out of window or for another tuple, the "
                   "resend went as %s bytes (want whole, %d)" %
                   (at[0][1:], len(parts[1])))
    if max(at[1][1:]) > MSS_OK:
        raise Fail("after \"fragmentation needed, MTU %d\" in window, the "
                   "resend went as %s bytes (want <= %d)" %
                   (MTU_OK, at[1][1:], MSS_OK))


def t_paws(peer):
    """A body segment whose TSval is older than the last one taken fails
    PAWS (RFC 7323): the director drops it (no ACK, nothing on the
    backend link); the same range resent with a fresh TSval and other
    bytes is what the backend gets."""
    old = b"PAWSOLD" + body_of(93, 11)
    new = b"PAWSNEW" + body_of(93, 12)
    parts = [body_of(100, 13), new, body_of(100, 14)]
    body = b"".join(parts)
    cap = Capture("paws-backend", "br0", "tcp dst port 80")
    try:
        c = Conn(peer, ts=True)
        c.connect()
        c.send(b"POST /cgi-bin/echo HTTP/1.1\r\nHost: h\r\n"
               b"Content-Length: %d\r\n\r\n" % len(body))
        c.send(parts[0])
        seq = c.snd_nxt
        c.seg("PA", old, tsval=c.ts_last - 1000)
        if c.pump(2, lambda: c.acked != seq):
            raise Fail("a segment failing PAWS was acknowledged (ack %d, "
                       "its end %d)" % (c.acked, seq + len(old)))
        c.send(new)
        c.send(parts[2])
        status, got = c.response()
        c.close()
        if b" 200 " not in status or got != body:
            raise Fail("echo %r: %d bytes of %d%s" % (
                status, len(got), len(body),
                ", with the old bytes" if b"PAWSOLD" in got else ""))
    finally:
        pkts = cap.stop()
    n = sum(1 for _, _, p in data_segments(pkts)
            if b"PAWSOLD" in payload_of(p))
    if n:
        raise Fail("the director forwarded the segment failing PAWS %d "
                   "time(s)" % n)


GET10K = b"GET /static/10k.bin HTTP/1.1\r\nHost: h\r\n\r\n"


def probed_response(peer):
    """A connection with SACK and timestamps whose GET of 10 KB is not
    acknowledged until the server resends some of the response (its tail
    loss probe, or a timeout): returns the connection, with the response
    taken, and the resent range (seq, end) as the client saw it."""
    c = Conn(peer, ts=True, sack=True)
    c.connect()
    c.ack_data = False
    c.seg("PA", GET10K)
    c.snd_nxt = (c.snd_nxt + len(GET10K)) % 2**32
    end = time.time() + 20
    while time.time() < end:
        p = peer.recv(end - time.time(), c.mine)
        if p is None:
            break
        n, seq = len(payload_of(p)), p[TCP].seq
        again = n and after_eq(c.rcv_nxt, seq + n)
        c.take(p)
        if again and split_response(c.data):
            c.response()
            return c, (seq, (seq + n) % 2**32)
    raise Fail("no resend of the response came (%d bytes taken)" %
               len(c.data))


def server_resends(pkts):
    """(seq, end) of each data segment a backend sent again, by its seq."""
    high, out = {}, []
    for seq, n, p in data_segments(pkts):
        if p[TCP].sport != 80:
            continue
        key = (p[IP].src, p[TCP].dport)
        end = (seq + n) % 2**32
        if key in high and after_eq(high[key], end):
            out.append((key, seq, end))
        elif key not in high or after_eq(end, high[key]):
            high[key] = end
    return out


def dsacks_to(pkts, key):
    """SACK blocks starting below their segment's ACK, in the director's
    segments to the backend connection @key (backend address, port)."""
    out = []
    for p in pkts:
        if IP not in p or TCP not in p or p[IP].dst != key[0] or \
           p[TCP].sport != key[1]:
            continue
        for o in p[TCP].options:
            if o[0] == "SAck" and len(o[1]) >= 2 and \
               not after_eq(o[1][0], p[TCP].ack):
                out.append((o[1][0], o[1][1]))
    return out


def t_probe_dsack(peer):
    """The client's ACK of a response crosses its server's resend of the
    tail; the client's report of that resend as a duplicate (D-SACK)
    comes after it, and reaches the server - its block naming the bytes
    the server resent - lest the server count its probe as a repair."""
    cap = Capture("probe-backend", "br0", "tcp port 80")
    try:
        c, (seq, end) = probed_response(peer)
        c.ack_data = True
        c.seg("A")
        time.sleep(0.02)
        c.seg("A", options=[("NOP", None), ("NOP", None),
                            ("SAck", (seq, end))])
        time.sleep(0.5)
        c.get_ok()      # and the connection goes on
        c.close()
    finally:
        pkts = cap.stop()
    resent = server_resends(pkts)
    if not resent:
        raise Fail("the capture on br0 shows no resend of a server's")
    key, b_seq, b_end = resent[0]
    got = dsacks_to(pkts, key)
    if (b_seq, b_end) not in got:
        raise Fail("server %s:80 resent %d-%d; D-SACKs it got: %s" %
                   (key[0], b_seq, b_end, got or "none"))


def t_ack_ts(peer):
    """A client without timestamps, to servers with them: its ACKs of a
    response reach the server stamped by the director - a TSval that
    never goes back on a connection, and a TSecr that is one of that
    connection's server's own - so
    that the server samples RTT from them even after a resend (Karn's
    rule forbids a sample from the ACK's timing then), and its
    retransmission timer's backoff is reset by the sample."""
    cap = Capture("ack-ts-backend", "br0", "tcp port 80")
    try:
        c = Conn(peer)          # no timestamps, no SACK, no scaling
        c.connect()
        for _ in range(3):
            c.send(GET10K)
            status, body = c.response()
            if b" 200 " not in status or len(body) != 10240:
                raise Fail("GET answered %r, %d bytes" % (status, len(body)))
        c.close()
    finally:
        pkts = cap.stop()
    flows = {(p[IP].src, p[TCP].dport) for p in pkts
             if IP in p and TCP in p and p[TCP].sport == 80 and
             len(payload_of(p)) > 0}
    if not flows:
        raise Fail("no response bytes from a server on br0")
    sent_ts, last_tsval, acks, stamped = {}, {}, 0, 0
    for p in pkts:
        if IP not in p or TCP not in p:
            continue
        t = p[TCP]
        ts = [o[1] for o in t.options if o[0] == "Timestamp"]
        if t.sport == 80 and (p[IP].src, t.dport) in flows:
            sent_ts.setdefault((p[IP].src, t.dport), set()).update(
                v for v, _ in ts)
            continue
        key = (p[IP].dst, t.sport)
        if key not in flows or len(payload_of(p)) or str(t.flags) != "A":
            continue
        acks += 1
        if not ts:
            continue
        stamped += 1
        tsval, tsecr = ts[0]
        if tsecr not in sent_ts.get(key, ()):
            raise Fail("an ACK to %s:80 from port %d echoes TSval %d, "
                       "which that connection never sent" %
                       (key[0], key[1], tsecr))
        if key in last_tsval and not after_eq(tsval, last_tsval[key]):
            raise Fail("TSval %d after %d to %s:80 from port %d" %
                       (tsval, last_tsval[key], key[0], key[1]))
        last_tsval[key] = tsval
    if acks < 3 or stamped < acks:
        raise Fail("%d of %d pure ACKs to the servers carry a timestamp" %
                   (stamped, acks))


def t_probe_silent(peer):
    """The same without the client's report: its pooled connection goes
    back to the pool within a second, and the client's connection serves
    its next request."""
    c, _ = probed_response(peer)
    c.ack_data = True
    c.seg("A")
    deadline = time.time() + 1
    while pools_busy() and time.time() < deadline:
        time.sleep(0.05)
    busy = pools_busy()
    if busy:
        raise Fail("%d pooled connection(s) still bound 1 s after the "
                   "client had its whole response" % busy)
    c.get_ok()
    c.close()


def pools_busy():
    """Pooled connections bound to a client, over all servers."""
    return sum(int(rs["Busy"]) for rs in l7proc.read()[1])


WIN_RS = "192.0.2.12:8081"      # a server that never reads: tcp_hygiene.sh


def pool_idle(rs):
    for row in l7proc.read()[1]:
        if row["RemoteAddress:Port"] == rs:
            return int(row["Idle"])
    return 0


def t_window(peer):
    """A server that never reads, with a small receive buffer: its window
    closes.  A client sends 40 KB of body, twice.  In the capture on br0
    no segment from the director to that server ends past the right edge
    (ack + scaled window) the server announced last."""
    vs = VIP + ":8081"
    chunk_n, chunks = 1000, 40
    cap = Capture("window", "br0", "tcp port 8081")
    try:
        subprocess.run(in_dir("ipvsadm", "-A", "-t", vs, "-s", "l7"),
                       check=True)
        subprocess.run(in_dir("ipvsadm", "-a", "-t", vs, "-r", WIN_RS, "-m"),
                       check=True)
        end = time.time() + 20
        while not pool_idle(WIN_RS):
            if time.time() > end:
                raise Fail("no pooled connection to %s" % WIN_RS)
            time.sleep(0.2)
        c = Conn(peer, dport=8081)
        c.connect()
        c.send(b"POST /sink HTTP/1.1\r\nHost: h\r\n"
               b"Content-Length: %d\r\n\r\n" % (chunk_n * chunks))
        base = c.snd_nxt
        for rnd in range(2):
            for i in range(chunks):
                c.seg("PA", body_of(chunk_n, 20 + i), seq=base + i * chunk_n)
            c.pump(3, lambda: False)
        c.seg("RA", seq=c.acked)
    finally:
        pkts = cap.stop()
        subprocess.run(in_dir("ipvsadm", "-D", "-t", vs))
    check_window(pkts, WIN_RS, chunk_n * chunks)


def check_window(pkts, rs, offered):
    """No data segment to server @rs in @pkts ends past the right edge
    the server announced last, and the window bound something: less
    than @offered bytes went to it."""
    rs_ip, rs_port = rs.split(":")
    wscale, edge, sent, past = {}, {}, {}, []
    for p in pkts:
        if IP not in p or TCP not in p:
            continue
        t = p[TCP]
        if p[IP].src == rs_ip and t.sport == int(rs_port):
            if t.flags.S:     # its window is never scaled
                wscale[t.dport] = dict(
                    (o[0], o[1]) for o in t.options).get("WScale", 0)
                edge[t.dport] = (t.ack + t.window) % 2**32
            elif t.flags.A and t.dport in wscale:
                edge[t.dport] = (t.ack + (t.window << wscale[t.dport])) \
                    % 2**32
        elif p[IP].dst == rs_ip and t.dport == int(rs_port):
            n = len(payload_of(p))
            if not n or t.sport not in edge:
                continue
            e = (t.seq + n) % 2**32
            sent[t.sport] = sent.get(t.sport, 0) + n
            if not after_eq(edge[t.sport], e):
                past.append("seq %d+%d past the edge %d" %
                            (t.seq, n, edge[t.sport]))
    if past:
        raise Fail("the director sent beyond the server's window: %s" %
                   "; ".join(past[:5]))
    if not sent or max(sent.values()) >= offered:
        raise Fail("the window never bound anything: sent %s bytes to the "
                   "server, windows seen for %s" % (sent, sorted(edge)))


def t_frag(peer):
    """A request sent as IP fragments of 16 bytes is reassembled and
    answered (defragmentation is on where an l7 service is)."""
    c = Conn(peer)
    c.connect()
    c.send(GET, frag=16)
    status, _ = c.response()
    if b" 200 " not in status:
        raise Fail("fragmented GET answered %r" % status)
    c.get_ok()
    c.close()


# The records the sync suite gives the director for these client ports
# (testbed/clients/l7sync.py record()): a connection between two
# requests, the client's next byte 1100, the director's 5000, timestamps
# (the client's newest 777, the director's 888) and SACK agreed.
ADOPT_PORT, FORGED_PORT, DELETED_PORT = 40901, 40902, 40903
BLIND_PORT, MSS12_PORT, NOT_OURS_PORT = 40904, 40905, 40906


def recorded_conn(peer, sport):
    """A connection of the client's, as its record has it."""
    c = Conn(peer, ts=True, sack=True)
    c.sport = sport
    c.snd_nxt = 1100
    c.rcv_nxt = 5000
    c.ts_recent = 888
    c.ts_base = (1000 - int(time.monotonic() * 1000)) % 2**32
    return c


def expect_rst(c, seq, what):
    p = c.peer.recv(5, c.mine)
    if p is None or not p[TCP].flags.R or p[TCP].seq != seq:
        raise Fail("%s: want a RST at %d, got %s" %
                   (what, seq, p[TCP].summary() if p else "nothing"))


def t_adopt(peer):
    """The next request on a connection the director never saw, but has
    a record of, is answered on it, and the one after: the director took
    it over, its TSvals going on from the record's."""
    c = recorded_conn(peer, ADOPT_PORT)
    c.get_ok()
    if (c.ts_recent - 888) % 2**32 >= 2**31:
        raise Fail("TSval %d, behind the record's 888" % c.ts_recent)
    c.get_ok()
    c.close()


def t_adopt_forged(peer):
    """A segment with the record's tuple and a wrong sequence number in
    its window (1100 .. 1100 + 65535) gets a RST, and the record goes
    with it: the right one then gets a RST too."""
    c = recorded_conn(peer, FORGED_PORT)
    c.seg("PA", GET, seq=1100 + 1000)
    expect_rst(c, 5000, "wrong seq")
    c.seg("PA", GET)
    expect_rst(c, 5000, "right seq after a wrong one")


def t_adopt_deleted(peer):
    """A connection whose record was followed by its DELETE is never
    taken over."""
    c = recorded_conn(peer, DELETED_PORT)
    c.seg("PA", GET)
    expect_rst(c, 5000, "after its DELETE")


def t_adopt_blind(peer):
    """A bare ACK on the record's tuple, 2^31 from its rcv_nxt, with a
    random ACK (a blind guess at the tuple) ends nothing: it gets the
    record's probe, which the real client answers, and a RST at its own
    random ACK, which is out of the real client's window (5000) and so
    harmless to it.  Its GET then is taken over and answered."""
    c = recorded_conn(peer, BLIND_PORT)
    guess = random.getrandbits(32)
    while (guess - 5000) % 2**32 < 2**20 or (5000 - guess) % 2**32 < 2**20:
        guess = random.getrandbits(32)
    c.rcv_nxt = guess
    c.seg("A", seq=1100 + 2**31)
    c.rcv_nxt = 5000
    probed = False
    end = time.time() + 3
    while True:
        p = c.peer.recv(max(end - time.time(), 0), c.mine)
        if p is None:
            break
        t = p[TCP]
        if t.flags.R and t.seq == guess:
            continue        # the blind guess's own RST
        if t.flags.R or str(t.flags) != "A" or t.seq != 4999 or \
                t.ack != 1100:
            raise Fail("blind segment answered: %s seq %d ack %d" %
                       (t.flags, t.seq, t.ack))
        probed = True
    if not probed:
        raise Fail("no probe answered the blind segment")
    c.get_ok()
    c.close()


def t_adopt_mss12(peer):
    """A record with mss 12 (and timestamps) is not taken: a GET of 10 KB
    on its tuple gets a RST.  (Adopted, every segment of the response
    would divide by zero in softirq.)"""
    c = recorded_conn(peer, MSS12_PORT)
    c.seg("PA", b"GET /static/10k.bin HTTP/1.1\r\nHost: h\r\n\r\n")
    expect_rst(c, 5000, "a record with mss 12")


def t_adopt_not_ours(peer):
    """The VIP is not an address of the director: a SYN to it gets no
    SYN-ACK, and a segment that fits a record no answer at all."""
    c = Conn(peer)
    c.seg("S", options=[("MSS", 1460)])
    c.expect_nothing(3, "a SYN to a VIP the director does not hold")
    c = recorded_conn(peer, NOT_OURS_PORT)
    c.seg("PA", GET)
    c.expect_nothing(3, "a recorded tuple at a VIP the director does "
                        "not hold")


TESTS = {"ack-lost": t_ack_lost, "urgent": t_urgent, "options": t_options, "ipopts": t_ipopts,
         "synfin": t_synfin,
         "syn": t_syn, "rst-window": t_rst_window,
         "rst-outside": t_rst_outside, "rst-exact": t_rst_exact,
         "martian": t_martian, "icmp-client": t_icmp_client,
         "icmp-backend": t_icmp_backend, "paws": t_paws,
         "window": t_window, "frag": t_frag, "probe-dsack": t_probe_dsack,
         "probe-silent": t_probe_silent, "ack-ts": t_ack_ts,
         "adopt": t_adopt,
         "adopt-forged": t_adopt_forged, "adopt-deleted": t_adopt_deleted,
         "adopt-blind": t_adopt_blind, "adopt-mss12": t_adopt_mss12,
         "adopt-not-ours": t_adopt_not_ours}


TEST_SECONDS = 180


def too_long(signum, frame):
    raise Fail("no result in %d s" % TEST_SECONDS)


def main():
    if len(sys.argv) < 3 or any(t not in TESTS for t in sys.argv[2:]):
        print(__doc__, file=sys.stderr)
        return 2
    peer = Peer(sys.argv[1])
    signal.signal(signal.SIGALRM, too_long)
    failed = 0
    for name in sys.argv[2:]:
        signal.alarm(TEST_SECONDS)
        try:
            TESTS[name](peer)
            print("ok   %s" % name, flush=True)
        except Exception as e:  # a test's own failure or a broken client
            failed += 1
            print("FAIL %s: %s: %s" % (name, type(e).__name__, e),
                  flush=True)
        signal.alarm(0)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
