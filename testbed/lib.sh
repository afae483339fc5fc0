# SPDX-License-Identifier: GPL-2.0
# Shared definitions for scripts that run inside the testbed guest.
# Sourced, never executed.

L7TB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
L7TB_RUN=/run/l7tb			# guest-local: sockets, pids, logs
L7TB_VIP=198.51.100.1
L7TB_CLIENT=198.51.100.10
L7TB_GW=192.0.2.1
L7TB_BACKENDS="s1 s2 s3"
L7TB_BUILD=${L7_BUILD:-$L7TB_DIR/../build}

# Backend sN lives in namespace l7sN at 192.0.2.1N.
backend_ip() { echo "192.0.2.1${1#s}"; }

in_cli() { ip netns exec l7cli "$@"; }
in_dir() { ip netns exec l7dir "$@"; }
in_backend() { local b=$1; shift; ip netns exec "l7$b" "$@"; }

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

# t_check NAME CMD...: the test passes when CMD exits 0.
t_check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		t_pass "$name"
	else
		t_fail "$name" "$(printf '%s' "$out" | tail -n 20)"
	fi
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

# wait_for CMD...: retry for up to 20 s.
wait_for() {
	local i
	for i in $(seq 1 100); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	"$@"
}
