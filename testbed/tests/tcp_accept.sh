#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Segments forged with the tuple of a live connection change nothing and
# reach no server, as against a Linux endpoint: TS.Recent poisoning, a
# zero window at a wrong seq, an ACK past the response's end, a FIN or a
# data byte at a wrong seq to an idle pooled connection from a server's
# side, a flood of segments it answers rate-limited
# (testbed/clients/rawaccept.py, scapy).  Each client-side case runs
# against the l7 service and, as the reference, a plain Linux listener
# (Python's http.server, HTTP/1.1) in the director's namespace.  Runs
# inside the guest.
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
REFPORT=8080
RAW=(/usr/bin/python3 "$L7TB_DIR/clients/rawaccept.py")

# ack_timeout 6 s: a window shut by a forged segment would end a
# connection with a request under way within the test (zero-window waits
# 8 s); the tests that hold back their ACKs of a response do so for less
modprobe ip_vs_l7 datapath=1 ack_timeout=6
testbed_up
add_service "$VS" l7 1 1 1
wait_for pools_ready >/dev/null || in_dir cat /proc/net/ip_vs_l7
DMAC=$(in_dir cat /sys/class/net/dcli/address)

# The reference: /index.html as s1 serves it, /static/10k.bin, and
# /cgi-bin/echo, on keep-alive connections.  Started directly: $! must
# be python.
INDEX=$(mktemp)
fetch "http://$L7TB_VIP/index.html" "$INDEX" > /dev/null
ip netns exec l7dir /usr/bin/python3 -c '
import http.server, sys
index = open(sys.argv[2], "rb").read()
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def reply(self, body):
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        self.reply(b"x" * 10240 if self.path == "/static/10k.bin" else index)
    def do_POST(self):
        self.reply(self.rfile.read(int(self.headers["Content-Length"])))
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer((sys.argv[1], '"$REFPORT"'), H).serve_forever()
' "$L7TB_VIP" "$INDEX" > /dev/null 2>&1 &
REF_PID=$!
ref_listening() { in_dir ss -Hltn "sport = :$REFPORT" | grep -q .; }
wait_for -s 60 ref_listening || echo "the reference listener is not up"

raw_client_rsts drop

# One run of the raw client for all its tests: scapy takes long to load
# in an emulated guest.
RAW_TESTS="ts-poison zero-window ack-past idle-fin idle-acks srv-ts-poison srv-syn"
RAW_OUT=${L7_RESULTS:-/tmp}/rawaccept.out
in_cli timeout 600 env HOME=/tmp "${RAW[@]}" "$DMAC" "$REFPORT" $RAW_TESTS \
	> "$RAW_OUT" 2>&1


# note lines of the raw client, shown whether the test passes or not
exec 3>&1
idle_acks() {
	sed -n 's/^note idle-acks: /     /p' "$RAW_OUT" >&3
	raw_result idle-acks
}

# both TEST: the l7 service and the Linux reference agree
both() { raw_result "$1-linux" && raw_result "$1"; }

t_check "tcp_accept: four forged pure ACKs (TS.Recent poisoning): the connection goes on, as on Linux" both ts-poison
t_check "tcp_accept: a forged zero window at a wrong seq: the request under way goes on, as on Linux" both zero-window
t_check "tcp_accept: a forged ACK past the response's end reaches no server; the connection goes on, as on Linux" both ack-past
t_check "tcp_accept: a FIN and a data byte at wrong seqs leave an idle pooled connection alone" raw_result idle-fin
t_check "tcp_accept: 50 forged segments in a second to an idle pooled connection draw at most 3 ACKs" idle_acks
t_check "tcp_accept: forged server segments at wrong seqs: their TSval is never echoed, the response is whole" raw_result srv-ts-poison
t_check "tcp_accept: a server's SYN on a pooled connection in use gets a challenge ACK, goes no further, the response is whole" raw_result srv-syn

unacceptable_counted() {
	local n
	n=$(l7_table | l7_awk '$1 == "TCP" { print sv("unacceptable") }')
	echo "unacceptable $n"
	[ "${n:-0}" -ge 6 ]
}
t_check "tcp_accept: /proc/net/ip_vs_l7 counts the refused client segments" unacceptable_counted

kill "$REF_PID" 2>/dev/null
wait "$REF_PID" 2>/dev/null
raw_client_rsts keep
testbed_down
rm -f "$INDEX"
t_summary
