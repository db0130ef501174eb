# gluster.sh - a GlusterFS volume for a running cluster: `cluster.sh
# gluster-up`, `gluster-down`, `gluster-mount`, `gluster-umount` and
# `gluster`. Sourced by cluster.sh.
#
# One extra namespaced node, "storage" (PREFIXst, the subnet's .2), runs
# glusterd and the volume's brick processes; its name is added to the
# /etc/hosts the nodes share, so it resolves inside the namespaces only. The
# volume gv0 distributes over two bricks on the machine's disk under
# DIR/gluster/bricks, and each node mounts it over FUSE inside its own mount
# namespace at DIR/gluster/mnt: the root namespace never sees the mounts,
# only the empty mount point.
#
# glusterd runs with its working directory in DIR/gluster/wd, and in the
# storage node's mount namespace DIR/gluster/var-lib and var-log are bound
# over /var/lib/glusterd and /var/log/glusterfs, where it writes whatever the
# working directory does not cover. /run there is a private tmpfs, so its
# sockets and brick pid files are private too. Only the hook directories are
# copied, not the hook scripts: those edit smb.conf, CTDB and fstab.
#
# DIR/gluster holds: glusterd.vol, wd, var-lib, var-log, bricks/b1 b2, mnt,
# log (glusterd.log, boot.log, client-NODE.log), pid (glusterd's "PID
# STARTTIME"), mounts (the nodes it is mounted on), system (what existed
# under /var/lib/glusterd and /var/log/glusterfs before) and env.
# shellcheck shell=bash

readonly GLUSTER_VOLUME=gv0
readonly GLUSTER_HOST=storage
readonly GLUSTER_WAIT=30 # seconds for glusterd to answer, for a command to end
readonly GLUSTER_SYSTEM_DIRS=(/var/lib/glusterd /var/log/glusterfs)
# What glusterd and its bricks make in those directories when they are not
# bound away; down removes only these, and only when they are new.
readonly GLUSTER_MADE=(geo-replication geo-replication-secondaries ss_brick bricks
	cmd_history.log cli.log glusterd.log glustershd.log glusterd.info vols peers snaps options)

gluster_tools() {
	local tool
	for tool in glusterd gluster mount.glusterfs glusterfsd; do
		command -v "$tool" >/dev/null ||
			die "$tool not found; install glusterfs-server and glusterfs-client"
	done
	[[ -c /dev/fuse ]] || die "/dev/fuse is missing: FUSE is unavailable"
}

# gluster_load loads the cluster and sets G (the volume's directory), GNS
# (the storage namespace) and GIP (its address).
gluster_load() {
	load "$1"
	G=$CLUSTER_DIR/gluster
	GNS=${CLUSTER_PREFIX}st
	GIP=${CLUSTER_SUBNET%.0/24}.2
}

# glusterd_pid sets REPLY to glusterd's PID if the recorded process runs.
glusterd_pid() {
	node_sshd "$G/pid"
}

# gcli runs the gluster CLI on the storage node, where glusterd's socket is.
gcli() {
	glusterd_pid || {
		echo "glusterd is not running" >&2
		return 1
	}
	timeout "$GLUSTER_WAIT" nsenter -t "$REPLY" -n -u -m -- gluster --mode=script "$@"
}

cmd_gluster() {
	(($# >= 2)) || usage
	gluster_load "$1"
	shift
	gcli "$@"
}

cmd_gluster_up() {
	(($# >= 1)) || usage
	gluster_load "$1"
	shift
	local nodes=("$@") start node
	((${#nodes[@]} > 0)) || read -ra nodes <<<"$CLUSTER_NODES"
	for node in "${nodes[@]}"; do
		node_index "$node"
	done
	[[ ! -s $G/pid && ! -s $G/mounts ]] || die "$G holds a running volume; run: cluster.sh gluster-down $CLUSTER_DIR"
	[[ -n ${CLUSTER_SUBNET:-} ]] || die "$CLUSTER_DIR/env gives no subnet"
	gluster_tools
	micros
	start=$REPLY
	trap 'gluster_up_exit' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	gluster_files
	gluster_system_before
	gluster_network
	gluster_start
	gcli volume create "$GLUSTER_VOLUME" transport tcp \
		"$GLUSTER_HOST:$G/bricks/b1" "$GLUSTER_HOST:$G/bricks/b2" force >/dev/null ||
		die "could not create the volume; see $G/log/glusterd.log"
	gcli volume start "$GLUSTER_VOLUME" >/dev/null || die "could not start the volume; see $G/log/glusterd.log"
	for node in "${nodes[@]}"; do
		gluster_mount "$node" || die "could not mount the volume on $node; see $G/log/client-$node.log"
	done
	trap - EXIT INT TERM
	printf 'gluster up: %s:/%s on %s at %s, bricks %s, in %s s\n' "$GLUSTER_HOST" "$GLUSTER_VOLUME" \
		"${nodes[*]}" "$G/mnt" "$G/bricks/b1 $G/bricks/b2" "$(seconds_since "$start")"
}

gluster_up_exit() {
	local rc=$?
	((rc != 0)) || return 0
	printf 'cluster.sh: gluster-up failed (exit %d); tearing down what was built\n' "$rc" >&2
	gluster_down >&2 || true
}

# gluster_files lays out DIR/gluster. The run directory and DIR/gluster are
# made traversable (not readable) for everyone, so that a user who is not
# root reaches the mount point; the keys inside stay mode 0600.
gluster_files() {
	mkdir -p "$G"/{wd,var-lib,var-log,bricks/b1,bricks/b2,mnt,log}
	chmod 0711 "$CLUSTER_DIR" "$G"
	rm -f "$G/pid" "$G/mounts" "$G/env"
	local src=/var/lib/glusterd
	[[ ! -d $src/groups ]] || cp -a "$src/groups" "$G/wd/"
	if [[ -d $src/hooks ]]; then
		(cd "$src" && find hooks -type d -print0) | (cd "$G/wd" && xargs -0 mkdir -p)
	fi
	cat >"$G/glusterd.vol" <<-EOF
		volume management
		    type mgmt/glusterd
		    option working-directory $G/wd
		    option transport-type socket
		    option transport.address-family inet
		    option transport.socket.listen-port 24007
		    option transport.socket.keepalive-time 10
		    option transport.socket.keepalive-interval 2
		    option transport.socket.read-fail-log off
		    option ping-timeout 0
		    option event-threads 1
		    option max-port 60999
		end-volume
	EOF
	cat >"$G/env" <<-EOF
		GLUSTER_SERVER='$GLUSTER_HOST'
		GLUSTER_SERVER_IP='$GIP'
		GLUSTER_NS='$GNS'
		GLUSTER_VOLUME='$GLUSTER_VOLUME'
		GLUSTER_MOUNT='$G/mnt'
		GLUSTER_BRICKS='$G/bricks/b1 $G/bricks/b2'
		GLUSTER_LOGS='$G/log'
	EOF
}

# gluster_system_before notes what the system directories glusterd writes
# to hold now, creating them (and noting that) when they are missing: they
# are the mount points of the storage node's bound directories.
gluster_system_before() {
	local d
	: >"$G/system"
	for d in "${GLUSTER_SYSTEM_DIRS[@]}"; do
		if [[ ! -d $d ]]; then
			mkdir -p "$d"
			printf 'created %s\n' "$d" >>"$G/system"
		fi
		find "$d" -mindepth 1 -maxdepth 1 -printf "had $d/%f\n" >>"$G/system"
	done
}

# gluster_network adds the storage node to the cluster's bridge and its name
# to the nodes' /etc/hosts. The namespace is recorded in DIR/netns, so that
# `down` removes it (and stops whatever still runs in it) even when
# gluster-down was never called.
gluster_network() {
	[[ ! -e /run/netns/$GNS ]] || die "namespace $GNS exists already"
	add_netns "$CLUSTER_DIR" "$GNS"
	ip link add eth0 netns "$GNS" type veth peer name vst netns "$CLUSTER_FABRIC_NS" ||
		die "could not create the storage node's veth pair"
	ip -n "$CLUSTER_FABRIC_NS" -b - <<-EOF || die "could not join the storage node to the bridge"
		link set vst addrgenmode none
		link set vst master br0 up
	EOF
	config_host "$GNS" "$GIP"
	# Appending keeps the file's inode, which every node has bound in.
	printf '%s %s\n' "$GIP" "$GLUSTER_HOST" >>"$CLUSTER_DIR/etc_hosts"
}

# gluster_start starts glusterd on the storage node and waits until it
# answers. --no-daemon keeps it in the foreground, so the PID recorded is
# glusterd's own; its brick processes daemonize inside the namespaces.
gluster_start() {
	local pid deadline=$((SECONDS + GLUSTER_WAIT))
	nsenter --net="/run/netns/$GNS" -- unshare --uts --mount --propagation slave -- \
		"$BASH" "$SELF" _gluster_boot "$CLUSTER_DIR" </dev/null >>"$G/log/boot.log" 2>&1 &
	pid=$!
	record_pid "$CLUSTER_DIR" "$pid" "storage glusterd"
	printf '%s %s\n' "$pid" "$REPLY" >"$G/pid"
	# Until the boot has become glusterd its binds may not be in place, and
	# the CLI would log to the machine's /var/log/glusterfs.
	until [[ $(readlink "/proc/$pid/exe") == */glusterfsd ]] && gcli pool list >/dev/null 2>&1; do
		glusterd_pid || die "glusterd exited: $(tail -n 5 "$G/log/boot.log" "$G/log/glusterd.log" 2>&1)"
		((SECONDS < deadline)) || die "glusterd did not answer within $GLUSTER_WAIT s"
		sleep 0.1
	done
}

# gluster_boot runs inside the storage node's new namespaces and becomes
# glusterd.
gluster_boot() {
	local dir=$1 g=$1/gluster
	echo "$GLUSTER_HOST" >/proc/sys/kernel/hostname
	mount -t tmpfs -o mode=0755,size=64m storage-run /run
	mount --bind "$dir/etc_hosts" /etc/hosts
	mount --bind "$g/var-lib" /var/lib/glusterd
	mount --bind "$g/var-log" /var/log/glusterfs
	exec glusterd --no-daemon -f "$g/glusterd.vol" -l "$g/log/glusterd.log"
}

# gluster_mount mounts the volume on a node, in the node's mount namespace.
gluster_mount() {
	local node=$1
	node_sshd "$CLUSTER_DIR/nodes/$node/pid" || die "$node: its sshd is not running"
	if ! grep -qx "$node" "$G/mounts" 2>/dev/null; then
		printf '%s\n' "$node" >>"$G/mounts"
	fi
	timeout "$GLUSTER_WAIT" nsenter -t "$REPLY" -n -u -m -- mount -t glusterfs \
		-o "log-file=$G/log/client-$node.log${2:+,$2}" \
		"$GLUSTER_HOST:/$GLUSTER_VOLUME" "$G/mnt"
}

# gluster_umount unmounts the volume on a node; lazily if it is busy.
gluster_umount() {
	local node=$1
	if node_sshd "$CLUSTER_DIR/nodes/$node/pid"; then
		if ! nsenter -t "$REPLY" -m -- umount "$G/mnt" 2>/dev/null &&
			nsenter -t "$REPLY" -m -- findmnt -n "$G/mnt" >/dev/null; then
			nsenter -t "$REPLY" -m -- umount -l "$G/mnt" || return 1
		fi
	fi
	# A node whose sshd is gone lost its mount namespace with it, or will
	# when `down` stops the FUSE client left in its network namespace.
	if [[ -f $G/mounts ]]; then
		grep -vx "$node" "$G/mounts" >"$G/mounts.tmp" || true
		mv "$G/mounts.tmp" "$G/mounts"
	fi
}

cmd_gluster_mount() {
	(($# == 2 || $# == 3)) || usage
	gluster_load "$1"
	node_index "$2"
	[[ -s $G/pid ]] || die "no volume in $G; run: cluster.sh gluster-up $CLUSTER_DIR"
	[[ -z ${3:-} || $3 =~ ^[a-z0-9_,=-]+$ ]] || die "mount options $3: use only a-z 0-9 _ , = -"
	gluster_mount "$2" "${3:-}" || die "could not mount the volume on $2; see $G/log/client-$2.log"
}

cmd_gluster_umount() {
	(($# == 2)) || usage
	gluster_load "$1"
	node_index "$2"
	gluster_umount "$2" || die "could not unmount the volume on $2"
}

cmd_gluster_down() {
	(($# == 1)) || usage
	gluster_load "$1"
	gluster_down
}

# gluster_down undoes gluster-up, as far as it got: unmount on every node,
# stop and delete the volume, stop glusterd by its recorded PID and anything
# left in the storage namespace, and restore /etc/hosts. It is safe to
# repeat; cmd_down calls it before tearing the cluster down.
gluster_down() {
	local rc=0 node start
	[[ -e $G/pid || -e $G/mounts || -e $G/system || -e /run/netns/$GNS ]] || return 0
	micros
	start=$REPLY
	if [[ -f $G/mounts ]]; then
		while read -r node; do
			gluster_umount "$node" || {
				printf 'cluster.sh: could not unmount the volume on %s\n' "$node" >&2
				rc=1
			}
		done < <(cat "$G/mounts")
	fi
	if glusterd_pid; then
		gcli volume stop "$GLUSTER_VOLUME" >/dev/null 2>&1 || true
		gcli volume delete "$GLUSTER_VOLUME" >/dev/null 2>&1 || true
	fi
	if [[ -s $G/pid ]]; then
		local pid pstart
		read -r pid pstart <"$G/pid"
		terminate "$pid:$pstart" || rc=1
	fi
	gluster_leftovers || rc=1
	if [[ -e /run/netns/$GNS ]]; then
		ip netns del "$GNS" || rc=1
	fi
	gluster_hosts_restore
	gluster_system_after || rc=1
	((rc == 0)) || {
		printf 'cluster.sh: gluster teardown of %s incomplete\n' "$G" >&2
		return 1
	}
	rm -f "$G/pid" "$G/mounts"
	printf 'gluster down: %s in %s s\n' "$G" "$(seconds_since "$start")"
}

# gluster_leftovers stops every process still in the storage namespace:
# brick processes of a volume that would not stop, hook scripts.
gluster_leftovers() {
	[[ -e /run/netns/$GNS ]] || return 0
	local ino i name pid targets=()
	ino=$(stat -L -c %i "/run/netns/$GNS") || return 1
	while read -r i name; do
		[[ $i == "$ino" ]] || continue
		pid=${name#/proc/}
		pid=${pid%%/*}
		((pid != $$)) || continue
		if proc_stat "$pid"; then
			targets+=("$pid:${REPLY#* }")
		fi
	done < <(stat -L -c '%i %n' /proc/[0-9]*/ns/net 2>/dev/null || true)
	((${#targets[@]} > 0)) || return 0
	terminate "${targets[@]}"
}

gluster_hosts_restore() {
	local hosts=$CLUSTER_DIR/etc_hosts kept
	[[ -f $hosts ]] || return 0
	kept=$(grep -vx "$GIP $GLUSTER_HOST" "$hosts" || true)
	# Rewriting in place keeps the inode the nodes have bound in.
	printf '%s\n' "$kept" >"$hosts"
}

# gluster_system_after removes what appeared in the system directories
# since gluster-up and is glusterd's, and the directories up created if they
# are empty again. With those directories bound away on the storage node,
# nothing should have appeared; what did is reported.
gluster_system_after() {
	[[ -f $G/system ]] || return 0
	local d e name made rc=0
	local -A had=()
	while read -r what path; do
		[[ $what != had ]] || had[$path]=1
	done <"$G/system"
	for d in "${GLUSTER_SYSTEM_DIRS[@]}"; do
		[[ -d $d ]] || continue
		for e in "$d"/* "$d"/.[!.]*; do
			[[ -e $e && -z ${had[$e]:-} ]] || continue
			name=${e##*/}
			for made in "${GLUSTER_MADE[@]}"; do
				if [[ $name == "$made" ]]; then
					printf 'cluster.sh: removing %s, made by glusterd during this run\n' "$e" >&2
					rm -rf -- "$e" || rc=1
				fi
			done
		done
	done
	while read -r what path; do
		[[ $what == created ]] || continue
		rmdir -- "$path" 2>/dev/null || true
	done <"$G/system"
	rm -f "$G/system"
	return "$rc"
}
