# cephfs.sh - a CephFS filesystem for a running cluster: `cluster.sh
# ceph-up`, `ceph-down`, `ceph-mount`, `ceph-umount` and `ceph`. Sourced by
# cluster.sh.
#
# One extra namespaced node, "cephsrv" (PREFIXcs, the subnet's .3), runs one
# of each daemon: ceph-mon (a), ceph-mgr (x), ceph-osd (0, bluestore on a
# sparse file of CEPH_OSD_SIZE, default 3 GiB) and ceph-mds (a). Each client
# node mounts the filesystem with ceph-fuse inside its own mount namespace at
# DIR/ceph/mnt, with an object cacher of CEPH_OC_SIZE bytes (default 64 MiB):
# the cache outside the kernel page cache that drop_caches leaves full.
#
# Everything lives in DIR/ceph on the machine's disk (not a node's private
# /tmp): ceph.conf, the keyrings, each daemon's data, run (admin sockets),
# log, mnt, pid/NAME ("PID STARTTIME" of each daemon and each node's
# ceph-fuse), mounts (the nodes it is mounted on), system (which files of
# /var/log/ceph existed before: the mon writes its cluster log there
# whatever it is told, and down removes only what is new) and env.
# Daemons run in the foreground, started directly by nsenter, so that the
# PID recorded is the daemon's own; down stops them one at a time by PID.
# shellcheck shell=bash

readonly CEPH_HOST=cephsrv
readonly CEPH_WAIT=60 # seconds for a daemon to come up or a command to end
readonly CEPH_SYSTEM_FILES=(/var/log/ceph/ceph.log /var/log/ceph/ceph.audit.log)

ceph_tools() {
	local tool
	for tool in ceph ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse ceph-authtool monmaptool; do
		command -v "$tool" >/dev/null ||
			die "$tool not found; install ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse"
	done
	[[ -c /dev/fuse ]] || die "/dev/fuse is missing: FUSE is unavailable"
}

# ceph_load loads the cluster and sets C (the filesystem's directory), CNS
# (the server namespace) and CIP (its address).
ceph_load() {
	load "$1"
	C=$CLUSTER_DIR/ceph
	CNS=${CLUSTER_PREFIX}cs
	CIP=${CLUSTER_SUBNET%.0/24}.3
}

# ceph_cli runs the ceph CLI on the server node, where the mon listens.
ceph_cli() {
	timeout "$CEPH_WAIT" nsenter --net="/run/netns/$CNS" -- ceph -c "$C/ceph.conf" --connect-timeout 20 "$@"
}

cmd_ceph() {
	(($# >= 2)) || usage
	ceph_load "$1"
	shift
	ceph_cli "$@"
}

cmd_ceph_up() {
	(($# >= 1)) || usage
	ceph_load "$1"
	shift
	local nodes=("$@") start node
	((${#nodes[@]} > 0)) || read -ra nodes <<<"$CLUSTER_NODES"
	for node in "${nodes[@]}"; do
		node_index "$node"
	done
	[[ ! -d $C/pid || -z $(ls -A "$C/pid") ]] || die "$C holds a running filesystem; run: cluster.sh ceph-down $CLUSTER_DIR"
	[[ -n ${CLUSTER_SUBNET:-} ]] || die "$CLUSTER_DIR/env gives no subnet"
	local oc=${CEPH_OC_SIZE:-67108864} osd=${CEPH_OSD_SIZE:-3221225472}
	[[ $oc =~ ^[1-9][0-9]*$ ]] || die "CEPH_OC_SIZE $oc: give a number of bytes"
	[[ $osd =~ ^[1-9][0-9]*$ ]] || die "CEPH_OSD_SIZE $osd: give a number of bytes"
	ceph_tools
	micros
	start=$REPLY
	trap 'ceph_up_exit' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	ceph_files "$oc" "$osd"
	ceph_system_before
	ceph_network
	ceph_mon
	ceph_mgr
	ceph_osd
	ceph_mds
	for node in "${nodes[@]}"; do
		ceph_mount "$node" || die "could not mount CephFS on $node; see $C/log"
	done
	trap - EXIT INT TERM
	printf 'ceph up: %s on %s at %s, object cacher %s bytes, in %s s\n' "$CEPH_HOST" \
		"${nodes[*]}" "$C/mnt" "$oc" "$(seconds_since "$start")"
}

ceph_up_exit() {
	local rc=$?
	((rc != 0)) || return 0
	printf 'cluster.sh: ceph-up failed (exit %d); tearing down what was built\n' "$rc" >&2
	ceph_down >&2 || true
}

# ceph_files lays out DIR/ceph and writes ceph.conf. DIR and DIR/ceph are
# made traversable for everyone, so a user who is not root reaches the
# mount point; the keyrings stay mode 0600.
ceph_files() {
	local oc=$1 osd=$2 fsid
	mkdir -p "$C"/{mon,mgr,osd,mds,run,log,mnt,pid}
	chmod 0711 "$CLUSTER_DIR" "$C"
	rm -f "$C/mounts" "$C/env" "$C"/pid/*
	fsid=$(cat /proc/sys/kernel/random/uuid)
	# Keyrings go in the daemons' own sections: under [global] a keyring
	# would redirect every daemon's.
	cat >"$C/ceph.conf" <<-EOF
		[global]
		fsid = $fsid
		mon_host = [v2:$CIP:3300,v1:$CIP:6789]
		public_network = $CLUSTER_SUBNET
		auth_cluster_required = cephx
		auth_service_required = cephx
		auth_client_required = cephx
		run_dir = $C/run
		log_file = $C/log/\$name.log
		mon_cluster_log_file = default=$C/log/ceph.\$channel.log cluster=$C/log/ceph.log
		osd_pool_default_size = 1
		osd_pool_default_min_size = 1
		mon_allow_pool_size_one = true
		mon_warn_on_pool_no_redundancy = false
		osd_crush_chooseleaf_type = 0
		osd_pool_default_pg_autoscale_mode = off
		mon_data_avail_warn = 5
		mon_data_avail_crit = 1
		[mon]
		mon_data = $C/mon
		keyring = $C/mon.keyring
		[mgr]
		mgr_data = $C/mgr
		keyring = $C/mgr/keyring
		[osd]
		osd_data = $C/osd
		keyring = $C/osd/keyring
		osd_objectstore = bluestore
		bluestore_block_create = true
		bluestore_block_size = $osd
		bluestore_default_buffered_read = false
		osd_memory_target = 939524096
		[mds]
		mds_data = $C/mds
		keyring = $C/mds/keyring
		[client]
		keyring = $C/admin.keyring
		log_file = $C/log/\$name.\$pid.log
		client_oc = true
		client_oc_size = $oc
		client_oc_max_dirty = $((oc / 2))
		client_oc_target_dirty = $((oc / 4))
	EOF
	cat >"$C/env" <<-EOF
		CEPH_SERVER='$CEPH_HOST'
		CEPH_SERVER_IP='$CIP'
		CEPH_NS='$CNS'
		CEPH_CONF='$C/ceph.conf'
		CEPH_MOUNT='$C/mnt'
		CEPH_RUN='$C/run'
		CEPH_LOGS='$C/log'
		CEPH_OC_SIZE='$oc'
	EOF
}

# ceph_system_before notes which of the files the mon writes outside DIR
# exist now.
ceph_system_before() {
	local f
	: >"$C/system"
	for f in "${CEPH_SYSTEM_FILES[@]}"; do
		[[ ! -e $f ]] || printf 'had %s\n' "$f" >>"$C/system"
	done
}

# ceph_network adds the server node to the cluster's bridge; it is recorded
# in DIR/netns, so that `down` removes it even if ceph-down never ran.
ceph_network() {
	[[ ! -e /run/netns/$CNS ]] || die "namespace $CNS exists already"
	add_netns "$CLUSTER_DIR" "$CNS"
	ip link add eth0 netns "$CNS" type veth peer name vcs netns "$CLUSTER_FABRIC_NS" ||
		die "could not create the ceph server's veth pair"
	ip -n "$CLUSTER_FABRIC_NS" -b - <<-EOF || die "could not join the ceph server to the bridge"
		link set vcs addrgenmode none
		link set vcs master br0 up
	EOF
	config_host "$CNS" "$CIP"
}

# ceph_daemon starts a daemon in the foreground in the server's network
# namespace and records it as DIR/ceph/pid/NAME. nsenter execs the daemon,
# so $! is the daemon's PID.
ceph_daemon() {
	local name=$1
	shift
	nsenter --net="/run/netns/$CNS" -- "$@" -f -c "$C/ceph.conf" </dev/null >>"$C/log/$name.out" 2>&1 &
	local pid=$!
	record_pid "$CLUSTER_DIR" "$pid" "ceph $name"
	printf '%s %s\n' "$pid" "$REPLY" >"$C/pid/$name"
}

# ceph_wait polls a command until it succeeds, while the daemon NAME runs.
ceph_wait() {
	local name=$1 what=$2 deadline=$((SECONDS + CEPH_WAIT))
	shift 2
	until "$@" >/dev/null 2>&1; do
		node_sshd "$C/pid/$name" || die "$name exited: $(tail -n 5 "$C/log/$name.out" 2>&1)"
		((SECONDS < deadline)) || die "$what within $CEPH_WAIT s; see $C/log"
		sleep 0.2
	done
}

ceph_mon() {
	ceph-authtool --create-keyring "$C/mon.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
	ceph-authtool --create-keyring "$C/admin.keyring" --gen-key -n client.admin \
		--cap mon 'allow *' --cap osd 'allow *' --cap mds 'allow *' --cap mgr 'allow *' >/dev/null
	ceph-authtool "$C/mon.keyring" --import-keyring "$C/admin.keyring" >/dev/null
	chmod 0600 "$C/mon.keyring" "$C/admin.keyring"
	local fsid
	fsid=$(sed -n 's/^fsid = //p' "$C/ceph.conf")
	monmaptool --create --fsid "$fsid" --addv a "[v2:$CIP:3300,v1:$CIP:6789]" "$C/monmap" >/dev/null
	# mkfs needs the address it serves, so it runs in the server namespace.
	nsenter --net="/run/netns/$CNS" -- ceph-mon -c "$C/ceph.conf" --mkfs -i a \
		--monmap "$C/monmap" --keyring "$C/mon.keyring" >>"$C/log/mon.out" 2>&1 ||
		die "ceph-mon --mkfs failed: $(tail -n 5 "$C/log/mon.out")"
	ceph_daemon mon ceph-mon -i a
	ceph_wait mon "the mon did not answer" ceph_cli mon stat
}

ceph_mgr() {
	ceph_cli auth get-or-create mgr.x mon 'allow profile mgr' osd 'allow *' mds 'allow *' \
		-o "$C/mgr/keyring" >/dev/null || die "could not make the mgr's key"
	ceph_daemon mgr ceph-mgr -i x
}

ceph_osd() {
	local uuid id
	uuid=$(cat /proc/sys/kernel/random/uuid)
	id=$(ceph_cli osd new "$uuid") || die "ceph osd new failed"
	[[ $id == 0 ]] || die "the new osd is osd.$id, not osd.0"
	nsenter --net="/run/netns/$CNS" -- ceph-osd -c "$C/ceph.conf" -i 0 --mkfs --mkkey \
		--osd-uuid "$uuid" --no-mon-config >>"$C/log/osd.out" 2>&1 ||
		die "ceph-osd --mkfs failed: $(tail -n 5 "$C/log/osd.out")"
	ceph_cli auth add osd.0 osd 'allow *' mon 'allow profile osd' mgr 'allow profile osd' \
		-i "$C/osd/keyring" >/dev/null 2>&1 || die "could not register osd.0's key"
	ceph_daemon osd ceph-osd -i 0
	ceph_wait osd "osd.0 did not come up" ceph_osd_up
}

ceph_osd_up() {
	[[ $(ceph_cli osd stat 2>/dev/null) == *"1 up"* ]]
}

ceph_mds() {
	ceph_cli auth get-or-create mds.a mon 'allow profile mds' osd 'allow rwx' mds 'allow' \
		mgr 'allow profile mds' -o "$C/mds/keyring" >/dev/null || die "could not make the mds's key"
	ceph_daemon mds ceph-mds -i a
	ceph_cli osd pool create cephfs_metadata 16 >/dev/null 2>&1 || die "could not create the metadata pool"
	ceph_cli osd pool create cephfs_data 32 >/dev/null 2>&1 || die "could not create the data pool"
	ceph_cli fs new cephfs cephfs_metadata cephfs_data >/dev/null 2>&1 || die "ceph fs new failed"
	ceph_wait mds "the mds did not become active" ceph_mds_active
}

ceph_mds_active() {
	[[ $(ceph_cli mds stat 2>/dev/null) == *up:active* ]]
}

# ceph_mount mounts CephFS on a node with ceph-fuse, in the node's
# namespaces. ceph-fuse returns once the mount is up, leaving its daemon,
# whose PID its pid file holds; the admin socket is DIR/ceph/run/NODE.asok.
ceph_mount() {
	local node=$1 pid
	node_sshd "$CLUSTER_DIR/nodes/$node/pid" || die "$node: its sshd is not running"
	if ! grep -qx "$node" "$C/mounts" 2>/dev/null; then
		printf '%s\n' "$node" >>"$C/mounts"
	fi
	rm -f "$C/run/$node.pid"
	timeout "$CEPH_WAIT" nsenter -t "$REPLY" -n -u -m -- ceph-fuse -c "$C/ceph.conf" --id admin \
		-m "$CIP:6789" --admin-socket "$C/run/$node.asok" --pid-file "$C/run/$node.pid" \
		"$C/mnt" >>"$C/log/fuse-$node.out" 2>&1 || return 1
	read -r pid <"$C/run/$node.pid" || return 1
	record_pid "$CLUSTER_DIR" "$pid" "ceph-fuse $node"
	printf '%s %s\n' "$pid" "$REPLY" >"$C/pid/fuse-$node"
}

# ceph_umount unmounts CephFS on a node and waits for its ceph-fuse to
# end (it closes its MDS session after the unmount), killing it if not.
ceph_umount() {
	local node=$1 rc=0
	if node_sshd "$CLUSTER_DIR/nodes/$node/pid"; then
		if ! nsenter -t "$REPLY" -m -- umount "$C/mnt" 2>/dev/null &&
			nsenter -t "$REPLY" -m -- findmnt -n "$C/mnt" >/dev/null; then
			nsenter -t "$REPLY" -m -- umount -l "$C/mnt" || rc=1
		fi
	fi
	ceph_stop "fuse-$node" 50 || rc=1
	if [[ -f $C/mounts ]]; then
		grep -vx "$node" "$C/mounts" >"$C/mounts.tmp" || true
		mv "$C/mounts.tmp" "$C/mounts"
	fi
	return "$rc"
}

# ceph_stop stops the recorded process NAME: WAIT tenths of a second (0
# unless given) to end by itself, then up to CEPH_WAIT/3 seconds after
# SIGTERM, then SIGKILL.
ceph_stop() {
	local f=$C/pid/$1 self=${2:-0} pid pstart tick
	[[ -s $f ]] || return 0
	read -r pid pstart <"$f"
	for ((tick = 0; tick < self; tick++)); do
		alive "$pid" "$pstart" || break
		sleep 0.1
	done
	if alive "$pid" "$pstart"; then
		kill -TERM "$pid" 2>/dev/null || true
		for ((tick = 0; tick < CEPH_WAIT * 10 / 3; tick++)); do
			alive "$pid" "$pstart" || break
			sleep 0.1
		done
	fi
	if alive "$pid" "$pstart"; then
		terminate "$pid:$pstart" || return 1
	fi
	rm -f "$f"
}

cmd_ceph_mount() {
	(($# == 2)) || usage
	ceph_load "$1"
	node_index "$2"
	[[ -s $C/pid/mon ]] || die "no filesystem in $C; run: cluster.sh ceph-up $CLUSTER_DIR"
	ceph_mount "$2" || die "could not mount CephFS on $2; see $C/log"
}

cmd_ceph_umount() {
	(($# == 2)) || usage
	ceph_load "$1"
	node_index "$2"
	ceph_umount "$2" || die "could not unmount CephFS on $2"
}

cmd_ceph_down() {
	(($# == 1)) || usage
	ceph_load "$1"
	ceph_down
}

# ceph_down undoes ceph-up, as far as it got: unmount on every node, stop
# mds, osd, mgr and mon in that order by PID, remove the namespace and what
# the mon wrote under /var/log/ceph. Safe to repeat; cmd_down calls it.
ceph_down() {
	local rc=0 node start name
	[[ -e $C/system || -e $C/mounts || -e /run/netns/$CNS ]] || return 0
	micros
	start=$REPLY
	if [[ -f $C/mounts ]]; then
		while read -r node; do
			ceph_umount "$node" || {
				printf 'cluster.sh: could not unmount CephFS on %s\n' "$node" >&2
				rc=1
			}
		done < <(cat "$C/mounts")
	fi
	for name in "$C"/pid/fuse-* mds osd mgr mon; do
		ceph_stop "${name##*/}" || rc=1
	done
	if [[ -e /run/netns/$CNS ]]; then
		ip netns del "$CNS" || rc=1
	fi
	ceph_system_after
	((rc == 0)) || {
		printf 'cluster.sh: ceph teardown of %s incomplete\n' "$C" >&2
		return 1
	}
	rm -f "$C/mounts"
	# The OSD's block file is the one big thing here.
	rm -f "$C/osd/block"
	printf 'ceph down: %s in %s s\n' "$C" "$(seconds_since "$start")"
}

# ceph_system_after removes the mon's files under /var/log/ceph that were
# not there before ceph-up.
ceph_system_after() {
	[[ -f $C/system ]] || return 0
	local f
	for f in "${CEPH_SYSTEM_FILES[@]}"; do
		if [[ -e $f ]] && ! grep -qx "had $f" "$C/system"; then
			rm -f -- "$f"
		fi
	done
	rm -f "$C/system"
}
