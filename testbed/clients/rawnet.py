# SPDX-License-Identifier: GPL-2.0
"""What the raw-packet clients (rawtcp.py, hostile_client.py) share and
scapy does not give: the Internet checksum, the ICMP "fragmentation
needed" a router sends, raw sockets in another network namespace, and a
reader of HTTP responses off a byte stream.  Plain Python: it loads fast
in an emulated guest.
"""

import contextlib
import ctypes
import os
import socket
import struct

CLONE_NEWNET = 0x40000000


def csum(data):
    """The Internet checksum (RFC 1071) of @data."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def icmp_frag_needed(qsrc, qdst, sport, dport, seq, mtu, qlen=1500):
    """An ICMP "fragmentation needed" (type 3 code 4, RFC 1191) with
    next-hop @mtu about a TCP segment qsrc:sport -> qdst:dport at @seq of
    @qlen bytes: the quoted IP header (DF set) and the first 8 bytes of
    its TCP header, as a router sends it."""
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, qlen, 0x1234, 0x4000, 63,
                     socket.IPPROTO_TCP, 0, socket.inet_aton(qsrc),
                     socket.inet_aton(qdst))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    msg = struct.pack("!BBHHH", 3, 4, 0, 0, mtu) + ip + \
        struct.pack("!HHI", sport, dport, seq & 0xFFFFFFFF)
    return msg[:2] + struct.pack("!H", csum(msg)) + msg[4:]


@contextlib.contextmanager
def netns(name):
    """Run the body in network namespace @name (as ip netns names it);
    sockets made there stay in it afterwards."""
    libc = ctypes.CDLL(None, use_errno=True)
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    there = os.open("/run/netns/" + name, os.O_RDONLY)
    try:
        if libc.setns(there, CLONE_NEWNET):
            raise OSError(ctypes.get_errno(), "setns " + name)
        try:
            yield
        finally:
            if libc.setns(home, CLONE_NEWNET):
                raise OSError(ctypes.get_errno(), "setns back")
    finally:
        os.close(there)
        os.close(home)


def icmp_socket(ns):
    """A raw ICMP socket in namespace @ns: the kernel adds the IP header
    with that namespace's source address."""
    with netns(ns):
        return socket.socket(socket.AF_INET, socket.SOCK_RAW,
                             socket.IPPROTO_ICMP)


def dechunk(data, pos):
    """(body, end) of a chunked body at @pos of @data, or None."""
    body = b""
    while True:
        e = data.find(b"\r\n", pos)
        if e < 0:
            return None
        try:
            size = int(data[pos:e].split(b";")[0], 16)
        except ValueError:
            return None
        pos = e + 2
        if not size:
            # trailer fields, if any, then an empty line
            if data.startswith(b"\r\n", pos):
                return body, pos + 2
            end = data.find(b"\r\n\r\n", pos)
            return None if end < 0 else (body, end + 4)
        if len(data) < pos + size + 2:
            return None
        body += data[pos:pos + size]
        pos += size + 2


def next_response(data, pos=0):
    """The whole HTTP response at @pos of @data as (status line, status
    code, body, end), or None: incomplete, unreadable, or delimited by
    the connection's close (which no reader of a live stream can tell)."""
    data = bytes(data)
    end = data.find(b"\r\n\r\n", pos)
    if end < 0:
        return None
    lines = data[pos:end].split(b"\r\n")
    parts = lines[0].split(b" ")
    if len(parts) < 2 or not parts[1].isdigit():
        return None
    code = int(parts[1])
    fields = {}
    for line in lines[1:]:
        k, _, v = line.partition(b":")
        fields[k.strip().lower()] = v.strip()
    body = end + 4
    if code < 200 or code in (204, 304):
        return lines[0], code, b"", body
    if fields.get(b"content-length", b"").isdigit():
        n = int(fields[b"content-length"])
        if len(data) < body + n:
            return None
        return lines[0], code, data[body:body + n], body + n
    if fields.get(b"transfer-encoding", b"").lower() == b"chunked":
        r = dechunk(data, body)
        return r and (lines[0], code, r[0], r[1])
    return None
