#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# testbed/bench/director.sh boot CLI-MAC SRV-MAC | up CONFIG... | meta
#                           CONFIG... | log start|stop | prof start|stop
#                           CELL: the director's guest of make
# bench-director (scripts/bench-director).
#
# boot, the guest's script under scripts/vm: the director's namespace on
# the two links (topology up-director), then the control server (ctl.py)
# on the VIP's port 9999 until the load guest says quit.  The load guest
# (director-load.sh) runs everything else through it, as the other words:
#   up CONFIG...   the configurations (configs.sh), once the backends are up
#   meta CONFIG... what the module and the services ran with
#   log start|stop ip_vs_l7-log on B4log's service, writing to a file: the
#                  cost of the per-request log is B4log's cells against B4's
#                  (its tracepoints are off while no logger runs)
#   prof start|stop CELL  perf samples every CPU of the guest during a
#                  cell (--profile): where the director's time goes
#   params NAME=VALUE...  the module's parameters for this run, after up
#                  (e.g. pool_reuse_delay=0): what a parameter changes
#                  is a run against one without it
#   counters       the module's per-service and per-server counters, the
#                  namespace's TCP counters and its NICs' kicks and
#                  packets, for the load guest's log around each cell:
#                  what a cell's director resent, queued or dropped, and
#                  how many packets shared each notification of QEMU
# Only the director runs here: no client, no backend.
set -eu
. "$(dirname "$0")/../lib.sh"

OUT=${L7_RESULTS:?}
BENCH=$L7TB_DIR/bench
. "$BENCH/configs.sh"
CTL_PORT=9999
LOGGER=$L7TB_DIR/../scripts/ip_vs_l7-log
RUN=/run/l7bench

boot() {
	"$L7TB_DIR/topology" up-director "$1" "$2"
	echo "director: up, uptime $(cut -d' ' -f1 /proc/uptime) s"
	in_dir "$PY" "$BENCH/ctl.py" "$L7TB_VIP" "$CTL_PORT" "$BENCH/director.sh"
	in_dir ipvsadm -Ln --stats > "$OUT/ipvs-stats.txt" || true
	cat /proc/net/ip_vs_l7 > "$OUT/ip_vs_l7.txt" 2>/dev/null || true
	cat /proc/interrupts > "$OUT/interrupts.txt"
	config_down
}

up() {
	local cfg
	for cfg in "$@"; do
		config_up "$cfg"
	done
	in_dir ipvsadm -Ln
}

meta() {
	echo "dir_kernel=$(uname -r)"
	echo "dir_cpus=$(nproc)"
	echo "dir_mem_kb=$(awk '/^MemTotal/ { print $2 }' /proc/meminfo)"
	dpkg-query -W -f='version_${Package}=${Version}\n' haproxy nginx ipvsadm
	echo "l7_module_sha256=$(sha256sum "$L7_MODULE" | cut -c1-16)"
	CONFIGS="$*" module_meta
}

# log start|stop: the logger runs in the background, its lines to
# $RUN/requests.log; start returns once it says its events are on (and a
# second more, for its start-up to end), stop prints how
# many lines it wrote
log() {
	local pid
	mkdir -p "$RUN"
	case $1 in
	start)
		setsid "$PY" "$LOGGER" -s "$L7TB_VIP:98" > "$RUN/requests.log" \
			2> "$RUN/logger.err" < /dev/null &
		pid=$!
		echo "$pid" > "$RUN/logger.pid"
		wait_for -s 60 grep -q 'tracing' "$RUN/logger.err" ||
			{ cat "$RUN/logger.err"; return 1; }
		sleep 1
		;;
	stop)
		pid=$(cat "$RUN/logger.pid")
		kill -INT "$pid"
		# gone, or a zombie (its parent, a ctl.py command, has ended)
		wait_for -s 30 sh -c "[ ! -e /proc/$pid ] ||
			grep -q '^State:.*Z' /proc/$pid/status"
		echo "logged=$(wc -l < "$RUN/requests.log")"
		cat "$RUN/logger.err"
		;;
	esac
}

# prof start|stop CELL: perf record -a (cpu-clock, the emulated CPU has no
# hardware counters) at 999 Hz without call graphs (unwinding every sample
# took a quarter of the guest in the one-guest profile), from start to
# stop; stop writes the director's /proc/net/dev at start and at stop
# (lines netdev-start, netdev-stop), its /proc/interrupts and
# /proc/softirqs (irqs-start, irqs-stop), then every symbol with its share and count of samples,
# to $OUT/profile-CELL.txt.  The samples cost the director CPU: a profiled
# cell's cost is not comparable with an unprofiled one's.
prof() {
	local pid
	mkdir -p "$RUN"
	case $1 in
	start)
		cat /proc/net/dev > "$RUN/netdev"
		cat /proc/interrupts /proc/softirqs > "$RUN/irqs"
		setsid perf record -q -a -F 999 -o "$RUN/perf-$2.data" \
			> "$RUN/perf.err" 2>&1 < /dev/null &
		pid=$!
		echo "$pid" > "$RUN/perf.pid"
		# perf opens its events before it writes the file's header
		wait_for -s 30 test -s "$RUN/perf-$2.data"
		;;
	stop)
		pid=$(cat "$RUN/perf.pid")
		kill -INT "$pid"
		wait_for -s 60 sh -c "[ ! -e /proc/$pid ] ||
			grep -q '^State:.*Z' /proc/$pid/status"
		{
			sed 's/^/netdev-start /' "$RUN/netdev"
			sed 's/^/netdev-stop /' /proc/net/dev
			sed 's/^/irqs-start /' "$RUN/irqs"
			cat /proc/interrupts /proc/softirqs | sed 's/^/irqs-stop /'
			perf report -i "$RUN/perf-$2.data" --no-children --sort sym \
				-n --stdio 2>/dev/null | grep -v -e '^$' -e '^#'
		} > "$OUT/profile-$2.txt"
		rm -f "$RUN/perf-$2.data"
		echo "profiled=$(awk '{ n += $2 } END { print n + 0 }' "$OUT/profile-$2.txt")"
		;;
	esac
}

params() {
	local kv
	for kv in "$@"; do
		case $kv in
		*[!a-z0-9_=]* | *=*=* | =* | *=) echo "params: bad $kv"; return 1 ;;
		esac
		echo "${kv#*=}" > "/sys/module/ip_vs_l7/parameters/${kv%%=*}" || return 1
	done
}

counters() {
	local d
	cat /proc/net/ip_vs_l7 2>/dev/null || true
	# the emulated NICs' notifications (kicks) and packets per queue:
	# what each packet costs QEMU depends on how many share a kick
	for d in $(in_dir ls /sys/class/net); do
		[ "$d" != lo ] || continue
		in_dir ethtool -S "$d" 2>/dev/null |
			awk -v d="$d" '$1 ~ /^[rt]x_queue_0_(kicks|packets):$/ { sub(":", "", $1); print "nic", d, $1, $2 }'
	done
	in_dir nstat -asz 2>/dev/null | grep -E '^(Tcp(RetransSegs|OutRsts|InErrs)|TcpExt(TCPTimeouts|TCPLostRetransmit|ListenDrops|TCPBacklogDrop|TCPSynRetrans))' || true
}

cmd=${1:-}
shift || true
case $cmd in
boot) boot "$@" ;;
up) up "$@" ;;
meta) meta "$@" ;;
log) log "$1" ;;
prof) prof "$1" "$2" ;;
params) params "$@" ;;
counters) counters ;;
*) echo "usage: $0 boot CLI-MAC SRV-MAC | up CONFIG... | meta CONFIG... | log start|stop | prof start|stop CELL | params NAME=VALUE... | counters" >&2; exit 2 ;;
esac
