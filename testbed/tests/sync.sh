#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The l7 checkpoint channel between two directors: started and stopped
# with the patched ipvsadm (--start-l7-sync, --stop-l7-sync, -L --daemon),
# the master's records of keep-alive clients idle at a request boundary
# held by the backup, a DELETE when one closes; datagrams written by hand
# (testbed/clients/l7sync.py, an implementation of the format and HMAC of
# its own) from a third host on the sync link: the backup keeps what is
# authenticated, drops and counts a wrong key, a wrong sync id and what
# does not read, and evicts the oldest past its cap.  Then the first
# director in role both: a client it has only a record of, its segments
# written by hand (testbed/clients/rawtcp.py adopt*), is taken over; a
# forged segment or a deleted record gets a RST; a newer record of a
# connection it holds ends its copy (displaced).  Runs in the guest.
#
#   l7cli -- l7dir (master, the l7 service) -- s1..s3      (topology up)
#              | sync0 203.0.113.1
#   [l7syn: bridge sw] -- l7dir2 sync0 203.0.113.2 (backup)
#              \-------- l7dir3 sync0 203.0.113.3 (a third sender)
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
IPVSADM=$L7TB_BUILD/ipvsadm/ipvsadm
CLIENTS=$L7TB_DIR/clients
SYNC="$PY $CLIENTS/l7sync.py"
TMP=$(mktemp -d)
PORT=8849
ID=7

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
}

# new_key FILE: 64 hex digits, readable by its owner only
new_key() {
	(umask 077; od -An -N32 -tx1 /dev/urandom | tr -d ' \n' > "$1"; echo >> "$1")
}

# start DIR ROLE PEER [options]
start() {
	local d=$1 role=$2 peer=$3
	shift 3
	in_d "$d" "$IPVSADM" --start-l7-sync "$role" --mcast-interface sync0 \
		--sync-peer "$peer" --mcast-port "$PORT" --syncid "$ID" \
		--sync-key-file "$TMP/key" "$@"
}

# records_are N: the backup holds N records
records_are() { [ "$(sync_counter l7dir2 records)" = "$1" ]; }

# send ARGS...: l7sync.py send from the third host, to the backup
send() {
	local keyfile=$1 id=$2
	shift 2
	in_d l7dir3 $SYNC send "$keyfile" "$id" 203.0.113.2 "$PORT" "$@"
}

show() { in_d "$1" "$IPVSADM" -L --daemon; }

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
	printf '%s\n' "$m" | grep -q "^l7 master sync channel (interface=sync0, peer=203.0.113.2, port=$PORT, syncid=$ID, idle=100ms, max_records=65536, maxlen=1472)" &&
	printf '%s\n' "$b" | grep -q "^l7 backup sync channel (interface=sync0, peer=203.0.113.1, port=$PORT, syncid=$ID, idle=200ms" ||
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
# one record each; one that closes is a DELETE
master_records() {
	local i n=4
	for i in $(seq 1 $n); do
		in_cli $PY "$CLIENTS/held_conn.py" "$L7TB_VIP" "$TMP/ready$i" \
			"$TMP/go$i" --requests 1 > "$TMP/held$i" 2>&1 &
	done
	for i in $(seq 1 $n); do
		wait_for -s 60 test -e "$TMP/ready$i" || { cat "$TMP/held$i"; return 1; }
	done
	wait_eq $n sync_counter l7dir2 records ||
		{ show l7dir; show l7dir2; return 1; }
	note "$n idle clients: master $(sync_counter l7dir sent_records) records sent; backup holds $(sync_counter l7dir2 records)"
	[ "$(sync_counter l7dir2 stored)" = $n ] || { show l7dir2; return 1; }
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

# the third host, with the key: its records are held, its DELETEs too
third_sender_with_key() {
	local before
	before=$(sync_counter l7dir2 records)
	send "$TMP/key" "$ID" upsert 30001 40 || return 1
	wait_eq $((before + 40)) sync_counter l7dir2 records || { show l7dir2; return 1; }
	send "$TMP/key" "$ID" delete 30001 5 || return 1
	wait_eq $((before + 35)) sync_counter l7dir2 records || { show l7dir2; return 1; }
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

wrong_key() {
	new_key "$TMP/other"
	dropped_as bad_hmac send "$TMP/other" "$ID" upsert 31001 10
}

wrong_sync_id() {
	dropped_as bad_syncid send "$TMP/key" $((ID + 1)) upsert 32001 10
}

malformed() {
	local how records
	records=$(sync_counter l7dir2 records)
	for how in short version count trailing; do
		in_d l7dir3 $SYNC send-bad "$TMP/key" "$ID" 203.0.113.2 "$PORT" \
			"$how" || return 1
	done
	wait_eq 4 sync_counter l7dir2 malformed || { show l7dir2; return 1; }
	[ "$(sync_counter l7dir2 records)" = "$records" ] || { show l7dir2; return 1; }
}

cap_evicts_oldest() {
	in_d l7dir2 "$IPVSADM" --stop-l7-sync || return 1
	start l7dir2 backup 203.0.113.1 --sync-records 50 || return 1
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
takeover() {
	local dmac out=${L7_RESULTS:-$TMP}/rawtcp-adopt.out
	start l7dir both 203.0.113.2 || return 1
	in_d l7dir3 $SYNC send "$TMP/key" "$ID" 203.0.113.1 "$PORT" upsert 40901 3 &&
	in_d l7dir3 $SYNC send "$TMP/key" "$ID" 203.0.113.1 "$PORT" delete 40903 1 ||
		return 1
	wait_eq 2 sync_counter l7dir records || { show l7dir; return 1; }
	dmac=$(in_dir cat /sys/class/net/dcli/address)
	raw_client_rsts drop
	in_cli timeout 600 env HOME=/tmp /usr/bin/python3 "$CLIENTS/rawtcp.py" \
		"$dmac" adopt adopt-forged adopt-deleted > "$out" 2>&1
	raw_client_rsts keep
	note "$(cat "$out")" "$(show l7dir | tail -n 1)"
	grep -qx 'ok   adopt' "$out" && grep -qx 'ok   adopt-forged' "$out" &&
		grep -qx 'ok   adopt-deleted' "$out" || return 1
	[ "$(sync_counter l7dir adopted)" = 1 ] && [ "$(sync_counter l7dir refused)" = 1 ] &&
		[ "$(sync_counter l7dir records)" = 0 ] || { show l7dir; return 1; }
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
	show l7dir2 | grep -q '^l7 backup sync channel (interface=sync0, peer=2001:db8:203::1,' ||
		return 1
	touch "$TMP/v6go"
	wait_for -s 60 grep -q '^ok' "$TMP/v6held" || { cat "$TMP/v6held"; return 1; }
	wait_eq 1 sync_counter l7dir2 deleted || { show l7dir2; return 1; }
	in_d l7dir "$IPVSADM" --stop-l7-sync && in_d l7dir2 "$IPVSADM" --stop-l7-sync
}

# A connection this director holds at a request boundary, of which the
# peer sends a newer record: the peer took it over (the VIP moved while
# this director lived), so ours ends without a word (displaced); the
# client's next request finds no connection here, and a record it does
# not fit: a RST.
displaced() {
	local cport
	start l7dir both 203.0.113.2 || return 1
	in_cli $PY "$CLIENTS/held_conn.py" "$L7TB_VIP" "$TMP/dready" \
		"$TMP/dgo" --requests 1 > "$TMP/dheld" 2>&1 &
	wait_for -s 60 test -e "$TMP/dready" || { cat "$TMP/dheld"; return 1; }
	cport=$(in_cli ss -Htn state established "( dport = :80 )" |
		awk '{ n = split($3, a, ":"); print a[n] }')
	[ -n "$cport" ] && [ "$(wc -w <<< "$cport")" = 1 ] ||
		{ echo "client ports: '$cport'"; return 1; }
	in_d l7dir3 $SYNC send "$TMP/key" "$ID" 203.0.113.1 "$PORT" upsert \
		"$cport" 1 || return 1
	wait_eq 1 sync_counter l7dir displaced || { show l7dir; return 1; }
	touch "$TMP/dgo"
	wait_for -s 60 grep -q . "$TMP/dheld"
	note "held connection's next request: $(cat "$TMP/dheld")" "$(show l7dir | tail -n 1)"
	grep -q '^error' "$TMP/dheld" && [ "$(sync_counter l7dir refused)" = 1 ] ||
		{ show l7dir; return 1; }
	in_d l7dir "$IPVSADM" --stop-l7-sync
}

testbed_up
add_service "$VS" l7 1 1 1
sync_link
new_key "$TMP/key"
wait_for pools_ready >/dev/null

t_check "sync: a key file others may read is refused" refuses_open_key
t_check "sync: a key of one byte repeated (all 0x00, all 0x41) is refused" refuses_weak_key
t_check "sync: master and backup start, shown by -L --daemon; a second start refused" starts_both
t_check "sync: refused outside the initial user namespace" refused_outside_init_userns
t_check "sync: keep-alive clients idle at a boundary held by the backup, a DELETE when one closes" master_records
t_check "sync: a third sender with the key: its records and DELETEs applied" third_sender_with_key
t_check "sync: a wrong key is dropped and counted (bad_hmac)" wrong_key
t_check "sync: a wrong sync id is dropped and counted (bad_syncid)" wrong_sync_id
t_check "sync: datagrams that do not read are dropped and counted (malformed)" malformed
t_check "sync: past its cap the backup evicts the oldest, counted" cap_evicts_oldest
t_check "sync: stop removes both channels" stop_removes_all
t_check "sync: the channel over IPv6: a record and its DELETE" over_ipv6
t_check "sync: a client taken over from its record; a forged segment or a deleted record gets a RST" takeover
t_check "sync: a newer record from the peer ends this director's copy of the connection (displaced)" displaced

testbed_down
rm -rf "$TMP"
t_summary
