# SPDX-License-Identifier: GPL-2.0
# Shared definitions for scripts that run inside the testbed guest.
# Sourced, never executed.

L7TB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
L7TB_RUN=/run/l7tb			# guest-local: sockets, pids, logs
L7TB_VIP=198.51.100.1
L7TB_CLIENT=198.51.100.10
L7TB_GW=192.0.2.1
L7TB_BACKENDS="s1 s2 s3"
# IPv6 (documentation prefix 2001:db8::/32): the same links, dual-stack
L7TB_VIP6=2001:db8:100::1
L7TB_CLIENT6=2001:db8:100::10
L7TB_GW6=2001:db8:2::1
# directors side by side (topology up-ecmp): the router's addresses on
# the directors' link and on the clients', the directors
L7TB_ECMP_RTR=203.0.113.65
L7TB_ECMP_RTR_CLI=198.51.100.129
L7TB_ECMP_DIRS="l7dir l7dir2 l7dir3"
L7TB_BUILD=${L7_BUILD:-$L7TB_DIR/../build}
# the test clients' Python: the guest's own (a venv on PATH is the host's);
# they find the build tree through L7_BUILD
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
export PYTHONDONTWRITEBYTECODE=1 L7_BUILD=$L7TB_BUILD

# The benchmark (bench/bench.sh, bench/profile.sh): the backends' CPU
# quota (cgroup cpu.max) in the workloads that run under one - the CGI
# ones, where a backend's CPU is what balancing shares out.  Elsewhere the
# backends are uncapped: capped, every backend was throttled in every
# 100 ms period under every configuration, so W1's req/s measured the
# backends' CPU per request and a 60 ms throttling tail, not the director.
L7TB_CPU_MAX="25000 100000"
L7TB_CAPPED_WORKLOADS="W4 W5 W7 W8"
# workload_capped W: whether W's backends run under a quota
workload_capped() {
	case " $L7TB_CAPPED_WORKLOADS " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}
# rotated K WORD...: the words from the K-th (0-based, modulo their
# count) on, then those before it - whose turn it is to go first, so
# that the host's drift falls on every configuration alike
rotated() {
	local k=$1
	shift
	k=$((k % $#))
	echo "${@:k+1}" "${@:1:k}"
}

# Backend sN lives in namespace l7sN at 192.0.2.1N.
backend_ip() { echo "192.0.2.1${1#s}"; }
# ... and at 2001:db8:2::1N.
backend_ip6() { echo "2001:db8:2::1${1#s}"; }

in_cli() { ip netns exec l7cli "$@"; }
in_dir() { ip netns exec l7dir "$@"; }
in_backend() { local b=$1; shift; ip netns exec "l7$b" "$@"; }

# sync_counter NETNS NAME: counter NAME of the checkpoint channel in NETNS
# (the patched ipvsadm's -L --daemon, its second line: key=value ...);
# empty when the channel does not run
sync_counter() {
	ip netns exec "$1" "$L7TB_BUILD/ipvsadm/ipvsadm" -L --daemon | grep '^  ' |
		tr ' ' '\n' | awk -F= -v k="$2" '$1 == k { print $2 }'
}

# ---- test reporting: one line per test, then "N passed, N failed" ----

T_PASSED=0
T_FAILED=0

t_pass() { T_PASSED=$((T_PASSED + 1)); echo "ok   $1"; }

t_fail() {
	T_FAILED=$((T_FAILED + 1))
	echo "FAIL $1"
	shift
	[ $# -gt 0 ] && printf '     %s\n' "$@"
	return 0
}

# t_check NAME CMD...: the test passes when CMD exits 0.  With L7_ONLY
# (an extended regular expression, "make vm-test VM_ONLY=..."), a test
# whose name does not match is skipped: a quick run of one test and the
# tests that set it up, e.g. against a mutant of the module.
t_check() {
	local name=$1 out counters
	shift
	if [ -n "${L7_ONLY:-}" ] && ! printf '%s' "$name" | grep -Eq -- "$L7_ONLY"; then
		echo "skip $name"
		return 0
	fi
	if out=$("$@" 2>&1); then
		t_pass "$name"
	else
		mapfile -t counters < <(t_counters)
		t_fail "$name" "$(printf '%s' "$out" | tail -n 20)" \
			"${counters[@]}"
	fi
}

# t_counters: the director's counters that are not zero, one line per
# service and real server, for a failed test's report (the numbers that
# say which way a connection ended); nothing where no l7 service runs.
# Read by column name (l7_awk, below).
t_counters() {
	{ l7_table | l7_awk '
		!named { for (n in L7_S) s_name[L7_S[n]] = n
			 for (n in L7_R) r_name[L7_R[n]] = n
			 named = 1 }
		{ line = "counters " $2 ":"
		  for (i = 3; i <= NF; i++)
			if ($i != "0")
				line = line " " ($1 == "->" ? r_name[i] : s_name[i]) "=" $i
		  print line }'; } 2>/dev/null
}

t_summary() {
	echo "$T_PASSED passed, $T_FAILED failed"
	[ "$T_FAILED" -eq 0 ]
}

# ---- HTTP helpers (run in the client namespace) ----

# fetch URL OUT: body to OUT, prints the X-Backend header's value.
fetch() {
	in_cli curl -sS --fail --max-time 60 -o "$2" -D - "$1" |
		tr -d '\r' | awk 'tolower($1) == "x-backend:" { print $2 }'
}

# fetch_static ROUNDS SERVED: every static file ROUNDS times, each on a
# new connection and compared with its published digest; the backends
# that served them are appended to the file SERVED.
fetch_static() {
	local rounds=$1 served=$2 body r digest name got backend rc=0
	body=$(mktemp)
	for r in $(seq 1 "$rounds"); do
		while read -r digest name; do
			if ! backend=$(fetch "http://$L7TB_VIP/$name" "$body"); then
				echo "fetch $name failed"
				rc=1
				break 2
			fi
			got=$(sha256sum < "$body" | cut -d' ' -f1)
			if [ "$got" != "$digest" ]; then
				echo "$name from $backend: sha256 $got"
				rc=1
				break 2
			fi
			echo "$backend" >> "$served"
		done < "$L7TB_DIR/www/SHA256SUMS"
	done
	rm -f "$body"
	return $rc
}

# cgi_and_post BASE: a CGI answer from a backend, and a 300 KB POST of
# random bytes echoed byte-exact, through BASE (http://VIP or http://[VIP6])
cgi_and_post() {
	local base=$1 out sent got rc=0
	out=$(in_cli curl -sS --fail --max-time 60 "$base/cgi-bin/burn?iters=10") ||
		return 1
	echo "$out" | grep -Eq '^backend=s[123] iters=10' || { echo "$out"; return 1; }
	sent=$(mktemp) got=$(mktemp)
	head -c 300000 /dev/urandom > "$sent"
	in_cli curl -sS --fail --max-time 60 --data-binary @"$sent" \
		-o "$got" "$base/cgi-bin/echo" && cmp "$sent" "$got" || rc=1
	rm -f "$sent" "$got"
	return $rc
}

# fetch_exact URL N [NETNS]: N fetches of URL, a file of www/, each on a
# new connection from the client namespace (or NETNS), each compared with
# the file's published digest
fetch_exact() {
	local url=$1 n=$2 ns=${3:-l7cli} name digest body i got rc=0
	name=${url#*://*/}
	digest=$(awk -v f="$name" '$2 == f { print $1 }' "$L7TB_DIR/www/SHA256SUMS")
	[ -n "$digest" ] || { echo "no digest for $name"; return 1; }
	body=$(mktemp)
	for i in $(seq 1 "$n"); do
		ip netns exec "$ns" curl -sS --fail --max-time 120 -o "$body" \
			"$url" || { echo "fetch $i failed"; rc=1; break; }
		got=$(sha256sum < "$body" | cut -d' ' -f1)
		[ "$got" = "$digest" ] || { echo "fetch $i: sha256 $got"; rc=1; break; }
	done
	rm -f "$body"
	return $rc
}

# wait_eq VALUE CMD...: retry for up to 20 s until CMD prints VALUE.
wait_eq() {
	local want=$1 i
	shift
	for i in $(seq 1 100); do
		[ "$("$@" 2>/dev/null)" = "$want" ] && return 0
		sleep 0.2
	done
	return 1
}

# stop_pidfile FILE: end the daemon whose pid FILE holds (SIGTERM, then
# up to 10 s for it to go) and remove FILE; nothing if there is no FILE
stop_pidfile() {
	local pid
	[ -f "$1" ] || return 0
	pid=$(cat "$1")
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	rm -f "$1"
}

# wait_for [-s SECONDS] CMD...: retry every 0.2 s for up to SECONDS (20);
# the last try's output is shown.
wait_for() {
	local i tries=100
	if [ "$1" = -s ]; then
		tries=$(($2 * 5))
		shift 2
	fi
	for i in $(seq 1 "$tries"); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	"$@"
}

# clear_logs: empty every backend's access log
clear_logs() {
	local b
	for b in $L7TB_BACKENDS; do : > "$L7TB_RUN/$b/access.log"; done
}

# log_requests BACKEND PATTERN: access-log lines of BACKEND matching PATTERN
log_requests() {
	grep -c -- "$2" "$L7TB_RUN/$1/access.log"
}

# backend_counts PATTERN: log_requests of every backend, in order, one
# number per word
backend_counts() {
	local b counts=
	for b in $L7TB_BACKENDS; do
		counts="$counts $(log_requests "$b" "$1")"
	done
	echo "${counts# }"
}

# ---- clients that write their segments by hand (scapy) ----

# raw_client_rsts keep|drop: the client's kernel resets connections it
# does not know of; with drop, not those of the raw clients (source ports
# 40000-40999)
raw_client_rsts() {
	if [ "$1" = keep ]; then
		in_cli nft delete table ip l7raw
		return
	fi
	in_cli nft -f - <<'NFT'
table ip l7raw {
	chain out {
		type filter hook output priority 0; policy accept;
		tcp sport 40000-40999 tcp flags & rst == rst drop
	}
}
NFT
}

# raw_result TEST: passes when the raw client's output, in the file
# $RAW_OUT, holds "ok   TEST"
raw_result() {
	grep -qx "ok   $1" "$RAW_OUT" && return 0
	grep "^FAIL $1:" "$RAW_OUT" ||
		{ echo "no result; the client printed:"; tail -n 20 "$RAW_OUT"; }
	return 1
}

# ---- suite set-up and tear-down ----

# testbed_up [apache options]: network, backends, no virtual services
testbed_up() {
	"$L7TB_DIR/topology" up
	"$L7TB_DIR/apache" start "$@"
}

# testbed_down: leave the guest as a suite found it
testbed_down() {
	in_dir ipvsadm -C 2>/dev/null
	"$L7TB_DIR/apache" stop
	"$L7TB_DIR/topology" down
	rm -rf "$L7TB_RUN"/s[0-9]*
	l7_unload
	return 0
}

# ka_run NS DIR: the build's keepalived in namespace NS with
# DIR/keepalived.conf, in the background, its pid files and log in DIR
# (-n: in the foreground of its own; -l -D: a detailed log to the
# console).  Not through in_d: DIR/main.pid must be keepalived itself (ip
# netns exec execs it), not a subshell a signal would not pass through.
ka_run() {
	ip netns exec "$1" "$L7TB_BUILD/keepalived/keepalived" -n -l -D \
		-f "$2/keepalived.conf" -p "$2/keepalived.pid" \
		-c "$2/checkers.pid" -r "$2/vrrp.pid" >> "$2/keepalived.log" 2>&1 3>&- &
	echo $! > "$2/main.pid"
}

# l7_unload: the family's module first, it holds ip_vs_l7
l7_unload() {
	if grep -q '^ip_vs_l7_genl ' /proc/modules; then
		rmmod ip_vs_l7_genl || return 1
	fi
	if grep -q '^ip_vs_l7 ' /proc/modules; then
		rmmod ip_vs_l7 || return 1
	fi
}

# add_service ADDR:PORT SCHED W1 W2 W3: NAT service to s1..s3 port 80
add_service() {
	local vs=$1 sched=$2 b i=3
	in_dir ipvsadm -A -t "$vs" -s "$sched" || return 1
	for b in $L7TB_BACKENDS; do
		in_dir ipvsadm -a -t "$vs" -r "$(backend_ip "$b"):80" -m -w "${!i}" ||
			return 1
		i=$((i + 1))
	done
}

# cv N...: coefficient of variation (population standard deviation over
# the mean) of the numbers, three decimals
cv() {
	echo "$*" | awk '{ for (i = 1; i <= NF; i++) s += $i; m = s / NF
		for (i = 1; i <= NF; i++) v += ($i - m) ^ 2
		printf "%.3f\n", m ? sqrt(v / NF) / m : 0 }'
}

# within_mean PCT N...: every N within PCT percent of their mean
within_mean() {
	local pct=$1
	shift
	echo "$*" | awk -v p="$pct" '{ for (i = 1; i <= NF; i++) s += $i; m = s / NF
		for (i = 1; i <= NF; i++)
			if ($i < m * (1 - p / 100) || $i > m * (1 + p / 100)) bad = 1
		exit bad }'
}

# /proc/net/ip_vs_l7 is read by column name: its two header lines name the
# columns of the service lines ("Prot LocalAddress:Port conns ...") and of
# the real-server lines under them ("-> RemoteAddress:Port Weight ...").
# l7_awk [-v VAR=VALUE...] PROGRAM: awk PROGRAM over such a table on
# stdin, its header lines left out, with sv(NAME) the value of column NAME
# on a service line and rv(NAME) on a real-server line; a name the header
# does not have is an error (exit 2).
l7_awk() {
	local prog=${!#}
	awk "${@:1:$#-1}" '
	function l7_col(h, name) {
		if (!(name in h)) {
			print "/proc/net/ip_vs_l7 has no column " name > "/dev/stderr"
			exit 2
		}
		return $(h[name])
	}
	function sv(name) { return l7_col(L7_S, name) }
	function rv(name) { return l7_col(L7_R, name) }
	$1 == "Prot" { for (l7_i = 1; l7_i <= NF; l7_i++) L7_S[$l7_i] = l7_i; next }
	$1 == "->" && $2 == "RemoteAddress:Port" {
		for (l7_i = 1; l7_i <= NF; l7_i++) L7_R[$l7_i] = l7_i
		next
	}
	'"$prog"
}

# l7_table [NETNS]: a director's /proc/net/ip_vs_l7 (default l7dir's)
l7_table() { ip netns exec "${1:-l7dir}" cat /proc/net/ip_vs_l7; }

# svc_col NAME [VS]: column NAME of the line of service VS (default $VS)
svc_col() {
	l7_table | l7_awk -v vs="${2:-$VS}" -v n="$1" \
		'$1 != "->" && $2 == vs { print sv(n) }'
}

# rs_col ADDR:PORT NAME: column NAME of the real server's line
rs_col() {
	l7_table | l7_awk -v rs="$1" -v n="$2" \
		'$1 == "->" && $2 == rs { print rv(n) }'
}

# pool_col BACKEND NAME: column NAME of the backend's line (port 80)
pool_col() { rs_col "$(backend_ip "$1"):80" "$2"; }

# pools_ready [NETNS]: every backend of the l7 service has an idle pooled
# connection (in l7dir, or NETNS)
pools_ready() {
	l7_table "${1:-}" | l7_awk '$1 == "->" && rv("Idle") >= 1 && rv("State") == "up" { n++ }
		END { exit !(n == 3) }'
}
