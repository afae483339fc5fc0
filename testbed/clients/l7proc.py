# SPDX-License-Identifier: GPL-2.0
"""/proc/net/ip_vs_l7 read by column name, for the test clients.

Its two header lines name the columns: "Prot LocalAddress:Port conns ..."
those of a service line, "-> RemoteAddress:Port Weight ..." those of the
real-server lines under it (docs/operations.md).  Python 3 stdlib only.
"""

import subprocess

SERVICE_PROTOCOLS = ("TCP", "UDP", "SCTP", "FWM")


def parse(text):
    """(services, servers) of the table @text: one dict per line, column
    name -> the value as printed; a server's also has "vip" and
    "vip_prot", the LocalAddress:Port and Prot of its service.  ValueError for a line that does
    not fit its header."""
    svc_cols = srv_cols = None
    services, servers = [], []
    for line in text.splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] == "Prot":
            svc_cols = words
        elif words[:2] == ["->", "RemoteAddress:Port"]:
            srv_cols = words
        elif words[0] == "->":
            if srv_cols is None or not services or \
                    len(words) != len(srv_cols):
                raise ValueError("real-server line: " + line)
            row = dict(zip(srv_cols, words))
            row["vip"] = services[-1]["LocalAddress:Port"]
            row["vip_prot"] = services[-1]["Prot"]
            servers.append(row)
        elif words[0] in SERVICE_PROTOCOLS:
            if svc_cols is None or len(words) != len(svc_cols):
                raise ValueError("service line: " + line)
            services.append(dict(zip(svc_cols, words)))
        else:
            raise ValueError("not a line of the table: " + line)
    return services, servers


def read(netns="l7dir"):
    """parse() of the table in network namespace @netns."""
    out = subprocess.run(["ip", "netns", "exec", netns, "cat",
                          "/proc/net/ip_vs_l7"], capture_output=True,
                         text=True, check=True).stdout
    return parse(out)
