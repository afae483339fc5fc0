#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The splice data path (ip_vs_l7 datapath=1): client flows answered by
# the director, bound to pooled connections and rewritten packet by
# packet, stay byte-exact.  Runs inside the guest.
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
TMP=$(mktemp -d)

# emulated time is ~30x slower: give the pools time to grow for 200 clients
modprobe ip_vs_l7 datapath=1 queue_timeout=30000
testbed_up
add_service "$VS" l7 1 1 1
wait_for in_dir grep -Eq ' 8 .* up ' /proc/net/ip_vs_l7

static_exact() {
	: > "$TMP/served"
	fetch_static 1 "$TMP/served"
}

spread_over_backends() {
	local i b
	: > "$TMP/served"
	for i in $(seq 1 9); do
		fetch "http://$L7TB_VIP/index.html" /dev/null >> "$TMP/served" || return 1
	done
	for b in $L7TB_BACKENDS; do
		grep -qx "$b" "$TMP/served" || { sort "$TMP/served" | uniq -c; return 1; }
	done
}

no_ipvs_connections() {
	[ -z "$(in_dir ipvsadm -Lnc | tail -n +3)" ] || { in_dir ipvsadm -Lnc; return 1; }
}

httperf_no_errors() {
	in_cli httperf --hog --server "$L7TB_VIP" --uri /static/10k.bin \
		--num-conns 20 --num-calls 20 --timeout 20 > "$TMP/hp" 2>&1
	grep -E '^(Total|Errors)' "$TMP/hp"
	grep -q '^Errors: total 0 ' "$TMP/hp" &&
		grep -q '^Total: connections 20 requests 400 replies 400' "$TMP/hp"
}

# 200 concurrent keep-alive connections, each bound to its own pooled
# connection: the pools grow from 8 idle per server while requests wait.
wrk_200_no_errors() {
	in_cli wrk -t2 -c200 -d20s --timeout 30s "http://$L7TB_VIP/static/1k.bin" \
		> "$TMP/wrk" 2>&1
	cat "$TMP/wrk" | grep -E 'requests in|errors|Non-2xx'
	grep -Eq '^ +[0-9]+ requests in' "$TMP/wrk" &&
		! grep -Eq 'Socket errors|Non-2xx' "$TMP/wrk"
}

# What the backends' TCP resent (retransmissions and tail loss probes).
backend_resends() {
	local b n=0
	for b in $L7TB_BACKENDS; do
		n=$((n + $(in_backend "$b" nstat -asz TcpRetransSegs |
			awk '$1 == "TcpRetransSegs" { print $2 }')))
	done
	echo "$n"
}

# Keep-alive clients that read every response: servers resend next to
# nothing.  A server whose response's last ACK the director swallowed
# probed for the tail (TLP) two round trips later and took our answer for
# a loss: one 10 KB or 100 KB response in eight was resent in part.  What
# is left is the emulator's jitter - a client's ACK later than the
# server's probe: about one response in fifty at 10 KB, one in a hundred
# or less at 100 KB, IPVS one in a hundred or less at both.
servers_resend_nothing() {
	local size before n resent
	for size in 10k 100k; do
		before=$(backend_resends)
		in_cli wrk -t1 -c4 -d8s --timeout 30s \
			"http://$L7TB_VIP/static/$size.bin" > "$TMP/wrk-$size" 2>&1
		sleep 1	# the pools' delayed ACKs
		resent=$(($(backend_resends) - before))
		n=$(awk '/requests in/ { print $1 }' "$TMP/wrk-$size")
		echo "$size: ${n:-0} responses, servers resent $resent segments"
		[ "${n:-0}" -ge 50 ] && [ $((resent * 20)) -le "$n" ] || return 1
	done
}

# Keep-alive clients answered in time hear only the servers' ACKs, on
# their responses: one segment per response and a SYN-ACK per
# connection.  The director's own delayed ACK of a request used to fall
# due on an earlier request's deadline while a later one was on its way:
# one pure ACK per fifteen requests.  One in fifty allows for responses
# the emulator delays past the 40 ms the director waits.
director_adds_no_acks() {
	local before segs n extra
	before=$(in_cli nstat -asz TcpInSegs | awk '$1 == "TcpInSegs" { print $2 }')
	in_cli wrk -t1 -c4 -d6s --timeout 30s "http://$L7TB_VIP/static/1k.bin" \
		> "$TMP/wrk-acks" 2>&1
	segs=$(($(in_cli nstat -asz TcpInSegs |
		awk '$1 == "TcpInSegs" { print $2 }') - before))
	n=$(awk '/requests in/ { print $1 }' "$TMP/wrk-acks")
	extra=$((segs - ${n:-0} - 4))
	echo "${n:-0} responses, the client received $segs segments: $extra more"
	[ "${n:-0}" -ge 100 ] && [ $((extra * 50)) -le "$n" ]
}

# One backend's Apache stopped: new bindings avoid it, without errors;
# started again, it is used again.
stopped_backend_avoided() {
	local i
	"$L7TB_DIR/apache" stop s2
	wait_for in_dir grep -Eq '192.0.2.12:80 .* down ' /proc/net/ip_vs_l7 ||
		{ in_dir cat /proc/net/ip_vs_l7; return 1; }
	: > "$TMP/served"
	for i in $(seq 1 9); do
		fetch "http://$L7TB_VIP/index.html" /dev/null >> "$TMP/served" ||
			{ echo "request $i failed"; return 1; }
	done
	! grep -qx s2 "$TMP/served" || { echo "s2 served while stopped"; return 1; }
	"$L7TB_DIR/apache" start s2
	wait_for in_dir grep -Eq '192.0.2.12:80 +1 +8 .* up ' /proc/net/ip_vs_l7 ||
		{ in_dir cat /proc/net/ip_vs_l7; return 1; }
	spread_over_backends
}

# The service deleted and the module unloaded while wrk keeps 50
# connections busy: every spliced flow is reset, nothing leaks.
rmmod_under_wrk() {
	local w
	in_cli wrk -t1 -c50 -d15s --timeout 30s "http://$L7TB_VIP/static/10k.bin" \
		> "$TMP/wrk2" 2>&1 &
	w=$!
	sleep 6
	in_dir ipvsadm -D -t "$VS" || return 1
	rmmod ip_vs_l7 || { echo "rmmod failed"; return 1; }
	wait $w
	grep -Eq '^ +[0-9]+ requests in' "$TMP/wrk2" || { cat "$TMP/wrk2"; return 1; }
}

t_check "splice: every static file byte-exact through the VIP" static_exact
t_check "splice: CGI and a 300 KB POST echoed byte-exact" cgi_and_post "http://$L7TB_VIP"
t_check "splice: new connections spread over all backends" spread_over_backends
t_check "splice: IPVS makes no L4 connection" no_ipvs_connections
t_check "splice: httperf 20 connections x 20 calls, zero errors" httperf_no_errors
t_check "splice: wrk 200 connections for 20 s, zero errors" wrk_200_no_errors
t_check "splice: servers resend next to nothing to clients that read every response" servers_resend_nothing
t_check "splice: keep-alive clients answered in time get no ACKs of the director's own" director_adds_no_acks
t_check "splice: a stopped backend is avoided, and used again once back" stopped_backend_avoided
in_dir cat /proc/net/ip_vs_l7
t_check "splice: service deleted and module unloaded under wrk load" rmmod_under_wrk

testbed_down
rm -rf "$TMP"
t_summary
