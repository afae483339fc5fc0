#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# run-suites.sh SUITE...: run testbed/tests/SUITE.sh one after the other
# in one boot, each from a clean guest, and total their closing lines.
# Each suite ends with "---- SUITE: N s", its guest wall-clock time.
dir=$(cd "$(dirname "$0")" && pwd)
suites=()
for s in "$@"; do
	suites+=("echo '---- $s'; t0=\$(date +%s); bash $dir/$s.sh; rc=\$?
		echo \"---- $s: \$((\$(date +%s) - t0)) s\"; exit \$rc")
done
# the host can follow the run in <results>/suites.log and the kernel log
# in <results>/dmesg-live.txt while the guest runs (a hang or an oops
# shows where; dmesg.txt is written only at the end)
dmesg_pid=
if [ -n "${L7_RESULTS:-}" ]; then
	export L7_LIVE=$L7_RESULTS/suites.log
	dmesg -w > "$L7_RESULTS/dmesg-live.txt" 2>&1 < /dev/null &
	dmesg_pid=$!
fi
"$dir/../../scripts/run-suites" vm "${suites[@]}"
rc=$?
[ -n "$dmesg_pid" ] && kill "$dmesg_pid"
exit "$rc"
