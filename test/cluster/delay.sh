# delay.sh - `cluster.sh delay`: latency on one node's link. Sourced by
# cluster.sh.
#
# The kernel these tests run on has no sch_netem, so the delay is made in
# user space: iptables rules in the node's own namespace send every packet
# that leaves or enters its eth0 to an NFQUEUE queue, and nfdelay (built
# from test/cluster/nfdelay) accepts each one a fixed time after it came,
# in order. A round trip through the node then takes twice the delay more.
# Both the rules (--queue-bypass) and the queue (fail-open) let packets pass
# undelayed when nfdelay is gone or full; nothing is ever dropped on this
# account. Both iptables back ends (nft through the xt compatibility layer,
# and legacy) have been seen to work here; plain `iptables` is used.
# shellcheck shell=bash

readonly DELAY_QUEUE=1 # queue numbers are per network namespace
readonly DELAY_MAX_MS=10000
readonly DELAY_READY_TICKS=200 # 10 s of 0.05 s polls for nfdelay to bind

cmd_delay() {
	(($# == 3 || $# == 4)) || usage
	load "$1"
	node_index "$2"
	local node=$2 ns=${CLUSTER_PREFIX}n$REPLY ms=$3 helper=${4:-}
	if ! [[ $ms =~ ^[0-9]{1,5}$ ]] || ((10#$ms > DELAY_MAX_MS)); then
		die "MS must be 0..$DELAY_MAX_MS milliseconds, not $ms"
	fi
	ms=$((10#$ms))
	[[ -e /run/netns/$ns ]] || die "$node: no namespace $ns (cluster down?)"
	if ((ms > 0)); then
		[[ -n $helper ]] || die "delay $node $ms: give the built nfdelay program as NFDELAY"
		[[ -f $helper && -x $helper ]] || die "NFDELAY $helper: not an executable file"
	fi
	command -v iptables >/dev/null || apt_install iptables
	# A new delay replaces the old one rather than adding to it.
	delay_off "$node" "$ns"
	if ((ms == 0)); then
		printf 'cluster delay: %s has no added delay\n' "$node"
		return 0
	fi
	delay_on "$node" "$ns" "$ms" "$helper"
	printf 'cluster delay: %s holds each packet %d ms each way (round trip +%d ms)\n' \
		"$node" "$ms" $((2 * ms))
}

# delay_iptables runs iptables in a node's network namespace. -w waits for
# the lock that concurrent iptables-legacy runs take.
delay_iptables() {
	local ns=$1
	shift
	nsenter --net="/run/netns/$ns" -- iptables -w 5 "$@"
}

# delay_rule adds (-A) or deletes (-D) the rule of one direction.
delay_rule() {
	local ns=$1 op=$2 chain=$3 dev=$4
	delay_iptables "$ns" "$op" "$chain" "$dev" eth0 \
		-j NFQUEUE --queue-num "$DELAY_QUEUE" --queue-bypass
}

# delay_on starts nfdelay in the node's network namespace, waits until it
# has bound the queue, and only then adds the rules, so that the delay is
# in force when this returns. nsenter execs without forking, so the PID
# recorded is nfdelay's own.
delay_on() {
	local node=$1 ns=$2 ms=$3 helper=$4 nd=$CLUSTER_DIR/nodes/$1 pid start tick
	rm -f "$nd/nfdelay.ready"
	nsenter --net="/run/netns/$ns" -- "$helper" -queue "$DELAY_QUEUE" -delay "${ms}ms" \
		-ready "$nd/nfdelay.ready" </dev/null >>"$nd/nfdelay.log" 2>&1 &
	pid=$!
	record_pid "$CLUSTER_DIR" "$pid" "$node nfdelay"
	start=$REPLY
	printf '%s %s\n' "$pid" "$start" >"$nd/nfdelay.pid"
	for ((tick = 0; ; tick++)); do
		[[ ! -s $nd/nfdelay.ready ]] || break
		if ! alive "$pid" "$start" || ((tick == DELAY_READY_TICKS)); then
			delay_off "$node" "$ns"
			die "$node: nfdelay did not bind its queue: $(tail -n 3 "$nd/nfdelay.log")"
		fi
		sleep 0.05
	done
	if ! delay_rule "$ns" -A OUTPUT -o || ! delay_rule "$ns" -A INPUT -i; then
		delay_off "$node" "$ns"
		die "$node: could not add the NFQUEUE rules (is iptables' NFQUEUE target in this kernel?)"
	fi
}

# delay_off removes the rules first, so that new packets pass undelayed,
# then stops nfdelay, which lets the packets it still holds go as it exits,
# and drops its pid record. It is a no-op on a node without a delay.
delay_off() {
	local node=$1 ns=$2 nd=$CLUSTER_DIR/nodes/$1 pid start
	while delay_rule "$ns" -D OUTPUT -o 2>/dev/null; do :; done
	while delay_rule "$ns" -D INPUT -i 2>/dev/null; do :; done
	{ read -r pid start <"$nd/nfdelay.pid"; } 2>/dev/null || return 0
	if alive "$pid" "$start"; then
		terminate "$pid:$start" || die "$node: nfdelay $pid would not stop"
	fi
	unrecord_pid "$CLUSTER_DIR" "$pid" "$start"
	rm -f "$nd/nfdelay.pid" "$nd/nfdelay.ready"
}

# unrecord_pid removes one process's line from DIR/pids once it is gone, so
# that the records list what runs and what `down` has to stop.
unrecord_pid() {
	local dir=$1 pid=$2 start=$3 line
	[[ -f $dir/pids ]] || return 0
	while read -r line; do
		[[ $line == "$pid $start "* ]] || printf '%s\n' "$line"
	done <"$dir/pids" >"$dir/pids.tmp"
	mv "$dir/pids.tmp" "$dir/pids"
}
