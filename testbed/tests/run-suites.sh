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
exec "$dir/../../scripts/run-suites" vm "${suites[@]}"
