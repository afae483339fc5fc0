# SPDX-License-Identifier: GPL-2.0
#
# ip_vs_l7 - per-request HTTP/1.1 content switch for LVS.
#
#   make              build ip_vs_l7.ko and ip_vs_l7_genl.ko against KDIR (default: newest Debian 6.1 headers)
#   make check        unit tests, fuzzers, module builds and sparse (6.1, 6.12), VM suites on 6.1 and 6.12
#   make check-install the DKMS package installed and used in the guest, 6.1 and 6.12 (slow)
#   make demo         boot the testbed and show how keep-alive requests spread
#   make demo-ha      boot the HA pair (keepalived) and show a failover (the ha suite)
#   make demo-ecmp    three directors behind a BGP router: a drain, a join, a kill (the ecmp suite)
#   make unit         host unit tests only (ASan/UBSan)
#   make fuzz         libFuzzer targets of the core, FUZZ_SECONDS (60) each
#   make bench-core   the head framers and rule matching alone on the host: ns per head
#   make docs-check   README.md and docs/ against the code (seconds, host only)
#   make layers       no circle among the module's files (../shared/tools/callgraph)
#   make vm-test      VM suite only (KVER=... to pick the kernel)
#   make deb          build/deb/: ip-vs-l7-dkms_<VERSION>_all.deb (DKMS source package),
#                     ipvsadm_1.31+l7.<VERSION>-1_amd64.deb (the patched ipvsadm),
#                     ip-vs-l7-tools_<VERSION>_all.deb (ip_vs_l7-log, ip_vs_l7-metrics),
#                     keepalived_2.2.7+l7.<VERSION>-1_amd64.deb (the patched keepalived)
#   make ipvsadm      Debian's ipvsadm 1.31 with ipvsadm-patch/: build/ipvsadm/ipvsadm
#   make keepalived   Debian's keepalived 2.2.7 with keepalived-conf/*.patch:
#                     build/keepalived/keepalived (the host's is not replaced)
#
# Each kernel gets its own build tree, build/<release>/, so builds for
# several kernels never share objects.

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD := $(TOP)/build

KDIR ?= $(shell $(TOP)/scripts/kernels 6.1 headers 2>/dev/null)
KVER = $(patsubst linux-headers-%,%,$(notdir $(KDIR)))

CORE_SRC := $(wildcard ip_vs_l7/core/*.c)
CORE_HDR := $(wildcard ip_vs_l7/core/*.h)
MODULE_SRC := Kbuild $(wildcard ip_vs_l7/*.c ip_vs_l7/*.h ip_vs_l7/uapi/*.h) $(CORE_SRC) $(CORE_HDR)

HOST_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Wno-missing-field-initializers \
	-Werror -fsanitize=address,undefined -fno-sanitize-recover=all \
	-Iip_vs_l7/core -Itests/unit
VM_SUITES ?= foundation pool pool_hostile datapath splice splice_loss rebind tcp_hygiene tcp_accept bounds hostile \
	forwarded bodyhead rules_nl ipvsadm_l7 rules_route ha ipv6 observe sync ecmp
# one boot runs every suite: about 45-60 minutes under emulation
VM_TIMEOUT ?= 4200
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/unit/%,$(wildcard tests/unit/test_*.c))
CGIS := $(patsubst testbed/cgi/%.c,$(BUILD)/cgi/%,$(wildcard testbed/cgi/*.c))

.PHONY: all module setup unit testbed ipvsadm keepalived demo-ha demo-ecmp vm-test vm-selftest sparse checkpatch check demo clean deb docs-check

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
	cp $(BUILD)/$*/src/ip_vs_l7_genl.ko $(BUILD)/$*/
	cp $(BUILD)/$*/src/ip_vs_l7.ko $@

sparse: module
	$(MAKE) -C $(KDIR) M=$(BUILD)/$(KVER)/src C=2 CHECK="sparse -Wsparse-error" modules

# kernel coding style of everything built into the module; core/ uses
# <stdint.h> names on purpose (it is built on the host too)
checkpatch:
	@perl $(BUILD)/tools/checkpatch.pl --no-tree --terse --quiet -f \
		ip_vs_l7/*.[ch] ip_vs_l7/uapi/*.h $(CORE_SRC) $(CORE_HDR) && \
		echo "checkpatch: $(words $(wildcard ip_vs_l7/*.[ch]) $(CORE_SRC) $(CORE_HDR)) files clean"

# ---- Debian packages: the module's source, built by DKMS on the director,
# and the patched ipvsadm and keepalived ----

deb: setup
	@scripts/deb

# ---- host unit tests of the pure-C core ----

$(BUILD)/unit/%: tests/unit/%.c $(CORE_SRC) $(CORE_HDR) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $< $(CORE_SRC)

unit: $(UNIT_TESTS)
	@scripts/run-suites unit $(UNIT_TESTS)

# ---- the head framers alone, timed on the host (-O2, no sanitizers) ----

BENCH_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Wno-missing-field-initializers \
	-Werror -Iip_vs_l7/core

BENCH_CORE_SRC := $(addprefix ip_vs_l7/core/,http_req.c http_resp.c http_body.c)

.PHONY: bench-core
$(BUILD)/bench/bench_framers: tests/bench/bench_framers.c $(BENCH_CORE_SRC) $(CORE_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ $< $(BENCH_CORE_SRC)

RULES_CORE_SRC := $(addprefix ip_vs_l7/core/,http_req.c l7_rule.c l7_rule_index.c)

$(BUILD)/bench/bench_rules: tests/bench/bench_rules.c $(RULES_CORE_SRC) $(CORE_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(BENCH_CFLAGS) -o $@ $< $(RULES_CORE_SRC)

bench-core: $(BUILD)/bench/bench_framers $(BUILD)/bench/bench_rules
	$(BUILD)/bench/bench_framers
	$(BUILD)/bench/bench_rules

# ---- fuzzers of the pure-C core: libFuzzer with ASan and UBSan (clang) ----

.PHONY: fuzz
FUZZ_SECONDS ?= 60
# targets with tests/fuzz/NAME.runs run that many inputs (scripts/fuzz)
FUZZ_MIN_RUNS ?= 1
FUZZ_CC ?= clang
FUZZ_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Wno-missing-field-initializers \
	-Werror -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-Iip_vs_l7/core
FUZZERS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz_util.h tests/unit/ckpt_held.h $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(CORE_SRC)

fuzz: $(FUZZERS)
	@FUZZ_MIN_RUNS=$(FUZZ_MIN_RUNS) scripts/fuzz $(FUZZ_SECONDS) $(FUZZERS)

# ---- what the guest serves ----

$(BUILD)/cgi/%: testbed/cgi/%.c testbed/cgi/query.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -Werror -o $@ $<

$(BUILD)/www/static/1m.bin: testbed/www/mkcontent testbed/www/SHA256SUMS
	testbed/www/mkcontent $(BUILD)/www

testbed: $(CGIS) $(BUILD)/www/static/1m.bin

# ---- the patched ipvsadm: Debian's source package, our series on top ----

IPVSADM_SRC := scripts/build-ipvsadm ipvsadm-patch/series \
	$(wildcard ipvsadm-patch/*.patch) ip_vs_l7/uapi/ip_vs_l7_genl.h

ipvsadm: $(BUILD)/ipvsadm/ipvsadm

$(BUILD)/ipvsadm/ipvsadm: $(IPVSADM_SRC)
	scripts/build-ipvsadm $(BUILD)/ipvsadm

# ---- the documentation against the code: ipvsadm command lines parsed by
# the patched ipvsadm's own parser, module parameters and /proc columns,
# links (scripts/docs-check) ----

docs-check: ipvsadm
	@scripts/docs-check

# the glue's files call only files below them (docs/design.md, "Layers"):
# the project's call-graph tool, beside the checkout, finds no circle
CALLGRAPH ?= $(TOP)/../shared/tools/callgraph
.PHONY: layers
layers:
	$(CALLGRAPH) ip_vs_l7

# ---- the patched keepalived: Debian's source package, lb_algo l7 accepted ----

KEEPALIVED_SRC := scripts/build-keepalived $(wildcard keepalived-conf/*.patch)

keepalived: $(BUILD)/keepalived/keepalived

$(BUILD)/keepalived/keepalived: $(KEEPALIVED_SRC)
	scripts/build-keepalived $(BUILD)/keepalived

# ---- VM runs ----

# VM_APPEND: extra kernel command line, e.g. VM_APPEND=slub_debug=FZPU
# the install suite installs build/deb/ip-vs-l7-dkms_*.deb in the guest;
# ipvsadm_l7, rules_route, ha, ipv6, observe and sync run the patched build/ipvsadm/ipvsadm;
# ha runs the patched build/keepalived/keepalived
vm-test: module testbed $(if $(filter install,$(VM_SUITES)),deb) \
	 $(if $(filter ipvsadm_l7 rules_route ha ipv6 observe sync ecmp,$(VM_SUITES)),ipvsadm) \
	 $(if $(filter ha ecmp,$(VM_SUITES)),keepalived)
	L7_ONLY="$(VM_ONLY)" scripts/vm -k $(KVER) -t $(VM_TIMEOUT) -a "$(VM_APPEND)" testbed/tests/run-suites.sh $(VM_SUITES)

vm-selftest: module testbed
	scripts/vm-selftest -k $(KVER)

check: setup
	@scripts/check

# The install suite builds the module with DKMS inside the emulated guest
# (15-25 minutes a kernel): too slow for every CI run, run by hand.
.PHONY: check-install
check-install: setup
	$(MAKE) --no-print-directory vm-test KDIR=$$(scripts/kernels 6.1 headers) VM_SUITES=install VM_TIMEOUT=5400
	$(MAKE) --no-print-directory vm-test KDIR=$$(scripts/kernels 6.12 headers) VM_SUITES=install VM_TIMEOUT=5400

demo: setup
	@$(MAKE) --no-print-directory module testbed ipvsadm
	scripts/vm -k $(KVER) testbed/demo.sh

# the HA pair's suite is the demo: it prints what clients see through a
# backend's death, the master's death and its return
demo-ha: setup
	@$(MAKE) --no-print-directory module testbed ipvsadm keepalived
	scripts/vm -k $(KVER) testbed/tests/ha.sh

# directors side by side: the ecmp suite prints how the clients' flows
# spread and how many moved, and were taken over, at each change
demo-ecmp: setup
	@$(MAKE) --no-print-directory module testbed ipvsadm keepalived
	scripts/vm -k $(KVER) testbed/tests/ecmp.sh

clean:
	rm -rf $(BUILD)/unit $(BUILD)/fuzz $(BUILD)/cgi $(BUILD)/www $(BUILD)/vm $(BUILD)/[0-9]* $(BUILD)/deb $(BUILD)/docs-check

# ---- benchmark (not part of make check) ----
# make bench: the whole matrix in one boot, about 100 minutes (W1-W6 25,
# W1c1 2, W7 17, W8 18, MEM 25; the guest is given 130), then FWD in a
# boot of its own (make bench-forward, about 6 minutes); results and
# charts in build/bench/latest/.  BENCH_QUICK=1: one short repetition.
# BENCH_CONFIGS / BENCH_WORKLOADS: part of the matrix, e.g. the cost of
# content rules alone: BENCH_CONFIGS="B4 B4r10 B4r100 B4r1000" BENCH_WORKLOADS=W1
# (the B4rN configurations load their rules with the patched ipvsadm, as
# FWD starts the checkpoint channel with it);
# B4xff: W1 with X-Forwarded-For on, reported over B4 (off); B5: the
# service with prefork off (a backend connection per request), W1, W6 and
# W7, reported as B4 over B5.  W7 is the saturating CGI mix, W8 the
# open-loop one (70% of the capped servers' capacity over six connections
# whose mixes differ), MEM the director's memory per idle client
# connection (the goals of the report), e.g.
# BENCH_CONFIGS="B1rr B1wlc B2 B3 B4" BENCH_WORKLOADS="W7 MEM" or
# BENCH_CONFIGS="B1wlc B4 B4u1 B2" BENCH_WORKLOADS=W8
# W1c1: W1 with the guest's second vCPU offline (B1rr and B4 only), which
# beside W1 gives the scaling from 1 to 2 vCPUs, e.g.
# BENCH_CONFIGS="B1rr B4" BENCH_WORKLOADS="W1 W1c1"
# B4uN (B4u1 in the default set): B4 whose real servers have ipvsadm -x N,
# requests past N a server waiting in the director's queue; W7 and W8, e.g.
# BENCH_CONFIGS="B1wlc B4 B4u1 B4u2" BENCH_WORKLOADS=W7
# BENCH_MEM_CONNS: MEM's idle connections (default 10,000; quick 2,000)

.PHONY: bench
bench: setup
	@$(MAKE) --no-print-directory module testbed ipvsadm
	scripts/bench -k $(KVER) $(if $(BENCH_QUICK),--quick) \
		$(if $(BENCH_CONFIGS),--configs "$(BENCH_CONFIGS)") \
		$(if $(BENCH_WORKLOADS),--workloads "$(BENCH_WORKLOADS)") \
		$(if $(BENCH_MEM_CONNS),--mem-conns $(BENCH_MEM_CONNS))

# make bench-director: the director in a 1-vCPU guest of its own (QEMU on
# host core 0), client and backends in a second guest (core 1), linked by
# QEMU stream netdevs; the director's CPU per request at fixed open-loop
# rates, net of the idle director, against IPVS-NAT, HAProxy and nginx.
# It takes both of the host's cores.  Results in build/bench-director/latest/.
# BENCH_QUICK=1: one repetition of 4 s cells; BENCH_REPS, BENCH_SECS,
# BENCH_CONFIGS, BENCH_CASES (workload@rate: W1@100 W1@150 W3@25 W3@50
# W6@50 W6@100, "none" for none); BENCH_PROFILE=1: perf in the director's guest during every
# loaded cell, its symbols in profile/ of the results (costs not comparable
# with an unprofiled run's); BENCH_CAPACITY: the configurations whose
# ceiling is sought (closed loop against a minimal responder; default
# B0 B1rr B4 B2 B3, "none" for none) and BENCH_CAP_WORKLOADS their
# workloads (default "W1 W6"); BENCH_SHARES: the shares of a host
# core the director's vCPU thread is limited to in those cells, one round
# each (e.g. "10 15"; default 0, no limit); BENCH_L7_PARAMS: ip_vs_l7's
# parameters for the run (e.g. "pool_reuse_delay=0"); BENCH_IO_CORE=1:
# the director QEMU's main (I/O) thread on host core 1, its vCPU on 0.
# make bench-forward: directors side by side (two, their channel on,
# sync_forward), what a 1 MB request costs while its flow moves to the
# other director under it - its ACKs forwarded to the holder, the next
# request taken over - against the same request on a flow that stays, in
# one boot of about 6 minutes (testbed/bench/forward.sh); its table
# printed from build/vm/forward-<kver>/forward.csv.  BENCH_QUICK=1: one
# repetition of 5 requests; BENCH_REPS: repetitions (3).
.PHONY: bench-forward
bench-forward: setup
	@$(MAKE) --no-print-directory module testbed ipvsadm
	scripts/vm -k $(KVER) -t 1800 testbed/bench/forward.sh \
		$(if $(BENCH_QUICK),--reps 1 --requests 5,$(if $(BENCH_REPS),--reps $(BENCH_REPS)))
	scripts/bench-report --forward $(BUILD)/vm/forward-$(KVER)

.PHONY: bench-director
bench-director: setup
	@$(MAKE) --no-print-directory module testbed ipvsadm
	scripts/bench-director -k $(KVER) $(if $(BENCH_QUICK),--quick) \
		$(if $(BENCH_IO_CORE),--io-core $(BENCH_IO_CORE)) \
		$(if $(BENCH_REPS),--reps $(BENCH_REPS)) \
		$(if $(BENCH_SECS),--secs $(BENCH_SECS)) \
		$(if $(BENCH_CONFIGS),--configs "$(BENCH_CONFIGS)") \
		$(if $(BENCH_CASES),--cases "$(filter-out none,$(BENCH_CASES))") \
		$(if $(BENCH_PROFILE),--profile $(BENCH_PROFILE)) \
		$(if $(BENCH_CAPACITY),--capacity "$(filter-out none,$(BENCH_CAPACITY))") \
		$(if $(BENCH_CAP_WORKLOADS),--cap-workloads "$(BENCH_CAP_WORKLOADS)") \
		$(if $(BENCH_SHARES),--shares "$(BENCH_SHARES)") \
		$(if $(BENCH_L7_PARAMS),--l7-params "$(BENCH_L7_PARAMS)")
