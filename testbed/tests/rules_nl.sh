#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The IPVS_L7 generic-netlink family from user space: a request for the
# family loads the module; rules and pools round-trip; every malformed,
# oversize or hostile request is refused with its errno and a message;
# no CAP_NET_ADMIN, no access; rule sets are per namespace and go with it
# and with the module.  Runs inside the guest.  Clients:
# testbed/clients/l7nl.py (the family over socket.AF_NETLINK) and
# testbed/clients/l7nl_checks.py (the checks, in one process each).
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
TMP=$(mktemp -d)
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
export PYTHONDONTWRITEBYTECODE=1
NL="$PY $L7TB_DIR/clients/l7nl.py"
CHECKS="$PY $L7TB_DIR/clients/l7nl_checks.py"

testbed_up

module_loaded() { grep -q '^ip_vs_l7 ' /proc/modules; }

# run_checks NAME CMD...: CMD prints "ok   NAME" / "FAIL NAME" lines, the
# details of a failure indented under it; each becomes a test here.
run_checks() {
	local what=$1 line name="" detail=() n=0 rc
	shift
	"$@" > "$TMP/checks" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok   "*) flush_check; t_pass "${line#ok   }"; n=$((n + 1)) ;;
		"FAIL "*) flush_check; name=${line#FAIL }; n=$((n + 1)) ;;
		*) [ -n "$name" ] && detail+=("$line") ;;
		esac
	done < "$TMP/checks"
	flush_check
	if [ $n = 0 ] || { [ $rc != 0 ] && ! grep -q '^FAIL ' "$TMP/checks"; }; then
		t_fail "$what: the checks ran to their end" "$(tail -n 20 "$TMP/checks")"
	fi
}
flush_check() {
	[ -n "$name" ] && t_fail "$name" "${detail[@]}"
	name=""
	detail=()
}

family_autoloads() {
	if module_loaded; then rmmod ip_vs_l7 || return 1; fi
	in_dir $NL info > "$TMP/info" || return 1
	module_loaded || { echo "module not loaded"; return 1; }
	grep -q "1: 1," "$TMP/info"
}

# rules of one namespace are not seen from another
per_namespace() {
	in_dir $NL add-pool "$VS" a 192.0.2.11:80 || return 1
	in_dir $NL add-rule "$VS" 1 prefix=/a pool=a || return 1
	[ "$(in_cli $NL rules | wc -l)" = 0 ] || { echo "l7cli sees rules"; return 1; }
	[ "$(in_dir $NL rules)" = "$VS 1 a 0" ] || { in_dir $NL rules; return 1; }
	in_cli $NL add-pool "$VS" b 192.0.2.12:80 || return 1
	[ "$(in_dir $NL pools | awk '{ print $2 }')" = a ] || return 1
	in_cli $NL flush
	in_dir $NL flush
}

# a namespace that goes away with rule sets in it: they go with it
namespace_exit() {
	local i
	ip netns add l7tmp || return 1
	for i in 1 2 3; do
		ip netns exec l7tmp $NL add-pool "198.51.100.$i:80" p 192.0.2.11:80 &&
			ip netns exec l7tmp $NL add-rule "198.51.100.$i:80" 1 pool=p ||
			{ ip netns del l7tmp; return 1; }
	done
	ip netns del l7tmp
	sleep 1		# cleanup_net runs from a work item
}

# unloading the module with rule sets loaded frees them; a reload is empty
unload_with_rules() {
	in_dir $NL add-pool "$VS" a 192.0.2.11:80 || return 1
	in_dir $NL add-rule "$VS" 1 pool=a || return 1
	rmmod ip_vs_l7 || return 1
	[ "$(in_dir $NL rules | wc -l)" = 0 ] || return 1
	module_loaded
}

t_check "a request for the family loads ip_vs_l7" family_autoloads
run_checks "control" in_dir $CHECKS control
t_check "rule sets are per network namespace" per_namespace
t_check "a namespace deleted with rule sets in it" namespace_exit
t_check "rmmod with rule sets loaded; the family reloads it, empty" unload_with_rules
# root of a new user namespace: no CAP_NET_ADMIN where IPVS needs it,
# neither in the director's namespace nor in a namespace of its own
run_checks "unpriv (host netns)" in_dir unshare -Ur $CHECKS unpriv
run_checks "unpriv (own netns)" unshare -Urn $CHECKS unpriv

testbed_down
rm -rf "$TMP"
t_summary
