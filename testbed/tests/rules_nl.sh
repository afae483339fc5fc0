#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The IPVS_L7 generic-netlink family from user space: a request for the
# family loads the module; rules and pools round-trip; every malformed,
# oversize or hostile request is refused with its errno and a message;
# no CAP_NET_ADMIN, no access; rule sets are per namespace and go with it
# and with the module.  Runs inside the guest.  Clients:
# testbed/clients/l7nl.py (the family over socket.AF_NETLINK) and
# testbed/clients/l7nl_checks.py (the checks, in one process each).
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
TMP=$(mktemp -d)
NL="$PY $L7TB_DIR/clients/l7nl.py"
CHECKS="$PY $L7TB_DIR/clients/l7nl_checks.py"


testbed_up

module_loaded() { grep -q '^ip_vs_l7 ' /proc/modules; }

# run_checks NAME CMD...: CMD prints "ok   NAME" / "FAIL NAME" lines, the
# details of a failure indented under it; each becomes a test here.
run_checks() {
	local what=$1 line name="" detail=() n=0 rc
	shift
	"$@" > "$TMP/checks" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok   "*) flush_check; t_pass "${line#ok   }"; n=$((n + 1)) ;;
		"FAIL "*) flush_check; name=${line#FAIL }; n=$((n + 1)) ;;
		*) [ -n "$name" ] && detail+=("$line") ;;
		esac
	done < "$TMP/checks"
	flush_check
	if [ $n = 0 ] || { [ $rc != 0 ] && ! grep -q '^FAIL ' "$TMP/checks"; }; then
		t_fail "$what: the checks ran to their end" "$(tail -n 20 "$TMP/checks")"
	fi
}
flush_check() {
	[ -n "$name" ] && t_fail "$name" "${detail[@]}"
	name=""
	detail=()
}

family_autoloads() {
	l7_unload || return 1
	in_dir $NL info > "$TMP/info" || return 1
	module_loaded || { echo "module not loaded"; return 1; }
	grep -q "1: 1," "$TMP/info"
}

# IPVS loads a scheduler's module from inside its own generic-netlink
# request: that load must not register a family (it would wait for
# ever on the lock the request holds, and every genetlink user with it).
# The family comes on first use, in a module of its own.
scheduler_autoload_then_family() {
	l7_unload || return 1
	timeout 60 ip netns exec l7dir ipvsadm -A -t "$VS" -s l7 ||
		{ echo "ipvsadm -A -s l7 did not return"; return 1; }
	module_loaded || { echo "ip_vs_l7 not loaded"; return 1; }
	! grep -q '^ip_vs_l7_genl ' /proc/modules ||
		{ echo "the family's module came with the scheduler"; return 1; }
	timeout 60 ip netns exec l7dir $NL info > "$TMP/info" || return 1
	grep -q '^ip_vs_l7_genl ' /proc/modules || return 1
	timeout 60 ip netns exec l7dir ipvsadm -D -t "$VS"
}

# rules of one namespace are not seen from another
per_namespace() {
	in_dir $NL add-pool "$VS" a 192.0.2.11:80 || return 1
	in_dir $NL add-rule "$VS" 1 prefix=/a pool=a || return 1
	[ "$(in_cli $NL rules | wc -l)" = 0 ] || { echo "l7cli sees rules"; return 1; }
	[ "$(in_dir $NL rules)" = "$VS 1 a 0" ] || { in_dir $NL rules; return 1; }
	in_cli $NL add-pool "$VS" b 192.0.2.12:80 || return 1
	[ "$(in_dir $NL pools | awk '{ print $2 }')" = a ] || return 1
	in_cli $NL flush
	in_dir $NL flush
}

# a namespace that goes away with rule sets in it: they go with it
namespace_exit() {
	local i
	ip netns add l7tmp || return 1
	for i in 1 2 3; do
		ip netns exec l7tmp $NL add-pool "198.51.100.$i:80" p 192.0.2.11:80 &&
			ip netns exec l7tmp $NL add-rule "198.51.100.$i:80" 1 pool=p ||
			{ ip netns del l7tmp; return 1; }
	done
	ip netns del l7tmp
	sleep 1		# cleanup_net runs from a work item
}

# unloading the module with rule sets loaded frees them; a reload is empty
unload_with_rules() {
	in_dir $NL add-pool "$VS" a 192.0.2.11:80 || return 1
	in_dir $NL add-rule "$VS" 1 pool=a || return 1
	l7_unload || return 1
	[ "$(in_dir $NL rules | wc -l)" = 0 ] || return 1
	module_loaded
}

# ---- routing by content (the data path) ----

# backend URL [CURL ARGS]: the backend that served one fetch of URL
backend() {
	local url=$1
	shift
	in_cli curl -sS --fail --max-time 15 --path-as-is "$@" -D - -o /dev/null "$url" |
		tr -d '\r' | awk 'tolower($1) == "x-backend:" { print $2 }'
}

# served N URL: the backends that served N fetches of URL, sorted, unique
served() {
	local i
	for i in $(seq 1 "$1"); do backend "$2" || echo FAILED; done |
		sort -u | tr '\n' ' '
}

# status URL: the HTTP status of one fetch (no --fail)
status() {
	in_cli curl -sS --max-time 15 --path-as-is -o /dev/null \
		-w '%{http_code}' "$1"
}

V=http://$L7TB_VIP

load_rules() {
	in_dir $NL add-pool "$VS" cgi 192.0.2.11:80,192.0.2.12:80 &&
		in_dir $NL add-pool "$VS" static 192.0.2.13:80 wrr &&
		in_dir $NL add-pool "$VS" ghost 192.0.2.99:80 &&
		in_dir $NL add-rule "$VS" 10 prefix=/cgi-bin pool=cgi &&
		in_dir $NL add-rule "$VS" 20 prefix=/static pool=static &&
		in_dir $NL add-rule "$VS" 30 prefix=/admin reject=403 &&
		in_dir $NL add-rule "$VS" 40 prefix=/gone reject=404 &&
		in_dir $NL add-rule "$VS" 50 prefix=/ghost pool=ghost &&
		in_dir $NL add-rule "$VS" 60 hdr=x-canary=1 pool=static
}

routes_by_path() {
	local got
	got=$(served 12 "$V/cgi-bin/burn?iters=1")
	[ "$got" = "s1 s2 " ] || { echo "/cgi-bin/ served by $got"; return 1; }
	got=$(served 6 "$V/static/1k.bin")
	[ "$got" = "s3 " ] || { echo "/static/ served by $got"; return 1; }
	got=$(served 12 "$V/index.html")
	[ "$got" = "s1 s2 s3 " ] || { echo "no rule: served by $got"; return 1; }
}

routes_by_header() {
	local got
	got=$(backend "$V/index.html" -H 'X-Canary: 1')
	[ "$got" = s3 ] || { echo "canary served by '$got'"; return 1; }
}

rejects() {
	local st
	st=$(status "$V/admin/x") && [ "$st" = 403 ] || { echo "/admin: $st"; return 1; }
	st=$(status "$V/gone") && [ "$st" = 404 ] || { echo "/gone: $st"; return 1; }
	st=$(status "$V/adminx") && [ "$st" = 404 ] || { echo "/adminx: $st (not a segment)"; return 1; }
}

# encodings and dot-segments cannot take a request around a rule
no_bypass() {
	local u st got
	for u in "/%61dmin/x" "/static/../admin/x" "//admin/x" "/static/%2e%2e/admin/x" \
		"/./admin/x"; do
		st=$(status "$V$u")
		[ "$st" = 403 ] || { echo "$u: $st"; return 1; }
	done
	for u in "/%2e%2e/admin/x" "/admin%2fx" "/a%00b"; do
		st=$(status "$V$u")
		[ "$st" = 400 ] || { echo "$u: $st, want 400"; return 1; }
	done
	got=$(backend "$V/static/../cgi-bin/burn?iters=1")
	case $got in s1|s2) ;; *) echo "/static/../cgi-bin/ served by '$got'"; return 1 ;; esac
}

# consecutive requests of one keep-alive connection go to different pools
keepalive_switches_pools() {
	local out
	out=$(in_cli curl -sS --fail --max-time 30 -o /dev/null -o /dev/null -o /dev/null -o /dev/null \
		-w '%{num_connects} %header{x-backend}\n' \
		"$V/static/1k.bin" "$V/cgi-bin/burn?iters=1" "$V/static/1k.bin" \
		"$V/cgi-bin/burn?iters=1") || return 1
	echo "$out" | awk 'NR == 1 && $1 == 1 && $2 == "s3" { ok++ }
		NR == 2 && $1 == 0 && ($2 == "s1" || $2 == "s2") { ok++ }
		NR == 3 && $1 == 0 && $2 == "s3" { ok++ }
		NR == 4 && $1 == 0 && ($2 == "s1" || $2 == "s2") { ok++ }
		END { exit ok != 4 }' || { echo "$out"; return 1; }
}

# a pool without eligible member answers 503 - or, with fallthrough, the
# rules after it (here: none, the whole service) decide
no_member_503_or_fallthrough() {
	local st got
	st=$(status "$V/ghost/x") && [ "$st" = 503 ] || { echo "/ghost: $st"; return 1; }
	in_dir ipvsadm -e -t "$VS" -r 192.0.2.13:80 -m -w 0 || return 1
	st=$(status "$V/static/1k.bin")
	[ "$st" = 503 ] || { echo "/static with s3 at weight 0: $st"; return 1; }
	in_dir $NL replace-rule "$VS" 20 prefix=/static pool=static fallthrough || return 1
	got=$(served 6 "$V/static/1k.bin")
	in_dir ipvsadm -e -t "$VS" -r 192.0.2.13:80 -m -w 1
	[ "$got" = "s1 s2 " ] || { echo "fallthrough served by $got"; return 1; }
}

# rule hits, pool requests and unavailable from the dump
counters() {
	in_dir $NL rules "$VS" > "$TMP/rules" && in_dir $NL pools "$VS" > "$TMP/pools" || return 1
	cat "$TMP/rules" "$TMP/pools"
	awk '$2 == 30 && $4 >= 6 { ok++ } $2 == 40 && $4 == 1 { ok++ }
		$2 == 50 && $4 == 1 { ok++ } END { exit ok != 3 }' "$TMP/rules" &&
		awk '$2 == "cgi" && $3 >= 14 { ok++ } $2 == "ghost" && $3 == 0 && $4 == 1 { ok++ }
		END { exit ok != 2 }' "$TMP/pools"
}

# keepalived deletes and re-adds services: the rules stay with the tuple
survives_service_readd() {
	local got
	in_dir ipvsadm -D -t "$VS" || return 1
	add_service "$VS" l7 1 1 1 || return 1
	wait_for pools_ready || return 1
	got=$(served 4 "$V/static/1k.bin")
	[ "$got" = "s3 " ] || { echo "/static after re-add: $got"; return 1; }
}

# whole-set replaces while httperf runs keep-alive requests: no error
replace_under_load() {
	local hp rc
	in_cli httperf --hog --server "$L7TB_VIP" --uri /static/1k.bin --rate 20 \
		--num-conns 200 --num-calls 5 --timeout 20 > "$TMP/httperf" 2>&1 &
	hp=$!
	in_dir $NL swap "$VS" 200 || { kill $hp; return 1; }
	wait $hp
	rc=$?
	grep -E '^(Total|Errors|Reply status)' "$TMP/httperf"
	[ $rc = 0 ] && grep -q '^Errors: total 0 ' "$TMP/httperf" &&
		grep -q '^Total: connections 200 requests 1000 replies 1000' "$TMP/httperf" &&
		grep -q 'Reply status: 1xx=0 2xx=1000 ' "$TMP/httperf"
}

t_check "a request for the family loads ip_vs_l7" family_autoloads
t_check "ipvsadm -A -s l7 loads the scheduler alone; the family on first use" \
	scheduler_autoload_then_family
run_checks "control" in_dir $CHECKS control
t_check "rule sets are per network namespace" per_namespace
t_check "a namespace deleted with rule sets in it" namespace_exit
t_check "rmmod with rule sets loaded; the family reloads it, empty" unload_with_rules
# root of a new user namespace: no CAP_NET_ADMIN where IPVS needs it,
# neither in the director's namespace nor in a namespace of its own
run_checks "unpriv (host netns)" in_dir unshare -Ur $CHECKS unpriv
run_checks "unpriv (own netns)" unshare -Urn $CHECKS unpriv

# routing: rules loaded before the IPVS service exists
in_dir $NL flush
t_check "rules loaded for a tuple before its service exists" load_rules
add_service "$VS" l7 1 1 1
wait_for pools_ready >/dev/null
t_check "routing: /cgi-bin/ to s1+s2, /static/ to s3, the rest to all" routes_by_path
t_check "routing: X-Canary: 1 to s3" routes_by_header
t_check "reject: 403 and 404 from the director, on path segments" rejects
t_check "no bypass by encoding or dot-segments (403), unsafe paths 400" no_bypass
t_check "one keep-alive connection, requests to alternating pools" keepalive_switches_pools
t_check "pool without eligible member: 503; with fallthrough, the service" no_member_503_or_fallthrough
t_check "counters: rule hits, pool requests and unavailable" counters
t_check "rules survive ipvsadm -D and -A of their service" survives_service_readd
t_check "200 atomic replaces while httperf runs: zero errors" replace_under_load
in_dir ipvsadm -C
in_dir $NL flush

testbed_down
rm -rf "$TMP"
t_summary
