# up.sh - `cluster.sh up` and the node boot step. Sourced by cluster.sh.
# shellcheck shell=bash

# subnet_of sets REPLY to the third octet of the cluster's 10.77.S.0/24.
subnet_of() {
	local sum
	sum=$(cksum <<<"$1")
	REPLY=$((${sum%% *} % 256))
}

cmd_up() {
	(($# == 2 || $# == 3)) || usage
	abs_dir "$1"
	local dir=$REPLY n=$2 prefix=${3:-c$$-} start taken
	if ! [[ $n =~ ^[1-9][0-9]{0,3}$ ]] || ((n > MAX_NODES)); then
		die "N must be 1..$MAX_NODES, not $n"
	fi
	[[ $prefix =~ ^[A-Za-z0-9_-]{1,24}$ ]] || die "PREFIX $prefix: use 1-24 of A-Z a-z 0-9 _ -"
	[[ $dir != /run && $dir != /run/* ]] || die "DIR $dir: must not be under /run, which every node replaces"
	[[ ! -s $dir/netns && ! -s $dir/pids ]] || die "$dir holds a running cluster; run: cluster.sh down $dir"
	taken=$(find /run/netns -maxdepth 1 -name "$prefix*" -printf '%f ' 2>/dev/null || true)
	[[ -z $taken ]] || die "namespaces named $prefix* exist already ($taken); choose another PREFIX"
	ensure_packages
	if [[ -n ${CLUSTER_USER:-} ]]; then
		ensure_user "$CLUSTER_USER"
	fi
	mkdir -p "$dir"
	rm -f "$dir/pids" "$dir/netns" "$dir/env"
	PROBES=()
	micros
	start=$REPLY
	# Whatever stops `up` half way, tear down what it built so far.
	trap 'up_exit "$dir"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	subnet_of "$prefix"
	local net=10.77.$REPLY phases=()
	build_network "$dir" "$n" "$prefix" "$net"
	phases+=("network $(seconds_since "$start")")
	write_files "$dir" "$n" "$prefix" "$net"
	phases+=("files $(seconds_since "$start")")
	start_nodes "$dir" "$n" "$prefix"
	wait_ready "$dir" "$n" "${prefix}head"
	phases+=("ssh $(seconds_since "$start")")
	check_routes "$dir" "$net"
	trap - EXIT INT TERM
	# The cumulative phase times show where a slow start went.
	local joined
	printf -v joined '%s, ' "${phases[@]}"
	printf 'cluster up: %d nodes, prefix %s, %s.0/24, dir %s, in %s s (after %s)\n' \
		"$n" "$prefix" "$net" "$dir" "$(seconds_since "$start")" "${joined%, }"
}

up_exit() {
	local rc=$?
	((rc != 0)) || return 0
	printf 'cluster.sh: up failed (exit %d); tearing down what was built\n' "$rc" >&2
	# Probes still retrying would otherwise run on until their deadline.
	if ((${#PROBES[@]} > 0)); then
		kill "${PROBES[@]}" 2>/dev/null || true
	fi
	cmd_down "$1" >&2 || true
}

# add_netns creates a network namespace and records its name, only once it
# exists, so that `down` never deletes a namespace some other run made.
add_netns() {
	ip netns add "$2" || die "could not create network namespace $2"
	printf '%s\n' "$2" >>"$1/netns"
}

build_network() {
	local dir=$1 n=$2 p=$3 net=$4 k port
	add_netns "$dir" "${p}fab"
	add_netns "$dir" "${p}head"
	for ((k = 1; k <= n; k++)); do
		add_netns "$dir" "${p}n$k"
	done
	# Both ends of every veth are created directly in their namespaces: not
	# even a transient interface appears in the root namespace.
	{
		printf 'link add eth0 netns %s type veth peer name vhead netns %s\n' "${p}head" "${p}fab"
		for ((k = 1; k <= n; k++)); do
			printf 'link add eth0 netns %s type veth peer name vn%d netns %s\n' "${p}n$k" "$k" "${p}fab"
		done
	} | ip -b - || die "could not create the veth pairs"
	# addrgenmode none keeps IPv6 link-local addresses (and their routes) off
	# every interface: the cluster speaks IPv4 on one subnet and nothing else.
	{
		echo 'link add br0 type bridge'
		echo 'link set br0 addrgenmode none'
		echo 'link set br0 up'
		for port in vhead $(seq -f 'vn%g' 1 "$n"); do
			echo "link set $port addrgenmode none"
			echo "link set $port master br0 up"
		done
	} | ip -n "${p}fab" -b - || die "could not build the bridge in ${p}fab"
	config_host "${p}head" "$net.1"
	for ((k = 1; k <= n; k++)); do
		config_host "${p}n$k" "$net.$((10 + k))"
	done
}

config_host() {
	ip -n "$1" -b - <<-EOF || die "could not configure the interfaces of $1"
		link set lo up
		link set eth0 addrgenmode none
		addr add $2/24 dev eth0
		link set eth0 up
	EOF
}

# start_nodes starts each node's sshd inside the node's network namespace
# and fresh UTS and mount namespaces. nsenter and unshare exec without
# forking, so the PID recorded is the sshd's own.
#
# CLUSTER_CLOCK_OFFSETS ("K=SECONDS ...") puts node K in a time namespace
# whose CLOCK_MONOTONIC and CLOCK_BOOTTIME run SECONDS ahead of the
# machine's, as two machines' uptimes differ in a real cluster.
start_nodes() {
	local dir=$1 n=$2 p=$3 k pid kv
	local -A shift=()
	for kv in ${CLUSTER_CLOCK_OFFSETS:-}; do
		shift[${kv%%=*}]=${kv#*=}
	done
	for ((k = 1; k <= n; k++)); do
		local timens=()
		if [[ -n ${shift[$k]:-} ]]; then
			timens=(--time --monotonic "${shift[$k]}" --boottime "${shift[$k]}")
		fi
		nsenter --net="/run/netns/${p}n$k" -- \
			unshare --uts --mount --propagation slave "${timens[@]}" -- \
			"$BASH" "$SELF" _boot "$dir" "$k" \
			</dev/null >>"$dir/nodes/node$k/boot.log" 2>&1 &
		pid=$!
		record_pid "$dir" "$pid" "node$k sshd"
		printf '%s %s\n' "$pid" "$REPLY" >"$dir/nodes/node$k/pid"
	done
}

# boot_node runs inside a node's new namespaces and becomes its sshd.
# Propagation is slave, so the node's own mounts never reach the host, and
# where the host's mounts are shared (systemd makes / shared) a filesystem
# mounted on the host later appears on every node. Where / is private, as
# on a machine without systemd, such a host mount stays invisible to the
# nodes: mount it before `up`, or inside each node with `exec`.
boot_node() {
	local dir=$1 node=node$2
	echo "$node" >/proc/sys/kernel/hostname
	mount -t tmpfs -o mode=0755,size=64m "$node-run" /run
	mkdir -m 0755 /run/sshd /run/cluster
	# The run directory may live under /tmp, which is about to be hidden;
	# keep it reachable at its own path so sshd finds its config and keys.
	mount --bind "$dir" /run/cluster
	mount -t tmpfs -o mode=1777 "$node-tmp" /tmp
	if [[ $dir == /tmp/* ]]; then
		mkdir -p "$dir"
		mount --move /run/cluster "$dir"
	else
		umount /run/cluster
	fi
	rmdir /run/cluster
	# CLUSTER_SHARED_HOME=1: every node mounts node1's home, as nodes mount
	# one home filesystem in most clusters.
	local home=$dir/home/$node
	[[ ${CLUSTER_SHARED_HOME:-} == 1 ]] && home=$dir/home/node1
	mount --bind "$home" /root
	if [[ -n ${CLUSTER_USER:-} ]]; then
		home=$dir/userhome/$node
		[[ ${CLUSTER_SHARED_HOME:-} == 1 ]] && home=$dir/userhome/node1
		mkdir -p "$CLUSTER_USER_HOME"
		mount --bind "$home" "$CLUSTER_USER_HOME"
	fi
	mount --bind "$dir/etc_hosts" /etc/hosts
	exec "$SSHD" -D -f "$dir/nodes/$node/sshd_config" -E "$dir/nodes/$node/sshd.log"
}

# wait_ready returns once every node's sshd completes an SSH session from
# the head with the generated config and strict host key checking.
wait_ready() {
	# A loaded 2-core machine has been seen to need 0.5 s per node.
	local dir=$1 n=$2 head=$3 k limit=$((60 + 2 * $2)) failed=()
	local deadline=$((SECONDS + limit))
	# sshd writes its pid file only after it listens, so waiting for the files
	# first saves each node a round of refused connections.
	for ((k = 1; k <= n; k++)); do
		until [[ -s $dir/nodes/node$k/sshd.pid ]]; do
			node_sshd "$dir/nodes/node$k/pid" ||
				die "node$k: sshd exited: $(tail -n 3 "$dir/nodes/node$k/boot.log" "$dir/nodes/node$k/sshd.log" 2>&1)"
			((SECONDS < deadline)) || die "node$k: sshd did not start within $limit s"
			sleep 0.02
		done
	done
	PROBES=()
	for ((k = 1; k <= n; k++)); do
		probe_node "$dir" "$k" "$head" "$deadline" &
		PROBES+=("$!")
	done
	for ((k = 1; k <= n; k++)); do
		wait "${PROBES[k - 1]}" || failed+=("node$k")
	done
	PROBES=()
	((${#failed[@]} == 0)) ||
		die "no SSH session to ${failed[*]}; see $dir/nodes/NODE/probe.log and sshd.log"
}

probe_node() {
	local dir=$1 node=node$2 head=$3 deadline=$4 user
	for user in root ${CLUSTER_USER:-}; do
		until nsenter --net="/run/netns/$head" -- ssh -F "$dir/ssh_config" -l "$user" \
			-o ConnectTimeout=3 "$node" true </dev/null >/dev/null 2>>"$dir/nodes/$node/probe.log"; do
			((SECONDS < deadline)) || return 1
			sleep 0.1
		done
	done
}

# ensure_user creates the unprivileged test user unless it exists, and
# exports its home directory as CLUSTER_USER_HOME for the nodes' boot. The
# password field "*" admits no password but, unlike useradd's default "!",
# does not count as a locked account, which sshd without PAM would refuse.
ensure_user() {
	local name=$1 entry try uid home
	[[ $name =~ ^[a-z_][a-z0-9_-]{0,30}$ && $name != root ]] ||
		die "CLUSTER_USER $name: want a login name other than root"
	for ((try = 0; try < 20; try++)); do
		entry=$(getent passwd "$name") && break
		# A concurrent run may hold the lock on /etc/passwd, or win the race.
		useradd --no-create-home --home-dir "/home/$name" --shell /bin/bash \
			--password '*' --comment 'ioswarm test user' --user-group "$name" >&2 ||
			sleep 0.1
	done
	[[ -n $entry ]] || die "could not create the user $name"
	IFS=: read -r _ _ uid _ _ home _ <<<"$entry"
	((uid != 0)) || die "user $name has UID 0"
	[[ $home =~ ^/[A-Za-z0-9_./-]+$ && $home != /run/* && $home != /tmp/* && $home != /root ]] ||
		die "user $name has the home $home; want a path outside /run, /tmp and /root"
	mkdir -p "$home"
	export CLUSTER_USER_HOME=$home
}

# check_routes proves that nothing can leave the machine: in every namespace
# the only routes are the local table's, loopback's and the cluster's own /24
# on eth0.
check_routes() {
	local dir=$1 net=$2 ns line
	while read -r ns; do
		while read -r line; do
			[[ -z $line || $line == *"table local"* || $line == "::1 dev lo "* ||
				$line == "$net.0/24 dev eth0 "* ]] ||
				die "namespace $ns has an unexpected route: $line"
		done < <(ip -n "$ns" -4 route show table all && ip -n "$ns" -6 route show table all)
	done <"$dir/netns"
}
