#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# rules_route VM suite: content routing as an operator sets it up, with the
# patched ipvsadm (make ipvsadm), seen from real clients and the backends'
# access logs.  Routing by host (exact and *.suffix), method set and cookie
# on one keep-alive connection whose requests go to different pools; hash
# affinity (same cookie, same server; a server leaving moves only its keys;
# bounded load under a skewed key mix; hash of the path); encoded-path
# attempts around a /cgi-bin rule; whole-set replaces while wrk runs.
# (rules_nl.sh covers the family itself, path and header routing, rejects
# and httperf under replaces of sets that route alike.)  Runs inside the
# guest; clients: testbed/clients/l7route.py.
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
IPVSADM=$L7TB_BUILD/ipvsadm/ipvsadm
TMP=$(mktemp -d)
ROUTE="$PY $L7TB_DIR/clients/l7route.py"
S1=$(backend_ip s1):80 S2=$(backend_ip s2):80 S3=$(backend_ip s3):80

[ -x "$IPVSADM" ] || { echo "FAIL no $IPVSADM (make ipvsadm)"; exit 1; }

exec 3>&1
note() { printf '     %s\n' "$@" >&3; }

# bounded SECONDS CMD...: CMD, killed if it takes longer; then where it
# was blocked goes to the kernel log (its stack, and every blocked task)
bounded() {
	local secs=$1 pid i rc
	shift
	"$@" &
	pid=$!
	for i in $(seq 1 $((secs * 5))); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "HUNG ($secs s): $*" >&2
		for i in $(pgrep -P "$pid") "$pid"; do
			echo "pid $i $(tr '\0' ' ' < "/proc/$i/cmdline"): $(cat "/proc/$i/wchan" 2>/dev/null)" >&2
			cat "/proc/$i/stack" >&2 2>/dev/null
		done
		echo w > /proc/sysrq-trigger
		pkill -KILL -P "$pid"
		kill -KILL "$pid"
	fi
	wait "$pid"
	rc=$?
	return $rc
}

adm() { bounded 60 in_dir "$IPVSADM" "$@"; }

testbed_up

# fresh SCHED: no service, no rules; then the l7 service on s1..s3,
# weight 1 each, its pools ready
fresh() {
	adm -C && add_service "$VS" l7 1 1 1 && wait_for pools_ready >/dev/null
}

# logged_at TAG: the backends whose access log has the request tagged TAG
logged_at() {
	grep -l -- "t=$1 " "$L7TB_RUN"/s[123]/access.log 2>/dev/null |
		sed 's|.*/\(s[0-9]\)/access.log|\1|' | tr '\n' ' ' | sed 's/ $//'
}

# logs_agree FILE: every "TAG BACKEND" line of FILE is in that backend's
# access log and in no other
logs_agree() {
	local tag backend at
	while read -r tag backend _; do
		at=$(logged_at "$tag")
		[ "$at" = "$backend" ] ||
			{ echo "$tag: X-Backend $backend, access logs: '$at'"; return 1; }
	done < "$1"
}

# ---- 1. routing by host, method and cookie on one keep-alive connection ----

route_rules() {
	adm --add-pool -t "$VS" --pool p1 --members "$S1" &&
	adm --add-pool -t "$VS" --pool p2 --members "$S2" &&
	adm --add-pool -t "$VS" --pool p3 --members "$S3" &&
	adm --add-rule -t "$VS" --id 10 --host api.example --pool p1 &&
	adm --add-rule -t "$VS" --id 20 --host '*.img.example' --pool p2 &&
	adm --add-rule -t "$VS" --id 25 --host shop.example --method GET,HEAD --pool p1 &&
	adm --add-rule -t "$VS" --id 30 --method POST,PUT --pool p2 &&
	adm --add-rule -t "$VS" --id 40 --cookie grp=beta --pool p1 &&
	adm --add-rule -t "$VS" --id 90 --pool p3
}

# WANT METHOD PATH HEADERS...: each request on the same connection, each
# (but the first) to another pool than the one before it
ROUTE_SEQ='s1	GET	/static/1k.bin	Host: api.example
s2	GET	/static/10k.bin	Host: www.img.example
s3	GET	/static/1k.bin	Host: img.example
s1	GET	/static/100k.bin	Host: API.Example:80
s3	GET	/static/1k.bin	Host: evilimg.example
s2	GET	/static/1k.bin	Host: a.b.img.example.
s3	GET	/static/1k.bin	Host: api.example.org
s1	GET	/static/1k.bin	Host: shop.example
s2	POST	/cgi-bin/echo	Host: shop.example	body=70000
s1	HEAD	/static/1m.bin	Host: shop.example
s3	GET	/cgi-bin/burn?iters=1	Host: other.example
s2	PUT	/cgi-bin/echo	body=3000
s1	GET	/static/10k.bin	Cookie: a=1; grp=beta
s3	GET	/static/10k.bin	Cookie: grp=beta2
s1	GET	/cgi-bin/burn?iters=2	Cookie: grp="beta"
s3	GET	/static/10k.bin	Cookie: xgrp=beta
s2	POST	/cgi-bin/echo	Cookie: grp=beta	body=100
s3	GET	/static/1m.bin
s1	GET	http://api.example/static/1k.bin	Host: other.example
s3	GET	/static/100k.bin	Host: [2001:db8::1]:80'

routes_on_one_connection() {
	clear_logs
	echo "$ROUTE_SEQ" | in_cli $ROUTE seq "$L7TB_VIP" ra > "$TMP/seq" ||
		{ cat "$TMP/seq"; return 1; }
	[ "$(wc -l < "$TMP/seq")" = "$(echo "$ROUTE_SEQ" | wc -l)" ] || return 1
	logs_agree "$TMP/seq" || return 1
	note "$(wc -l < "$TMP/seq") requests on one connection: $(awk '{ printf "%s ", $2 }' "$TMP/seq")"
}

# rule hits as -Ln --stats reports them
route_hits() {
	adm -Ln --stats > "$TMP/stats" || return 1
	awk '$1 == "rule" { hits[$2] = $4 }
	     END { exit !(hits[10] == 3 && hits[20] == 2 && hits[25] == 2 &&
			  hits[30] == 3 && hits[40] == 2 && hits[90] == 8) }' \
		"$TMP/stats" || { grep rule "$TMP/stats"; return 1; }
}

# ---- 2. hash affinity ----

hash_rules() {
	adm --add-pool -t "$VS" --pool sticky --members "$S1,$S2,$S3" \
		--policy hash:cookie:sid &&
	adm --add-rule -t "$VS" --id 10 --path-prefix /static --pool sticky &&
	adm --add-rule -t "$VS" --id 20 --path-prefix /cgi-bin --pool sticky &&
	adm --add-rule -t "$VS" --id 30 --path-prefix /h --pool sticky
}

# keys OUT VALUE...: "VALUE BACKEND" of one new connection per value
keys() {
	local out=$1
	shift
	in_cli $ROUTE keys "$L7TB_VIP" "k$RANDOM" /static/1k.bin sid "$@" > "$out"
}

# one_server_per_key FILE: every key went to one server, and the keys
# to at least two servers (or a pool that ignores the key would pass)
one_server_per_key() {
	awk '$2 !~ /^s[0-9]$/ { print "no backend: " $0; bad = 1 }
	     { if (($1) in b && b[$1] != $2) { print $1 ": " b[$1] " and " $2; bad = 1 }
	       b[$1] = $2; used[$2] = 1 }
	     END { n = 0; for (s in used) n++; if (n < 2) { print "one server for all keys"; bad = 1 }
		   exit bad }' "$1"
}

same_cookie_same_server() {
	local i v values=()
	for i in $(seq 1 5); do
		for v in $(seq 1 20); do values+=("u$v"); done
	done
	keys "$TMP/aff" "${values[@]}" || return 1
	[ "$(wc -l < "$TMP/aff")" = 100 ] || return 1
	one_server_per_key "$TMP/aff" || return 1
	note "20 cookies over 100 connections: $(awk '{ print $2 }' "$TMP/aff" | sort | uniq -c | tr -s ' \n' ' ')"
}

# moves_only_its_keys BEFORE AFTER GONE: keys BEFORE put on GONE went
# elsewhere, every other key stayed where it was
moves_only_its_keys() {
	join <(sort "$1") <(sort "$2") |
		awk -v gone="$3" '
		$2 == gone && $3 == gone { print $1 ": still on " gone; bad = 1 }
		$2 != gone && $2 != $3 { print $1 ": " $2 " -> " $3 " (not on " gone ")"; bad = 1 }
		$2 == gone { moved++ }
		END { if (!moved) { print "no key was on " gone; bad = 1 }
		      exit bad }'
}

KEYS60=$(seq -f 'm%g' 1 60)

# the server that held the most of the 60 keys in FILE
busiest() { awk '{ print $2 }' "$1" | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }'; }

removed_server_moves_only_its_keys() {
	local gone
	# shellcheck disable=SC2086
	keys "$TMP/m0" $KEYS60 && one_server_per_key "$TMP/m0" || return 1
	gone=$(busiest "$TMP/m0")
	adm -d -t "$VS" -r "$(backend_ip "$gone"):80" || return 1
	# shellcheck disable=SC2086
	keys "$TMP/m1" $KEYS60 || return 1
	moves_only_its_keys "$TMP/m0" "$TMP/m1" "$gone" || return 1
	note "ipvsadm -d $gone: $(grep -c " $gone\$" "$TMP/m0") of 60 keys moved," \
		"$(join <(sort "$TMP/m0") <(sort "$TMP/m1") | awk '$2 == $3' | wc -l) stayed"
	# back again: it takes its keys back
	adm -a -t "$VS" -r "$(backend_ip "$gone"):80" -m -w 1 &&
		wait_for pools_ready >/dev/null || return 1
	# shellcheck disable=SC2086
	keys "$TMP/m2" $KEYS60 || return 1
	cmp -s <(sort "$TMP/m0") <(sort "$TMP/m2") ||
		{ echo "after ipvsadm -a $gone:"; diff <(sort "$TMP/m0") <(sort "$TMP/m2"); return 1; }
}

weight0_moves_only_its_keys() {
	local gone
	# shellcheck disable=SC2086
	keys "$TMP/w0" $KEYS60 || return 1
	# another server than the test before took out
	gone=$(awk '{ print $2 }' "$TMP/w0" | sort | uniq -c | sort -rn | awk 'NR == 2 { print $2 }')
	[ -n "$gone" ] || return 1
	adm -e -t "$VS" -r "$(backend_ip "$gone"):80" -m -w 0 || return 1
	# shellcheck disable=SC2086
	keys "$TMP/w1" $KEYS60
	adm -e -t "$VS" -r "$(backend_ip "$gone"):80" -m -w 1 || return 1
	moves_only_its_keys "$TMP/w0" "$TMP/w1" "$gone" || return 1
	note "weight 0 on $gone: $(grep -c " $gone\$" "$TMP/w0") of 60 keys moved"
	wait_for pools_ready >/dev/null
}

# 12 keep-alive connections at once, 40 CGI requests each, 60% of them
# with the same cookie: no server serves more than 1.25 times its weighted
# share of the requests (the bound, at each pick, on the outstanding
# requests of C concurrent connections: 1.25 * (C + 1) / C of the share,
# plus one request in C for rounding); without the bound the hot cookie's
# server alone would take 60%
SKEW_CONNS=12
bounded_load_under_skew() {
	local weights
	clear_logs
	in_cli $ROUTE skew "$L7TB_VIP" sk "/cgi-bin/burn?iters=20" sid \
		--conns "$SKEW_CONNS" --requests 40 --hot 0.6 > "$TMP/skew" ||
		{ cat "$TMP/skew"; return 1; }
	# the weights IPVS has for each server
	weights=$(adm -Ln -t "$VS" | awk '$1 == "->" && $2 ~ /:80$/ { split($2, a, ":"); printf "%s=%s ", a[1], $4 }')
	note "served (all, hot cookie): $(tr '\n' ';' < "$TMP/skew")  weights: $weights"
	awk -v c="$SKEW_CONNS" -v weights="$weights" '
		BEGIN { n = split(weights, ws, " ")
			for (i = 1; i <= n; i++) { split(ws[i], kv, "="); w["s" substr(kv[1], length(kv[1]))] = kv[2]; W += kv[2] } }
		{ all[$1] = $2; hot[$1] = $3; N += $2; H += $3; if ($3) hs++ }
		END {
			if (H < 0.5 * N) { print "hot cookie on " H " of " N " requests only"; exit 1 }
			if (hs < 2) { print "the hot cookie never left its server"; exit 1 }
			for (b in all) {
				bound = 1.25 * w[b] / W * N * (c + 1) / c + N / c
				printf "%s: %d of %d requests, bound %.0f\n", b, all[b], N, bound
				if (all[b] > bound) bad = 1
			}
			exit bad
		}' "$TMP/skew"
}

# hash of the path: the same path, however written, the same server
hash_uri() {
	local i paths=()
	adm --edit-pool -t "$VS" --pool sticky --members "$S1,$S2,$S3" --policy hash:uri ||
		return 1
	for i in $(seq 1 30); do
		paths+=("/h/$i" "/h/./$i?q=$RANDOM" "/%68/$i" "//h/x/../$i")
	done
	in_cli $ROUTE keys "$L7TB_VIP" hu - - "${paths[@]}" > "$TMP/uri" || return 1
	sed -e 's|^/h/\./|/h/|; s|?q=[0-9]*||; s|^/%68/|/h/|; s|^//h/x/\.\./|/h/|' \
		"$TMP/uri" > "$TMP/uri.norm"
	one_server_per_key "$TMP/uri.norm" || return 1
	note "30 paths, 4 spellings each: $(awk '{ print $2 }' "$TMP/uri" | sort | uniq -c | tr -s ' \n' ' ')"
}

# ---- 3. encoded paths around a /cgi-bin rule ----

bypass_rules() {
	adm --add-pool -t "$VS" --pool cgi --members "$S1,$S2" &&
	adm --add-pool -t "$VS" --pool rest --members "$S3" &&
	adm --add-rule -t "$VS" --id 10 --path-prefix /cgi-bin --pool cgi &&
	adm --add-rule -t "$VS" --id 90 --pool rest
}

# reaching the CGIs another way than /cgi-bin: the rule must still catch
ROUTED='/cgi-bin/burn?iters=1
/static/../cgi-bin/burn?iters=1
/%63gi-bin/burn?iters=1
/%63%67%69%2D%62%69%6E/burn?iters=1
//cgi-bin/burn?iters=1
///cgi-bin//burn?iters=1
/./cgi-bin/burn?iters=1
/cgi-bin/./burn?iters=1
/cgi-bin/x/../burn?iters=1
/static/%2e%2e/cgi-bin/burn?iters=1
/static/%2E%2E/cgi-bin/burn?iters=1
/static/.%2e/cgi-bin/burn?iters=1
/cgi-bin/%62urn?iters=1
http://198.51.100.1/static/../cgi-bin/burn?iters=1'
# paths no backend may read differently from the director: 400
REFUSED='/cgi-bin%2fburn?iters=1
/cgi-bin%2Fburn?iters=1
/static%2f..%2fcgi-bin/burn?iters=1
/cgi-bin/burn%00
/%00/cgi-bin/burn?iters=1
/../cgi-bin/burn?iters=1
/static/../../cgi-bin/burn?iters=1
/%2e%2e/cgi-bin/burn?iters=1
/.;/cgi-bin/burn?iters=1
/cgi-bin/burn%zz'
# other spellings: not the rule's (case-sensitive, like the backends'
# paths), so "rest" gets them - and must not run a CGI for them
CASES='/CGI-BIN/burn?iters=1
/Cgi-Bin/burn?iters=1
/%43GI-BIN/burn?iters=1
/cgi-BIN/burn?iters=1'

# attempts FILE TAG: each target on its own connection; "TAG STATUS
# BACKEND KIND" lines to FILE.out, checked against the access logs
attempts() {
	clear_logs
	in_cli $ROUTE raw "$L7TB_VIP" "$2" < "$1" > "$1.out" || { cat "$1.out"; return 1; }
	[ "$(wc -l < "$1.out")" = "$(wc -l < "$1")" ] || { cat "$1.out"; return 1; }
	# the backend named is the one that logged it; a director's answer
	# (no X-Backend) reached no backend at all
	awk '{ print $1, ($3 == "-" ? "" : $3) }' "$1.out" > "$1.who"
	logs_agree "$1.who" || return 1
	# never a CGI anywhere but in the cgi pool
	awk '$4 == "cgi" && $3 != "s1" && $3 != "s2" { print "CGI ran on " $3 ": " $0; bad = 1 }
	     END { exit bad }' "$1.out" || return 1
	paste -d' ' "$1" "$1.out" | awk '{ printf "%s %s %s %s; ", $1, $3, $4, $5 }'
}

rule_still_catches() {
	local out
	echo "$ROUTED" > "$TMP/routed"
	out=$(attempts "$TMP/routed" br) || { echo "$out"; return 1; }
	note "$out"
	paste -d' ' "$TMP/routed" "$TMP/routed.out" |
		awk '$4 != "s1" && $4 != "s2" { print "not in the cgi pool: " $0; bad = 1 } END { exit bad }'
}

unsafe_paths_refused() {
	local out
	echo "$REFUSED" > "$TMP/refused"
	out=$(attempts "$TMP/refused" bx) || { echo "$out"; return 1; }
	note "$out"
	paste -d' ' "$TMP/refused" "$TMP/refused.out" |
		awk '$3 != 400 || $4 != "-" { print "not the director'"'"'s 400: " $0; bad = 1 } END { exit bad }'
}

case_variants() {
	local out
	echo "$CASES" > "$TMP/cases"
	out=$(attempts "$TMP/cases" bc) || { echo "$out"; return 1; }
	note "case-sensitive rule: $out"
	paste -d' ' "$TMP/cases" "$TMP/cases.out" |
		awk '$4 != "s3" || $3 == 200 { print "want s3, no CGI: " $0; bad = 1 } END { exit bad }' ||
		return 1
	# --path-nocase: the rule takes every spelling
	adm --edit-rule -t "$VS" --id 10 --path-prefix /cgi-bin --path-nocase --pool cgi ||
		return 1
	out=$(attempts "$TMP/cases" bn) || { echo "$out"; return 1; }
	note "--path-nocase: $out"
	paste -d' ' "$TMP/cases" "$TMP/cases.out" |
		awk '$4 != "s1" && $4 != "s2" { print "not in the cgi pool: " $0; bad = 1 } END { exit bad }'
}

# ---- 4. whole-set replaces while wrk runs ----

# wrk keep-alive connections over /cgi-bin, /static and the rest while
# the set is replaced, alternately by one that routes every path elsewhere;
# a byte-checking client runs alongside
replace_under_wrk() {
	local wrk ka swaps rc=0
	cat > "$TMP/paths.lua" <<'LUA'
local paths = { "/static/1k.bin", "/cgi-bin/burn?iters=1", "/static/10k.bin",
		"/index.html", "/cgi-bin/chunked?n=5" }
local i = 0
request = function()
	i = i + 1
	return wrk.format("GET", paths[i % #paths + 1])
end
LUA
	in_cli wrk -t1 -c8 -d25s --timeout 10s -s "$TMP/paths.lua" \
		"http://$L7TB_VIP/" > "$TMP/wrk" 2>&1 &
	wrk=$!
	in_cli "$PY" "$L7TB_DIR/clients/kaloop.py" "$L7TB_VIP" --conns 2 --requests 150 \
		--path /static/10k.bin --path "/cgi-bin/burn?iters=1" --path /static/1k.bin \
		--no-reconnect > "$TMP/kaloop" 2>&1 &
	ka=$!
	sleep 2
	swaps=$(in_dir $ROUTE swap "$VS" 18) || rc=1
	wait $wrk || rc=1
	wait $ka || { rc=1; echo "kaloop:"; cat "$TMP/kaloop"; }
	note "$swaps atomic replaces; wrk: $(grep -E 'requests in|Non-2xx|Socket errors' "$TMP/wrk" | tr -s ' \n' ' ')"
	note "kaloop: $(head -n 1 "$TMP/kaloop")"
	[ $rc = 0 ] && [ "${swaps:-0}" -ge 10 ] || { cat "$TMP/wrk"; return 1; }
	grep -q 'requests in' "$TMP/wrk" &&
		! grep -qE 'Non-2xx|Socket errors' "$TMP/wrk" || { cat "$TMP/wrk"; return 1; }
	grep -q '^requests 300 ok 300 errors 0 reconnects 0' "$TMP/kaloop" ||
		{ cat "$TMP/kaloop"; return 1; }
}

# the set in place afterwards is the one the last replace put there
routes_after_replaces() {
	local got
	got=$(for i in 1 2 3 4 5 6; do echo "s1|s2	GET	/cgi-bin/burn?iters=1"; \
		echo "s3	GET	/static/1k.bin"; done | in_cli $ROUTE seq "$L7TB_VIP" rr) ||
		{ echo "$got"; return 1; }
	[ "$(in_cli curl -s --max-time 60 -o /dev/null -w '%{http_code}' "http://$L7TB_VIP/admin/x")" = 403 ]
}

fresh
t_check "rules loaded with the patched ipvsadm" route_rules
t_check "routing: host (exact, *.suffix), method set, cookie; 20 requests, one keep-alive connection" \
	routes_on_one_connection
t_check "routing: rule hits in ipvsadm -Ln --stats" route_hits

fresh
t_check "hash: a pool hashing cookie sid" hash_rules
t_check "hash: the same cookie, the same server, 100 connections" same_cookie_same_server
t_check "hash: ipvsadm -d moves only the removed server's keys; -a takes them back" \
	removed_server_moves_only_its_keys
t_check "hash: weight 0 moves only that server's keys" weight0_moves_only_its_keys
t_check "hash: bounded load, 60% of requests one cookie, 12 connections at once" \
	bounded_load_under_skew
t_check "hash: uri, the same path however spelled, the same server" hash_uri

fresh
t_check "bypass: a /cgi-bin rule and a catch-all" bypass_rules
t_check "bypass: dot-segments, encodings, slashes, absolute form: still the /cgi-bin pool" \
	rule_still_catches
t_check "bypass: encoded /, %00, .. above the root, bad escapes: 400, no backend" \
	unsafe_paths_refused
t_check "bypass: case variants: not the rule's, no CGI; with --path-nocase, the rule's" \
	case_variants

fresh
t_check "replace: whole sets that route differently, swapped while wrk and a checking client run" \
	replace_under_wrk
t_check "replace: the last set routes" routes_after_replaces

adm -C
testbed_down
rm -rf "$TMP"
t_summary
