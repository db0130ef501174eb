#!/usr/bin/env bash
# gluster-read-vs-fio.sh: read bandwidth on a real distributed filesystem
# (GlusterFS over FUSE, one brick server and NODES client nodes built from
# namespaces by test/cluster/cluster.sh), ioswarm next to fio in the same
# rounds, for the ways a read can find its data: buffered with no
# rotation, buffered with every node reading another node's file
# (--read-shift 1), and O_DIRECT; each with the page cache dropped before
# the read and without. It also prints what ioswarm said of the read:
# its residency before the phase and whether its cache check warned.
#
# Usage: bench/gluster-read-vs-fio.sh              (run as root)
#   NODES=4 TOTAL_MIB=1024 ROUNDS=3 IOSWARM=/path/to/ioswarm
#
# Like with like: both tools write NODES files of TOTAL_MIB/NODES MiB in
# 16 MiB records with pwrite (fio ioengine=psync) and an fsync at the end,
# one writer per node, all nodes at once, then read them the same way;
# with a shift, node K reads the file node K+1 wrote. fio runs as one
# process per node started together; its figure is all bytes over the
# longest job's runtime (fio's group figure across nodes), ioswarm's all
# bytes over latest end - earliest start. Caches are dropped (sync; echo 3
# > drop_caches, machine-wide) for fio exactly when ioswarm drops them,
# and fio's own invalidate (on by default: it drops a file's cached pages
# before each job) is off, so an undropped read finds what the write left.
# The rounds alternate which tool goes first.
#
# What one machine cannot show: here every node and the brick server share
# one kernel, so "dropped" empties the server's cache too, which on a real
# cluster the clients cannot do; and the server's cache is the one that
# makes a rotated, undropped read fast (each node's FUSE mount has its own
# page cache, the bricks' disk has one for all).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/common.sh
. "$HERE/common.sh"

NODES=${NODES:-4}
TOTAL_MIB=${TOTAL_MIB:-1024}
ROUNDS=${ROUNDS:-3}
PER_MIB=$((TOTAL_MIB / NODES))
CLUSTER_SH=$HERE/../test/cluster/cluster.sh

need_tools
command -v glusterd >/dev/null || {
	apt-get install -y -qq glusterfs-server glusterfs-client >&2 || die "could not install glusterfs"
}
make_work /var/tmp
build_ioswarm "$WORK"
CL=$(mktemp -d /tmp/iocl-bench.XXXXXX)
ON_EXIT='bash "$CLUSTER_SH" down "$CL" >/dev/null 2>&1 || true; rm -rf -- "$CL"'
bash "$CLUSTER_SH" up "$CL" "$NODES" "gb$$-" >/dev/null
bash "$CLUSTER_SH" gluster-up "$CL" >/dev/null
# shellcheck disable=SC1091
. "$CL/env"
# shellcheck disable=SC1091
. "$CL/gluster/env"
# The mount exists only inside the nodes' namespaces.
bash "$CLUSTER_SH" exec "$CL" node1 mkdir -p "$GLUSTER_MOUNT/bench"
need_space "$(dirname "$GLUSTER_MOUNT")" $((TOTAL_MIB * 3))
DATA=$GLUSTER_MOUNT/bench
NODE_NAMES=($CLUSTER_NODES)

# ioswarm_read MODE SHIFT DROP prints "GB/s resident warned" of the read.
ioswarm_read() {
	local direct=$1 shift=$2 drop=$3 out=$WORK/r.json
	rm -f -- "$out" # ioswarm notes on stderr when it replaces one
	local flags=(--hosts "$CLUSTER_HOSTS_FILE" --ssh-config "$CLUSTER_SSH_CONFIG" --identity "$CLUSTER_IDENTITY"
		--threads "$NODES" --dir "$DATA" --total "${TOTAL_MIB}MiB" --block 16MiB --phases write,read
		--read-shift "$shift" --drop-caches "$drop" --quiet --format json --output "$out")
	[ "$direct" = direct ] && flags+=(--direct)
	bash "$CLUSTER_SH" head "$CL" "$IOSWARM" run "${flags[@]}" >/dev/null
	python3 - "$out" <<-'EOF'
		import json, sys
		j = json.load(open(sys.argv[1]))
		p = [p for p in j["phases"] if p["name"] == "read"][0]
		g = p.get("cache_guard") or {}
		print("%.3f %.2f %s" % (p["bandwidth"] / 1e9, p["resident_fraction"], "yes" if p.get("warnings") else "no"))
	EOF
}

# fio_all RW SHIFT DIRECT runs one fio job per node at once on file
# f<(K+SHIFT) mod NODES> and prints all bytes / the longest runtime in GB/s.
fio_all() {
	local rw=$1 shift=$2 direct=$3 k pids=()
	for ((k = 0; k < NODES; k++)); do
		local f=$DATA/fio.$(((k + shift) % NODES))
		bash "$CLUSTER_SH" exec "$CL" "${NODE_NAMES[$k]}" fio --name=n$k --filename="$f" --rw="$rw" --bs=16m \
			--size="${PER_MIB}m" --ioengine=psync --direct="$direct" --end_fsync=$([ "$rw" = write ] && echo 1 || echo 0) \
			--fallocate=none --invalidate=0 --output-format=json --output="$WORK/fio.$k.json" >/dev/null 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"
	python3 - "$WORK" "$NODES" "$rw" <<-'EOF'
		import json, sys
		work, n, rw = sys.argv[1], int(sys.argv[2]), sys.argv[3]
		total, longest = 0, 0
		for k in range(n):
		    j = json.load(open("%s/fio.%d.json" % (work, k)))["jobs"][0][rw]
		    total += j["io_bytes"]
		    longest = max(longest, j["runtime"])
		print("%.3f" % (total / (longest / 1e3) / 1e9))
	EOF
}

# fio_read MODE SHIFT DROP writes the files then reads them as ioswarm did.
fio_read() {
	local direct=0
	[ "$1" = direct ] && direct=1
	bash "$CLUSTER_SH" exec "$CL" node1 sh -c "rm -f $DATA/fio.*"
	[ "$3" = on ] && drop_caches
	fio_all write 0 "$direct" >/dev/null
	[ "$3" = on ] && drop_caches
	fio_all read "$2" "$direct"
	bash "$CLUSTER_SH" exec "$CL" node1 sh -c "rm -f $DATA/fio.*"
}

cases=("buffered 0 on" "buffered 1 on" "buffered 0 off" "buffered 1 off" "direct 0 on")
declare -A ios fio res warn
for ((r = 1; r <= ROUNDS; r++)); do
	for c in "${cases[@]}"; do
		read -r mode shift drop <<<"$c"
		if ((r % 2)); then
			read -r a b w < <(ioswarm_read "$mode" "$shift" "$drop")
			f=$(fio_read "$mode" "$shift" "$drop")
		else
			f=$(fio_read "$mode" "$shift" "$drop")
			read -r a b w < <(ioswarm_read "$mode" "$shift" "$drop")
		fi
		ios[$c]+="$a "
		fio[$c]+="$f "
		res[$c]+="$b "
		warn[$c]+="$w "
		echo "round $r $c: ioswarm $a GB/s (resident $b, warned $w), fio $f GB/s" >&2
	done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
printf '\nGlusterFS %s clients, %d MiB in all, 16 MiB records, %d rounds, medians (GB/s)\n' "$NODES" "$TOTAL_MIB" "$ROUNDS"
printf '| read | drop caches | ioswarm | fio | ratio | resident before (ioswarm) | ioswarm warned |\n|---|---|---|---|---|---|---|\n'
for c in "${cases[@]}"; do
	read -r mode shift drop <<<"$c"
	a=$(median <<<"${ios[$c]}")
	f=$(median <<<"${fio[$c]}")
	label="$mode, shift $shift"
	[ "$mode" = direct ] && label="O_DIRECT"
	printf '| %s | %s | %s | %s | %.2f | %s | %s |\n' "$label" "$drop" "$a" "$f" "$(python3 -c "print($a/$f)")" \
		"${res[$c]% }" "${warn[$c]% }"
done
