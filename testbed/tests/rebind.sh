#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Per-request rebinding (ip_vs_l7 datapath=1): every request of a
# keep-alive client connection is dispatched on its own, over pooled
# backend connections reused across clients; answers stay byte-exact and
# in order.  Runs inside the guest.  Clients: testbed/clients/*.py.
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
TMP=$(mktemp -d)
CLIENTS=$L7TB_DIR/clients
# CPU per burn request: iters=100 is ~0.1 ms on metal, a few ms emulated
BURN='/cgi-bin/burn?iters=100'

# emulated time is ~30x slower: give the pools time to grow
modprobe ip_vs_l7 datapath=1 queue_timeout=30000
testbed_up
add_service "$VS" l7 1 1 1

# note TEXT: shown under the test's line whether it passes or not
exec 3>&1
note() { printf '     %s\n' "$@" >&3; }

wait_pools() {
	wait_for pools_ready >/dev/null || { in_dir cat /proc/net/ip_vs_l7; return 1; }
}

# client NAME ARGS...: run testbed/clients/NAME.py in the client namespace
client() {
	local name=$1
	shift
	in_cli "$PY" "$CLIENTS/$name.py" "$L7TB_VIP" "$@"
}

# restart_backends [apache options]: all three Apache restarted, logs kept
restart_backends() {
	"$L7TB_DIR/apache" stop
	"$L7TB_DIR/apache" start "$@" || return 1
	wait_pools
}


# log_conns BACKEND PATTERN: distinct TCP connections (director-side ports)
# that carried requests matching PATTERN
log_conns() {
	grep -- "$2" "$L7TB_RUN/$1/access.log" | awk '{ print $1 ":" $2 }' |
		sort -u | wc -l
}

# client_note FILE: the client's summary lines as notes
client_note() {
	note "$(grep -E '^(requests|answers|backend|round) ' "$1" | tr '\n' ' ')"
}

# ---- 1. one connection, 30 CGI requests, all three backends ----
curl_30_one_connection() {
	local n b bad
	in_cli curl -sS --fail --max-time 300 \
		-w '%{num_connects} %{http_code} %header{x-backend}\n' \
		-o "$TMP/burn_#1" "http://$L7TB_VIP/cgi-bin/burn?iters=10&i=[1-30]" \
		> "$TMP/curl30" || { cat "$TMP/curl30"; return 1; }
	# one connection: the first transfer connected, the 29 others reused it
	n=$(awk 'NR == 1 && $1 == 1 || NR > 1 && $1 == 0 { n++ } END { print n + 0 }' \
		"$TMP/curl30")
	[ "$n" = 30 ] || { echo "curl made more than one connection:"; cat "$TMP/curl30"; return 1; }
	# bodies: "backend=sN iters=10 mix=..." naming the X-Backend, one mix
	bad=$(for n in $(seq 1 30); do
		b=$(sed -n "${n}p" "$TMP/curl30" | awk '{ print $3 }')
		sed "s/^backend=$b /backend=X /" "$TMP/burn_$n"
	done | sort | uniq -c)
	if [ "$(printf '%s\n' "$bad" | wc -l)" != 1 ] ||
	   ! printf '%s\n' "$bad" | grep -Eq '^ +30 backend=X iters=10 mix=[0-9a-f]{16}$'; then
		echo "bodies:"
		printf '%s\n' "$bad"
		return 1
	fi
	awk '{ print $3 }' "$TMP/curl30" | sort | uniq -c > "$TMP/spread1"
	note "$(awk '{ printf "%s %d  ", $2, $1 }' "$TMP/spread1")"
	[ "$(wc -l < "$TMP/spread1")" = 3 ] || { echo "not all 3 backends answered"; return 1; }
}

# ---- 2. 200 mixed requests on one connection ----
keepalive_mix() {
	local rc
	client keepalive_mix --requests 200 > "$TMP/out2" 2>&1
	rc=$?
	cat "$TMP/out2"
	client_note "$TMP/out2"
	return $rc
}

# ---- 3. ten requests pipelined in one write ----
pipelined() {
	local rc
	client pipeline --rounds 3 --min-backends 2 > "$TMP/out3" 2>&1
	rc=$?
	cat "$TMP/out3"
	client_note "$TMP/out3"
	return $rc
}

# ---- 4. 100 x 100 KB on one connection over a lossy link ----
lossy_100k() {
	local rc
	in_cli tc qdisc add dev eth0 root netem delay 3ms loss 3% reorder 1% 25%
	in_dir tc qdisc add dev dcli root netem delay 3ms loss 3% reorder 1% 25%
	client kaloop --conns 1 --requests 100 --path /static/100k.bin --no-reconnect \
		> "$TMP/out4" 2>&1
	rc=$?
	cat "$TMP/out4"
	client_note "$TMP/out4"
	in_cli tc qdisc del dev eth0 root
	in_dir tc qdisc del dev dcli root
	return $rc
}

# ---- 5. backends closing pooled connections often ----
short_keepalive() {
	local rc
	restart_backends --max-keepalive 5 --keepalive-timeout 1 || return 1
	client kaloop --conns 10 --requests 100 --path /static/10k.bin \
		--path '/cgi-bin/burn?iters=10' --path /static/1k.bin > "$TMP/out5" 2>&1
	rc=$?
	cat "$TMP/out5"
	client_note "$TMP/out5"
	return $rc
}

# ---- 8. pooled connections are reused ----
pool_reuse() {
	local b r c reqs=0 conns=0
	restart_backends || return 1
	clear_logs
	client kaloop --conns 10 --requests 100 --path /static/1k.bin \
		--path /static/10k.bin > "$TMP/out8" 2>&1 || { cat "$TMP/out8"; return 1; }
	for b in $L7TB_BACKENDS; do
		r=$(log_requests "$b" 'GET /static/1')
		c=$(log_conns "$b" 'GET /static/1')
		note "$b: $r requests on $c connections"
		reqs=$((reqs + r))
		conns=$((conns + c))
	done
	[ "$conns" -gt 0 ] || return 1
	note "$(awk -v r="$reqs" -v c="$conns" 'BEGIN {
		printf "all: %d requests on %d backend connections, ratio %.1f", r, c, r / c }')"
	awk -v r="$reqs" -v c="$conns" 'BEGIN { exit !(r == 1000 && r / c >= 5) }' ||
		{ echo "$reqs requests on $conns connections"; return 1; }
}

# ---- 7. a backend stopped mid-run, then restarted ----
# The client log has one line per request: CONN SEQ START END BACKEND ok|error.
stopped_mid_run() {
	local pid stopped n rc summary
	# paced, so that many requests come after the stop has completed
	client kaloop --conns 3 --requests 100 --max-errors 5 --log "$TMP/ka7" \
		--pace 0.2 --path /static/10k.bin --path '/cgi-bin/burn?iters=10' \
		> "$TMP/out7" 2>&1 &
	pid=$!
	for _ in $(seq 1 600); do
		n=$({ wc -l < "$TMP/ka7"; } 2>/dev/null || echo 0)
		[ "$n" -ge 45 ] && break
		sleep 0.5
	done
	"$L7TB_DIR/apache" stop s2
	stopped=$(date +%s.%N)
	wait $pid
	cat "$TMP/out7"
	client_note "$TMP/out7"
	grep -q '^requests 300 ' "$TMP/out7" || return 1
	summary=$(awk -v t="$stopped" '
		$6 != "ok" { fails++ }
		# in flight: started before the stop completed (+2 s emulated slack)
		$6 != "ok" && $3 > t + 2 { late++; print "failed after the stop: " $0 }
		$5 == "s2" && $3 > t { s2++; print "s2 answered after the stop: " $0 }
		$3 > t && $6 == "ok" { after++ }
		$3 <= t && $5 == "s2" { before++ }
		END {
			printf "%d failed, %d served by s2 before the stop, %d ok after it\n",
				fails, before, after
			exit !(before > 0 && fails <= 5 && late == 0 && s2 == 0 && after > 0)
		}' "$TMP/ka7")
	rc=$?
	echo "$summary"
	note "$(echo "$summary" | tail -n 1)"
	[ $rc -eq 0 ] || return 1
	# its pool drains: no idle connection, marked down
	wait_for s2_drained || { in_dir cat /proc/net/ip_vs_l7; return 1; }
	note "s2 stopped: $(in_dir cat /proc/net/ip_vs_l7 | grep 192.0.2.12)"
	# new client connections meanwhile: all answered, none by s2
	: > "$TMP/served7"
	for n in $(seq 1 6); do
		fetch "http://$L7TB_VIP/index.html" /dev/null >> "$TMP/served7" ||
			{ echo "new connection $n failed while s2 was down"; return 1; }
	done
	! grep -qx s2 "$TMP/served7" || { echo "s2 served while stopped"; return 1; }
	"$L7TB_DIR/apache" start s2 || return 1
	wait_pools || return 1
	client kaloop --conns 3 --requests 15 --path "$BURN" > "$TMP/out7b" 2>&1
	rc=$?
	cat "$TMP/out7b"
	client_note "$TMP/out7b"
	grep -q '^backend s2 [1-9]' "$TMP/out7b" || { echo "s2 not used again"; return 1; }
	return $rc
}

s2_drained() {
	[ "$(pool_col s2 Idle) $(pool_col s2 State)" = "0 down" ]
}

# ---- 6. even spread of a CGI workload ----
# httperf_cv SCHED: 8 keep-alive connections x 50 burn calls; prints the
# per-backend counts from the access logs and their coefficient of variation
httperf_cv() {
	local sched=$1 counts
	clear_logs
	# --rate 8: the eight connections open within a second and run together
	in_cli httperf --hog --server "$L7TB_VIP" --uri "$BURN" --rate 8 \
		--num-conns 8 --num-calls 50 --timeout 60 > "$TMP/hp_$sched" 2>&1
	if ! grep -q '^Errors: total 0 ' "$TMP/hp_$sched" ||
	   ! grep -q '^Total: connections 8 requests 400 replies 400' "$TMP/hp_$sched"; then
		grep -E '^(Total|Errors)' "$TMP/hp_$sched"
		return 1
	fi
	counts=$(backend_counts "GET $BURN")
	# shellcheck disable=SC2086 # one number per word
	echo "-s $sched: requests per backend $counts, CV $(cv $counts)"
}

cgi_spread() {
	local line_l7 line_rr counts
	wait_pools || return 1
	line_l7=$(httperf_cv l7) || { echo "$line_l7"; return 1; }
	# the same under plain IPVS round robin (per connection), for contrast
	in_dir ipvsadm -E -t "$VS" -s rr || return 1
	line_rr=$(httperf_cv rr) || { echo "$line_rr"; return 1; }
	note "$line_l7" "$line_rr"
	# Not the CV: a load-aware policy rightly sends more to a backend
	# the guest's scheduler happens to favour (140 136 124, CV 0.051,
	# on a loaded host).  Per connection, 8 over 3 leave one backend a
	# quarter short of the mean, however the CPUs are shared.
	counts=${line_l7#*backend }
	# shellcheck disable=SC2086 # one number per word
	within_mean 15 ${counts%,*} ||
		{ echo "a backend more than 15% off the mean under l7"; return 1; }
}

# check NAME FUNC: t_check, with the test's duration as a note
check() {
	local t0=$SECONDS
	t_check "$@"
	note "($((SECONDS - t0)) s)"
}

wait_pools
check "rebind: 30 CGI requests on one curl connection reach all 3 backends" curl_30_one_connection
check "rebind: 200 mixed requests on one connection, every answer exact" keepalive_mix
check "rebind: 10 pipelined requests answered in order, by >1 backend" pipelined
check "rebind: 100 x 100 KB on one connection over 3% loss, byte-exact" lossy_100k
check "rebind: MaxKeepAliveRequests 5, KeepAliveTimeout 1: 1000 requests, 0 errors" short_keepalive
check "rebind: 1000 requests on 10 connections reuse pooled connections (>= 5x)" pool_reuse
check "rebind: a backend stopped mid-run costs only requests in flight; back, used again" stopped_mid_run
# whatever became of the test, s2 runs again for the next one
"$L7TB_DIR/apache" start s2 >/dev/null 2>&1
in_dir cat /proc/net/ip_vs_l7
check "rebind: httperf 8 x 50 CGI calls: every backend within 15% of the mean under l7 (rr for contrast)" cgi_spread

testbed_down
rm -rf "$TMP"
t_summary
