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
  urgent    a POST to /cgi-bin/echo whose body has a segment with URG set
            and the urgent pointer inside it: the echo is the whole body
  options   the same with a TCP-MD5 option (kind 19, 18 bytes) and an
            unknown one (kind 99) on body segments; the capture on the
            backend link holds the marked segment, without those options
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
from scapy.layers.inet import IP, TCP  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.utils import rdpcap  # noqa: E402

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


def dechunk(data):
    """(body, rest) of a chunked body at the start of @data, or None."""
    body = b""
    while True:
        line, sep, data = data.partition(b"\r\n")
        if not sep:
            return None
        size = int(line.split(b";")[0], 16)
        if not size:
            # trailer fields, if any, then an empty line
            if data.startswith(b"\r\n"):
                return body, data[2:]
            end = data.find(b"\r\n\r\n")
            return None if end < 0 else (body, data[end + 4:])
        if len(data) < size + 2:
            return None
        body += data[:size]
        data = data[size + 2:]


def split_response(data):
    """(status line, body, rest) if @data starts with a whole response."""
    head, sep, rest = data.partition(b"\r\n\r\n")
    if not sep:
        return None
    fields = {}
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        fields[k.strip().lower()] = v.strip()
    status = head.split(b"\r\n")[0]
    if fields.get(b"transfer-encoding", b"").lower() == b"chunked":
        r = dechunk(rest)
        return r and (status, r[0], r[1])
    n = int(fields.get(b"content-length", b"0"))
    return len(rest) >= n and (status, rest[:n], rest[n:])


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
    cap = Capture("options-backend", "br0", "tcp port 80")
    try:
        echo_post(peer, parts, opts_of=lambda i: (
            [MD5, UNKNOWN, ("NOP", None), ("NOP", None)] if i == 1 else
            [UNKNOWN, ("NOP", None), ("NOP", None)] if i == 2 else []))
    finally:
        pkts = cap.stop()
    check_backend_capture(pkts)


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


TESTS = {"urgent": t_urgent, "options": t_options, "synfin": t_synfin,
         "syn": t_syn, "rst-window": t_rst_window,
         "rst-outside": t_rst_outside, "rst-exact": t_rst_exact,
         "martian": t_martian}


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
