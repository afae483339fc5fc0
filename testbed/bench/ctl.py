#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""testbed/bench/ctl.py ADDR PORT SCRIPT: the director guest's control
server in make bench-director, through which the load guest runs the
bench.  One command per connection, one line:

  stat      the guest's /proc/uptime (wall and idle seconds), read here:
            the cells' CPU bracket costs no fork
  quit      "bye", then the server exits (the guest then shuts down)
  WORDS...  bash SCRIPT WORDS..., its output and "rc=N"

Between commands it sleeps in accept(): no CPU of the director's between
a cell's two stats but the director's own work."""
import socket
import subprocess
import sys


def answer(line, script):
    if line == "stat":
        with open("/proc/uptime") as f:
            return "uptime " + f.read()
    r = subprocess.run(["bash", script] + line.split(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, text=True)
    return "%src=%d\n" % (r.stdout, r.returncode)


def main():
    addr, port, script = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((addr, port))
    srv.listen(8)
    while True:
        c, _ = srv.accept()
        with c:
            line = c.makefile("r").readline().strip()
            if line == "quit":
                c.sendall(b"bye\n")
                return
            try:
                out = answer(line, script)
            except (OSError, subprocess.SubprocessError) as e:
                out = "ctl: %s\nrc=255\n" % e
            c.sendall(out.encode())


main()
