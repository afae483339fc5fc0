#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Backend connection pools (FPS step 0): pre-established connections from
# the director to every real server of an l7 service, refilled in the
# background, drained by weight 0, released with their server or service,
# and replaced when the server closes them.  Runs inside the guest.
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
MIN_IDLE=8

# what a test measured, shown whether it passes or not
exec 3>&1
note() { printf '     %s\n' "$@" >&3; }

testbed_up

# director_conns BACKEND: established connections the backend has from
# the director, as the backend's own kernel sees them
director_conns() {
	in_backend "$1" ss -Htn state established '( sport = :80 )' |
		awk -v gw="$L7TB_GW" '$4 ~ "^" gw ":" { n++ } END { print n + 0 }'
}

# expect_pool BACKEND IDLE CONNS: wait until /proc and the backend agree
expect_pool() {
	local b=$1 idle=$2 conns=$3
	[ "$(pool_col "$b" Idle)" = "$idle" ] &&
		[ "$(director_conns "$b")" = "$conns" ]
}

pool_report() {
	in_dir cat /proc/net/ip_vs_l7
	for b in $L7TB_BACKENDS; do echo "$b has $(director_conns "$b") from the director"; done
}

pools_fill() {
	local b
	add_service "$VS" l7 1 1 1 || return 1
	for b in $L7TB_BACKENDS; do
		wait_for expect_pool "$b" $MIN_IDLE $MIN_IDLE ||
			{ pool_report; return 1; }
		[ "$(pool_col "$b" Opened)" = $MIN_IDLE ] && [ "$(pool_col "$b" Failed)" = 0 ] ||
			{ pool_report; return 1; }
	done
}

weight0_closes_idle() {
	in_dir ipvsadm -e -t "$VS" -r "$(backend_ip s2):80" -m -w 0 || return 1
	wait_for expect_pool s2 0 0 || { pool_report; return 1; }
	sleep 1
	expect_pool s2 0 0 || { echo "s2 pool refilled at weight 0"; pool_report; return 1; }
	in_dir ipvsadm -e -t "$VS" -r "$(backend_ip s2):80" -m -w 1 || return 1
	wait_for expect_pool s2 $MIN_IDLE $MIN_IDLE || { pool_report; return 1; }
}

# A stopping server is marked down as soon as its connects are refused,
# or - while it shuts down - its connections are accepted and closed at
# once; connects tried during the backoff are refused.
connects_refused() {
	[ "$(pool_col "$1" Failed)" -gt 0 ]
}

stopped_server_down_then_back() {
	local rc=0
	"$L7TB_DIR/apache" stop s3
	wait_eq down pool_col s3 State && wait_for connects_refused s3 &&
		[ "$(pool_col s3 Idle)" = 0 ] &&
		[ "$(pool_col s3 Closed)" -ge $MIN_IDLE ] || { pool_report; rc=1; }
	# back whatever happened, so that no later test inherits it stopped
	"$L7TB_DIR/apache" start s3
	[ $rc = 0 ] || return 1
	wait_eq up pool_col s3 State || { pool_report; return 1; }
	wait_for expect_pool s3 $MIN_IDLE $MIN_IDLE || { pool_report; return 1; }
}

# Apache closes a connection that idles before its first request once
# Timeout expires: the pool must notice and replace every one of them.
server_closed_idle_replaced() {
	local opened
	"$L7TB_DIR/apache" stop s1
	"$L7TB_DIR/apache" start --timeout 2 s1
	wait_for expect_pool s1 $MIN_IDLE $MIN_IDLE || { pool_report; return 1; }
	opened=$(pool_col s1 Opened)
	sleep 7
	wait_for expect_pool s1 $MIN_IDLE $MIN_IDLE || { pool_report; return 1; }
	[ "$(pool_col s1 Opened)" -ge $((opened + 2 * MIN_IDLE)) ] ||
		{ echo "opened $opened -> $(pool_col s1 Opened)"; pool_report; return 1; }
	"$L7TB_DIR/apache" stop s1
	"$L7TB_DIR/apache" start s1
	wait_for expect_pool s1 $MIN_IDLE $MIN_IDLE || { pool_report; return 1; }
}

removed_server_releases_pool() {
	in_dir ipvsadm -d -t "$VS" -r "$(backend_ip s1):80" || return 1
	[ -z "$(pool_col s1 Idle)" ] || { pool_report; return 1; }
	wait_eq 0 director_conns s1 || { pool_report; return 1; }
}

removed_service_releases_pools() {
	local b
	in_dir ipvsadm -D -t "$VS" || return 1
	! in_dir grep -q '^  -> [0-9]' /proc/net/ip_vs_l7 || { pool_report; return 1; }
	for b in $L7TB_BACKENDS; do
		wait_eq 0 director_conns "$b" || { pool_report; return 1; }
	done
}

# ipvsadm -E moves an existing service with servers onto l7 and back.
edit_scheduler_creates_and_releases() {
	local b
	own_service rr 1 1 1 || return 1
	in_dir ipvsadm -E -t "$VS" -s l7 || return 1
	for b in $L7TB_BACKENDS; do
		wait_for expect_pool "$b" $MIN_IDLE $MIN_IDLE || { pool_report; return 1; }
	done
	in_dir ipvsadm -E -t "$VS" -s rr || return 1
	for b in $L7TB_BACKENDS; do
		wait_eq 0 director_conns "$b" || { pool_report; return 1; }
	done
	rmmod ip_vs_l7 || { echo "rmmod failed after -E -s rr"; return 1; }
	in_dir ipvsadm -D -t "$VS"
}

# passive opens of every backend together (each Apache's /proc/PID/net is
# its namespace's)
passive_opens() {
	local b n=0
	for b in $L7TB_BACKENDS; do
		n=$((n + $(awk '$1 == "Tcp:" && $2 ~ /^[0-9]/ { print $7 }' \
			"/proc/$(cat "$L7TB_RUN/$b/httpd.pid")/net/snmp")))
	done
	echo $n
}

# pools_empty: no idle pooled connection, none established, anywhere
pools_empty() {
	local b
	for b in $L7TB_BACKENDS; do
		expect_pool "$b" 0 0 || return 1
	done
}

# opened: connections the pools opened, every server's together (/proc)
opened() {
	local b n=0
	for b in $L7TB_BACKENDS; do
		n=$((n + $(pool_col "$b" Opened)))
	done
	echo $n
}

# pools_settled: empty, and nothing opened for two seconds - a refill the
# work began before prefork went off completes on its own time, and is
# then closed; counted inside a measurement it would look like a request's
pools_settled() {
	local o
	o=$(opened)
	sleep 2
	pools_empty && [ "$(opened)" = "$o" ]
}

# own_service SCHED W1 W2 W3: the test's own service, on a director
# cleared of whatever a failed test before it left behind (rules only if
# their family is loaded: asking for it would load it, and it holds
# ip_vs_l7, which a test may mean to unload)
own_service() {
	[ ! -d /sys/module/ip_vs_l7_genl ] ||
		in_dir "$PY" "$L7TB_DIR/clients/l7nl.py" flush >/dev/null 2>&1
	in_dir ipvsadm -C
	add_service "$VS" "$@"
}

# Option prefork off (the benchmark's baseline B5): no connection kept idle,
# one opened to the server of each request and closed after its
# response - on one keep-alive client connection, requests bytes-exact;
# prefork on again refills every pool.
prefork_off_conn_per_request() {
	local n=30 url=http://$L7TB_VIP/static/10k.bin digest dir b i
	local args=() opens connects
	own_service l7 1 1 1 || return 1
	for b in $L7TB_BACKENDS; do
		wait_for expect_pool "$b" $MIN_IDLE $MIN_IDLE || { pool_report; return 1; }
	done
	in_dir "$PY" "$L7TB_DIR/clients/l7nl.py" set-prefork "$VS" off || return 1
	[ "$(in_dir "$PY" "$L7TB_DIR/clients/l7nl.py" prefork "$VS")" = off ] || return 1
	wait_for pools_settled || { echo "idle connections kept"; pool_report; return 1; }
	digest=$(awk '$2 == "static/10k.bin" { print $1 }' "$L7TB_DIR/www/SHA256SUMS")
	dir=$(mktemp -d)
	for i in $(seq 1 $n); do args+=(-o "$dir/$i" "$url"); done
	opens=$(passive_opens)
	connects=$(in_cli curl -sS --fail --max-time 60 -w '%{num_connects}\n' "${args[@]}" |
		awk '{ s += $1 } END { print s }') || { rm -rf "$dir"; return 1; }
	opens=$(($(passive_opens) - opens))
	for i in $(seq 1 $n); do
		[ "$(sha256sum < "$dir/$i" | cut -d' ' -f1)" = "$digest" ] ||
			{ echo "response $i not exact"; rm -rf "$dir"; return 1; }
	done
	rm -rf "$dir"
	echo "$n requests on $connects client connection(s): $opens backend connections opened"
	[ "$connects" = 1 ] && [ "$opens" = $n ] || { pool_report; return 1; }
	wait_for pools_empty || { echo "connections kept after their response"; pool_report; return 1; }
	in_dir "$PY" "$L7TB_DIR/clients/l7nl.py" set-prefork "$VS" on || return 1
	for b in $L7TB_BACKENDS; do
		wait_for expect_pool "$b" $MIN_IDLE $MIN_IDLE || { pool_report; return 1; }
	done
	in_dir ipvsadm -D -t "$VS"
	in_dir "$PY" "$L7TB_DIR/clients/l7nl.py" flush
}

# slow_burst N PAR MS: N requests to /cgi-bin/sleep?ms=MS from PAR client
# connections at once, every one 200 with its exact body; prints, for
# each backend, the most requests its CGIs ran at once ("s1 1 s2 2 s3 1")
# - from the spans the CGIs report, each inside the time its request was
# outstanding on that backend.
slow_burst() {
	local n=$1 par=$2 ms=$3 dir i args=() rc=0
	dir=$(mktemp -d)
	for i in $(seq 1 "$n"); do
		args+=(-o "$dir/$i" "http://$L7TB_VIP/cgi-bin/sleep?ms=$ms&id=$i")
	done
	in_cli curl -sS --no-progress-meter -Z --parallel-immediate --parallel-max "$par" --max-time 60 \
		-w '%{http_code} %header{x-backend} %header{x-begin} %header{x-end}\n' \
		"${args[@]}" > "$dir/spans" || rc=1
	[ "$(awk '$1 == 200 && $4 > $3 { k++ } END { print k + 0 }' "$dir/spans")" = "$n" ] ||
		{ echo "not $n answers 200:"; cat "$dir/spans"; rc=1; }
	for i in $(seq 1 "$n"); do
		cmp -s "$dir/$i" <(for k in $(seq 0 31); do echo "id=$i line=$k"; done) ||
			{ echo "response $i not exact"; rc=1; break; }
	done
	# +1 at a begin, -1 at an end, ends first at equal times
	awk '{ print $2, $3, 1; print $2, $4, 0 }' "$dir/spans" | sort -k1,1 -k2,2n -k3,3n |
		awk '{ if ($1 != b) { if (b != "") printf "%s %d ", b, m; b = $1; c = 0; m = 0 }
		       c += $3 ? 1 : -1; if (c > m) m = c }
		     END { printf "%s %d\n", b, m }'
	rm -rf "$dir"
	return $rc
}

# set_uthresholds N1 N2 N3: ipvsadm -e -x for s1..s3, shown in /proc
set_uthresholds() {
	local b i=1
	for b in $L7TB_BACKENDS; do
		in_dir ipvsadm -e -t "$VS" -r "$(backend_ip "$b"):80" -m -w 1 -x "${!i}" ||
			return 1
		[ "$(pool_col "$b" UThresh)" = "${!i}" ] || { pool_report; return 1; }
		i=$((i + 1))
	done
}

# queued: requests of the service that waited in its queue (/proc)
queued() {
	svc_col queued
}

# An upper threshold (ipvsadm -x N) caps the requests outstanding on its
# server, as HAProxy's maxconn does: 16 slow requests from 8 connections
# at once to three servers capped at 1, 2 and 1 run at most 1, 2 and 1
# at a time; the rest wait in the service's queue (none answered 503)
# and are bound as slots free.  -x 0 lifts the caps: a server then runs
# more than one at once.
uthreshold_caps_outstanding() {
	local got q0 rc=0
	own_service l7 1 1 1 || return 1
	wait_for pools_ready || { pool_report; return 1; }
	set_uthresholds 1 2 1 || return 1
	q0=$(queued)
	got=$(slow_burst 16 8 300) || rc=1
	note "capped 1 2 1: most at once $got; queued $q0 -> $(queued)"
	echo "$got" | awk '{ for (i = 1; i < NF; i += 2) m[$i] = $(i + 1) }
		END { exit !(m["s1"] == 1 && m["s2"] == 2 && m["s3"] == 1) }' ||
		{ pool_report; rc=1; }
	[ "$(queued)" -gt "$q0" ] || { echo "nothing waited"; rc=1; }
	set_uthresholds 0 0 0 || return 1
	got=$(slow_burst 16 8 300) || rc=1
	note "uncapped: most at once $got"
	echo "$got" | awk '{ for (i = 1; i < NF; i += 2) if ($(i + 1) > 1) k++ }
		END { exit !k }' || { pool_report; rc=1; }
	in_dir ipvsadm -D -t "$VS"
	return $rc
}

# The same through a content rule's pool: /cgi-bin to a wrr pool of s1
# and s2, each capped at 1 (s3, outside it, uncapped): 8 slow requests
# from 4 connections at once run one at a time on each member, none on
# s3, and the rest wait - a member at its cap is still eligible, not a
# 503 "no eligible member".
uthreshold_caps_rule_pool() {
	local got q0 rc=0
	own_service l7 1 1 1 || return 1
	wait_for pools_ready || { pool_report; return 1; }
	in_dir "$PY" "$L7TB_DIR/clients/l7nl.py" add-pool "$VS" cgi \
		"$(backend_ip s1):80,$(backend_ip s2):80" wrr &&
		in_dir "$PY" "$L7TB_DIR/clients/l7nl.py" add-rule "$VS" 10 \
			prefix=/cgi-bin pool=cgi || return 1
	set_uthresholds 1 1 0 || return 1
	q0=$(queued)
	got=$(slow_burst 8 4 300) || rc=1
	note "rule pool s1+s2 (wrr) capped 1 1: most at once $got; queued $q0 -> $(queued)"
	echo "$got" | awk '{ for (i = 1; i < NF; i += 2) m[$i] = $(i + 1) }
		END { exit !(m["s1"] == 1 && m["s2"] == 1 && !("s3" in m)) }' ||
		{ pool_report; rc=1; }
	[ "$(queued)" -gt "$q0" ] || { echo "nothing waited"; rc=1; }
	in_dir "$PY" "$L7TB_DIR/clients/l7nl.py" flush "$VS"
	in_dir ipvsadm -D -t "$VS"
	return $rc
}

t_check "pool: $MIN_IDLE idle connections to every real server" pools_fill
t_check "pool: weight 0 closes idle connections, weight 1 refills" weight0_closes_idle
t_check "pool: stopped server marked down, refilled once it is back" stopped_server_down_then_back
t_check "pool: connections the server closes while idle are replaced" server_closed_idle_replaced
t_check "pool: removed real server releases its connections" removed_server_releases_pool
t_check "pool: removed service releases every connection" removed_service_releases_pools
t_check "pool: ipvsadm -E to l7 and back creates and releases pools" edit_scheduler_creates_and_releases
t_check "pool: prefork off opens a connection per request and keeps none idle, on refills" prefork_off_conn_per_request
t_check "pool: ipvsadm -x N caps a server's requests in flight, the rest wait; -x 0 lifts it" uthreshold_caps_outstanding
t_check "pool: ipvsadm -x caps the members of a content rule's pool too, the rest wait" uthreshold_caps_rule_pool

testbed_down
t_summary
