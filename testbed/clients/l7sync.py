# SPDX-License-Identifier: GPL-2.0
"""The l7 checkpoint channel from outside the module: datagrams written by
hand in the channel's format, version 2 (the header of
ip_vs_l7/core/sync_peer.h, the records of core/conn_ckpt.h, sealed with
ChaCha20-Poly1305 under each sender's own key), captures of the sync link
and what an attacker on it can send; and the channel's IPVS_L7 commands.
Python 3 stdlib and python3-cryptography (the AEAD) only; an
implementation of its own, so that the module's format and cryptography
are checked against it, not against themselves.

The datagram, integers big-endian: a 48-byte header in clear and
authenticated (version 2, reserved 0, count u16, sync id u32, sender u64,
seq u64, challenge u64, echo u64, newest u64), then the count records
encrypted, then the 16-byte Poly1305 tag.  A sender's key is
HMAC-SHA256(shared key, "ip_vs_l7 sync v2" | sync id u32 | sender u64),
the nonce of datagram seq is 4 zero bytes and seq u64, the associated data
the header.  A HELLO is a datagram of no records (64 bytes).

  l7sync.py send KEYFILE SYNCID HOST PORT upsert|delete FIRST COUNT [GEN]
            [--mss N] [--ts|--no-ts] [--sack|--no-sack] [--bind ADDR]
            [--wait S] [--no-handshake] [--caddr ADDR] [--linger S]
      acts as the director's peer: binds ADDR:PORT (default the wildcard
      address), draws a random sender id and challenge, sends a HELLO to
      HOST:PORT (again every second) and waits up to S seconds (10) for a
      datagram from HOST:PORT that authenticates under HOST's key (its
      sender id from its header) to learn HOST's challenge; exit 1 if none
      comes.  Then UPSERTs or DELETEs of the tuples
      ADDR:FIRST..FIRST+COUNT-1 -> 198.51.100.1:80 (ADDR 198.51.100.10,
      the testbed's client, unless --caddr), generations
      GEN, GEN+1, ... (default GEN: the current time in ns), 15 to a
      datagram (they fit any MTU of 1280 and more), each echoing HOST's
      challenge, sequence numbers 2, 3, ... after the HELLO's 1.  The
      shared key is in KEYFILE (64 hex digits).  An UPSERT is a connection
      between two requests, 100 bytes in and 1000 out, of MSS N (1460),
      timestamps and SACK agreed unless --no-ts, --no-sack.
      --linger S: then a HELLO every 250 ms for S seconds more, from a child
      process (the command returns at once), as a live director sends
      them: the director does not find this peer silent and probe the
      clients of its records.  Killed, it stops.
      --no-handshake: no HELLO, no waiting: the records' datagrams at once,
      echo 0 (for datagrams the director must refuse before it looks at
      the sender: a wrong key, a wrong sync id, a foreign source).
  l7sync.py send-bad KEYFILE SYNCID HOST PORT short|version|count|trailing|tag
      one datagram with one UPSERT, from PORT, that must not be taken:
        short     63 bytes, a HELLO less its last byte          (malformed)
        version   a version 1 header                            (malformed)
        count     a count of 10, which its length cannot hold   (malformed)
        trailing  a byte after the record, sealed; sent after a
                  handshake as `send` makes, echoing HOST's challenge
                                                                (malformed)
        tag       one bit of the tag flipped                     (bad_hmac)
  l7sync.py capture IFACE SECONDS FILE [--port PORT]
      an AF_PACKET socket on IFACE for up to SECONDS (or until SIGTERM):
      every UDP datagram from or to PORT (8849), IPv4 or IPv6, one JSON
      line each in FILE, written as it comes: {"t", "src", "dst", "sport",
      "dport", "count", "len", "payload" (hex)}; count is the header's
      record count (bytes 2-3, in clear in both versions).  FILE exists
      once the socket listens.
  l7sync.py replay FILE SRC DST PORT [--from ADDR] [--to ADDR] [--records]
            [--first N]
      the payloads captured in FILE, in order, sent again to DST:PORT from
      the spoofed source SRC:PORT (a raw IPv4 socket, IP_HDRINCL);
      --from/--to keep the datagrams captured from/to ADDR, --records
      those that carry records (count > 0), --first the first N of them.
      Exit 1 if none is left to send.
  l7sync.py flood HOST PORT SECONDS [--src ADDR] [--syncid ID] [--size N]
      crafted datagrams to HOST:PORT as fast as it can for SECONDS: version
      2 headers with sync id ID (0), random sender ids and sequence
      numbers, one record's worth of random bytes and a random tag, N bytes
      in all (144: one IPv4 UPSERT); from PORT, or with --src from the
      spoofed source ADDR:PORT (a raw socket), e.g. the director's peer,
      so that they pass its source check and meet its authentication.
      Prints how many it sent.
  l7sync.py grep-clear FILE HEXBYTES... [--need-records N]
      whether the payloads captured in FILE hold any of the byte strings
      (hex, spaces allowed): prints each found, with how many datagrams
      hold it; exit 0 if none is found (the capture is clear of them), 1
      if any is, 2 if FILE holds fewer than N datagrams with records (1).
  l7sync.py selftest
      no network but loopback: the key derivation and the header against
      sync_peer.h's definitions written out again, ChaCha20-Poly1305
      against RFC 8439's test vector, then a director's rule of
      sync_peer.h (accept, replay window, reflection, challenge) run
      in-process on 127.0.0.2 against `send`'s own code on 127.0.0.1:
      handshake, records, a replay, a reflection, a stale echo.
  l7sync.py start-eperm
      IPVS_L7_CMD_START_SYNC, GET_SYNC and STOP_SYNC, each refused with
      EPERM (run without privilege over the namespace)
Exit status 0 on success.
"""
import argparse
import errno
import hashlib
import hmac
import ipaddress
import json
import os
import select
import signal
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawnet import csum  # noqa: E402

VERSION = 2
UPSERT, DELETE, LOAD = 1, 2, 3
LOAD_HEAD = 16              # a LOAD before its two addresses
ADDR_LEN = {4: 4, 6: 16}
HDR = struct.Struct(">BBHIQQQQQ")       # sync_peer.h, 48 bytes
HDR_LEN = HDR.size
TAG_LEN = 16
KDF_LABEL = b"ip_vs_l7 sync v2"
WINDOW = 64
PER_DGRAM = 15
HELLO_LEN = HDR_LEN + TAG_LEN
HELLO_EVERY = 0.25      # s, L7_SYNC_HELLO_MS: a director loses a peer after 1
# records (conn_ckpt.h): kind, family, reserved, gen; ports, addresses
REC_HEAD = 12
UPSERT_BODY = 12 * 4 + 2 + 2 + 1 + 1 + 1 + 1
REC_MIN = REC_HEAD + 4 + 2 * 4            # an IPv4 DELETE: 24
REC_MAX = REC_HEAD + 4 + 2 * 16 + UPSERT_BODY   # an IPv6 UPSERT: 104
DEFAULT_PORT = 8849

# IPVS_L7 (uapi/ip_vs_l7_genl.h)
CMD_START_SYNC, CMD_STOP_SYNC, CMD_GET_SYNC = 14, 15, 16
A_SYNC = 8
SYNC_ROLE, SYNC_IFNAME, SYNC_PEER, SYNC_PORT, SYNC_ID, SYNC_KEY = range(1, 7)
SYNC_PEERS = 11


# ---- the format ----

def read_key(path):
    with open(path) as f:
        return bytes.fromhex(f.read().strip())


def sender_key(shared, sync_id, sender):
    msg = KDF_LABEL + struct.pack(">IQ", sync_id, sender)
    return hmac.new(shared, msg, hashlib.sha256).digest()


def nonce(seq):
    return bytes(4) + struct.pack(">Q", seq)


def aead(key):
    # imported here: capture, replay and grep-clear run without it
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    return ChaCha20Poly1305(key)


class Hdr:
    FIELDS = ("version", "reserved", "count", "sync_id", "sender", "seq",
              "challenge", "echo", "newest")

    def __init__(self, **kw):
        self.version = VERSION
        self.reserved = 0
        self.count = 0
        self.sync_id = 0
        self.sender = 0
        self.seq = 0
        self.challenge = 0
        self.echo = 0
        self.newest = 0
        for k, v in kw.items():
            setattr(self, k, v)

    def pack(self):
        return HDR.pack(*(getattr(self, f) for f in self.FIELDS))

    @classmethod
    def unpack(cls, buf):
        return cls(**dict(zip(cls.FIELDS, HDR.unpack_from(buf))))

    def __repr__(self):
        return "Hdr(%s)" % ", ".join("%s=%#x" % (f, getattr(self, f))
                                     for f in self.FIELDS)


def hdr_get(buf):
    """The header of a datagram that may hold its count of records, or
    None: what a director checks before any cryptography."""
    if len(buf) < HELLO_LEN:
        return None
    h = Hdr.unpack(buf)
    body = len(buf) - HELLO_LEN
    if h.version != VERSION or h.reserved:
        return None
    if not h.count * REC_MIN <= body <= h.count * REC_MAX:
        return None
    return h


def dest_bytes(addr):
    """The destination in the associated data (sync_peer.h): 16 bytes,
    an IPv4 address mapped."""
    if family_of(addr) == socket.AF_INET:
        return bytes(10) + b"\xff\xff" + socket.inet_aton(addr)
    return socket.inet_pton(socket.AF_INET6, addr)


def seal(shared, h, recs, dest):
    """The datagram of header @h (count filled in unless set) and the
    record bytes @recs, sealed under the key of h.sender for the director
    at address @dest."""
    body = b"".join(recs)
    if h.count is None:
        h.count = len(recs)
    hdr = h.pack()
    key = sender_key(shared, h.sync_id, h.sender)
    return hdr + aead(key).encrypt(nonce(h.seq), body, hdr + dest_bytes(dest))


def open_dgram(shared, sync_id, buf, dest):
    """(header, plaintext) of a datagram, received at address @dest, that
    authenticates under the key of its own sender id and @sync_id (and
    was sent to @dest), or None."""
    from cryptography.exceptions import InvalidTag
    h = hdr_get(buf)
    if h is None:
        return None
    key = sender_key(shared, sync_id, h.sender)
    try:
        pt = aead(key).decrypt(nonce(h.seq), bytes(buf[HDR_LEN:]),
                               bytes(buf[:HDR_LEN]) + dest_bytes(dest))
    except InvalidTag:
        return None
    return h, pt


CLIENT = "198.51.100.10"


def tuple_bytes(cport, caddr=CLIENT):
    return (struct.pack(">HH", cport, 80) +
            socket.inet_aton(caddr) + socket.inet_aton("198.51.100.1"))


def record(kind, gen, cport, mss=1460, ts=True, sack=True, caddr=CLIENT):
    head = struct.pack(">BBHQ", kind, 4, 0, gen) + tuple_bytes(cport, caddr)
    if kind == DELETE:
        return head
    # between two requests: 100 bytes in, 1000 out, all acknowledged;
    # the client's window 512 << 7, its largest
    body = struct.pack(">12I", 1100, 1100, 1100 + 65535, 5000, 5000, 4000,
                       1100, 512 << 7, 777, 888, 5, 3)
    flags = (1 if ts else 0) | (2 if sack else 0)
    return head + body + struct.pack(">HHbbBB", 512, mss, 7, 7, flags, 0)


def rand64():
    while True:
        v = struct.unpack(">Q", os.urandom(8))[0]
        if v:
            return v


# ---- a peer of a director ----

def local_addr_to(host, port):
    """This host's address toward @host, as routing picks it."""
    s = socket.socket(family_of(host), socket.SOCK_DGRAM)
    try:
        s.connect((host, port))
        return s.getsockname()[0]
    finally:
        s.close()


def family_of(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


class Peer:
    """This end of a channel with the director at HOST:PORT: a random
    sender id and challenge, sequence numbers from 1."""

    def __init__(self, shared, sync_id, host, port, bind=None):
        self.shared = shared
        self.sync_id = sync_id
        self.host = host
        self.port = port
        self.sender = rand64()
        self.challenge = rand64()
        self.seq = 0
        self.echo = 0
        af = family_of(host)
        self.sock = socket.socket(af, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((bind or ("::" if af == socket.AF_INET6 else "0.0.0.0"),
                        port))
        # where HOST's datagrams come in to: the address routing picks
        self.local = bind or local_addr_to(host, port)

    def close(self):
        self.sock.close()

    def hdr(self, **kw):
        self.seq += 1
        h = Hdr(sync_id=self.sync_id, sender=self.sender, seq=self.seq,
                challenge=self.challenge, echo=self.echo, count=None)
        for k, v in kw.items():
            setattr(h, k, v)
        return h

    def dgram(self, recs, **kw):
        return seal(self.shared, self.hdr(**kw), recs, self.host)

    def send(self, buf):
        self.sock.sendto(buf, (self.host, self.port))

    def from_host(self, addr):
        try:
            a = ipaddress.ip_address(addr[0].split("%")[0])
            return a == ipaddress.ip_address(self.host) and addr[1] == self.port
        except ValueError:
            return False

    def handshake(self, wait):
        """HELLOs until a datagram of HOST authenticates: its challenge is
        what ours echo from now on.  False if none in @wait seconds."""
        end = time.monotonic() + wait
        next_hello = 0
        while True:
            now = time.monotonic()
            if now >= end:
                return False
            if now >= next_hello:
                self.send(self.dgram([]))
                next_hello = now + 1
            r, _, _ = select.select([self.sock], [], [],
                                    min(end, next_hello) - now)
            if not r:
                continue
            if self.learn():
                return True

    def learn(self):
        """Read one datagram: if HOST's and authentic, its challenge is
        what ours echo from now on (HOST draws a new one when it accepts
        our start).  Whether it was."""
        buf, addr = self.sock.recvfrom(65535)
        if not self.from_host(addr):
            return False
        got = open_dgram(self.shared, self.sync_id, buf, self.local)
        if got is None or got[0].sender == self.sender:
            return False
        self.echo = got[0].challenge
        return True


# ---- commands ----

def build_recs(kind, first, count, gen, mss, ts, sack, caddr=CLIENT):
    gen = int(gen) if gen is not None else time.time_ns()
    kind = {"upsert": UPSERT, "delete": DELETE}[kind]
    # each its own generation: a store that evicts one raises its floor
    # to it, and would take no later record of the same generation
    return [record(kind, gen + i, first + i, mss, ts, sack, caddr)
            for i in range(count)]


def cmd_send(a):
    shared = read_key(a.keyfile)
    recs = build_recs(a.kind, a.first, a.count, a.gen, a.mss, a.ts, a.sack,
                      a.caddr)
    p = Peer(shared, a.syncid, a.host, a.port, a.bind)
    try:
        if not a.no_handshake and not p.handshake(a.wait):
            print("send: no authenticated datagram from %s:%d in %g s"
                  % (a.host, a.port, a.wait), file=sys.stderr)
            return 1
        for i in range(0, len(recs), PER_DGRAM):
            p.send(p.dgram(recs[i:i + PER_DGRAM]))
        if a.linger > 0 and not a.no_handshake and os.fork() == 0:
            linger(p, a.linger)
    finally:
        p.close()
    return 0


def linger(p, secs):
    """In the child: a HELLO every 250 ms (as a director sends them) for
    @secs, echoing HOST's newest challenge, then exit."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    end = time.monotonic() + secs
    next_hello = 0
    while True:
        now = time.monotonic()
        if now >= end:
            os._exit(0)
        try:
            if now >= next_hello:
                p.send(p.dgram([]))
                next_hello = now + HELLO_EVERY
            r, _, _ = select.select([p.sock], [], [],
                                    min(end, next_hello) - now)
            if r:
                p.learn()
        except OSError:         # the director's port closed meanwhile
            time.sleep(1)


def cmd_send_bad(a):
    shared = read_key(a.keyfile)
    rec = record(UPSERT, time.time_ns(), 30000)
    p = Peer(shared, a.syncid, a.host, a.port, a.bind)
    try:
        if a.how == "short":
            buf = p.dgram([])[:HELLO_LEN - 1]
        elif a.how == "version":
            buf = p.dgram([rec], version=1)
        elif a.how == "count":
            buf = p.dgram([rec], count=10)
        elif a.how == "trailing":
            if not p.handshake(a.wait):
                print("send-bad: no authenticated datagram from %s:%d"
                      % (a.host, a.port), file=sys.stderr)
                return 1
            buf = p.dgram([rec, b"\0"], count=1)
        else:   # tag
            buf = bytearray(p.dgram([rec]))
            buf[-1] ^= 0x01
            buf = bytes(buf)
        p.send(buf)
    finally:
        p.close()
    return 0


def parse_frame(frame, port):
    """(src, dst, sport, dport, payload) of an Ethernet frame holding a
    UDP datagram from or to @port, or None."""
    if len(frame) < 14:
        return None
    etype = struct.unpack_from(">H", frame, 12)[0]
    off = 14
    if etype == 0x8100 and len(frame) >= 18:
        etype = struct.unpack_from(">H", frame, 16)[0]
        off = 18
    if etype == 0x0800:
        if len(frame) < off + 20:
            return None
        ihl = (frame[off] & 0x0f) * 4
        proto = frame[off + 9]
        frag = struct.unpack_from(">H", frame, off + 6)[0]
        if proto != 17 or frag & 0x1fff:
            return None
        total = struct.unpack_from(">H", frame, off + 2)[0]
        src = socket.inet_ntop(socket.AF_INET, frame[off + 12:off + 16])
        dst = socket.inet_ntop(socket.AF_INET, frame[off + 16:off + 20])
        udp = off + ihl
        end = off + total
    elif etype == 0x86dd:
        if len(frame) < off + 40 or frame[off + 6] != 17:
            return None
        plen = struct.unpack_from(">H", frame, off + 4)[0]
        src = socket.inet_ntop(socket.AF_INET6, frame[off + 8:off + 24])
        dst = socket.inet_ntop(socket.AF_INET6, frame[off + 24:off + 40])
        udp = off + 40
        end = udp + plen
    else:
        return None
    if len(frame) < udp + 8:
        return None
    sport, dport, ulen = struct.unpack_from(">HHH", frame, udp)
    if port not in (sport, dport):
        return None
    payload = frame[udp + 8:min(end, udp + ulen, len(frame))]
    return src, dst, sport, dport, payload


def cmd_capture(a):
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
    s.bind((a.iface, 0))
    n = 0
    end = time.monotonic() + a.seconds
    with open(a.file, "w", buffering=1) as out:
        while not stop:
            left = end - time.monotonic()
            if left <= 0:
                break
            try:
                r, _, _ = select.select([s], [], [], min(left, 0.5))
            except InterruptedError:
                continue
            if not r:
                continue
            frame = s.recv(65535)
            got = parse_frame(frame, a.port)
            if got is None:
                continue
            src, dst, sport, dport, payload = got
            count = (struct.unpack_from(">H", payload, 2)[0]
                     if len(payload) >= 4 else -1)
            out.write(json.dumps({"t": time.time(), "src": src, "dst": dst,
                                  "sport": sport, "dport": dport,
                                  "count": count, "len": len(payload),
                                  "payload": payload.hex()}) + "\n")
            n += 1
    print("captured %d datagrams" % n)
    return 0


def load_capture(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def udp4(src, dst, port, payload, ident=0):
    """An IPv4 packet, header and all, of a UDP datagram @port -> @port."""
    s, d = socket.inet_aton(src), socket.inet_aton(dst)
    ulen = 8 + len(payload)
    pseudo = s + d + struct.pack(">BBH", 0, 17, ulen)
    udp = struct.pack(">HHHH", port, port, ulen, 0) + payload
    c = csum(pseudo + udp) or 0xffff
    udp = udp[:6] + struct.pack(">H", c) + udp[8:]
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + ulen, ident, 0x4000,
                     64, 17, 0, s, d)
    ip = ip[:10] + struct.pack(">H", csum(ip)) + ip[12:]
    return ip + udp


def raw4():
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_HDRINCL, 1)
    return s


def cmd_replay(a):
    if ":" in a.src or ":" in a.dst:
        print("replay: IPv4 only", file=sys.stderr)
        return 2
    dgrams = [d for d in load_capture(a.file)
              if (a.from_ is None or d["src"] == a.from_) and
              (a.to is None or d["dst"] == a.to) and
              (not a.records or d["count"] > 0)]
    if a.first is not None:
        dgrams = dgrams[:a.first]
    if not dgrams:
        print("replay: nothing to send")
        return 1
    s = raw4()
    for i, d in enumerate(dgrams):
        s.sendto(udp4(a.src, a.dst, a.port, bytes.fromhex(d["payload"]),
                      i + 1), (a.dst, 0))
    print("replayed %d datagrams (%s)" % (
        len(dgrams), " ".join("%d records" % d["count"] for d in dgrams)))
    return 0


def cmd_flood(a):
    body = max(a.size - HELLO_LEN, 0)
    count = 1 if body >= REC_MIN else 0
    pkts = []
    for i in range(256):
        h = Hdr(count=count, sync_id=a.syncid, sender=rand64(), seq=rand64(),
                challenge=rand64(), echo=rand64(), newest=0)
        payload = h.pack() + os.urandom(body + TAG_LEN)
        pkts.append(payload)
    if a.src:
        s = raw4()
        pkts = [udp4(a.src, a.host, a.port, p, i) for i, p in enumerate(pkts)]
        dest = (a.host, 0)
    else:
        s = socket.socket(family_of(a.host), socket.SOCK_DGRAM)
        s.bind(("0.0.0.0" if family_of(a.host) == socket.AF_INET else "::",
                a.port))
        dest = (a.host, a.port)
    s.setblocking(False)
    sent = dropped = 0
    end = time.monotonic() + a.seconds
    while time.monotonic() < end:
        for p in pkts:
            try:
                s.sendto(p, dest)
                sent += 1
            except OSError as e:
                if e.errno not in (errno.EAGAIN, errno.ENOBUFS):
                    raise
                dropped += 1
    print("flood: %d datagrams sent in %g s (%d refused by the socket)"
          % (sent, a.seconds, dropped))
    return 0


def cmd_grep_clear(a):
    dgrams = load_capture(a.file)
    with_recs = sum(1 for d in dgrams if d["count"] > 0)
    if with_recs < a.need_records:
        print("%d datagrams captured, %d with records: fewer than %d"
              % (len(dgrams), with_recs, a.need_records))
        return 2
    found = False
    for hexs in a.hexbytes:
        needle = bytes.fromhex(hexs.replace(" ", ""))
        n = sum(1 for d in dgrams if needle in bytes.fromhex(d["payload"]))
        if n:
            found = True
            print("found %s in %d of %d datagrams" % (needle.hex(), n,
                                                      len(dgrams)))
    if not found:
        print("none of them in %d datagrams (%d with records)"
              % (len(dgrams), with_recs))
    return 1 if found else 0


def cmd_start_eperm(a):
    from l7nl import Genl, NlError, nest, nla, u8, be16
    g = Genl()
    start = nest(A_SYNC, u8(SYNC_ROLE, 2), nla(SYNC_IFNAME, b"lo\0"),
                 nla(SYNC_PEER, socket.inet_aton("127.0.0.1")),
                 be16(SYNC_PORT, 8849), nla(SYNC_KEY, bytes(32)))
    for cmd, attrs in ((CMD_START_SYNC, (start,)), (CMD_GET_SYNC, ()),
                       (CMD_STOP_SYNC, ())):
        try:
            g.do(cmd, *attrs)
        except NlError as e:
            if e.errno != errno.EPERM:
                print("command %d: errno %d, not EPERM" % (cmd, e.errno))
                return 1
            continue
        print("command %d accepted" % cmd)
        return 1
    return 0


def cmd_start_peers(a):
    """START_SYNC with peer lists a kernel must refuse, each refused with
    EINVAL or E2BIG and nothing started; then eight peers, started, and
    stopped again.  Prints one line per case."""
    from l7nl import Genl, NlError, nest, nla, u8, be16
    g = Genl()
    v4 = [socket.inet_aton("203.0.113.%d" % (10 + i)) for i in range(9)]

    def start(*peer_attrs):
        return nest(A_SYNC, u8(SYNC_ROLE, 3), nla(SYNC_IFNAME, b"sync0\0"),
                    be16(SYNC_PORT, 8849), nla(SYNC_KEY, os.urandom(32)),
                    *peer_attrs)

    def peers(*addrs):
        return nest(SYNC_PEERS, *(nla(SYNC_PEER, x) for x in addrs))

    refused = (
        ("nine peers", start(peers(*v4))),
        ("a peer twice", start(peers(v4[0], v4[1], v4[0]))),
        ("two families", start(peers(v4[0], socket.inet_pton(
            socket.AF_INET6, "2001:db8:203::9")))),
        ("an address of 5 bytes", start(peers(v4[0], v4[1] + b"\0"))),
        ("another attribute among the peers",
         start(nest(SYNC_PEERS, nla(SYNC_PEER, v4[0]), nla(SYNC_ID, v4[1])))),
        ("peer not the first of peers",
         start(nla(SYNC_PEER, v4[1]), peers(v4[0], v4[1]))),
        ("no peer in peers", start(nest(SYNC_PEERS))),
    )
    bad = 0
    for name, attrs in refused:
        try:
            g.do(CMD_START_SYNC, attrs)
        except NlError as e:
            ok = e.errno in (errno.EINVAL, errno.E2BIG)
            print("%s %s: errno %d" % ("ok  " if ok else "FAIL", name, e.errno))
            bad += not ok
            continue
        print("FAIL %s: started" % name)
        g.do(CMD_STOP_SYNC)
        bad += 1
    try:
        g.do(CMD_START_SYNC, start(nla(SYNC_PEER, v4[0]), peers(*v4[:8])))
        g.do(CMD_STOP_SYNC)
        print("ok   eight peers: started and stopped")
    except NlError as e:
        print("FAIL eight peers: errno %d" % e.errno)
        bad += 1
    return 1 if bad else 0


# ---- the self-test ----

class Director:
    """sync_peer.h's rule, as a director runs it, written from its
    comments: enough of a director for `send` to shake hands with."""

    def __init__(self, shared, sync_id, addr, port, peer):
        self.shared = shared
        self.sync_id = sync_id
        self.addr = addr
        self.peer = (peer, port)
        self.self_id = rand64()
        self.challenge = rand64()
        self.sender = 0
        self.top = 0
        self.seen = 0
        self.echo = 0
        self.seq = 0
        self.records = []
        self.counts = {}
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((addr, port))
        self.sock.settimeout(0.2)
        self.done = threading.Event()

    def count(self, name):
        self.counts[name] = self.counts.get(name, 0) + 1

    def hello(self):
        self.seq += 1
        h = Hdr(count=0, sync_id=self.sync_id, sender=self.self_id,
                seq=self.seq, challenge=self.challenge, echo=self.echo)
        self.sock.sendto(seal(self.shared, h, [], self.peer[0]), self.peer)

    def verdict(self, h):
        if h.sender == self.self_id:
            return "reflected"
        if h.sender == self.sender:
            if h.seq > self.top:
                shift = h.seq - self.top
                self.seen = ((self.seen << shift) | 1) if shift < WINDOW else 1
                self.seen &= (1 << WINDOW) - 1
                self.top = h.seq
            elif self.top - h.seq >= WINDOW or \
                    self.seen >> (self.top - h.seq) & 1:
                return "replayed"
            else:
                self.seen |= 1 << (self.top - h.seq)
            self.echo = h.challenge
            return "take"
        if h.echo != self.challenge:
            self.echo = h.challenge
            return "unknown_peer"
        self.sender, self.top, self.seen = h.sender, h.seq, 1
        self.echo = h.challenge
        self.challenge = rand64()
        self.count("peers")
        return "take"

    def run(self):
        self.hello()
        while not self.done.is_set():
            try:
                buf, addr = self.sock.recvfrom(65535)
            except socket.timeout:
                continue
            if addr != self.peer:
                self.count("bad_source")
                continue
            if hdr_get(buf) is None:
                self.count("malformed")
                continue
            got = open_dgram(self.shared, self.sync_id, buf, self.addr)
            if got is None:
                self.count("bad_hmac")
                continue
            h, pt = got
            v = self.verdict(h)
            self.count(v)
            if v == "unknown_peer":
                self.hello()
            elif v == "take":
                at = 0
                for _ in range(h.count):
                    if pt[at] == LOAD:     # a director's load, no record
                        at += (LOAD_HEAD + ADDR_LEN.get(pt[at + 1], 0) +
                               ADDR_LEN.get(pt[at + 4], 0))
                        continue
                    n = REC_HEAD + 12 + (UPSERT_BODY if pt[at] == UPSERT
                                         else 0)
                    self.records.append(pt[at:at + n])
                    at += n
                if at != len(pt):
                    self.count("malformed")


def selftest(_a):
    ok = True

    def check(what, cond):
        nonlocal ok
        print("%s %s" % ("ok  " if cond else "FAIL", what))
        ok = ok and cond

    # RFC 8439 2.8.2: the AEAD as the kernel's rfc7539(chacha20,poly1305)
    key = bytes(range(0x80, 0xa0))
    n = bytes.fromhex("070000004041424344454647")
    aad = bytes.fromhex("50515253c0c1c2c3c4c5c6c7")
    pt = (b"Ladies and Gentlemen of the class of '99: If I could offer you "
          b"only one tip for the future, sunscreen would be it.")
    ct = aead(key).encrypt(n, pt, aad)
    check("ChaCha20-Poly1305: RFC 8439 2.8.2's ciphertext and tag",
          ct[:16].hex() == "d31a8d34648e60db7b86afbc53ef7ec2" and
          ct[-16:].hex() == "1ae10b594f09e26a7e902ecbd0600691")

    # a datagram against sync_peer.h written out again, byte by byte
    shared = os.urandom(32)
    h = Hdr(count=1, sync_id=7, sender=0x0102030405060708, seq=9,
            challenge=0x1111111111111111, echo=0x2222222222222222,
            newest=0x3333333333333333)
    rec = record(UPSERT, 5, 40000)
    to = "203.0.113.2"
    d = seal(shared, h, [rec], to)
    want_hdr = (b"\x02\x00\x00\x01" + b"\x00\x00\x00\x07" +
                bytes.fromhex("0102030405060708") + bytes(7) + b"\x09" +
                b"\x11" * 8 + b"\x22" * 8 + b"\x33" * 8)
    check("header: 48 bytes as sync_peer.h lays them out",
          d[:48] == want_hdr)
    check("length: header, record, tag", len(d) == 48 + 80 + 16)
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.hmac import HMAC
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    m = HMAC(shared, hashes.SHA256())
    m.update(b"ip_vs_l7 sync v2" + b"\x00\x00\x00\x07" +
             bytes.fromhex("0102030405060708"))
    k2 = m.finalize()
    check("key: an independent HMAC-SHA256 gives the same",
          k2 == sender_key(shared, 7, 0x0102030405060708))
    try:
        plain = ChaCha20Poly1305(k2).decrypt(
            bytes(4) + bytes(7) + b"\x09", d[48:],
            want_hdr + bytes(10) + b"\xff\xff" + bytes([203, 0, 113, 2]))
        check("a datagram decrypts under the independent key and nonce, "
              "its destination after the header in the associated data",
              plain == rec)
    except Exception as e:  # noqa: BLE001
        check("a datagram decrypts under the independent key: %s" % e, False)
    check("no clear record bytes in it", tuple_bytes(40000) not in d and
          socket.inet_aton("198.51.100.10") not in d)
    check("a HELLO is 64 bytes",
          len(seal(shared, Hdr(count=0), [], to)) == 64)
    check("hdr_get: a count the length cannot hold",
          hdr_get(seal(shared, Hdr(count=10), [rec], to)) is None)
    check("hdr_get: version 1",
          hdr_get(seal(shared, Hdr(count=1, version=1), [rec], to)) is None)
    check("hdr_get: 63 bytes",
          hdr_get(seal(shared, Hdr(count=0), [], to)[:63]) is None)
    check("opens only at its destination",
          open_dgram(shared, 7, d, to) is not None and
          open_dgram(shared, 7, d, "203.0.113.3") is None)
    bad = bytearray(d)
    bad[-1] ^= 1
    check("a flipped tag bit does not open",
          open_dgram(shared, 7, bytes(bad), to) is None)

    # two peers on loopback: the director rule against `send`'s code
    port = 18849
    dr = Director(shared, 7, "127.0.0.2", port, "127.0.0.1")
    t = threading.Thread(target=dr.run)
    t.start()
    try:
        p = Peer(shared, 7, "127.0.0.2", port, "127.0.0.1")
        check("handshake", p.handshake(5))
        sent = []
        recs = build_recs("upsert", 41000, 20, None, 1460, True, True)
        for i in range(0, len(recs), PER_DGRAM):
            sent.append(p.dgram(recs[i:i + PER_DGRAM]))
            p.send(sent[-1])
        deadline = time.monotonic() + 5
        while len(dr.records) < 20 and time.monotonic() < deadline:
            time.sleep(0.05)
        check("20 records taken, as sent", dr.records == recs)
        check("the peer accepted once", dr.counts.get("peers") == 1)
        p.send(sent[0])                  # a replay
        p.sock.sendto(seal(shared, Hdr(count=0, sync_id=7,
                                       sender=dr.self_id, seq=1), [],
                           "127.0.0.2"),
                      ("127.0.0.2", port))   # a reflection
        q = Peer(shared, 7, "127.0.0.2", port + 1, "127.0.0.1")
        q.sock.sendto(q.dgram([recs[0]], echo=p.echo),
                      ("127.0.0.2", port))   # a foreign source
        q.close()
        time.sleep(0.5)
        check("replay, reflection, foreign source dropped: %s" % dr.counts,
              dr.counts.get("replayed") == 1 and
              dr.counts.get("reflected") == 1 and
              dr.counts.get("bad_source") == 1 and len(dr.records) == 20)
        p.close()
        # a new sender echoing a challenge the director has since replaced
        r = Peer(shared, 7, "127.0.0.2", port, "127.0.0.1")
        r.echo = p.echo
        r.send(r.dgram([recs[0]]))
        time.sleep(0.5)
        check("a stale echo: not taken", len(dr.records) == 20 and
              dr.counts.get("unknown_peer", 0) >= 1)
        r.close()
    finally:
        dr.done.set()
        t.join()
        dr.sock.close()
    print("selftest: %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


def main(argv):
    ap = argparse.ArgumentParser(prog="l7sync.py", add_help=False)
    sub = ap.add_subparsers(dest="cmd")

    def peer_opts(sp):
        sp.add_argument("keyfile")
        sp.add_argument("syncid", type=int)
        sp.add_argument("host")
        sp.add_argument("port", type=int)
        sp.add_argument("--bind")
        sp.add_argument("--wait", type=float, default=10)

    sp = sub.add_parser("send")
    peer_opts(sp)
    sp.add_argument("kind", choices=("upsert", "delete"))
    sp.add_argument("first", type=int)
    sp.add_argument("count", type=int)
    sp.add_argument("gen", nargs="?")
    sp.add_argument("--mss", type=int, default=1460)
    sp.add_argument("--caddr", default=CLIENT)
    sp.add_argument("--ts", action=argparse.BooleanOptionalAction,
                    default=True)
    sp.add_argument("--sack", action=argparse.BooleanOptionalAction,
                    default=True)
    sp.add_argument("--no-handshake", action="store_true")
    sp.add_argument("--linger", type=float, default=0)
    sp.set_defaults(fn=cmd_send)

    sp = sub.add_parser("send-bad")
    peer_opts(sp)
    sp.add_argument("how", choices=("short", "version", "count", "trailing",
                                    "tag"))
    sp.set_defaults(fn=cmd_send_bad)

    sp = sub.add_parser("capture")
    sp.add_argument("iface")
    sp.add_argument("seconds", type=float)
    sp.add_argument("file")
    sp.add_argument("--port", type=int, default=DEFAULT_PORT)
    sp.set_defaults(fn=cmd_capture)

    sp = sub.add_parser("replay")
    sp.add_argument("file")
    sp.add_argument("src")
    sp.add_argument("dst")
    sp.add_argument("port", type=int)
    sp.add_argument("--from", dest="from_")
    sp.add_argument("--to")
    sp.add_argument("--records", action="store_true")
    sp.add_argument("--first", type=int)
    sp.set_defaults(fn=cmd_replay)

    sp = sub.add_parser("flood")
    sp.add_argument("host")
    sp.add_argument("port", type=int)
    sp.add_argument("seconds", type=float)
    sp.add_argument("--src")
    sp.add_argument("--syncid", type=int, default=0)
    sp.add_argument("--size", type=int, default=HELLO_LEN + 80)
    sp.set_defaults(fn=cmd_flood)

    sp = sub.add_parser("grep-clear")
    sp.add_argument("file")
    sp.add_argument("hexbytes", nargs="+")
    sp.add_argument("--need-records", type=int, default=1)
    sp.set_defaults(fn=cmd_grep_clear)

    sub.add_parser("selftest").set_defaults(fn=selftest)
    sub.add_parser("start-eperm").set_defaults(fn=cmd_start_eperm)
    sub.add_parser("start-peers").set_defaults(fn=cmd_start_peers)

    if len(argv) < 2 or argv[1] not in sub.choices:
        print(__doc__, file=sys.stderr)
        return 2
    args = ap.parse_args(argv[1:])
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
