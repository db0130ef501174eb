#!/usr/bin/env bash
# cluster.sh - a cluster of SSH "nodes" on one machine, built from Linux
# namespaces and real OpenSSH servers, for ioswarm's integration tests.
#
# Usage:
#   cluster.sh up DIR N [PREFIX]       build N nodes (1..244), wait for every sshd
#   cluster.sh down DIR                tear down what up built; safe to repeat
#   cluster.sh exec DIR NODE CMD...    run CMD as if on NODE (net, uts, mount)
#   cluster.sh head DIR CMD...         run CMD in the head namespace (net only)
#   cluster.sh link DIR NODE down|up   take NODE's port on the fabric down or up
#   cluster.sh freeze|thaw DIR NODE    SIGSTOP / SIGCONT every process on NODE
#   cluster.sh procs DIR NODE          print the PIDs of every process on NODE
#   cluster.sh pdsh DIR                time `pdsh -R ssh -w node[1-N] true`
#   cluster.sh delay DIR NODE MS NFDELAY
#                                      hold every packet NODE sends or receives
#                                      MS ms (a round trip gains 2*MS), through
#                                      NFDELAY, the built test/cluster/nfdelay
#   cluster.sh delay DIR NODE 0        remove that delay
#   cluster.sh gluster-up DIR [NODE...]
#                                      start a GlusterFS volume on an extra
#                                      storage node; mount it on NODEs (all)
#   cluster.sh gluster-down DIR        unmount, delete the volume, stop glusterd
#   cluster.sh gluster-mount DIR NODE [OPTS]
#   cluster.sh gluster-umount DIR NODE mount / unmount the volume on NODE
#   cluster.sh gluster DIR ARGS...     run the gluster CLI on the storage node
#   cluster.sh ceph-up DIR [NODE...]   start CephFS on an extra server node;
#                                      mount it with ceph-fuse on NODEs (all)
#   cluster.sh ceph-down DIR           unmount, stop every ceph daemon
#   cluster.sh ceph-mount DIR NODE
#   cluster.sh ceph-umount DIR NODE    mount / unmount CephFS on NODE
#   cluster.sh ceph DIR ARGS...        run the ceph CLI on the server node
#
# Layout. Nothing is created or changed in the root network namespace and no
# namespace has a default route, so no packet can leave the machine:
#   PREFIXfab    bridge br0 without address; ports vhead and vn1..vnN
#   PREFIXhead   eth0 10.77.S.1/24, the launcher's host; root mount namespace
#   PREFIXnK     eth0 10.77.S.(10+K)/24; sshd in its own UTS namespace
#                (hostname nodeK) and mount namespace (private /tmp, /run,
#                /root and /etc/hosts; the rest is shared like a parallel FS)
# The fabrics of concurrent clusters are separate, so addresses could repeat;
# S is derived from PREFIX all the same, so that logs of concurrent clusters
# (almost always) differ in addresses as well as in namespace names.
#
# DIR holds everything of one run: keys, known_hosts, ssh_config, hosts (node
# names), env (shell-sourceable facts), nodes/NODE (sshd config, host key,
# logs, and nfdelay's pid record and log while NODE has a delay), home/NODE
# (the node's /root; with CLUSTER_SHARED_HOME=1 at `up`, every node mounts
# home/node1, as a cluster shares one home filesystem), pids (PID, start
# time, label) and netns (namespace names); the last two are all `down`
# needs. DIR stays visible at its own path on every node, even under /tmp.
#
# CLUSTER_USER=NAME at `up` also lets NAME, a user who is not root, log in
# to every node with the run's key: the user is created (useradd) if it does
# not exist, and each node binds DIR/userhome/NODE (owned by NAME) over the
# user's home directory. gluster.sh describes the GlusterFS volume, cephfs.sh
# the CephFS filesystem.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail

readonly SSHD=/usr/sbin/sshd
SELF=$(realpath -- "${BASH_SOURCE[0]}")
readonly SELF HERE=${SELF%/*}
readonly MAX_NODES=244
readonly TERM_GRACE_TICKS=40 # 2 s of 0.05 s polls before SIGKILL

die() {
	printf 'cluster.sh: %s\n' "$*" >&2
	exit 1
}

usage() {
	sed -n '5,32s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
	exit 2
}

# micros prints the wall clock in microseconds without forking.
micros() {
	local t=$EPOCHREALTIME
	REPLY=${t/./}
}

# seconds_since prints the seconds elapsed since a micros reading.
seconds_since() {
	local start=$1
	micros
	local d=$((REPLY - start))
	printf '%d.%03d' $((d / 1000000)) $((d / 1000 % 1000))
}

# apt_install installs packages, refreshing the package lists only when the
# first attempt fails: a fresh list costs seconds and is usually not needed.
apt_install() {
	local opts=(-y -q -o DPkg::Lock::Timeout=300)
	printf 'cluster.sh: installing %s\n' "$*" >&2
	if DEBIAN_FRONTEND=noninteractive apt-get install "${opts[@]}" "$@" >&2; then
		return 0
	fi
	apt-get update -q >&2 || die "apt-get update failed; cannot install $*"
	DEBIAN_FRONTEND=noninteractive apt-get install "${opts[@]}" "$@" >&2 ||
		die "could not install $*"
}

ensure_packages() {
	local missing=()
	[[ -x $SSHD ]] || missing+=(openssh-server)
	if ! command -v ssh >/dev/null || ! command -v ssh-keygen >/dev/null; then
		missing+=(openssh-client)
	fi
	command -v ip >/dev/null || missing+=(iproute2)
	if ((${#missing[@]} > 0)); then
		apt_install "${missing[@]}"
	fi
	if ! command -v nsenter >/dev/null || ! command -v unshare >/dev/null; then
		die "nsenter and unshare (util-linux) are required"
	fi
}

# abs_dir turns DIR into an absolute path without symlinks, refusing
# characters that would need quoting in sshd_config, ssh_config or env.
abs_dir() {
	local d
	d=$(realpath -m -- "$1")
	[[ $d =~ ^/[A-Za-z0-9_./-]*$ ]] || die "DIR $d: use only letters, digits and _ . / -"
	REPLY=$d
}

# load reads the facts `up` recorded in DIR/env.
load() {
	abs_dir "$1"
	local dir=$REPLY
	[[ -f $dir/env ]] || die "$dir holds no cluster (no $dir/env); run: cluster.sh up $dir N"
	# shellcheck source=/dev/null
	source "$dir/env"
}

# node_index checks a node name against the loaded cluster and sets REPLY
# to its number.
node_index() {
	if ! [[ $1 =~ ^node([1-9][0-9]*)$ ]] || ((BASH_REMATCH[1] > CLUSTER_N)); then
		die "no node $1 in $CLUSTER_DIR (nodes are node1..node$CLUSTER_N)"
	fi
	REPLY=${BASH_REMATCH[1]}
}

# proc_stat sets REPLY to "STATE STARTTIME" of a PID, or fails when the
# process is gone. The command name may hold spaces and parentheses, so the
# fields are taken after the last ") ".
proc_stat() {
	local line f
	{ read -r line <"/proc/$1/stat"; } 2>/dev/null || return 1
	read -ra f <<<"${line##*) }"
	REPLY="${f[0]} ${f[19]}"
}

# alive succeeds when PID runs and is the process that was recorded: same
# start time (PIDs are reused), and not a zombie waiting to be reaped.
alive() {
	proc_stat "$1" || return 1
	local state=${REPLY% *} start=${REPLY#* }
	[[ $state != Z && $start == "$2" ]]
}

# record_pid appends "PID STARTTIME LABEL" to DIR/pids and sets REPLY to
# the start time.
record_pid() {
	local dir=$1 pid=$2 label=$3
	proc_stat "$pid" || die "process $pid ($label) exited at once"
	REPLY=${REPLY#* }
	printf '%s %s %s\n' "$pid" "$REPLY" "$label" >>"$dir/pids"
}

# shellcheck source=procs.sh
source "$HERE/procs.sh"
# shellcheck source=files.sh
source "$HERE/files.sh"
# shellcheck source=up.sh
source "$HERE/up.sh"
# shellcheck source=delay.sh
source "$HERE/delay.sh"
# shellcheck source=gluster.sh
source "$HERE/gluster.sh"
# shellcheck source=cephfs.sh
source "$HERE/cephfs.sh"

cmd_exec() {
	(($# >= 3)) || usage
	load "$1"
	node_index "$2"
	local node=$2
	shift 2
	node_sshd "$CLUSTER_DIR/nodes/$node/pid" || die "$node: its sshd is not running (cluster down?)"
	exec nsenter -t "$REPLY" -n -u -m -- "$@"
}

cmd_head() {
	(($# >= 2)) || usage
	load "$1"
	shift
	exec nsenter --net="/run/netns/$CLUSTER_HEAD_NS" -- "$@"
}

cmd_link() {
	(($# == 3)) || usage
	[[ $3 == up || $3 == down ]] || usage
	load "$1"
	node_index "$2"
	ip -n "$CLUSTER_FABRIC_NS" link set "vn$REPLY" "$3" ||
		die "could not set the link of $2 $3"
}

cmd_pdsh() {
	(($# == 1)) || usage
	load "$1"
	command -v pdsh >/dev/null || apt_install pdsh
	local start
	micros
	start=$REPLY
	PDSH_SSH_ARGS_APPEND="-F $CLUSTER_SSH_CONFIG" \
		nsenter --net="/run/netns/$CLUSTER_HEAD_NS" -- \
		pdsh -R ssh -w "node[1-$CLUSTER_N]" true ||
		die "pdsh failed"
	printf 'pdsh -R ssh -w node[1-%d] true: %s s\n' "$CLUSTER_N" "$(seconds_since "$start")"
}

main() {
	(($# >= 1)) || usage
	local cmd=$1
	shift
	case $cmd in
	up) cmd_up "$@" ;;
	down) cmd_down "$@" ;;
	exec) cmd_exec "$@" ;;
	head) cmd_head "$@" ;;
	link) cmd_link "$@" ;;
	freeze) cmd_signal STOP "$@" ;;
	thaw) cmd_signal CONT "$@" ;;
	procs) cmd_procs "$@" ;;
	pdsh) cmd_pdsh "$@" ;;
	delay) cmd_delay "$@" ;;
	gluster-up) cmd_gluster_up "$@" ;;
	gluster-down) cmd_gluster_down "$@" ;;
	gluster-mount) cmd_gluster_mount "$@" ;;
	gluster-umount) cmd_gluster_umount "$@" ;;
	gluster) cmd_gluster "$@" ;;
	_boot) boot_node "$@" ;;
	_gluster_boot) gluster_boot "$@" ;;
	ceph-up) cmd_ceph_up "$@" ;;
	ceph-down) cmd_ceph_down "$@" ;;
	ceph-mount) cmd_ceph_mount "$@" ;;
	ceph-umount) cmd_ceph_umount "$@" ;;
	ceph) cmd_ceph "$@" ;;
	*) usage ;;
	esac
}

main "$@"
