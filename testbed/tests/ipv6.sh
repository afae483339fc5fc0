#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# IPv6: an l7 service on an IPv6 VIP, first in front
# of the backends' IPv6 addresses, then in front of their IPv4 ones (the
# director terminates the client's TCP, so the families need not match).
# Each way: static files, a CGI and a POST echo byte-exact, 30 requests
# of one keep-alive connection spread over all three backends, no IPVS
# connection, pools in /proc with the real servers' addresses, 1 MB
# downloads byte-exact with 3% loss on the client link, and to a client
# behind a 1280-byte link (ICMPv6 packet too big).  Then content rules
# on the IPv6 service, set with the patched ipvsadm: a /cgi-bin rule to a
# pool of an IPv4 real server on one keep-alive connection, a header
# rule to a pool of an IPv6 one, a reject rule, the service's
# --forwarded option, and ipvsadm -S/-C/-R.  Runs inside the guest.
set -u
. "$(dirname "$0")/../lib.sh"

VS6="[$L7TB_VIP6]:80"
URL="http://[$L7TB_VIP6]"
TMP=$(mktemp -d)

modprobe ip_vs_l7 datapath=1
testbed_up

# rs FAMILY BACKEND: the real server's address as ipvsadm and /proc write it
rs() {
	if [ "$1" = 6 ]; then
		echo "[$(backend_ip6 "$2")]:80"
	else
		echo "$(backend_ip "$2"):80"
	fi
}

# service6 FAMILY: the l7 service on the IPv6 VIP, real servers by their
# IPv6 addresses (-m) or their IPv4 ones (IPVS takes a real server of the
# other family only with -i; the data path forwards every way the same)
service6() {
	local b fwd=-m
	[ "$1" = 4 ] && fwd=-i
	in_dir ipvsadm -C
	in_dir ipvsadm -A -t "$VS6" -s l7 || return 1
	for b in $L7TB_BACKENDS; do
		in_dir ipvsadm -a -t "$VS6" -r "$(rs "$1" "$b")" $fwd -w 1 ||
			return 1
	done
}

# pool_up FAMILY BACKEND: the real server has idle pooled connections,
# listed in /proc/net/ip_vs_l7 under its address of FAMILY, and is up
pool_up() {
	l7_table | l7_awk -v rs="$(rs "$1" "$2")" \
		'$1 == "->" && $2 == rs && rv("Idle") >= 1 && rv("State") == "up" { ok = 1 }
		 END { exit !ok }'
}

# pools_up FAMILY: every real server so, by its address of FAMILY
pools_up() {
	local b
	for b in $L7TB_BACKENDS; do
		pool_up "$1" "$b" || return 1
	done
}

pools_visible() {
	wait_for pools_up "$1" >/dev/null || { in_dir cat /proc/net/ip_vs_l7; return 1; }
}

static_exact() {
	local digest name got
	while read -r digest name; do
		in_cli curl -sS --fail --max-time 60 -o "$TMP/body" "$URL/$name" ||
			{ echo "fetch $name failed"; return 1; }
		got=$(sha256sum < "$TMP/body" | cut -d' ' -f1)
		[ "$got" = "$digest" ] || { echo "$name: sha256 $got"; return 1; }
	done < "$L7TB_DIR/www/SHA256SUMS"
}

# 30 CGI requests on one curl connection reach all three backends
keepalive_spread() {
	local n b
	in_cli curl -sS --fail --max-time 300 \
		-w '%{num_connects} %{http_code} %header{x-backend}\n' \
		-o /dev/null "$URL/cgi-bin/burn?iters=10&i=[1-30]" \
		> "$TMP/curl30" || { cat "$TMP/curl30"; return 1; }
	n=$(awk 'NR == 1 && $1 == 1 || NR > 1 && $1 == 0 { n++ } END { print n + 0 }' \
		"$TMP/curl30")
	[ "$n" = 30 ] || { echo "more than one connection:"; cat "$TMP/curl30"; return 1; }
	for b in $L7TB_BACKENDS; do
		awk '$2 == 200 { print $3 }' "$TMP/curl30" | grep -qx "$b" ||
			{ awk '{ print $3 }' "$TMP/curl30" | sort | uniq -c; return 1; }
	done
}

# logged TAG FIELD: field FIELD (10 %a, 12 Forwarded) of every backend's
# access-log line with TAG, quotes and Apache's escapes removed
logged() {
	grep -h -- "$1=" "$L7TB_RUN"/s[123]/access.log |
		awk -v n="$2" '{ v = $n; gsub(/[\\"]/, "", v); print v }'
}

# The backends see the IPv6 client: X-Forwarded-For (mod_remoteip's %a)
# on each of 12 requests of one connection, then RFC 7239's quoted,
# bracketed form.
client_address() {
	local param=/sys/module/ip_vs_l7/parameters/forwarded rc=0 tag=$1
	clear_logs
	echo x-forwarded-for > $param &&
		in_cli curl -sS --fail --max-time 120 -o /dev/null \
			"$URL/cgi-bin/status?x$tag=[1-12]" || rc=1
	echo forwarded > $param &&
		in_cli curl -sS --fail --max-time 60 -o /dev/null \
			"$URL/cgi-bin/status?f$tag=1" || rc=1
	echo off > $param
	[ $rc = 0 ] || return 1
	[ "$(logged "x$tag" 10 | grep -cx "$L7TB_CLIENT6")" = 12 ] ||
		{ echo "%a:"; logged "x$tag" 10 | sort | uniq -c; return 1; }
	[ "$(logged "f$tag" 12)" = "for=[$L7TB_CLIENT6]" ] ||
		{ echo "Forwarded: $(logged "f$tag" 12)"; return 1; }
}

no_ipvs_connections() {
	[ -z "$(in_dir ipvsadm -Lnc | tail -n +3)" ] || { in_dir ipvsadm -Lnc; return 1; }
}

lossy_downloads() {
	local rc
	in_cli tc qdisc add dev eth0 root netem delay 3ms loss 3% reorder 1% 25%
	in_dir tc qdisc add dev dcli root netem delay 3ms loss 3% reorder 1% 25%
	fetch_exact "$URL/static/1m.bin" 10
	rc=$?
	in_cli tc qdisc del dev eth0 root
	in_dir tc qdisc del dev dcli root
	return $rc
}

# A router between the director and a second client, whose link to that
# client carries 1280 bytes; the client advertises MSS 1440 (its route's
# advmss), as one behind such a path does.  The director learns the path
# only from the router's ICMPv6 "packet too big", addressed to the VIP
# about a flow no socket owns: only the data path can act on it.
#
#   l7dir 2001:db8:300::1 --1500-- ::2 l7rtr6 2001:db8:301::1 --1280-- ::10 l7cli6
ROUTED6=2001:db8:301::10

router6_up() {
	local ns
	for ns in l7rtr6 l7cli6; do
		ip netns add $ns || return 1
		ip -n $ns link set lo up
		ip netns exec $ns sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0
	done
	ip -n l7dir link add drtr6 type veth peer name eth0 netns l7rtr6
	ip -n l7dir addr add 2001:db8:300::1/64 dev drtr6 nodad
	ip -n l7dir link set drtr6 up
	ip -n l7rtr6 addr add 2001:db8:300::2/64 dev eth0 nodad
	ip -n l7rtr6 link set eth0 up
	ip -n l7rtr6 link add eth1 mtu 1280 type veth peer name eth0 mtu 1280 \
		netns l7cli6
	ip -n l7rtr6 addr add 2001:db8:301::1/64 dev eth1 nodad
	ip -n l7rtr6 link set eth1 up
	ip -n l7cli6 addr add "$ROUTED6/64" dev eth0 nodad
	ip -n l7cli6 link set eth0 up
	ip -n l7cli6 -6 route add default via 2001:db8:301::1 advmss 1440
	ip -n l7rtr6 -6 route add default via 2001:db8:300::1
	ip -n l7dir -6 route add 2001:db8:301::/64 via 2001:db8:300::2
	ip netns exec l7rtr6 sysctl -qw net.ipv6.conf.all.forwarding=1
}

router6_down() {
	ip -n l7dir -6 route del 2001:db8:301::/64 2>/dev/null
	ip -n l7dir link del drtr6 2>/dev/null
	ip netns del l7cli6 2>/dev/null
	ip netns del l7rtr6 2>/dev/null
}

# too_big_sent: ICMPv6 packet-too-big errors the router has sent
too_big_sent() {
	ip netns exec l7rtr6 awk '$1 == "Icmp6OutPktTooBigs" { print $2 }' \
		/proc/net/snmp6
}

pmtu_router6() {
	local sent rc=0
	router6_up || { router6_down; echo "no router"; return 1; }
	fetch_exact "$URL/static/1m.bin" 3 l7cli6 || rc=1
	sent=$(too_big_sent)
	echo "the router sent ${sent:-0} packet-too-big errors"
	[ "${sent:-0}" -gt 0 ] ||
		{ echo "it never had to: the path was not exercised"; rc=1; }
	router6_down
	return $rc
}

for fam in 6 4; do
	name="IPv6 VIP, IPv$fam real servers"
	t_check "ipv6: $name: service added" service6 $fam
	t_check "ipv6: $name: pools in /proc under the real servers' addresses" \
		pools_visible $fam
	t_check "ipv6: $name: every static file byte-exact" static_exact
	t_check "ipv6: $name: CGI and a 300 KB POST echoed byte-exact" cgi_and_post "$URL"
	t_check "ipv6: $name: 30 requests of one keep-alive connection reach all 3 backends" \
		keepalive_spread
	t_check "ipv6: $name: IPVS makes no L4 connection" no_ipvs_connections
	t_check "ipv6: $name: the backends log the IPv6 client's address (X-Forwarded-For, Forwarded)" \
		client_address $fam
	t_check "ipv6: $name: 10 x 1 MB byte-exact with 3% loss on the client link" \
		lossy_downloads
	t_check "ipv6: $name: 1 MB byte-exact to a client behind a 1280-byte link (ICMPv6 packet too big)" \
		pmtu_router6
	in_dir cat /proc/net/ip_vs_l7
done

# ---- content rules, pools and options of the IPv6 service ----
# set with the patched ipvsadm (make ipvsadm), seen from the client and
# the backends' access logs

IPVSADM=$L7TB_BUILD/ipvsadm/ipvsadm
adm() { in_dir timeout 60 "$IPVSADM" "$@"; }

# The IPv6 service with real servers of both families: s1 and s3 by
# their IPv6 addresses, s2 by its IPv4 one
mixed_service() {
	[ -x "$IPVSADM" ] || { echo "no $IPVSADM (make ipvsadm)"; return 1; }
	adm -C && adm -A -t "$VS6" -s l7 &&
		adm -a -t "$VS6" -r "$(rs 6 s1)" -m -w 1 &&
		adm -a -t "$VS6" -r "$(rs 4 s2)" -i -w 1 &&
		adm -a -t "$VS6" -r "$(rs 6 s3)" -m -w 1 || return 1
	wait_for mixed_pools_up >/dev/null || { in_dir cat /proc/net/ip_vs_l7; return 1; }
}

mixed_pools_up() {
	pool_up 6 s1 && pool_up 4 s2 && pool_up 6 s3
}

# /cgi-bin to a pool of s2's IPv4 address, X-Six: 1 to a pool of s3's
# IPv6 one, /private rejected by the director
add_rules() {
	adm --add-pool -t "$VS6" --pool cgi --members "$(rs 4 s2)" &&
		adm --add-pool -t "$VS6" --pool six --members "$(rs 6 s3)" \
			--policy wrr &&
		adm --add-rule -t "$VS6" --id 10 --path-prefix /cgi-bin --pool cgi &&
		adm --add-rule -t "$VS6" --id 20 --path-prefix /private --reject 403 &&
		adm --add-rule -t "$VS6" --id 30 --hdr x-six=1 --pool six
}

# -Ln: the pools, members in their own family, and the rules under the
# IPv6 service
rules_listed() {
	adm -Ln > "$TMP/list" || return 1
	awk -v vs="$VS6" -v m4="$(rs 4 s2)" -v m6="$(rs 6 s3)" '
		$1 == "TCP" { in6 = $2 == vs }
		in6 && $1 == "pool" && $2 == "cgi" && $3 == m4 && $4 == "wlo" { n++ }
		in6 && $1 == "pool" && $2 == "six" && $3 == m6 && $4 == "wrr" { n++ }
		in6 && $1 == "rule" && ($2 == 10 || $2 == 20 || $2 == 30) { n++ }
		END { exit n != 5 }' "$TMP/list" || { cat "$TMP/list"; return 1; }
}

# One keep-alive connection: 10 CGI requests, all to s2 (the rule), then
# 21 requests for other paths, over all three backends
cgi_rule_on_keepalive() {
	local b
	in_cli curl -sS --fail --max-time 120 -o /dev/null -o /dev/null \
		-w '%{num_connects} %{http_code} %header{x-backend}\n' \
		"$URL/cgi-bin/burn?iters=10&c=[1-10]" "$URL/static/1k.bin?o=[1-21]" \
		> "$TMP/ka" || { cat "$TMP/ka"; return 1; }
	awk 'NR == 1 && $1 == 1 || NR > 1 && $1 == 0 { c++ }
	     $2 == 200 && NR <= 10 && $3 == "s2" { s2++ }
	     END { exit !(NR == 31 && c == 31 && s2 == 10) }' "$TMP/ka" ||
		{ echo "want 31 requests on one connection, the first 10 to s2:"; cat "$TMP/ka"; return 1; }
	for b in $L7TB_BACKENDS; do
		awk 'NR > 10 && $2 == 200 { print $3 }' "$TMP/ka" | grep -qx "$b" ||
			{ echo "other paths not spread:"; awk 'NR > 10' "$TMP/ka" | sort | uniq -c; return 1; }
	done
}

# X-Six: 1 to the pool of s3's IPv6 address, 6 requests of one connection
ipv6_member_pool() {
	in_cli curl -sS --fail --max-time 60 -o /dev/null -H 'X-Six: 1' \
		-w '%{num_connects} %{http_code} %header{x-backend}\n' \
		"$URL/static/1k.bin?h=[1-6]" > "$TMP/six" || { cat "$TMP/six"; return 1; }
	[ "$(awk '$2 == 200 && $3 == "s3"' "$TMP/six" | wc -l)" = 6 ] ||
		{ cat "$TMP/six"; return 1; }
}

# /private: 403 from the director (no X-Backend), nothing in any
# backend's log; the next request of the connection is served
reject_rule() {
	clear_logs
	in_cli curl -sS --max-time 60 -o /dev/null -o /dev/null \
		-w '%{http_code} %header{x-backend}\n' \
		"$URL/private/x?t=rej1" "$URL/static/1k.bin?t=rej2" \
		> "$TMP/rej" || { cat "$TMP/rej"; return 1; }
	awk 'NR == 1 && $1 == 403 && NF == 1 { n++ }
	     NR == 2 && $1 == 200 && NF == 2 { n++ }
	     END { exit n != 2 }' "$TMP/rej" || { cat "$TMP/rej"; return 1; }
	! grep -q "t=rej1" "$L7TB_RUN"/s[123]/access.log ||
		{ echo "/private reached a backend:"; grep -h "t=rej1" "$L7TB_RUN"/s[123]/access.log; return 1; }
	grep -q "t=rej2" "$L7TB_RUN"/s[123]/access.log
}

# --forwarded forwarded on the IPv6 service, the module parameter off:
# the backends get RFC 7239's bracketed client address; -Ln shows it
service_forwarded() {
	local param=/sys/module/ip_vs_l7/parameters/forwarded
	echo off > $param || return 1
	adm -E -t "$VS6" -s l7 --forwarded forwarded || return 1
	adm -Ln | awk -v vs="$VS6" '$1 == "TCP" && $2 == vs && $3 == "l7" &&
		$(NF - 1) == "forwarded" && $NF == "forwarded" { ok = 1 }
		END { exit !ok }' || { adm -Ln; return 1; }
	clear_logs
	in_cli curl -sS --fail --max-time 60 -o /dev/null \
		"$URL/static/1k.bin?fo=[1-4]" || return 1
	[ "$(logged fo 12 | grep -cx "for=\[$L7TB_CLIENT6\]")" = 4 ] ||
		{ echo "Forwarded:"; logged fo 12 | sort | uniq -c; return 1; }
}

# -S, -C, -R: the same -S output after, and the rules route again
save_clear_restore() {
	adm -Sn > "$TMP/saved" || return 1
	# fixed strings: the brackets of IPv6 addresses are no regex
	grep -qxF -- "--add-pool -t $VS6 --pool cgi --members $(rs 4 s2) --policy wlo" \
		"$TMP/saved" &&
		grep -qxF -- "--add-pool -t $VS6 --pool six --members $(rs 6 s3) --policy wrr" \
			"$TMP/saved" &&
		grep -qxF -- "-A -t $VS6 -s l7 --forwarded forwarded" "$TMP/saved" &&
		[ "$(grep -cF -- "--add-rule -t $VS6 " "$TMP/saved")" = 3 ] ||
		{ cat "$TMP/saved"; return 1; }
	adm -C || return 1
	[ -z "$(adm -Sn)" ] || { echo "after -C:"; adm -Sn; return 1; }
	adm -R < "$TMP/saved" || return 1
	adm -Sn > "$TMP/again" || return 1
	cmp -s "$TMP/saved" "$TMP/again" || { diff "$TMP/saved" "$TMP/again"; return 1; }
	wait_for mixed_pools_up >/dev/null || return 1
	cgi_rule_on_keepalive
}

t_check "ipv6 rules: IPv6 service with IPv6 (s1, s3) and IPv4 (s2) real servers" mixed_service
t_check "ipv6 rules: ipvsadm adds pools of either family and path, header and reject rules" add_rules
t_check "ipv6 rules: ipvsadm -Ln lists them under the IPv6 service" rules_listed
t_check "ipv6 rules: /cgi-bin to s2 on 10 requests of one keep-alive connection, other paths over all 3" \
	cgi_rule_on_keepalive
t_check "ipv6 rules: a header rule to a pool of an IPv6 member" ipv6_member_pool
t_check "ipv6 rules: reject rule: 403 from the director, nothing reaches a backend" reject_rule
t_check "ipv6 rules: per-service --forwarded on the IPv6 service" service_forwarded
t_check "ipv6 rules: ipvsadm -S, -C, -R round trip identical, rules route again" save_clear_restore
adm -C

testbed_down
rm -rf "$TMP"
t_summary
