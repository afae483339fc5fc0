#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# testbed/bench/forward.sh [--reps N] [--requests K] [--path PATH]
#                          [--pace S]: what a
# request costs while its flow is forwarded between directors side by
# side, against the same request on a flow that stays, in one boot.
#
# Two directors (topology up-ecmp without BGP: the router's route to the
# VIP is set by hand, per client port), each with the l7 service to the
# three backends and the checkpoint channel to the other, sync_forward
# on.  One keep-alive client (testbed/clients/fwd_cost.py) asks K times
# for PATH (1 MB, read 8 KB every S seconds, 0.01 by default: its
# response lasts long enough for the route to move under most of it)
# and, once each request is sent, routes its flow with one
# command: in the arm "stays" to the director that holds it, in the arm
# "moves" to the other, which forwards the ACKs of that response to the
# holder over the sync link and takes the connection over at the next
# request.  Both arms run the same commands; the guest's busy time per
# request (wall less idle, from /proc/uptime: jiffies miss softirq time)
# and the wall time per request are compared, the arms alternating in
# each repetition's order.  Writes forward.csv to $L7_RESULTS, which
# scripts/bench-report makes a table of.
set -eu
. "$(dirname "$0")/../lib.sh"

REPS=3
REQS=20
URL=/static/1m.bin
PACE=0.01
while [ $# -gt 0 ]; do
	case $1 in
	--reps) REPS=$2 ;;
	--requests) REQS=$2 ;;
	--path) URL=$2 ;;
	--pace) PACE=$2 ;;
	*) echo "forward.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift 2
done
OUT=${L7_RESULTS:?}
IPVSADM=$L7TB_BUILD/ipvsadm/ipvsadm
TMP=$(mktemp -d)
DIRS="l7dir l7dir2"
in_d() { local d=$1; shift; ip netns exec "$d" "$@"; }

"$L7TB_DIR/topology" up-ecmp
"$L7TB_DIR/apache" start
modprobe ip_vs_l7
echo 1 > /sys/module/ip_vs_l7/parameters/sync_forward
(umask 077; od -An -N32 -tx1 /dev/urandom | tr -d ' \n' > "$TMP/key"; echo >> "$TMP/key")
n=1
for d in $DIRS; do
	in_d "$d" "$IPVSADM" -A -t "$L7TB_VIP:80" -s l7
	for b in $L7TB_BACKENDS; do
		in_d "$d" "$IPVSADM" -a -t "$L7TB_VIP:80" -r "$(backend_ip "$b"):80" -m
	done
	in_d "$d" "$IPVSADM" --start-l7-sync both --mcast-interface sync \
		--sync-peer "203.0.113.$((3 - n))" --sync-key-file "$TMP/key" \
		--sync-idle 50
	n=$((n + 1))
done
for d in $DIRS; do wait_for -s 60 pools_ready "$d" >/dev/null; done
ip -n l7rtr route add "$L7TB_VIP/32" via 203.0.113.66

# counter DIR NAME: the channel's counter NAME of DIR
counter() { sync_counter "$1" "$2"; }

# busy: the guest's CPU seconds not idle since boot
busy() {
	awk -v n="$(nproc)" '{ printf "%.3f\n", $1 * n - $2 }' /proc/uptime
}

# arm REP NAME PORT: one run of the client, a row of forward.csv
arm() {
	local rep=$1 name=$2 port=$3 b0 b1 f0 f1 a0 a1 out
	ip -n l7rtr rule add pref 100 ipproto tcp sport "$port" lookup 100
	f0=$(( $(counter l7dir forwarded) + $(counter l7dir2 forwarded) ))
	a0=$(( $(counter l7dir adopted) + $(counter l7dir2 adopted) ))
	b0=$(busy)
	out=$(ip netns exec l7cli "$PY" "$L7TB_DIR/clients/fwd_cost.py" \
		"$L7TB_VIP" "$URL" --sport "$port" --requests "$REQS" --pace "$PACE" \
		--to 203.0.113.66 203.0.113.67 \
		--route "ip -n l7rtr route replace $L7TB_VIP/32 via {} table 100" \
		$([ "$name" = stays ] || echo --moves))
	b1=$(busy)
	f1=$(( $(counter l7dir forwarded) + $(counter l7dir2 forwarded) ))
	a1=$(( $(counter l7dir adopted) + $(counter l7dir2 adopted) ))
	ip -n l7rtr rule del pref 100
	ip -n l7rtr route flush table 100
	echo "$rep,$name,$REQS,$(echo "$out" | awk '{ print $4 }'),$(echo "$b1 - $b0" | bc),$((f1 - f0)),$((a1 - a0))" \
		>> "$OUT/forward.csv"
}

echo "rep,arm,requests,wall_s,busy_s,forwarded,adopted" > "$OUT/forward.csv"
port=42000
for rep in $(seq 1 "$REPS"); do
	order="stays moves"
	[ $((rep % 2)) = 1 ] || order="moves stays"
	for a in $order; do
		arm "$rep" "$a" $((port += 1))
	done
done
cat "$OUT/forward.csv"

for d in $DIRS; do
	in_d "$d" "$IPVSADM" --stop-l7-sync
	in_d "$d" "$IPVSADM" -C
done
"$L7TB_DIR/apache" stop
"$L7TB_DIR/topology" down
l7_unload
rm -rf "$TMP"
