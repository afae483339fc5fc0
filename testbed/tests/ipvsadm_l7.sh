#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ipvsadm_l7 VM suite: the patched ipvsadm (make ipvsadm, ipvsadm-patch/)
# against ip_vs_l7's IPVS_L7 family - pools and rules added, listed, saved,
# flushed and restored; the --forwarded and --prefork options of l7
# services set, listed, saved, cleared and restored; every bad input refused with one line and a
# non-zero status; and, without rules or without the module, output
# byte for byte that of Debian's ipvsadm.  Runs inside the guest.
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
PATCHED=$L7TB_BUILD/ipvsadm/ipvsadm
TMP=$(mktemp -d)

new() { in_dir "$PATCHED" "$@"; }
stock() { in_dir /sbin/ipvsadm "$@"; }
module_loaded() { grep -q '^ip_vs_l7 ' /proc/modules; }

[ -x "$PATCHED" ] || { echo "FAIL no $PATCHED (make ipvsadm)"; exit 1; }

testbed_up

# same_as_stock ARGS...: both binaries print the same bytes, status 0
same_as_stock() {
	local args
	# numeric only: the guest has no name server to ask
	for args in "-Ln" "-Sn" "-Ln --stats" "-Ln --stats --exact" \
		    "-Ln --rate" "-Ln --thresholds" "-Ln -t $VS"; do
		# shellcheck disable=SC2086
		stock $args > "$TMP/stock" 2>&1 || { echo "stock $args failed"; return 1; }
		# shellcheck disable=SC2086
		new $args > "$TMP/new" 2>&1 ||
			{ echo "patched $args failed"; cat "$TMP/new"; return 1; }
		# counters move between the two runs only with traffic: none here
		cmp -s "$TMP/stock" "$TMP/new" ||
			{ echo "ipvsadm $args differs:"; diff "$TMP/stock" "$TMP/new"; return 1; }
	done
}

stock_output_without_module() {
	module_loaded && { echo "ip_vs_l7 loaded before the suite"; return 1; }
	add_service "$VS" rr 1 2 3 || return 1
	same_as_stock || return 1
	module_loaded && { echo "a listing loaded ip_vs_l7"; return 1; }
	return 0
}

# -C without the module: nothing to flush is not an error, no module load
flush_without_module() {
	new -C || return 1
	module_loaded && { echo "ipvsadm -C loaded ip_vs_l7"; return 1; }
	[ -z "$(new -Sn)" ] || { echo "service left after -C"; return 1; }
}

stock_output_l7_no_rules() {
	add_service "$VS" l7 1 2 3 || return 1
	module_loaded || { echo "ip_vs_l7 not loaded by -s l7"; return 1; }
	same_as_stock
}

add_rule_set() {
	new --add-pool -t "$VS" --pool cgi --members 192.0.2.11:80,192.0.2.12:80 --policy wlo &&
	new --add-pool -t "$VS" --pool static --members 192.0.2.13:80 --policy wrr &&
	new --add-pool -t "$VS" --pool sticky --members 192.0.2.11:80,192.0.2.13:80 \
		--policy hash:cookie:sid &&
	new --add-rule -t "$VS" --id 10 --path-prefix /cgi-bin --pool cgi &&
	new --add-rule -t "$VS" --id 20 --host '*.static.example' --method GET,HEAD --pool static &&
	new --add-rule -t "$VS" --id 30 --hdr x-canary=1 --hdr x-env=a\|b --cookie v=2 \
		--pool sticky --fallthrough &&
	new --add-rule -t "$VS" --id 40 --path /admin --path-nocase --reject 403
}

LIST_L7='  pool cgi             192.0.2.11:80,192.0.2.12:80 wlo
  pool static          192.0.2.13:80 wrr
  pool sticky          192.0.2.11:80,192.0.2.13:80 hash:cookie:sid
  rule 10         path-prefix /cgi-bin pool cgi
  rule 20         host *.static.example method GET,HEAD pool static
  rule 30         hdr x-canary=1 hdr x-env=a|b cookie v=2 pool sticky fallthrough
  rule 40         path /admin path-nocase reject 403'

pools_and_rules_listed() {
	add_rule_set || return 1
	new -Ln > "$TMP/list" || return 1
	# the l7 lines follow the real servers of the service
	tail -n 7 "$TMP/list" > "$TMP/l7"
	[ "$(cat "$TMP/l7")" = "$LIST_L7" ] ||
		{ echo "-Ln ends with:"; cat "$TMP/l7"; return 1; }
	grep -c -- '^  -> [0-9]' "$TMP/list" | grep -qx 3 || { cat "$TMP/list"; return 1; }
	# stock ipvsadm keeps printing what it knows, without the l7 lines
	stock -Ln > "$TMP/stock" || return 1
	head -n "$(wc -l < "$TMP/stock")" "$TMP/list" | cmp -s - "$TMP/stock" ||
		{ diff "$TMP/stock" "$TMP/list"; return 1; }
}

stats_listed() {
	new -Ln --stats > "$TMP/stats" || return 1
	grep -Eq '^  pool cgi +requests [0-9]+ unavailable [0-9]+$' "$TMP/stats" &&
	grep -Eq '^  rule 40 +hits [0-9]+$' "$TMP/stats" &&
	[ "$(grep -c '^  rule ' "$TMP/stats")" = 4 ] ||
		{ cat "$TMP/stats"; return 1; }
}

save_clear_restore() {
	new -Sn > "$TMP/saved" || return 1
	grep -q -- '^--add-rule -t .* --id 30 --hdr x-canary=1 --hdr x-env=a|b --cookie v=2 --pool sticky --fallthrough$' \
		"$TMP/saved" || { cat "$TMP/saved"; return 1; }
	# pools and rules after the -a lines: -R replays them in order
	awk '/^-a /{ a = NR } /^--add-(pool|rule) /{ if (!f) f = NR }
	     END { exit !(a && f > a) }' "$TMP/saved" || { cat "$TMP/saved"; return 1; }
	new -C || return 1
	[ -z "$(new -Sn)" ] || { echo "-C left:"; new -Sn; return 1; }
	new -R < "$TMP/saved" || return 1
	new -Sn > "$TMP/again" || return 1
	cmp -s "$TMP/saved" "$TMP/again" || { diff "$TMP/saved" "$TMP/again"; return 1; }
	new -Sn | grep -c -- '^--add-' | grep -qx 7 || { new -Sn; return 1; }
}

# rule sets outlive their IPVS service: -C must flush them too
clear_flushes_rules() {
	new -C || return 1
	add_service "$VS" l7 1 2 3 || return 1
	new -Ln > "$TMP/list" || return 1
	! grep -Eq '^  (pool|rule) ' "$TMP/list" || { cat "$TMP/list"; return 1; }
	add_rule_set
}

edit_and_delete() {
	new --edit-pool -t "$VS" --pool cgi --members 192.0.2.12:80 --policy hash:uri &&
	new --edit-rule -t "$VS" --id 10 --path-prefix /cgi --pool cgi &&
	new --del-rule -t "$VS" --id 20 &&
	new --del-pool -t "$VS" --pool static || return 1
	new -Ln > "$TMP/list" || return 1
	grep -qx '  pool cgi             192.0.2.12:80 hash:uri' "$TMP/list" &&
	grep -qx '  rule 10         path-prefix /cgi pool cgi' "$TMP/list" &&
	! grep -q 'rule 20\|pool static' "$TMP/list" || { cat "$TMP/list"; return 1; }
}

# refused ERE ARGS...: the patched ipvsadm exits non-zero with exactly one
# line on stderr, matching ERE, and nothing on stdout
refused() {
	local want=$1 rc
	shift
	new "$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	[ $rc -ne 0 ] || { echo "ipvsadm $* succeeded"; return 1; }
	[ ! -s "$TMP/out" ] || { echo "stdout:"; cat "$TMP/out"; return 1; }
	[ "$(wc -l < "$TMP/err")" = 1 ] && grep -Eq "$want" "$TMP/err" ||
		{ echo "ipvsadm $* (status $rc) said:"; cat "$TMP/err"; return 1; }
	echo "status $rc: ipvsadm $*: $(cat "$TMP/err")" >> "$TMP/refusals"
}

bad_input_refused() {
	local long
	long=$(printf 'a%.0s' $(seq 1 300))
	new -Sn > "$TMP/before" || return 1
	refused 'No such service' --add-pool -t 198.51.100.2:80 --pool p \
		--members 192.0.2.11:80 &&
	refused 'names a pool this service does not have' --add-rule -t "$VS" --id 50 --pool nosuch &&
	refused '192\.0\.2\.99:80 is not a real server' --add-pool -t "$VS" --pool p \
		--members 192.0.2.11:80,192.0.2.99:80 &&
	refused 'a rule with this id exists' --add-rule -t "$VS" --id 10 --reject 404 &&
	refused 'a pool of this name exists' --add-pool -t "$VS" --pool cgi --members 192.0.2.11:80 &&
	refused 'at most 4' --add-rule -t "$VS" --id 51 --hdr a=1 --hdr b=1 \
		--hdr c=1 --hdr d=1 --hdr e=1 --reject 403 &&
	refused 'longer than [0-9]+ bytes' --add-rule -t "$VS" --id 52 --host "$long" --reject 403 &&
	refused 'not an HTTP token' --add-rule -t "$VS" --id 53 --hdr 'x y=1' --reject 403 &&
	refused 'not an HTTP token' --add-rule -t "$VS" --id 53 --hdr 'x:y=1' --reject 403 &&
	refused 'control character' --add-rule -t "$VS" --id 54 --hdr $'x=a\001b' --reject 403 &&
	refused 'control character' --add-rule -t "$VS" --id 54 --host $'a\tb' --reject 403 &&
	refused 'whitespace' --add-rule -t "$VS" --id 54 --cookie 'c=a b' --reject 403 &&
	refused 'reject status' --add-rule -t "$VS" --id 55 --reject 500 &&
	refused 'illegal policy' --add-pool -t "$VS" --pool p --members 192.0.2.11:80 \
		--policy lc &&
	refused 'illegal pool name' --add-pool -t "$VS" --pool 'a/b' --members 192.0.2.11:80 &&
	refused "'pool' or the 'reject'" --add-rule -t "$VS" --id 56 --path /x &&
	refused 'conflicts' --add-rule -t "$VS" --id 56 --pool cgi --reject 403 &&
	refused 'exclude' --add-rule -t "$VS" --id 56 --path /a --path-prefix /b --pool cgi &&
	refused 'illegal method' --add-rule -t "$VS" --id 56 --method GET,FETCH --pool cgi &&
	refused 'goes with --path' --add-rule -t "$VS" --id 56 --path-nocase --pool cgi &&
	refused 'illegal rule id' --add-rule -t "$VS" --id 0 --pool cgi &&
	refused 'TCP service' --add-rule -u "$VS" --id 57 --pool cgi &&
	# the kernel's own checks come back as its extended-ack message
	refused "empty, '.' or '..' segment" --add-rule -t "$VS" --id 58 --path-prefix /a/../b --pool cgi &&
	refused 'sends requests to this pool' --del-pool -t "$VS" --pool cgi &&
	refused 'no rule with this id' --del-rule -t "$VS" --id 999 &&
	refused 'no rule with this id' --edit-rule -t "$VS" --id 999 --reject 404 || return 1
	new -Sn | cmp -s - "$TMP/before" || { echo "a refusal changed the tables"; return 1; }
}

# the kernel's limit on rules per service, reached through -R
rule_limit_refused() {
	local i
	new -C && add_service "$VS" l7 1 2 3 || return 1
	for i in $(seq 1000 2023); do
		echo "--add-rule -t $VS --id $i --path /r$i --reject 404"
	done | new -R || return 1
	[ "$(new -Sn | grep -c -- '^--add-rule')" = 1024 ] || return 1
	refused 'too many rules' --add-rule -t "$VS" --id 3000 --reject 404
}

# --forwarded: per service, on the service's line in -Ln and -Sn when not
# the default, kept over -D/-A, reset by -C, back through -R
V2=$L7TB_VIP:8081
forwarded_option() {
	new -C && add_service "$VS" l7 1 2 3 || return 1
	new -E -t "$VS" -s l7 --forwarded xff &&
		new -A -t "$V2" -s l7 --forwarded forwarded &&
		new -a -t "$V2" -r 192.0.2.11:80 -m || return 1
	new -Ln > "$TMP/list" || return 1
	grep -qx "TCP  $VS l7 forwarded xff" "$TMP/list" &&
		grep -qx "TCP  $V2 l7 forwarded forwarded" "$TMP/list" ||
		{ cat "$TMP/list"; return 1; }
	# stock ipvsadm's lines are the same but for the option
	stock -Ln | cmp -s - <(sed 's/ forwarded [a-z-]*$//' "$TMP/list") ||
		{ stock -Ln | diff - "$TMP/list"; return 1; }
	new -Sn > "$TMP/saved" || return 1
	grep -qx -- "-A -t $VS -s l7 --forwarded xff" "$TMP/saved" &&
		grep -qx -- "-A -t $V2 -s l7 --forwarded forwarded" "$TMP/saved" ||
		{ cat "$TMP/saved"; return 1; }
	# the option belongs to the tuple: kept over -D and -A
	new -D -t "$V2" && new -A -t "$V2" -s l7 &&
		new -a -t "$V2" -r 192.0.2.11:80 -m || return 1
	new -Sn | cmp -s - "$TMP/saved" || { new -Sn | diff "$TMP/saved" -; return 1; }
	# -C resets it: the service added again has the default
	new -C && new -A -t "$V2" -s l7 || return 1
	[ "$(new -Sn)" = "-A -t $V2 -s l7" ] || { new -Sn; return 1; }
	new -C && new -R < "$TMP/saved" || return 1
	new -Sn | cmp -s - "$TMP/saved" || { new -Sn | diff "$TMP/saved" -; return 1; }
	# every mode, and back to the default
	for m in off xff-replace forwarded xff; do
		new -E -t "$V2" -s l7 --forwarded "$m" || return 1
		new -Ln -t "$V2" | grep -qx "TCP  $V2 l7 forwarded $m" ||
			{ new -Ln -t "$V2"; return 1; }
	done
	new -E -t "$V2" -s l7 --forwarded default || return 1
	new -Ln -t "$V2" | grep -qx "TCP  $V2 l7" || { new -Ln -t "$V2"; return 1; }
	new -Sn > "$TMP/before" || return 1
	refused "illegal --forwarded mode .bogus'" -E -t "$V2" -s l7 --forwarded bogus &&
		refused 'illegal --forwarded mode' -A -t "$L7TB_VIP:8082" -s l7 --forwarded XFF &&
		refused 'with -s l7' -A -t "$L7TB_VIP:8082" -s rr --forwarded xff &&
		refused 'with -s l7' -A -u "$L7TB_VIP:8082" -s l7 --forwarded xff &&
		refused "Illegal 'forwarded' option" -a -t "$V2" -r 192.0.2.12:80 --forwarded xff ||
		return 1
	new -Sn | cmp -s - "$TMP/before" || { echo "a refusal changed the tables"; return 1; }
	new -C
}

# --prefork: off on the service's line in -Ln and -Sn (after --forwarded),
# read back through the family, kept over -D/-A, on again shows nothing
prefork_option() {
	new -C && add_service "$VS" l7 1 2 3 || return 1
	new -E -t "$VS" -s l7 --forwarded xff --prefork off || return 1
	new -Ln -t "$VS" | grep -qx "TCP  $VS l7 forwarded xff prefork off" ||
		{ new -Ln -t "$VS"; return 1; }
	[ "$(in_dir "$PY" "$L7TB_DIR/clients/l7nl.py" prefork "$VS")" = off ] || return 1
	new -Sn | grep -qx -- "-A -t $VS -s l7 --forwarded xff --prefork off" ||
		{ new -Sn; return 1; }
	new -D -t "$VS" && new -A -t "$V2" -s l7 --prefork off || return 1
	new -Sn > "$TMP/saved" || return 1
	[ "$(cat "$TMP/saved")" = "-A -t $V2 -s l7 --prefork off" ] || { cat "$TMP/saved"; return 1; }
	new -C && new -R < "$TMP/saved" || return 1
	new -Sn | cmp -s - "$TMP/saved" || { new -Sn | diff "$TMP/saved" -; return 1; }
	new -E -t "$V2" -s l7 --prefork on || return 1
	[ "$(new -Sn)" = "-A -t $V2 -s l7" ] || { new -Sn; return 1; }
	refused "illegal --prefork mode .maybe'" -E -t "$V2" -s l7 --prefork maybe &&
		refused 'with -s l7' -A -t "$L7TB_VIP:8082" -s rr --prefork off &&
		refused "Illegal 'prefork' option" -a -t "$V2" -r 192.0.2.12:80 --prefork off ||
		return 1
	new -C
}

t_check "stock output, ip_vs_l7 absent" stock_output_without_module
t_check "-C without ip_vs_l7" flush_without_module
t_check "stock output, l7 service without rules" stock_output_l7_no_rules
t_check "pools and rules in -Ln" pools_and_rules_listed
t_check "-Ln --stats" stats_listed
t_check "-Sn, -C, -R: same -Sn" save_clear_restore
t_check "-C flushes the rules" clear_flushes_rules
t_check "bad input: one line, status != 0" bad_input_refused
t_check "edit and delete pools and rules" edit_and_delete
t_check "rule limit" rule_limit_refused
t_check "--forwarded: -Ln and -Sn show it, kept over -D/-A, -C resets, -R restores, bad modes refused" forwarded_option
t_check "--prefork off: -Ln and -Sn show it, -R restores, on shows nothing, bad modes refused" prefork_option

echo "refusals seen:"
sed 's/^/     /' "$TMP/refusals" 2>/dev/null

testbed_down
rm -rf "$TMP"
t_summary
