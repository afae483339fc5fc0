# SPDX-License-Identifier: GPL-2.0
#
# ip_vs_l7 - per-request HTTP/1.1 content switch for LVS.
#
#   make              build ip_vs_l7.ko against KDIR (default: newest Debian 6.1 headers)
#   make check        unit tests, module builds (6.1 and 6.12), sparse, VM suite on 6.1
#   make demo         boot the testbed and show how keep-alive requests spread
#   make unit         host unit tests only (ASan/UBSan)
#   make vm-test      VM suite only (KVER=... to pick the kernel)
#
# Each kernel gets its own build tree, build/<release>/, so builds for
# several kernels never share objects.

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD := $(TOP)/build

KDIR ?= $(shell $(TOP)/scripts/kernels 6.1 headers 2>/dev/null)
KVER = $(patsubst linux-headers-%,%,$(notdir $(KDIR)))

CORE_SRC := $(wildcard ip_vs_l7/core/*.c)
CORE_HDR := $(wildcard ip_vs_l7/core/*.h)
MODULE_SRC := Kbuild $(wildcard ip_vs_l7/*.c ip_vs_l7/*.h) $(CORE_SRC) $(CORE_HDR)

HOST_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Wno-missing-field-initializers \
	-Werror -fsanitize=address,undefined -fno-sanitize-recover=all \
	-Iip_vs_l7/core -Itests/unit
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(wildcard tests/unit/test_*.c))
CGIS := $(patsubst testbed/cgi/%.c,$(BUILD)/cgi/%,$(wildcard testbed/cgi/*.c))

.PHONY: all module setup unit testbed vm-test vm-selftest sparse check demo clean

all: module

setup:
	@$(TOP)/scripts/setup

# ---- kernel module ----

module: $(BUILD)/$(KVER)/ip_vs_l7.ko

$(BUILD)/%/ip_vs_l7.ko: $(MODULE_SRC)
	@test -d "$(KDIR)" || { echo "no kernel headers (KDIR=$(KDIR)): run scripts/setup"; exit 1; }
	rm -rf $(BUILD)/$*/src && mkdir -p $(BUILD)/$*/src
	cp -rs $(TOP)/Kbuild $(TOP)/ip_vs_l7 $(BUILD)/$*/src/
	$(MAKE) -C $(KDIR) M=$(BUILD)/$*/src modules
	cp $(BUILD)/$*/src/ip_vs_l7.ko $@

sparse: module
	$(MAKE) -C $(KDIR) M=$(BUILD)/$(KVER)/src C=2 CHECK="sparse -Wsparse-error" modules

# ---- host unit tests of the pure-C core ----

$(BUILD)/unit/%: tests/unit/%.c $(CORE_SRC) $(CORE_HDR) tests/unit/l7_test.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $< $(CORE_SRC)

unit: $(UNIT_TESTS)
	@rc=0; for t in $(UNIT_TESTS); do $$t || rc=1; done; exit $$rc

# ---- what the guest serves ----

$(BUILD)/cgi/%: testbed/cgi/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -Werror -o $@ $<

$(BUILD)/www/static/1m.bin: testbed/www/mkcontent testbed/www/SHA256SUMS
	testbed/www/mkcontent $(BUILD)/www

testbed: $(CGIS) $(BUILD)/www/static/1m.bin

# ---- VM runs ----

vm-test: module testbed
	scripts/vm -k $(KVER) testbed/tests/foundation.sh

vm-selftest: module testbed
	scripts/vm-selftest -k $(KVER)

check: setup
	@scripts/check

demo: setup
	@$(MAKE) --no-print-directory module testbed
	scripts/vm -k $(KVER) testbed/demo.sh

clean:
	rm -rf $(BUILD)/unit $(BUILD)/cgi $(BUILD)/www $(BUILD)/vm $(BUILD)/[0-9]*

# ---- benchmark (not part of make check) ----
# make bench: the whole matrix in one boot, about 25 minutes; results and
# charts in build/bench/latest/.  BENCH_QUICK=1: one short repetition.

.PHONY: bench
bench: setup
	@$(MAKE) --no-print-directory module testbed
	scripts/bench -k $(KVER) $(if $(BENCH_QUICK),--quick)
