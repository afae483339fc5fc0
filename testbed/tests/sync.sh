#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The l7 checkpoint channel between directors: started and stopped
# with the patched ipvsadm (--start-l7-sync, --stop-l7-sync, -L --daemon),
# the master's records of keep-alive clients idle at a request boundary
# held by the backup, a DELETE when one closes.  What whoever reaches the
# sync link without the key can do (testbed/clients/l7sync.py captures,
# replays and floods): the capture holds no client number in clear; the
# master's own datagram sent back to it is dropped (reflected) and ends
# no connection; datagrams replayed to a restarted backup are not taken;
# a datagram from another address than the peer's is dropped
# (bad_source).  Datagrams written by hand (l7sync.py, an implementation
# of the format, version 2, and its AEAD of its own) from a third host
# that is the backup's peer: the backup keeps what is authenticated,
# drops and counts a wrong key, a wrong sync id and what does not read,
# and evicts the oldest past its cap; a backup whose peers are the master
# and the third host takes both's records, and not the master's
# datagrams sent from the third host's address.  Then the first director in role
# both: a client it has only a record of, its segments written by hand
# (testbed/clients/rawtcp.py adopt*), is taken over; a forged segment or
# a deleted record gets a RST; a newer record of a connection it holds
# ends its copy (displaced).  Last, both directors in role both, one
# flooded with forged datagrams from its peer's address while it sends
# records: the other takes exactly the records sent; and three directors
# with a kernel channel each, every one the others' peer.  Every
# director also has a silent peer (203.0.113.4, 2001:db8:203::4: an
# address on the bridge that listens on nothing), so that each test runs
# with several peers.  Runs in the guest.
#
#   l7cli -- l7dir (master, the l7 service) -- s1..s3      (topology up)
#              | sync0 203.0.113.1
#   [l7syn: bridge sw] -- l7dir2 sync0 203.0.113.2 (backup)
#              \-------- l7dir3 sync0 203.0.113.3 (a third sender)
#
# A director takes datagrams only from its --sync-peer addresses and
# port: tests that send from the third host start the receiving director
# with the peer 203.0.113.3.
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
IPVSADM=$L7TB_BUILD/ipvsadm/ipvsadm
CLIENTS=$L7TB_DIR/clients
SYNC="$PY $CLIENTS/l7sync.py"
TMP=$(mktemp -d)
PORT=8849
ID=7
# Every director has a second peer that never answers (sync_link), so
# that every test here runs with several peers; the ha suite runs the
# pair of one peer each.
SILENT=203.0.113.4
SILENT6=2001:db8:203::4

[ -x "$IPVSADM" ] || { echo "FAIL no $IPVSADM (make ipvsadm)"; exit 1; }

exec 3>&1
note() { printf '     %s\n' "$@" >&3; }
in_d() { local d=$1; shift; ip netns exec "$d" "$@"; }

# ---- the sync link and the keys ----

sync_link() {
	local n=1 d
	ip netns add l7syn
	ip -n l7syn link add sw type bridge
	ip -n l7syn link set sw type bridge forward_delay 0 stp_state 0
	ip -n l7syn link set sw up
	for d in l7dir l7dir2 l7dir3; do
		[ "$d" = l7dir ] || { ip netns add "$d"; ip -n "$d" link set lo up; }
		ip -n l7syn link add "p-$d" type veth peer name sync0 netns "$d"
		ip -n l7syn link set "p-$d" master sw up
		ip -n "$d" addr add "203.0.113.$n/24" dev sync0
		ip -n "$d" link set sync0 up
		n=$((n + 1))
	done
	# the silent peer: an address on the link that listens on nothing
	ip -n l7syn addr add "$SILENT/24" dev sw
	ip -n l7syn addr add "$SILENT6/64" dev sw nodad
}

# new_key FILE: 64 hex digits, readable by its owner only
new_key() {
	(umask 077; od -An -N32 -tx1 /dev/urandom | tr -d ' \n' > "$1"; echo >> "$1")
}

# start DIR ROLE PEER [options]: PEER a list, or one address to which
# the silent peer of its family is added
start() {
	local d=$1 role=$2 peer=$3
	shift 3
	lingering_stop
	case $peer in
	*,*) ;;
	*:*) peer=$peer,$SILENT6 ;;
	*) peer=$peer,$SILENT ;;
	esac
	in_d "$d" "$IPVSADM" --start-l7-sync "$role" --mcast-interface sync0 \
		--sync-peer "$peer" --mcast-port "$PORT" --syncid "$ID" \
		--sync-key-file "$TMP/key" "$@"
}

# restart DIR ROLE PEER [options]: DIR's channel stopped if it runs,
# then started
restart() {
	in_d "$1" "$IPVSADM" --stop-l7-sync 2> /dev/null
	start "$@"
}

# cnt DIR NAME: the channel's counter NAME, 0 if it shows none
cnt() {
	local v
	v=$(sync_counter "$1" "$2")
	echo "${v:-0}"
}

# records_are N: the backup holds N records
records_are() { [ "$(sync_counter l7dir2 records)" = "$1" ]; }
# the backup stored at least N records: an idle boundary sends two, and a
# first request that lasts sync_idle one more (busy)
stored_at_least() { [ "$(sync_counter l7dir2 stored)" -ge "$1" ]; }

# send_to HOST KEYFILE ID ARGS...: l7sync.py send from the third host to
# HOST, which then lingers as a live director does, a HELLO a second
# (else HOST finds it silent after 3 s and probes the clients of its
# records).  The sender of the send before stops once this one is done:
# a python start in the guest can take longer than those 3 s.
send_to() {
	local host=$1 keyfile=$2 id=$3 old rc
	shift 3
	old=$(pgrep -f 'l7sync.py send .*--linger')
	in_d l7dir3 $SYNC send "$keyfile" "$id" "$host" "$PORT" --linger 300 "$@"
	rc=$?
	[ -z "$old" ] || kill $old 2> /dev/null
	return $rc
}

# send ARGS...: the same to the backup
send() { send_to 203.0.113.2 "$@"; }

# lingering_stop: the third host's lingering sender stops
lingering_stop() { pkill -f 'l7sync.py send .*--linger' 2> /dev/null; true; }

show() { in_d "$1" "$IPVSADM" -L --daemon; }

# capture_start NAME: the sync link's datagrams to and from l7dir (its
# port on the bridge) into $TMP/NAME.jl, until capture_stop
capture_start() {
	rm -f "$TMP/$1.jl"
	ip netns exec l7syn $SYNC capture p-l7dir 300 "$TMP/$1.jl" \
		> "$TMP/$1.out" 2>&1 &
	CAP_PID=$!
	wait_for test -e "$TMP/$1.jl"
}

capture_stop() {
	kill "$CAP_PID" 2>/dev/null
	wait "$CAP_PID" 2>/dev/null
}

# captured_records NAME: the capture holds a datagram with records
captured_records() { grep -q '"count": [1-9]' "$TMP/$1.jl"; }

# held_port: the client port of the one connection l7cli holds to the VIP
held_port() {
	in_cli ss -Htn state established "( dport = :80 )" |
		awk '{ n = split($3, a, ":"); print a[n] }'
}

# held_clients P N: N keep-alive clients (held_conn.py) idle at a
# boundary after one request, each until $TMP/PgoI exists
held_clients() {
	local i
	for i in $(seq 1 "$2"); do
		in_cli $PY "$CLIENTS/held_conn.py" "$L7TB_VIP" "$TMP/$1ready$i" \
			"$TMP/$1go$i" --requests 1 > "$TMP/$1held$i" 2>&1 &
	done
	for i in $(seq 1 "$2"); do
		wait_for -s 60 test -e "$TMP/$1ready$i" || { cat "$TMP/$1held$i"; return 1; }
	done
}

# ---- tests ----

refuses_open_key() {
	local out
	cp "$TMP/key" "$TMP/key.open"
	chmod 0644 "$TMP/key.open"
	if out=$(in_d l7dir2 "$IPVSADM" --start-l7-sync backup \
			--mcast-interface sync0 --sync-peer 203.0.113.1 \
			--sync-key-file "$TMP/key.open" 2>&1); then
		echo "started with a key others may read"
		return 1
	fi
	note "$out"
	printf '%s\n' "$out" | grep -q 'readable by others' || return 1
	[ -z "$(show l7dir2 | grep '^l7 ')" ] || { show l7dir2; return 1; }
}

# A key of one byte 32 times (all zeros, all 0x41) has no entropy: refused
# with a message saying so, and no channel starts.
refuses_weak_key() {
	local out k
	for k in 00 41; do
		(umask 077; printf "%.0s$k" $(seq 1 32) > "$TMP/key.$k"; echo >> "$TMP/key.$k")
		if out=$(in_d l7dir2 "$IPVSADM" --start-l7-sync backup \
				--mcast-interface sync0 --sync-peer 203.0.113.1 \
				--sync-key-file "$TMP/key.$k" 2>&1); then
			echo "started with the key $(cat "$TMP/key.$k")"
			in_d l7dir2 "$IPVSADM" --stop-l7-sync
			return 1
		fi
		note "$k x 32: $out"
		printf '%s\n' "$out" | grep -q 'all 32 bytes of the key are equal' ||
			return 1
		[ -z "$(show l7dir2 | grep '^l7 ')" ] || { show l7dir2; return 1; }
	done
}

starts_both() {
	local m b
	start l7dir master 203.0.113.2 --sync-idle 100 || return 1
	start l7dir2 backup 203.0.113.1 || return 1
	m=$(show l7dir) b=$(show l7dir2)
	note "$m" "$b"
	printf '%s\n' "$m" | grep -q "^l7 master sync channel (interface=sync0, peer=203.0.113.2,$SILENT, port=$PORT, syncid=$ID, idle=100ms, max_records=65536, maxlen=1472)" &&
	printf '%s\n' "$b" | grep -q "^l7 backup sync channel (interface=sync0, peer=203.0.113.1,$SILENT, port=$PORT, syncid=$ID, idle=200ms" ||
		return 1
	# a second start is refused, the first runs on
	! start l7dir2 backup 203.0.113.1 2> "$TMP/err" &&
	grep -q 'runs already' "$TMP/err" || { cat "$TMP/err"; return 1; }
}

# netns_other PID: PID is in another network namespace than this shell
netns_other() {
	[ "$(readlink "/proc/$1/ns/net")" != "$(readlink /proc/self/ns/net)" ]
}

# A network namespace of another user namespace has no channel, even for
# the initial root that enters it; that namespace's own root has no
# CAP_NET_ADMIN for the family at all.
refused_outside_init_userns() {
	local pid out st rc=0
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		unshare -Urn sleep 30 > /dev/null 2>&1 &
	pid=$!
	wait_for netns_other $pid || { kill $pid; return 1; }
	out=$(nsenter --net=/proc/$pid/ns/net "$IPVSADM" --start-l7-sync backup \
		--mcast-interface lo --sync-peer 127.0.0.1 \
		--sync-key-file "$TMP/key" 2>&1)
	st=$?
	note "root entering it: exit $st, $out"
	case "$st:$out" in
	0:*) rc=1 ;;
	*"outside the initial user namespace"*) ;;
	*) rc=1 ;;
	esac
	kill $pid
	wait $pid 2>/dev/null
	unshare -Urn $SYNC start-eperm || rc=1
	in_d l7dir unshare -Ur $SYNC start-eperm || rc=1
	return $rc
}

# keep-alive clients idle at a boundary on the master: the backup holds
# one record each, sent at least twice (as the response's last byte
# left, and again sync_idle later); one that closes is a DELETE
master_records() {
	local i n=4
	# the backup took the master's start (its handshake): records count
	wait_eq 1 sync_counter l7dir2 peers || { show l7dir2; return 1; }
	held_clients "" $n || return 1
	wait_eq $n sync_counter l7dir2 records ||
		{ show l7dir; show l7dir2; return 1; }
	note "$n idle clients: master $(sync_counter l7dir sent_records) records sent; backup holds $(sync_counter l7dir2 records)"
	wait_for stored_at_least $((2 * n)) || { show l7dir2; return 1; }
	# one more request, then it closes: no new record, a DELETE
	touch "$TMP/go1"
	wait_for -s 60 grep -q '^ok' "$TMP/held1" || { cat "$TMP/held1"; return 1; }
	wait_for -s 40 records_are $((n - 1)) ||
		{ show l7dir; show l7dir2; return 1; }
	note "after one closed: backup holds $(sync_counter l7dir2 records), deleted $(sync_counter l7dir2 deleted)"
	[ "$(sync_counter l7dir2 deleted)" -ge 1 ] || return 1
	for i in $(seq 2 $n); do touch "$TMP/go$i"; done
	wait
	wait_for -s 40 records_are 0 ||
		{ show l7dir; show l7dir2; return 1; }
}

# The master's datagrams carry no client number in clear: a capture of
# the sync link while an idle client's record crosses it holds neither
# the client's address nor its port and the VIP's (the record's key).
no_clear_numbers() {
	local cport stored rc=0
	stored=$(cnt l7dir2 stored)
	capture_start clear || return 1
	in_cli $PY "$CLIENTS/held_conn.py" "$L7TB_VIP" "$TMP/cready" \
		"$TMP/cgo" --requests 1 > "$TMP/cheld" 2>&1 &
	wait_for -s 60 test -e "$TMP/cready" || { cat "$TMP/cheld"; capture_stop; return 1; }
	cport=$(held_port)
	wait_for stored_at_least $((stored + 2)) &&
	wait_for captured_records clear || rc=1
	capture_stop
	touch "$TMP/cgo"
	wait_for -s 60 grep -q '^ok' "$TMP/cheld" || { cat "$TMP/cheld"; rc=1; }
	[ $rc = 0 ] || { show l7dir; show l7dir2; return 1; }
	# 198.51.100.10, then cport and 80 as a record holds them
	$SYNC grep-clear "$TMP/clear.jl" c633640a "$(printf '%04x0050' "$cport")" \
		> "$TMP/clear.out"
	rc=$?
	note "client port $cport: $(tr '\n' ' ' < "$TMP/clear.out")"
	return $rc
}

# refl_seen: l7dir counted a datagram sent back to it, one way or another
refl_seen() { [ "$(cnt l7dir reflected)" != 0 ] || [ "$(cnt l7dir displaced)" != 0 ]; }

# The director's own datagram, captured on the sync link and sent back to
# it from its peer's address after the client idled again: it is its own
# (reflected), nothing is stored or ended, and the client's next request
# is answered.
reflection_ignored() {
	local stored peers rc=0
	peers=$(cnt l7dir2 peers)
	restart l7dir both 203.0.113.2 --sync-idle 50 || return 1
	wait_eq $((peers + 1)) sync_counter l7dir2 peers || { show l7dir2; return 1; }
	stored=$(cnt l7dir2 stored)
	capture_start refl || return 1
	in_cli $PY "$CLIENTS/held_conn.py" "$L7TB_VIP" "$TMP/rready" \
		"$TMP/rgo" --requests 1 --again "$TMP/rready2" "$TMP/rgo2" \
		> "$TMP/rheld" 2>&1 &
	wait_for -s 60 test -e "$TMP/rready" &&
	wait_for stored_at_least $((stored + 2)) &&
	wait_for captured_records refl || rc=1
	capture_stop
	[ $rc = 0 ] || { cat "$TMP/rheld"; show l7dir; show l7dir2; return 1; }
	# one more request, idle again: a newer record
	touch "$TMP/rgo"
	wait_for -s 60 test -e "$TMP/rready2" &&
	wait_for stored_at_least $((stored + 4)) ||
		{ cat "$TMP/rheld"; show l7dir2; touch "$TMP/rgo2"; return 1; }
	in_d l7dir3 $SYNC replay "$TMP/refl.jl" 203.0.113.2 203.0.113.1 "$PORT" \
		--from 203.0.113.1 --records --first 1 || rc=1
	wait_for refl_seen
	touch "$TMP/rgo2"
	wait_for -s 60 grep -q . "$TMP/rheld"
	note "next request: $(cat "$TMP/rheld")" "$(show l7dir | tail -n 1)"
	[ $rc = 0 ] && [ "$(cnt l7dir reflected)" = 1 ] &&
		[ "$(cnt l7dir displaced)" = 0 ] && grep -q '^ok' "$TMP/rheld"
}

# refused_past N: l7dir2 refused more than N datagrams for their source
# or their form
refused_past() {
	[ $(( $(cnt l7dir2 bad_source) + $(cnt l7dir2 malformed) )) -gt "$1" ]
}

# The master's datagrams with a client's records, captured, then replayed
# to the backup after its channel restarted (an empty store, a new
# challenge) from the master's address: none is taken.
replay_after_restart() {
	local stored deleted peers n mark rc=0
	peers=$(cnt l7dir2 peers)
	restart l7dir both 203.0.113.2 --sync-idle 50 || return 1
	wait_eq $((peers + 1)) sync_counter l7dir2 peers || { show l7dir2; return 1; }
	stored=$(cnt l7dir2 stored) deleted=$(cnt l7dir2 deleted)
	capture_start rst || return 1
	in_cli $PY "$CLIENTS/held_conn.py" "$L7TB_VIP" "$TMP/pready" \
		"$TMP/pgo" --requests 1 > "$TMP/pheld" 2>&1 &
	wait_for -s 60 test -e "$TMP/pready" &&
	wait_for stored_at_least $((stored + 2)) || rc=1
	# it closes: its DELETE, and l7dir has no record left to send
	touch "$TMP/pgo"
	wait_for -s 60 grep -q '^ok' "$TMP/pheld" &&
	wait_eq $((deleted + 1)) sync_counter l7dir2 deleted &&
	wait_for captured_records rst || rc=1
	capture_stop
	[ $rc = 0 ] || { cat "$TMP/pheld"; show l7dir; show l7dir2; return 1; }
	restart l7dir2 backup 203.0.113.1 || return 1
	n=$(grep -c '"src": "203.0.113.1".*"count": [1-9]' "$TMP/rst.jl")
	mark=$(( $(cnt l7dir2 bad_source) + $(cnt l7dir2 malformed) ))
	in_d l7dir3 $SYNC replay "$TMP/rst.jl" 203.0.113.1 203.0.113.2 "$PORT" \
		--from 203.0.113.1 --records || return 1
	# then a datagram from the third host: once it is counted, so are
	# the replays before it
	in_d l7dir3 $SYNC send-bad "$TMP/key" "$ID" 203.0.113.2 "$PORT" short ||
		return 1
	wait_for refused_past "$mark"
	note "$n datagrams with records replayed: $(show l7dir2 | tail -n 1)"
	[ "$(cnt l7dir2 stored)" = 0 ] && [ "$(cnt l7dir2 records)" = 0 ] &&
		[ $(( $(cnt l7dir2 replayed) + $(cnt l7dir2 unknown_peer) )) -ge "$n" ] ||
		{ show l7dir2; return 1; }
}

# A datagram sealed with the key, from the third host to a backup whose
# peer is the master: dropped for its source, nothing stored.
foreign_source() {
	local stored bad
	stored=$(cnt l7dir2 stored) bad=$(cnt l7dir2 bad_source)
	send "$TMP/key" "$ID" upsert 34001 5 --no-handshake || return 1
	wait_eq $((bad + 1)) sync_counter l7dir2 bad_source || { show l7dir2; return 1; }
	[ "$(cnt l7dir2 stored)" = "$stored" ] && [ "$(cnt l7dir2 records)" = 0 ] ||
		{ show l7dir2; return 1; }
}

# the third host, with the key and as the backup's peer: its records are
# held, its DELETEs too
third_sender_with_key() {
	local before
	restart l7dir2 backup 203.0.113.3 || return 1
	before=$(cnt l7dir2 records)
	send "$TMP/key" "$ID" upsert 30001 40 || return 1
	wait_eq $((before + 40)) sync_counter l7dir2 records || { show l7dir2; return 1; }
	send "$TMP/key" "$ID" delete 30001 5 || return 1
	wait_eq $((before + 35)) sync_counter l7dir2 records || { show l7dir2; return 1; }
}

# A backup whose peers are the master and the third host: it takes the
# records of both, each peer's start accepted at its own address.  Then
# the master's datagrams to it, captured, sent to it from the third
# host's address: authentic, but not of the start accepted there, nor
# echoing the challenge given there - none is taken.
several_peers() {
	local stored n mark rc=0
	restart l7dir2 backup 203.0.113.1,203.0.113.3 || return 1
	wait_eq 1 sync_counter l7dir2 peers || { show l7dir2; return 1; }
	capture_start np || return 1
	in_cli $PY "$CLIENTS/held_conn.py" "$L7TB_VIP" "$TMP/npready" \
		"$TMP/npgo" --requests 1 > "$TMP/npheld" 2>&1 &
	wait_for -s 60 test -e "$TMP/npready" &&
	wait_for stored_at_least 2 &&
	wait_for captured_records np || rc=1
	capture_stop
	[ $rc = 0 ] || { cat "$TMP/npheld"; show l7dir; show l7dir2; touch "$TMP/npgo"; return 1; }
	send "$TMP/key" "$ID" upsert 35001 10 &&
	wait_eq 2 sync_counter l7dir2 peers &&
	wait_eq 11 sync_counter l7dir2 records || { show l7dir2; touch "$TMP/npgo"; return 1; }
	note "$(show l7dir2 | grep '^l7 ')"
	show l7dir2 | grep -q '^l7 backup sync channel (interface=sync0, peer=203.0.113.1,203.0.113.3, ' ||
		{ touch "$TMP/npgo"; return 1; }
	n=$(grep -c '"src": "203.0.113.1", "dst": "203.0.113.2".*"count": [1-9]' "$TMP/np.jl")
	mark=$(( $(cnt l7dir2 bad_source) + $(cnt l7dir2 malformed) ))
	stored=$(cnt l7dir2 stored)
	in_d l7dir3 $SYNC replay "$TMP/np.jl" 203.0.113.3 203.0.113.2 "$PORT" \
		--from 203.0.113.1 --to 203.0.113.2 --records &&
	in_d l7dir3 $SYNC send-bad "$TMP/key" "$ID" 203.0.113.2 "$PORT" short ||
		{ touch "$TMP/npgo"; return 1; }
	wait_for refused_past "$mark"
	note "the master's $n datagrams with records from the third host's address: $(show l7dir2 | tail -n 1)"
	[ "$(cnt l7dir2 stored)" = "$stored" ] && [ "$(cnt l7dir2 peers)" = 2 ] &&
		[ "$(cnt l7dir2 unknown_peer)" -ge "$n" ] || rc=1
	# its next request, then it closes
	touch "$TMP/npgo"
	wait_for -s 60 grep -q '^ok' "$TMP/npheld" || { cat "$TMP/npheld"; rc=1; }
	[ $rc = 0 ] || show l7dir2
	# the tests after this one count from a start of the third host's
	restart l7dir2 backup 203.0.113.3 && [ $rc = 0 ]
}

# dropped_is N: l7dir3's bad_hmac and replayed add up to N
dropped_is() { [ $(( $(cnt l7dir3 bad_hmac) + $(cnt l7dir3 replayed) )) = "$1" ]; }

# Three directors, each the others' peer: the master's records held by
# both backups, its DELETE applied by both.  The master's datagrams to
# one backup, captured and sent to the other from the master's address,
# do not open there (each is sealed for the address it was sent to):
# none taken, counted bad_hmac - the other has accepted the master, and
# their sequence numbers are new to it (replayed, should the master's
# HELLOs have moved its window 64 past one meanwhile).
three_directors() {
	local n=3 i d bad stored out n2
	restart l7dir both 203.0.113.2,203.0.113.3 --sync-idle 50 &&
	restart l7dir2 backup 203.0.113.1,203.0.113.3 &&
	restart l7dir3 backup 203.0.113.1,203.0.113.2 || return 1
	# each has accepted both others' starts
	for d in l7dir l7dir2 l7dir3; do
		wait_eq 2 sync_counter $d peers || { show $d; return 1; }
	done
	capture_start td || return 1
	held_clients t $n || { capture_stop; return 1; }
	wait_eq $n sync_counter l7dir2 records && wait_eq $n sync_counter l7dir3 records ||
		{ capture_stop; show l7dir; show l7dir2; show l7dir3; return 1; }
	capture_stop
	note "$n idle clients: l7dir2 holds $(sync_counter l7dir2 records), l7dir3 $(sync_counter l7dir3 records)"
	bad=$(( $(cnt l7dir3 bad_hmac) + $(cnt l7dir3 replayed) ))
	stored=$(cnt l7dir3 stored)
	out=$(in_d l7dir2 $SYNC replay "$TMP/td.jl" 203.0.113.1 203.0.113.3 "$PORT" \
		--from 203.0.113.1 --to 203.0.113.2 --records) ||
		{ echo "$out"; return 1; }
	n2=$(echo "$out" | awk '/^replayed/ { print $2 }')
	wait_for dropped_is $((bad + n2)) || { show l7dir3; return 1; }
	note "the master's $n2 datagrams to l7dir2, sent to l7dir3 from its address: $(show l7dir3 | tail -n 1)"
	[ "$n2" -ge 1 ] && [ "$(cnt l7dir3 stored)" = "$stored" ] &&
		[ "$(cnt l7dir3 bad_hmac)" -ge 1 ] || { show l7dir3; return 1; }
	for i in $(seq 1 $n); do touch "$TMP/tgo$i"; done
	wait
	wait_for -s 40 records_are 0 &&
	wait_eq 0 sync_counter l7dir3 records || { show l7dir2; show l7dir3; return 1; }
	note "$(show l7dir | tail -n 1)"
	for d in l7dir l7dir2 l7dir3; do in_d $d "$IPVSADM" --stop-l7-sync || return 1; done
}

# dropped_as NAME CMD...: CMD's datagram counted as NAME (the first),
# and the records held are as before
dropped_as() {
	local name=$1 records
	shift
	records=$(sync_counter l7dir2 records)
	"$@" || return 1
	wait_eq 1 sync_counter l7dir2 "$name" || { show l7dir2; return 1; }
	[ "$(sync_counter l7dir2 records)" = "$records" ] || { show l7dir2; return 1; }
}

# (no handshake: the director refuses these before it looks at the sender)
wrong_key() {
	new_key "$TMP/other"
	dropped_as bad_hmac send "$TMP/other" "$ID" upsert 31001 10 --no-handshake
}

wrong_sync_id() {
	dropped_as bad_syncid send "$TMP/key" $((ID + 1)) upsert 32001 10 \
		--no-handshake
}

# short, version, count: refused before the AEAD; trailing: sealed, after
# a handshake; then one bit of a tag flipped: it does not authenticate
malformed() {
	local how records bad
	records=$(sync_counter l7dir2 records)
	bad=$(cnt l7dir2 bad_hmac)
	for how in short version count trailing; do
		in_d l7dir3 $SYNC send-bad "$TMP/key" "$ID" 203.0.113.2 "$PORT" \
			"$how" || return 1
	done
	wait_eq 4 sync_counter l7dir2 malformed || { show l7dir2; return 1; }
	in_d l7dir3 $SYNC send-bad "$TMP/key" "$ID" 203.0.113.2 "$PORT" tag ||
		return 1
	wait_eq $((bad + 1)) sync_counter l7dir2 bad_hmac || { show l7dir2; return 1; }
	[ "$(sync_counter l7dir2 records)" = "$records" ] &&
		[ "$(sync_counter l7dir2 malformed)" = 4 ] || { show l7dir2; return 1; }
}

cap_evicts_oldest() {
	in_d l7dir2 "$IPVSADM" --stop-l7-sync || return 1
	start l7dir2 backup 203.0.113.3 --sync-records 50 || return 1
	send "$TMP/key" "$ID" upsert 33001 80 || return 1
	wait_eq 80 sync_counter l7dir2 stored || { show l7dir2; return 1; }
	note "$(show l7dir2 | tail -n 1)"
	[ "$(sync_counter l7dir2 records)" = 50 ] && [ "$(sync_counter l7dir2 evicted)" = 30 ] ||
		{ show l7dir2; return 1; }
}

stop_removes_all() {
	in_d l7dir "$IPVSADM" --stop-l7-sync &&
	in_d l7dir2 "$IPVSADM" --stop-l7-sync || return 1
	[ -z "$(show l7dir | grep '^l7 ')" ] && [ -z "$(show l7dir2 | grep '^l7 ')" ] ||
		{ show l7dir; show l7dir2; return 1; }
	! in_d l7dir2 "$IPVSADM" --stop-l7-sync 2> "$TMP/err" &&
	grep -qi 'no .*sync channel runs' "$TMP/err" || { cat "$TMP/err"; return 1; }
}

# The director takes a client over from a record the third host sends it
# (role both keeps records too).  scapy writes the client's segments by
# hand (rawtcp.py adopt, adopt-forged, adopt-deleted): the next request
# on the recorded connection is answered on it; a segment with a wrong
# sequence number gets a RST and drops its record; a record followed by
# its DELETE is never taken over.
#
# Records of 40901..40906 (rawtcp.py adopt*): 40903 deleted, 40905's with
# mss 12 refused whole (malformed).  A blind segment (out of the record's
# window) ends nothing; the client then is taken over (40904).  With the
# VIP off the director, a SYN and a fitting segment get nothing (40906,
# whose record stays).
takeover() {
	local dmac out=${L7_RESULTS:-$TMP}/rawtcp-adopt.out rc=0
	start l7dir both 203.0.113.3 || return 1
	send_to 203.0.113.1 "$TMP/key" "$ID" upsert 40901 4 &&
	send_to 203.0.113.1 "$TMP/key" "$ID" upsert 40906 1 &&
	send_to 203.0.113.1 "$TMP/key" "$ID" delete 40903 1 &&
	send_to 203.0.113.1 "$TMP/key" "$ID" upsert 40905 1 --mss 12 ||
		return 1
	wait_eq 4 sync_counter l7dir records || { show l7dir; return 1; }
	wait_eq 1 sync_counter l7dir malformed || { show l7dir; return 1; }
	dmac=$(in_dir cat /sys/class/net/dcli/address)
	raw_client_rsts drop
	in_cli timeout 600 env HOME=/tmp /usr/bin/python3 "$CLIENTS/rawtcp.py" \
		"$dmac" adopt adopt-forged adopt-deleted adopt-blind adopt-mss12 \
		> "$out" 2>&1
	in_dir ip addr del "$L7TB_VIP/24" dev dcli
	in_cli timeout 600 env HOME=/tmp /usr/bin/python3 "$CLIENTS/rawtcp.py" \
		"$dmac" adopt-not-ours >> "$out" 2>&1
	in_dir ip addr add "$L7TB_VIP/24" dev dcli
	raw_client_rsts keep
	for t in adopt adopt-forged adopt-deleted adopt-blind adopt-mss12 adopt-not-ours; do
		grep -qx "ok   $t" "$out" || rc=1
	done
	# the VIP back: 40906's record is probed, and the client's kernel,
	# which has no such connection, answers with a RST at exactly its
	# rcv_nxt, which ends the record (at the first pass, or at one of its
	# twelve repeats a quarter second apart, or at the second pass, if a
	# loaded guest lost the answers)
	wait_for -s 10 counter_is l7dir refused 2
	note "$(cat "$out")" "$(show l7dir | tail -n 1)"
	[ $rc = 0 ] || return 1
	[ "$(cnt l7dir adopted)" = 2 ] && [ "$(cnt l7dir probed)" -ge 1 ] &&
		[ "$(cnt l7dir probed)" -le 14 ] &&
		[ "$(cnt l7dir records)" = 0 ] || { show l7dir; return 1; }
	in_d l7dir "$IPVSADM" --stop-l7-sync
}

# counter_is DIR NAME N: DIR's counter NAME is N
counter_is() { [ "$(cnt "$1" "$2")" = "$3" ]; }

# Records of clients that are gone (198.51.100.77 answers no ARP) on the
# VIP of the director's l7 service: an address that comes up probes each
# fourteen times - 300 ms after, twelve times more a quarter second
# apart, and 8 s after the first - then drops them (expired); an address
# that comes up after that probes nothing.
probes_drain() {
	local n=1000 probed
	restart l7dir both 203.0.113.3 || return 1
	send_to 203.0.113.1 "$TMP/key" "$ID" upsert \
		50001 $n --caddr 198.51.100.77 || return 1
	wait_eq $n cnt l7dir records || { show l7dir; return 1; }
	in_dir ip addr add 192.0.2.250/32 dev lo
	wait_for -s 40 counter_is l7dir expired $n || { show l7dir; return 1; }
	probed=$(cnt l7dir probed)
	note "$n records of absent clients, an address up: $(show l7dir | tail -n 1)"
	[ "$(cnt l7dir records)" = 0 ] && [ "$probed" = $((14 * n)) ] ||
		{ show l7dir; return 1; }
	in_dir ip addr add 192.0.2.251/32 dev lo
	sleep 1
	[ "$(cnt l7dir probed)" = "$probed" ] || { show l7dir; return 1; }
	in_dir ip addr del 192.0.2.250/32 dev lo
	in_dir ip addr del 192.0.2.251/32 dev lo
	in_d l7dir "$IPVSADM" --stop-l7-sync
}

# The channel over IPv6 (the sync link's 2001:db8:203::/64): an idle
# keep-alive client's record crosses it, and its DELETE when it closes.
over_ipv6() {
	local n=1 d
	for d in l7dir l7dir2; do
		ip -n "$d" addr add "2001:db8:203::$n/64" dev sync0 nodad
		n=$((n + 1))
	done
	start l7dir master 2001:db8:203::2 --sync-idle 50 &&
	start l7dir2 backup 2001:db8:203::1 || return 1
	in_cli $PY "$CLIENTS/held_conn.py" "$L7TB_VIP" "$TMP/v6ready" \
		"$TMP/v6go" --requests 1 > "$TMP/v6held" 2>&1 &
	wait_for -s 60 test -e "$TMP/v6ready" || { cat "$TMP/v6held"; return 1; }
	wait_eq 1 sync_counter l7dir2 records || { show l7dir; show l7dir2; return 1; }
	note "$(show l7dir2 | grep '^l7 ')"
	show l7dir2 | grep -q "^l7 backup sync channel (interface=sync0, peer=2001:db8:203::1,$SILENT6," ||
		return 1
	touch "$TMP/v6go"
	wait_for -s 60 grep -q '^ok' "$TMP/v6held" || { cat "$TMP/v6held"; return 1; }
	wait_eq 1 sync_counter l7dir2 deleted || { show l7dir2; return 1; }
	in_d l7dir "$IPVSADM" --stop-l7-sync && in_d l7dir2 "$IPVSADM" --stop-l7-sync
}

# A connection this director holds at a request boundary, of which the
# peer sends a newer record: the peer took it over (the VIP moved while
# this director lived), so ours ends without a word (displaced); the
# client's next request finds no connection here, and a record whose
# window it is out of (blind): a RST at the request's own ACK.
displaced() {
	local cport
	restart l7dir both 203.0.113.3 || return 1
	in_cli $PY "$CLIENTS/held_conn.py" "$L7TB_VIP" "$TMP/dready" \
		"$TMP/dgo" --requests 1 > "$TMP/dheld" 2>&1 &
	wait_for -s 60 test -e "$TMP/dready" || { cat "$TMP/dheld"; return 1; }
	cport=$(held_port)
	[ -n "$cport" ] && [ "$(wc -w <<< "$cport")" = 1 ] ||
		{ echo "client ports: '$cport'"; return 1; }
	send_to 203.0.113.1 "$TMP/key" "$ID" upsert \
		"$cport" 1 || return 1
	wait_eq 1 sync_counter l7dir displaced || { show l7dir; return 1; }
	touch "$TMP/dgo"
	wait_for -s 60 grep -q . "$TMP/dheld"
	note "held connection's next request: $(cat "$TMP/dheld")" "$(show l7dir | tail -n 1)"
	grep -q '^error' "$TMP/dheld" && [ "$(sync_counter l7dir blind)" = 1 ] ||
		{ show l7dir; return 1; }
	in_d l7dir "$IPVSADM" --stop-l7-sync
}

# applied_all: l7dir2 applied every record l7dir sent, one way or another
applied_all() {
	[ $(( $(cnt l7dir2 stored) + $(cnt l7dir2 deleted) + $(cnt l7dir2 stale) )) = \
		"$(cnt l7dir sent_records)" ]
}

# Both directors in role both, each the other's peer (as l7-sync-up
# starts them), keep-alive clients cycling on l7dir so that it sends
# records all the time, while the third host floods l7dir's port with
# forged datagrams from l7dir2's address (they pass the source check and
# meet the authentication): l7dir counts them (bad_hmac), and l7dir2
# takes exactly what l7dir sent - no forged record, none corrupted.
both_under_flood() {
	local kpid end rc=0
	restart l7dir both 203.0.113.2 --sync-idle 1 &&
	restart l7dir2 both 203.0.113.1 || return 1
	# l7dir2 took l7dir's start: all l7dir sends from now on counts
	wait_eq 1 sync_counter l7dir2 peers || { show l7dir; show l7dir2; return 1; }
	rm -f "$TMP/fstop"
	in_cli timeout 300 $PY "$CLIENTS/kaloop.py" "$L7TB_VIP" --conns 20 \
		--requests 100000 --pace 0.05 --timeout 30 --until "$TMP/fstop" \
		> "$TMP/fka" 2>&1 &
	kpid=$!
	in_d l7dir3 timeout 60 $SYNC flood 203.0.113.1 "$PORT" 15 \
		--src 203.0.113.2 --syncid "$ID" > "$TMP/flood" 2>&1 || rc=1
	touch "$TMP/fstop"
	wait $kpid || rc=1
	# the connections closed: their DELETEs, then nothing more to send
	# (bounded in time: each try reads four counters, slow in the guest)
	end=$((SECONDS + 40))
	until applied_all || [ $SECONDS -ge $end ]; do sleep 1; done
	note "$(cat "$TMP/flood")" "clients: $(head -n 1 "$TMP/fka")" \
		"l7dir:  $(show l7dir | tail -n 1)" "l7dir2: $(show l7dir2 | tail -n 1)"
	[ $rc = 0 ] || { cat "$TMP/fka"; return 1; }
	[ "$(cnt l7dir2 bad_hmac)" = 0 ] && [ "$(cnt l7dir2 malformed)" = 0 ] &&
		[ "$(cnt l7dir2 stale)" = 0 ] && applied_all &&
		[ "$(cnt l7dir sent_records)" -gt 0 ] &&
		[ "$(cnt l7dir bad_hmac)" -gt 0 ] || return 1
	in_d l7dir "$IPVSADM" --stop-l7-sync && in_d l7dir2 "$IPVSADM" --stop-l7-sync
}

testbed_up
add_service "$VS" l7 1 1 1
sync_link
new_key "$TMP/key"
wait_for pools_ready >/dev/null

t_check "sync: l7sync.py's format, keys and handshake against RFC 8439 and sync_peer.h (selftest)" in_d l7dir3 $SYNC selftest
t_check "sync: a key file others may read is refused" refuses_open_key
t_check "sync: a key of one byte repeated (all 0x00, all 0x41) is refused" refuses_weak_key
t_check "sync: master and backup start, shown by -L --daemon; a second start refused" starts_both
t_check "sync: refused outside the initial user namespace" refused_outside_init_userns
t_check "sync: keep-alive clients idle at a boundary held by the backup, a DELETE when one closes" master_records
t_check "sync: a capture of the link holds no client address or port in clear" no_clear_numbers
t_check "sync: the director's own datagram sent back to it is dropped (reflected), nothing ended" reflection_ignored
t_check "sync: datagrams replayed to a restarted backup are not taken" replay_after_restart
t_check "sync: a datagram with the key from another address than the peer's is dropped (bad_source)" foreign_source
t_check "sync: a third sender with the key: its records and DELETEs applied" third_sender_with_key
t_check "sync: a backup of two peers takes both's records; one peer's datagrams from the other's address are not taken" several_peers
t_check "sync: a wrong key is dropped and counted (bad_hmac)" wrong_key
t_check "sync: a wrong sync id is dropped and counted (bad_syncid)" wrong_sync_id
t_check "sync: datagrams that do not read are dropped and counted (malformed), a flipped tag bit (bad_hmac)" malformed
t_check "sync: past its cap the backup evicts the oldest, counted" cap_evicts_oldest
t_check "sync: stop removes both channels" stop_removes_all
t_check "sync: peer lists refused whole (nine, a peer twice, two families, a bad address, another attribute, PEER not PEERS' first, none); eight started" in_d l7dir $SYNC start-peers
t_check "sync: the channel over IPv6: a record and its DELETE" over_ipv6
t_check "sync: a client taken over from its record; a forged segment or a deleted record gets a RST" takeover
t_check "sync: a newer record from the peer ends this director's copy of the connection (displaced)" displaced
t_check "sync: records of absent clients probed fourteen times when an address comes up, then dropped (expired); none probed again" probes_drain
t_check "sync: both directors sending, one flooded with forged datagrams from its peer's address: the other takes exactly the records sent" both_under_flood
t_check "sync: three directors, each the others' peer: the master's records and DELETEs at both others; its datagrams to one do not open at the other" three_directors

lingering_stop
testbed_down
rm -rf "$TMP"
t_summary
