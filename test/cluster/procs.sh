# procs.sh - finding, signalling and stopping the cluster's processes, and
# `cluster.sh down`. Sourced by cluster.sh.
#
# Processes are found only through what this script recorded (PIDs with
# their start times) and the namespaces it created, never by name, so a
# cluster can be torn down while other clusters and other work run beside it.
# shellcheck shell=bash

# node_sshd sets REPLY to a node's sshd PID, read from its pid record
# ("PID STARTTIME"), if that very process still runs.
node_sshd() {
	local pid start
	{ read -r pid start <"$1"; } 2>/dev/null || return 1
	alive "$pid" "$start" || return 1
	REPLY=$pid
}

# node_procs sets NODE_PIDS to every process on a node: its sshd and all
# descendants (sessions and what they start), plus any process sharing the
# sshd's UTS namespace (commands entered with `exec`, daemons that left the
# tree) and their descendants. This script's own process is left out.
node_procs() {
	local sshd=$1 p line f c
	local -A kids=() on=()
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		{ read -r line <"/proc/$p/stat"; } 2>/dev/null || continue
		read -ra f <<<"${line##*) }"
		kids[${f[1]}]+=" $p"
		if [[ /proc/$p/ns/uts -ef /proc/$sshd/ns/uts ]]; then
			on[$p]=1
		fi
	done
	on[$sshd]=1
	local queue=("${!on[@]}")
	while ((${#queue[@]} > 0)); do
		p=${queue[-1]}
		unset 'queue[-1]'
		for c in ${kids[$p]:-}; do
			if [[ -z ${on[$c]:-} ]]; then
				on[$c]=1
				queue+=("$c")
			fi
		done
	done
	unset "on[$$]" "on[$BASHPID]"
	NODE_PIDS=("${!on[@]}")
}

cmd_procs() {
	(($# == 2)) || usage
	load "$1"
	node_index "$2"
	node_sshd "$CLUSTER_DIR/nodes/$2/pid" || die "$2: its sshd is not running"
	node_procs "$REPLY"
	printf '%s\n' "${NODE_PIDS[@]}" | sort -n
}

# cmd_signal sends SIGSTOP or SIGCONT to every process on a node. A process
# may fork while its relatives are being stopped, so the search repeats
# until a pass finds no process it has not signalled yet.
cmd_signal() {
	local sig=$1
	shift
	(($# == 2)) || usage
	load "$1"
	node_index "$2"
	node_sshd "$CLUSTER_DIR/nodes/$2/pid" || die "$2: its sshd is not running"
	local sshd=$REPLY pass p fresh
	local -A sent=()
	for ((pass = 0; pass < 20; pass++)); do
		node_procs "$sshd"
		fresh=0
		for p in "${NODE_PIDS[@]}"; do
			[[ -z ${sent[$p]:-} ]] || continue
			sent[$p]=1
			fresh=1
			kill -s "$sig" "$p" 2>/dev/null || true
		done
		((fresh)) || break
	done
	printf '%s: SIG%s sent to %d processes\n' "$2" "$sig" "${#sent[@]}"
}

# signal_each sends a signal to each "PID:STARTTIME" that still runs.
signal_each() {
	local sig=$1 t
	shift
	for t; do
		if alive "${t%:*}" "${t#*:}"; then
			kill -s "$sig" "${t%:*}" 2>/dev/null || true
		fi
	done
}

# terminate stops each "PID:STARTTIME": SIGTERM (with SIGCONT, since a
# frozen process would not act on it), SIGKILL after 2 s. It waits by reading
# each process's state, because an exited process lingers here as a zombie
# until its parent reaps it and kill -0 would still succeed.
terminate() {
	local left=("$@") t tick
	signal_each TERM "${left[@]}"
	signal_each CONT "${left[@]}"
	for ((tick = 0; ${#left[@]} > 0; tick++)); do
		if ((tick == TERM_GRACE_TICKS)); then
			signal_each KILL "${left[@]}"
		elif ((tick == TERM_GRACE_TICKS + 100)); then
			printf 'cluster.sh: still running after SIGKILL: %s\n' "${left[*]%:*}" >&2
			return 1
		fi
		sleep 0.05
		local next=()
		for t in "${left[@]}"; do
			if alive "${t%:*}" "${t#*:}"; then
				next+=("$t")
			fi
		done
		left=("${next[@]}")
	done
}

# recorded_targets sets TARGETS to the live processes listed in DIR/pids.
recorded_targets() {
	local pid start
	TARGETS=()
	[[ -f $1/pids ]] || return 0
	while read -r pid start _; do
		if alive "$pid" "$start"; then
			TARGETS+=("$pid:$start")
		fi
	done <"$1/pids"
}

# leftover_targets sets TARGETS to every process still inside one of the
# run's network namespaces: SSH sessions outlive the sshd that accepted them,
# and a test may have left commands running on a node or in the head.
leftover_targets() {
	local ns ino name pid
	local -A ours=()
	TARGETS=()
	[[ -f $1/netns ]] || return 0
	local paths=()
	while read -r ns; do
		[[ ! -e /run/netns/$ns ]] || paths+=("/run/netns/$ns")
	done <"$1/netns"
	((${#paths[@]} > 0)) || return 0
	while read -r ino name; do
		ours[$ino]=$name
	done < <(stat -L -c '%i %n' "${paths[@]}")
	while read -r ino name; do
		[[ -n ${ours[$ino]:-} ]] || continue
		pid=${name#/proc/}
		pid=${pid%%/*}
		((pid != $$)) || continue
		if proc_stat "$pid"; then
			TARGETS+=("$pid:${REPLY#* }")
		fi
	done < <(stat -L -c '%i %n' /proc/[0-9]*/ns/net 2>/dev/null || true)
}

cmd_down() {
	(($# == 1)) || usage
	abs_dir "$1"
	local dir=$REPLY start rc=0
	if [[ ! -s $dir/pids && ! -s $dir/netns ]]; then
		printf 'cluster down: nothing to tear down in %s\n' "$dir"
		return 0
	fi
	micros
	start=$REPLY
	# A volume first: its mounts and brick processes need the nodes alive.
	if [[ -f $dir/env && -d $dir/gluster ]]; then
		(
			gluster_load "$dir"
			gluster_down
		) || rc=1
	fi
	if [[ -f $dir/env && -d $dir/ceph ]]; then
		(
			ceph_load "$dir"
			ceph_down
		) || rc=1
	fi
	recorded_targets "$dir"
	if ((${#TARGETS[@]} > 0)); then
		terminate "${TARGETS[@]}" || rc=1
	fi
	leftover_targets "$dir"
	if ((${#TARGETS[@]} > 0)); then
		printf 'cluster down: stopping %d leftover processes in the namespaces: %s\n' \
			"${#TARGETS[@]}" "${TARGETS[*]%:*}" >&2
		terminate "${TARGETS[@]}" || rc=1
	fi
	delete_netns "$dir" || rc=1
	((rc == 0)) || die "teardown of $dir incomplete; run down again once the processes above are gone"
	rm -f "$dir/pids" "$dir/netns"
	printf 'cluster down: %s in %s s\n' "$dir" "$(seconds_since "$start")"
}

# delete_netns deletes the recorded namespaces that still exist. ip also
# unmounts their /run/netns bind mounts, the only mounts made outside the
# nodes' own mount namespaces, which vanish with their last process.
delete_netns() {
	local ns cmds=()
	[[ -f $1/netns ]] || return 0
	while read -r ns; do
		[[ ! -e /run/netns/$ns ]] || cmds+=("netns del $ns")
	done <"$1/netns"
	((${#cmds[@]} > 0)) || return 0
	printf '%s\n' "${cmds[@]}" | ip -force -b - ||
		{
			printf 'cluster.sh: could not delete every namespace of %s\n' "$1" >&2
			return 1
		}
}
