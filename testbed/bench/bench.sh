#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# testbed/bench/bench.sh [--reps N] [--secs S] [--configs "B0 ..."]
#                        [--workloads "W1 ..."] [--cpu-max "Q P"]
# The benchmark matrix, run inside one guest boot by scripts/bench.  Every
# configuration uses the same director, the same three backends and the
# same load generators.  B4r10, B4r100 and B4r1000 are B4 with that many
# content rules (W1 only; B4 is the 0-rule run); B4xff is B4 whose service
# puts the client's address in X-Forwarded-For (W1 only; B4 follows the
# module's forwarded parameter, off unless changed).  B5 is B4 whose
# service has the option prefork off (issue 13's baseline: a backend
# connection opened for each request and closed after it, what
# post-splicing without pre-forked pools costs).  Writes
# meta.txt and cells.csv (one row per cell and repetition) to $L7_RESULTS
# for scripts/bench-report.
set -eu
. "$(dirname "$0")/../lib.sh"

REPS=3
SECS=8
CONFIGS="B0 B1rr B1wlc B2 B3 B4 B4xff B4r10 B4r100 B4r1000 B5"
WORKLOADS="W1 W2 W3 W4 W5 W6"
CPU_MAX="25000 100000"
while [ $# -gt 0 ]; do
	case $1 in
	--reps) REPS=$2 ;;
	--secs) SECS=$2 ;;
	--configs) CONFIGS=$2 ;;
	--workloads) WORKLOADS=$2 ;;
	--cpu-max) CPU_MAX=$2 ;;
	*) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift 2
done
OUT=${L7_RESULTS:?}
BENCH=$L7TB_DIR/bench

# Each configuration has its own port on the VIP, so no IPVS connection
# entry left by one configuration can catch another's packets.
base_of() {
	case $1 in
	B0) echo "http://$(backend_ip s1):80" ;;
	B1rr) echo "http://$L7TB_VIP:80" ;;
	B1wlc) echo "http://$L7TB_VIP:81" ;;
	B4) echo "http://$L7TB_VIP:82" ;;
	B4xff) echo "http://$L7TB_VIP:86" ;;
	B4r*) echo "http://$L7TB_VIP:$(rules_port "$1")" ;;
	B5) echo "http://$L7TB_VIP:87" ;;
	B2) echo "http://$L7TB_VIP:8080" ;;
	B3) echo "http://$L7TB_VIP:8081" ;;
	esac
}

ipvs_up() {
	local sched=$1 port=$2 b
	in_dir sysctl -qw net.ipv4.vs.conntrack=0
	in_dir ipvsadm -A -t "$L7TB_VIP:$port" -s "$sched"
	for b in $L7TB_BACKENDS; do
		in_dir ipvsadm -a -t "$L7TB_VIP:$port" -r "$(backend_ip "$b"):80" -m -w 1
	done
}

# B4rN: B4 with N content rules, the one that matches last (see rules_up)
rules_port() {
	case $1 in
	B4r10) echo 83 ;;
	B4r100) echo 84 ;;
	B4r1000) echo 85 ;;
	esac
}

# rules_up N PORT: an l7 service with N rules loaded through the patched
# ipvsadm, as an operator would: N-1 path-prefix rules W1 never matches
# (/static/rK, compared byte by byte up to the K), then /static, which it
# does, to a pool of all three servers by wlo - so requests go where B4
# sends them and only the matching costs more
rules_up() {
	local n=$1 port=$2 vs=$L7TB_VIP:$2 ipvsadm=$L7TB_BUILD/ipvsadm/ipvsadm k t0=$SECONDS
	ipvs_up l7 "$port"
	{
		echo "--add-pool -t $vs --pool all --members" \
			"$(backend_ip s1):80,$(backend_ip s2):80,$(backend_ip s3):80 --policy wlo"
		for k in $(seq 1 $((n - 1))); do
			echo "--add-rule -t $vs --id $k --path-prefix /static/r$k --pool all"
		done
		echo "--add-rule -t $vs --id $n --path-prefix /static --pool all"
	} | in_dir timeout 900 "$ipvsadm" -R
	[ "$(in_dir "$ipvsadm" -Sn | grep -c -- "^--add-rule -t $vs ")" = "$n" ] ||
		{ echo "bench: $n rules not loaded on $vs" >&2; exit 1; }
	echo "bench: $n rules loaded on $vs in $((SECONDS - t0)) s" | tee -a "$OUT/load.log"
}

# xff_up PORT: an l7 service whose own option (IPVS_L7_CMD_SET_OPTIONS,
# what ipvsadm --forwarded xff sets) adds X-Forwarded-For to every request
xff_up() {
	local vs=$L7TB_VIP:$1
	ipvs_up l7 "$1"
	in_dir "$PY" "$L7TB_DIR/clients/l7nl.py" set-forwarded "$vs" xff
	[ "$(in_dir "$PY" "$L7TB_DIR/clients/l7nl.py" options "$vs")" = "forwarded xff" ] ||
		{ echo "bench: X-Forwarded-For not set on $vs" >&2; exit 1; }
}

config_up() {
	case $1 in
	B0) ;;
	B1rr) ipvs_up rr 80 ;;
	B1wlc) ipvs_up wlc 81 ;;
	B4) ipvs_up l7 82 ;;
	B4xff) xff_up 86 ;;
	B4r*) rules_up "${1#B4r}" "$(rules_port "$1")" ;;
	B5) ipvs_up l7 87
	    in_dir "$PY" "$L7TB_DIR/clients/l7nl.py" set-prefork "$L7TB_VIP:87" off ;;
	B2) "$BENCH/proxy" start haproxy 8080 ;;
	B3) "$BENCH/proxy" start nginx 8081 ;;
	esac
}

# workloads_of CONFIG: what it runs.  wlc differs from rr only in how it
# places connections, which only W4 shows; the rule sets cost per request,
# which W1 (the most requests a second) shows best.  Their other cells
# would cost bench time and tell nothing new.
workloads_of() {
	case $1 in
	B1wlc) echo "$WORKLOADS" | tr ' ' '\n' | grep -x W4 || true ;;
	B4r* | B4xff) echo "$WORKLOADS" | tr ' ' '\n' | grep -x W1 || true ;;
	# the paper's comparison: per request (W1, W6) and its CGI case (W7)
	B5) echo "$WORKLOADS" | tr ' ' '\n' | grep -xE 'W1|W6|W7' || true ;;
	*) echo "$WORKLOADS" ;;
	esac
}

config_down() {
	in_dir ipvsadm -C
	[ ! -x "$L7TB_BUILD/ipvsadm/ipvsadm" ] || in_dir "$L7TB_BUILD/ipvsadm/ipvsadm" -C
	"$BENCH/proxy" stop haproxy
	"$BENCH/proxy" stop nginx
}

# per backend: "requests passive-opens" (access log lines, TCP accepts).
# Apache's /proc/PID/net is its namespace's: no "ip netns exec" needed,
# which under emulation costs more than the reading.
backend_counters() {
	local b
	for b in $L7TB_BACKENDS; do
		echo "$(wc -l < "$L7TB_RUN/$b/access.log")" \
			"$(awk '$1 == "Tcp:" && $2 ~ /^[0-9]/ { print $7 }' \
				"/proc/$(cat "$L7TB_RUN/$b/httpd.pid")/net/snmp")"
	done
}

# cell REP CONFIG WORKLOAD: one measurement, one CSV row
cell() {
	local rep=$1 cfg=$2 w=$3 before after res shares conns
	before=$(backend_counters)
	res=$("$BENCH/load" "$w" "$(base_of "$cfg")" "$SECS" 2>> "$OUT/load.log") ||
		res="requests=0 secs=0 errors=-1 p50=- p99=- mean=- cpu=0"
	after=$(backend_counters)
	shares=$(paste -d' ' <(echo "$before") <(echo "$after") |
		awk '{ printf "%s%d", (NR > 1 ? ";" : ""), $3 - $1 }')
	conns=$(paste -d' ' <(echo "$before") <(echo "$after") |
		awk '{ n += $4 - $2 } END { print n }')
	eval "$res"	# requests= secs= errors= p50= p99= mean= cpu=
	echo "$rep,$cfg,$w,$secs,$requests,$errors,$p50,$p99,$mean,$cpu,$shares,$conns" \
		>> "$OUT/cells.csv"
	printf 'bench: %4ss rep %s %-6s %s  %6s req in %6ss  errors %s  p50 %s ms  cpu %s ticks  per backend %s\n' \
		"$SECONDS" "$rep" "$cfg" "$w" "$requests" "$secs" "$errors" "$p50" \
		"$cpu" "$shares"
	[ "$errors" = 0 ] || echo "bench: !!!! $cfg $w rep $rep: $errors ERRORS !!!!"
	sleep 0.5	# let FINs and TIME_WAIT churn of this cell settle
}

meta() {
	echo "kernel=$(uname -r)"
	echo "cpus=$(nproc)"
	echo "mem_kb=$(awk '/^MemTotal/ { print $2 }' /proc/meminfo)"
	echo "cpu_model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "user_hz=$(getconf CLK_TCK)"
	echo "cpu_max=$CPU_MAX"
	echo "reps=$REPS"
	echo "secs=$SECS"
	echo "configs=$CONFIGS"
	echo "workloads=$WORKLOADS"
	"$BENCH/load" params | tr ' ' '\n'
	dpkg-query -W -f='version_${Package}=${Version}\n' \
		apache2 haproxy nginx httperf wrk ipvsadm
	echo "l7_module_sha256=$(sha256sum "$L7_MODULE" | cut -c1-16)"
}

# module_meta: what the l7 configurations ran with, for the report's
# labels: every parameter of ip_vs_l7 (l7_param_NAME=VALUE) and each l7
# service's own forwarded and prefork options
# (l7_forwarded_CONFIG=default|off|xff|..., l7_prefork_CONFIG=on|off)
module_meta() {
	local p cfg o vs
	[ -d /sys/module/ip_vs_l7/parameters ] || return 0
	for p in /sys/module/ip_vs_l7/parameters/*; do
		echo "l7_param_$(basename "$p")=$(cat "$p")"
	done
	for cfg in $CONFIGS; do
		case $cfg in B4* | B5) ;; *) continue ;; esac
		vs=$(base_of "$cfg" | sed 's|^http://||')
		o=$(in_dir "$PY" "$L7TB_DIR/clients/l7nl.py" options "$vs") || continue
		echo "l7_forwarded_$cfg=${o#forwarded }"
		o=$(in_dir "$PY" "$L7TB_DIR/clients/l7nl.py" prefork "$vs") || continue
		echo "l7_prefork_$cfg=$o"
	done
}

"$L7TB_DIR/topology" up
"$L7TB_DIR/apache" start --cpu-max "$CPU_MAX"
meta > "$OUT/meta.txt"
echo "rep,config,workload,secs,requests,errors,p50_ms,p99_ms,mean_ms,cpu_ticks,per_backend,backend_conns" \
	> "$OUT/cells.csv"
: > "$OUT/load.log"

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

n=$(echo $CONFIGS | wc -w)
turn=0
for rep in $(seq 1 "$REPS"); do
	for w in $WORKLOADS; do
		# shellcheck disable=SC2086
		for cfg in $(echo $CONFIGS $CONFIGS | cut -d' ' -f$((turn % n + 1))-$((turn % n + n))); do
			if workloads_of "$cfg" | grep -qw "$w"; then
				cell "$rep" "$cfg" "$w"
			fi
		done
		turn=$((turn + 1))
	done
	turn=$((turn + 1))	# so that no workload sees the same order twice
done
config_down

"$L7TB_DIR/apache" stop
echo "bench: done, $(($(wc -l < "$OUT/cells.csv") - 1)) cells"
