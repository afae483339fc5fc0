#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Guest half of scripts/vm-selftest's second boot: the guest stops whole,
# as one whose CPUs lock up does (softlockup_panic=1 turns that into a
# panic).  Nothing in the guest can report it: the runner must say the
# guest did not finish and show the panic from the kernel's own console.
echo "selftest: crashing the guest"
echo 1 > /proc/sys/kernel/sysrq
echo c > /proc/sysrq-trigger
sleep 600
