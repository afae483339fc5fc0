# SPDX-License-Identifier: GPL-2.0
"""A client of the IPVS_L7 generic-netlink family (ip_vs_l7/uapi/ip_vs_l7_genl.h)
over a raw socket.AF_NETLINK socket, Python 3 stdlib only.

As a library: Genl (requests, dumps, errors with their extack message) and
attribute builders.  As a program:

  l7nl.py info
  l7nl.py add-pool VIP:PORT NAME ADDR:PORT[,ADDR:PORT...] [wlo|wrr]
                                              (IPv6: [ADDR]:PORT, VIP and members)
  l7nl.py add-rule VIP:PORT ID key=value...   (path= prefix= host= method=GET,HEAD
                                               hdr=name=v1|v2 cookie=name=value
                                               pool= reject= fallthrough)
  l7nl.py del-rule VIP:PORT ID
  l7nl.py rules [VIP:PORT]      one line per rule: id, action, hits
  l7nl.py pools [VIP:PORT]      one line per pool: name, requests, unavailable
  l7nl.py flush [VIP:PORT]
  l7nl.py swap VIP:PORT N       N atomic replaces of a /cgi-bin + /static set
Exit status 0 on success, else the errno, with the kernel's message on stderr.
"""
import errno
import os
import socket
import struct
import sys

# netlink
NLM_F_REQUEST, NLM_F_MULTI, NLM_F_ACK = 1, 2, 4
NLM_F_DUMP = 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLM_F_ACK_TLVS = 0x200
NLMSGERR_ATTR_MSG = 1
SOL_NETLINK = 270
NETLINK_GENERIC = 16
NETLINK_CAP_ACK, NETLINK_EXT_ACK = 10, 11
NLA_F_NESTED = 0x8000
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2

# IPVS_L7 (uapi/ip_vs_l7_genl.h)
FAMILY, VERSION = "IPVS_L7", 1
(CMD_ADD_RULE, CMD_DEL_RULE, CMD_REPLACE_RULE, CMD_ADD_POOL, CMD_DEL_POOL,
 CMD_REPLACE_POOL, CMD_SET_RULESET, CMD_FLUSH, CMD_GET_RULE, CMD_GET_POOL,
 CMD_GET_INFO, CMD_SET_OPTIONS, CMD_GET_OPTIONS, CMD_START_SYNC,
 CMD_STOP_SYNC, CMD_GET_SYNC) = range(1, 17)
A_SERVICE, A_RULE, A_POOL, A_RULES, A_POOLS, A_INFO, A_OPTIONS = range(1, 8)
OPT_FORWARDED, OPT_PREFORK = 1, 2
# enum ipvs_l7_forwarded, by the names ipvsadm --forwarded takes
FORWARDED = {"default": 0, "off": 1, "xff": 2, "xff-replace": 3,
             "forwarded": 4}
# enum ipvs_l7_prefork
PREFORK = {"on": 0, "off": 1}
SVC_AF, SVC_PROTOCOL, SVC_ADDR, SVC_PORT = range(1, 5)
POLICY_WLO, POLICY_WRR, POLICY_HASH = range(3)
HASH_URI, HASH_HOST, HASH_COOKIE, HASH_HEADER = range(4)
POOL_NAME, POOL_POLICY, POOL_HASH_KEY, POOL_HASH_NAME, POOL_MEMBERS, \
    POOL_STATS = range(1, 7)
MEMBER_ADDR, MEMBER_PORT, MEMBER_AF = 1, 2, 3
METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE",
           "PATCH", "CONNECT", "OTHER"]
RULE_F_PATH_PREFIX, RULE_F_FALLTHROUGH, RULE_F_PATH_NOCASE = 1, 2, 4
(RULE_ID, RULE_FLAGS, RULE_HOST, RULE_PATH, RULE_METHODS, RULE_HEADERS,
 RULE_COOKIE, RULE_POOL, RULE_REJECT, RULE_STATS) = range(1, 11)
MATCH_NAME, MATCH_VALUE = 1, 2
STATS_PAD, STATS_HITS, STATS_REQUESTS, STATS_UNAVAILABLE = range(1, 5)
INFO_VERSION, INFO_MAX_RULES = 1, 2
MAX_RULES, MAX_POOLS, MAX_MEMBERS, MAX_HEADERS, MAX_ALTS = 1024, 32, 64, 4, 8
NAME_MAX, VALUE_MAX = 64, 128


# ---- attributes ----

def nla(atype, payload):
    hdr = struct.pack("=HH", 4 + len(payload), atype)
    return hdr + payload + b"\0" * (-len(payload) % 4)


def nest(atype, *children):
    return nla(atype | NLA_F_NESTED, b"".join(children))


def u8(t, v):
    return nla(t, struct.pack("=B", v))


def u16(t, v):
    return nla(t, struct.pack("=H", v))


def u32(t, v):
    return nla(t, struct.pack("=I", v))


def be16(t, v):
    return nla(t, struct.pack(">H", v))


def string(t, s):
    return nla(t, (s.encode() if isinstance(s, str) else s) + b"\0")


def parse_attrs(data):
    """{type: [payload, ...]} of one level, flags stripped."""
    out, off = {}, 0
    while off + 4 <= len(data):
        ln, t = struct.unpack_from("=HH", data, off)
        if ln < 4:
            break
        out.setdefault(t & 0x3fff, []).append(data[off + 4:off + ln])
        off += (ln + 3) & ~3
    return out


def one(attrs, t):
    return attrs[t][0] if t in attrs else None


def get_u(payload):
    return int.from_bytes(payload, sys.byteorder) if payload else None


def get_str(payload):
    return payload.split(b"\0", 1)[0].decode() if payload is not None else None


# ---- the service key, pools, rules ----

def service(vip="198.51.100.1", port=80, af=socket.AF_INET, proto=6):
    addr = socket.inet_pton(af, vip) if isinstance(vip, str) else vip
    return nest(A_SERVICE, u16(SVC_AF, af), u16(SVC_PROTOCOL, proto),
                nla(SVC_ADDR, addr), be16(SVC_PORT, port))


def addr_af(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def member(addr, port):
    """A member without MEMBER_AF: the kernel takes the address's length."""
    return (nla(MEMBER_ADDR, socket.inet_pton(addr_af(addr), addr)),
            be16(MEMBER_PORT, port))


def addr_str(payload, af=None):
    """An address as the dumps give it: its family's text form."""
    if af is None:
        af = socket.AF_INET6 if len(payload) == 16 else socket.AF_INET
    return socket.inet_ntop(af, payload)


def pool_attrs(name, members, policy=None, hash_key=None, hash_name=None):
    parts = [string(POOL_NAME, name)]
    if policy is not None:
        parts.append(u8(POOL_POLICY, policy))
    if hash_key is not None:
        parts.append(u8(POOL_HASH_KEY, hash_key))
    if hash_name is not None:
        parts.append(string(POOL_HASH_NAME, hash_name))
    if members is not None:
        parts.append(nest(POOL_MEMBERS, *[nest(i + 1, *member(a, p))
                                          for i, (a, p) in enumerate(members)]))
    return parts


def rule_attrs(rid, pool=None, reject=None, host=None, path=None,
               prefix=False, methods=None, headers=(), cookie=None,
               fallthrough=False, flags=None):
    parts = [u32(RULE_ID, rid)]
    if flags is None:
        flags = (RULE_F_PATH_PREFIX if prefix else 0) | \
                (RULE_F_FALLTHROUGH if fallthrough else 0)
    if flags:
        parts.append(u32(RULE_FLAGS, flags))
    if host is not None:
        parts.append(string(RULE_HOST, host))
    if path is not None:
        parts.append(string(RULE_PATH, path))
    if methods is not None:
        bits = methods if isinstance(methods, int) else \
            sum(1 << METHODS.index(m) for m in methods)
        parts.append(u32(RULE_METHODS, bits))
    if headers:
        parts.append(nest(RULE_HEADERS, *[
            nest(i + 1, string(MATCH_NAME, n), string(MATCH_VALUE, v))
            for i, (n, v) in enumerate(headers)]))
    if cookie is not None:
        parts.append(nest(RULE_COOKIE, string(MATCH_NAME, cookie[0]),
                          string(MATCH_VALUE, cookie[1])))
    if pool is not None:
        parts.append(string(RULE_POOL, pool))
    if reject is not None:
        parts.append(u16(RULE_REJECT, reject))
    return parts


def decode_rule(payload):
    a = parse_attrs(payload)
    r = {"id": get_u(one(a, RULE_ID)), "flags": get_u(one(a, RULE_FLAGS))}
    for key, t in (("host", RULE_HOST), ("path", RULE_PATH),
                   ("pool", RULE_POOL)):
        if t in a:
            r[key] = get_str(one(a, t))
    if RULE_METHODS in a:
        r["methods"] = get_u(one(a, RULE_METHODS))
    if RULE_REJECT in a:
        r["reject"] = get_u(one(a, RULE_REJECT))
    if RULE_HEADERS in a:
        r["headers"] = []
        for entries in parse_attrs(one(a, RULE_HEADERS)).values():
            for e in entries:
                m = parse_attrs(e)
                r["headers"].append((get_str(one(m, MATCH_NAME)),
                                     get_str(one(m, MATCH_VALUE))))
    if RULE_COOKIE in a:
        m = parse_attrs(one(a, RULE_COOKIE))
        r["cookie"] = (get_str(one(m, MATCH_NAME)), get_str(one(m, MATCH_VALUE)))
    s = parse_attrs(one(a, RULE_STATS) or b"")
    r["hits"] = get_u(one(s, STATS_HITS))
    return r


def decode_pool(payload):
    a = parse_attrs(payload)
    p = {"name": get_str(one(a, POOL_NAME)),
         "policy": get_u(one(a, POOL_POLICY)), "members": []}
    for entries in parse_attrs(one(a, POOL_MEMBERS) or b"").values():
        for e in entries:
            m = parse_attrs(e)
            af = get_u(one(m, MEMBER_AF))
            addr = addr_str(one(m, MEMBER_ADDR), af)
            p["members"].append((addr,
                                 struct.unpack(">H", one(m, MEMBER_PORT))[0]))
            p.setdefault("member_afs", []).append(af)
    if POOL_HASH_KEY in a:
        p["hash_key"] = get_u(one(a, POOL_HASH_KEY))
    if POOL_HASH_NAME in a:
        p["hash_name"] = get_str(one(a, POOL_HASH_NAME))
    s = parse_attrs(one(a, POOL_STATS) or b"")
    p["requests"] = get_u(one(s, STATS_REQUESTS))
    p["unavailable"] = get_u(one(s, STATS_UNAVAILABLE))
    return p


def decode_key(payload):
    """VIP:PORT, [VIP]:PORT for AF_INET6 (the key's SVC_AF says which)."""
    a = parse_attrs(payload)
    af = get_u(one(a, SVC_AF))
    fmt = "[%s]:%d" if af == socket.AF_INET6 else "%s:%d"
    return fmt % (addr_str(one(a, SVC_ADDR), af),
                  struct.unpack(">H", one(a, SVC_PORT))[0])


class NlError(Exception):
    def __init__(self, err, msg):
        super().__init__("%s (%s)" % (os.strerror(err), msg or "no message"))
        self.errno = err
        self.msg = msg


class Genl:
    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.sock.bind((0, 0))
        # a request the kernel never answers is a failure, not a hang
        self.sock.settimeout(60)
        self.seq = 0
        self.family = None
        self.family = self.resolve(FAMILY)

    def close(self):
        self.sock.close()

    def resolve(self, name):
        msgs = self.raw(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                        string(CTRL_ATTR_FAMILY_NAME, name), version=1)
        return get_u(one(parse_attrs(msgs[0][4:]), CTRL_ATTR_FAMILY_ID))

    def send(self, ftype, cmd, payload, flags=NLM_F_REQUEST | NLM_F_ACK,
             version=VERSION, reserved=0):
        self.seq += 1
        body = struct.pack("=BBH", cmd, version, reserved) + payload
        self.sock.send(struct.pack("=IHHII", 16 + len(body), ftype, flags,
                                   self.seq, 0) + body)
        return self.seq

    def receive(self, seq):
        """Replies to @seq until the ack, NLMSG_DONE or an error."""
        out = []
        while True:
            data = self.sock.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                ln, mtype, flags, mseq, _ = struct.unpack_from("=IHHII", data, off)
                msg = data[off + 16:off + ln]
                off += (ln + 3) & ~3
                if mseq != seq:
                    continue
                if mtype == NLMSG_ERROR:
                    err = -struct.unpack_from("=i", msg)[0]
                    text = None
                    if flags & NLM_F_ACK_TLVS:
                        # with NETLINK_CAP_ACK only the request's header is echoed
                        tlv = parse_attrs(msg[4 + 16:])
                        text = get_str(one(tlv, NLMSGERR_ATTR_MSG))
                    if err:
                        raise NlError(err, text)
                    return out
                if mtype == NLMSG_DONE:
                    err = -struct.unpack_from("=i", msg)[0] if len(msg) >= 4 else 0
                    if err:
                        raise NlError(err, None)
                    return out
                out.append(msg)

    def raw(self, ftype, cmd, payload, **kw):
        return self.receive(self.send(ftype, cmd, payload, **kw))

    def do(self, cmd, *attrs, **kw):
        return self.raw(self.family, cmd, b"".join(attrs), **kw)

    def dump(self, cmd, *attrs):
        return self.raw(self.family, cmd, b"".join(attrs),
                        flags=NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP)

    # convenience
    def rules(self, *key):
        out = []
        for m in self.dump(CMD_GET_RULE, *key):
            a = parse_attrs(m[4:])
            r = decode_rule(one(a, A_RULE))
            r["service"] = decode_key(one(a, A_SERVICE))
            out.append(r)
        return out

    def pools(self, *key):
        out = []
        for m in self.dump(CMD_GET_POOL, *key):
            a = parse_attrs(m[4:])
            p = decode_pool(one(a, A_POOL))
            p["service"] = decode_key(one(a, A_SERVICE))
            out.append(p)
        return out

    def set_options(self, key, forwarded=None, prefork=None):
        opts = [u32(OPT_FORWARDED, forwarded)] if forwarded is not None else []
        if prefork is not None:
            opts.append(u32(OPT_PREFORK, prefork))
        self.do(CMD_SET_OPTIONS, key, nest(A_OPTIONS, *opts))

    def options(self, key):
        """GET_OPTIONS: {OPT_*: value} and the key the answer names."""
        m = self.do(CMD_GET_OPTIONS, key)[0]
        a = parse_attrs(m[4:])
        o = parse_attrs(one(a, A_OPTIONS))
        return {t: get_u(v[0]) for t, v in o.items()}, \
            decode_key(one(a, A_SERVICE))

    def info(self):
        m = self.do(CMD_GET_INFO)[0]
        i = parse_attrs(one(parse_attrs(m[4:]), A_INFO))
        return {t: get_u(v[0]) for t, v in i.items()}


# ---- command line, for the shell suites ----

def parse_addrport(arg):
    """ADDR:PORT or [ADDR6]:PORT"""
    host, port = arg.rsplit(":", 1)
    return host.strip("[]"), int(port)


def parse_vs(arg):
    host, port = parse_addrport(arg)
    return service(host, port, af=addr_af(host))


def cli_rule(args):
    kw = {}
    for a in args:
        k, _, v = a.partition("=")
        if k == "path":
            kw["path"] = v
        elif k == "prefix":
            kw["path"], kw["prefix"] = v, True
        elif k == "host":
            kw["host"] = v
        elif k == "method":
            kw["methods"] = v.split(",")
        elif k == "hdr":
            n, _, vals = v.partition("=")
            kw.setdefault("headers", []).append((n, vals))
        elif k == "cookie":
            n, _, val = v.partition("=")
            kw["cookie"] = (n, val)
        elif k == "pool":
            kw["pool"] = v
        elif k == "reject":
            kw["reject"] = int(v)
        elif k == "fallthrough":
            kw["fallthrough"] = True
        else:
            raise SystemExit("unknown rule part " + a)
    return kw


def main(argv):
    g = Genl()
    cmd, args = argv[0], argv[1:]
    try:
        if cmd == "info":
            print(g.info())
        elif cmd in ("add-pool", "replace-pool"):
            members = [parse_addrport(m) for m in args[2].split(",")]
            policy = {"wlo": POLICY_WLO, "wrr": POLICY_WRR}[args[3]] \
                if len(args) > 3 else None
            g.do(CMD_ADD_POOL if cmd == "add-pool" else CMD_REPLACE_POOL,
                 parse_vs(args[0]),
                 nest(A_POOL, *pool_attrs(args[1], members, policy)))
        elif cmd in ("add-rule", "replace-rule"):
            g.do(CMD_ADD_RULE if cmd == "add-rule" else CMD_REPLACE_RULE,
                 parse_vs(args[0]),
                 nest(A_RULE, *rule_attrs(int(args[1]), **cli_rule(args[2:]))))
        elif cmd == "del-rule":
            g.do(CMD_DEL_RULE, parse_vs(args[0]),
                 nest(A_RULE, u32(RULE_ID, int(args[1]))))
        elif cmd == "del-pool":
            g.do(CMD_DEL_POOL, parse_vs(args[0]),
                 nest(A_POOL, string(POOL_NAME, args[1])))
        elif cmd == "rules":
            for r in g.rules(*[parse_vs(a) for a in args]):
                print(r["service"], r["id"], r.get("pool") or r.get("reject"),
                      r["hits"])
        elif cmd == "pools":
            for p in g.pools(*[parse_vs(a) for a in args]):
                print(p["service"], p["name"], p["requests"], p["unavailable"])
        elif cmd == "swap":
            # swap VIP:PORT N: N atomic replaces of the key's whole set,
            # alternating two sets that route alike (cgi: s1+s2, static: s3)
            key, n = parse_vs(args[0]), int(args[1])
            for i in range(n):
                order = ("cgi", "static") if i % 2 else ("static", "cgi")
                members = {"cgi": [("192.0.2.11", 80), ("192.0.2.12", 80)],
                           "static": [("192.0.2.13", 80)]}
                pools = nest(A_POOLS, *[nest(j + 1, *pool_attrs(
                    name, members[name], POLICY_WLO if i % 2 else POLICY_WRR))
                    for j, name in enumerate(order)])
                rules = nest(A_RULES,
                             nest(1, *rule_attrs(10, pool="cgi",
                                                 path="/cgi-bin", prefix=True)),
                             nest(2, *rule_attrs(20, pool="static",
                                                 path="/static", prefix=True)))
                g.do(CMD_SET_RULESET, key, pools, rules)
        elif cmd == "set-forwarded":
            # set-forwarded VIP:PORT default|off|xff|xff-replace|forwarded
            g.set_options(parse_vs(args[0]), FORWARDED[args[1]])
        elif cmd == "options":
            names = {v: k for k, v in FORWARDED.items()}
            o, _ = g.options(parse_vs(args[0]))
            print("forwarded", names.get(o[OPT_FORWARDED], o[OPT_FORWARDED]))
        elif cmd == "set-prefork":
            # set-prefork VIP:PORT on|off
            g.set_options(parse_vs(args[0]), prefork=PREFORK[args[1]])
        elif cmd == "prefork":
            names = {v: k for k, v in PREFORK.items()}
            o, _ = g.options(parse_vs(args[0]))
            print(names.get(o[OPT_PREFORK], o[OPT_PREFORK]))
        elif cmd == "flush":
            g.do(CMD_FLUSH, *[parse_vs(a) for a in args])
        else:
            raise SystemExit("unknown command " + cmd)
    except NlError as e:
        print("l7nl: %s" % e, file=sys.stderr)
        return e.errno
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
