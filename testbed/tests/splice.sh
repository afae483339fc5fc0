#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The splice data path (ip_vs_l7 datapath=1): client flows answered by
# the director, bound to pooled connections and rewritten packet by
# packet, stay byte-exact.  Runs inside the guest.
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
SUMS=$L7TB_DIR/www/SHA256SUMS
TMP=$(mktemp -d)

modprobe ip_vs_l7 datapath=1
testbed_up
add_service "$VS" l7 1 1 1
wait_for in_dir grep -q ' 8 .* up$' /proc/net/ip_vs_l7

static_exact() {
	local digest name got backend
	: > "$TMP/served"
	while read -r digest name; do
		backend=$(fetch "http://$L7TB_VIP/$name" "$TMP/body") ||
			{ echo "fetch $name failed"; return 1; }
		got=$(sha256sum < "$TMP/body" | cut -d' ' -f1)
		[ "$got" = "$digest" ] ||
			{ echo "$name from $backend: sha256 $got"; return 1; }
		echo "$backend" >> "$TMP/served"
	done < "$SUMS"
}

cgi_and_post() {
	local out
	out=$(in_cli curl -sS --fail --max-time 60 "http://$L7TB_VIP/cgi-bin/burn?iters=10") ||
		return 1
	echo "$out" | grep -Eq '^backend=s[123] iters=10' || { echo "$out"; return 1; }
	head -c 300000 /dev/urandom > "$TMP/post"
	in_cli curl -sS --fail --max-time 60 --data-binary @"$TMP/post" \
		-o "$TMP/echo" "http://$L7TB_VIP/cgi-bin/echo" || return 1
	cmp "$TMP/post" "$TMP/echo"
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

t_check "splice: every static file byte-exact through the VIP" static_exact
t_check "splice: CGI and a 300 KB POST echoed byte-exact" cgi_and_post
t_check "splice: new connections spread over all backends" spread_over_backends
t_check "splice: IPVS makes no L4 connection" no_ipvs_connections
t_check "splice: httperf 20 connections x 20 calls, zero errors" httperf_no_errors
in_dir cat /proc/net/ip_vs_l7

testbed_down
rm -rf "$TMP"
t_summary
