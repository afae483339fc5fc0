#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# testbed/bench/bench.sh [--reps N] [--secs S] [--configs "B0 ..."]
#                        [--workloads "W1 ..."] [--cpu-max "Q P"]
#                        [--mem-conns N]
# The benchmark matrix, run inside one guest boot by scripts/bench.  Every
# configuration uses the same director, the same three backends and the
# same load generators.  B4r10, B4r100 and B4r1000 are B4 with that many
# content rules (W1 only; B4 is the 0-rule run); B4xff is B4 whose service
# puts the client's address in X-Forwarded-For (W1 only; B4 follows the
# module's forwarded parameter, off unless changed).  B5 is B4 whose
# service has the option prefork off (a baseline: a backend
# connection opened for each request and closed after it, what
# post-splicing without pre-forked pools costs).  B4uN is B4 whose real
# servers each have the upper threshold N (ipvsadm -x N): at most N
# requests outstanding at each, the rest wait in the director's queue
# (W7 and W8: what an L4 balancer cannot do, queue requests instead of
# piling them on a busy server).  W8 is the open-loop CGI mix: a fixed
# request rate, derived in this boot from the calibrated costs
# (w8_rate), over six long connections whose mixes differ (B1wlc, B2,
# B3, B4 and B4uN: with every connection opened on idle servers, rr
# places them as wlc does, and B0 is one server).  MEM is not a load but
# the director's memory for N idle client connections (mem_cell).
# W1c1 is W1 with the guest's second vCPU taken offline for the cell
# (cpus_limit), B1rr and B4 only: beside their W1 cells, how each scales
# from 1 to 2 vCPUs in the same boot.  W1s1 is W1 with every real server
# but the first at weight 0 for the cell (servers_weigh), B1rr and B4
# only: all namespaces share the guest's CPUs, so B4's per-request
# balancing makes each request wake another backend's Apache on them,
# while IPVS keeps a client's connection on one; with one server neither
# rotates, and what is left between the two is the director's own cost.
# W1sync is W1 with the director's checkpoint channel running for the
# cell (sync_on), B4 only, at its costliest: a record for every
# boundary as its response's last byte leaves, and sync_idle 1 ms, so
# that another goes for every boundary that lasts a millisecond, to a
# peer on a dummy link (the datagrams are built, sealed and sent, then
# dropped);
# sync.csv has what it sent.
# Writes meta.txt, cells.csv (one row per cell and repetition) and
# mem.csv (one row per MEM cell) to $L7_RESULTS for scripts/bench-report.
set -eu
. "$(dirname "$0")/../lib.sh"

REPS=3
SECS=8
CONFIGS="B0 B1rr B1wlc B2 B3 B4 B4xff B4r10 B4r100 B4r1000 B5 B4u1"
WORKLOADS="W1 W1c1 W1s1 W1sync W2 W3 W4 W5 W6 W7 W8 MEM"
CPU_MAX=$L7TB_CPU_MAX	# in the workload_capped ones (lib.sh)
MEM_CONNS=10000
while [ $# -gt 0 ]; do
	case $1 in
	--reps) REPS=$2 ;;
	--secs) SECS=$2 ;;
	--configs) CONFIGS=$2 ;;
	--workloads) WORKLOADS=$2 ;;
	--cpu-max) CPU_MAX=$2 ;;
	--mem-conns) MEM_CONNS=$2 ;;
	*) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift 2
done
OUT=${L7_RESULTS:?}
BENCH=$L7TB_DIR/bench

. "$BENCH/configs.sh"

# workloads_of CONFIG: what it runs.  wlc differs from rr only in how it
# places connections, which only the CGI workloads W4, W7 and W8 show
# (W7's and W8's goals are stated against wlc); the rule sets cost per request, which W1
# (the most requests a second) shows best.  Their other cells would cost
# bench time and tell nothing new.  B0 has no director to weigh (MEM).
# W1c1 is the scaling goal, B4 against IPVS (B1rr) alone, and
# W1s1 the same two with one real server.
workloads_of() {
	local w=$WORKLOADS
	case $1 in
	B1wlc) w=$(only W4 W7 W8) ;;
	B4r* | B4xff) w=$(only W1) ;;
	# the paper's comparison: per request (W1, W6) and its CGI case (W7)
	B5) w=$(only W1 W6 W7) ;;
	B4u*) w=$(only W7 W8) ;;
	B0) w=$(except MEM W1c1 W1s1 W1sync W8) ;;
	B1rr) w=$(except W1sync W8) ;;
	B4) ;;
	*) w=$(except W1c1 W1s1 W1sync) ;;
	esac
	# shellcheck disable=SC2086
	echo $w
}

# only W...: those of the chosen workloads
only() {
	local w
	for w in "$@"; do
		echo "$WORKLOADS" | tr ' ' '\n' | grep -x "$w" || true
	done
}

# except W...: the chosen workloads but those
except() {
	local w
	for w in $WORKLOADS; do
		echo " $* " | grep -q " $w " || echo "$w"
	done
}

# per backend: "requests passive-opens cpu-usec" (access log lines, TCP
# accepts, its cgroup's CPU time, 0 without one).  Apache's /proc/PID/net
# is its namespace's: no "ip netns exec" needed, which under emulation
# costs more than the reading.
backend_counters() {
	local b cg
	for b in $L7TB_BACKENDS; do
		cg=/sys/fs/cgroup/l7tb-$b/cpu.stat
		echo "$(wc -l < "$L7TB_RUN/$b/access.log")" \
			"$(awk '$1 == "Tcp:" && $2 ~ /^[0-9]/ { print $7 }' \
				"/proc/$(cat "$L7TB_RUN/$b/httpd.pid")/net/snmp")" \
			"$( (awk '$1 == "usage_usec" { print $2 }' "$cg" 2>/dev/null) || echo 0)"
	done
}

# ---- W1c1: the same load on fewer vCPUs ----
# All namespaces share the guest's one kernel, so the director's vCPUs
# are the guest's: a workload WcN runs W with only CPUs 0..N-1 online
# (CPU hot-unplug; the kernel migrates tasks, timers and softirq work
# off the others).  Pinning the load instead would not do: the
# director's work is softirq on whichever CPU the veth's packets are
# handled, which follows the sender, not a mask of ours.  The CPUs come
# back after the cell and, through the EXIT trap, if the bench dies in
# one.  /proc/stat's "cpu" line sums all CPUs, so CPU per request stays
# comparable.

# cpus_limit N: take every CPU but the first N offline
cpus_limit() {
	local f k
	for f in /sys/devices/system/cpu/cpu[0-9]*/online; do
		k=${f#/sys/devices/system/cpu/cpu}
		k=${k%/online}
		[ "$k" -lt "$1" ] || [ "$(cat "$f")" = 0 ] || echo 0 > "$f" || return 1
	done
	[ "$(grep -c ^processor /proc/cpuinfo)" = "$1" ]
}

# cpus_all: every CPU online again
cpus_all() {
	local f
	for f in /sys/devices/system/cpu/cpu[0-9]*/online; do
		[ "$(cat "$f")" = 1 ] || echo 1 > "$f" ||
			echo "bench: !!!! ${f%/online} stays offline !!!!" >&2
	done
}
trap cpus_all EXIT

# ---- W1s1: the same load on fewer real servers ----

# servers_weigh CONFIG N: the first N of the configuration's real servers
# at weight 1, the others at 0 (IPVS and ip_vs_l7 schedule nothing new to
# a server of weight 0)
servers_weigh() {
	local vs b k=0
	vs=$(base_of "$1" | sed 's|^http://||')
	for b in $L7TB_BACKENDS; do
		k=$((k + 1))
		in_dir ipvsadm -e -t "$vs" -r "$(backend_ip "$b"):80" -m \
			-w $((k <= $2 ? 1 : 0)) || return 1
	done
}

# servers_all CONFIG: every real server of the configuration at weight 1 again
servers_all() {
	# shellcheck disable=SC2086
	servers_weigh "$1" "$(echo $L7TB_BACKENDS | wc -w)"
}

# ---- W1sync: the same load with the checkpoint channel on ----
# The channel is per network namespace, so it runs only for the cell.

SYNC_KEY=$OUT/sync.key

# sync_link: a dummy link for the channel (NOARP: what is sent to the
# peer's address is dropped by the device, after the whole send path)
sync_link() {
	in_dir ip link add l7sync type dummy &&
	in_dir ip addr add 203.0.113.1/24 dev l7sync &&
	in_dir ip link set l7sync up &&
	(umask 077; od -An -N32 -tx1 /dev/urandom | tr -d ' \n' > "$SYNC_KEY")
}

sync_on() {
	in_dir "$L7TB_BUILD/ipvsadm/ipvsadm" --start-l7-sync master \
		--mcast-interface l7sync --sync-peer 203.0.113.2 \
		--sync-key-file "$SYNC_KEY" --sync-idle 1
}

# sync_off REP CONFIG REQUESTS: its counters into sync.csv, then stop it
sync_off() {
	local k v st=
	for k in sent sent_records dropped; do
		v=$(sync_counter l7dir "$k")
		st=$st,${v:-0}
	done
	echo "$1,$2,$3$st" >> "$OUT/sync.csv"
	in_dir "$L7TB_BUILD/ipvsadm/ipvsadm" --stop-l7-sync
}

# gen_of W: the load a workload runs (W1 for W1c1, W1s1 and W1sync)
gen_of() {
	case $1 in
	W1sync) echo W1 ;;
	W*[cs][0-9]*) echo "${1%[cs]*}" ;;
	*) echo "$1" ;;
	esac
}

# cell REP CONFIG WORKLOAD: one measurement, one CSV row
cell() {
	local rep=$1 cfg=$2 w=$3 gen cpus='' servers='' sync='' before after res shares conns
	local late=- busy
	gen=$(gen_of "$w")
	[ "$w" != W1sync ] || sync=1
	if [ -n "$sync" ] && ! sync_on; then
		echo "bench: !!!! $cfg $w rep $rep: the channel did not start, no cell !!!!" |
			tee -a "$OUT/load.log"
		return 0
	fi
	case $w in
	W*c[0-9]*) cpus=${w##*c} ;;
	W*s[0-9]*) servers=${w##*s} ;;
	esac
	if [ -n "$servers" ] && ! servers_weigh "$cfg" "$servers"; then
		echo "bench: !!!! $cfg $w rep $rep: weights not set, no cell !!!!" |
			tee -a "$OUT/load.log"
		servers_all "$cfg" || true
		return 0
	fi
	if [ -n "$cpus" ] && ! cpus_limit "$cpus"; then
		cpus_all
		echo "bench: !!!! $cfg $w rep $rep: CPUs not taken offline" \
			"($(cat /sys/devices/system/cpu/online) online), no cell !!!!" |
			tee -a "$OUT/load.log"
		return 0
	fi
	[ -z "$cpus" ] || echo "bench: $cfg $w rep $rep: CPUs online" \
		"$(cat /sys/devices/system/cpu/online)" >> "$OUT/load.log"
	if [ "$w" = W8 ]; then	# the round's order; each request's latency kept
		mkdir -p "$OUT/w8lat"
		export W8_ROUND=$rep W8_LAT_OUT=$OUT/w8lat/r$rep-$cfg.txt
		echo "bench: $cfg $w rep $rep: servers settled after" \
			"$(backends_settle) s" >> "$OUT/load.log"
	fi
	before=$(backend_counters)
	res=$("$BENCH/load" "$gen" "$(base_of "$cfg")" "$SECS" 2>> "$OUT/load.log") ||
		res="requests=0 secs=0 errors=-1 p50=- p90=- p99=- mean=- cpu=0"
	after=$(backend_counters)
	[ -z "$cpus" ] || cpus_all
	[ -z "$servers" ] || servers_all "$cfg" ||
		echo "bench: !!!! $cfg: weights not restored !!!!" | tee -a "$OUT/load.log"
	shares=$(paste -d' ' <(echo "$before") <(echo "$after") |
		awk '{ printf "%s%d", (NR > 1 ? ";" : ""), $4 - $1 }')
	conns=$(paste -d' ' <(echo "$before") <(echo "$after") |
		awk '{ n += $5 - $2 } END { print n }')
	busy=$(paste -d' ' <(echo "$before") <(echo "$after") |
		awk '{ printf "%s%d", (NR > 1 ? ";" : ""), ($6 - $3) / 1000 }')
	eval "$res"	# requests= secs= errors= [late=] p50= p90= p99= mean= cpu=
	[ -z "$sync" ] || sync_off "$rep" "$cfg" "$requests"
	echo "$rep,$cfg,$w,$secs,$requests,$errors,$p50,$p99,$mean,$cpu,$shares,$conns,$p90,$late,$busy" \
		>> "$OUT/cells.csv"
	printf 'bench: %4ss rep %s %-6s %s  %6s req in %6ss  errors %s  p50 %s p99 %s ms  late %s  cpu %s ticks  per backend %s\n' \
		"$SECONDS" "$rep" "$cfg" "$w" "$requests" "$secs" "$errors" "$p50" \
		"$p99" "$late" "$cpu" "$shares"
	[ "$errors" = 0 ] || echo "bench: !!!! $cfg $w rep $rep: $errors ERRORS !!!!"
	sleep 0.5	# let FINs and TIME_WAIT churn of this cell settle
}

# warm_up CONFIG WORKLOAD: two unrecorded seconds of the workload before a
# configuration's first cell of it.  The first requests through a
# configuration pay for what later ones find ready - Apache children and
# threads, a new pooled connection's quick ACKs, caches - and fell on
# whichever configuration a workload's rotation put first: B4's first W1
# cell once served 5,442 requests where its other four served 7,575-8,440.
warm_up() {
	W8_LAT_OUT='' "$BENCH/load" "$(gen_of "$2")" "$(base_of "$1")" 2 \
		> /dev/null 2>&1 || true
}

# ---- MEM: the director's memory per idle client connection ----
# The clients (testbed/clients/idle_conns.py) open MEM_CONNS connections
# and send nothing on them: the state each configuration keeps for an
# open client connection with no request in flight, the same for all of
# them and with no work at the backends (B4 answers the handshake itself
# and takes a pooled connection only for a request).  One request first
# would be closer to a browser between requests, but would make Apache's
# keep-alive timeout (and 10,000 requests through 25 %-quota backends
# under emulation) part of the measurement.
#
# All namespaces share the guest's one kernel, so the slab's growth also
# holds the client's own sockets (and, under B1, the backends').  Hence a
# baseline each repetition: the same client to a plain listener that
# accepts and holds every connection (idle_conns.py listen); both ends of
# one of its connections are the same objects (a TCP socket, its inode,
# dentry and file; neither end in epoll), so half of the baseline is what
# the client's end costs, and the report subtracts that.  Not quite half:
# only the client's end has a port of its own, with its bind buckets
# (some 100 B), so the director is charged half of those: an error
# against it, never in its favour.  Under B1 the
# far end is a backend's socket, not the director's: IPVS-NAT keeps one
# ip_vs_conn per connection (conntrack=0) and nothing else, so the report
# counts the ip_vs_conn entries times that cache's object size and keeps
# the slab difference (minus the whole baseline) as a cross-check.

# slab_bytes: bytes in live slab objects, all caches (caches SLUB merged
# show under one name, so only the sum is safe)
slab_bytes() {
	awk 'NR > 2 { s += $2 * $4 } END { printf "%d\n", s }' /proc/slabinfo
}

# proxy_rss_kb CONFIG: resident memory of B2's or B3's processes, else 0
proxy_rss_kb() {
	local name pid kb=0
	case $1 in
	B2) name=haproxy ;;
	B3) name=nginx ;;
	*) echo 0; return ;;
	esac
	for pid in $(pgrep -x "$name"); do
		kb=$((kb + $(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")))
	done
	echo "$kb"
}

ipvs_entries() {
	in_dir sh -c 'tail -n +2 /proc/net/ip_vs_conn | wc -l'
}

# accepted PORT: true when the director's listener on PORT has accepted
# every connection (also where nothing listens: B1, B4)
accepted() {
	[ "$(in_dir ss -ltnH "sport = :$1" | awk '{ n += $2 } END { print n + 0 }')" = 0 ]
}

# ipvs_at_most N: true when the director has at most N IPVS entries
ipvs_at_most() {
	[ "$(ipvs_entries)" -le "$1" ]
}

# l7_params NAME=VALUE...: set ip_vs_l7 parameters, print the old ones.
# MEM lifts the per-source cap (all clients are one address) and gives
# the idle clients longer than the 30 s head timeout to be counted in.
l7_params() {
	local kv f
	for kv in "$@"; do
		f=/sys/module/ip_vs_l7/parameters/${kv%%=*}
		[ -w "$f" ] || continue
		echo "${kv%%=*}=$(cat "$f")"
		echo "${kv#*=}" > "$f"
	done
}

# mem_hold REP LABEL HOST PORT: hold MEM_CONNS idle connections to
# HOST:PORT, measure while they are held, write the mem.csv row
mem_hold() {
	local rep=$1 label=$2 host=$3 port=$4 ready=/run/l7bench/held pid
	local slab0 rss0 ent0 held slab1 rss1 ent1 t0=$SECONDS
	mkdir -p /run/l7bench
	rm -f "$ready"
	slab0=$(slab_bytes) rss0=$(proxy_rss_kb "$label") ent0=$(ipvs_entries)
	# not in_cli: a function in the background would leave $! a subshell
	ip netns exec l7cli "$PY" "$L7TB_DIR/clients/idle_conns.py" hold \
		"$host" "$port" "$MEM_CONNS" "$ready" &
	pid=$!
	wait_for -s 900 test -s "$ready"
	held=$(sed 's/held=//' "$ready")
	# the proxies accept after the handshake: count what they hold
	wait_for -s 120 accepted "$port" || echo "bench: $label: accept queue not empty"
	sleep 2
	slab1=$(slab_bytes) rss1=$(proxy_rss_kb "$label") ent1=$(ipvs_entries)
	kill "$pid"
	wait "$pid" || true
	echo "$rep,$label,$MEM_CONNS,$held,$((slab1 - slab0)),$((rss1 - rss0)),$((ent1 - ent0))" \
		>> "$OUT/mem.csv"
	printf 'bench: %4ss rep %s %-6s MEM %s held in %s s, slab +%s B, rss +%s kB, ipvs +%s\n' \
		"$SECONDS" "$rep" "$label" "$held" "$((SECONDS - t0))" \
		"$((slab1 - slab0))" "$((rss1 - rss0))" "$((ent1 - ent0))"
	# the resets leave IPVS entries in CLOSE for 10 s: let them go before
	# the next measurement, so that its slab does not shrink under it
	wait_for -s 60 ipvs_at_most "$ent0" || echo "bench: $label: IPVS entries linger"
}

# mem_settle: wait (2 minutes at most) until the IPVS entries the earlier
# cells left stop expiring (W6 leaves thousands for 2 minutes): what is
# freed during a measurement would come off its delta.  Their TIME_WAIT
# sockets (a few hundred bytes each) expire within the same 2 minutes.
mem_settle() {
	local n0 n1 t0=$SECONDS
	n1=$(ipvs_entries)
	while [ $((SECONDS - t0)) -lt 120 ]; do
		n0=$n1
		sleep 10
		n1=$(ipvs_entries)
		[ "$n1" -lt "$n0" ] || break
	done
	echo "bench: MEM starts with $n1 IPVS entries after $((SECONDS - t0)) s"
}

# mem_baseline REP: the client's own share (see above) on port 8090
mem_baseline() {
	local ready=/run/l7bench/accepted pid
	mkdir -p /run/l7bench
	rm -f "$ready"
	ip netns exec l7dir "$PY" "$L7TB_DIR/clients/idle_conns.py" listen \
		"$L7TB_VIP" 8090 "$MEM_CONNS" "$ready" &
	pid=$!
	wait_for -s 60 test -s "$ready"
	mem_hold "$1" base "$L7TB_VIP" 8090
	kill "$pid"
	wait "$pid" || true
}

# mem_cell REP CONFIG
mem_cell() {
	local vs old
	vs=$(base_of "$2" | sed 's|^http://||')
	case $2 in
	B4* | B5*) old=$(l7_params max_conns_per_source=0 head_timeout=900) ;;
	esac
	mem_hold "$1" "$2" "${vs%:*}" "${vs##*:}"
	# shellcheck disable=SC2086
	[ -z "${old:-}" ] || l7_params $old > /dev/null
}

# burn_calibrate W: the backend CPU (ms, from the backends' cgroups) that
# W's (w7's or w8's) cheap and dear requests cost, three rounds of one of
# each to every backend at once, after one round to warm up: as under the
# load, the servers busy together (under emulation a request costs more
# guest CPU then than alone, which W8's rate must know).  A mix means
# something only if the dear ones cost several times the cheap ones once
# the CGI's fork and exec are paid.
burn_calibrate() {
	local n it u0 u1 nb
	[ -r /sys/fs/cgroup/l7tb-s1/cpu.stat ] || return 0
	nb=$(echo $L7TB_BACKENDS | wc -w)
	for n in cheap dear; do
		it=$("$BENCH/load" params | tr ' ' '\n' | sed -n "s/^$1_$n=//p")
		burn_all "$it"
		u0=$(backends_usec)
		for _ in 1 2 3; do
			burn_all "$it"
		done
		u1=$(backends_usec)
		echo "$1_${n}_cpu_ms=$(awk -v d=$((u1 - u0)) -v n=$((3 * nb)) \
			'BEGIN { printf "%.1f", d / n / 1000 }')"
	done
}

# backends_usec: the CPU time of all backends' cgroups together
backends_usec() {
	local b
	for b in $L7TB_BACKENDS; do
		awk '$1 == "usage_usec" { print $2 }' "/sys/fs/cgroup/l7tb-$b/cpu.stat"
	done | awk '{ s += $1 } END { print s + 0 }'
}

# backends_settle: wait, at most 120 s, until the backends' CGIs are
# done - their cgroups used less than 1 % of a CPU over the last half
# second.  An open loop that fell behind leaves requests its client gave
# up on still running at the servers; they would be charged to whatever
# comes next (the next cell, a calibration).  Prints the seconds waited.
backends_settle() {
	local t=0 u0 u1
	u0=$(backends_usec)
	while [ "$t" -lt 240 ]; do
		sleep 0.5
		u1=$(backends_usec)
		[ $((u1 - u0)) -ge 5000 ] || break
		u0=$u1 t=$((t + 1))
	done
	echo $((t / 2))
}

# burn_all ITERS: one request to each backend at once; a failure costs
# the calibration, not the run
burn_all() {
	local b pids=()
	for b in $L7TB_BACKENDS; do
		ip netns exec l7cli curl -sS -o /dev/null \
			"http://$(backend_ip "$b")/cgi-bin/burn?iters=$1" &
		pids+=($!)
	done
	wait "${pids[@]}" || true
}

# w8_rate FILE: W8's request rate from its costs in FILE (burn_calibrate
# w8): the servers' capacity is their number times each one's cpu.max
# share over the mean CPU of a request of the mix (each connection sends
# the same number of requests, so the mean of the connections' dear
# probabilities weighs the dear cost); W8 offers w8_load of it.  Prints
# the figures; nothing when the costs were not measured.
w8_rate() {
	local p
	p=$("$BENCH/load" params | tr ' ' '\n')
	awk -F= -v q="${CPU_MAX% *}" -v per="${CPU_MAX#* }" \
		-v nb="$(echo $L7TB_BACKENDS | wc -w)" '
		{ v[$1] = $2 }
		END {
			if (!v["w8_cheap_cpu_ms"] || !v["w8_dear_cpu_ms"] || per == "max")
				exit
			np = split(v["w8_dear_ps"], ps, ",")
			for (i = 1; i <= np; i++)
				pm += ps[i] / np
			mean = v["w8_cheap_cpu_ms"] + pm * (v["w8_dear_cpu_ms"] - v["w8_cheap_cpu_ms"])
			cap = nb * q / per * 1000 / mean
			printf "w8_mean_cpu_ms=%.1f\nw8_capacity_rps=%.2f\nw8_rate=%.2f\n",
				mean, cap, v["w8_load"] * cap
		}' <(echo "$p") "$1"
}

# w8_calibrate REP: W8's costs measured again before each repetition's
# round of W8 cells, into meta.txt as w8_*_repN (and, the first, as
# w8_*); the rate they give is exported as W8_RATE for testbed/bench/load
# in the first repetition only, and kept: every round offers the same
# load, so that rounds can be pooled and compared, and the later
# calibrations show how far the guest's speed drifted under it.
w8_calibrate() {
	local f=$OUT/w8-cal.txt
	echo "bench: W8 rep $1: servers settled after $(backends_settle) s" >> "$OUT/load.log"
	{ burn_calibrate w8; } > "$f"
	w8_rate "$f" >> "$f"
	if [ "$1" = 1 ]; then
		W8_RATE=$(sed -n 's/^w8_rate=//p' "$f")
		export W8_RATE
		cat "$f" >> "$OUT/meta.txt"
	fi
	sed "s/=/_rep$1=/" "$f" >> "$OUT/meta.txt"
	echo "bench: W8 rep $1 (offered ${W8_RATE:-?} req/s): $(tr '\n' ' ' < "$f")" |
		tee -a "$OUT/load.log"
	rm "$f"
}

meta() {
	echo "kernel=$(uname -r)"
	echo "cpus=$(nproc)"
	echo "mem_kb=$(awk '/^MemTotal/ { print $2 }' /proc/meminfo)"
	echo "cpu_model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "user_hz=$(getconf CLK_TCK)"
	echo "cpu_max=$CPU_MAX"
	echo "capped_workloads=$L7TB_CAPPED_WORKLOADS"
	echo "reps=$REPS"
	echo "secs=$SECS"
	echo "configs=$CONFIGS"
	echo "workloads=$WORKLOADS"
	echo "mem_conns=$MEM_CONNS"
	"$BENCH/load" params | tr ' ' '\n'
	dpkg-query -W -f='version_${Package}=${Version}\n' \
		apache2 haproxy nginx httperf wrk ipvsadm
	echo "l7_module_sha256=$(sha256sum "$L7_MODULE" | cut -c1-16)"
}

"$L7TB_DIR/topology" up
"$L7TB_DIR/apache" start --cpu-max "$CPU_MAX"
meta > "$OUT/meta.txt"
! echo " $WORKLOADS " | grep -q " W7 " || burn_calibrate w7 >> "$OUT/meta.txt"
echo "rep,config,workload,secs,requests,errors,p50_ms,p99_ms,mean_ms,cpu_ticks,per_backend,backend_conns,p90_ms,late,backend_cpu_ms" \
	> "$OUT/cells.csv"
echo "rep,config,conns,held,slab_bytes,rss_kb,ipvs_entries" > "$OUT/mem.csv"
: > "$OUT/load.log"
if echo " $WORKLOADS " | grep -q " W1sync "; then
	echo "rep,config,requests,datagrams,records,dropped" > "$OUT/sync.csv"
	sync_link
fi

# All configurations stay up at once, each on its own port; an idle one
# carries no traffic.  So the cells of one workload run back to back, in
# an order that rotates from workload to workload and repetition to
# repetition: the host's load drifts (emulation shares it with anything
# else running), and this way the drift falls on every configuration
# alike instead of on whichever happened to run last.
for cfg in $CONFIGS; do
	config_up "$cfg"
done
in_dir ipvsadm -Ln >> "$OUT/load.log"
module_meta >> "$OUT/meta.txt"

# backends_capped W: each backend's cgroup at CPU_MAX for a capped
# workload, else at no limit
backends_capped() {
	local b q="max 100000"
	! workload_capped "$1" || q=$CPU_MAX
	for b in $L7TB_BACKENDS; do
		echo "$q" > "/sys/fs/cgroup/l7tb-$b/cpu.max"
	done
}

# A workload's k-th repetition starts with the configuration after the
# one its (k-1)-th started with, and each workload one further on than
# the one before it: with n configurations, each leads every workload
# once in n repetitions, whatever n and the number of workloads.  (A
# single counter over workloads and repetitions gave W1 the same order
# in every repetition whenever n divided its steps per repetition, so
# with two configurations one of them always ran W1 right after the
# other's W3 and the other right after its W1.)
for rep in $(seq 1 "$REPS"); do
	wi=0
	for w in $WORKLOADS; do
		backends_capped "$w"
		[ "$w" != W8 ] || w8_calibrate "$rep"
		[ "$w" != MEM ] || { mem_settle; mem_baseline "$rep"; }
		# shellcheck disable=SC2086
		for cfg in $(rotated $((rep - 1 + wi)) $CONFIGS); do
			if ! workloads_of "$cfg" | grep -qw "$w"; then
				continue
			elif [ "$w" = MEM ]; then
				mem_cell "$rep" "$cfg"
			else
				[ "$rep" != 1 ] || warm_up "$cfg" "$w"
				cell "$rep" "$cfg" "$w"
			fi
		done
		wi=$((wi + 1))
	done
done
config_down

"$L7TB_DIR/apache" stop
echo "bench: done, $(($(wc -l < "$OUT/cells.csv") - 1)) cells"
