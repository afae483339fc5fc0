#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# testbed/bench/profile.sh [--secs S] [--workload W] [--rounds N]
# CONFIG...: where the
# guest's CPU goes while one workload runs through each configuration
# (B1rr = IPVS-NAT rr, B4 = ip_vs_l7), for finding the director's extra
# cost per request.  perf samples every CPU (cpu-clock: the emulated CPU
# has no hardware counters) at 999 Hz, without call graphs: unwinding
# every sample took a quarter of the guest and hid W1's difference.  Per
# configuration and round it writes the requests served, then every
# symbol with its share and count of samples, to
# $L7_RESULTS/profile-CONFIG-ROUND.txt.  Rounds (default 1) repeat every
# configuration, each round led by the next one: a single cell's counts
# move by a third with the host's drift.
# Run by scripts/profile, which sets the counts per request side by side.
set -eu
. "$(dirname "$0")/../lib.sh"

SECS=8
W=W1
ROUNDS=1
while [ $# -gt 0 ]; do
	case $1 in
	--secs) SECS=$2; shift 2 ;;
	--workload) W=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	*) break ;;
	esac
done
OUT=${L7_RESULTS:?}
BENCH=$L7TB_DIR/bench

port_of() {
	case $1 in
	B1rr) echo 80 ;;
	B4) echo 82 ;;
	*) echo "profile: unknown configuration $1" >&2; exit 2 ;;
	esac
}

sched_of() {
	case $1 in
	B1rr) echo rr ;;
	B4) echo l7 ;;
	esac
}

"$L7TB_DIR/topology" up
# the backends capped as in the bench (workload_capped in lib.sh):
# elsewhere a cap would make the backends, not the director, what the
# guest waits for
if workload_capped "$W"; then
	"$L7TB_DIR/apache" start --cpu-max "$L7TB_CPU_MAX"
else
	"$L7TB_DIR/apache" start
fi
in_dir sysctl -qw net.ipv4.vs.conntrack=0
for cfg in "$@"; do
	port=$(port_of "$cfg")
	in_dir ipvsadm -A -t "$L7TB_VIP:$port" -s "$(sched_of "$cfg")"
	for b in $L7TB_BACKENDS; do
		in_dir ipvsadm -a -t "$L7TB_VIP:$port" -r "$(backend_ip "$b"):80" -m -w 1
	done
done
sleep 5	# the pools fill

rm -f "$OUT"/profile-*.txt	# a longer run's rounds are no part of this one
for r in $(seq 1 "$ROUNDS"); do
	for cfg in $(rotated $((r - 1)) "$@"); do
		base=http://$L7TB_VIP:$(port_of "$cfg")
		"$BENCH/load" "$W" "$base" 2 > /dev/null 2>&1 || true	# warm up
		perf record -q -a -F 999 -o "$OUT/perf-$cfg.data" -- \
			"$BENCH/load" "$W" "$base" "$SECS" > "$OUT/load-$cfg.txt" 2>/dev/null
		{
			cat "$OUT/load-$cfg.txt"
			perf report -i "$OUT/perf-$cfg.data" --no-children --sort sym \
				-n --stdio 2>/dev/null | grep -v -e '^$' -e '^#'
		} > "$OUT/profile-$cfg-$r.txt"
		echo "profile: $cfg round $r: $(cat "$OUT/load-$cfg.txt")"
	done
done
