#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Foundation VM suite: stock ipvsadm, "-s rr" and "-s l7" virtual services
# over LVS-NAT to three Apache backends.  Runs inside the guest (scripts/vm).
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
TMP=$(mktemp -d)

testbed_up

# all_backends_served: s1, s2 and s3 each appear in $TMP/served
all_backends_served() {
	local b
	for b in $L7TB_BACKENDS; do
		grep -qx "$b" "$TMP/served" ||
			{ echo "$b served nothing: $(sort "$TMP/served" | uniq -c)"; return 1; }
	done
}

static_files_exact() {
	: > "$TMP/served"
	fetch_static 3 "$TMP/served" && all_backends_served
}

cgi_reachable() {
	local out
	out=$(in_cli curl -sS --fail --max-time 60 "http://$L7TB_VIP/cgi-bin/burn?iters=10")
	echo "$out" | grep -Eq '^backend=s[123] iters=10 mix=[0-9a-f]{16}$' ||
		{ echo "burn answered: $out"; return 1; }
	out=$(head -c 70000 /dev/urandom > "$TMP/post"; in_cli curl -sS --fail \
		--max-time 60 --data-binary @"$TMP/post" -o "$TMP/echo" \
		"http://$L7TB_VIP/cgi-bin/echo") || return 1
	cmp "$TMP/post" "$TMP/echo" || { echo "echo body differs"; return 1; }
}

# One keep-alive connection, several requests: all one backend (L4).
keepalive_sticks() {
	local n
	n=$(in_cli curl -sS --fail --max-time 60 -o /dev/null -D - \
		"http://$L7TB_VIP/cgi-bin/burn?iters=1" "http://$L7TB_VIP/index.html" \
		"http://$L7TB_VIP/static/1k.bin" "http://$L7TB_VIP/cgi-bin/burn?iters=2" |
		tr -d '\r' | awk 'tolower($1) == "x-backend:" { print $2 }' | sort -u | wc -l)
	[ "$n" = 1 ] || { echo "$n backends on one connection"; return 1; }
}

module_loaded() { grep -q '^ip_vs_l7 ' /proc/modules; }

l7_autoloads() {
	! module_loaded || { echo "ip_vs_l7 loaded before any l7 service"; return 1; }
	add_service "$VS" l7 1 1 1 || return 1
	module_loaded || { echo "ip_vs_l7 not loaded by ipvsadm -s l7"; return 1; }
}

ipvsadm_lists_l7() {
	in_dir ipvsadm -Ln | tee "$TMP/list" |
		grep -Eq "^TCP +$L7TB_VIP:80 +l7\$" || { cat "$TMP/list"; return 1; }
	[ "$(grep -c -- '-> 192.0.2.1[123]:80 *Masq' "$TMP/list")" = 3 ] ||
		{ cat "$TMP/list"; return 1; }
}

# NEW connections, one request each; record who served them
new_connections() {
	local n=$1 i
	: > "$TMP/served"
	for i in $(seq 1 "$n"); do
		fetch "http://$L7TB_VIP/index.html" /dev/null >> "$TMP/served" ||
			return 1
	done
}

weight0_drains() {
	in_dir ipvsadm -e -t "$VS" -r 192.0.2.12:80 -m -w 0 || return 1
	new_connections 30 || return 1
	! grep -qx s2 "$TMP/served" ||
		{ echo "s2 (weight 0) served $(grep -cx s2 "$TMP/served") of 30"; return 1; }
	grep -qx s1 "$TMP/served" && grep -qx s3 "$TMP/served" ||
		{ echo "s1/s3 not both used: $(sort "$TMP/served" | uniq -c)"; return 1; }
	in_dir ipvsadm -e -t "$VS" -r 192.0.2.12:80 -m -w 1 || return 1
	new_connections 12 || return 1
	grep -qx s2 "$TMP/served" ||
		{ echo "s2 unused after weight 1: $(sort "$TMP/served" | uniq -c)"; return 1; }
}

# Active connections per real server of service $1, in s1 s2 s3 order.
active_conns() {
	in_dir ipvsadm -Ln -t "$1" | awk '$1 == "->" && $2 ~ /^192/ { print $2, $5 }' |
		sort | awk '{ printf "%s ", $2 }'
}

# Weighted least-connection: with weights 2:1:1, eight connections held
# open at once are spread 4:2:2 (exactly, for WLC with ties to the first).
wlc_spreads_by_weight() {
	local vs=$L7TB_VIP:8080 got i
	add_service "$vs" l7 2 1 1 || return 1
	in_cli bash -c "for i in \$(seq 1 8); do exec {fd}<>/dev/tcp/$L7TB_VIP/8080; done; sleep 8" &
	sleep 4
	got=$(active_conns "$vs")
	wait
	in_dir ipvsadm -D -t "$vs"
	[ "$got" = "4 2 2 " ] || { echo "active connections $got, want 4 2 2"; return 1; }
}

# rmmod while a service uses the scheduler must refuse; idle, it must work.
rmmod_refused_in_use() {
	! rmmod ip_vs_l7 2>/dev/null || { echo "rmmod succeeded under a service"; return 1; }
	fetch "http://$L7TB_VIP/index.html" /dev/null >/dev/null
}

# Switch the service away from l7 and unload the module while httperf
# keeps 10 connections/s with 5 calls each going through the VIP.
rmmod_under_load() {
	local hp rc
	in_cli httperf --hog --server "$L7TB_VIP" --uri /index.html --rate 10 \
		--num-conns 100 --num-calls 5 --timeout 20 > "$TMP/httperf" 2>&1 &
	hp=$!
	sleep 3
	in_dir ipvsadm -E -t "$VS" -s rr || return 1
	rmmod ip_vs_l7 || { echo "rmmod failed"; kill "$hp"; return 1; }
	! module_loaded || return 1
	modprobe ip_vs_l7 && rmmod ip_vs_l7 || { echo "reload failed"; return 1; }
	wait "$hp"
	rc=$?
	grep -E '^(Total|Errors)' "$TMP/httperf"
	[ $rc = 0 ] && grep -q '^Errors: total 0 ' "$TMP/httperf" &&
		grep -q '^Total: connections 100 requests 500 replies 500' "$TMP/httperf"
}

idle_load_unload() {
	modprobe ip_vs_l7 && module_loaded && rmmod ip_vs_l7 && ! module_loaded
}

# A load-time parameter out of its range: the module does not load.  The
# ends of the ranges load.
load_time_ranges() {
	local p
	for p in max_head=63 max_head=1048577 conn_buckets=16383 \
		conn_buckets=1048577 conn_buckets=x; do
		if modprobe ip_vs_l7 "$p" 2>/dev/null || module_loaded; then
			echo "loaded with $p"
			rmmod ip_vs_l7
			return 1
		fi
	done
	modprobe ip_vs_l7 max_head=64 conn_buckets=16384 && rmmod ip_vs_l7 &&
		modprobe ip_vs_l7 max_head=1048576 conn_buckets=20000 &&
		[ "$(cat /sys/module/ip_vs_l7/parameters/max_head)" = 1048576 ] &&
		rmmod ip_vs_l7 && ! module_loaded
}

add_service "$VS" rr 1 1 1
t_check "rr: every static file byte-exact through the VIP, all backends" static_files_exact
t_check "rr: CGIs reachable (burn, 70 KB POST echo)" cgi_reachable
t_check "rr: a keep-alive connection stays on one backend" keepalive_sticks
in_dir ipvsadm -D -t "$VS"

t_check "l7: idle module loads and unloads" idle_load_unload
t_check "l7: max_head and conn_buckets out of range: the module does not load" load_time_ranges
t_check "l7: ipvsadm -s l7 autoloads ip_vs_l7" l7_autoloads
t_check "l7: ipvsadm -Ln lists the l7 service and its NAT servers" ipvsadm_lists_l7
t_check "l7: every static file byte-exact through the VIP, all backends" static_files_exact
t_check "l7: CGIs reachable (burn, 70 KB POST echo)" cgi_reachable
t_check "l7: weight 0 stops new connections, weight 1 resumes" weight0_drains
t_check "l7: rmmod refused while a service uses it" rmmod_refused_in_use

# Without its data path (datapath=0) l7 is a per-connection scheduler:
# weighted least-connection, and IPVS keeps every connection.
in_dir ipvsadm -D -t "$VS"
rmmod ip_vs_l7
modprobe ip_vs_l7 datapath=0
add_service "$VS" l7 1 1 1
t_check "l7 datapath=0: weighted least-connection spreads 2:1:1 as 4:2:2" wlc_spreads_by_weight
t_check "l7 datapath=0: rmmod while httperf runs through the VIP, zero errors" rmmod_under_load

testbed_down
rm -rf "$TMP"
t_summary
