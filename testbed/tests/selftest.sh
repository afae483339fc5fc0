#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Guest half of scripts/vm-selftest.  A suite that hangs must be stopped
# by testbed/suite-limit, with the guest's state shown, and the boot must
# go on; then leave a WARNING line in the kernel log and succeed: the
# runner must report this boot as failed all the same.
top=$(cd "$(dirname "$0")/../.." && pwd)
t0=$(date +%s)
"$top/testbed/suite-limit" 5 bash -c 'echo "hung suite: started"; sleep 600'
rc=$?
echo "suite-limit: exit $rc after $(($(date +%s) - t0)) s"
echo "WARNING: ip_vs_l7 runner self-test, this boot must be reported failed" > /dev/kmsg
exit 0
