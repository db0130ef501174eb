#!/usr/bin/env bash
# launch-vs-pdsh.sh: how long ioswarm takes to get ranks running and joined
# on N nodes over SSH, cold (the binary is copied to every node) and warm
# (every node holds a verified copy), next to `pdsh -R ssh -w node[1-N] true`
# on the same namespaced cluster in the same run.
#
# Usage: bench/launch-vs-pdsh.sh [N]        (default 16; run as root)
#   ROUNDS=5  IOSWARM=/path/to/ioswarm (built with CGO_ENABLED=0 if unset)
#   BASELINE=/path/to/other/ioswarm also times that build's cold and warm
#   launches in every round, right after this one's, for a before/after
#   comparison in the same rounds.
#   CLUSTER_SHARED_HOME=1 gives every node one home directory, as most
#   clusters have: a cold launch then copies the binary once.
#
# Method. Launch-to-ready is the time from starting `ioswarm run` in the
# head namespace until its job directory <dir>/ioswarm-<id> appears: the
# coordinator creates it only after every rank has joined and passed its
# node check, so the time covers process start, host list, ssh_config and
# key loading, N parallel SSH connections, the probe of each node
# (architecture, SHA-256 of the cached copy), the copy when cold, starting
# each rank, each rank's TCP join with its HMAC proof and clock probe, and
# two short request rounds (node check, create) that the measurement
# cannot exclude. The script polls for the directory every 2 ms without
# forking. The tiny write phase that follows is not counted. pdsh's time is
# the wall time of the whole command (process start to exit): launch-to-done
# for a command that does nothing.
# Cold means every node's ~/.cache/ioswarm is removed before the run.
# For scale, each round also times the plain copy a cold launch cannot do
# without: OpenSSH itself sending the same binary to every node at once
# (N parallel `ssh NODE 'cat > /tmp/FILE' < ioswarm`, the nodes' private
# /tmp). Cold launches stream copies from node to node by default
# (--copy-tree); each round also times a cold launch with every copy over
# SSH (--copy-tree=false), as before the tree. The five measurements
# alternate within each round (pdsh, copy, cold, warm, cold over SSH), so
# machine load affects them alike; the figures are medians.
# Each ioswarm run's coordinator is also watched until it exits: its peak
# resident memory (VmHWM) and the most file descriptors it held.
set -euo pipefail

N=${1:-16}
ROUNDS=${ROUNDS:-5}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
CLUSTER_SH=$ROOT/test/cluster/cluster.sh

die() {
	echo "error: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "run as root: the cluster is built from namespaces"
command -v python3 >/dev/null || die "python3 is needed for the medians"
command -v pdsh >/dev/null || {
	echo "installing pdsh from apt ..." >&2
	apt-get install -y -qq pdsh >&2 || { apt-get update -qq >&2 && apt-get install -y -qq pdsh >&2; } ||
		die "could not install pdsh"
}

WORK=$(mktemp -d /tmp/iolaunch.XXXXXX)
CL=$WORK/cl
DATA=$(mktemp -d /var/tmp/iolaunch-data.XXXXXX)
cleanup() {
	bash "$CLUSTER_SH" down "$CL" >/dev/null 2>&1 || true
	rm -rf -- "$WORK" "$DATA"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ -z "${IOSWARM:-}" ]; then
	(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$WORK/ioswarm" .) || die "go build failed"
	IOSWARM=$WORK/ioswarm
fi
bash "$CLUSTER_SH" up "$CL" "$N" "lp$$-" >&2 || die "cluster up failed"
# shellcheck source=/dev/null
source "$CL/env"
HEAD=(nsenter --net="/run/netns/$CLUSTER_HEAD_NS" --)
shopt -s nullglob
# A FIFO opened for reading and writing never delivers: read -t on it is a
# pause that forks nothing.
mkfifo "$WORK/pause"
exec {PAUSE_FD}<>"$WORK/pause"

# now_us sets REPLY to the wall clock in microseconds, without a fork.
now_us() {
	local t=$EPOCHREALTIME
	REPLY=${t/./}
}

# launch [FLAG...] prints the seconds from start until the job directory
# exists, then the coordinator's peak RSS (KiB) and most fds held.
launch() {
	local start pid dirs
	now_us
	start=$REPLY
	"${HEAD[@]}" "${BIN:-$IOSWARM}" run --hosts "$CLUSTER_HOSTS_FILE" --ssh-config "$CLUSTER_SSH_CONFIG" \
		--threads "$N" --file-size 1MiB --block 1MiB --phases write --no-fsync --drop-caches off \
		--dir "$DATA" --format csv "$@" >/dev/null 2>"$WORK/run.log" &
	pid=$!
	while :; do
		dirs=("$DATA"/ioswarm-*)
		if ((${#dirs[@]} > 0)); then
			now_us
			break
		fi
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid" || true
			die "ioswarm ended before its job directory appeared: $(cat "$WORK/run.log")"
		fi
		read -r -t 0.002 -u "$PAUSE_FD" || true
	done
	local ready=$REPLY hwm=0 fds=0 k v f
	# Until it exits: the coordinator's peak resident memory (VmHWM) and
	# the most file descriptors it held, read from /proc without a fork.
	# (kill -0 succeeds on a zombie, so the loop also stops at state Z.)
	local state=R
	while [ "$state" != Z ] && kill -0 "$pid" 2>/dev/null; do
		while read -r k v _; do
			[ "$k" = State: ] && state=$v
			[ "$k" = VmHWM: ] && ((v > hwm)) && hwm=$v
		done <"/proc/$pid/status" 2>/dev/null || true
		f=("/proc/$pid/fd"/*)
		((${#f[@]} > fds)) && fds=${#f[@]}
		read -r -t 0.002 -u "$PAUSE_FD" || true
	done
	wait "$pid" || die "ioswarm run failed: $(cat "$WORK/run.log")"
	printf '%d.%06d %d %d\n' $(((ready - start) / 1000000)) $(((ready - start) % 1000000)) "$hwm" "$fds"
}

pdsh_time() {
	local start
	now_us
	start=$REPLY
	PDSH_SSH_ARGS_APPEND="-F $CLUSTER_SSH_CONFIG" "${HEAD[@]}" pdsh -R ssh -w "node[1-$N]" true ||
		die "pdsh failed"
	now_us
	printf '%d.%06d\n' $(((REPLY - start) / 1000000)) $(((REPLY - start) % 1000000))
}

# ssh_copy prints the seconds OpenSSH takes to send the binary to every
# node in parallel.
ssh_copy() {
	local start node pids=()
	now_us
	start=$REPLY
	for node in $CLUSTER_NODES; do
		"${HEAD[@]}" ssh -F "$CLUSTER_SSH_CONFIG" "$node" 'cat >/tmp/ioswarm-copy-test' <"$IOSWARM" &
		pids+=("$!")
	done
	for pid in "${pids[@]}"; do
		wait "$pid" || die "ssh copy failed"
	done
	now_us
	printf '%d.%06d\n' $(((REPLY - start) / 1000000)) $(((REPLY - start) % 1000000))
}

clear_caches() {
	local node
	for node in $CLUSTER_NODES; do
		bash "$CLUSTER_SH" exec "$CL" "$node" rm -rf /root/.cache/ioswarm
	done
}

size=$(stat -c %s "$IOSWARM")
echo "nodes $N, rounds $ROUNDS, binary $((size / 1024 / 1024)) MiB, $(nproc) cores, shared home: ${CLUSTER_SHARED_HOME:-0}" >&2
pdsh_s=() copy_s=() cold_s=() coldssh_s=() warm_s=() mem=() fd=() basecold_s=() basewarm_s=()
for ((r = 1; r <= ROUNDS; r++)); do
	pdsh_s+=("$(pdsh_time)")
	copy_s+=("$(ssh_copy)")
	clear_caches
	read -r t h f <<<"$(launch)"
	cold_s+=("$t") mem+=("$h") fd+=("$f")
	read -r t h f <<<"$(launch)"
	warm_s+=("$t") mem+=("$h") fd+=("$f")
	# Cold again with every copy over SSH (--copy-tree=false): what the
	# tree of streamed copies saves, in the same round.
	clear_caches
	read -r t h f <<<"$(launch --copy-tree=false)"
	coldssh_s+=("$t") mem+=("$h") fd+=("$f")
	if [ -n "${BASELINE:-}" ]; then
		clear_caches
		read -r t _ <<<"$(BIN=$BASELINE launch)"
		basecold_s+=("$t")
		read -r t _ <<<"$(BIN=$BASELINE launch)"
		basewarm_s+=("$t")
		echo "round $r: baseline cold ${basecold_s[-1]} s, warm ${basewarm_s[-1]} s" >&2
	fi
	echo "round $r: pdsh ${pdsh_s[-1]} s, ssh copy ${copy_s[-1]} s, cold ${cold_s[-1]} s, warm ${warm_s[-1]} s, cold over SSH ${coldssh_s[-1]} s; coordinator peak RSS ${mem[-3]}/${mem[-2]}/${mem[-1]} KiB, fds ${fd[-3]}/${fd[-2]}/${fd[-1]} (cold/warm/cold over SSH)" >&2
done
python3 - "${pdsh_s[*]}" "${cold_s[*]}" "${warm_s[*]}" "$N" "${copy_s[*]}" "${mem[*]}" "${fd[*]}" "${coldssh_s[*]}" \
	"${basecold_s[*]}" "${basewarm_s[*]}" <<'EOF'
import statistics, sys
p, c, w = ([float(x) for x in a.split()] for a in sys.argv[1:4])
n = sys.argv[4]
s = [float(x) for x in sys.argv[5].split()]
mem = [int(x) for x in sys.argv[6].split()]
fds = [int(x) for x in sys.argv[7].split()]
cs = [float(x) for x in sys.argv[8].split()]
mp, mc, mw, ms, mcs = (statistics.median(x) for x in (p, c, w, s, cs))
print(f"median over {len(p)} rounds, {n} nodes:")
print(f"  pdsh -R ssh -w node[1-{n}] true   {mp:.3f} s  (min {min(p):.3f}, max {max(p):.3f})")
print(f"  OpenSSH copy of the binary     {ms:.3f} s  (min {min(s):.3f}, max {max(s):.3f})  {ms/mp:.2f}x pdsh")
print(f"  ioswarm launch-to-ready, cold  {mc:.3f} s  (min {min(c):.3f}, max {max(c):.3f})  {mc/mp:.2f}x pdsh, target <= 2x")
print(f"  ioswarm launch-to-ready, warm  {mw:.3f} s  (min {min(w):.3f}, max {max(w):.3f})  {mw/mp:.2f}x pdsh, target <= 1x")
print(f"  cold, every copy over SSH      {mcs:.3f} s  (min {min(cs):.3f}, max {max(cs):.3f})  {mcs/mp:.2f}x pdsh (--copy-tree=false)")
bc, bw = ([float(x) for x in a.split()] for a in sys.argv[9:11])
if bc:
    mbc, mbw = statistics.median(bc), statistics.median(bw)
    print(f"  baseline build, cold            {mbc:.3f} s  (min {min(bc):.3f}, max {max(bc):.3f})  {mbc/mp:.2f}x pdsh")
    print(f"  baseline build, warm            {mbw:.3f} s  (min {min(bw):.3f}, max {max(bw):.3f})  {mbw/mp:.2f}x pdsh")
print(f"  coordinator peak RSS           {max(mem) / 1024:.1f} MiB at most ({max(mem) / int(n):.0f} KiB per node); "
      f"file descriptors {max(fds)} at most ({max(fds) / int(n):.2f} per node)")
EOF
