#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""l7metrics_check.py PROC PROM [RULES POOLS]: every number of the
/proc/net/ip_vs_l7 table PROC is in the Prometheus text PROM under the name
and labels docs/operations.md gives it, with the same value, and so is
every counter of the IPVS_L7 family's dumps RULES and POOLS (the output of
l7nl.py rules and l7nl.py pools: "VIP:PORT ID ACTION HITS" and "VIP:PORT
NAME REQUESTS UNAVAILABLE"); every family has its HELP and TYPE, counters
end in _total, and PROM has no sample that is not in PROC or the dumps.
The names are written out here, not taken from the script."""

import re
import sys

import l7proc

SERVICE = {
    "conns": "connections_total", "active": "connections_active",
    "answered": "answered_total", "queued": "queued_total",
    "retried": "retried_total", "rebinds": "rebinds_total",
    "held": "held_total", "refused_max": "refused_max_total",
    "refused_source": "refused_source_total", "tunnels": "tunnels",
    "tunnels_refused": "tunnels_refused_total",
    "source_capped": "source_capped_total",
    "slow_request": "slow_request_total",
    "head_mem_full": "head_mem_full_total",
    "unacceptable": "unacceptable_segments_total",
    "srv_unacceptable": "server_unacceptable_segments_total",
}
ENDED = ("closed", "client_rst", "server_rst", "head_lost", "bad_response",
         "bad_request", "idle", "slow_reader", "flushed")
SERVER = {
    "Weight": "server_weight", "Idle": "pool_idle_connections",
    "Busy": "pool_busy_connections", "Opened": "pool_opened_total",
    "Failed": "pool_connect_failures_total",
    "Closed": "pool_server_closed_total", "State": "server_up",
    "Requests": "requests_total", "Aged": "pool_aged_total",
    "Outst": "requests_outstanding", "Reused": "requests_reused_total",
    "Errors": "request_errors_total", "BytesIn": "server_sent_bytes_total",
    "BytesOut": "server_received_bytes_total",
    "UThresh": "server_upper_threshold",
    "PeerOut": "peer_requests_outstanding",
}
SAMPLE = re.compile(r'^(ip_vs_l7_[a-z_]+)\{([^}]*)\} (-?\d+)$')


def expected(proc):
    """The samples @proc's numbers must be, each read by its column's
    name; every column the header names is one of the documented ones."""
    want = {}
    services, servers = l7proc.parse(proc)
    for row in services:
        vip = row["LocalAddress:Port"]
        if row["Prot"] == "FWM":
            vip = "fwmark:" + vip
        cols = {k: v for k, v in row.items()
                if k not in ("Prot", "LocalAddress:Port")}
        assert set(cols) == set(SERVICE) | set(ENDED), \
            "service columns: %s" % sorted(cols)
        for col, v in cols.items():
            if col in ENDED:
                key = ("ip_vs_l7_connections_ended_total",
                       'vip="%s",how="%s"' % (vip, col))
            else:
                key = ("ip_vs_l7_" + SERVICE[col], 'vip="%s"' % vip)
            want[key] = v
    for row in servers:
        vip = row["vip"]
        if row["vip_prot"] == "FWM":
            vip = "fwmark:" + vip
        labels = 'vip="%s",server="%s"' % (vip, row["RemoteAddress:Port"])
        cols = {k: v for k, v in row.items()
                if k not in ("->", "RemoteAddress:Port", "vip", "vip_prot")}
        assert set(cols) == set(SERVER), \
            "real-server columns: %s" % sorted(cols)
        for col, v in cols.items():
            if col == "State":
                v = {"up": "1", "down": "0"}[v]
            want[("ip_vs_l7_" + SERVER[col], labels)] = v
    return want


def expected_dumps(rules, pools):
    want = {}
    for line in rules.splitlines():
        vip, rule, _, hits = line.split()
        want[("ip_vs_l7_rule_hits_total",
              'vip="%s",rule="%s"' % (vip, rule))] = hits
    for line in pools.splitlines():
        vip, pool, requests, unavailable = line.split()
        labels = 'vip="%s",pool="%s"' % (vip, pool)
        want[("ip_vs_l7_pool_requests_total", labels)] = requests
        want[("ip_vs_l7_pool_unavailable_total", labels)] = unavailable
    return want


def main():
    proc = open(sys.argv[1]).read()
    prom = open(sys.argv[2]).read()
    want = expected(proc)
    if len(sys.argv) > 3:
        want.update(expected_dumps(open(sys.argv[3]).read(),
                                   open(sys.argv[4]).read()))
    got, helps, types = {}, set(), {}
    bad = []
    for line in prom.splitlines():
        if line.startswith("# HELP "):
            helps.add(line.split()[2])
        elif line.startswith("# TYPE "):
            _, _, name, kind = line.split()
            types[name] = kind
        else:
            m = SAMPLE.match(line)
            if not m:
                bad.append("not a sample: " + line)
                continue
            got[(m.group(1), m.group(2))] = m.group(3)
    for key, v in want.items():
        if got.get(key) != v:
            bad.append("%s{%s}: want %s, metrics %s" %
                       (key[0], key[1], v, got.get(key)))
    for key in got:
        if key not in want:
            bad.append("not in /proc or the dumps: %s{%s}" % key)
    for name in {k[0] for k in got}:
        if name not in helps or name not in types:
            bad.append("no HELP or TYPE: " + name)
        elif (types[name] == "counter") != name.endswith("_total"):
            bad.append("%s is a %s" % (name, types[name]))
    print("\n".join(bad) if bad else "%d samples agree" % len(want))
    return 1 if bad or not want else 0


if __name__ == "__main__":
    sys.exit(main())
