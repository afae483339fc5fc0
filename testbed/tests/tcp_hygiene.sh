#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The TCP layer of the splice against a client that writes its segments
# by hand (testbed/clients/rawtcp.py, scapy): urgent data and unknown
# options never reach a backend, so it receives exactly the bytes the
# director framed; SYN+FIN gets nothing; SYNs and RSTs on a connection
# are judged as RFC 5961 asks; martian sources are never answered.
# Captures (tcpdump, started by the client) on the backend link and on
# all the director's links show what was sent.  Runs inside the guest.
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
TMP=$(mktemp -d)
# scapy is Debian's python3-scapy: the system interpreter, not a venv's
RAW=(/usr/bin/python3 "$L7TB_DIR/clients/rawtcp.py")

modprobe ip_vs_l7 datapath=1
testbed_up
add_service "$VS" l7 1 1 1
wait_for pools_ready >/dev/null || in_dir cat /proc/net/ip_vs_l7
DMAC=$(in_dir cat /sys/class/net/dcli/address)

# The client's kernel resets connections it does not know of: not the
# raw client's (source ports 40000-40999).
in_cli nft -f - <<'NFT'
table ip l7hyg {
	chain out {
		type filter hook output priority 0; policy accept;
		tcp sport 40000-40999 tcp flags & rst == rst drop
	}
}
NFT

# One run of the raw client for all its tests: scapy takes long to load
# in an emulated guest.  Each test then reads its line of the output,
# which is kept with the boot's results.
RAW_TESTS="urgent options synfin syn rst-window rst-outside rst-exact martian"
RAW_OUT=${L7_RESULTS:-$TMP}/rawtcp.out
in_cli timeout 1200 env HOME=/tmp "${RAW[@]}" "$DMAC" $RAW_TESTS \
	> "$RAW_OUT" 2>&1

# raw_result TEST: passes when the raw client printed "ok   TEST"
raw_result() {
	grep -qx "ok   $1" "$RAW_OUT" && return 0
	grep "^FAIL $1:" "$RAW_OUT" ||
		{ echo "no result; the client printed:"; tail -n 20 "$RAW_OUT"; }
	return 1
}

t_check "tcp_hygiene: urgent data in a body reaches the backend as plain bytes" raw_result urgent
t_check "tcp_hygiene: MD5 and unknown options on body segments are not forwarded, the bytes are" raw_result options
t_check "tcp_hygiene: SYN+FIN to the VIP gets no answer" raw_result synfin
t_check "tcp_hygiene: SYN on a connection gets a challenge ACK, the connection lives" raw_result syn
t_check "tcp_hygiene: RSTs in the window get one challenge ACK, the connection lives" raw_result rst-window
t_check "tcp_hygiene: RSTs outside the window get nothing, the connection lives" raw_result rst-outside
t_check "tcp_hygiene: a RST at exactly rcv_nxt ends the connection" raw_result rst-exact
t_check "tcp_hygiene: martian sources get no SYN-ACK or RST" raw_result martian

in_cli nft delete table ip l7hyg
testbed_down
rm -rf "$TMP"
t_summary
