#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make demo: how the requests of HTTP/1.1 keep-alive connections spread
# over three backends, per IPVS scheduler.  Four clients open one
# keep-alive connection each and send 40, 25, 10 and 5 CGI requests.
# A per-connection scheduler can only place connections, so the backend
# that drew the long connection does most of the work.
set -eu
. "$(dirname "$0")/lib.sh"

VS=$L7TB_VIP:80
CALLS="40 25 10 5"
URI="/cgi-bin/burn?iters=300"

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

# report SCHED: per-backend requests and connections from access logs
report() {
	local sched=$1 b reqs conns total=0 counts=""
	printf '\n-s %s  (%s requests on 4 keep-alive connections)\n' \
		"$sched" "$(echo $CALLS | tr ' ' '+')"
	printf '  %-8s %9s %12s\n' backend requests connections
	for b in $L7TB_BACKENDS; do
		reqs=$(grep -c 'GET /cgi-bin/burn' "$L7TB_RUN/$b/access.log" || true)
		conns=$(grep 'GET /cgi-bin/burn' "$L7TB_RUN/$b/access.log" |
			awk '{ print $1 ":" $2 }' | sort -u | wc -l)
		printf '  %-8s %9d %12d  %s\n' "$b" "$reqs" "$conns" \
			"$(head -c "$reqs" /dev/zero | tr '\0' '#')"
		counts="$counts $reqs"
	done
	echo "$counts" | awk '{ n = NF; for (i = 1; i <= n; i++) s += $i;
		m = s / n; for (i = 1; i <= n; i++) v += ($i - m) ^ 2;
		printf "  coefficient of variation of requests per backend: %.2f\n",
			sqrt(v / n) / m }'
}

for sched in rr l7; do
	for b in $L7TB_BACKENDS; do : > "$L7TB_RUN/$b/access.log"; done
	in_dir ipvsadm -A -t "$VS" -s "$sched"
	for b in $L7TB_BACKENDS; do
		in_dir ipvsadm -a -t "$VS" -r "$(backend_ip "$b"):80" -m -w 1
	done
	run_clients
	report "$sched"
	in_dir ipvsadm -D -t "$VS"
done

cat <<'NOTE'

Both schedulers place whole connections (rr in turn, l7 by weighted least-
connection): every request of a keep-alive connection lands on the backend
its connection was given.  Per-request rebinding, which evens this out, is
the data path that ip_vs_l7 builds next.
NOTE
"$L7TB_DIR/apache" stop
