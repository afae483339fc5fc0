#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# run-suites.sh SUITE...: run testbed/tests/SUITE.sh one after the other
# in one boot, each from a clean guest, and total their closing lines.
# Each suite ends with "---- SUITE: N s", its guest wall-clock time.
# A suite that outlives its limit (testbed/suite-limit) fails alone, with
# the guest's blocked tasks shown, and the next suite runs.
dir=$(cd "$(dirname "$0")" && pwd)

# seconds a suite may take: over twice the longest run seen on a loaded
# 2-core host (splice_loss, 527 s), the DKMS builds of install aside
suite_limit() {
	case $1 in
	install) echo 4800 ;;
	*) echo 1200 ;;
	esac
}

suites=()
for s in "$@"; do
	suites+=("echo '---- $s'; t0=\$(date +%s)
		$dir/../suite-limit $(suite_limit "$s") bash $dir/$s.sh; rc=\$?
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
