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
RAW_TESTS="ack-lost urgent options ipopts synfin syn rst-window rst-outside rst-exact martian
	icmp-client icmp-backend paws window frag probe-dsack probe-silent ack-ts"
RAW_OUT=${L7_RESULTS:-$TMP}/rawtcp.out
in_cli timeout 1200 env HOME=/tmp "${RAW[@]}" "$DMAC" $RAW_TESTS \
	> "$RAW_OUT" 2>&1


t_check "tcp_hygiene: a request that completes the handshake (its last ACK lost) is answered, with or without body bytes in it" raw_result ack-lost
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
t_check "tcp_hygiene: a client without timestamps: its ACKs reach servers with them stamped, echoing the server's (RTT samples after a resend)" raw_result ack-ts

# ICMP "fragmentation needed, MTU 68" from a client about its own
# download: the director lowers the segment size no further than Linux
# would (min_pmtu, 552: segments of 512 bytes less options), never to
# 16-byte segments, and the download is byte-exact.
FLOOR_PORT=41900
FLOOR_PCAP=${L7_RESULTS:-$TMP}/floor.pcap

# The download: 100 KB read, then "paused" until the file $3 exists,
# then the rest; prints the body's length and SHA-256.  A small receive
# buffer keeps the director's sending paced by the reads, so that there
# is always more to send.
FLOOR_CLIENT='
import hashlib, os, socket, sys, time
vip, port, go = sys.argv[1], int(sys.argv[2]), sys.argv[3]
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32768)
s.bind(("", port))
s.settimeout(60)
s.connect((vip, 80))
s.sendall(b"GET /static/1m.bin HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
data = b""
while len(data) < 100000:
    data += s.recv(65536)
print("paused", flush=True)
while not os.path.exists(go):
    time.sleep(0.05)
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
head, _, body = data.partition(b"\r\n\r\n")
print("body", len(body), hashlib.sha256(body).hexdigest(), flush=True)
'

# icmp_dest_unreachs: "destination unreachable" messages the director's
# stack has taken (after the l7 hook, which passes them on)
icmp_dest_unreachs() {
	in_dir awk '/^Icmp:/ { if (n++) print $5 }' /proc/net/snmp
}

dest_unreachs_above() { [ "$(icmp_dest_unreachs)" -gt "$1" ]; }

# first_seg_seq FILE: the seq of the next data segment to the client's
# port on the director's client link, into FILE (30 s at most).  Any
# length: when the client paused with a window of a few bytes, the server
# sends one unit of its window scale (128 bytes) and resends only that.
TCP_DATA='(ip[2:2] - ((ip[0] & 0xf) << 2) - ((tcp[12] & 0xf0) >> 2)) > 0'
first_seg_seq() {
	in_dir timeout 30 tcpdump -l -nn -S -c 1 -i dcli \
		"tcp src port 80 and dst port $FLOOR_PORT and $TCP_DATA" \
		2> "$1.err" | sed -n 's/.* seq \([0-9]*\):.*/\1/p' > "$1"
}

# floor_segments FLOOR: from the capture, the payload lengths of the
# director's data segments after the error: most must be at the floor
# (less options), and smaller ones (the tails of what a server sent at
# once, cut by GSO) no more than those
floor_segments() {
	in_dir tcpdump -r "$FLOOR_PCAP" -nn 2> /dev/null |
		awk -v vip="$L7TB_VIP.80" -v floor="$1" '
		/need to frag/ { after = 1; next }
		!after || $3 != vip || !match($0, /length [0-9]+/) { next }
		{ len = substr($0, RSTART + 7, RLENGTH - 7) + 0 }
		len == 0 { next }
		{ n[len]++; all++ }
		len >= floor - 40 && len <= floor { at++ }
		len < floor - 40 { below++ }
		END {
			for (l in n) if (mode == "" || n[l] > n[mode]) mode = l
			printf "after the error: %d data segments, %d at the floor (%d-%d bytes), %d below, most of %s bytes\n",
				all, at, floor - 40, floor, below, mode
			exit !(all && mode >= floor - 40 && mode <= floor && below <= at)
		}'
}

# The client stops reading on purpose (its kernel drops the director's
# data meanwhile) for as long as the emulated guest takes to send the
# ICMP: the read floor (ack_timeout, 30 s) must not end it first.
icmp_mtu_68_floored() {
	local p=/sys/module/ip_vs_l7/parameters/ack_timeout rc
	echo 600 > $p || return 1
	icmp_mtu_68_floored_case
	rc=$?
	echo 30 > $p
	return $rc
}

icmp_mtu_68_floored_case() {
	local go=$TMP/floor.go log=${L7_RESULTS:-$TMP}/floor.log cap cli seq
	local icmps floor want rc=0 bcap
	floor=$(($(in_dir sysctl -n net.ipv4.route.min_pmtu) - 40))
	want=$(awk '$2 == "static/1m.bin" { print $1 }' \
		"$L7TB_DIR/www/SHA256SUMS")
	rm -f "$go"
	# started directly: $! must be tcpdump
	ip netns exec l7dir tcpdump -i dcli -n -U -s 128 -w "$FLOOR_PCAP" \
		"host $L7TB_CLIENT and (tcp port $FLOOR_PORT or icmp)" \
		> /dev/null 2> "$TMP/floor.cap.err" &
	cap=$!
	# the servers' side too, kept with the results for a failure's story
	ip netns exec l7dir tcpdump -i br0 -n -U -s 128 \
		-w "${L7_RESULTS:-$TMP}/floor-backend.pcap" "tcp port 80" \
		> /dev/null 2>&1 &
	bcap=$!
	wait_for grep -q listening "$TMP/floor.cap.err" ||
		{ kill $cap $bcap; return 1; }
	in_cli timeout 120 $PY -c "$FLOOR_CLIENT" "$L7TB_VIP" $FLOOR_PORT \
		"$go" > "$TMP/floor.out" 2>&1 &
	cli=$!
	wait_for grep -q paused "$TMP/floor.out" ||
		{ kill $cap $bcap $cli; cat "$TMP/floor.out"; return 1; }
	echo "paused" > "$log"
	# from now on what the director sends the client stays in flight
	in_cli nft -f - <<NFT
table ip l7floor {
	chain in {
		type filter hook input priority 0; policy accept;
		tcp sport 80 tcp dport $FLOOR_PORT ip length > 64 drop
	}
}
NFT
	first_seg_seq "$TMP/floor.seq" &
	wait_for grep -q listening "$TMP/floor.seq.err"
	touch "$go"
	wait $!
	seq=$(cat "$TMP/floor.seq")
	icmps=$(icmp_dest_unreachs)
	echo "quoting seq ${seq:-none}, in flight; $icmps taken" | tee -a "$log"
	[ -n "$seq" ] &&
	in_cli $PY -c '
import socket, sys
sys.path.insert(0, sys.argv[1])
from rawnet import icmp_frag_needed
vip, cli, port, seq = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
s.sendto(icmp_frag_needed(vip, cli, 80, port, seq, 68), (vip, 0))
' "$L7TB_DIR/clients" "$L7TB_VIP" "$L7TB_CLIENT" $FLOOR_PORT "$seq" ||
		rc=1
	# the director has looked at it once its stack has counted it
	wait_for dest_unreachs_above "$icmps" || rc=1
	in_cli nft delete table ip l7floor
	echo "sent; drop gone" >> "$log"
	wait $cli || rc=1
	echo "client done" >> "$log"
	sleep 1.5	# tcpdump hands over its last packets
	kill $cap $bcap
	wait $cap $bcap
	cat "$TMP/floor.out"
	grep -qx "body 1048576 $want" "$TMP/floor.out" ||
		{ echo "want body 1048576 $want"; rc=1; }
	floor_segments "$floor" || rc=1
	return $rc
}

t_check "tcp_hygiene: ICMP frag needed with MTU 68 about a download: segments no smaller than Linux's floor, bytes exact" icmp_mtu_68_floored

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
