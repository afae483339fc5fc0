#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bounded resources (ip_vs_l7 datapath=1): what clients that connect and
# stall, or only acknowledge, can hold on the director - memory, table
# entries, time - and the caps on connections per source and in all.
# Runs inside the guest.  Client: testbed/clients/slowheads.py.
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
TMP=$(mktemp -d)
CLIENT2=198.51.100.11		# a second client address, added below
PARAMS=/sys/module/ip_vs_l7/parameters
HEAD_TIMEOUT=3
SLOW=3000

modprobe ip_vs_l7 datapath=1 head_timeout=$HEAD_TIMEOUT
testbed_up
add_service "$VS" l7 1 1 1
ip -n l7cli addr add "$CLIENT2/24" dev eth0
wait_for pools_ready >/dev/null

# note TEXT: shown under the test's line whether it passes or not
exec 3>&1
note() { printf '     %s\n' "$@" >&3; }

param() { echo "$2" > "$PARAMS/$1"; }

# objects in use in a slab cache (with SLUB merging, the cache it is in)
slab_objects() { cut -d' ' -f1 "/sys/kernel/slab/$1/objects"; }

# slowheads ARGS...: testbed/clients/slowheads.py in the client namespace
slowheads() {
	in_cli "$PY" "$L7TB_DIR/clients/slowheads.py" "$L7TB_VIP" "$@"
}

# wait_line FILE PATTERN SECONDS: until FILE has a line matching PATTERN
wait_line() {
	local i
	for i in $(seq 1 $((5 * $3))); do
		grep -q "$2" "$1" && return 0
		sleep 0.2
	done
	echo "no '$2' after $3 s:"; cat "$1"
	return 1
}

get_ok() {
	in_cli curl -sS --fail --max-time 30 -o /dev/null "$@" \
		"http://$L7TB_VIP/static/1k.bin"
}

# (a) 3,000 clients send a few bytes of a head and stall.  While they are
# open: one connection each in /proc and in the connection cache, no
# 8 KB head buffer each, and a normal request is served.  After
# head_timeout every one has its 408 and everything is back to baseline.
slow_heads() {
	local base_c base_8k c k8 n rc=0 pid start
	param max_conns_per_source 0
	param head_timeout 60	# the 3,000 connects take a while emulated
	sleep 1
	base_c=$(slab_objects ip_vs_l7_conn)
	base_8k=$(slab_objects kmalloc-8k)
	start=$SECONDS
	slowheads "$SLOW" --hold 200 > "$TMP/slow" 2>&1 &
	pid=$!
	wait_line "$TMP/slow" '^open' 150 || { kill $pid; return 1; }
	note "$(head -n 1 "$TMP/slow") after $((SECONDS - start)) s"
	n=$(svc_col active)
	c=$(slab_objects ip_vs_l7_conn)
	k8=$(slab_objects kmalloc-8k)
	note "open: active $n, ip_vs_l7_conn objects $base_c -> $c, kmalloc-8k $base_8k -> $k8"
	[ "$n" = "$SLOW" ] || { echo "active $n, want $SLOW"; rc=1; }
	[ $((c - base_c)) -ge $((SLOW * 95 / 100)) ] ||
		{ echo "ip_vs_l7_conn grew by $((c - base_c)) only"; rc=1; }
	[ $((k8 - base_8k)) -lt $((SLOW / 10)) ] ||
		{ echo "kmalloc-8k grew by $((k8 - base_8k)): a full head buffer each"; rc=1; }
	get_ok || { echo "a normal request failed meanwhile"; rc=1; }
	wait_line "$TMP/slow" '^done' 150 || { kill $pid; return 1; }
	wait $pid
	note "$(tail -n 1 "$TMP/slow") after $((SECONDS - start)) s"
	grep -q "^done answered 408:$SLOW reset 0 eof 0 open 0" "$TMP/slow" ||
		{ echo "want 408 for all"; rc=1; }
	wait_eq 0 svc_col active || { echo "active $(svc_col active)"; rc=1; }
	sleep 2		# RCU frees the last ones
	c=$(slab_objects ip_vs_l7_conn)
	note "after: ip_vs_l7_conn objects $c"
	[ $((c - base_c)) -lt $((SLOW / 10)) ] ||
		{ echo "ip_vs_l7_conn $c, was $base_c"; rc=1; }
	param head_timeout $HEAD_TIMEOUT
	param max_conns_per_source 256
	return $rc
}

# head_budget_round: 40 clients each send 600 bytes of a head and stall;
# prints how many of those heads the director took (acknowledged), then
# closes them all and waits until they are freed
head_budget_round() {
	local pad pid taken
	pad=$(printf '%*s' 560 '' | tr ' ' x)
	slowheads 40 --head "GET /static/1k.bin HTTP/1.1"$'\r\n'"X-Pad: $pad" \
		--hold 100 > "$TMP/hb" 2>&1 &
	pid=$!
	wait_line "$TMP/hb" '^open' 60 >&2 || { kill $pid; return 1; }
	sleep 1		# acknowledged by now, or refused and resent
	taken=$(in_cli ss -Htn state established "( dport = :80 )" |
		awk '$2 == 0 { n++ } END { print n + 0 }')
	slowheads_end $pid >&2 || return 1
	sleep 2		# RCU frees the last ones
	echo "$taken"
}

# (i) head_mem_max=16 (KB): of 40 clients that each send 600 bytes of a
# head (a 1 KB buffer each) and stall, exactly 16 have their heads
# taken; the others' bytes are not acknowledged - they stay with the
# clients, which send them again - and head_mem_full counts each
# refusal.  Once they are gone the budget is whole again: 40 more get
# 16 exactly.  Then a normal request is served.
head_budget() {
	local full0 first second rc=0
	param head_timeout 20	# frees what a closed client left unsent
	param head_mem_max 16
	full0=$(svc_col head_mem_full)
	first=$(head_budget_round) || rc=1
	second=$(head_budget_round) || rc=1
	note "heads taken: $first, then $second; head_mem_full $full0 -> $(svc_col head_mem_full)"
	[ "$first" = 16 ] && [ "$second" = 16 ] || { echo "want 16 both times"; rc=1; }
	[ "$(svc_col head_mem_full)" -gt "$full0" ] || rc=1
	param head_mem_max 65536
	param head_timeout $HEAD_TIMEOUT
	get_ok || { echo "a normal request failed after"; rc=1; }
	return $rc
}

# refused_one OUT N COUNTER BEFORE: slowheads.py said (in OUT) that N
# connections opened and one of them was reset, and the service's
# COUNTER went up by one from BEFORE
refused_one() {
	local rc=0
	grep -q "^open $2 reset 1\$" "$1" || { echo "want one reset"; rc=1; }
	[ "$(svc_col "$3")" = $(($4 + 1)) ] ||
		{ echo "$3 $(svc_col "$3")"; rc=1; }
	return $rc
}

# slowheads_end PID: stop a slowheads.py run (PID is the shell that runs
# it: its child first); all its connections go
slowheads_end() {
	pkill -P "$1"
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	wait_eq 0 svc_col active || { echo "active $(svc_col active)"; return 1; }
}

# (b) max_conns_per_source=50: the 51st connection from one address is
# reset and counted, the other address is still served, and so is the
# first again once it has fewer.
per_source_cap() {
	local before pid rc=0
	param max_conns_per_source 50
	param head_timeout 30
	before=$(svc_col refused_source)
	slowheads 51 --hold 60 > "$TMP/cap" 2>&1 &
	pid=$!
	wait_line "$TMP/cap" '^open' 60 || { kill $pid; return 1; }
	note "$(head -n 1 "$TMP/cap"), refused_source $before -> $(svc_col refused_source)"
	refused_one "$TMP/cap" 51 refused_source "$before" || rc=1
	[ "$(svc_col active)" = 50 ] || { echo "active $(svc_col active)"; rc=1; }
	get_ok --interface "$CLIENT2" ||
		{ echo "$CLIENT2 refused too"; rc=1; }
	! get_ok 2>/dev/null || { echo "a 52nd from $L7TB_CLIENT served"; rc=1; }
	slowheads_end $pid || rc=1
	get_ok || { echo "$L7TB_CLIENT not served after"; rc=1; }
	param max_conns_per_source 256
	param head_timeout $HEAD_TIMEOUT
	return $rc
}

# max_conns=10 over two addresses: the 11th is reset and counted.
global_cap() {
	local before pid rc=0
	param max_conns 10
	param head_timeout 30
	before=$(svc_col refused_max)
	slowheads 6 --hold 60 > "$TMP/g1" 2>&1 &
	pid=$!
	wait_line "$TMP/g1" '^open' 30 || { kill $pid; return 1; }
	slowheads 5 --source "$CLIENT2" --then-close > "$TMP/g2" 2>&1
	note "$(cat "$TMP/g2") from $CLIENT2, refused_max $before -> $(svc_col refused_max)"
	refused_one "$TMP/g2" 5 refused_max "$before" || rc=1
	slowheads_end $pid || rc=1
	param max_conns 65536
	param head_timeout $HEAD_TIMEOUT
	return $rc
}

# (c) A client that sends part of a head, then only acknowledges (TCP
# keepalive probes every second, which also acknowledge the director's
# 408 and FIN) is gone head_timeout + max(head_timeout, 10 s) later
# (5 s of slack), while it is still probing.
# Before, every probe re-armed the timer.
pure_acks_closed() {
	local pid start limit=$((HEAD_TIMEOUT + 10 + 5))
	slowheads 1 --keepalive --keep-open --hold $((limit + 10)) \
		> "$TMP/ka" 2>&1 &
	pid=$!
	wait_line "$TMP/ka" '^open 1 reset 0' 20 || { kill $pid; return 1; }
	start=$SECONDS		# python starts slowly under emulation
	[ "$(svc_col active)" = 1 ] || { echo "not connected"; kill $pid; return 1; }
	while [ "$(svc_col active)" != 0 ]; do
		if [ $((SECONDS - start)) -gt $limit ]; then
			echo "still active after $((SECONDS - start)) s"
			kill $pid
			return 1
		fi
		sleep 1
	done
	note "gone after $((SECONDS - start)) s"
	kill -0 $pid 2>/dev/null || { echo "the client stopped probing early"; cat "$TMP/ka"; return 1; }
	kill $pid
	wait $pid 2>/dev/null
	return 0
}

# at_least N CMD...: CMD prints a number >= N
at_least() { [ "$("${@:2}")" -ge "$1" ]; }

# pooled connections busy now, all servers together
busy_total() {
	l7_table | l7_awk '$1 == "->" { n += rv("Busy") } END { print n + 0 }'
}

# slowpeer ARGS...: testbed/clients/slowpeer.py in the client namespace
slowpeer() {
	in_cli "$PY" "$L7TB_DIR/clients/slowpeer.py" "$L7TB_VIP" "$@"
}

# apache_timeout S: the backends' Apache again, with Timeout S
apache_timeout() {
	"$L7TB_DIR/apache" stop
	"$L7TB_DIR/apache" start --timeout "$1"
	wait_for pools_ready >/dev/null
}

# A request whose body never comes holds a pooled connection until its
# server gives up on it (Timeout 3: 408, then close).  From then on the
# server reads no more of it: the client is closed after the 408 and the
# pooled connection goes at once - not at idle_timeout, as before.  The
# director's own body floor is off here; a second address is served
# meanwhile.
server_close_releases() {
	local pid n busy rc=0
	apache_timeout 3
	param body_timeout 0
	slowpeer bodywait 12 > "$TMP/bw" 2>&1 &
	pid=$!
	wait_for at_least 6 busy_total || rc=1
	busy=$(busy_total)
	get_ok --interface "$CLIENT2" || { echo "$CLIENT2 not served"; rc=1; }
	for n in $(seq 1 60); do
		[ "$(busy_total)" = 0 ] && break
		sleep 0.5
	done
	wait $pid
	note "busy $busy, then $(busy_total) after $((n / 2)) s; $(cat "$TMP/bw")"
	[ "$(busy_total)" = 0 ] || rc=1
	grep -q 'closed 12$' "$TMP/bw" || rc=1
	param body_timeout 10
	apache_timeout 60
	return $rc
}

# A request body below body_minrate for body_timeout: the director
# answers 408 itself, the pooled connection goes, and it is counted; a
# body at full speed (curl) is echoed whole.  (Apache's own Timeout never fires
# on a trickle: each byte restarts it.)
body_floor() {
	local out slow rc=0
	param body_timeout 2
	slow=$(svc_col slow_request)
	out=$(slowpeer body 50 1000)
	note "50 B/s under a 500 B/s floor: $out; slow_request $slow -> $(svc_col slow_request)"
	case $out in "status 408 after "*) ;; *) rc=1 ;; esac
	[ "$(svc_col slow_request)" = $((slow + 1)) ] || rc=1
	wait_eq 0 busy_total || { echo "busy $(busy_total)"; rc=1; }
	head -c 200000 /dev/urandom > "$TMP/body"
	in_cli curl -sS --fail --max-time 60 --data-binary @"$TMP/body" \
		-o "$TMP/echo" "http://$L7TB_VIP/cgi-bin/echo" || rc=1
	note "200 KB at full speed: $(cmp "$TMP/body" "$TMP/echo" 2>&1 && echo echoed)"
	cmp -s "$TMP/body" "$TMP/echo" || rc=1
	param body_timeout 10
	return $rc
}

# A reader below read_minrate is reset after ack_timeout behind it, even
# though it acknowledges something every second or two (its window
# opens by a segment at a time); before, any ACK of new bytes reset the
# clock.  A fast reader reads the whole file.
read_floor() {
	local out slow rc=0
	param ack_timeout 5
	param read_minrate 5000
	slow=$(svc_col slow_reader)
	out=$(slowpeer read 1000 30)
	note "1,000 B/s under a 5,000 B/s floor: $out; slow_reader $slow -> $(svc_col slow_reader)"
	case $out in "reset after "*) ;; *) rc=1 ;; esac
	[ "$(svc_col slow_reader)" = $((slow + 1)) ] || rc=1
	wait_eq 0 busy_total || { echo "busy $(busy_total)"; rc=1; }
	out=$(slowpeer read 5000000 60 0)
	note "a fast reader: $out"
	[ "$out" = "read whole 105c57598908f793" ] || rc=1
	param ack_timeout 30
	param read_minrate 500
	return $rc
}

# capped OK N: N requests from one address, each a CGI that sleeps 5 s,
# started 0.3 s apart: OK of them are served, the rest get the
# director's 503 (counted in source_capped); a request from another
# address is served meanwhile.
capped() {
	local ok=$1 n=$2 i before rc=0
	rm -f "$TMP"/cap[0-9]*
	before=$(svc_col source_capped)
	for i in $(seq 1 "$n"); do
		in_cli curl -sS --max-time 30 -o /dev/null -w '%{http_code}\n' \
			"http://$L7TB_VIP/cgi-bin/sleep?ms=5000&id=$i" \
			> "$TMP/cap$i" 2>&1 &
		sleep 0.3
	done
	wait_for at_least "$ok" busy_total || rc=1
	get_ok --interface "$CLIENT2" || { echo "$CLIENT2 not served"; rc=1; }
	wait
	note "statuses $(sort "$TMP"/cap[0-9]* | uniq -c | xargs); source_capped $before -> $(svc_col source_capped)"
	[ "$(cat "$TMP"/cap[0-9]* | grep -c '^200$')" = "$ok" ] || rc=1
	[ "$(cat "$TMP"/cap[0-9]* | grep -c '^503$')" = $((n - ok)) ] || rc=1
	[ "$(svc_col source_capped)" = $((before + n - ok)) ] || rc=1
	return $rc
}

# source_max_pooled=2: a third and fourth request from one address while
# two are under way get 503 from the director (counted), a request from
# another address is served meanwhile.
source_pooled_cap() {
	local old rc=0
	old=$(cat "$PARAMS/source_max_pooled")
	param source_max_pooled 2 || return 1
	capped 2 4 || rc=1
	param source_max_pooled "$old"
	return $rc
}

# Without source_max_pooled set, one address still may not hold the
# pools: the default (-1) caps it at pool_max / 8, at least
# client_max_pooled (4), as they are when a request binds.  With
# pool_max=40 that is 5: of 7 requests under way at once, 2 get 503.
source_pooled_default() {
	local rc=0
	note "source_max_pooled $(cat "$PARAMS/source_max_pooled") by default"
	[ "$(cat "$PARAMS/source_max_pooled")" = -1 ] || rc=1
	param pool_max 40 || return 1
	capped 5 7 || rc=1
	param pool_max 256
	return $rc
}

t_check "bounds: a server that answers and closes before the body releases its pooled connection at once" server_close_releases
t_check "bounds: a request body below body_minrate is answered 408 by the director" body_floor
t_check "bounds: a reader below read_minrate is reset, a fast one reads all" read_floor
t_check "bounds: source_max_pooled=2: more requests from one address get 503, another address served" source_pooled_cap
t_check "bounds: source_max_pooled by default: one address holds at most pool_max / 8, more get 503" source_pooled_default
t_check "bounds: max_conns_per_source=50: the 51st from one address is reset and counted, another address served" per_source_cap
t_check "bounds: max_conns=10: the 11th is reset and counted" global_cap
t_check "bounds: a client that only acknowledges is closed by the CLOSING deadline" pure_acks_closed
t_check "bounds: head_mem_max=16 KB: 16 of 40 stalled 600-byte heads taken, the rest resent by their clients, the budget whole again after" head_budget
t_check "bounds: $SLOW slow heads: one conn object each, no 8 KB buffer each, a request served, all freed after head_timeout" slow_heads

ip -n l7cli addr del "$CLIENT2/24" dev eth0 2>/dev/null
rm -rf "$TMP"
testbed_down
t_summary
