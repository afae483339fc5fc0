#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The TCP layer of the splice against a client that writes its segments
# by hand (testbed/clients/rawtcp.py, scapy): urgent data and unknown
# options never reach a backend, so it receives exactly the bytes the
# director framed; SYN+FIN gets nothing; SYNs and RSTs on a connection
# are judged as RFC 5961 asks; martian sources are never answered.
# Captures (tcpdump) on the backend link and on the director's links
# show what was sent.  Runs inside the guest.
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

raw() { in_cli env HOME=/tmp "${RAW[@]}" "$DMAC" "$@"; }

# cap_start NAME IFACE FILTER: tcpdump in the director's namespace to
# $TMP/NAME.pcap until cap_stop.  Not through in_dir: $! must be tcpdump
# itself (ip netns exec execs it), and its stdout must not hold the
# suite runner's command substitution open.
cap_start() {
	local i
	ip netns exec l7dir tcpdump -Z root -i "$2" -n -U -s 0 \
		-w "$TMP/$1.pcap" "$3" > /dev/null 2> "$TMP/$1.log" &
	CAP_PID=$!
	for i in $(seq 1 100); do
		grep -q listening "$TMP/$1.log" && return 0
		sleep 0.1
	done
	echo "tcpdump did not start: $(cat "$TMP/$1.log")"
	return 1
}

cap_stop() {
	sleep 0.5
	kill "$CAP_PID" 2>/dev/null
	wait "$CAP_PID" 2>/dev/null
	return 0
}

# cap_count NAME: packets in the capture
cap_count() {
	in_dir tcpdump -n -r "$TMP/$1.pcap" 2>/dev/null | wc -l
}

urgent_data_in_body() {
	raw urgent
}

unknown_options_on_body() {
	local rc=0
	cap_start backend br0 'tcp port 80' || return 1
	raw options || rc=1
	cap_stop
	"${RAW[@]}" pcap-options "$TMP/backend.pcap" || rc=1
	return $rc
}

synfin_unanswered() {
	raw synfin
}

syn_on_connection() {
	raw syn
}

rst_in_window() {
	raw rst-window
}

rst_outside_window() {
	raw rst-outside
}

rst_exact() {
	raw rst-exact
}

# A route for everything, so that nothing is unanswered only for the
# lack of one; the capture covers every link of the director.
martian_sources() {
	local n rc=0
	in_dir ip route add default via "$L7TB_CLIENT" || return 1
	cap_start martian any \
		'tcp src port 80 and tcp[tcpflags] & (tcp-syn|tcp-rst) != 0' ||
		{ in_dir ip route del default; return 1; }
	raw martian || rc=1
	cap_stop
	in_dir ip route del default
	n=$(cap_count martian)
	if [ "$n" != 1 ]; then
		echo "$n SYN-ACKs or RSTs, want 1 (the real client's):"
		in_dir tcpdump -n -r "$TMP/martian.pcap" 2>/dev/null
		rc=1
	fi
	return $rc
}

t_check "tcp_hygiene: urgent data in a body reaches the backend as plain bytes" urgent_data_in_body
t_check "tcp_hygiene: MD5 and unknown options on body segments are not forwarded, the bytes are" unknown_options_on_body
t_check "tcp_hygiene: SYN+FIN to the VIP gets no answer" synfin_unanswered
t_check "tcp_hygiene: SYN on a connection gets a challenge ACK, the connection lives" syn_on_connection
t_check "tcp_hygiene: RSTs in the window get one challenge ACK, the connection lives" rst_in_window
t_check "tcp_hygiene: RSTs outside the window get nothing, the connection lives" rst_outside_window
t_check "tcp_hygiene: a RST at exactly rcv_nxt ends the connection" rst_exact
t_check "tcp_hygiene: martian sources get no SYN-ACK or RST" martian_sources

in_cli nft delete table ip l7hyg
testbed_down
rm -rf "$TMP"
t_summary
