#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Splice under a bad client link: 3% loss, 1% reordering and a few ms of
# delay both ways (tc netem), and clients without SACK, timestamps or
# window scaling, or with a 536-byte MSS, and the director's checksum
# offload off: every 1 MB download stays byte-exact.  A client without
# timestamps keeps window scaling and SACK.  Runs in the guest.
set -u
. "$(dirname "$0")/../lib.sh"

VS=$L7TB_VIP:80
N=20
TMP=$(mktemp -d)
exec 3>&1
note() { printf '     %s\n' "$@" >&3; }
head -c 307200 /dev/urandom > "$TMP/post"

modprobe ip_vs_l7 datapath=1
testbed_up
add_service "$VS" l7 1 1 1
in_cli tc qdisc add dev eth0 root netem delay 3ms loss 3% reorder 1% 25%
in_dir tc qdisc add dev dcli root netem delay 3ms loss 3% reorder 1% 25%

# downloads: N fetches of the 1 MB file, each on a new connection
downloads() {
	fetch_exact "http://$L7TB_VIP/static/1m.bin" $N
}

# with_client_sysctl NAME VALUE [CMD...]: CMD (downloads) with one client
# TCP knob changed
with_client_sysctl() {
	local old rc name=$1 value=$2
	shift 2
	old=$(in_cli sysctl -n "net.ipv4.$name")
	in_cli sysctl -qw "net.ipv4.$name=$value"
	"${@:-downloads}"
	rc=$?
	in_cli sysctl -qw "net.ipv4.$name=$old"
	return $rc
}

# A client whose SYN offers window scaling and SACK, with timestamps off
# (Windows' default; with_client_sysctl): the cookie carries them, so its
# kernel agrees on both (TCP_INFO: the director's shift of 7, its own),
# and a 1 MB download and a 300 KB POST on one connection stay exact over
# the lossy link - its windows read scaled, its SACK blocks mapped to the
# servers' numbers.
keeps_options() {
	local rc out
	out=$(in_cli "$PY" "$L7TB_DIR/clients/tcpopts.py" "$L7TB_VIP" "$TMP/post")
	rc=$?
	note "client without timestamps, its TCP_INFO: $out"
	[ $rc = 0 ] && [[ $out =~ ^ts=0\ sack=1\ wscale=1\ snd_wscale=7\ rcv_wscale=([0-9]+)$ ]] &&
		[ "${BASH_REMATCH[1]}" -gt 0 ]
}

small_mss() {
	local rc
	in_cli ip route change default via "$L7TB_VIP" advmss 536
	in_cli ip route change 198.51.100.0/24 dev eth0 advmss 536
	downloads
	rc=$?
	in_cli ip route change default via "$L7TB_VIP"
	in_cli ip route change 198.51.100.0/24 dev eth0
	return $rc
}

# offload on|off: downloads with the director's transmit checksum offload
# so on both its links.  Off, the core sums the director's own segments
# (its copies of requests, its ACKs) in software from the pseudo-header
# sum it leaves in them: a wrong one would never be acknowledged.
offload() {
	local rc dev
	for dev in dcli br0; do
		in_dir ethtool -K "$dev" tx "$1" >/dev/null 2>&1
		in_dir ethtool -k "$dev" | grep -q "^tx-checksumming: $1" || {
			echo "offload: $dev's tx checksumming did not go $1"
			return 1
		}
	done
	downloads
	rc=$?
	in_dir ethtool -K dcli tx on >/dev/null 2>&1
	in_dir ethtool -K br0 tx on >/dev/null 2>&1
	return $rc
}

t_check "loss: $N x 1 MB byte-exact over 3% loss, reordering, delay" downloads
t_check "loss: the same with the client's SACK off" with_client_sysctl tcp_sack 0
t_check "loss: the same with the client's timestamps off" with_client_sysctl tcp_timestamps 0
t_check "loss: a client without timestamps agrees on window scaling and SACK; 1 MB and 300 KB POST exact" with_client_sysctl tcp_timestamps 0 keeps_options
t_check "loss: the same with the client's window scaling off" with_client_sysctl tcp_window_scaling 0
t_check "loss: the same with the client's MSS at 536" small_mss
t_check "loss: the same with checksum offload off on the director" offload off
t_check "loss: the same with checksum offload on on the director" offload on
in_dir cat /proc/net/ip_vs_l7

testbed_down
rm -rf "$TMP"
t_summary
