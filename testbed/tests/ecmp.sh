#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Directors side by side (topology up-ecmp): three directors, each with
# the l7 service and its own pools, announce the VIP over BGP to a router
# (testbed/frr) that spreads the clients' flows over all three (ECMP).
# Their checkpoint channel runs among the three (role both, each the
# others' peer), so each holds a record of every other's idle client
# connections.  Keep-alive clients idle at a request boundary whose flow
# the router moves to another director - one drained (its route
# withdrawn), one killed (its links cut; the router's BFD session to it
# goes down and takes the route away), one joining (announcing again) - are taken over
# at their next request by the director they reach, from its record,
# with not one request lost nor a connection reset.  A client whose flow
# moves in the middle of a response (its director drained) has its
# segments forwarded to the director that holds it, which finishes the
# response.  A client in the middle of a response when its director dies
# is reset within 2 s: the others find that peer silent and probe its
# clients.  Runs inside the guest.
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
IPVSADM=$L7TB_BUILD/ipvsadm/ipvsadm
KEEPALIVED=$L7TB_BUILD/keepalived/keepalived
CONF=$L7TB_DIR/../keepalived-conf
KA=$L7TB_RUN/ecmp
CLIENTS=$L7TB_DIR/clients
TMP=$(mktemp -d)
KEY=$KA/l7-sync.key
CONNS=30

for f in "$IPVSADM" "$KEEPALIVED"; do
	[ -x "$f" ] || { echo "FAIL no $f (make ipvsadm keepalived)"; exit 1; }
done
[ -x /usr/lib/frr/bgpd ] || { echo "FAIL no FRR (scripts/setup installs it)"; exit 1; }

exec 3>&1
note() { printf '     %s\n' "$@" >&3; }
in_d() { local d=$1; shift; ip netns exec "$d" "$@"; }

# peers_of DIR: the other directors' sync addresses, comma-separated
peers_of() {
	local d n=1 out=
	for d in $L7TB_ECMP_DIRS; do
		[ "$d" != "$1" ] && out=${out:+$out,}203.0.113.$n
		n=$((n + 1))
	done
	echo "$out"
}

# director_up DIR N: keepalived in DIR with keepalived-conf's
# keepalived-ecmp.conf, made DIR's (router_id, AS 64500 + N, checkpoint
# peers) and pointed at the build's ipvsadm and copies of the scripts
# under $KA (keepalived refuses scripts in a directory others may write):
# its startup script starts the channel (sync_forward on), its checks
# program the l7 service to the three backends, and its quorum_up
# announces the VIP through the director's bgpd
director_up() {
	local d=$1 n=$2 dir=$KA/$1
	mkdir -p "$dir"
	sed -e "s|router_id l7dir|router_id $d|" \
	    -e "s|/etc/keepalived/l7-sync-up -f -l /run/l7-sync-up.log|$KA/l7-sync-up -f -i $IPVSADM -l $dir/sync-up.log|" \
	    -e "s| 203.0.113.2,203.0.113.3 | $(peers_of "$d") |" \
	    -e "s|/etc/keepalived/l7-sync.key|$KEY|" \
	    -e "s|/etc/keepalived/l7-ecmp-route -l /run/l7-ecmp-route.log|$KA/l7-ecmp-route -s $L7TB_RUN/frr/$d -l $dir/route.log|" \
	    -e "s| 64501 | $((64500 + n)) |" \
		"$CONF/keepalived-ecmp.conf" > "$dir/keepalived.conf"
	[ "$(grep -c "$KA/l7-ecmp-route -s .* $((64500 + n)) $L7TB_VIP/32" "$dir/keepalived.conf")" = 2 ] &&
	grep -q "$KA/l7-sync-up -f -i .* $(peers_of "$d") $KEY" "$dir/keepalived.conf" ||
		{ echo "director_up: $d's configuration lines not found"; return 1; }
	ka_run "$d" "$dir"
}

# programmed DIR: keepalived made its l7 service, three backends up
programmed() {
	in_d "$1" "$IPVSADM" -Ln -t "$VS" 2>/dev/null | grep -q "^TCP  $VS l7" &&
	[ "$(in_d "$1" "$IPVSADM" -Ln -t "$VS" | grep -c '^  -> 192\.0\.2\.1[123]:80 *Masq *1 ')" = 3 ]
}

ka_stop_all() {
	local d p
	for d in $L7TB_ECMP_DIRS; do
		p=$(cat "$KA/$d/main.pid" 2>/dev/null) && kill "$p" 2>/dev/null
	done
	sleep 2
	for d in $L7TB_ECMP_DIRS; do
		kill -9 $(cat "$KA/$d"/{main,keepalived,checkers}.pid 2>/dev/null) 2>/dev/null
	done
	return 0
}

# dir_col DIR NAME: column NAME of DIR's service line
dir_col() {
	l7_table "$1" | l7_awk -v vs="$VS" -v n="$2" \
		'$1 != "->" && $2 == vs { print sv(n) }'
}

# paths: next hops of the router's route to the VIP
paths() {
	ip -n l7rtr route show "$L7TB_VIP/32" |
		awk '/nexthop via/ { n++ } / via / && !/nexthop/ { n++ } END { print n + 0 }'
}

# per_dir NAME: "l7dir=N l7dir2=N l7dir3=N", DIR's counter NAME (conns
# and the like: its service's column; a sync counter: the channel's)
per_dir() {
	local d v out=
	for d in $L7TB_ECMP_DIRS; do
		case $1 in
		conns|active|client_rst|unacceptable|flushed) v=$(dir_col "$d" "$1") ;;
		*) v=$(sync_counter "$d" "$1") ;;
		esac
		out="$out $d=${v:-0}"
	done
	echo "${out# }"
}

sum_of() { echo "$1" | tr ' ' '\n' | awk -F= '{ s += $2 } END { print s + 0 }'; }

# val_of LIST DIR: DIR's number in a per_dir LIST
val_of() { echo "$1" | tr ' ' '\n' | awk -F= -v d="$2" '$1 == d { print $2 + 0 }'; }

# the directors' peers met: each has accepted both others' starts
channels_met() {
	local d
	for d in $L7TB_ECMP_DIRS; do
		[ "$(sync_counter "$d" peers)" -ge 2 ] || return 1
	done
}

# idle_start NAME: $CONNS keep-alive connections from 30 client
# addresses, one request each, then idle until NAME.go
idle_start() {
	rm -f "$TMP/$1.ready" "$TMP/$1.go"
	in_cli "$PY" "$CLIENTS/boundary_conns.py" "$L7TB_VIP" --conns "$CONNS" \
		--stage "$TMP/$1.ready" "$TMP/$1.go" > "$TMP/$1.out" 2>&1 &
	IDLE_PID=$!
	wait_for -s 60 test -e "$TMP/$1.ready" || { cat "$TMP/$1.out"; return 1; }
}

# idle_finish NAME: their next request; every one answered on its
# connection
idle_finish() {
	touch "$TMP/$1.go"
	wait "$IDLE_PID"
	local rc=$?
	note "clients: $(head -n 1 "$TMP/$1.out")"
	[ $rc = 0 ] || { cat "$TMP/$1.out"; return 1; }
}

# ---- tests ----

# on_each BEFORE AFTER: every director had more connections AFTER than
# BEFORE (per_dir conns)
on_each() {
	local d n
	for d in $L7TB_ECMP_DIRS; do
		n=$(( $(val_of "$2" "$d") - $(val_of "$1" "$d") ))
		[ "$n" -ge 1 ] || { echo "$d had no connection"; return 1; }
	done
}

# moved CHANGE...: idle clients, then CHANGE (a command), then their next
# request: none lost, every answer byte-exact; how many moved (adopted),
# counted per director.  The first time, with the router's route over
# all three: each director had some of the clients.
moved() {
	local adopted0 adopted1 refused0 refused1 conns0
	conns0=$(per_dir conns)
	idle_start moved || return 1
	if [ -z "${SPREAD_SEEN:-}" ]; then
		note "router: $(paths) next hops to the VIP; the clients' connections per director: $(per_dir conns) (before: $conns0)"
		[ "$(paths)" = 3 ] && on_each "$conns0" "$(per_dir conns)" ||
			{ touch "$TMP/moved.go"; wait "$IDLE_PID"; return 1; }
	fi
	# every director holds the others' records of these clients
	sleep 1
	adopted0=$(per_dir adopted) refused0=$(per_dir refused)
	"$@" || { touch "$TMP/moved.go"; wait "$IDLE_PID"; return 1; }
	idle_finish moved || return 1
	adopted1=$(per_dir adopted) refused1=$(per_dir refused)
	note "taken over by the director their flow reached: $(( $(sum_of "$adopted1") - $(sum_of "$adopted0") )) of $CONNS ($adopted1; before $adopted0)" \
		"refused: $refused1; displaced: $(per_dir displaced)"
	[ $(( $(sum_of "$adopted1") - $(sum_of "$adopted0") )) -ge 1 ] ||
		{ echo "no flow moved: the change tested nothing"; return 1; }
}

# route DIR announce|withdraw: keepalived-conf's l7-ecmp-route, as an
# operator drains a director or adds it back
route() {
	local n=1 d
	for d in $L7TB_ECMP_DIRS; do
		[ "$d" = "$1" ] && break
		n=$((n + 1))
	done
	in_d "$1" "$KA/l7-ecmp-route" -s "$L7TB_RUN/frr/$1" "${@:3}" "$2" \
		$((64500 + n)) "$L7TB_VIP/32"
}

# route_to DIR announce|withdraw N: DIR's route announced or withdrawn,
# the router then at N next hops
route_to() {
	route "$1" "$2" && wait_for -s 20 eq_paths "$3" ||
		{ ip -n l7rtr route; return 1; }
}

# drain DIR: its route withdrawn, the router down to two next hops; join
# DIR: announced again, three
drain() { route_to "$1" withdraw 2; }
join() { route_to "$1" announce 3; }

eq_paths() { [ "$(paths)" = "$1" ]; }

# kill_dir DIR: every link of DIR down at once (its front, back and sync
# ports on the bridges, in one command), from $TMP/kill.at on (s since
# the epoch): the router's BFD session to it goes down, and the router's
# route loses that next hop
kill_dir() {
	local p t0 n
	n=$(paths)
	t0=$(date +%s.%N)
	echo "$t0" > "$TMP/kill.at"
	for p in f b s; do echo "link set $p-$1 down"; done | ip -n l7net -batch -
	echo "$1" >> "$TMP/killed"
	wait_for -s 20 eq_paths $((n - 1)) || { ip -n l7rtr route; return 1; }
	note "$1's links cut: its route gone from the router after $(echo "$(date +%s.%N) - $t0" | bc | sed 's/^\./0./') s"
}

# outst DIR COLUMN...: the sum of those real-server columns of DIR's
# table: Outst, the requests DIR itself has outstanding on its servers;
# with PeerOut, all the tier's as DIR's pick sees them (LOAD records)
outst() {
	local d=$1
	shift
	l7_table "$d" | l7_awk -v cols="$*" '$1 == "->" {
			k = split(cols, c, " ")
			for (i = 1; i <= k; i++) n += rv(c[i])
		} END { print n + 0 }'
}

# front_of DIR: DIR's address on the router's link
front_of() {
	local d n=1
	for d in $L7TB_ECMP_DIRS; do
		[ "$d" = "$1" ] && { echo "203.0.113.$((65 + n))"; return; }
		n=$((n + 1))
	done
}

# handshake_moves complete|reset FROM TO [--split]: a keep-alive
# connection whose SYN reaches FROM and whose last ACK (lost) and requests
# reach TO - the router routes the client's port by a rule of its own,
# and drops all but its SYN until the route has moved; handshake_moves.py
# says how the connection ended, which must be the first argument.
# Complete: made on TO, not FROM.  --split: the handshake on FROM, the
# route moved after the first line of the first request's head, the rest
# of it to TO - which forwards it to FROM, the connection's maker.
handshake_moves() {
	local conns0 conns1 fwd0 fwd1 rc p from to what drop=
	# a port of its own each time (t_check runs this in a subshell)
	p=$(( $(cat "$TMP/hs.port" 2>/dev/null || echo 41000) + 1 ))
	echo $p > "$TMP/hs.port"
	[ "${4:-}" = --split ] ||
		drop="&& echo 'table ip hs { chain c { type filter hook forward priority 0; tcp sport $p tcp flags != syn drop; }; }' |
				ip netns exec l7rtr nft -f -"
	conns0=$(per_dir conns) fwd0=$(per_dir forwarded)
	in_cli "$PY" "$CLIENTS/handshake_moves.py" "$L7TB_VIP" /static/1k.bin \
		--sport $p --expect "$1" ${4:+"$4"} --before "
			ip -n l7rtr route replace $L7TB_VIP/32 via $(front_of "$2") table 100 &&
			ip -n l7rtr rule add pref 100 ipproto tcp sport $p lookup 100 $drop" --after "
			ip -n l7rtr route replace $L7TB_VIP/32 via $(front_of "$3") table 100 &&
			{ ip netns exec l7rtr nft delete table ip hs 2>/dev/null; true; }" > "$TMP/hs" 2>&1
	rc=$?
	ip netns exec l7rtr nft delete table ip hs 2>/dev/null
	ip -n l7rtr rule del pref 100 2>/dev/null
	ip -n l7rtr route flush table 100 2>/dev/null
	conns1=$(per_dir conns) fwd1=$(per_dir forwarded)
	what="SYN to $2, its last ACK and the requests to $3"
	[ -z "${4:-}" ] || what="SYN and the head's first line to $2, the rest to $3"
	note "$what: $(cat "$TMP/hs")" \
		"connections made per director: $conns1 (before: $conns0); segments forwarded: $fwd1 (before: $fwd0)"
	[ $rc = 0 ] || return 1
	[ "$1" = complete ] || return 0
	from=$(( $(val_of "$conns1" "$2") - $(val_of "$conns0" "$2") ))
	to=$(( $(val_of "$conns1" "$3") - $(val_of "$conns0" "$3") ))
	if [ "${4:-}" = --split ]; then
		[ "$from" = 1 ] && [ "$to" = 0 ] &&
			[ $(( $(val_of "$fwd1" "$3") - $(val_of "$fwd0" "$3") )) -ge 1 ] ||
			{ echo "connections made: $2 $from, $3 $to (want 1 and 0), and $3 forwarded none"; return 1; }
		return 0
	fi
	[ "$from" = 0 ] && [ "$to" = 1 ] ||
		{ echo "connections made: $2 $from, $3 $to (want 0 and 1)"; return 1; }
}

# alone_refuses FROM TO: TO alone (its channel stopped) has secrets of
# its own, and FROM's cookie is reset there; then TO's channel again, as
# its keepalived's startup_script started it
alone_refuses() {
	local rc up
	up=$(sed -n 's/^[[:space:]]*startup_script "\(.*\)"$/\1/p' "$KA/$2/keepalived.conf")
	in_d "$2" "$IPVSADM" --stop-l7-sync || return 1
	handshake_moves reset "$1" "$2"
	rc=$?
	# shellcheck disable=SC2086
	in_d "$2" $up && wait_for -s 30 channels_met ||
		{ echo "$2's channel did not start again: $up"; return 1; }
	# the others lost TO meanwhile: mid_reset counts from here
	per_dir lost > "$TMP/lost.base"
	return $rc
}

# mid_start: a client in the middle of a 1 MB response (midresp.py, 8 KB
# read every 50 ms, nothing else under way); HOLDER the one director with
# a request outstanding - its response - of those alive
mid_start() {
	local d n=0
	rm -f "$TMP/mid.ready"
	in_cli "$PY" "$CLIENTS/midresp.py" "$L7TB_VIP" "$TMP/mid.ready" \
		--timeout 40 > "$TMP/mid" 2>&1 &
	MID_PID=$!
	HOLDER=
	wait_for -s 60 test -e "$TMP/mid.ready" || { kill $MID_PID; cat "$TMP/mid"; return 1; }
	for d in $L7TB_ECMP_DIRS; do
		grep -qx "$d" "$TMP/killed" 2>/dev/null && continue
		[ "$(outst "$d" Outst)" -ge 1 ] && HOLDER=$d n=$((n + 1))
	done
	[ $n = 1 ] || { kill $MID_PID; echo "$n directors hold the client"; return 1; }
}

# The director holding a client in the middle of a 1 MB response drained
# (its route withdrawn): the client's segments now reach another
# director, which has only the holder's record of the boundary before
# that request and sends them on to the holder (IP-in-IP over the sync
# link); the holder finishes the response, byte-exact.  Then announced
# again.
mid_drain() {
	local fwd0 fwd1 in1
	fwd0=$(per_dir forwarded)
	mid_start || return 1
	drain "$HOLDER" || { kill $MID_PID; return 1; }
	wait $MID_PID
	fwd1=$(per_dir forwarded) in1=$(per_dir forwarded_in)
	note "the client reading a 1 MB response from $HOLDER, drained meanwhile: $(cat "$TMP/mid")" \
		"segments forwarded: $fwd1 (before: $fwd0); taken from the tunnel: $in1"
	join "$HOLDER" || return 1
	grep -q '^complete ' "$TMP/mid" &&
		[ $(( $(sum_of "$fwd1") - $(sum_of "$fwd0") )) -ge 1 ] &&
		[ "$(val_of "$(per_dir forwarded_in)" "$HOLDER")" -ge 1 ]
}

# Clients busy across a drain and a join: eight keep-alive connections
# sending a request every 50 ms (kaloop.py, byte-exact, no reconnect),
# one pipelining ten requests at a time (pipeline.py: static files, CGI
# output, chunked, in order) and two reading 1 MB slowly (midresp.py).
# The director drained while they run, then announced again: flows move
# twice, many with a request or a response under way, which is forwarded
# to the director holding it; the rest are taken over at a boundary.  Not
# one request lost, no client reset.  The drain is l7-ecmp-route's: it
# withdraws the route and waits until the director holds no connection,
# and says how long that took.  Alone: make vm-test VM_SUITES=ecmp
# VM_ONLY='busy across'.
under_load() {
	local fwd0 ad0 ka pipe m1 m2 rc=0
	fwd0=$(per_dir forwarded) ad0=$(per_dir adopted)
	rm -f "$TMP/load.stop" "$TMP/load.m1" "$TMP/load.m2"
	in_cli "$PY" "$CLIENTS/kaloop.py" "$L7TB_VIP" --conns 8 \
		--requests 100000 --pace 0.05 --timeout 20 --no-reconnect \
		--until "$TMP/load.stop" > "$TMP/load.ka" 2>&1 &
	ka=$!
	in_cli "$PY" "$CLIENTS/pipeline.py" "$L7TB_VIP" --rounds 12 \
		--min-backends 1 > "$TMP/load.pipe" 2>&1 &
	pipe=$!
	in_cli "$PY" "$CLIENTS/midresp.py" "$L7TB_VIP" "$TMP/load.m1" \
		--timeout 40 > "$TMP/load.mid1" 2>&1 &
	m1=$!
	in_cli "$PY" "$CLIENTS/midresp.py" "$L7TB_VIP" "$TMP/load.m2" \
		--timeout 40 > "$TMP/load.mid2" 2>&1 &
	m2=$!
	wait_for -s 60 test -e "$TMP/load.m1" -a -e "$TMP/load.m2" || rc=1
	route l7dir2 drain -w 30 > "$TMP/load.drain" 2>&1 || rc=1
	eq_paths 2 || rc=1
	join l7dir2 || rc=1
	sleep 2
	touch "$TMP/load.stop"
	wait $ka || rc=1
	wait $pipe || rc=1
	wait $m1 $m2
	note "keep-alive every 50 ms: $(head -n 1 "$TMP/load.ka"); pipelined: $(grep -c '^round' "$TMP/load.pipe") rounds of ten answered $(grep FAILED "$TMP/load.pipe")" \
		"l7dir2 drained: $(sed -n 's/.*: \(drained in .*\|.* still here .*\)/\1/p' "$TMP/load.drain")" \
		"1 MB readers: $(cat "$TMP/load.mid1"); $(cat "$TMP/load.mid2")" \
		"forwarded: $(per_dir forwarded) (before: $fwd0); taken over: $(per_dir adopted) (before: $ad0)" \
		"refused: $(per_dir refused); busy: $(per_dir busy); blind: $(per_dir blind); waited: $(per_dir waited); displaced: $(per_dir displaced)" \
		"connections ended: flushed $(per_dir flushed), client_rst $(per_dir client_rst); unacceptable segments: $(per_dir unacceptable)" \
		"$(grep '^error' "$TMP/load.ka")"
	[ $rc = 0 ] && grep -q '^complete ' "$TMP/load.mid1" &&
		grep -q '^complete ' "$TMP/load.mid2" ||
		{ cat "$TMP/load.ka" "$TMP/load.pipe" | tail -n 20; return 1; }
}

# tier_seen N: every director counts N requests on its real servers,
# its own and its peers'
tier_seen() {
	local d
	for d in $L7TB_ECMP_DIRS; do
		[ "$(outst "$d" Outst PeerOut)" = "$1" ] || return 1
	done
}

# Six slow requests (10 s each, new connections, 0.5 s apart), spread by
# the router over the directors: while all six are under way every
# director counts all six - its own and its peers' (the channel's LOAD
# records, every 100 ms) - and the tier puts two on each real server,
# though no director sent more than a few of them.
tier_load() {
	local i conns0 seen=0 counts pids=
	conns0=$(per_dir conns)
	clear_logs
	for i in 1 2 3 4 5 6; do
		in_cli curl -sS --fail --max-time 30 -o /dev/null \
			"http://$L7TB_VIP/cgi-bin/sleep?ms=10000&id=$i" &
		pids="$pids $!"
		sleep 0.5
	done
	wait_for -s 7 tier_seen 6 && seen=1
	note "each director's count of the tier's outstanding requests: $(for d in $L7TB_ECMP_DIRS; do printf '%s=%s ' "$d" "$(outst "$d" Outst PeerOut)"; done)(6 under way; connections per director: $(per_dir conns), before: $conns0)"
	# shellcheck disable=SC2086
	wait $pids || { echo "a slow request failed"; return 1; }
	counts=$(backend_counts "GET /cgi-bin/sleep")
	note "slow requests per real server: $counts"
	[ $seen = 1 ] && [ "$counts" = "2 2 2" ]
}

# mix_cv: the demo's CGI mix (make demo: keep-alive connections of 40,
# 25, 10 and 5 equal CGI calls), two connections of each, through the
# router: the requests per real server and their CV
mix_cv() {
	local n counts pids=
	clear_logs
	rm -f "$TMP"/mix.*
	for n in 40 25 10 5 40 25 10 5; do
		in_cli httperf --server "$L7TB_VIP" --uri "/cgi-bin/burn?iters=300" \
			--num-conns 1 --num-calls "$n" --timeout 60 > "$TMP/mix.$n.$RANDOM" 2>&1 &
		pids="$pids $!"
		sleep 0.2
	done
	# shellcheck disable=SC2086
	wait $pids
	if grep -L '^Errors: total 0 ' "$TMP"/mix.* | grep -q .; then
		grep -h '^Errors' "$TMP"/mix.*
		return 1
	fi
	counts=$(backend_counts "GET /cgi-bin/burn")
	# shellcheck disable=SC2086 # one number per word
	echo "$counts, CV $(cv $counts)"
}

# The demo's mix through one director (the other two drained), then
# through all three: the tier spreads the requests over the real servers
# as evenly as one director does - CV <= 0.05, or no more than 0.02 above
# one director's in the same boot, whose own spread the guest's
# scheduler can widen (a server it favours answers sooner, and rightly
# gets more); failing both, every server within 10 % of the mean, as
# rebind.sh holds one director to (CVs seen through three: 0.023 to
# 0.049).
tier_spread() {
	local one three
	route_to l7dir2 withdraw 2 && route_to l7dir3 withdraw 1 || return 1
	one=$(mix_cv) || { echo "$one"; return 1; }
	route_to l7dir2 announce 2 && route_to l7dir3 announce 3 || return 1
	three=$(mix_cv) || { echo "$three"; return 1; }
	note "the demo's CGI mix (2 x 40+25+10+5 requests) per real server, through one director: $one; through three: $three"
	awk -v a="${one##*CV }" -v b="${three##*CV }" \
		'BEGIN { exit !(b <= 0.05 || b <= a + 0.02) }' ||
		within_mean 10 ${three%,*}	# one number per word
}

# A client in the middle of a 1 MB response (midresp.py) when the
# director that holds it is killed: the others lose that peer (its
# channel silent for 1 s) and probe the clients of its records; the
# client's answer reaches the director its flow moved to, which resets
# it within 2 s of the kill rather than leave it waiting for its own
# timeout (40 s here).  Until then no director lost a live peer.
mid_reset() {
	local d holder pid secs lost0 base lost_base
	mid_start || return 1
	holder=$HOLDER pid=$MID_PID
	# each live director lost the directors killed before, no other (but
	# the one whose channel alone_refuses stopped: lost.base)
	lost0=$(per_dir lost) lost_base=$(cat "$TMP/lost.base" 2>/dev/null)
	for d in $L7TB_ECMP_DIRS; do
		grep -qx "$d" "$TMP/killed" 2>/dev/null && continue
		base=$(val_of "$lost_base" "$d")
		[ "$(sync_counter "$d" lost)" = $(( ${base:-0} + $(cat "$TMP/killed" 2>/dev/null | wc -l) )) ] ||
			{ kill $pid; echo "$d lost a live peer (lost: $lost0; before the kills: ${lost_base:-none})"; return 1; }
	done
	kill_dir "$holder" || { kill $pid; return 1; }
	wait $pid
	# midresp.py's seconds count from its READY file
	secs=$(awk -v ready="$(stat -c %.9Y "$TMP/mid.ready")" \
		-v kill="$(cat "$TMP/kill.at")" \
		'$1 == "reset" { printf "%.2f", ready + $2 - kill }' "$TMP/mid")
	note "the client reading a 1 MB response from $holder at its kill: $(cat "$TMP/mid") (${secs:-never} s after the kill)" \
		"peers lost before the kill: $lost0; after: $(per_dir lost); probed: $(per_dir probed)"
	[ -n "$secs" ] && [ "$(echo "$secs <= 2" | bc)" = 1 ]
}

"$L7TB_DIR/topology" up-ecmp
"$L7TB_DIR/apache" start
mkdir -p "$KA"
install -m 0755 "$CONF/l7-sync-up" "$CONF/l7-ecmp-route" "$KA/"
(umask 077; od -An -N32 -tx1 /dev/urandom | tr -d ' \n' > "$KEY"; echo >> "$KEY")
# bgpd first, announcing nothing: keepalived's quorum_up announces
"$L7TB_DIR/frr" router
n=1
for d in $L7TB_ECMP_DIRS; do
	"$L7TB_DIR/frr" director "$d" $n
	director_up "$d" $n || echo "FAIL $d: keepalived"
	n=$((n + 1))
done
for d in $L7TB_ECMP_DIRS; do
	wait_for -s 60 programmed "$d" || echo "FAIL $d: keepalived programmed no l7 service"
done
[ "$(cat /sys/module/ip_vs_l7/parameters/sync_forward)" = Y ] ||
	echo "FAIL l7-sync-up -f did not set sync_forward"
wait_for -s 60 eq_paths 3 || { echo "FAIL the router has no route over three directors (quorum_up)"; ip -n l7rtr route; }
wait_for -s 30 channels_met || echo "FAIL the directors' channels did not meet"
for d in $L7TB_ECMP_DIRS; do wait_for -s 60 pools_ready "$d" >/dev/null; done

t_check "ecmp: the router reaches the VIP over three directors (BGP), which 30 client addresses' flows all reach; one drained (route withdrawn): idle keep-alive clients whose flow moved are taken over, none lost" moved drain l7dir2
SPREAD_SEEN=1
t_check "ecmp: the drained director joins again (route announced): the flows that move back are taken over, none lost" moved join l7dir2
t_check "ecmp: the director holding a client in the middle of a 1 MB response drained: the client's segments forwarded to it, the response whole" mid_drain
t_check "ecmp: six slow requests through three directors: each director counts all six (its peers' LOAD records), two on each real server" tier_load
t_check "ecmp: the demo's CGI mix through three directors: requests per real server as even as through one (CV <= 0.05, or within 0.02 of one's, or every server within 10 % of the mean)" tier_spread
t_check "ecmp: a handshake whose SYN reaches one director and whose last ACK (lost) and requests reach another: the cookie and the TSval clock are the tier's, every answer byte-exact" handshake_moves complete l7dir l7dir2
t_check "ecmp: the same handshake moved to a director whose channel stopped (secrets of its own): reset there; its channel started again" alone_refuses l7dir l7dir2
t_check "ecmp: a new connection whose flow moves in the middle of its first request's head (no request done, no boundary's record yet): the director it reaches forwards the rest to the one that made it (its record at once), every answer byte-exact" handshake_moves complete l7dir l7dir2 --split
t_check "ecmp: keep-alive, pipelining and 1 MB clients busy across a drain (l7-ecmp-route drain: until the director holds no connection) and a join: none lost, none reset" under_load
t_check "ecmp: a director killed (links cut, BFD): its idle keep-alive clients are taken over, none lost" moved kill_dir l7dir3
t_check "ecmp: the director holding a client in the middle of a response killed: the others lose it as a peer and reset that client within 2 s" mid_reset

ka_stop_all
"$L7TB_DIR/frr" stop
for d in $L7TB_ECMP_DIRS; do
	in_d "$d" "$IPVSADM" --stop-l7-sync 2>/dev/null
	in_d "$d" "$IPVSADM" -C
done
[ "$T_FAILED" = 0 ] || for d in $L7TB_ECMP_DIRS; do
	echo "---- $d keepalived log (tail)"
	tail -n 15 "$KA/$d/keepalived.log" "$KA/$d"/*-up.log "$KA/$d/route.log" 2>/dev/null
done
rm -rf "$KA"
"$L7TB_DIR/apache" stop
"$L7TB_DIR/topology" down
l7_unload
rm -rf "$TMP"
t_summary
