#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# testbed/bench/director-load.sh CLI-MAC SRV-MAC [--reps N] [--secs S]
#     [--configs "B0 ..."] [--cases "W1@100 W1@200 ..."] [--profile 0|1]
#     [--capacity "B0 B1rr ..."] [--cap-workloads "W1 W6"]
#     [--shares "PCT ..."] [--l7-params "NAME=VALUE ..."]
# The load guest of make bench-director (scripts/bench-director): the
# client (l7cli) and the three Apache backends (l7s1..3, uncapped), the
# director in a guest of its own (director.sh) reached through the links.
# It sets the director's configurations up through the director's control
# server, then runs the cells: each workload at each rate under each
# configuration, rotated, REPS times, an idle cell (no load) at the start
# of each repetition.  A cell is bracketed by marks the host answers
# (scripts/bench-director-sample reads both QEMU processes' CPU time at
# each) and by both guests' /proc/uptime (wall and idle: busy = wall -
# idle; busy jiffies would miss the softirq work between ticks).
#   W1  1 KB, keep-alive           W3  100 KB, keep-alive
#   W6  1 KB, one request per connection (Connection: close)
# each case WORKLOAD@RATE at RATE requests/s, open loop (paced.lua), over
# 8 connections.  The rates are what the load guest's one vCPU holds
# under every configuration (its Apache, wrk, and for W6 both ends of
# every backend connection): at 200 W1 requests/s, 100 of W3 or 200 of W6
# it ran at 89-98 % and sent up to a fifth of the requests late.
# --capacity: after the paced cells, the configurations' ceiling: Apache
# gives way to a minimal responder (testbed/bench/responder: nginx serving
# the same files, no log), and wrk runs W1 and W6 as closed loops over
# CAP_CONNS connections (cases W1@max, W6@max): the most requests a second
# the two guests reach, with how busy each was ("" skips it).
# --cap-workloads: the workloads of those cells (default "W1 W6"; W3 too).
# --shares: the capacity cells once per share, the director's vCPU thread
# limited to PCT % of a host core (scripts/bench-director-sample; 0: no
# limit): with a small enough share the director, not the load guest,
# runs out first, and each configuration's ceiling is measured at the
# same share (cases W1@maxPCT, W6@maxPCT; W1@max unlimited).
# --l7-params: ip_vs_l7's parameters for the run (director.sh params),
# set once the configurations are up; meta.txt records them all.
# --profile 1: perf samples the director's guest during every loaded cell
# (director.sh prof), written to profile-CELL.txt; the samples cost the
# director CPU, so such a run's costs are for comparing with each other.
# Writes meta.txt, cells.csv and load.log to $L7_RESULTS.
set -eu
. "$(dirname "$0")/../lib.sh"

CLI_MAC=$1 SRV_MAC=$2
shift 2
REPS=5
SECS=8
CONFIGS="B0 B1rr B4 B4xff B4r100 B4log B5 B2 B3"
CASES="W1@100 W1@150 W3@25 W3@50 W6@50 W6@100"
PROFILE=0
CAPACITY="B0 B1rr B4 B2 B3"
CAP_CONNS=32
CAP_WORKLOADS="W1 W6"
SHARES=0
L7_PARAMS=
while [ $# -gt 0 ]; do
	case $1 in
	--reps) REPS=$2 ;;
	--secs) SECS=$2 ;;
	--configs) CONFIGS=$2 ;;
	--cases) CASES=$2 ;;
	--profile) PROFILE=$2 ;;
	--capacity) CAPACITY=$2 ;;
	--cap-workloads) CAP_WORKLOADS=$2 ;;
	--shares) SHARES=$2 ;;
	--l7-params) L7_PARAMS=$2 ;;
	*) echo "director-load.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift 2
done
OUT=${L7_RESULTS:?}
BENCH=$L7TB_DIR/bench
. "$BENCH/configs.sh"	# base_of
CTL="/dev/tcp/$L7TB_VIP/9999"
CONNS=8

# dirq WORDS...: one command to the director's control server (ctl.py)
dirq() {
	in_cli bash -c 'exec 3<> "$1" && echo "$2" >&3 && cat <&3' _ "$CTL" "$*"
}

# dirrun WORDS...: a director.sh command through it; fails when it did
dirrun() {
	local out
	out=$(dirq "$@") || return 1
	printf '%s\n' "$out" | grep -v '^rc='
	printf '%s\n' "$out" | grep -qx 'rc=0'
}

# dirstat: the director's /proc/uptime; a failure costs the cell's
# figures (zeros, which the report's checks show), not the run
dirstat() {
	dirq stat | grep '^uptime ' ||
		{ echo "bench: no stat from the director" >> "$OUT/load.log"; echo "uptime 0 0"; }
}

# mark NAME: the host samples both QEMU processes now; wait for its ack
mark() {
	mkdir -p "$OUT/mark"
	: > "$OUT/mark/$1"
	wait_for -s 30 test -e "$OUT/ack/$1" > /dev/null ||
		echo "bench: no host sample for $1" | tee -a "$OUT/load.log"
}

# workloads_of CONFIG: the X-Forwarded-For, rules and logger variants cost
# per request what B4's head handling costs more, which 1 KB keep-alive
# shows best; B5 is the per-request connection B4 avoids (W1, W6)
workloads_of() {
	case $1 in
	B4xff | B4r* | B4log) echo W1 ;;
	B5) echo W1 W6 ;;
	*) echo W1 W3 W6 ;;
	esac
}

# paced CONFIG WORKLOAD RATE SECS: one run of the generator, its "paced"
# line (paced.lua); RATE max[PCT]: a closed loop over CAP_CONNS connections
paced() {
	local url hdr=() conns=$CONNS rate=$3
	case $rate in max*) rate=max conns=$CAP_CONNS ;; esac
	url=$(base_of "$1")
	case $2 in
	W1) url=$url/static/1k.bin ;;
	W3) url=$url/static/100k.bin ;;
	W6) url=$url/static/1k.bin hdr=(-H "Connection: close") ;;
	esac
	in_cli env PACED_RATE="$rate" wrk -t1 -c"$conns" -d"$4s" --timeout 10s \
		"${hdr[@]}" -s "$BENCH/paced.lua" "$url" 2>&1 | tee -a "$OUT/load.log" |
		sed -n 's/^paced //p'
}

# retrans: the client's TCP segments sent again so far (its namespace's
# TcpRetransSegs): a cell whose client resent had segments dropped or
# answered later than its retransmission timeout
retrans() {
	in_cli nstat -asz TcpRetransSegs 2>/dev/null | awk '$1 == "TcpRetransSegs" { print $2; f = 1 } END { if (!f) print 0 }'
}

# cell REP CONFIG WORKLOAD RATE: one measurement, one CSV row (the idle
# cell: CONFIG idle, WORKLOAD and RATE -)
cell() {
	local rep=$1 cfg=$2 w=$3 rate=$4 name d0 d1 l0 l1 res logged=- r0 r1
	local requests=0 secs=0 errors=0 late=0 p50=- p90=- p99=- p999=-
	name=r$rep-$cfg-$w-$rate
	if [ "$cfg" = B4log ]; then
		dirrun log start >> "$OUT/load.log" ||
			{ echo "bench: $name: no logger, no cell" | tee -a "$OUT/load.log"; return 0; }
	fi
	echo "== $name" >> "$OUT/load.log"
	if [ "$PROFILE" = 1 ] && [ "$cfg" != idle ]; then
		dirrun prof start "$name" >> "$OUT/load.log" ||
			echo "bench: $name: no profile" | tee -a "$OUT/load.log"
	fi
	r0=$(retrans)
	{ echo "== $name: the director's counters before"; dirq counters; } >> "$OUT/load.log"
	mark "$name.start"
	d0=$(dirstat) l0=$(cat /proc/uptime)
	if [ "$cfg" = idle ]; then
		sleep "$SECS"
	else
		res=$(paced "$cfg" "$w" "$rate" "$SECS")
	fi
	l1=$(cat /proc/uptime) d1=$(dirstat)
	mark "$name.end"
	r1=$(retrans)
	{ echo "== $name: the director's counters after"; dirq counters; } >> "$OUT/load.log"
	if [ "$cfg" = B4log ]; then
		logged=$(dirrun log stop | sed -n 's/^logged=//p')
	fi
	if [ "$PROFILE" = 1 ] && [ "$cfg" != idle ]; then
		dirrun prof stop "$name" >> "$OUT/load.log" ||
			echo "bench: $name: no profile" | tee -a "$OUT/load.log"
	fi
	[ -z "${res:-}" ] || eval "$res"	# requests= secs= errors= late= p50= ...
	echo "$rep,$cfg,$w,$rate,$name,$requests,$secs,$errors,$late,$p50,$p90,$p99,$p999,$logged,$((r1 - r0)),$(
		echo "$d0 $d1" | awk '{ printf "%.2f,%.2f", $5 - $2, $6 - $3 }'),$(
		echo "$l0 $l1" | awk '{ printf "%.2f,%.2f", $3 - $1, $4 - $2 }')" >> "$OUT/cells.csv"
	printf 'bench: %5ss %-24s %6s req  errors %s  late %s  resent %s  p50 %s  p99 %s ms\n' \
		"$SECONDS" "$name" "$requests" "$errors" "$late" "$((r1 - r0))" "$p50" "$p99"
	[ "$errors" = 0 ] || echo "bench: !!!! $name: $errors ERRORS !!!!"
	sleep 0.5
}

# only the configurations the director set up
CAPACITY=$(for c in $CAPACITY; do echo " $CONFIGS " | grep -qw "$c" && echo "$c"; done | xargs)
"$L7TB_DIR/topology" up-load "$CLI_MAC" "$SRV_MAC"
"$L7TB_DIR/apache" start
: > "$OUT/load.log"
echo "bench: backends up, uptime $(cut -d' ' -f1 /proc/uptime) s; waiting for the director"
wait_for -s 600 dirq stat > /dev/null
echo "bench: director answers, uptime $(cut -d' ' -f1 /proc/uptime) s"
# shellcheck disable=SC2086
dirrun up $CONFIGS >> "$OUT/load.log"
# shellcheck disable=SC2086
[ -z "$L7_PARAMS" ] || dirrun params $L7_PARAMS >> "$OUT/load.log"
{
	echo "load_kernel=$(uname -r)"
	echo "load_cpus=$(nproc)"
	echo "reps=$REPS"
	echo "secs=$SECS"
	echo "conns=$CONNS"
	echo "configs=$CONFIGS"
	echo "cases=$CASES"
	echo "profile=$PROFILE"
	echo "capacity=$CAPACITY"
	echo "cap_conns=$CAP_CONNS"
	echo "cap_workloads=$CAP_WORKLOADS"
	echo "shares=$SHARES"
	dpkg-query -W -f='version_${Package}=${Version}\n' apache2 wrk
	# shellcheck disable=SC2086
	dirrun meta $CONFIGS
} > "$OUT/meta.txt"
echo "rep,config,workload,rate,cell,requests,secs,errors,late,p50_ms,p90_ms,p99_ms,p999_ms,logged,cli_retrans,dir_wall_s,dir_idle_s,load_wall_s,load_idle_s" \
	> "$OUT/cells.csv"

for rep in $(seq 1 "$REPS"); do
	cell "$rep" idle - -
	ci=0
	for c in $CASES; do
		w=${c%@*} r=${c#*@}
		# shellcheck disable=SC2086
		for cfg in $(rotated $((rep - 1 + ci)) $CONFIGS); do
			workloads_of "$cfg" | grep -qw "$w" || continue
			# the first requests through a configuration pay for what
			# later ones find ready (Apache's threads, a proxy's
			# server connections, l7's pools grown to the load):
			# unrecorded, in every repetition, since the configurations
			# between shrink what the last one left
			paced "$cfg" "$w" "$r" 2 > /dev/null
			cell "$rep" "$cfg" "$w" "$r"
		done
		ci=$((ci + 1))
	done
done
# capacity REP...: the WORKLOAD@max cells of the configurations in
# CAPACITY at each share of SHARES, each workload's configurations
# rotated as the paced cells are
capacity() {
	local rep cfg w share rate i=0
	"$L7TB_DIR/apache" stop
	"$BENCH/responder" start
	for rep in "$@"; do
		for share in $SHARES; do
			mark "share-$share.r$rep"
			rate=max
			[ "$share" = 0 ] || rate=max$share
			for w in $CAP_WORKLOADS; do
				# shellcheck disable=SC2086
				for cfg in $(rotated $((rep - 1 + i)) $CAPACITY); do
					# B0's one backend takes every new connection:
					# its W6 loop stalled in connects at a tenth
					# of the others' rate, both guests mostly idle
					[ "$cfg:$w" != B0:W6 ] || continue
					paced "$cfg" "$w" "$rate" 2 > /dev/null
					cell "$rep" "$cfg" "$w" "$rate"
				done
				i=$((i + 1))
			done
		done
	done
	mark share-0.end
	"$BENCH/responder" stop
}

[ -z "$CAPACITY" ] || capacity $(seq 1 "$REPS")
dirq quit > /dev/null
"$L7TB_DIR/apache" stop
echo "bench: done, $(($(wc -l < "$OUT/cells.csv") - 1)) cells"
