#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The operator's path: "apt install ./ip-vs-l7-dkms_<version>_all.deb
# ./ipvsadm_<version>_amd64.deb ./keepalived_<version>_amd64.deb" (built
# by "make deb" on the host), DKMS builds ip_vs_l7.ko against the guest's
# kernel headers and installs it under updates/dkms, the patched ipvsadm
# and keepalived replace Debian's, "ipvsadm -s l7" autoloads the module
# with the options of the package's modprobe.d example, requests are
# spliced byte-exact, the packaged ipvsadm routes by a content rule, the
# packaged keepalived programs an l7 service; then "apt remove" while a
# service uses the module, draining, rmmod.  The patched ipvsadm and
# keepalived stay installed: later suites of the boot run them as they
# would Debian's.  Runs inside the guest.
#
# The guest's /etc, /usr, /lib and /var are overlays on the host's
# read-only tree whose writes land in guest memory (virtme-ng), and
# /var/lib/apt and /var/cache are guest tmpfs: apt, dpkg and dkms write
# nothing to the host.  The first test checks exactly that and nothing is
# installed unless it passes.
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
KVER=$(uname -r)
VERSION=$(cat "$L7TB_DIR/../VERSION")
DEB=$L7TB_BUILD/deb/ip-vs-l7-dkms_${VERSION}_all.deb
IPVSADM_DEB=$L7TB_BUILD/deb/ipvsadm_1.31+l7.${VERSION}-1_amd64.deb
KEEPALIVED_DEB=$L7TB_BUILD/deb/keepalived_2.2.7+l7.${VERSION}-1_amd64.deb
MODDIR=/lib/modules/$KVER
EXAMPLE=/usr/share/doc/ip-vs-l7-dkms/examples/ip_vs_l7.conf
LOG=${L7_RESULTS:-/tmp}/install-$KVER.log
TMP=$(mktemp -d)
export DEBIAN_FRONTEND=noninteractive

# private DIR: DIR is on an overlay whose upper layer is guest tmpfs
private() {
	local opts upper
	[ "$(findmnt -n -o FSTYPE -T "$1")" = overlay ] ||
		{ echo "$1 is on $(findmnt -n -o FSTYPE,SOURCE -T "$1")"; return 1; }
	opts=$(findmnt -n -o OPTIONS -T "$1")
	upper=$(sed -n 's/.*upperdir=\([^,]*\).*/\1/p' <<< "$opts")
	[ -n "$upper" ] && [ "$(findmnt -n -o FSTYPE -T "$upper")" = tmpfs ] ||
		{ echo "$1: overlay upper layer '$upper' is not guest tmpfs"; return 1; }
}

writes_stay_in_guest() {
	local d
	# and where the keepalived package writes: its binaries, unit, docs,
	# notify script, and deb-systemd-helper's enablement state
	for d in /var/lib/dpkg /var/lib/dkms /usr/src /usr/sbin /etc/modprobe.d "$MODDIR" \
		/usr/bin /usr/share/doc /usr/share/man /etc/keepalived /lib/systemd/system \
		/etc/systemd/system /var/lib/systemd; do
		[ -d "$d" ] || d=$(dirname "$d")
		private "$d" || return 1
	done
	for d in /var/lib/apt /var/cache; do
		[ "$(findmnt -n -o FSTYPE -T "$d")" = tmpfs ] ||
			{ echo "$d is not guest tmpfs"; return 1; }
	done
	findmnt -n -o OPTIONS / | tr , '\n' | grep -qx ro ||
		{ echo "the host tree is writable from the guest"; return 1; }
}

# Debian's dkms builds for the running kernel and for the newest kernel
# in /boot.  The host has both 6.1 and 6.12, and each has a boot of its
# own, so this boot shows dkms only the running kernel in /boot (a guest
# tmpfs): one build per boot instead of two under emulation.
only_running_kernel_in_boot() {
	mkdir -p "$TMP/boot"
	cp "/boot/config-$KVER" "/boot/System.map-$KVER" "$TMP/boot/" 2>/dev/null
	mount -t tmpfs l7boot /boot && cp "$TMP/boot/"* /boot/
}

# The freshly built module that guest-run installed for the other suites
# goes, so that the only ip_vs_l7 the guest has is the one DKMS builds.
remove_ci_module() {
	grep -q '^ip_vs_l7_genl ' /proc/modules && rmmod ip_vs_l7_genl
	grep -q '^ip_vs_l7 ' /proc/modules && rmmod ip_vs_l7
	rm -f "$MODDIR/extra/ip_vs_l7.ko" "$MODDIR/extra/ip_vs_l7_genl.ko"
}

module_files() {
	find "$MODDIR" -name 'ip_vs_l7.ko*' -o -name 'ip_vs_l7_genl.ko*' | sort
}

# Services are never started by a package here: a policy-rc.d that says
# no (deb-systemd-invoke and invoke-rc.d ask it), in guest memory like the
# rest of /usr/sbin.  The guest has no systemd as PID 1 either, and the
# keepalived unit does nothing without /etc/keepalived/keepalived.conf.
apt_install() {
	local status
	local deb
	for deb in "$DEB" "$IPVSADM_DEB" "$KEEPALIVED_DEB"; do
		[ -f "$deb" ] || { echo "$deb missing: make deb"; return 1; }
		echo "     $(basename "$deb"): $(du -k "$deb" | cut -f1) KB"
	done
	printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
	chmod 0755 /usr/sbin/policy-rc.d
	( cd "$(dirname "$DEB")" &&
		time apt-get install -y "./$(basename "$DEB")" "./$(basename "$IPVSADM_DEB")" \
			"./$(basename "$KEEPALIVED_DEB")" ) \
		>> "$LOG" 2>&1 || { rm -f /usr/sbin/policy-rc.d; tail -n 30 "$LOG"; return 1; }
	rm -f /usr/sbin/policy-rc.d
	grep -E '^(real|Building|Done|Signing)' "$LOG" | sed 's/^/     /'
	status=$(dkms status ip-vs-l7)
	echo "     dkms status: $status"
	grep -q "^ip-vs-l7/$VERSION, $KVER, x86_64: installed" <<< "$status" || {
		cat "/var/lib/dkms/ip-vs-l7/$VERSION/build/make.log" 2>/dev/null | tail -n 30
		return 1
	}
}

installed_in_updates() {
	local files paths="" m path
	files=$(module_files)
	for m in ip_vs_l7 ip_vs_l7_genl; do
		path=$(modinfo -n $m) || return 1
		echo "     modinfo -n: $path"
		case $path in
		"$MODDIR/updates/dkms/$m.ko" | "$MODDIR/updates/dkms/$m.ko."*) ;;
		*) return 1 ;;
		esac
		paths="$paths$path"$'\n'
	done
	[ "$files" = "$(printf '%s' "$paths" | sort)" ] || { echo "module files: $files"; return 1; }
}

# The patched ipvsadm replaced Debian's: its version, and the ipvsadm on
# PATH is the package's and speaks the IPVS_L7 family.
patched_ipvsadm_installed() {
	local v
	v=$(dpkg-query -W -f='${Version}' ipvsadm) || return 1
	echo "     ipvsadm $v: $(command -v ipvsadm)"
	[ "$v" = "1:1.31+l7.$VERSION-1" ] || return 1
	[ "$(command -v ipvsadm)" -ef /sbin/ipvsadm ] || return 1
	in_dir ipvsadm --help 2>&1 | grep -q -- '--add-pool' ||
		{ echo "no --add-pool in ipvsadm --help"; return 1; }
}

# The packaged ipvsadm routes: a rule sends /cgi-bin/ to a pool of one
# server (every CGI answer from it) and "ipvsadm -Ln" lists the rule; rule
# and pool deleted again, the CGIs spread once more.
packaged_ipvsadm_routes() {
	local s1 i out
	s1=$(backend_ip s1):80
	in_dir ipvsadm --add-pool -t "$VS" --pool one --members "$s1" || return 1
	in_dir ipvsadm --add-rule -t "$VS" --id 10 --path-prefix /cgi-bin --pool one ||
		return 1
	in_dir ipvsadm -Ln -t "$VS" | grep -Eq '^  rule 10 +path-prefix /cgi-bin pool one$' ||
		{ in_dir ipvsadm -Ln -t "$VS"; return 1; }
	for i in 1 2 3 4 5 6; do
		out=$(in_cli curl -sS --fail --max-time 60 "http://$L7TB_VIP/cgi-bin/burn?iters=1") ||
			return 1
		grep -q '^backend=s1 ' <<< "$out" || { echo "request $i: $out"; return 1; }
	done
	in_dir ipvsadm --del-rule -t "$VS" --id 10 &&
		in_dir ipvsadm --del-pool -t "$VS" --pool one
}

# The patched keepalived replaced Debian's (1:2.2.7-1+b2 on the host):
# its version, /usr/sbin/keepalived is the package's, a configuration test
# of a virtual_server with lb_algo l7 passes (stock 2.2.7 logs "Invalid
# lvs_scheduler 'l7'", falls back to wlc and exits 5), its notify script
# and unit are installed, and nothing started it.
patched_keepalived_installed() {
	local v out rc=0
	v=$(dpkg-query -W -f='${Version}' keepalived) || return 1
	echo "     keepalived $v: $(dpkg -S /usr/sbin/keepalived)"
	[ "$v" = "1:2.2.7+l7.$VERSION-1" ] || return 1
	[ "$(command -v keepalived)" -ef /usr/sbin/keepalived ] || return 1
	ka_conf 8080 > "$TMP/ka-test.conf"
	out=$(keepalived -t -n -l -D -f "$TMP/ka-test.conf" 2>&1) || rc=$?
	echo "     keepalived -t, lb_algo l7: exit $rc${out:+: $out}"
	[ "$rc" = 0 ] && ! grep -qi scheduler <<< "$out" || return 1
	[ -x /etc/keepalived/l7-rules-load ] && [ -x /etc/keepalived/l7-sync-up ] &&
		[ -f /lib/systemd/system/keepalived.service ] &&
		[ -f /usr/share/doc/keepalived/examples/keepalived-master.conf ] ||
		{ dpkg -L keepalived; return 1; }
	! pgrep -x keepalived || { echo "keepalived was started by the installation"; return 1; }
}

# ka_conf PORT: a virtual_server VIP:PORT with lb_algo l7 to the three
# backends' port 80, no checker (keepalived counts them up)
ka_conf() {
	local b
	echo "global_defs {"
	echo "	router_id l7install"
	echo "}"
	echo "virtual_server $L7TB_VIP $1 {"
	echo "	lb_algo l7"
	echo "	lb_kind NAT"
	echo "	protocol TCP"
	for b in $L7TB_BACKENDS; do
		echo "	real_server $(backend_ip "$b") 80 {"
		echo "		weight 1"
		echo "	}"
	done
	echo "}"
}

ka_service() {	# the scheduler and real servers of VIP:8080, as -Ln lists them
	in_dir ipvsadm -Ln -t "$L7TB_VIP:8080" 2>/dev/null |
		awk '$1 == "TCP" { print $3 } $1 == "->" && $2 ~ /:80$/ { n++ } END { print n + 0 }' |
		xargs
}

ka_l7_up() { [ "$(ka_service)" = "l7 3" ]; }

# The packaged keepalived, started in the director's namespace with that
# configuration (checker only), programs an l7 service on port 8080 that
# "ipvsadm -Ln" lists with scheduler l7 and the module's data path serves
# byte-exact; stopped (SIGTERM), it deletes the service again.
packaged_keepalived_programs_l7() {
	local pid digest got rc=0
	ka_conf 8080 > "$TMP/ka.conf"
	ip netns exec l7dir keepalived --check -n -l -D -f "$TMP/ka.conf" \
		-p "$TMP/ka.pid" -c "$TMP/ka-checkers.pid" >> "$TMP/ka.log" 2>&1 &
	pid=$!
	if ! wait_for -s 60 ka_l7_up; then
		echo "ipvsadm -Ln: $(ka_service)"
		rc=1
	else
		echo "     $(in_dir ipvsadm -Ln -t "$L7TB_VIP:8080" | grep '^TCP')"
		digest=$(awk '$2 == "static/10k.bin" { print $1 }' "$L7TB_DIR/www/SHA256SUMS")
		fetch "http://$L7TB_VIP:8080/static/10k.bin" "$TMP/ka10k" > /dev/null &&
			got=$(sha256sum < "$TMP/ka10k" | cut -d' ' -f1) &&
			[ "$got" = "$digest" ] || { echo "10k.bin through :8080: ${got:-failed}"; rc=1; }
	fi
	kill -TERM "$pid" 2>/dev/null
	wait "$pid"
	[ "$rc" = 0 ] || { tail -n 20 "$TMP/ka.log"; return 1; }
	[ -z "$(in_dir ipvsadm -Ln -t "$L7TB_VIP:8080" 2>/dev/null)" ] ||
		{ echo "service left after keepalived stopped"; return 1; }
}

# The package's modprobe.d example, copied as its comment says, with
# pool_min_idle changed from 8 to 4: the autoloaded module must use it.
modprobe_example_applies() {
	[ -f "$EXAMPLE" ] || { echo "$EXAMPLE missing"; return 1; }
	sed -e 's/^#options ip_vs_l7 /options ip_vs_l7 /' \
		-e '/^options/s/pool_min_idle=8/pool_min_idle=4/' \
		"$EXAMPLE" > /etc/modprobe.d/ip_vs_l7.conf
	grep -q '^options ip_vs_l7 .*pool_min_idle=4' /etc/modprobe.d/ip_vs_l7.conf ||
		{ echo "no options line to uncomment"; return 1; }
	! grep -q '^ip_vs_l7 ' /proc/modules || { echo "loaded before any l7 service"; return 1; }
	add_service "$VS" l7 1 1 1 || return 1
	grep -q '^ip_vs_l7 ' /proc/modules || { echo "ipvsadm -s l7 did not load it"; return 1; }
	[ "$(cat /sys/module/ip_vs_l7/parameters/pool_min_idle)" = 4 ] ||
		{ echo "pool_min_idle $(cat /sys/module/ip_vs_l7/parameters/pool_min_idle)"; return 1; }
	# every parameter of the example line took its value
	sed -n 's/^options ip_vs_l7 //p' /etc/modprobe.d/ip_vs_l7.conf | tr ' ' '\n' |
		while IFS== read -r name value; do
			got=$(cat "/sys/module/ip_vs_l7/parameters/$name")
			[ "$name" = datapath ] && [ "$got" = Y ] && got=1
			[ "$got" = "$value" ] || { echo "$name=$got, example says $value"; exit 1; }
		done || return 1
	wait_eq "4 4 4" idle_per_backend || { in_dir cat /proc/net/ip_vs_l7; return 1; }
}

idle_per_backend() {
	echo $(for b in $L7TB_BACKENDS; do pool_col "$b" Idle; done)
}

# Static files, a CGI and a POST byte-exact through the splice, served by
# every backend, with no IPVS connection: the data path answered them.
spliced_exact() {
	local out b
	: > "$TMP/served"
	fetch_static 2 "$TMP/served" || return 1
	out=$(in_cli curl -sS --fail --max-time 60 "http://$L7TB_VIP/cgi-bin/burn?iters=10") ||
		return 1
	grep -Eq '^backend=s[123] iters=10' <<< "$out" || { echo "$out"; return 1; }
	head -c 100000 /dev/urandom > "$TMP/post"
	in_cli curl -sS --fail --max-time 60 --data-binary @"$TMP/post" \
		-o "$TMP/echo" "http://$L7TB_VIP/cgi-bin/echo" || return 1
	cmp "$TMP/post" "$TMP/echo" || return 1
	for b in $L7TB_BACKENDS; do
		grep -qx "$b" "$TMP/served" || { sort "$TMP/served" | uniq -c; return 1; }
	done
	echo "     $(wc -l < "$TMP/served") static files, $(sort "$TMP/served" | uniq -c | xargs)"
	[ -z "$(in_dir ipvsadm -Lnc | tail -n +3)" ] || { in_dir ipvsadm -Lnc; return 1; }
}

# apt remove while a service uses l7: dkms removes the module file, the
# loaded module stays (IPVS holds it) and keeps serving.
remove_in_use() {
	apt-get remove -y ip-vs-l7-dkms >> "$LOG" 2>&1 || { tail -n 20 "$LOG"; return 1; }
	[ -z "$(dkms status ip-vs-l7)" ] || { dkms status; return 1; }
	[ -z "$(module_files)" ] || { echo "left: $(module_files)"; return 1; }
	grep -q '^ip_vs_l7 ' /proc/modules || { echo "unloaded by the removal"; return 1; }
	fetch "http://$L7TB_VIP/static/10k.bin" "$TMP/10k" > /dev/null &&
		grep -q "$(sha256sum < "$TMP/10k" | cut -d' ' -f1)  static/10k.bin" \
			"$L7TB_DIR/www/SHA256SUMS"
}

client_connected() {
	[ "$(service_active)" -ge 1 ]
}

service_active() {
	svc_col active
}

# rmmod is refused while a service uses l7.  The drain of
# docs/operations.md, "Removal": new SYNs for the VIP dropped ahead of the l7 hook
# (nftables at priority -450; the hook is at NF_IP_PRI_RAW - 1), the
# connections under way end on their own (a 1 MB download, read slowly
# by clients/slowget.py, stays byte-exact), then the service goes and
# the module unloads.
drain_then_rmmod() {
	local pid
	! rmmod ip_vs_l7 2>/dev/null || { echo "rmmod succeeded under a service"; return 1; }
	echo 5 > /sys/module/ip_vs_l7/parameters/head_timeout
	in_cli "$PY" "$L7TB_DIR/clients/slowget.py" "$L7TB_VIP" /static/1m.bin "$TMP/1m" \
		> "$TMP/slowget.out" 2>&1 &
	pid=$!
	if ! wait_for client_connected; then
		sleep 1
		echo "never active; the download: $(cat "$TMP/slowget.out")"
		in_dir cat /proc/net/ip_vs_l7
		kill "$pid" 2>/dev/null
		return 1
	fi
	in_dir nft -f - <<-NFT || { kill "$pid"; return 1; }
	table ip l7drain {
		chain pre {
			type filter hook prerouting priority -450; policy accept;
			ip daddr $L7TB_VIP tcp dport 80 tcp flags & (syn | ack) == syn drop
		}
	}
	NFT
	if in_cli curl -s --max-time 3 -o /dev/null "http://$L7TB_VIP/index.html"; then
		echo "a new connection was served while draining"
		kill "$pid"
		return 1
	fi
	wait "$pid" || { echo "the download under way was cut: $(cat "$TMP/slowget.out")"; return 1; }
	grep -q "$(sha256sum < "$TMP/1m" | cut -d' ' -f1)  static/1m.bin" \
		"$L7TB_DIR/www/SHA256SUMS" || { echo "1m.bin differs"; return 1; }
	wait_eq 0 service_active || { in_dir cat /proc/net/ip_vs_l7; return 1; }
	in_dir ipvsadm -D -t "$VS" || return 1
	in_dir nft delete table ip l7drain
	# as the documented drain does: the family first, if rules were ever managed
	# (the packaged ipvsadm's rule test loaded it)
	rmmod ip_vs_l7_genl 2>/dev/null
	wait_for rmmod ip_vs_l7 || return 1
	! grep -q '^ip_vs_l7 ' /proc/modules
}

# The package has no conffiles: removed, it leaves nothing for purge.
# dpkg may still know its name, as not installed ("un": the patched
# ipvsadm recommends it), never as installed or with config files.
removal_leaves_nothing() {
	case "$(dpkg-query -W -f='${db:Status-Abbrev}' ip-vs-l7-dkms 2>/dev/null | tr -d ' ')" in
	'' | un | pn) ;;
	*) dpkg -l ip-vs-l7-dkms; return 1 ;;
	esac
	! ls -d /usr/src/ip-vs-l7-* /var/lib/dkms/ip-vs-l7 /usr/share/doc/ip-vs-l7-dkms 2>/dev/null
}

# Give the next suite of this boot the module guest-run installed.
restore() {
	rm -f /etc/modprobe.d/ip_vs_l7.conf
	umount /boot 2>/dev/null
	if [ -n "${L7_MODULE:-}" ]; then
		install -D -m 0644 "$L7_MODULE" "$MODDIR/extra/ip_vs_l7.ko"
		install -D -m 0644 "$(dirname "$L7_MODULE")/ip_vs_l7_genl.ko" \
			"$MODDIR/extra/ip_vs_l7_genl.ko"
		depmod -a "$KVER"
	fi
	rm -rf "$TMP"
}

: > "$LOG"
if ! t_check "install: apt, dpkg and dkms write only guest memory" writes_stay_in_guest; then
	t_summary
	exit 1
fi
only_running_kernel_in_boot
remove_ci_module
testbed_up
t_check "install: apt install ./$(basename "$DEB") ./$(basename "$IPVSADM_DEB") ./$(basename "$KEEPALIVED_DEB") builds ip_vs_l7 for $KVER" \
	apt_install
t_check "install: the only ip_vs_l7 of $KVER is DKMS's, in updates/dkms" installed_in_updates
t_check "install: the patched ipvsadm replaced Debian's and speaks IPVS_L7" patched_ipvsadm_installed
t_check "install: ipvsadm -s l7 autoloads it with the modprobe.d example's options" \
	modprobe_example_applies
t_check "install: static files, a CGI and a POST byte-exact through the splice" spliced_exact
t_check "install: the packaged ipvsadm adds a pool and a /cgi-bin rule that routes, -Ln lists it" \
	packaged_ipvsadm_routes
t_check "install: the patched keepalived replaced Debian's, accepts lb_algo l7 (-t), started nothing" \
	patched_keepalived_installed
t_check "install: the packaged keepalived programs an l7 service (-Ln lists l7, 10k.bin byte-exact), deletes it when stopped" \
	packaged_keepalived_programs_l7
t_check "remove: apt remove under a live l7 service: file gone, module serves on" remove_in_use
t_check "remove: rmmod refused under the service; drained (new SYNs dropped, 1 MB under way exact), deleted, it unloads" \
	drain_then_rmmod
t_check "remove: nothing of the package is left (no source, DKMS tree, docs or dpkg entry)" \
	removal_leaves_nothing
testbed_down
restore
t_summary
