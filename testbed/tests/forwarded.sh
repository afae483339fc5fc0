#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What the backend sees (ip_vs_l7 forwarded=..., core/head_copy.c): the
# director's copy of each request head names the client in
# X-Forwarded-For (after the client's own, or instead of them) or in
# Forwarded, on every request of a keep-alive connection whichever backend
# serves it; the copy never asks the server to close, so a client's
# "Connection: close" or an HTTP/1.0 request no longer retires a pooled
# connection.  Backends log the client address mod_remoteip finds (%a)
# and the forwarding fields as they arrived.  Each l7 service may choose
# its own header through the IPVS_L7 family (IPVS_L7_CMD_SET_OPTIONS);
# services without one follow the parameter.  It holds under 3% loss with
# pipelined requests moving between backends, for HTTP/1.0 keep-alive
# clients (ab -k), and a client that keeps its connection never has to
# reconnect however often the servers close theirs.  Runs inside the guest.
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
CLIENT=198.51.100.10	# l7cli's address (testbed/topology)
DIRECTOR=192.0.2.1	# the director's address towards the backends
PARAM=/sys/module/ip_vs_l7/parameters/forwarded
NL="$PY $L7TB_DIR/clients/l7nl.py"

# pool_idle_ttl=0: idle pooled connections are not replaced while the
# keep-alive tests count the ones opened
modprobe ip_vs_l7 datapath=1 pool_idle_ttl=0
testbed_up
add_service "$VS" l7 1 1 1

exec 3>&1
note() { printf '     %s\n' "$@" >&3; }


# logged PATTERN FIELD: field FIELD (10 %a, 11 X-Forwarded-For, 12
# Forwarded) of every backend's access-log line matching PATTERN
logged() {
	grep -h -- "$1" "$L7TB_RUN"/s[123]/access.log |
		awk -v n="$2" '{ v = $n; gsub(/"/, "", v); print v }'
}

# backends_with PATTERN: how many backends logged a line matching it
backends_with() {
	grep -l -- "$1" "$L7TB_RUN"/s[123]/access.log | wc -l
}

# requests N TAG [curl options]: N requests on one keep-alive connection
requests() {
	local n=$1 tag=$2
	shift 2
	in_cli curl -sS --fail --max-time 120 "$@" -o /dev/null \
		"http://$L7TB_VIP/cgi-bin/status?$tag=[1-$n]"
}

# every PATTERN FIELD WANT N: N lines match, each with FIELD == WANT
every() {
	local got bad
	got=$(logged "$1" "$2" | wc -l)
	bad=$(logged "$1" "$2" | grep -cvx -- "$4")
	[ "$got" = "$3" ] && [ "$bad" = 0 ] ||
		{ echo "$got lines (want $3), $bad without '$4':"; logged "$1" "$2" | sort | uniq -c; return 1; }
}

xff_every_request() {
	echo x-forwarded-for > "$PARAM" && clear_logs &&
	requests 30 xa || return 1
	note "backends that served: $(backends_with 'xa=')"
	every 'xa=' 10 30 "$CLIENT" && [ "$(backends_with 'xa=')" -ge 2 ]
}

xff_after_the_clients() {
	echo x-forwarded-for > "$PARAM" && clear_logs &&
	requests 12 xb -H 'X-Forwarded-For: 203.0.113.66' || return 1
	# mod_remoteip took ours, the last: the client's is left
	every 'xb=' 10 12 "$CLIENT" && every 'xb=' 11 12 203.0.113.66
}

xff_replaces_the_clients() {
	echo x-forwarded-for-replace > "$PARAM" && clear_logs &&
	requests 12 xc -H 'X-Forwarded-For: 203.0.113.66' || return 1
	every 'xc=' 10 12 "$CLIENT" && every 'xc=' 11 12 -
}

forwarded_rfc7239() {
	echo forwarded > "$PARAM" && clear_logs &&
	requests 12 xd || return 1
	every 'xd=' 12 12 "for=$CLIENT" && every 'xd=' 10 12 "$DIRECTOR"
}

# the baseline: with forwarded=off the backends see the director
off_shows_the_director() {
	echo off > "$PARAM" && clear_logs &&
	requests 12 xe || return 1
	every 'xe=' 10 12 "$DIRECTOR" && every 'xe=' 11 12 -
}

# on PORT [TAG N]: N requests (default 6) on one keep-alive connection to
# the VIP's PORT, each with the client's own X-Forwarded-For
CLIENT_XFF=203.0.113.66
on() {
	in_cli curl -sS --fail --max-time 120 -H "X-Forwarded-For: $CLIENT_XFF" \
		-o /dev/null "http://$L7TB_VIP:$1/cgi-bin/status?$2=[1-${3:-6}]"
}

# the header each port's requests arrived with, by the service's option;
# port 80 has none and follows the parameter.  mod_remoteip takes the
# last X-Forwarded-For address (%a, field 10) and logs what is left.
per_service_modes_checked() {
	local tag=$1 param_mode=$2
	case $param_mode in
	x-forwarded-for) every "${tag}80=" 10 6 "$CLIENT" &&
		every "${tag}80=" 11 6 "$CLIENT_XFF" || { echo "port 80 (parameter $param_mode)"; return 1; } ;;
	off) every "${tag}80=" 10 6 "$CLIENT_XFF" && every "${tag}80=" 12 6 - ||
		{ echo "port 80 (parameter $param_mode)"; return 1; } ;;
	esac
	every "${tag}8081=" 10 6 "$CLIENT_XFF" && every "${tag}8081=" 12 6 - ||
		{ echo "port 8081 (off)"; return 1; }
	every "${tag}8082=" 10 6 "$CLIENT" && every "${tag}8082=" 11 6 - ||
		{ echo "port 8082 (xff-replace)"; return 1; }
	every "${tag}8083=" 12 6 "for=$CLIENT" ||
		{ echo "port 8083 (forwarded)"; return 1; }
}

# all four services at once, the same client, each its own header
per_service_round() {
	local tag=$1 p pids=() rc=0
	clear_logs
	for p in 80 8081 8082 8083; do
		on "$p" "$tag$p" & pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	[ $rc = 0 ] || { echo "a request failed"; return 1; }
	per_service_modes_checked "$tag" "$2"
}

per_service_forwarded() {
	local p mode
	echo x-forwarded-for > "$PARAM" || return 1
	for p in 8081:off 8082:xff-replace 8083:forwarded; do
		mode=${p#*:} p=${p%:*}
		add_service "$L7TB_VIP:$p" l7 1 1 1 &&
			in_dir $NL set-forwarded "$L7TB_VIP:$p" "$mode" || return 1
		[ "$(in_dir $NL options "$L7TB_VIP:$p")" = "forwarded $mode" ] ||
			{ in_dir $NL options "$L7TB_VIP:$p"; return 1; }
	done
	[ "$(in_dir $NL options "$VS")" = "forwarded default" ] || return 1
	per_service_round pa x-forwarded-for || return 1
	# the parameter moves the services without an option only
	echo off > "$PARAM" && per_service_round pb off || return 1
	# keepalived deletes and re-adds services: the option stays
	in_dir ipvsadm -D -t "$L7TB_VIP:8083" &&
		add_service "$L7TB_VIP:8083" l7 1 1 1 || return 1
	per_service_round pc off || return 1
	# back to the default: the parameter again
	in_dir $NL set-forwarded "$L7TB_VIP:8082" default && clear_logs &&
		on 8082 pd || return 1
	every "pd=" 10 6 "$CLIENT_XFF" && every "pd=" 12 6 -
}

per_service_cleanup() {
	local p
	for p in 8081 8082 8083; do in_dir ipvsadm -D -t "$L7TB_VIP:$p"; done
	in_dir $NL flush
}

# copies at, just under and just over one and two segments, with bodies
copy_sizes() {
	local out
	echo x-forwarded-for > "$PARAM" || return 1
	out=$(in_cli "$PY" "$L7TB_DIR/clients/copy_sizes.py" "$L7TB_VIP" \
		--client "$CLIENT" 1447 1448 1449 1459 1460 1461 2895 2896 \
		2897 2920 2921 4000 300) || { echo "$out"; return 1; }
	note "served by: $out"
}

post_bodies_exact() {
	local i f=/tmp/l7tb-post.bin args=()
	echo x-forwarded-for > "$PARAM" || return 1
	head -c 70000 /dev/urandom > "$f"
	for i in 1 2 3 4 5 6; do
		[ "$i" -gt 1 ] && args+=(--next)
		args+=(-sS --fail --data-binary "@$f" -o "/tmp/l7tb-echo.$i"
		       "http://$L7TB_VIP/cgi-bin/echo")
	done
	in_cli curl --max-time 120 "${args[@]}" || return 1
	for i in 1 2 3 4 5 6; do
		cmp -s "$f" "/tmp/l7tb-echo.$i" || { echo "echo $i differs"; return 1; }
	done
}

# xff_log TAG: "KEY %a X-Forwarded-For" for every request of the
# xff_pipeline.py run TAG that a backend logged (KEY is TAG-I-x or TAG-I-n)
xff_log() {
	cat "$L7TB_RUN"/s[123]/access.log | awk -v t="xl=$1-" '{
		k = $5; i = index(k, t); if (!i) next
		k = substr(k, i + 3); sub(/[&].*/, "", k)
		a = $10; x = $11; gsub(/"/, "", x); print k, a, x }'
}

# xff_log_checked TAG N: every one of the N requests logged exactly once,
# by the client's address, with the client's own X-Forwarded-For left
# where it sent one (mod_remoteip took ours, the last) and none else
xff_log_checked() {
	local tag=$1 n=$2 got bad
	wait_eq "$n" eval 'xff_log "$tag" | wc -l' >/dev/null
	got=$(xff_log "$tag" | awk '{ print $1 }' | sort -u | wc -l)
	bad=$(xff_log "$tag" | awk -v c="$CLIENT" -v x="$CLIENT_XFF" '
		$2 != c || ($1 ~ /-x$/ && $3 != x) || ($1 ~ /-n$/ && $3 != "-")')
	[ "$(xff_log "$tag" | wc -l)" = "$n" ] && [ "$got" = "$n" ] &&
		[ -z "$bad" ] && return 0
	echo "$(xff_log "$tag" | wc -l) lines, $got requests of $n; wrong:"
	printf '%s\n' "$bad" | head -n 10
	return 1
}

# 60 requests (GETs, POSTs echoed, half with the client's own
# X-Forwarded-For) pipelined on one connection through 3% loss and
# reordering both ways, twice: in order and byte-exact, and each logged
# once with the client's address by whichever backend served it
xff_pipelined_lossy() {
	local r rc=0 out
	echo x-forwarded-for > "$PARAM" && clear_logs || return 1
	in_cli tc qdisc add dev eth0 root netem delay 3ms loss 3% reorder 1% 25%
	in_dir tc qdisc add dev dcli root netem delay 3ms loss 3% reorder 1% 25%
	for r in 1 2; do
		out=$(in_cli "$PY" "$L7TB_DIR/clients/xff_pipeline.py" "$L7TB_VIP" \
			--tag "p$r" --count 60 --client-xff "$CLIENT_XFF" 2>&1) ||
			{ echo "$out"; rc=1; break; }
		note "round $r: $(echo $out)"
	done
	in_cli tc qdisc del dev eth0 root
	in_dir tc qdisc del dev dcli root
	[ $rc = 0 ] && xff_log_checked p1 60 && xff_log_checked p2 60
}

# ab -k: HTTP/1.0 clients asking for keep-alive, four at once, 300
# requests: none failed, every one kept alive, the client opened as many
# connections as it runs at once, the backends shared the requests and
# logged the client's address
AB_N=300
AB_C=4
client_opens() {
	in_cli awk '$1 == "Tcp:" && $2 ~ /^[0-9]/ { print $6 }' /proc/net/snmp
}
# ab_keepalive [TAG]: TAG (default k) marks the run's requests
ab_keepalive() {
	local tag=ab=${1:-k} out before opens failed kept b n spread=0 shares=
	echo x-forwarded-for > "$PARAM" && clear_logs || return 1
	before=$(client_opens)
	out=$(in_cli ab -k -n $AB_N -c $AB_C -s 60 \
		"http://$L7TB_VIP/static/1k.bin?$tag" 2>&1) || { echo "$out"; return 1; }
	opens=$(($(client_opens) - before))
	wait_eq $AB_N eval 'cat "$L7TB_RUN"/s[123]/access.log | grep -c -- "$tag"' >/dev/null
	failed=$(echo "$out" | awk '/^Failed requests:/ { print $3 }')
	kept=$(echo "$out" | awk '/^Keep-Alive requests:/ { print $3 }')
	for b in $L7TB_BACKENDS; do
		n=$(grep -c -- "$tag" "$L7TB_RUN/$b/access.log")
		[ "$n" -gt 0 ] && spread=$((spread + 1))
		shares="$shares $b $n"
	done
	note "ab -k -n $AB_N -c $AB_C ($tag): failed $failed, keep-alive $kept, client connections $opens, per backend:$shares"
	[ "$failed" = 0 ] && [ "$kept" = $AB_N ] && [ "$opens" = $AB_C ] &&
		[ "$spread" = 3 ] || { echo "$out" | tail -n 25; return 1; }
	every "$tag" 10 $AB_N "$CLIENT"
}

# reused: requests so far that reused a pooled connection which had
# served before, all backends (pooled connections the server closed for
# idling, Apache's Timeout, are replaced whatever the test does)
reused() {
	local b n=0
	for b in $L7TB_BACKENDS; do n=$((n + $(pool_col "$b" Reused))); done
	echo "$n"
}

# 20 requests of the kind given, each on its own client connection that
# the client closes after it: how many reused a pooled connection
closing_clients() {
	local before i
	wait_for pools_ready >/dev/null || return 1
	before=$(reused)
	for i in $(seq 1 20); do
		in_cli curl -sS --fail --max-time 60 "$@" -o /dev/null \
			"http://$L7TB_VIP/static/1k.bin?xf=$i" || return 1
	done
	echo $(($(reused) - before))
}

# the server kept the pooled connection: the next request reuses it
# (the pool hands out its newest idle connection first).  A copy that
# asked the server to close would retire every one: 0 of 20.  Runs gave
# 11-20 (a request that comes while its backend's last connection is
# still on its way back to the pool takes another): at least 8.
keeps_pooled() {
	local n
	echo off > "$PARAM" || return 1
	n=$(closing_clients "$@") || return 1
	note "requests of 20 that reused a pooled connection: $n"
	[ "$n" -ge 8 ]
}

# connects N: N requests on one curl command line (one connection if the
# client is never told to close): how many connections curl opened
connects() {
	in_cli curl -sS --fail --max-time 120 -o /dev/null -w '%{num_connects}\n' \
		"http://$L7TB_VIP/static/1k.bin?xg=[1-$1]" |
		awk '{ n += $1 } END { print n }'
}

# MaxKeepAliveRequests 5: every fifth response says Connection: close,
# about the pooled connection; the client's goes on
server_close_hidden() {
	local n
	"$L7TB_DIR/apache" stop && "$L7TB_DIR/apache" start --max-keepalive 5 &&
		wait_for pools_ready >/dev/null || return 1
	n=$(connects 60) || return 1
	note "client connections for 60 requests: $n"
	[ "$n" = 1 ]
}

# 1,000 requests over two keep-alive connections with every pooled
# connection closed by its server after five: how often the client had
# to reconnect (each is a response that told it to close)
# pool_opened: pooled connections opened so far, all backends (one for
# each the server closed after a response, with pool_idle_ttl=0)
pool_opened() {
	local b n=0
	for b in $L7TB_BACKENDS; do n=$((n + $(pool_col "$b" Opened))); done
	echo "$n"
}
reconnects_per_1000() {
	local out n before opened
	before=$(pool_opened)
	out=$(in_cli "$PY" "$L7TB_DIR/clients/kaloop.py" "$L7TB_VIP" --conns 2 \
		--requests 500 --path '/static/1k.bin?kr=1' 2>&1) || { echo "$out"; return 1; }
	opened=$(($(pool_opened) - before))
	n=$(echo "$out" | awk '$1 == "requests" { print $8 }')
	note "client reconnects per 1,000 requests: $n ($(echo "$out" | head -n 1)); pooled connections opened meanwhile (the servers closed theirs): $opened"
	# the servers did close (about one in five requests)
	[ "$n" = 0 ] && [ "$opened" -ge 100 ]
}

# HTTP/1.0 keep-alive (curl -0 -H 'Connection: keep-alive'), N 10 KB
# downloads on one command line with every fifth response of the servers
# saying Connection: close: one connection, every body exact, every
# response head the client got says keep-alive and none says close (the
# director's copy of the head: ip_vs_l7_rsp_copy.c)
http10_keepalive_exact() {
	local n=30 i f="$L7TB_RUN/www/static/10k.bin" out conns ka
	rm -f /tmp/l7tb-k10.*
	out=$(in_cli curl -0 -sS --fail --max-time 120 -H 'Connection: keep-alive' \
		-o '/tmp/l7tb-k10.#1' -w '%{num_connects} %header{connection}\n' \
		"http://$L7TB_VIP/static/10k.bin?k10=[1-$n]") || return 1
	for i in $(seq 1 $n); do
		cmp -s "$f" "/tmp/l7tb-k10.$i" || { echo "body $i differs"; return 1; }
	done
	conns=$(echo "$out" | awk '{ n += $1 } END { print n }')
	ka=$(echo "$out" | grep -ci ' keep-alive$')
	note "HTTP/1.0 keep-alive, $n x 10 KB: client connections $conns, responses saying keep-alive $ka, bodies exact"
	[ "$conns" = 1 ] && [ "$ka" = $n ] || { echo "$out" | sort | uniq -c; return 1; }
}

# HTTP/1.0 without keep-alive: the director closes the client's
# connection after the response (the client waits for that), body exact
http10_closes() {
	local out
	out=$(in_cli "$PY" - "$L7TB_VIP" "$L7TB_RUN/www/static/10k.bin" <<'PYEOF'
import socket, sys
want = open(sys.argv[2], 'rb').read()
for i in range(3):
    s = socket.create_connection((sys.argv[1], 80), timeout=10)
    s.sendall(b'GET /static/10k.bin?c10=%d HTTP/1.0\r\nHost: x\r\n\r\n' % i)
    data = b''
    while True:
        b = s.recv(65536)  # a timeout if the director never closes
        if not b:
            break
        data += b
    head, _, body = data.partition(b'\r\n\r\n')
    if body != want:
        sys.exit('request %d: %d body bytes, head %r' % (i, len(body), head))
    s.close()
print('3 closed by the director, bodies exact')
PYEOF
) || { echo "$out"; return 1; }
	note "HTTP/1.0 without keep-alive: $out"
}

# An HTTP/1.1 client that sent Connection: close is closed after the
# response; the server was not asked (its pooled connection goes on) and
# does not say close, so the director's copy of the head does.  curl
# closes by itself; wrk goes by the response alone, and would send its
# next request into the closing connection (a read error each).
http11_close_heard() {
	local n=20 i f="$L7TB_RUN/www/static/10k.bin" out closes wrk
	rm -f /tmp/l7tb-c11.*
	out=$(in_cli curl -sS --fail --max-time 120 -H 'Connection: close' \
		-o '/tmp/l7tb-c11.#1' -w '%{num_connects} %header{connection}\n' \
		"http://$L7TB_VIP/static/10k.bin?c11=[1-$n]") || return 1
	for i in $(seq 1 $n); do
		cmp -s "$f" "/tmp/l7tb-c11.$i" || { echo "body $i differs"; return 1; }
	done
	closes=$(echo "$out" | grep -ci ' close$')
	wrk=$(in_cli wrk -t1 -c4 -d5s --timeout 10s -H 'Connection: close' \
		"http://$L7TB_VIP/static/1k.bin?c11w" 2>&1)
	note "HTTP/1.1 Connection: close, $n x 10 KB: responses saying close $closes; wrk: $(echo "$wrk" | grep -E 'requests in|errors' | tr -s ' \n' ' ')"
	[ "$closes" = $n ] || { echo "$out" | sort | uniq -c; return 1; }
	echo "$wrk" | grep -Eq '^ +[1-9][0-9]* requests in' &&
		! echo "$wrk" | grep -q 'Socket errors' || { echo "$wrk"; return 1; }
}

t_check "forwarded: X-Forwarded-For names the client on every request of a keep-alive connection" xff_every_request
t_check "forwarded: after an X-Forwarded-For the client sent" xff_after_the_clients
t_check "forwarded: x-forwarded-for-replace drops the client's" xff_replaces_the_clients
t_check "forwarded: RFC 7239 Forwarded: for=" forwarded_rfc7239
t_check "forwarded: off, the backend sees the director" off_shows_the_director
t_check "forwarded: per service through IPVS_L7 (off, xff-replace, forwarded on three ports at once; the parameter for the rest; kept over ipvsadm -D/-A)" per_service_forwarded
per_service_cleanup
t_check "forwarded: copies around the MSS with bodies in the same segment, byte-exact" copy_sizes
t_check "forwarded: 70 KB POST bodies byte-exact on one connection" post_bodies_exact
t_check "forwarded: 2 x 60 pipelined requests (POSTs echoed, half with the client's X-Forwarded-For) over 3% loss and reordering: in order, exact, each logged once with the client's address" xff_pipelined_lossy
t_check "forwarded: ab -k (HTTP/1.0 keep-alive), $AB_N requests $AB_C at once: none failed, all kept alive, $AB_C client connections, all backends, the client's address" ab_keepalive
t_check "keep-alive: a client's Connection: close does not retire the pooled connection" keeps_pooled -H 'Connection: close'
t_check "keep-alive: an HTTP/1.0 client does not retire the pooled connection" keeps_pooled -0
t_check "keep-alive: a server's Connection: close does not reach the client (MaxKeepAliveRequests 5)" server_close_hidden
t_check "keep-alive: no client reconnect in 1,000 requests (MaxKeepAliveRequests 5)" reconnects_per_1000
t_check "keep-alive: ab -k (HTTP/1.0 keep-alive) with MaxKeepAliveRequests 5: none failed, all $AB_N kept alive, $AB_C client connections" ab_keepalive k5
t_check "keep-alive: HTTP/1.0 keep-alive, 30 x 10 KB with MaxKeepAliveRequests 5: one connection, every response says keep-alive, bodies exact" http10_keepalive_exact
t_check "keep-alive: HTTP/1.0 without keep-alive: the director closes after the response, body exact" http10_closes
t_check "keep-alive: an HTTP/1.1 client that asked to close hears close (curl: every response says close, bodies exact; wrk -H 'Connection: close': no errors)" http11_close_heard

testbed_down
t_summary
