# SPDX-License-Identifier: GPL-2.0
"""The l7 checkpoint channel from outside the module: datagrams written by
hand (the format of ip_vs_l7/core/conn_ckpt.h, the HMAC-SHA256 of
uapi/ip_vs_l7_genl.h's channel), and its IPVS_L7 commands.  Python 3
stdlib only; an implementation of its own, so that the module's format and
HMAC are checked against it, not against themselves.

  l7sync.py send KEYFILE SYNCID HOST PORT upsert|delete FIRST COUNT [GEN]
            [--mss N]
      one datagram per 15 records (they fit any MTU of 1280 and more):
      UPSERTs or DELETEs of the tuples 198.51.100.10:FIRST..FIRST+COUNT-1
      -> 198.51.100.1:80, generations GEN, GEN+1, ... (default GEN: the
      current time in ns), HMAC under the key in KEYFILE (64 hex digits);
      the UPSERTs' mss N (default 1460)
  l7sync.py send-bad KEYFILE SYNCID HOST PORT short|version|count|trailing
      one datagram, rightly authenticated, that must not read
  l7sync.py start-eperm
      IPVS_L7_CMD_START_SYNC, GET_SYNC and STOP_SYNC, each refused with
      EPERM (run without privilege over the namespace)
Exit status 0 on success.
"""
import errno
import hashlib
import hmac
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from l7nl import Genl, NlError, nest, nla, u8, be16  # noqa: E402

VERSION = 1
UPSERT, DELETE = 1, 2
HMAC_OFF, HMAC_LEN = 8, 32
PER_DGRAM = 15

# IPVS_L7 (uapi/ip_vs_l7_genl.h)
CMD_START_SYNC, CMD_STOP_SYNC, CMD_GET_SYNC = 14, 15, 16
A_SYNC = 8
SYNC_ROLE, SYNC_IFNAME, SYNC_PEER, SYNC_PORT, SYNC_ID, SYNC_KEY = range(1, 7)


def read_key(path):
    with open(path) as f:
        return bytes.fromhex(f.read().strip())


def tuple_bytes(cport):
    return (struct.pack(">HH", cport, 80) +
            socket.inet_aton("198.51.100.10") + socket.inet_aton("198.51.100.1"))


MSS = 1460


def record(kind, gen, cport):
    head = struct.pack(">BBHQ", kind, 4, 0, gen) + tuple_bytes(cport)
    if kind == DELETE:
        return head
    # between two requests: 100 bytes in, 1000 out, all acknowledged;
    # the client's window 512 << 7, its largest
    body = struct.pack(">12I", 1100, 1100, 1100 + 65535, 5000, 5000, 4000,
                       1100, 512 << 7, 777, 888, 5, 3)
    return head + body + struct.pack(">HHbbBB", 512, MSS, 7, 7, 3, 0)


def datagram(key, sync_id, recs, count=None, version=VERSION):
    hdr = struct.pack(">BBHI", version, 0,
                      len(recs) if count is None else count, sync_id)
    dgram = bytearray(hdr + bytes(HMAC_LEN) + b"".join(recs))
    mac = hmac.new(key, bytes(dgram), hashlib.sha256).digest()
    dgram[HMAC_OFF:HMAC_OFF + HMAC_LEN] = mac
    return bytes(dgram)


def send(sock, host, port, dgram):
    sock.sendto(dgram, (host, port))


def cmd_send(keyfile, sync_id, host, port, kind, first, count, gen=None):
    key = read_key(keyfile)
    gen = int(gen) if gen is not None else time.time_ns()
    kind = {"upsert": UPSERT, "delete": DELETE}[kind]
    # each its own generation: a store that evicts one raises its floor
    # to it, and would take no later record of the same generation
    recs = [record(kind, gen + i, int(first) + i) for i in range(int(count))]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(0, len(recs), PER_DGRAM):
        send(s, host, int(port), datagram(key, int(sync_id),
                                           recs[i:i + PER_DGRAM]))
    return 0


def cmd_send_bad(keyfile, sync_id, host, port, how):
    key = read_key(keyfile)
    recs = [record(UPSERT, time.time_ns(), 30000)]
    sid = int(sync_id)
    dgram = {
        "short": lambda: datagram(key, sid, recs)[:HMAC_OFF + HMAC_LEN - 1],
        "version": lambda: datagram(key, sid, recs, version=2),
        "count": lambda: datagram(key, sid, recs, count=2),
        "trailing": lambda: datagram(key, sid, recs + [b"\0"]),
    }[how]()
    send(socket.socket(socket.AF_INET, socket.SOCK_DGRAM), host, int(port),
         dgram)
    return 0


def cmd_start_eperm():
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


def main(argv):
    global MSS
    if "--mss" in argv:
        at = argv.index("--mss")
        MSS = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2:]
    cmds = {"send": cmd_send, "send-bad": cmd_send_bad,
            "start-eperm": cmd_start_eperm}
    if len(argv) < 2 or argv[1] not in cmds:
        print(__doc__, file=sys.stderr)
        return 2
    return cmds[argv[1]](*argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
