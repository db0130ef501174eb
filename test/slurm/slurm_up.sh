# shellcheck shell=bash
# Sourced by slurm.sh: the "up" subcommand. Expects DIR set and the helpers
# of slurm.sh (die, usec, since, alive, record_pid, role_pid, ensure_packages).

CTL_ADDR=10.78.0.1

# node_addr K: node K's address; 250 nodes per third octet, all in 10.78/16.
node_addr() { echo "10.78.$((1 + ($1 - 1) / 250)).$((1 + ($1 - 1) % 250))"; }

write_hosts() {
	{
		echo "127.0.0.1 localhost"
		echo "::1 localhost ip6-localhost ip6-loopback"
		echo "$CTL_ADDR ctl"
		local k
		for ((k = 1; k <= N; k++)); do echo "$(node_addr "$k") node$k"; done
	} >"$DIR/hosts"
}

# write_conf picks ports from PREFIX so that two clusters never share one,
# even though their namespaces already keep them apart.
write_conf() {
	local h base k cpus=${SLURM_NODE_CPUS:-2}
	h=$(printf '%s' "$PREFIX" | cksum)
	base=$((20000 + (${h%% *} % 4000) * 2))
	{
		cat <<-EOF
			ClusterName=$PREFIX
			SlurmctldHost=ctl($CTL_ADDR)
			SlurmctldPort=$base
			SlurmdPort=$((base + 1))
			SlurmUser=root
			SlurmdUser=root
			AuthType=auth/munge
			CredType=cred/munge
			AuthInfo=socket=$DIR/munge/munge.socket
			ProctrackType=proctrack/linuxproc
			TaskPlugin=task/none
			SelectType=select/cons_tres
			AccountingStorageType=accounting_storage/none
			JobAcctGatherType=jobacct_gather/none
			JobCompType=jobcomp/none
			MailProg=/bin/true
			MpiDefault=none
			SlurmdParameters=config_overrides
			ReturnToService=2
			SchedulerParameters=batch_sched_delay=0
			SlurmdTimeout=30
			KillWait=2
			InactiveLimit=0
			MinJobAge=600
			StateSaveLocation=$DIR/state
			SlurmdSpoolDir=$DIR/spool/%n
			SlurmctldPidFile=$DIR/run/slurmctld.pid
			SlurmdPidFile=$DIR/run/slurmd-%n.pid
			SlurmctldLogFile=$DIR/log/slurmctld.log
			SlurmdLogFile=$DIR/log/slurmd-%n.log
			TmpFS=/tmp
		EOF
		for ((k = 1; k <= N; k++)); do
			echo "NodeName=node$k NodeAddr=$(node_addr "$k") CPUs=$cpus State=UNKNOWN"
		done
		echo "PartitionName=debug Nodes=node[1-$N] Default=YES MaxTime=INFINITE State=UP"
	} >"$DIR/slurm.conf"
}

start_munge() {
	local m=$DIR/munge
	mkdir -p "$m"
	chmod 0755 "$m"
	head -c 1024 /dev/urandom >"$m/munge.key"
	chmod 0400 "$m/munge.key"
	munged --foreground --force --socket="$m/munge.socket" --key-file="$m/munge.key" \
		--pid-file="$m/munged.pid" --seed-file="$m/munged.seed" \
		--log-file="$m/munged.log" </dev/null >>"$DIR/log/munged.out" 2>&1 &
	record_pid $! munged
	disown $!
	local end=$(($(usec) + 10000000)) rec
	until [[ -S $m/munge.socket ]]; do
		rec=$(role_pid munged)
		alive "${rec% *}" "${rec#* }" || die "munged exited; see $m/munged.log"
		(($(usec) < end)) || die "munged made no socket in 10 s; see $m/munged.log"
		sleep 0.02
	done
}

# add_netns NAME creates a namespace, recording it first so that a failure
# half way still gets it deleted.
add_netns() {
	[[ -e /run/netns/$1 ]] && die "network namespace $1 exists: is a cluster with prefix $PREFIX up?"
	echo "$1" >>"$DIR/netns"
	ip netns add "$1"
	ip -n "$1" link set lo up
}

# join NS ADDR PORT: a veth made directly inside NS (eth0) and the fabric
# (PORT), so that no interface ever appears in the root namespace.
join() {
	add_netns "$1"
	ip link add eth0 netns "$1" type veth peer name "$3" netns "$FAB"
	ip -n "$FAB" link set "$3" master br0 up
	ip -n "$1" addr add "$2/16" dev eth0
	ip -n "$1" link set eth0 up
}

make_net() {
	FAB=${PREFIX}-fab
	add_netns "$FAB"
	ip -n "$FAB" link add br0 type bridge
	ip -n "$FAB" link set br0 up
	join "${PREFIX}-ctl" "$CTL_ADDR" vc
	local k
	for ((k = 1; k <= N; k++)); do join "${PREFIX}-n$k" "$(node_addr "$k")" "vn$k"; done
}

# start_in NS HOST TMP ROLE CMD...: starts CMD with nsenter into NS and in a
# fresh UTS and mount namespace (hostname HOST, the cluster's /etc/hosts,
# and a private tmpfs /tmp when TMP is yes). ip netns exec is not used: it
# remounts /sys, and slurmd then finds no cgroup filesystem.
start_in() {
	local ns=$1 host=$2 tmp=$3 role=$4
	shift 4
	# shellcheck disable=SC2016 # the inner sh expands these
	nsenter --net="/run/netns/$ns" unshare --uts --mount --propagation slave \
		sh -c 'hostname "$1" && mount --bind "$2/hosts" /etc/hosts || exit 1
			if [ "$3" = yes ]; then mount -t tmpfs -o "size=$4,mode=1777" "$1-tmp" /tmp || exit 1; fi
			shift 4; exec "$@"' \
		sh "$host" "$DIR" "$tmp" "${SLURM_NODE_TMP_SIZE:-1g}" "$@" \
		</dev/null >>"$DIR/log/$host.out" 2>&1 &
	record_pid $! "$role"
	# Tracked through DIR/pids, not as jobs: bash would report their deaths.
	disown $!
}

start_daemons() {
	export SLURM_CONF=$DIR/slurm.conf
	start_in "${PREFIX}-ctl" ctl no slurmctld slurmctld -D -i -f "$SLURM_CONF"
	local k
	for ((k = 1; k <= N; k++)); do
		mkdir -p "$DIR/spool/node$k"
		start_in "${PREFIX}-n$k" "node$k" yes "slurmd:node$k" slurmd -D -N "node$k" -f "$SLURM_CONF"
	done
}

# login_run CMD...: CMD on the login node, for the readiness checks.
login_run() {
	local rec
	rec=$(role_pid slurmctld)
	nsenter -t "${rec% *}" --net --uts --mount env SLURM_CONF="$DIR/slurm.conf" "$@"
}

all_alive() {
	local pid start role
	while read -r pid start role; do
		alive "$pid" "$start" || die "$role (pid $pid) exited; see $DIR/log"
	done <"$DIR/pids"
}

# wait_ready returns once sinfo shows N idle nodes and one srun step runs
# on all of them and prints their names.
wait_ready() {
	local end=$(($(usec) + ${SLURM_UP_TIMEOUT:-90} * 1000000)) want got idle k
	want=$(for ((k = 1; k <= N; k++)); do echo "node$k"; done)
	while :; do
		all_alive
		idle=$(login_run sinfo -h -N -o '%t' 2>/dev/null | grep -c '^idle$' || true)
		if ((idle == N)); then
			got=$(login_run timeout -k 2 30 srun -N "$N" -n "$N" hostname 2>>"$DIR/log/srun-check.err" |
				sort -V || true)
			[[ $got == "$want" ]] && return 0
		fi
		(($(usec) < end)) || die "cluster not ready after ${SLURM_UP_TIMEOUT:-90} s ($idle of $N nodes idle)"
		sleep 0.1
	done
}

# show_logs prints the end of the daemons' own output (their log files
# hold the same lines), for the controller and the first few nodes.
show_logs() {
	local f nodes
	nodes=$(find "$DIR/log" -name 'node*.out' 2>/dev/null | sort -V | head -n 4)
	for f in "$DIR/log/munged.out" "$DIR/log/ctl.out" "$DIR/log/srun-check.err" $nodes; do
		[[ -s $f ]] || continue
		echo "--- tail of $f" >&2
		tail -n 12 "$f" >&2
	done
	echo "--- all logs are in $DIR/log" >&2
}

up_failed() {
	local rc=$?
	trap - EXIT
	echo "slurm.sh: up failed, tearing down" >&2
	show_logs
	cmd_down >&2 || true
	exit $((rc == 0 ? 1 : rc))
}

cmd_up() {
	N=$1
	if ! [[ $N =~ ^[1-9][0-9]*$ ]] || ((N > 1000)); then die "N must be 1..1000, got $N"; fi
	[[ $(id -u) == 0 ]] || die "up needs root (namespaces, mounts)"
	mkdir -p "$DIR"
	DIR=$(realpath "$DIR")
	[[ $DIR/ != /tmp/* ]] || die "DIR $DIR is under /tmp, which every node replaces with its own"
	PREFIX=${2:-sl$(($(printf '%s' "$DIR" | cksum | cut -d' ' -f1) % 100000))}
	[[ $PREFIX =~ ^[a-z][a-z0-9]{0,9}$ ]] || die "PREFIX must be a lowercase letter and up to 9 letters or digits, got $PREFIX"
	if [[ -f $DIR/pids ]]; then
		local pid start role
		while read -r pid start role; do
			if alive "$pid" "$start"; then die "a cluster still runs in $DIR ($role pid $pid): run down first"; fi
		done <"$DIR/pids"
	fi
	ensure_packages
	local t0 name k
	for name in fab ctl $(for ((k = 1; k <= N; k++)); do echo "n$k"; done); do
		[[ ! -e /run/netns/$PREFIX-$name ]] ||
			die "network namespace $PREFIX-$name exists: is a cluster with prefix $PREFIX up?"
	done
	t0=$(usec)
	rm -rf "$DIR/state" "$DIR/spool" "$DIR/run" "$DIR/log" "$DIR/munge" "$DIR/pids" "$DIR/netns"
	mkdir -p "$DIR/state" "$DIR/spool" "$DIR/run" "$DIR/log" "$DIR/shared"
	chmod 0755 "$DIR"
	chmod 1777 "$DIR/shared"
	trap up_failed EXIT
	trap 'exit 130' INT TERM
	echo "$PREFIX" >"$DIR/prefix"
	write_hosts
	write_conf
	start_munge
	make_net
	start_daemons
	wait_ready
	trap - EXIT INT TERM
	echo "up: $N nodes ready in $(since "$t0") s (prefix $PREFIX, conf $DIR/slurm.conf)"
}
