#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""idle_conns.py hold HOST PORT N READY | listen HOST PORT N READY

hold: open N TCP connections to HOST:PORT, send nothing on them, write
"held=K" (K of them established) to the file READY, and keep them open
until SIGTERM, then reset them all (SO_LINGER 0: no FIN exchange and no
TIME_WAIT left behind to be counted by the next measurement).

listen: the baseline's server end: accept up to N connections on
HOST:PORT and hold every accepted socket until SIGTERM, writing
"accepted=K" to READY on the way.

Both ends are plain sockets with a file descriptor and no epoll
registration, so that one connection of the baseline costs the same on
its two ends and half of it is what the client's own end costs (the
benchmark subtracts that from what a director's measurement saw).
"""
import os
import resource
import select
import signal
import socket
import struct
import sys
import time

BATCH = 256	# connects in flight at once: the accept queues stay short
WAIT = 10.0	# seconds a batch may take before its laggards are dropped


def raise_nofile(n):
    want = n + 64
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(hard, want)))


def wait_for_term():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        signal.pause()


def report(path, line):
    with open(path + ".tmp", "w") as fh:
        fh.write(line + "\n")
    os.rename(path + ".tmp", path)


def connect_batch(host, port, n):
    """n non-blocking connects, polled (not epoll: nothing stays
    registered in the kernel) until established or WAIT passes."""
    pending = {}
    poller = select.poll()
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.connect_ex((host, port))
        pending[s.fileno()] = s
        poller.register(s, select.POLLOUT)
    done = []
    end = time.monotonic() + WAIT
    while pending and time.monotonic() < end:
        for fd, _ in poller.poll(200):
            s = pending.pop(fd)
            poller.unregister(fd)
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                done.append(s)
            else:
                s.close()
    for s in pending.values():
        s.close()
    return done


def hold(host, port, n, ready):
    raise_nofile(n)
    socks = []
    while len(socks) < n:
        got = connect_batch(host, port, min(BATCH, n - len(socks)))
        if not got:
            break	# the far end takes no more: report what is held
        socks += got
    report(ready, "held=%d" % len(socks))
    linger = struct.pack("ii", 1, 0)
    try:
        wait_for_term()
    finally:
        for s in socks:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
            s.close()


def listen(host, port, n, ready):
    raise_nofile(n)
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((host, port))
    ls.listen(4096)
    ls.settimeout(1.0)
    report(ready, "accepted=0")
    held = []
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while len(held) < n:
        try:
            held.append(ls.accept()[0])
        except socket.timeout:
            report(ready, "accepted=%d" % len(held))
    report(ready, "accepted=%d" % len(held))
    wait_for_term()


if __name__ == "__main__":
    mode, host, port, n, ready = sys.argv[1:6]
    {"hold": hold, "listen": listen}[mode](host, int(port), int(n), ready)
