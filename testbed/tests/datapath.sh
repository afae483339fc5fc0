#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The director's side of the data path (ip_vs_l7 datapath=1): it answers
# the client's handshake with SYN cookies, frames the request head in the
# kernel, and answers bad heads itself; nothing of them reaches a backend
# and IPVS makes no L4 connection.  Runs inside the guest.
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
HEAD_TIMEOUT=3
TMP_TS=$(mktemp)

modprobe ip_vs_l7 datapath=1 head_timeout=$HEAD_TIMEOUT
testbed_up
add_service "$VS" l7 1 1 1
# from here on, any line in an access log is a request that got through
for b in $L7TB_BACKENDS; do : > "$L7TB_RUN/$b/access.log"; done

# exchange BYTES: send BYTES (printf %b escapes) on a new connection to
# the VIP, print what comes back until the director closes (10 s max)
exchange() {
	in_cli timeout 10 bash -c 'exec 3<>/dev/tcp/'"$L7TB_VIP"'/80 &&
		printf "%b" "$1" >&3 && cat <&3' _ "$1"
}

# expect_status CODE BYTES: the director answers CODE and closes
expect_status() {
	local out rc
	out=$(exchange "$2")
	rc=$?
	[ $rc = 0 ] || { echo "exit $rc (124: not closed), got: $out"; return 1; }
	printf '%s\n' "$out" | head -n 1 | grep -q "^HTTP/1.1 $1 " ||
		{ echo "want $1, got: $(printf '%s' "$out" | head -n 3)"; return 1; }
	printf '%s' "$out" | tr -d '\r' | grep -qx 'Connection: close' ||
		{ echo "no Connection: close"; return 1; }
}

backend_requests() {
	cat "$L7TB_RUN"/s[123]/access.log | wc -l
}

bad_heads_answered() {
	expect_status 400 'GET / HTTP/1.1\r\nHost: h\r\nHost: h2\r\n\r\n' &&
	expect_status 400 '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03' &&
	expect_status 400 'GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n' &&
	expect_status 400 'POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n' &&
	expect_status 417 'GET / HTTP/1.1\r\nHost: h\r\nExpect: 200-ok\r\n\r\n' &&
	expect_status 501 'CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n' &&
	expect_status 505 'GET / HTTP/2.0\r\nHost: h\r\n\r\n'
}

oversized_head_431() {
	local pad
	pad=$(head -c 9000 /dev/zero | tr '\0' a)
	expect_status 431 "GET / HTTP/1.1\r\nHost: h\r\nX-Pad: $pad\r\n\r\n"
}

slow_client_408() {
	local start=$SECONDS
	expect_status 408 'GET /static/1k.bin HTTP/1.1\r\nHost: h\r\n' || return 1
	[ $((SECONDS - start)) -ge $((HEAD_TIMEOUT - 1)) ] ||
		{ echo "answered after $((SECONDS - start)) s"; return 1; }
}

nothing_reached_backends() {
	[ "$(backend_requests)" = 0 ] ||
		{ echo "backends logged:"; cat "$L7TB_RUN"/s[123]/access.log; return 1; }
	[ -z "$(in_dir ipvsadm -Lnc | tail -n +3)" ] ||
		{ echo "IPVS made connections:"; in_dir ipvsadm -Lnc; return 1; }
}

# A client that closes without a request is closed too, and forgotten.
fin_before_head() {
	in_cli timeout 10 bash -c 'exec 3<>/dev/tcp/'"$L7TB_VIP"'/80; exec 3>&-' ||
		return 1
	wait_eq 0 svc_col active ||
		{ in_dir cat /proc/net/ip_vs_l7; return 1; }
}

# 10,000 SYNs that never complete: no connection state, and a real
# client is still answered meanwhile.  Its exchange is one handshake; one
# more is allowed for a connect the client had to repeat under the flood
# (seen once in CI, not understood yet); the flood itself must not show.
syn_flood_no_state() {
	local before fl
	before=$(svc_col conns)
	in_cli "$L7TB_DIR/synflood" "$L7TB_CLIENT" "$L7TB_VIP" 80 10000 &
	fl=$!
	expect_status 400 'BAD\r\n\r\n' || { kill $fl; return 1; }
	wait $fl || return 1
	wait_eq 0 svc_col active && [ "$(svc_col conns)" -gt "$before" ] &&
		[ "$(svc_col conns)" -le $((before + 2)) ] ||
		{ echo "handshakes $before before"; in_dir cat /proc/net/ip_vs_l7; return 1; }
}

# conntrack loaded and INVALID dropped on input: the hook runs before
# conntrack, so the director's own answers still get through.
conntrack_invalid_drop() {
	in_dir nft -f - <<'NFT' || return 1
table inet l7test {
	chain input {
		type filter hook input priority 0; policy accept;
		ct state invalid drop
	}
}
NFT
	expect_status 400 'GET / HTTP/1.1\r\n\r\n' &&
		oversized_head_431
	local rc=$?
	in_dir nft delete table inet l7test
	return $rc
}

no_connection_leaks() {
	wait_eq 0 svc_col active ||
		{ in_dir cat /proc/net/ip_vs_l7; return 1; }
}

# l7_hooks NS: how many of the module's hooks "nft list hooks" shows in
# namespace NS
l7_hooks() {
	ip netns exec "$1" nft list hooks 2>/dev/null |
		grep -cE 'l7_(hook|hook6|guard)_fn'
}

# The module's hooks are registered in a namespace with its first l7
# service and go with its last, as IPVS's own: the client's namespace,
# and the director's once the service is deleted, pass none.  The
# kernel lists its hooks through nfnetlink_hook, which Debian's 6.1 does
# not build (6.12 does): without it the case says so and passes.
hooks_where_served() {
	local dir cli after
	if ! modinfo nfnetlink_hook > /dev/null 2>&1; then
		echo "not checked: this kernel has no nfnetlink_hook"
		return 0
	fi
	in_dir nft list hooks > /dev/null || return 1
	dir=$(l7_hooks l7dir)
	cli=$(l7_hooks l7cli)
	in_dir ipvsadm -D -t "$VS" || return 1
	after=$(l7_hooks l7dir)
	echo "ip_vs_l7 hooks: director $dir, client $cli, director after -D $after"
	[ "$dir" -gt 0 ] && [ "$cli" = 0 ] && [ "$after" = 0 ]
}

# ipvs_add VIP PORT SCHED: add a TCP service through IPVS's socket
# option, as ipvsadm would without netlink (IPVS's netlink family wants
# CAP_NET_ADMIN in the initial user namespace, its socket option only in
# the network namespace's own); prints the errno, 0 on success
ipvs_add() {
	$PY -c '
import socket, struct, sys
IP_VS_SO_SET_ADD = 64 + 1024 + 64 + 2
vip, port, sched = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode()
# struct ip_vs_service_user: protocol, addr, port, fwmark, sched_name,
# flags, timeout, netmask
svc = struct.pack("=H2x4sH2xI16sIII", socket.IPPROTO_TCP,
                  socket.inet_aton(vip), socket.htons(port), 0, sched,
                  0, 0, 0xffffffff)
try:
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).setsockopt(
        socket.IPPROTO_IP, IP_VS_SO_SET_ADD, svc)
    print(0)
except OSError as e:
    print(e.errno)
' "$@"
}

# a new user and network namespace, made by an unprivileged user (Debian
# lets one make them), for the command that follows
IN_USERNS=(setpriv --reuid=nobody --regid=nogroup --clear-groups
	unshare -Urn)

# The root of a user namespace may add IPVS services in its own network
# namespace, but not l7 ones: the module's limits, workqueue and hashes
# are shared by every namespace.  A stock scheduler in the same namespace
# is added, so the refusal is the module's, not IPVS's.
userns_service_refused() {
	local out
	out=$("${IN_USERNS[@]}" bash -c "$(declare -f ipvs_add); PY=$PY"'
		ip link set lo up || exit 1
		echo "l7 $(ipvs_add 127.0.0.1 80 l7)"
		echo "l7_services $(grep -Ec "^(TCP|UDP|SCTP|FWM) " /proc/net/ip_vs_l7)"
		echo "rr $(ipvs_add 127.0.0.1 80 rr)"
		echo "rr_services $(grep -c " rr " /proc/net/ip_vs)"') ||
		{ echo "$out"; return 1; }
	echo "$out"
	printf '%s\n' "$out" | tr '\n' ' ' |
		grep -qx 'l7 1 l7_services 0 rr 0 rr_services 1 '
}

# netns_other PID: PID is in another network namespace than this shell
netns_other() {
	[ "$(readlink "/proc/$1/ns/net")" != "$(readlink /proc/self/ns/net)" ]
}

# The IPVS_L7 family refuses such a namespace too, even to the initial
# user namespace's root that enters it: no rule set is kept there.
userns_rules_refused() {
	local pid rc=0 out st
	# unshare runs sleep in the process it made the namespaces in
	"${IN_USERNS[@]}" sleep 30 > /dev/null 2>&1 &
	pid=$!
	wait_for netns_other $pid || { kill $pid; return 1; }
	# exit status: the errno, 1 (EPERM); a dump's refusal has no message
	out=$(nsenter --net=/proc/$pid/ns/net \
		$PY "$L7TB_DIR/clients/l7nl.py" add-pool 127.0.0.1:80 p \
		127.0.0.1:8080 2>&1)
	st=$?
	echo "add-pool: exit $st $out"
	case "$st:$out" in
	"1:"*"outside the initial user namespace"*) ;;
	*) rc=1 ;;
	esac
	out=$(nsenter --net=/proc/$pid/ns/net \
		$PY "$L7TB_DIR/clients/l7nl.py" pools 2>&1)
	st=$?
	echo "pools: exit $st $out"
	case "$st:$out" in "1:"*"Operation not permitted"*) ;; *) rc=1 ;; esac
	kill $pid
	wait $pid 2>/dev/null
	return $rc
}

# param_refused NAME VALUE: writing VALUE to the module's parameter NAME
# at run time fails and leaves the value it had
param_refused() {
	local f=/sys/module/ip_vs_l7/parameters/$1 before after
	before=$(cat "$f") || return 1
	if echo "$2" 2> /dev/null > "$f"; then
		echo "$1=$2 accepted"
		echo "$before" > "$f"
		return 1
	fi
	after=$(cat "$f")
	[ "$after" = "$before" ] || { echo "$1 is $after, was $before"; return 1; }
}

# Parameters written at run time are checked as at load: a value that
# would refuse or expire everything, or overflow a timer, is refused.
params_checked_at_run_time() {
	local rc=0
	param_refused client_max_pooled 0 || rc=1
	param_refused pool_max 0 || rc=1
	param_refused head_timeout 0 || rc=1
	param_refused idle_timeout 0 || rc=1
	param_refused ack_timeout 99999999 || rc=1
	param_refused queue_timeout 4294967295 || rc=1
	param_refused pool_idle_ttl x || rc=1
	# and a good value still goes in
	echo 5 > /sys/module/ip_vs_l7/parameters/client_max_pooled &&
		[ "$(cat /sys/module/ip_vs_l7/parameters/client_max_pooled)" = 5 ] ||
		{ echo "client_max_pooled=5 not taken"; rc=1; }
	echo 4 > /sys/module/ip_vs_l7/parameters/client_max_pooled
	return $rc
}

# The director's TCP timestamps tell no uptime: its SYN-ACK's TSval is
# its millisecond clock plus an offset keyed by the two addresses (as
# Linux's own), not milliseconds since boot.  (A random offset lands
# within a minute of the uptime once in 36,000 runs.)
synack_tsval_not_uptime() {
	local f=$TMP_TS ts up d pid
	in_dir timeout 20 tcpdump -l -nn -c 1 -i dcli \
		"src port 80 and tcp[tcpflags] & tcp-syn != 0" \
		> "$f" 2> "$f.err" &
	pid=$!
	wait_for grep -q listening "$f.err" || return 1
	expect_status 400 'BAD\r\n\r\n' || return 1
	wait $pid
	ts=$(sed -n 's/.*TS val \([0-9]*\).*/\1/p' "$f")
	up=$(awk '{ printf "%d", $1 * 1000 }' /proc/uptime)
	[ -n "$ts" ] || { echo "no TSval in: $(cat "$f")"; return 1; }
	d=$(((ts - up) & 0xffffffff))
	[ $d -lt $((1 << 31)) ] || d=$(((1 << 32) - d))
	echo "SYN-ACK TSval $ts, uptime $up ms: $d ms apart"
	[ $d -gt 60000 ]
}

t_check "datapath: bad heads get 400/417/501/505 from the director" bad_heads_answered
t_check "datapath: a head over 8 KB gets 431" oversized_head_431
t_check "datapath: a client too slow with its head gets 408" slow_client_408
t_check "datapath: a FIN before any request closes and frees" fin_before_head
t_check "datapath: 10,000 unanswered SYNs leave no state" syn_flood_no_state
t_check "datapath: works with conntrack dropping ct state invalid" conntrack_invalid_drop
t_check "datapath: no byte reached a backend, no IPVS connection" nothing_reached_backends
t_check "datapath: every connection freed" no_connection_leaks
t_check "datapath: the director's TCP timestamps are not its uptime" synack_tsval_not_uptime
# deletes the service (where the kernel can list hooks): after the cases
# that talk to it
t_check "datapath: the module's hooks only where an l7 service is" hooks_where_served
t_check "datapath: no l7 service in a user namespace's network namespace" userns_service_refused
t_check "datapath: module parameters written at run time are range-checked" params_checked_at_run_time
t_check "datapath: no l7 rules in a user namespace's network namespace" userns_rules_refused

testbed_down
rm -f "$TMP_TS" "$TMP_TS.err"
t_summary
