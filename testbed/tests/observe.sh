#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# observe VM suite: what an operator watches.  scripts/ip_vs_l7-log reads
# the module's tracepoints while a known sequence of requests runs - a
# rule to one backend, the service's own choice among three, a backend's
# error, a rule's reject, a 503 after queue_timeout - and every field of
# every line is compared with what the client saw (its address and port,
# status, bytes of head and body) and with the backends' X-Backend; the
# logger's filters by service and status.  scripts/ip_vs_l7-metrics is
# compared number by number with /proc/net/ip_vs_l7 and with the IPVS_L7
# family's rule and pool dumps (l7nl.py), its rule and pool counters with
# what the requests must have counted, on stdout and in the textfile
# collector's directory; with the stock ipvsadm, or none, it writes the
# /proc metrics alone and says so once.  Runs inside the guest.
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
IPVSADM=$L7TB_BUILD/ipvsadm/ipvsadm
SCRIPTS=$L7TB_DIR/../scripts
TMP=$(mktemp -d)
S1=$(backend_ip s1):80
PARAMS=/sys/module/ip_vs_l7/parameters
LONG=/static/1k.bin?pad=$(printf '%080d' 0)

[ -x "$IPVSADM" ] || { echo "FAIL no $IPVSADM (make ipvsadm)"; exit 1; }
adm() { in_dir timeout 60 "$IPVSADM" "$@"; }

testbed_up
in_dir ipvsadm -C
add_service "$VS" l7 1 1 1 && wait_for pools_ready >/dev/null
adm --add-pool -t "$VS" --pool p1 --members "$S1" &&
	adm --add-rule -t "$VS" --id 10 --path-prefix /only-s1 --pool p1 &&
	adm --add-rule -t "$VS" --id 20 --path-prefix /admin --reject 403 ||
	echo "rules not set"

# start_logger NAME ARGS...: the logger in the background, output in
# $TMP/NAME.log; returns once its events are on
start_logger() {
	local name=$1
	shift
	timeout 300 $PY "$SCRIPTS/ip_vs_l7-log" "$@" > "$TMP/$name.log" \
		2> "$TMP/$name.err" &
	echo $! > "$TMP/$name.pid"
	wait_for grep -q tracing "$TMP/$name.err"
}

# req NAME CURL-ARGS... URL: one request on a new connection; what the
# client saw goes to $TMP/NAME.want: local address:port, status, bytes of
# head and body, the X-Backend header
req() {
	local name=$1
	shift
	in_cli curl -sS --max-time 60 -o /dev/null -D "$TMP/$name.head" \
		-w '%{local_ip}:%{local_port} %{http_code} %{size_header} %{size_download}\n' \
		"$@" > "$TMP/$name.want"
	tr -d '\r' < "$TMP/$name.head" |
		awk 'tolower($1) == "x-backend:" { print $2 }' >> "$TMP/$name.want"
}

# the requests, in order; the weights go to 0 for the last, which waits
# queue_timeout (1 s) and is answered 503
run_requests() {
	req rule -H 'Host: www.example' "http://$L7TB_VIP/only-s1/" &&
		req service "http://$L7TB_VIP$LONG" &&
		req error -X DELETE "http://$L7TB_VIP/static/none" &&
		req reject "http://$L7TB_VIP/admin/x" || return 1
	echo 1000 > $PARAMS/queue_timeout
	for b in $L7TB_BACKENDS; do
		in_dir ipvsadm -e -t "$VS" -r "$(backend_ip "$b"):80" -m -w 0
	done
	req queued "http://$L7TB_VIP/static/10k.bin"
	for b in $L7TB_BACKENDS; do
		in_dir ipvsadm -e -t "$VS" -r "$(backend_ip "$b"):80" -m -w 1
	done
	echo 5000 > $PARAMS/queue_timeout
}

# esc TEXT: TEXT as an extended regular expression matching it alone
esc() { printf '%s' "$1" | sed 's/[]?*+^$(){}|.[\\]/\\&/g'; }

# check_line N NAME POOL SERVER TERM RULE HOST METHOD PATH: line N of the
# unfiltered log against request NAME; SERVER "backend": the one whose
# X-Backend the client saw; a director's answer has Ts -1
check_line() {
	local n=$1 name=$2 pool=$3 server=$4 term=$5 rule=$6 host=$7 \
		method=$8 path=$9 line client status hb bb backend tw ts tt
	line=$(sed -n "${n}p" "$TMP/all.log")
	{ read -r client status hb bb; read -r backend; } < "$TMP/$name.want"
	[ "$server" = backend ] && server=$(backend_ip "$backend"):80
	local re="^$(esc "$client") \\[[0-9]{2}/[A-Z][a-z]{2}/[0-9]{4}:[0-9:]{8}\\.[0-9]{3}\\] $(esc "$VS") $(esc "$pool/$server") ([0-9]+)/(-1|[0-9]+)/([0-9]+) $status $((hb + bb)) $term $rule \\{$(esc "$host")\\} \"$method $(esc "$path")\"\$"
	printf '%s\n' "$line" | grep -Eq -- "$re" ||
		{ echo "line $n: $line"; echo "want: $re"; return 1; }
	IFS=/ read -r tw ts tt <<< "$(printf '%s\n' "$line" | awk '{ print $5 }')"
	[ "$tt" -eq $((tw + (ts < 0 ? 0 : ts))) ] || { echo "Tt $tt != Tw + Ts"; return 1; }
	if [ "$term" = - ]; then
		[ "$ts" -ge 0 ] || { echo "Ts $ts for a server's answer"; return 1; }
	else
		[ "$ts" = -1 ] || { echo "Ts $ts for the director's answer"; return 1; }
	fi
	[ "$name" != queued ] || [ "$tw" -ge 990 ] ||
		{ echo "Tw $tw after queue_timeout 1000 ms"; return 1; }
}

log_lines() { [ "$(wc -l < "$TMP/$1.log")" -eq "$2" ]; }

start_logger all -n 5
start_logger errors -s "$VS" --status 4xx,5xx -n 3
start_logger other -s 198.51.100.1:8080
t_check "log: five requests: rule, service, backend error, reject, queue timeout" \
	run_requests
t_check "log: one line each" wait_for log_lines all 5
sed 's/^/     /' "$TMP/all.log"
t_check "log: the rule's pool and backend, rule id, Host" \
	check_line 1 rule p1 "$S1" - 10 www.example GET /only-s1/
t_check "log: the service's choice, no rule, path cut to 63 bytes" \
	check_line 2 service - backend - -1 "$L7TB_VIP" GET "${LONG:0:63}"
t_check "log: a backend's error status and bytes" \
	check_line 3 error - backend - -1 "$L7TB_VIP" DELETE /static/none
t_check "log: a rule's reject, answered by the director" \
	check_line 4 reject - '<NOSRV>' rule - "$L7TB_VIP" GET /admin/x
t_check "log: 503 after queue_timeout, Tw at least the timeout" \
	check_line 5 queued - '<NOSRV>' queue_timeout - "$L7TB_VIP" GET /static/10k.bin
t_check "log: --status 4xx,5xx: the error, reject and 503 lines" \
	wait_for log_lines errors 3
# each logger's instance times an event on its own: dates and timers
# may differ by a few ms, nothing else may
filtered_same() {
	diff <(sed -n '3,5p' "$TMP/all.log" | cut -d' ' -f1,3,4,6-) \
		<(cut -d' ' -f1,3,4,6- "$TMP/errors.log")
}
t_check "log: ... the same lines as unfiltered" filtered_same
t_check "log: --service of another VIP:port: no line" log_lines other 0
for l in all errors other; do kill "$(cat "$TMP/$l.pid")" 2>/dev/null; done
wait
no_instances() {
	! ls -d /sys/kernel/tracing/instances/ip_vs_l7-log-* 2>/dev/null
}
t_check "log: stopped loggers leave no tracefs instance" no_instances

# ---- metrics against /proc and the family's dumps, the counters now still ----

METRICS="$PY $SCRIPTS/ip_vs_l7-metrics"

# counters NAME: /proc and the family's rule and pool dumps in $TMP/NAME.*
counters() {
	in_dir cat /proc/net/ip_vs_l7 > "$TMP/$1.proc" &&
		in_dir $PY "$L7TB_DIR/clients/l7nl.py" rules > "$TMP/$1.rules" &&
		in_dir $PY "$L7TB_DIR/clients/l7nl.py" pools > "$TMP/$1.pools"
}
counters_same() {
	local f
	for f in proc rules pools; do
		cmp -s "$TMP/before.$f" "$TMP/after.$f" || return 1
	done
}

# metrics_between ADM OUT: the script with ADM as --ipvsadm, its stdout to
# OUT.prom and stderr to OUT.err, between two reads of the counters that
# agree (a pool's idle connections are replaced every pool_idle_ttl:
# up to three tries)
metrics_between() {
	local i
	for i in 1 2 3; do
		counters before || return 1
		in_dir $METRICS --stdout --ipvsadm "$1" > "$TMP/$2.prom" \
			2> "$TMP/$2.err" || return 1
		counters after || return 1
		counters_same && break
	done
	return 0	# compared as they are if they never agreed
}

# metrics_agree: the script's numbers equal to the counters read around
# it, with nothing on its stderr
metrics_agree() {
	metrics_between "$IPVSADM" out || return 1
	[ ! -s "$TMP/out.err" ] || { cat "$TMP/out.err"; return 1; }
	[ -s "$TMP/before.rules" ] && [ -s "$TMP/before.pools" ] || return 1
	$PY "$L7TB_DIR/clients/l7metrics_check.py" "$TMP/before.proc" \
		"$TMP/out.prom" "$TMP/before.rules" "$TMP/before.pools"
}
t_check "metrics: every /proc and rule and pool number under its name and labels, HELP and TYPE" metrics_agree

# the five requests: rule 10 sent /only-s1/ to p1, whose member was
# eligible; rule 20 rejected /admin/x; no rule decided the other three
known_counts() {
	local s
	for s in 'rule_hits_total{vip="VS",rule="10"} 1' \
		'rule_hits_total{vip="VS",rule="20"} 1' \
		'pool_requests_total{vip="VS",pool="p1"} 1' \
		'pool_unavailable_total{vip="VS",pool="p1"} 0'; do
		grep -qxF "ip_vs_l7_${s/VS/$VS}" "$TMP/out.prom" ||
			{ echo "no ip_vs_l7_${s/VS/$VS}"; return 1; }
	done
}
t_check "metrics: rule hits and pool requests as the requests counted them" known_counts

# only_proc ADM: with ADM as --ipvsadm, the /proc metrics alone and one
# line on stderr naming ADM, against the counters read around it
only_proc() {
	metrics_between "$1" plain || return 1
	[ "$(wc -l < "$TMP/plain.err")" -eq 1 ] &&
		grep -qF "no rule or pool counters: $1" "$TMP/plain.err" ||
		{ cat "$TMP/plain.err"; return 1; }
	$PY "$L7TB_DIR/clients/l7metrics_check.py" "$TMP/before.proc" \
		"$TMP/plain.prom"
}
t_check "metrics: stock ipvsadm: the /proc metrics alone, said once" \
	only_proc "$(command -v ipvsadm)"
t_check "metrics: no ipvsadm: the /proc metrics alone, said once" \
	only_proc "$TMP/no-ipvsadm"
textfile() {
	mkdir -p "$TMP/prom" &&
		in_dir $METRICS -d "$TMP/prom" --ipvsadm "$IPVSADM" || return 1
	[ "$(stat -c %a "$TMP/prom/ip_vs_l7.prom")" = 644 ] || return 1
	[ "$(ls -A "$TMP/prom")" = ip_vs_l7.prom ] || { ls -A "$TMP/prom"; return 1; }
	grep -q '^ip_vs_l7_answered_total{vip="198.51.100.1:80"} 2$' "$TMP/prom/ip_vs_l7.prom" ||
		{ grep answered "$TMP/prom/ip_vs_l7.prom"; return 1; }
	grep -q "^ip_vs_l7_requests_total{vip=\"$VS\",server=\"$S1\"} " "$TMP/prom/ip_vs_l7.prom" &&
		grep -q "^ip_vs_l7_rule_hits_total{vip=\"$VS\",rule=\"10\"} 1$" "$TMP/prom/ip_vs_l7.prom"
}
t_check "metrics: -d DIR: ip_vs_l7.prom alone, 0644; answered counts the reject and the 503, rule 10 its hit" textfile

adm -C
testbed_down
rm -rf "$TMP"
t_summary
