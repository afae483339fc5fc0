# SPDX-License-Identifier: GPL-2.0
# testbed/bench/configs.sh: the director's configurations the benchmarks
# compare, set up in the namespace l7dir (in_dir) on the testbed's
# addresses.  Sourced by bench.sh (one guest) and director.sh (the
# director's guest of make bench-director), never executed.  Needs lib.sh,
# BENCH (this directory), OUT (where rules_up notes its loading time)
# and, for module_meta, CONFIGS.
#
# B0 no service: a backend reached through the director's routing; B1rr,
# B1wlc IPVS-NAT; B2 HAProxy, B3 nginx (proxy); B4 ip_vs_l7 -s l7 and its
# variants: B4xff (X-Forwarded-For), B4rN (N content rules), B4uN (upper
# thresholds), B4log (B4 on a port of its own, for cells with the
# per-request logger running), B5 (no pre-forked pools).

# Each configuration has its own port on the VIP, so no IPVS connection
# entry left by one configuration can catch another's packets.
base_of() {
	case $1 in
	B0) echo "http://$(backend_ip s1):80" ;;
	B1rr) echo "http://$L7TB_VIP:80" ;;
	B1wlc) echo "http://$L7TB_VIP:81" ;;
	B4) echo "http://$L7TB_VIP:82" ;;
	B4xff) echo "http://$L7TB_VIP:86" ;;
	B4r*) echo "http://$L7TB_VIP:$(rules_port "$1")" ;;
	B5) echo "http://$L7TB_VIP:87" ;;
	B4log) echo "http://$L7TB_VIP:98" ;;
	B4u*) echo "http://$L7TB_VIP:$(uthresh_port "$1")" ;;
	B2) echo "http://$L7TB_VIP:8080" ;;
	B3) echo "http://$L7TB_VIP:8081" ;;
	esac
}

# ipvs_up SCHED PORT [ARGS...]: a NAT service, ARGS given to each real server
ipvs_up() {
	local sched=$1 port=$2 b
	shift 2
	in_dir sysctl -qw net.ipv4.vs.conntrack=0
	in_dir ipvsadm -A -t "$L7TB_VIP:$port" -s "$sched"
	# every load generator is one client address: no per-address cap;
	# idle pooled connections kept, not replaced every pool_idle_ttl
	# (96 of them over the l7 services: five connects and closes a
	# second in every cell, whichever configuration it measures)
	if [ "$sched" = l7 ]; then
		echo 0 > /sys/module/ip_vs_l7/parameters/source_max_pooled
		echo 0 > /sys/module/ip_vs_l7/parameters/pool_idle_ttl
	fi
	for b in $L7TB_BACKENDS; do
		in_dir ipvsadm -a -t "$L7TB_VIP:$port" -r "$(backend_ip "$b"):80" \
			-m -w 1 "$@"
	done
}

# B4uN: its port (88 + N, N < 10)
uthresh_port() {
	echo $((88 + ${1#B4u}))
}

# B4rN: B4 with N content rules, the one that matches last (see rules_up)
rules_port() {
	case $1 in
	B4r10) echo 83 ;;
	B4r100) echo 84 ;;
	B4r1000) echo 85 ;;
	esac
}

# rules_up N PORT: an l7 service with N rules loaded through the patched
# ipvsadm, as an operator would: N-1 path-prefix rules W1 never matches
# (/static/rK, compared byte by byte up to the K), then /static, which it
# does, to a pool of all three servers by wlo - so requests go where B4
# sends them and only the matching costs more
rules_up() {
	local n=$1 port=$2 vs=$L7TB_VIP:$2 ipvsadm=$L7TB_BUILD/ipvsadm/ipvsadm k t0=$SECONDS
	ipvs_up l7 "$port"
	{
		echo "--add-pool -t $vs --pool all --members" \
			"$(backend_ip s1):80,$(backend_ip s2):80,$(backend_ip s3):80 --policy wlo"
		for k in $(seq 1 $((n - 1))); do
			echo "--add-rule -t $vs --id $k --path-prefix /static/r$k --pool all"
		done
		echo "--add-rule -t $vs --id $n --path-prefix /static --pool all"
	} | in_dir timeout 900 "$ipvsadm" -R
	[ "$(in_dir "$ipvsadm" -Sn | grep -c -- "^--add-rule -t $vs ")" = "$n" ] ||
		{ echo "bench: $n rules not loaded on $vs" >&2; exit 1; }
	echo "bench: $n rules loaded on $vs in $((SECONDS - t0)) s" | tee -a "$OUT/load.log"
}

# xff_up PORT: an l7 service whose own option (IPVS_L7_CMD_SET_OPTIONS,
# what ipvsadm --forwarded xff sets) adds X-Forwarded-For to every request
xff_up() {
	local vs=$L7TB_VIP:$1
	ipvs_up l7 "$1"
	in_dir "$PY" "$L7TB_DIR/clients/l7nl.py" set-forwarded "$vs" xff
	[ "$(in_dir "$PY" "$L7TB_DIR/clients/l7nl.py" options "$vs")" = "forwarded xff" ] ||
		{ echo "bench: X-Forwarded-For not set on $vs" >&2; exit 1; }
}

config_up() {
	case $1 in
	B0) ;;
	B1rr) ipvs_up rr 80 ;;
	B1wlc) ipvs_up wlc 81 ;;
	B4) ipvs_up l7 82 ;;
	B4log) ipvs_up l7 98 ;;
	B4xff) xff_up 86 ;;
	B4r*) rules_up "${1#B4r}" "$(rules_port "$1")" ;;
	B4u*) ipvs_up l7 "$(uthresh_port "$1")" -x "${1#B4u}" ;;
	B5) ipvs_up l7 87
	    in_dir "$PY" "$L7TB_DIR/clients/l7nl.py" set-prefork "$L7TB_VIP:87" off ;;
	B2) "$BENCH/proxy" start haproxy 8080 ;;
	B3) "$BENCH/proxy" start nginx 8081 ;;
	esac
}

config_down() {
	in_dir ipvsadm -C
	[ ! -x "$L7TB_BUILD/ipvsadm/ipvsadm" ] || in_dir "$L7TB_BUILD/ipvsadm/ipvsadm" -C
	"$BENCH/proxy" stop haproxy
	"$BENCH/proxy" stop nginx
}

# module_meta: what the l7 configurations ran with, for the report's
# labels: every parameter of ip_vs_l7 (l7_param_NAME=VALUE) and each l7
# service's own options as l7nl.py prints them (l7_options_CONFIG=...),
# its forwarded and prefork ones apart (l7_forwarded_CONFIG=default|off|
# xff|..., l7_prefork_CONFIG=on|off)
module_meta() {
	local p cfg o c
	# what one object of IPVS's and the module's connection caches takes
	for c in ip_vs_conn ip_vs_l7_conn; do
		[ ! -r "/sys/kernel/slab/$c/slab_size" ] ||
			echo "slab_size_$c=$(cat "/sys/kernel/slab/$c/slab_size")"
	done
	[ -d /sys/module/ip_vs_l7/parameters ] || return 0
	for p in /sys/module/ip_vs_l7/parameters/*; do
		echo "l7_param_$(basename "$p")=$(cat "$p")"
	done
	for cfg in $CONFIGS; do
		case $cfg in B4* | B5*) ;; *) continue ;; esac
		o=$(in_dir "$PY" "$L7TB_DIR/clients/l7nl.py" options \
			"$(base_of "$cfg" | sed 's|^http://||')") || continue
		echo "l7_options_$cfg=$o"
		echo "l7_forwarded_$cfg=$(echo "$o" | sed -n 's/.*forwarded \([^ ]*\).*/\1/p')"
		o=$(in_dir "$PY" "$L7TB_DIR/clients/l7nl.py" prefork \
			"$(base_of "$cfg" | sed 's|^http://||')") || continue
		echo "l7_prefork_$cfg=$o"
	done
	# each B4uN's real servers' upper thresholds as IPVS holds them
	for cfg in $CONFIGS; do
		case $cfg in B4u*) ;; *) continue ;; esac
		echo "l7_uthreshold_$cfg=$(in_dir ipvsadm -Ln --thresholds \
			-t "$L7TB_VIP:$(uthresh_port "$cfg")" |
			awk '$1 == "->" && $2 ~ /:80$/ { printf "%s%s", n++ ? "," : "", $3 }')"
	done
}
