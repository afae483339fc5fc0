#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The TCP layer of the splice against a client that writes its segments
# by hand (testbed/clients/rawtcp.py, scapy): urgent data and unknown
# options never reach a backend, so it receives exactly the bytes the
# director framed; SYN+FIN gets nothing; SYNs and RSTs on a connection
# are judged as RFC 5961 asks; martian sources are never answered.
# ICMP "fragmentation needed" for spliced flows acts on the side it is
# about, and only when it quotes a segment in flight; a segment failing
# PAWS and bytes past a backend's window never reach it; fragments are
# reassembled where an l7 service is, and only there.
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

# Segment sizes on the director's links are read from captures: no TSO
# there, so what tcpdump sees is what goes on the wire.
for dev in dcli br0 ds1 ds2 ds3; do
	in_dir ethtool -K "$dev" tso off >/dev/null
done

# A server that accepts and never reads, with a small receive buffer:
# its window closes (rawtcp.py's "window" test makes a service of it).
# Started directly: $! must be python.
ip netns exec l7s2 /usr/bin/python3 -c '
import socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
s.bind(("192.0.2.12", 8081))
s.listen(16)
held = []
while True:
    held.append(s.accept()[0])
' > /dev/null 2>&1 &
SINK_PID=$!
sink_listening() { in_backend s2 ss -Hltn 'sport = :8081' | grep -q .; }
wait_for -s 60 sink_listening || echo "the non-reading server on s2:8081 is not listening"

# Fragments that reach PRE_ROUTING after defragmentation's place (-400)
# and the l7 hook (-301), counted in the client's and the director's
# namespaces.
for ns in l7cli l7dir; do
	ip netns exec $ns nft -f - <<'NFT'
table ip l7frag {
	chain pre {
		type filter hook prerouting priority -300; policy accept;
		ip frag-off & 0x3fff != 0 counter
	}
}
NFT
done

frag_count() {
	ip netns exec "$1" nft list chain ip l7frag pre |
		awk '{ for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }'
}

raw_client_rsts drop

# One run of the raw client for all its tests: scapy takes long to load
# in an emulated guest.  Each test then reads its line of the output,
# which is kept with the boot's results.
RAW_TESTS="urgent options ipopts synfin syn rst-window rst-outside rst-exact martian
	icmp-client icmp-backend paws window frag probe-dsack probe-silent"
RAW_OUT=${L7_RESULTS:-$TMP}/rawtcp.out
in_cli timeout 1200 env HOME=/tmp "${RAW[@]}" "$DMAC" $RAW_TESTS \
	> "$RAW_OUT" 2>&1


t_check "tcp_hygiene: urgent data in a body reaches the backend as plain bytes" raw_result urgent
t_check "tcp_hygiene: MD5 and unknown options on body segments are not forwarded, the bytes are" raw_result options
t_check "tcp_hygiene: IPv4 options on a body segment are not forwarded, the bytes are" raw_result ipopts
t_check "tcp_hygiene: SYN+FIN to the VIP gets no answer" raw_result synfin
t_check "tcp_hygiene: SYN on a connection gets a challenge ACK, the connection lives" raw_result syn
t_check "tcp_hygiene: RSTs in the window get one challenge ACK, the connection lives" raw_result rst-window
t_check "tcp_hygiene: RSTs outside the window get nothing, the connection lives" raw_result rst-outside
t_check "tcp_hygiene: a RST at exactly rcv_nxt ends the connection" raw_result rst-exact
t_check "tcp_hygiene: martian sources get no SYN-ACK or RST" raw_result martian

t_check "tcp_hygiene: ICMP frag needed about a segment to the client lowers its segment size; out of window or another tuple: nothing" raw_result icmp-client
t_check "tcp_hygiene: ICMP frag needed about a body segment to a backend lowers its segment size; out of window or another tuple: nothing" raw_result icmp-backend
t_check "tcp_hygiene: a body segment with an older TSval (PAWS) is dropped, never forwarded" raw_result paws
t_check "tcp_hygiene: no body byte goes past the right edge of a backend's window" raw_result window
t_check "tcp_hygiene: a request sent as IP fragments is answered" raw_result frag
t_check "tcp_hygiene: a client's D-SACK of a server's resend, after its ACK of the whole response, reaches that server" raw_result probe-dsack
t_check "tcp_hygiene: without it, the pooled connection is back in the pool within a second" raw_result probe-silent

# Fragments of UDP datagrams of 3,000 bytes (no ping in the guest)
# between the director and the client: the client's namespace has no l7
# service and sees them as fragments; the director's, with one, sees
# only whole datagrams - and fragments again once its service is gone.

# big_datagrams NS ADDR: two of them from namespace NS to ADDR
big_datagrams() {
	ip netns exec "$1" /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, 10, 0)  # IP_MTU_DISCOVER: IP_PMTUDISC_DONT
for _ in range(2):
    s.sendto(b"x" * 3000, (sys.argv[1], 9))
' "$2"
}

# fragments_seen NS: how many fragments NS counts of two datagrams to it
fragments_seen() {
	local before
	before=$(frag_count "$1")
	case $1 in
	l7cli) big_datagrams l7dir "$L7TB_CLIENT" ;;
	*) big_datagrams l7cli "$L7TB_VIP" ;;
	esac || { echo "sending failed"; return 1; }
	sleep 0.5
	echo $(($(frag_count "$1") - before))
}

defrag_with_service_only() {
	local c d rc=0
	c=$(fragments_seen l7cli) || return 1
	d=$(frag_count l7dir)
	echo "fragments seen at PRE_ROUTING: l7cli $c (2 datagrams), l7dir $d (all the suite)"
	[ "$c" -ge 2 ] ||
		{ echo "the client's namespace (no l7 service) reassembles"; rc=1; }
	[ "$d" = 0 ] ||
		{ echo "the director's namespace (an l7 service) let fragments through"; rc=1; }
	return $rc
}

defrag_released() {
	local d
	in_dir ipvsadm -D -t "$VS"
	d=$(fragments_seen l7dir) || return 1
	echo "fragments seen at PRE_ROUTING in l7dir: $d"
	[ "$d" -ge 2 ]
}

t_check "tcp_hygiene: fragments are reassembled in the namespace with an l7 service, not elsewhere" defrag_with_service_only
t_check "tcp_hygiene: once the l7 service is gone, its namespace no longer reassembles" defrag_released

kill "$SINK_PID" 2>/dev/null
wait "$SINK_PID" 2>/dev/null
for ns in l7cli l7dir; do ip netns exec $ns nft delete table ip l7frag; done
raw_client_rsts keep
testbed_down
rm -rf "$TMP"
t_summary
