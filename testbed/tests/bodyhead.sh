#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A segment that ends a request body and starts the next head:
# the director forwards the body's end to its server and keeps the head
# part; the client is acknowledged once that server has the body, and
# never has to resend (before, the head part was cut off and came again
# only after the client's retransmission timeout, 200 ms at least).
# Measured against a baseline that sends nothing after a body before its
# answer: the time until the client's TCP has all it sent acknowledged
# (what a retransmission timeout delays; the CGI's own time is not in it)
# must stay within MARGIN_MS of the baseline's, so the emulated guest's
# speed cancels out.  Runs in the guest.
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
TMP=$(mktemp -d)
ROUNDS=10
# half of Linux's smallest RTO: a resend after a timeout cannot hide in it
MARGIN_MS=100

modprobe ip_vs_l7 datapath=1
testbed_up
add_service "$VS" l7 1 1 1
wait_for pools_ready

exec 3>&1
note() { printf '     %s\n' "$@" >&3; }

# exchange MODE: bodyhead.py's rounds in MODE, its summary line in $TMP/MODE
exchange() {
	in_cli "$PY" "$L7TB_DIR/clients/bodyhead.py" "$L7TB_VIP" "$1" \
		--rounds "$ROUNDS" > "$TMP/out.$1" 2>&1 || { cat "$TMP/out.$1"; return 1; }
	tail -n 1 "$TMP/out.$1" > "$TMP/$1"
	note "$(cat "$TMP/$1")"
}

# field MODE NAME: NAME=value from MODE's summary line
field() {
	tr ' ' '\n' < "$TMP/$1" | awk -F= -v n="$2" '$1 == n { print $2 }'
}

baseline() {
	exchange apart || return 1
	[ "$(field apart retrans)" -le 1 ] || { cat "$TMP/out.apart"; return 1; }
}

# quick MODE SEGS: byte-exact, the body's end went in SEGS segments in
# all, the median time to the ACK of all of it no more than the
# baseline's plus MARGIN_MS, and a client retransmission in one round of
# ten at most: a tail-loss probe (2 RTTs, not a timeout) may go out when
# the emulated director is slow to acknowledge; without the fix a round
# waited for the retransmission timeout in 3 to 10 rounds of ten
quick() {
	local limit
	exchange "$1" || return 1
	limit=$(awk -v b="$(field apart ack_ms)" -v m=$MARGIN_MS 'BEGIN { print b + m }')
	[ "$(field "$1" segs)" = "$2" ] ||
		{ echo "the body's end took $(field "$1" segs) segments, want $2"; return 1; }
	[ "$(field "$1" retrans)" -le 1 ] ||
		{ cat "$TMP/out.$1"; echo "the client retransmitted more than once"; return 1; }
	awk -v t="$(field "$1" ack_ms)" -v l="$limit" 'BEGIN { exit !(t <= l) }' ||
		{ cat "$TMP/out.$1"; echo "median time to the ACK over $limit ms"; return 1; }
}

# under 3% loss, reordering and delay both ways the client resends - the
# segment with the body's end and the head among others, whole or in
# part, before or after the director took the head part: every answer
# stays byte-exact and in order
lossy() {
	local m rc=0
	in_cli tc qdisc add dev eth0 root netem delay 3ms loss 3% reorder 1% 25%
	in_dir tc qdisc add dev dcli root netem delay 3ms loss 3% reorder 1% 25%
	for m in joined piped chunked two; do
		in_cli "$PY" "$L7TB_DIR/clients/bodyhead.py" "$L7TB_VIP" "$m" \
			--rounds 20 > "$TMP/lossy.$m" 2>&1 ||
			{ cat "$TMP/lossy.$m"; rc=1; break; }
		note "lossy $(tail -n 1 "$TMP/lossy.$m")"
	done
	in_cli tc qdisc del dev eth0 root
	in_dir tc qdisc del dev dcli root
	return $rc
}

t_check "bodyhead: baseline, the next head sent after the answer: byte-exact, no resend" baseline
t_check "bodyhead: a body's end and the next head in one segment: no resend, no timeout" quick joined $ROUNDS
t_check "bodyhead: ... the head in the segment right after: no resend, no timeout" quick two $ROUNDS
t_check "bodyhead: ... two pipelined heads in that segment: answers in order, exact" quick piped $ROUNDS
t_check "bodyhead: ... a chunked body's last chunks and the head in one segment" quick chunked $ROUNDS
t_check "bodyhead: ... and the client's FIN in it too: both answers, then closed" quick fin 1
t_check "bodyhead: all of it under 3% loss and reordering: byte-exact, in order" lossy
in_dir cat /proc/net/ip_vs_l7

testbed_down
rm -rf "$TMP"
t_summary
