#!/usr/bin/env bash
# A real Slurm cluster on one machine, for tests: one munged, one slurmctld
# on a "login" namespace and N slurmd, each node in its own network, UTS and
# mount namespace joined by a bridge in a fabric namespace. Addresses exist
# only inside those namespaces and none has a default route, so no packet
# can leave the machine.
#
#   slurm.sh up DIR N [PREFIX]     start a cluster of N nodes, state under DIR
#   slurm.sh down DIR              stop it (safe twice, and after a failed up)
#   slurm.sh login DIR CMD...      run CMD on the login node, SLURM_CONF set
#   slurm.sh exec DIR NODE CMD...  run CMD inside NODE's namespaces
#   slurm.sh kill-node DIR NODE    kill NODE's slurmd and everything it runs
#
# DIR must not lie under /tmp: every node mounts a private /tmp, and the
# cluster's configuration, spool and DIR/shared must be seen by all nodes.
# Environment: SLURM_NODE_CPUS (2), SLURM_NODE_TMP_SIZE (1g), SLURM_UP_TIMEOUT (90 s),
# SLURM_DOWN_GRACE (seconds between SIGTERM and SIGKILL, 2).
set -euo pipefail
shopt -s inherit_errexit

die() { echo "slurm.sh: $*" >&2; exit 1; }
usec() { local t=${EPOCHREALTIME/[.,]/}; echo "$((10#$t))"; }
since() { local d=$(($(usec) - $1)); printf '%d.%02d' $((d / 1000000)) $((d % 1000000 / 10000)); }

# stat_fields PID: prints "STATE STARTTIME" from /proc/PID/stat, or fails when gone.
# The start time tells a recorded process from a later one that reused its PID.
stat_fields() {
	local s
	{ read -r s <"/proc/$1/stat"; } 2>/dev/null || return 1
	local -a f
	read -r -a f <<<"${s##*) }"
	echo "${f[0]} ${f[19]}"
}

# alive PID START: true while PID runs and is the process recorded with START.
# A zombie counts as dead: here PID 1 reaps late and kill -0 succeeds on it.
alive() {
	local st
	st=$(stat_fields "$1") || return 1
	[[ ${st% *} != Z && ${st#* } == "$2" ]]
}

# record_pid PID ROLE appends "PID START ROLE" to DIR/pids.
record_pid() {
	local st
	st=$(stat_fields "$1") || die "$2 (pid $1) exited at once; see $DIR/log"
	echo "$1 ${st#* } $2" >>"$DIR/pids"
}

# role_pid ROLE prints the recorded "PID START" of ROLE.
role_pid() {
	[[ -f $DIR/pids ]] || die "no cluster recorded in $DIR"
	local pid start role
	while read -r pid start role; do
		[[ $role == "$1" ]] && { echo "$pid $start"; return 0; }
	done <"$DIR/pids"
	die "no $1 recorded in $DIR/pids"
}

# live_role_pid ROLE prints the PID of ROLE, failing when it no longer runs.
live_role_pid() {
	local rec
	rec=$(role_pid "$1")
	alive "${rec% *}" "${rec#* }" || die "$1 (pid ${rec% *}) is not running"
	echo "${rec% *}"
}

# wait_dead SECONDS PID START...: waits until none of the pairs is alive.
wait_dead() {
	local end=$(($(usec) + $1 * 1000000)) i
	shift
	local -a todo=("$@") left
	while ((${#todo[@]})); do
		left=()
		for ((i = 0; i < ${#todo[@]}; i += 2)); do
			if alive "${todo[i]}" "${todo[i + 1]}"; then left+=("${todo[i]}" "${todo[i + 1]}"); fi
		done
		todo=("${left[@]}")
		if ((${#todo[@]} && $(usec) > end)); then return 1; fi
		if ((${#todo[@]})); then sleep 0.05; fi
	done
}

# stop_pairs PID START...: TERM, then KILL whatever is left after the grace
# time (SLURM_DOWN_GRACE seconds).
stop_pairs() {
	local -a all=("$@") live=()
	local i
	for ((i = 0; i < ${#all[@]}; i += 2)); do
		if alive "${all[i]}" "${all[i + 1]}"; then
			kill -TERM "${all[i]}" 2>/dev/null || true
			live+=("${all[i]}" "${all[i + 1]}")
		fi
	done
	if ((${#live[@]} == 0)) || wait_dead "${SLURM_DOWN_GRACE:-2}" "${live[@]}"; then return 0; fi
	kill_pairs "${live[@]}"
}

# kill_pairs PID START...: SIGKILL and wait.
kill_pairs() {
	local -a all=("$@")
	local i
	for ((i = 0; i < ${#all[@]}; i += 2)); do
		if alive "${all[i]}" "${all[i + 1]}"; then kill -KILL "${all[i]}" 2>/dev/null || true; fi
	done
	wait_dead 5 "$@" || die "processes survived SIGKILL: $*"
}

# procs_in_ns KIND INODE...: prints "PID START" of every process whose
# namespace of KIND (net, mnt) is one of the given inodes.
procs_in_ns() {
	local kind=$1 dir link pid st
	shift
	# One find instead of a readlink per process keeps this fast on a busy box.
	while read -r dir link; do
		link=${link#*[}
		[[ " $* " == *" ${link%]} "* ]] || continue
		pid=${dir#/proc/}
		pid=${pid%/ns}
		st=$(stat_fields "$pid") || continue
		[[ ${st% *} == Z ]] || echo "$pid ${st#* }"
	done < <(find /proc/[0-9]*/ns/"$kind" -maxdepth 0 -printf '%h %l\n' 2>/dev/null || true)
}

ensure_packages() {
	local need=() pair
	for pair in slurmctld:slurmctld slurmd:slurmd srun:slurm-client munged:munge ip:iproute2; do
		command -v "${pair%%:*}" >/dev/null || need+=("${pair#*:}")
	done
	((${#need[@]} == 0)) && return 0
	export DEBIAN_FRONTEND=noninteractive
	local apt=(apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends "${need[@]}")
	"${apt[@]}" >/dev/null 2>&1 && return 0
	apt-get -o DPkg::Lock::Timeout=300 update -q >/dev/null || die "apt-get update failed"
	"${apt[@]}" >/dev/null || die "cannot install ${need[*]}"
}

source "$(dirname "${BASH_SOURCE[0]}")/slurm_up.sh"

# stop_stage ROLES NETNS: stops the recorded processes whose role matches
# the glob ROLES, then kills every other process inside a recorded network
# namespace matching the glob NETNS. Those are slurmscriptd, job steps, srun
# and exec'd commands, all descended from this cluster. The daemons go
# first: slurmctld blocks for seconds on SIGTERM when its slurmscriptd is
# already gone. The rest get SIGKILL at once because on SIGTERM srun and
# slurmstepd wait for peers that are going away.
stop_stage() {
	local pid start role name daemons=() others=() inodes=()
	if [[ -f $DIR/pids ]]; then
		while read -r pid start role; do
			# shellcheck disable=SC2053 # $1 is a glob on purpose
			[[ $role == $1 ]] && daemons+=("$pid" "$start")
		done <"$DIR/pids"
	fi
	if [[ -f $DIR/netns ]]; then
		while read -r name; do
			# shellcheck disable=SC2053
			[[ $name == $2 && -e /run/netns/$name ]] && inodes+=("$(stat -L -c %i "/run/netns/$name")")
		done <"$DIR/netns"
	fi
	if ((${#inodes[@]})); then
		while read -r pid start; do
			[[ " ${daemons[*]} " == *" $pid $start "* ]] || others+=("$pid" "$start")
		done < <(procs_in_ns net "${inodes[@]}")
	fi
	stop_pairs "${daemons[@]}"
	kill_pairs "${others[@]}"
}

cmd_down() {
	local t0 name mnt
	t0=$(usec)
	[[ -d $DIR ]] || { echo "down: $DIR does not exist, nothing to do"; return 0; }
	# All Slurm daemons together, so that one grace time bounds them all;
	# munged last: a slurmd that outlives munged blocks in its last message
	# instead of exiting.
	stop_stage 'slurm*' '*'
	stop_stage '*' '*'
	if [[ -f $DIR/netns ]]; then
		while read -r name; do
			[[ ! -e /run/netns/$name ]] || ip netns delete "$name"
		done <"$DIR/netns"
	fi
	while read -r mnt; do umount -l "$mnt" 2>/dev/null || true; done < <(
		awk -v d="$DIR/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo | sort -r)
	echo "down: $DIR stopped in $(since "$t0") s"
}

# enter PID CMD...: runs CMD in PID's net, UTS and mount namespaces, in the
# caller's directory when that exists there (a node's /tmp is its own),
# else in DIR/shared.
enter() {
	local pid=$1
	shift
	# shellcheck disable=SC2016 # the inner sh expands these
	exec nsenter -t "$pid" --net --uts --mount env SLURM_CONF="$DIR/slurm.conf" \
		sh -c 'cd "$1" 2>/dev/null || cd "$2" || exit 1; shift 2; exec "$@"' \
		sh "$PWD" "$DIR/shared" "$@"
}

cmd_kill_node() {
	local rec pid start mnt pairs=()
	rec=$(role_pid "slurmd:$1")
	pid=${rec% *}
	alive "$pid" "${rec#* }" || { echo "kill-node: $1 is already dead"; return 0; }
	mnt=$(readlink "/proc/$pid/ns/mnt") || die "cannot read the namespaces of $1"
	mnt=${mnt#*[}
	# A dead node runs nothing: its job steps and exec'd commands, all in
	# its mount namespace, die with its slurmd.
	while read -r pid start; do pairs+=("$pid" "$start"); done < <(procs_in_ns mnt "${mnt%]}")
	kill_pairs "${rec% *}" "${rec#* }" "${pairs[@]}"
	echo "kill-node: $1 killed (slurmd pid ${rec% *} and $((${#pairs[@]} / 2 - 1)) more)"
}

main() {
	(($# >= 2)) || die "usage: slurm.sh up|down|login|exec|kill-node DIR ..."
	local sub=$1 pid
	DIR=$2
	[[ $DIR == /* ]] || DIR=$PWD/$DIR
	[[ ! -d $DIR ]] || DIR=$(realpath "$DIR")
	shift 2
	case $sub in
	up) (($# >= 1)) || die "usage: slurm.sh up DIR N [PREFIX]"; cmd_up "$@" ;;
	down) cmd_down ;;
	login)
		(($# >= 1)) || die "usage: slurm.sh login DIR CMD..."
		pid=$(live_role_pid slurmctld)
		enter "$pid" "$@"
		;;
	exec)
		(($# >= 2)) || die "usage: slurm.sh exec DIR NODE CMD..."
		pid=$(live_role_pid "slurmd:$1")
		shift
		enter "$pid" "$@"
		;;
	kill-node) (($# == 1)) || die "usage: slurm.sh kill-node DIR NODE"; cmd_kill_node "$1" ;;
	*) die "unknown subcommand $sub (want up, down, login, exec or kill-node)" ;;
	esac
}

main "$@"
