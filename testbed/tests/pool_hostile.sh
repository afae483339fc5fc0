#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Pools against odd backends, races and teardown: no pools where no data
# path uses them; a backend that accepts and closes at once is backed off,
# not reconnected in a loop; a 101 only for a request that asked for it,
# and tunnels under their own cap; bytes a script writes past its
# Content-Length reach no client; a service switched to l7 keeps serving
# the IPVS connections it had; Apache graceful restarts while requests
# bind; a director namespace deleted under a live service.  Runs inside
# the guest.
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
VS2=$L7TB_VIP:81
CLIENTS=$L7TB_DIR/clients
TMP=$(mktemp -d)

testbed_up

# note LINE...: shown as the test runs (above its result line), pass or fail
exec 3>&1
note() { printf '     %s\n' "$@" >&3; }

# director_conns BACKEND: connections the backend has from the director
director_conns() {
	in_backend "$1" ss -Htn state established '( sport = :80 )' |
		awk -v gw="$L7TB_GW" '$4 ~ "^" gw ":" { n++ } END { print n + 0 }'
}

# fresh [PARAM=VALUE...]: no services, the module loaded anew
fresh() {
	in_dir ipvsadm -C
	if grep -q '^ip_vs_l7 ' /proc/modules; then
		rmmod ip_vs_l7 || return 1
	fi
	modprobe ip_vs_l7 "$@"
}

report() {
	in_dir cat /proc/net/ip_vs_l7
	in_dir ipvsadm -Ln
}

# server CMD...: start a long-running CMD (output to a file: a test's
# output is read until every writer has closed it), killed at the end
server() {
	"$@" >> "$TMP/servers.log" 2>&1 3>&- &
	echo $! >> "$TMP/servers.pid"
}

# at_least N CMD...: CMD prints a number >= N
at_least() {
	local want=$1 got
	shift
	got=$("$@")
	[ -n "$got" ] && [ "$got" -ge "$want" ]
}

no_pools_without_datapath() {
	local b
	fresh datapath=0 || return 1
	add_service "$VS" l7 1 1 1 || return 1
	sleep 3
	for b in $L7TB_BACKENDS; do
		[ "$(director_conns "$b")" = 0 ] ||
			{ echo "$b has $(director_conns "$b") from the director"; report; return 1; }
	done
	! in_dir grep -q '^  -> [0-9]' /proc/net/ip_vs_l7 || { report; return 1; }
}

# fwmark services are only scheduled: no pools for their real servers.
# An IPv6 service is the data path's, and so are its real servers of
# either family: an IPv4 one behind an IPv6 VIP (-i, as IPVS wants for a
# real server of the other family) gets its pool.
no_pools_for_fwmark_pool_for_ipv6() {
	fresh || return 1
	in_dir ipvsadm -A -f 7 -s l7 &&
		in_dir ipvsadm -a -f 7 -r "$(backend_ip s1):80" -m || return 1
	in_dir ipvsadm -A -t '[2001:db8::1]:80' -s l7 &&
		in_dir ipvsadm -a -t '[2001:db8::1]:80' -r "$(backend_ip s2):80" -i ||
		return 1
	sleep 3
	[ "$(director_conns s1)" = 0 ] ||
		{ echo "s1 has $(director_conns s1) from the director"; report; return 1; }
	[ "$(director_conns s2)" -ge 1 ] ||
		{ echo "s2 has no pooled connection from the director"; report; return 1; }
	! in_dir grep -q "^  -> $(backend_ip s1):" /proc/net/ip_vs_l7 &&
		in_dir grep -q "^  -> $(backend_ip s2):" /proc/net/ip_vs_l7 ||
		{ report; return 1; }
}

# A real server that accepts and at once closes every connection: within
# 5 s the pool opens a few connections to it, not hundreds, and shows it
# down.
accept_close_backs_off() {
	local rs=$(backend_ip s3):8081 opened accepted state
	server in_backend s3 python3 "$CLIENTS/odd_backend.py" accept-close \
		"$(backend_ip s3)" 8081 --count "$TMP/accepted"
	sleep 1
	fresh || return 1
	add_service "$VS" l7 1 1 1 || return 1
	wait_for pools_ready || { report; return 1; }
	in_dir ipvsadm -a -t "$VS" -r "$rs" -m -w 1 || return 1
	sleep 5
	opened=$(rs_col "$rs" Opened)
	accepted=$(cat "$TMP/accepted" 2>/dev/null || echo 0)
	state=$(rs_col "$rs" State)
	note "accept-and-close server, in 5 s: pool opened $opened, server accepted $accepted, $state"
	in_dir ipvsadm -d -t "$VS" -r "$rs"
	[ "$opened" -le 15 ] && [ "$accepted" -le 15 ] && [ "$state" = down ] ||
		{ report; return 1; }
}

# ipvsadm -E -s l7 on a live rr service: a keep-alive connection opened
# under rr goes on being served by IPVS, new ones are spliced.
edit_to_l7_keeps_ipvs_conns() {
	local before after out i
	fresh || return 1
	add_service "$VS" rr 1 1 1 || return 1
	in_cli python3 "$CLIENTS/held_conn.py" "$L7TB_VIP" "$TMP/ready" "$TMP/go" \
		> "$TMP/held" 2>&1 &
	wait_for test -e "$TMP/ready" || { cat "$TMP/held"; return 1; }
	in_dir ipvsadm -E -t "$VS" -s l7 || return 1
	wait_for pools_ready || { report; return 1; }
	touch "$TMP/go"
	wait
	out=$(cat "$TMP/held")
	note "held connection: $out"
	case $out in ok\ 6\ *) ;; *) report; return 1 ;; esac
	before=$(svc_col conns)
	for i in 1 2 3; do
		fetch "http://$L7TB_VIP/static/1k.bin" /dev/null >/dev/null || return 1
	done
	after=$(svc_col conns)
	note "spliced connections: $before -> $after"
	[ "$after" -ge $((before + 3)) ] || { report; return 1; }
}

# upgrade_to PATH [options]: what upgrade.py got from VS2
upgrade_to() {
	in_cli python3 "$CLIENTS/upgrade.py" "$L7TB_VIP" 81 "$@"
}

# upgrade_service [MODULE-PARAM...]: VS2 on the odd backend's upgrade mode
upgrade_service() {
	local rs=$(backend_ip s3):8082
	fresh "$@" || return 1
	server in_backend s3 python3 "$CLIENTS/odd_backend.py" upgrade \
		"$(backend_ip s3)" 8082
	sleep 1
	in_dir ipvsadm -A -t "$VS2" -s l7 &&
		in_dir ipvsadm -a -t "$VS2" -r "$rs" -m -w 1 || return 1
	wait_for at_least 1 rs_col "$rs" Idle || { report; return 1; }
}

# 101 to a request that did not ask to upgrade is a bad response
upgrade_only_when_asked() {
	local out bad
	upgrade_service || return 1
	out=$(upgrade_to /plain) && [ "$out" = "status 200" ] ||
		{ echo "plain: $out"; return 1; }
	out=$(upgrade_to /up --ask) && [ "$out" = "tunnel ok" ] ||
		{ echo "asked: $out"; return 1; }
	bad=$(svc_col bad_response "$VS2")
	out=$(upgrade_to /up)
	note "101 to a request that did not ask: $out"
	case $out in reset|closed) ;; *) return 1 ;; esac
	wait_eq $((bad + 1)) svc_col bad_response "$VS2" || { report; return 1; }
}

# An HTTP/1.0 keep-alive client: a head with room gets the director's
# copy (it says keep-alive, the connection goes on); a head at the
# framer's field limit without a Connection field has no room for the
# copy's, so it passes as it came and the director closes after it
copy_without_room() {
	local out
	upgrade_service || return 1
	out=$(in_cli "$PY" - "$L7TB_VIP" <<'PYEOF'
import socket, sys
def ask(s, path):
    s.sendall(b'GET %s HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n\r\n'
              % path)
    data = b''
    while b'\r\n\r\n' not in data or len(data.partition(b'\r\n\r\n')[2]) < 3:
        b = s.recv(4096)
        if not b:
            sys.exit('%s: closed after %r' % (path.decode(), data[-80:]))
        data += b
    head, _, body = data.partition(b'\r\n\r\n')
    return [l.lower() for l in head.split(b'\r\n')[1:]], body
s = socket.create_connection((sys.argv[1], 81), timeout=10)
fields, body = ask(s, b'/plain')
if body != b'ok\n' or b'connection: keep-alive' not in fields:
    sys.exit('/plain: %r %r' % (fields, body))
fields, body = ask(s, b'/fields')
if body != b'ok\n' or len(fields) != 100 or \
        any(f.startswith(b'connection:') for f in fields):
    sys.exit('/fields: %d fields %r' % (len(fields), body))
if s.recv(4096):    # a timeout if the director never closes
    sys.exit('/fields: bytes after the response')
print('/plain: the copy, kept alive; /fields: 100 fields as they came, then closed')
PYEOF
) || { echo "$out"; report; return 1; }
	note "$out"
}

# max_tunnels=1: a second upgrade while one is open is refused
tunnel_cap() {
	local out i rc=0
	# the tunnel of the test before lingers 2 s after both FINs
	wait_eq 0 svc_col tunnels "$VS2" || { report; return 1; }
	echo 1 > /sys/module/ip_vs_l7/parameters/max_tunnels || return 1
	# the first tunnel stays open until the second was tried (a fixed
	# hold ran out first in a loaded guest, where Python takes seconds
	# to start: "tunnels 0" when the second was refused)
	rm -f "$TMP/release"
	upgrade_to /up --ask --hold 120 --until "$TMP/release" > "$TMP/tunnel1" &
	wait_for grep -q 'tunnel ok' "$TMP/tunnel1" || { cat "$TMP/tunnel1"; return 1; }
	out=$(upgrade_to /up --ask)
	note "second tunnel: $out; tunnels $(svc_col tunnels "$VS2") refused $(svc_col tunnels_refused "$VS2")"
	[ "$(svc_col tunnels "$VS2")" = 1 ] &&
		[ "$(svc_col tunnels_refused "$VS2")" = 1 ] || rc=1
	touch "$TMP/release"
	wait
	case $out in reset|closed) ;; *) return 1 ;; esac
	[ $rc = 0 ] || { report; return 1; }
	grep -q released "$TMP/tunnel1" || return 1
	for i in $(seq 1 120); do
		[ "$(svc_col tunnels "$VS2")" = 0 ] && break
		sleep 0.5
	done
	note "tunnel count back to 0 after ${i} x 0.5 s"
	[ "$(svc_col tunnels "$VS2")" = 0 ] || { report; return 1; }
	echo 1024 > /sys/module/ip_vs_l7/parameters/max_tunnels
	out=$(upgrade_to /up --ask) && [ "$out" = "tunnel ok" ] ||
		{ echo "after: $out"; return 1; }
	in_dir ipvsadm -D -t "$VS2"
}

# A tunnel is a connection like the others: the client's ACKs of what
# came through it count, so it lives as long as it is used, far past
# ack_timeout; a RST and a FIN at sequence numbers off its stream change
# nothing; quiet past tunnel_timeout it is reset.
tunnel_lives() {
	local p=/sys/module/ip_vs_l7/parameters out rst idle rc=0
	upgrade_service || return 1
	rst=$(svc_col client_rst "$VS2")
	echo 3 > $p/ack_timeout
	out=$(upgrade_to /up --ask --blind --pings 8 --every 1)
	note "ack_timeout 3, a line every second, a blind RST and FIN: $(echo $out)"
	[ "$out" = "$(printf 'tunnel ok\npings ok 8')" ] || rc=1
	[ "$(svc_col client_rst "$VS2")" = "$rst" ] || rc=1
	idle=$(svc_col idle "$VS2")
	echo 2 > $p/tunnel_timeout
	out=$(upgrade_to /up --ask --pings 1 --every 5)
	note "tunnel_timeout 2, quiet for 5 s: $(echo $out)"
	case $out in *"reset after 0"*|*"closed after 0"*) ;; *) rc=1 ;; esac
	wait_eq $((idle + 1)) svc_col idle "$VS2" || rc=1
	echo 30 > $p/ack_timeout
	echo 3600 > $p/tunnel_timeout
	[ $rc = 0 ] || report
	return $rc
}

# A server that sends a byte on an idle pooled connection before its
# first request: the socket took it, so the numbers read at connect are
# stale, and the byte would be read as the next response's first.  Such
# a connection is reset and retired at its first bind, never bound: the
# request is served by a fresh one, and whole.
unsolicited_byte_retires() {
	local rs=$(backend_ip s3):8083 out opened
	fresh pool_min_idle=2 || return 1
	server in_backend s3 python3 "$CLIENTS/odd_backend.py" chatty \
		"$(backend_ip s3)" 8083
	sleep 1
	in_dir ipvsadm -A -t "$VS2" -s l7 &&
		in_dir ipvsadm -a -t "$VS2" -r "$rs" -m -w 1 || return 1
	wait_for at_least 2 rs_col "$rs" Idle || { report; return 1; }
	sleep 2		# every idle one has its byte now
	opened=$(rs_col "$rs" Opened)
	out=$(in_cli curl -sS --max-time 15 "http://$L7TB_VIP:81/plain" 2>&1)
	note "after the servers' bytes: '$out'; opened $opened -> $(rs_col "$rs" Opened)"
	[ "$out" = ok ] || { report; return 1; }
	[ "$(rs_col "$rs" Opened)" -gt "$opened" ] || { report; return 1; }
	in_dir ipvsadm -D -t "$VS2"
}

# cap_start NS FILE: capture in namespace NS what port 80 sends on eth0.
# Started directly: $! must be tcpdump (ip netns exec execs it), and its
# output must not hold t_check's command substitution open.
cap_start() {
	ip netns exec "$1" tcpdump -Z root -i eth0 -U -s 0 -w "$2" \
		"tcp src port 80" > /dev/null 2> "$2.err" 3>&- &
	echo $! >> "$TMP/caps.pid"
	wait_for -s 30 grep -q 'listening on' "$2.err"
}

caps_stop() {
	[ -f "$TMP/caps.pid" ] && kill $(cat "$TMP/caps.pid") 2>/dev/null
	rm -f "$TMP/caps.pid"
}

# cap_count FILE STRING: captured segments whose payload holds STRING
cap_count() {
	tcpdump -r "$1" -nn -A 2>/dev/null | grep -c -- "$2"
}

# A script that writes past its Content-Length after a flush (nph: Apache
# sends its bytes as they come, then closes): its head and body, and
# later, on the same connection, a whole second response (body
# "OVERRUN-<id>") as if it answered the next request.  The server's one
# pooled connection (pool_max=1) is idle when those bytes come: it is
# retired there, and the keep-alive clients whose requests it would have
# served next are served by a fresh one, each answer byte for byte the
# file.  The captures show that the marker left the server every round,
# and that no client ever read it - not the script's own, which has
# exactly its Content-Length.
overrun_reaches_no_client() {
	local rs=$(backend_ip s1):80 r closed0 n rc=0
	local scap=$TMP/overrun-s1.pcap ccap=$TMP/overrun-cli.pcap
	fresh pool_min_idle=1 pool_max=1 || return 1
	in_dir ipvsadm -A -t "$VS" -s l7 &&
		in_dir ipvsadm -a -t "$VS" -r "$rs" -m -w 1 || return 1
	wait_for at_least 1 rs_col "$rs" Idle || { report; return 1; }
	cap_start l7s1 "$scap" && cap_start l7cli "$ccap" ||
		{ caps_stop; return 1; }
	closed0=$(rs_col "$rs" Closed)
	for r in 1 2 3; do
		rm -f "$L7TB_RUN/go-ov$r"
		in_cli curl -sS --max-time 30 -o "$TMP/overrun.$r" \
			"http://$L7TB_VIP/cgi-bin/nph-overrun?id=ov$r&go=ov$r"
		printf 'overrun id=ov%s\n' $r | cmp - "$TMP/overrun.$r" || rc=1
		wait_eq 0 rs_col "$rs" Busy || { report; rc=1; }
		touch "$L7TB_RUN/go-ov$r"
		wait_for -s 30 at_least 1 cap_count "$scap" "OVERRUN-ov$r" ||
			{ echo "round $r: the server sent no marker"; rc=1; }
		wait_for -s 5 at_least $((closed0 + r)) rs_col "$rs" Closed >/dev/null
		in_cli python3 "$CLIENTS/kaloop.py" "$L7TB_VIP" --conns 4 \
			--requests 10 --path /static/1k.bin --path /static/10k.bin \
			> "$TMP/overrun-ka.$r" 2>&1 || rc=1
		note "round $r: $(head -n 1 "$TMP/overrun-ka.$r")"
		grep '^error' "$TMP/overrun-ka.$r"
	done
	caps_stop
	n=$(cap_count "$ccap" OVERRUN-)
	note "markers the server sent: $(cap_count "$scap" OVERRUN-), a client read: $n;" \
		"connections closed while idle: $closed0 -> $(rs_col "$rs" Closed)"
	[ "$n" = 0 ] || { tcpdump -r "$ccap" -nn -A 2>/dev/null | grep -B 8 OVERRUN- | head -n 30; rc=1; }
	[ "$(rs_col "$rs" Closed)" -ge $((closed0 + 3)) ] || { report; rc=1; }
	rm -f "$L7TB_RUN"/go-ov*
	in_dir ipvsadm -D -t "$VS"
	return $rc
}

# The same script, its second response written once the next request is
# bound: request A's script answers, flushes and waits; request B, from
# another client, comes while A's script still runs.  Apache reads B
# only after A's script is done, but A's server acknowledges B's copy at
# once, so its late bytes, which follow, cannot be told from B's answer.
# The server's one pooled connection (pool_max=1) rests after A's answer
# (pool_reuse_delay), so B waits in the queue instead; A's late bytes come
# while it rests and retire it, and B is served by a new one, byte for
# byte the file.  With pool_reuse_delay=0, B is bound at once and its
# client reads "OVERRUN-late" as B's answer.
b_waits() {
	[ "$(svc_col queued)" -gt "$1" ] || [ "$(rs_col "$2" Busy)" = 1 ]
}

overrun_while_resting() {
	local rs=$(backend_ip s1):80 q0 closed0 rc=0
	local scap=$TMP/late-s1.pcap ccap=$TMP/late-cli.pcap
	fresh pool_min_idle=1 pool_max=1 pool_reuse_delay=20000 || return 1
	in_dir ipvsadm -A -t "$VS" -s l7 &&
		in_dir ipvsadm -a -t "$VS" -r "$rs" -m -w 1 || return 1
	wait_for at_least 1 rs_col "$rs" Idle || { report; return 1; }
	cap_start l7s1 "$scap" && cap_start l7cli "$ccap" ||
		{ caps_stop; return 1; }
	rm -f "$L7TB_RUN/go-late"
	q0=$(svc_col queued)
	closed0=$(rs_col "$rs" Closed)
	in_cli curl -sS --max-time 30 -o "$TMP/late.a" \
		"http://$L7TB_VIP/cgi-bin/nph-overrun?id=late&go=late"
	printf 'overrun id=late\n' | cmp - "$TMP/late.a" || rc=1
	in_cli curl -sS --max-time 30 -o "$TMP/late.b" \
		"http://$L7TB_VIP/static/1k.bin" 2> "$TMP/late.b.err" &
	local b=$!
	wait_for b_waits "$q0" "$rs" || { report; rc=1; }
	touch "$L7TB_RUN/go-late"
	wait $b || { cat "$TMP/late.b.err"; rc=1; }
	awk '$2 == "static/1k.bin" { print $1 }' "$L7TB_DIR/www/SHA256SUMS" |
		cmp - <(sha256sum < "$TMP/late.b" | cut -d' ' -f1) ||
		{ echo "B's answer is not the file"; head -c 300 "$TMP/late.b"; rc=1; }
	wait_for -s 30 at_least 1 cap_count "$scap" OVERRUN-late ||
		{ echo "the server sent no marker"; rc=1; }
	caps_stop
	note "queued: $q0 -> $(svc_col queued); closed while idle: $closed0 -> $(rs_col "$rs" Closed); markers a client read: $(cap_count "$ccap" OVERRUN-)"
	[ "$(cap_count "$ccap" OVERRUN-)" = 0 ] ||
		{ tcpdump -r "$ccap" -nn -A 2>/dev/null | grep -B 8 OVERRUN- | head -n 30; rc=1; }
	[ "$(rs_col "$rs" Closed)" -gt "$closed0" ] || { report; rc=1; }
	rm -f "$L7TB_RUN/go-late"
	in_dir ipvsadm -D -t "$VS"
	return $rc
}

# Graceful restarts close pooled connections (idle ones at once, others
# at Timeout) while requests keep binding to them: most requests
# succeed (a request bound to a connection the server closes before
# answering it is retried or fails), pools refill, and no kernel warning.
graceful_while_binding() {
	local b n=0 rc requests
	"$L7TB_DIR/apache" stop
	"$L7TB_DIR/apache" start --timeout 3
	fresh || return 1
	add_service "$VS" l7 1 1 1 || return 1
	wait_for pools_ready || { report; return 1; }
	in_cli python3 "$CLIENTS/kaloop.py" "$L7TB_VIP" --conns 4 --requests 150 \
		--path /static/1k.bin --path /static/10k.bin --path /cgi-bin/chunked?n=4 \
		--max-errors 30 > "$TMP/kaloop" 2>&1 &
	local kapid=$!
	while kill -0 $kapid 2>/dev/null && [ $n -lt 60 ]; do
		for b in $L7TB_BACKENDS; do
			in_backend "$b" apache2 -f "$L7TB_RUN/$b/httpd.conf" -k graceful
			n=$((n + 1))
			sleep 0.7
		done
	done
	wait $kapid
	rc=$?
	note "$n graceful restarts during: $(head -n 1 "$TMP/kaloop")"
	note "$(report | grep -E '^TCP  198|^  -> 192')"
	[ $rc = 0 ] || return 1
	requests=$(awk '$1 == "requests" { print $2 }' "$TMP/kaloop")
	[ "$requests" = 600 ] || return 1
	for b in $L7TB_BACKENDS; do
		wait_for at_least 8 pool_col "$b" Idle || { report; return 1; }
		wait_eq up pool_col "$b" State || { report; return 1; }
	done
	# a server's segment that reaches a retired spliced socket between
	# its unhashing and its close is answered by the socket: the
	# LOCAL_OUT guard drops that answer
	note "segments the LOCAL_OUT guard dropped: $(dmesg | grep -c 'dropped a segment of a spliced pooled socket')"
}

# orphans: orphaned TCP sockets of every namespace (a global count)
orphans() {
	awk '$1 == "TCP:" { for (i = 2; i < NF; i++) if ($i == "orphan") print $(i + 1) }' \
		/proc/net/sockstat
}

# ip netns del of the director while a service has pools and spliced
# connections: IPVS flushes the service from its pernet exit, every
# pooled socket goes with the namespace - none is left orphaned, with
# timers, on a freed namespace (kernel sockets hold no reference on it)
# - and the module unloads.
netns_deleted_with_live_service() {
	local i before after kapid
	"$L7TB_DIR/apache" stop
	"$L7TB_DIR/apache" start
	fresh || return 1
	add_service "$VS" l7 1 1 1 || return 1
	wait_for pools_ready || { report; return 1; }
	in_cli python3 "$CLIENTS/kaloop.py" "$L7TB_VIP" --conns 4 --requests 1000 \
		--pace 0.05 --max-errors 1000 > "$TMP/kaloop2" 2>&1 &
	kapid=$!
	wait_for at_least 4 svc_col active || { cat "$TMP/kaloop2"; report; return 1; }
	before=$(orphans)
	note "when the namespace went: $(svc_col active) client connections, $(orphans) orphaned sockets"
	ip netns del l7dir || return 1
	# rmmod succeeds once IPVS has flushed the service: pools are gone
	for i in $(seq 1 60); do
		rmmod ip_vs_l7 2>/dev/null && break
		sleep 0.5
	done
	! grep -q '^ip_vs_l7 ' /proc/modules || { echo "rmmod refused"; return 1; }
	sleep 1
	after=$(orphans)
	note "rmmod after $i tries; orphaned sockets $before -> $after"
	kill $kapid
	wait
	[ "$after" -le "$before" ] || return 1
	! dmesg | grep 'unregister_netdevice: waiting'
}

t_check "hostile: no pools with datapath=0" no_pools_without_datapath
t_check "hostile: no pools for fwmark services, a pool for an IPv6 service's IPv4 server" \
	no_pools_for_fwmark_pool_for_ipv6
t_check "hostile: a backend that accepts and closes at once is backed off" accept_close_backs_off
t_check "hostile: ipvsadm -E -s l7 keeps a live IPVS connection, new ones spliced" edit_to_l7_keeps_ipvs_conns
t_check "hostile: 101 only for a request that asked to upgrade" upgrade_only_when_asked
t_check "hostile: a tunnel in use outlives ack_timeout, blind RST/FIN ignored, quiet past tunnel_timeout reset" tunnel_lives
t_check "hostile: tunnels past max_tunnels are refused" tunnel_cap
t_check "hostile: a pooled connection whose server sent a byte while idle is retired, not bound" unsolicited_byte_retires
t_check "hostile: bytes a script writes past its Content-Length reach no client" overrun_reaches_no_client
t_check "hostile: bytes a script writes past its Content-Length once the next request came reach no client" overrun_while_resting
t_check "hostile: HTTP/1.0 keep-alive, a head at the field limit passes as it came, then close" copy_without_room
t_check "hostile: apachectl graceful loop while requests bind" graceful_while_binding
t_check "hostile: director namespace deleted with a live service, rmmod clean" netns_deleted_with_live_service

[ -f "$TMP/servers.pid" ] && kill $(cat "$TMP/servers.pid") 2>/dev/null
caps_stop
testbed_down
rm -rf "$TMP"
t_summary
