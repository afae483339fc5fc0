#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make demo: how the requests of HTTP/1.1 keep-alive connections spread
# over three backends under -s rr (plain IPVS) and -s l7 (ip_vs_l7 with
# its data path), side by side.  Four clients open one keep-alive
# connection each and send 40, 25, 10 and 5 CGI requests of equal cost.
# A per-connection scheduler can only place connections, so the backend
# that drew the long connection does most of the work; per-request
# rebinding spreads the requests themselves.  Then content rules send the
# CGI requests to two backends and the static files to the third.
set -eu
. "$(dirname "$0")/lib.sh"

VS=$L7TB_VIP:80
CALLS="40 25 10 5"
URI="/cgi-bin/burn?iters=300"

modprobe ip_vs_l7 datapath=1 queue_timeout=30000
"$L7TB_DIR/topology" up
"$L7TB_DIR/apache" start

# run_clients: one httperf per connection, started in a fixed order
run_clients() {
	local n pids=""
	for n in $CALLS; do
		in_cli httperf --server "$L7TB_VIP" --uri "$URI" --num-conns 1 \
			--num-calls "$n" --timeout 60 > /dev/null 2>&1 &
		pids="$pids $!"
		sleep 0.5
	done
	# shellcheck disable=SC2086
	wait $pids
}

declare -A REQS
for sched in rr l7; do
	for b in $L7TB_BACKENDS; do : > "$L7TB_RUN/$b/access.log"; done
	add_service "$VS" "$sched" 1 1 1
	[ "$sched" = l7 ] && wait_for pools_ready > /dev/null
	run_clients
	for b in $L7TB_BACKENDS; do
		REQS[$sched$b]=$(grep -c "GET $URI" "$L7TB_RUN/$b/access.log" || true)
	done
	in_dir ipvsadm -D -t "$VS"
done

bar() { head -c "$1" /dev/zero | tr '\0' '#'; }
printf '\n%s requests on 4 keep-alive connections, per backend:\n\n' \
	"${CALLS// /+}"
printf '  %-7s  %-47s  %s\n' backend "-s rr (IPVS, per connection)" "-s l7 (ip_vs_l7)"
for b in $L7TB_BACKENDS; do
	printf '  %-7s  %3d %-43s  %3d %s\n' "$b" "${REQS[rr$b]}" "$(bar "${REQS[rr$b]}")" \
		"${REQS[l7$b]}" "$(bar "${REQS[l7$b]}")"
done
printf '  %-7s  %-47s  %s\n' "CV" \
	"$(cv "${REQS[rrs1]}" "${REQS[rrs2]}" "${REQS[rrs3]}")" \
	"$(cv "${REQS[l7s1]}" "${REQS[l7s2]}" "${REQS[l7s3]}")"
echo "  (CV: coefficient of variation of the requests per backend; 0 is even)"

# Content rules, set with the patched ipvsadm (make ipvsadm): /cgi-bin/ to
# s1 and s2, /static/ to s3; four keep-alive connections mix both kinds.
IPVSADM=$L7TB_BUILD/ipvsadm/ipvsadm
S1=$(backend_ip s1):80 S2=$(backend_ip s2):80 S3=$(backend_ip s3):80
RULES=("--add-pool -t $VS --pool cgi --members $S1,$S2"
       "--add-pool -t $VS --pool static --members $S3"
       "--add-rule -t $VS --id 10 --path-prefix /cgi-bin --pool cgi"
       "--add-rule -t $VS --id 20 --path-prefix /static --pool static")
add_service "$VS" l7 1 1 1
for r in "${RULES[@]}"; do
	# shellcheck disable=SC2086
	in_dir "$IPVSADM" $r
done
wait_for pools_ready > /dev/null
clear_logs
mix=()
for i in $(seq 1 10); do
	mix+=("http://$L7TB_VIP/cgi-bin/burn?iters=50" "http://$L7TB_VIP/static/10k.bin")
done
for c in 1 2 3 4; do
	in_cli curl -sS --fail --max-time 120 "${mix[@]}" \
		> /dev/null 2>&1 &
done
wait
printf '\nContent rules, with the patched ipvsadm:\n\n'
printf '  ipvsadm %s\n' "${RULES[@]}"
printf '\n40 CGI and 40 static requests mixed on 4 keep-alive connections, per backend:\n\n'
printf '  %-7s  %6s  %6s\n' backend CGI static
for b in $L7TB_BACKENDS; do
	printf '  %-7s  %6d  %6d\n' "$b" \
		"$(grep -c 'GET /cgi-bin/' "$L7TB_RUN/$b/access.log" || true)" \
		"$(grep -c 'GET /static/' "$L7TB_RUN/$b/access.log" || true)"
done
in_dir "$IPVSADM" -C
"$L7TB_DIR/apache" stop
