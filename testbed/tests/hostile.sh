#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Hostile clients and backends: what the director framed is
# exactly what a backend receives, and no client pins the pools.  A raw
# client (testbed/clients/hostile_client.py, scapy) sends segments no kernel
# would: bytes framed and then dropped and resent different, a FIN with
# bad options inside a body, a framing error in the first segment, and
# hundreds of pipelined GETs whose responses it never acknowledges.  A
# misbehaving backend (testbed/clients/badbackend.py) resets in the middle
# of responses and has RSTs forged in its name.  Small MTUs on either
# side of the director, and a router with a small link toward a client
# (whose "fragmentation needed" only the data path can act on), test path
# MTU through the splice.  Heads on which Apache would answer and close
# (testbed/clients/apache_heads.py) are refused by the director or
# rewritten in its copy, so that none costs a pooled connection.  The bytes that
# reach backends are read from their access logs and from a capture on
# the director's backend bridge.  Runs inside the guest.
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
BAD_VS=$L7TB_VIP:8080
BAD_RS=$(backend_ip s1):8080
TMP=$(mktemp -d)
BAD_DIR=$L7TB_RUN/bad
CLIENTS=$L7TB_DIR/clients
POOL_MAX=16
PIN_MAX_BUSY=4	# pooled connections one client may hold at once, at most
DIGEST_1M=$(awk '$2 == "static/1m.bin" { print $1 }' "$L7TB_DIR/www/SHA256SUMS")

# idle_timeout: a connection a test leaves stuck must not hide the next
# test's outcome for 15 minutes.  The hostile clients and the normal ones
# served meanwhile are one address: no per-address cap of pooled
# connections (by default pool_max / 8, at least client_max_pooled: 4
# here), so that each test shows the bound it is about.
modprobe ip_vs_l7 datapath=1 pool_max=$POOL_MAX idle_timeout=30 source_max_pooled=0
testbed_up
add_service "$VS" l7 1 1 1

# The client's kernel knows nothing of hostile_client.py's connections and would
# reset them: drop its bare RSTs from the raw client's ports (hostile_client.py's
# own RSTs carry ACK).
in_cli nft -f - <<'NFT'
table inet hostile_raw {
	chain output {
		type filter hook output priority 0; policy accept;
		tcp sport 61000-61999 tcp flags & (rst | ack) == rst drop
	}
}
NFT

# raw SCENARIO ARGS...: testbed/clients/hostile_client.py in the client namespace
raw() {
	local s=$1
	shift
	in_cli timeout 300 "$PY" -u "$CLIENTS/hostile_client.py" "$s" "$L7TB_VIP" "$@"
}

busy_total() {	# busy pooled connections of the port-80 servers
	l7_table | l7_awk '$1 == "->" && $2 ~ /:80$/ { n += rv("Busy") }
		END { print n + 0 }'
}

# python and scapy start slowly in an emulated guest: their waits are long
LONG=90

# ---- what reached the backends ----

# cap_start: empty the backends' access logs and capture what the
# director sends on its backend bridge.  Not
# through in_dir: $! must be tcpdump itself (ip netns exec execs it), and
# its stdout must not hold t_check's command substitution open.
cap_start() {
	local b
	for b in $L7TB_BACKENDS; do : > "$L7TB_RUN/$b/access.log"; done
	CAP=$TMP/cap.$((++CAP_N)).pcap
	ip netns exec l7dir tcpdump -Z root -i br0 -U -s 0 -w "$CAP" \
		"tcp and src host $L7TB_GW" > /dev/null 2> "$CAP.err" &
	CAP_PID=$!
	wait_for -s $LONG grep -q 'listening on' "$CAP.err"
}
CAP_N=0

cap_stop() {
	sleep 1
	kill "$CAP_PID" 2>/dev/null
	wait "$CAP_PID" 2>/dev/null
}

# cap_count STRING: captured segments whose payload contains STRING
cap_count() {
	tcpdump -r "$CAP" -nn -A 2>/dev/null | grep -c -- "$1"
}

logged() {	# logged STRING: access-log lines of all backends with it
	grep -h -- "$1" "$L7TB_RUN"/s[123]/access.log
}

# not_forwarded TAG CLIENT-OUTPUT: no byte of the request tagged TAG,
# which the director never framed, reached a backend
not_forwarded() {
	local n rc=0
	if [ -n "$(logged "$1")" ]; then
		echo "SMUGGLED: a backend logged a request the director never framed:"
		logged "$1" | sed 's/^/  /'
		rc=1
	fi
	n=$(cap_count "$1")
	if [ "$n" != 0 ]; then
		echo "the director forwarded $n segment(s) carrying $1 to a backend (br0 capture)"
		rc=1
	fi
	echo "raw client saw: $(echo "$2" | tr '\n' ' ')"
	return $rc
}

# 1. A body segment the director frames and then drops (its options do
# not parse), then the same range again: "0\r\n\r\n" ends the body and a
# CONNECT follows, a request the director would answer 501 itself.
framed_then_dropped() {
	local out
	cap_start
	out=$(raw smuggle-body --badopt "$1" --wait 4 2>&1)
	cap_stop
	not_forwarded SMUGGLED1 "$out"
}

# 2. The director took a head (acknowledged it, sent its own copy); the
# client resends that range with other bytes of the same length.  The
# copy is kept from the backends for a moment (iptables string match), so
# that a forwarded resend is what they would take.
head_resend() {
	local out b pid rc
	for b in $L7TB_BACKENDS; do
		in_backend "$b" iptables -I INPUT -p tcp -m string \
			--string ORIGINAL2 --algo bm -j DROP 2>/dev/null ||
			echo "(no xt_string on $b: capture check only)"
	done
	cap_start
	rm -f "$TMP/mark"
	raw head-resend --wait 30 --mark "$TMP/mark" > "$TMP/resend.out" 2>&1 &
	pid=$!
	wait_for -s $LONG test -e "$TMP/mark"
	sleep 2
	for b in $L7TB_BACKENDS; do
		in_backend "$b" iptables -D INPUT -p tcp -m string \
			--string ORIGINAL2 --algo bm -j DROP 2>/dev/null
	done
	wait $pid
	cap_stop
	out=$(cat "$TMP/resend.out")
	not_forwarded SMUGGLED2 "$out"
	rc=$?
	# (a director may also reset a client that rewrites history)
	if [ -z "$(logged ORIGINAL2)" ] && ! echo "$out" | grep -q '^reset: yes'; then
		echo "the request the director took never reached a backend"
		rc=1
	fi
	return $rc
}

# 3. A FIN with malformed options in the middle of a chunked body, then
# the rest of the body and a CONNECT after it.
fin_bad_options() {
	local out
	cap_start
	out=$(raw fin-badopt --badopt "$1" --wait 4 2>&1)
	cap_stop
	not_forwarded SMUGGLED3 "$out"
}

# 4. A chunked body with an invalid chunk-size line in the head's segment
body_error_first_segment() {
	local out rc=0
	cap_start
	out=$(raw body-error --wait 6 2>&1)
	cap_stop
	echo "$out" | grep -q '^responses: 400' ||
		{ echo "the client got no 400 (want: HTTP/1.1 400, then close)"; rc=1; }
	if [ "$(cap_count BADCHUNK4)" != 0 ] || [ -n "$(logged BADCHUNK4)" ]; then
		echo "the director sent the request with the bad body to a backend:"
		logged BADCHUNK4 | sed 's/^/  /'
		rc=1
	fi
	echo "raw client saw: $(echo "$out" | tr '\n' ' ')"
	return $rc
}

# ---- heads on which Apache would answer and close ----

REFUSED_HEADS="cl-repeat cl-list cl-2e63 chunk-2e63 chunk-bws11 blank-lines11 te-comma"
KEPT_ROUNDS=10

# heads CASE... [--repeat N]: testbed/clients/apache_heads.py's lines
heads() {
	in_cli "$PY" "$CLIENTS/apache_heads.py" "$L7TB_VIP" "$@"
}

# burned: pooled connections the port-80 servers' pools opened, less
# those alive now (idle, resting or busy: a pool grows while the ones it
# had rest after their answers) and those aged out or closed by their
# server while idle: the ones retired after an answer
burned() {
	l7_table | l7_awk '$1 == "->" && $2 ~ /:80$/ {
			n += rv("Opened") - rv("Closed") - rv("Aged") - rv("Idle") - rv("Busy")
		} END { print n + 0 }'
}

# pools_settled: no pooled connection busy, every pool refilled
pools_settled() {
	l7_table | l7_awk '$1 == "->" && $2 ~ /:80$/ && rv("Busy") == 0 && rv("Idle") >= 8 { n++ }
		END { exit !(n == 3) }'
}

# all_status CODE LINES: every status on every CASE line is CODE
all_status() {
	echo "$2" | awk -v c="$1" '{ for (i = 2; i <= NF; i++) if ($i != c) bad = 1 }
		NF < 2 { bad = 1 } END { exit bad }'
}

# Each refused head gets the director's own 400: no backend logs it and
# no pooled connection is retired for it.
apache_refused() {
	local out before answered n rc=0
	wait_for pools_settled
	clear_logs
	before=$(burned)
	answered=$(svc_col answered "$VS")
	out=$(heads $REFUSED_HEADS)
	echo "$out"
	all_status 400 "$out" || { echo "want 400 for each"; rc=1; }
	n=$(($(svc_col answered "$VS") - answered))
	[ "$n" = "$(echo $REFUSED_HEADS | wc -w)" ] ||
		{ echo "the director itself answered $n of them"; rc=1; }
	if [ -n "$(logged '" 4[01][0-9] ')" ]; then
		echo "a backend answered one:"
		logged '" 4[01][0-9] ' | sed 's/^/  /'
		rc=1
	fi
	wait_for pools_settled || rc=1
	n=$(($(burned) - before))
	[ "$n" -le 0 ] || { echo "$n pooled connections retired"; rc=1; }
	return $rc
}

# apache_kept CASE: KEPT_ROUNDS requests, each on a new client
# connection, all answered 200, and their pooled connections kept: far
# fewer retired than one per request
apache_kept() {
	local out before n rc=0
	wait_for pools_settled
	before=$(burned)
	out=$(heads "$1" --repeat $KEPT_ROUNDS)
	echo "$out"
	all_status 200 "$out" || { echo "want 200 for each"; rc=1; }
	wait_for pools_settled || rc=1
	n=$(($(burned) - before))
	[ $((2 * n)) -lt $KEPT_ROUNDS ] ||
		{ echo "$n pooled connections retired for $KEPT_ROUNDS requests"; rc=1; }
	return $rc
}

# ---- a backend that resets, and RSTs forged in a backend's name ----

bad_backend_up() {
	mkdir -p "$BAD_DIR"
	ip netns exec l7s1 "$PY" "$CLIENTS/badbackend.py" 8080 "$BAD_DIR" \
		> "$TMP/bad.log" 2>&1 < /dev/null &
	BAD_PID=$!
	wait_for -s $LONG test -e "$BAD_DIR/listening" || return 1
	in_dir ipvsadm -A -t "$BAD_VS" -s l7 &&
		in_dir ipvsadm -a -t "$BAD_VS" -r "$BAD_RS" -m &&
		wait_for bad_pool_ready
}

bad_pool_ready() {
	[ "$(rs_col "$BAD_RS" Idle)" -ge 1 ] && [ "$(rs_col "$BAD_RS" State)" = up ]
}

# reset_mid_response PATH: the backend sends part of a response and
# resets; the client must see a reset too, and the connection must go
reset_mid_response() {
	local rc size
	in_cli curl -sS --max-time 30 -o "$TMP/cut" "http://$BAD_VS$1" 2>&1
	rc=$?
	size=$(stat -c %s "$TMP/cut" 2>/dev/null || echo 0)
	if [ $rc = 0 ]; then
		echo "the client took a truncated response ($size bytes) for complete"
		return 1
	fi
	[ $rc = 56 ] || { echo "curl exit $rc after $size bytes; want 56 (reset)"; return 1; }
	wait_eq 0 svc_col active "$BAD_VS" ||
		{ echo "client connection still active:"; in_dir cat /proc/net/ip_vs_l7; return 1; }
}

# forged_rst OFFSET ID: while a response is under way on a pooled
# connection, a RST at the director's rcv_nxt + OFFSET is forged from the
# backend's address; the director must ignore it (RFC 5961: out of
# window, or in window but not exact) and the response must complete.
forged_rst() {
	local cpid fpid rc size before
	before=$(svc_col server_rst "$BAD_VS")
	rm -f "$TMP/ready" "$BAD_DIR/go-$2"
	in_backend s1 timeout 120 "$PY" "$CLIENTS/hostile_client.py" forge-rst \
		--port 8080 --director "$L7TB_GW" --offsets "$1" \
		--ready "$TMP/ready" --wait 40 > "$TMP/forge.out" 2>&1 &
	fpid=$!
	wait_for -s $LONG test -e "$TMP/ready"
	in_cli curl -sS --max-time 30 -o "$TMP/slow" \
		"http://$BAD_VS/slow?id=$2" > "$TMP/curl.err" 2>&1 &
	cpid=$!
	wait $fpid
	sleep 1
	touch "$BAD_DIR/go-$2"
	wait $cpid
	rc=$?
	size=$(stat -c %s "$TMP/slow" 2>/dev/null || echo 0)
	cat "$TMP/forge.out"
	[ $rc = 0 ] && [ "$size" = 20000 ] && return 0
	echo "the response died: curl exit $rc after $size of 20000 bytes: $(cat "$TMP/curl.err")"
	[ "$(svc_col server_rst "$BAD_VS")" != "$before" ] &&
		echo "the director ended the connection on the forged RST (server_rst $before -> $(svc_col server_rst "$BAD_VS"))"
	return 1
}

# ---- path MTU ----

# download_and_post [NS]: from the client namespace NS (l7cli)
download_and_post() {
	local got ns=${1:-l7cli}
	ip netns exec "$ns" curl -sS --fail --max-time 30 -o "$TMP/1m" \
		"http://$L7TB_VIP/static/1m.bin" || { echo "1 MB download failed"; return 1; }
	got=$(sha256sum < "$TMP/1m" | cut -d' ' -f1)
	[ "$got" = "$DIGEST_1M" ] || { echo "1 MB download: sha256 $got"; return 1; }
	ip netns exec "$ns" curl -sS --fail --max-time 30 --data-binary @"$TMP/post" \
		-o "$TMP/echo" "http://$L7TB_VIP/cgi-bin/echo" ||
		{ echo "300 KB POST echo failed"; return 1; }
	cmp "$TMP/post" "$TMP/echo"
}

# The director's own link to the client carries 1280 bytes, the client's
# end 1500: the client's MSS says 1460, the path says less.
pmtu_client_link() {
	local rc
	in_dir ip link set dcli mtu 1280
	download_and_post
	rc=$?
	in_dir ip link set dcli mtu 1500
	return $rc
}

# The backend links drop to 1280 while pooled connections opened at 1500
# wait in the pools.
set_backend_mtu() {
	local b
	for b in $L7TB_BACKENDS; do
		in_backend "$b" ip link set eth0 mtu "$1"
		in_dir ip link set "d$b" mtu "$1"
	done
	in_dir ip link set br0 mtu "$1"
}

# pools_at WEIGHT IDLE: every real server of $VS at WEIGHT, with IDLE
# pooled connections idle and none busy
pools_at() {
	[ "$(l7_table | l7_awk -v w="$1" -v idle="$2" '$1 == "->" && $2 ~ /:80$/ &&
		rv("Weight") == w && rv("Idle") == idle && rv("Busy") == 0 &&
		rv("State") == "up" { n++ } END { print n + 0 }')" = 3 ]
}

# pools_renew: every real server's pooled connections closed and opened
# anew.  One that lived through a 1280-byte link keeps the smaller MSS
# its server learned there, and a later test through the VIP that needs
# full-size segments would not get them from it.
pools_renew() {
	local b w
	for w in 0 1; do
		for b in $L7TB_BACKENDS; do
			in_dir ipvsadm -e -t "$VS" -r "$(backend_ip "$b"):80" -m -w $w ||
				return 1
		done
		wait_for pools_at $w $((w * 8)) || return 1
	done
}

pmtu_backend_links() {
	local rc
	set_backend_mtu 1280
	download_and_post
	rc=$?
	set_backend_mtu 1500
	pools_renew || { echo "pools not renewed"; in_dir cat /proc/net/ip_vs_l7; rc=1; }
	return $rc
}

# A router between the director and a second client, whose link to
# that client carries 1280 bytes; the client advertises MSS 1460 (its
# route's advmss), as one behind such a path does.  Nothing on the
# director's own links is small: it learns the path only from the
# router's "fragmentation needed" (its segments carry DF), addressed to
# the VIP about a flow no socket owns - only the data path can act on it.
#
#   l7dir 203.0.113.1 --1500-- .2 l7rtr .129 --1280-- .130 l7cli2
ROUTED_CLIENT=203.0.113.130

router_up() {
	ip netns add l7rtr && ip netns add l7cli2 || return 1
	ip -n l7rtr link set lo up
	ip -n l7cli2 link set lo up
	ip -n l7dir link add drtr type veth peer name eth0 netns l7rtr
	ip -n l7dir addr add 203.0.113.1/25 dev drtr
	ip -n l7dir link set drtr up
	ip -n l7rtr addr add 203.0.113.2/25 dev eth0
	ip -n l7rtr link set eth0 up
	ip -n l7rtr link add eth1 mtu 1280 type veth peer name eth0 mtu 1280 \
		netns l7cli2
	ip -n l7rtr addr add 203.0.113.129/25 dev eth1
	ip -n l7rtr link set eth1 up
	ip -n l7cli2 addr add "$ROUTED_CLIENT/25" dev eth0
	ip -n l7cli2 link set eth0 up
	ip -n l7cli2 route add default via 203.0.113.129 advmss 1460
	ip -n l7rtr route add default via 203.0.113.1
	ip -n l7dir route add 203.0.113.128/25 via 203.0.113.2
	ip netns exec l7rtr sysctl -qw net.ipv4.ip_forward=1
}

router_down() {
	ip -n l7dir route del 203.0.113.128/25 2>/dev/null
	ip -n l7dir link del drtr 2>/dev/null
	ip netns del l7cli2 2>/dev/null
	ip netns del l7rtr 2>/dev/null
}

# frag_needed_sent: destination-unreachable errors the router has sent
frag_needed_sent() {
	ip netns exec l7rtr awk '$1 == "Icmp:" && !h { for (i = 2; i <= NF; i++) n[$i] = i; h = 1; next }
		$1 == "Icmp:" { print $n["OutDestUnreachs"] }' /proc/net/snmp
}

pmtu_router() {
	local rc sent
	router_up || { router_down; echo "no router"; return 1; }
	download_and_post l7cli2
	rc=$?
	sent=$(frag_needed_sent)
	echo "the router sent ${sent:-0} destination-unreachable errors"
	[ "${sent:-0}" -gt 0 ] ||
		{ echo "it never had to: the path was not exercised"; rc=1; }
	router_down
	return $rc
}

# ---- pinning ----

# A raw client pipelines 300 GETs and never acknowledges a response byte;
# meanwhile curl must be served, and the raw client may hold only a few
# pooled connections.
pinning_client() {
	local pid busy codes start rc=0 i n
	rm -f "$TMP/mark" "$TMP/stop"
	raw pin --requests 300 --wait 240 --mark "$TMP/mark" --stop "$TMP/stop" \
		> "$TMP/pin.out" 2>&1 &
	pid=$!
	wait_for -s $LONG test -e "$TMP/mark"
	# the most it holds while it takes what it can
	busy=0
	for i in $(seq 1 15); do
		n=$(busy_total)
		[ "$n" -gt "$busy" ] && busy=$n
		sleep 1
	done
	start=$SECONDS
	codes=$(for i in $(seq 1 10); do
		in_cli curl -s --max-time 20 -o /dev/null -w '%{http_code} ' \
			"http://$L7TB_VIP/static/1k.bin?normal=$i"
	done)
	touch "$TMP/stop"
	wait $pid
	if [ "$busy" -gt "$PIN_MAX_BUSY" ]; then
		echo "the pinning client holds $busy busy pooled connections (pool_max $POOL_MAX per server, at most $PIN_MAX_BUSY allowed)"
		rc=1
	fi
	if [ "$(echo $codes)" != "$(echo 200 200 200 200 200 200 200 200 200 200)" ]; then
		echo "a normal client meanwhile got: $codes($((SECONDS - start)) s)"
		rc=1
	fi
	echo "raw client: $(tr '\n' ' ' < "$TMP/pin.out")"
	return $rc
}

all_freed() {
	[ "$(l7_table | l7_awk '$1 == "TCP" { n += sv("active") }
		END { print n + 0 }')" = 0 ]
}

no_connection_leaks() {
	wait_for -s $LONG all_freed ||
		{ in_dir cat /proc/net/ip_vs_l7; return 1; }
}

wait_for pools_ready >/dev/null || in_dir cat /proc/net/ip_vs_l7
for b in $L7TB_BACKENDS; do : > "$L7TB_RUN/$b/access.log"; done
head -c 307200 /dev/urandom > "$TMP/post"

t_check "hostile: body framed then dropped (TS option of length 9), resent different" framed_then_dropped ts9
t_check "hostile: body framed then dropped (option past the header), resent different" framed_then_dropped past
t_check "hostile: a taken head resent with other bytes never reaches a backend" head_resend
t_check "hostile: a FIN with bad options inside a body does not end framing" fin_bad_options ts9
t_check "hostile: a bad chunk-size line in the first segment gets 400, nothing forwarded" body_error_first_segment
t_check "hostile: heads Apache refuses and closes on (Content-Length repeated, a list or 2^63, chunk size 2^63, 11 blanks after it, 11 empty lines first, chunked ,): the director's 400, no pooled connection retired" apache_refused
for c in conn-close-x expect-get expect-1.0 chunk-bws10 blank-lines10; do
	t_check "hostile: heads Apache keeps the connection for ($c): 200s, pooled connections kept" apache_kept $c
done
if bad_backend_up; then
	t_check "hostile: backend resets mid-response (Content-Length): the client is reset" reset_mid_response /cut-cl
	t_check "hostile: backend resets mid-response (until close): the client is reset" reset_mid_response /cut-eof
	t_check "hostile: a forged out-of-window backend RST is ignored" forged_rst 2147483648 1
	t_check "hostile: a forged in-window inexact backend RST is ignored" forged_rst 1 2
else
	t_fail "hostile: the misbehaving backend on s1:8080 did not come up" "$(cat "$TMP/bad.log")"
fi
t_check "hostile: PMTU: director's client link at 1280, 1 MB and 300 KB POST exact" pmtu_client_link
t_check "hostile: PMTU: backend links down to 1280, 1 MB and 300 KB POST exact" pmtu_backend_links
t_check "hostile: PMTU: a router's 1280-byte link toward the client (its ICMP to the VIP), 1 MB and 300 KB POST exact" pmtu_router
t_check "hostile: a pinning client holds few pooled connections, others are served" pinning_client
t_check "hostile: every client connection freed" no_connection_leaks
in_dir cat /proc/net/ip_vs_l7

[ -n "${BAD_PID:-}" ] && kill "$BAD_PID" 2>/dev/null
in_cli nft delete table inet hostile_raw
testbed_down
rm -rf "$TMP" "$BAD_DIR"
t_summary
