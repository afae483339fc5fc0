#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The splice data path (ip_vs_l7 datapath=1): client flows answered by
# the director, bound to pooled connections and rewritten packet by
# packet, stay byte-exact.  Runs inside the guest.
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
TMP=$(mktemp -d)

# emulated time is ~30x slower: give the pools time to grow for 200 clients.
# The 200 clients are one address, as behind a NAT: no per-address cap
# of pooled connections (source_max_pooled's default is pool_max / 8).
modprobe ip_vs_l7 datapath=1 queue_timeout=30000 source_max_pooled=0
testbed_up
add_service "$VS" l7 1 1 1
wait_for pools_ready

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

# D-SACKs (RFC 2883) in a capture: segments whose first SACK block starts
# below their ACK or lies in their second block.
dsacks() {
	tcpdump -r "$1" -nn -S 2>/dev/null | awk '
	match($0, /ack [0-9]+/) && match($0, /sack [0-9]+ \{[^]]*/) {
		n = split(substr($0, RSTART, RLENGTH), f, /[{}: ]+/)
		match($0, /ack [0-9]+/)
		ack = substr($0, RSTART + 4, RLENGTH - 4) + 0
		if (f[3] + 0 < ack || (n > 6 && f[3] + 0 >= f[5] + 0 &&
		    f[4] + 0 <= f[6] + 0))
			dup++
	}
	END { print dup + 0 }'
}

# A server whose ACK of a response's tail is late probes for it (TLP),
# and takes the probe for a repair - shrinking its window - unless the
# client reports it as a duplicate before the server hears of more.
# Those reports used to die at the director once the client's ACK of the
# response had ended the binding (none of 27 in one capture reached a
# server; servers cut their windows every ~35 100 KB responses, pooled
# connections' cwnd 48-96 where IPVS's were 143-186).  Every report the
# client sends must reach the server it is about: captured on the
# client's link and the servers' (segments with more options than the
# timestamps only), counted as D-SACKs.
client_dsacks_reach_servers() {
	local b pids=() sent got=0 n
	local opts='tcp port 80 and (tcp[12] >> 4) > 8'
	ip netns exec l7cli tcpdump -Z root -i eth0 -U -s 160 \
		-w "$TMP/dsack-cli.pcap" "dst port 80 and $opts" \
		> /dev/null 2> "$TMP/dsack-cli.err" &
	pids+=($!)
	for b in $L7TB_BACKENDS; do
		ip netns exec "l7$b" tcpdump -Z root -i eth0 -U -s 160 \
			-w "$TMP/dsack-$b.pcap" "dst port 80 and $opts" \
			> /dev/null 2> "$TMP/dsack-$b.err" &
		pids+=($!)
	done
	for b in cli $L7TB_BACKENDS; do
		wait_for grep -q 'listening on' "$TMP/dsack-$b.err" || return 1
	done
	in_cli wrk -t1 -c8 -d10s --timeout 30s "http://$L7TB_VIP/static/100k.bin" \
		> "$TMP/wrk-dsack" 2>&1
	sleep 1
	kill "${pids[@]}"
	wait "${pids[@]}" 2>/dev/null
	sent=$(dsacks "$TMP/dsack-cli.pcap")
	for b in $L7TB_BACKENDS; do
		got=$((got + $(dsacks "$TMP/dsack-$b.pcap")))
	done
	n=$(awk '/requests in/ { print $1 }' "$TMP/wrk-dsack")
	echo "${n:-0} responses; the client sent $sent D-SACKs, the servers got $got"
	# a quiet guest may see few probes: tcp_hygiene's raw client provokes
	# one; here every report there was must have got through
	[ "$sent" -ge 5 ] || echo "few probes: all of them must get through"
	[ $((got * 10)) -ge $((sent * 9)) ]
}

# The director's own ACK of a request waits 40 ms for the response to
# carry the server's: it never goes sooner.  Its deadline used to stay
# set after a response had paid it, and fell due while a later request
# was on its way - a pure ACK 0.2-12 ms after that request, one per
# fifteen keep-alive requests.  A capture on the client's link tells the
# director's own segments by what they are - IP ID 0, which Linux gives
# a DF segment it sends without a socket, while a server's segments keep
# their socket's IDs through the splice - so a server's quick ACK that
# passes through (more of them on a loaded host) is not counted.  The
# director's own pure ACK of a request can only come later than 40 ms
# after the request reached it, and load can only make it later: none
# may come within 30 ms of the request bytes it acknowledges, unless
# the client sent them again (a resend is acknowledged at once).  One in
# 1,529 was seen all the same (not understood yet): at most one per
# hundred, where the deadline bug made one per fifteen.
early_acks() {
	awk -v vip="$L7TB_VIP." '
	{ t = $1; src = $3; dst = $5; sub(/:$/, "", dst) }
	index(dst, vip) == 1 && /length [1-9]/ &&
	    match($0, /seq [0-9]+:[0-9]+/) {
		split(substr($0, RSTART + 4, RLENGTH - 4), r, ":")
		k = src " " r[2]
		if (k in sent)
			resent[k] = 1
		sent[k] = t
		n++
		next
	}
	index(src, vip) == 1 && /Flags \[\.\], ack [0-9]+/ && / length 0/ {
		own++
		match($0, /ack [0-9]+/)
		k = dst " " substr($0, RSTART + 4, RLENGTH - 4)
		if (k in sent && t - sent[k] < 0.030)
			if (k in resent)
				after_resend++
			else
				early++
	}
	END { printf "%d %d %d %d\n", n, own, early, after_resend }'
}

director_acks_never_early() {
	local cap=$TMP/acks.pcap pid n own early resent
	ip netns exec l7cli tcpdump -Z root -i eth0 -U -s 128 -w "$cap" \
		"tcp port 80" > /dev/null 2> "$cap.err" &
	pid=$!
	wait_for grep -q 'listening on' "$cap.err" || return 1
	in_cli wrk -t1 -c4 -d6s --timeout 30s "http://$L7TB_VIP/static/1k.bin" \
		> /dev/null 2>&1
	sleep 1
	kill "$pid"
	wait "$pid" 2>/dev/null
	# the client's segments and the director's own (IP ID 0), in order
	read -r n own early resent < <(tcpdump -r "$cap" -nn -tt -S \
		"dst host $L7TB_VIP or (src host $L7TB_VIP and ip[4:2] = 0)" \
		2>/dev/null | early_acks)
	echo "$n request segments; $own pure ACKs of the director's own, $early within 30 ms of the request they acknowledge ($resent more of a resent one)"
	[ "$n" -ge 100 ] && [ $((early * 100)) -le "$n" ]
}

# Routes taken away on the director while a keep-alive connection is
# open - to its client, then to every server: no answer byte may come by
# the route the connection had cached, and once the route is back the
# answer arrives whole (testbed/clients/route_flip.py).
route_changes_followed() {
	local b block="" unblock=""
	for b in 11 12 13; do
		block+="ip -n l7dir route add blackhole 192.0.2.$b/32; "
		unblock+="ip -n l7dir route del blackhole 192.0.2.$b/32; "
	done
	in_cli "$PY" "$L7TB_DIR/clients/route_flip.py" "$L7TB_VIP" \
		/static/10k.bin \
		--flip "ip -n l7dir route add blackhole $L7TB_CLIENT/32" \
		"ip -n l7dir route del blackhole $L7TB_CLIENT/32" \
		--flip "$block" "$unblock"
}

# s2_refilled: s2 at weight 1 with 8 idle pooled connections, and up
s2_refilled() {
	[ "$(pool_col s2 Weight) $(pool_col s2 Idle) $(pool_col s2 State)" = "1 8 up" ]
}

# One backend's Apache stopped: new bindings avoid it, without errors;
# started again, it is used again.
stopped_backend_avoided() {
	local i
	"$L7TB_DIR/apache" stop s2
	wait_eq down pool_col s2 State || { l7_table; return 1; }
	: > "$TMP/served"
	for i in $(seq 1 9); do
		fetch "http://$L7TB_VIP/index.html" /dev/null >> "$TMP/served" ||
			{ echo "request $i failed"; return 1; }
	done
	! grep -qx s2 "$TMP/served" || { echo "s2 served while stopped"; return 1; }
	"$L7TB_DIR/apache" start s2
	wait_for s2_refilled || { l7_table; return 1; }
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
t_check "splice: the director's own ACK of a request never goes before its 40 ms" director_acks_never_early
t_check "splice: every D-SACK of the client's reaches the server whose resend it reports" client_dsacks_reach_servers
t_check "splice: a keep-alive connection follows route changes, to its client and to the servers" route_changes_followed
t_check "splice: a stopped backend is avoided, and used again once back" stopped_backend_avoided
in_dir cat /proc/net/ip_vs_l7
t_check "splice: service deleted and module unloaded under wrk load" rmmod_under_wrk

testbed_down
rm -rf "$TMP"
t_summary
