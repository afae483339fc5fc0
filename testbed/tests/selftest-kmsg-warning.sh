#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Guest half of scripts/vm-selftest: succeed, but leave a WARNING line in
# the kernel log.  The runner must report this boot as failed.
echo "WARNING: ip_vs_l7 runner self-test, this boot must be reported failed" > /dev/kmsg
exit 0
