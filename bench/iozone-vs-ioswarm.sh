#!/usr/bin/env bash
# iozone-vs-ioswarm.sh: real IOzone and `ioswarm iozone` on the same -+m
# command lines, on the same 4 namespaced SSH nodes, with the same sizes,
# alternating round after round, and the ratio ioswarm / IOzone of every
# value IOzone prints.
#
# Usage: bench/iozone-vs-ioswarm.sh [ROUNDS]      (default 5; run as root)
#   SIZE=256m   IOzone -s of the write and read lines (per file)
#   REC=16m     IOzone -r of the write and read lines
#   RSIZE=256m  -s of the random line     RREC=4k   its -r
#   THREADS=8   IOzone -t (child i on node i mod 4, as a -+m threadlist)
#   NODES=4     nodes of the bed          PREFIX=izb$$-  its namespace prefix
#   LINES="write read random"             XFLAGS="none -x" (with and without -x)
#   EXTRA=      more IOzone options for every line, both tools (e.g. -I:
#               O_DIRECT, where the disk rather than the CPU decides)
#   IOSWARM=/path/to/ioswarm (built from this tree if unset)
#   IOSWARM_FLAGS="--drop-caches off" ioswarm's own flags (see Cache below)
#   KEEP_OUT=DIR  keep every stdout the tools printed there
#
# The lines are the seeds' (T = THREADS, -+m the bed's threadlist):
#   write   -i0 -c -e -w -r REC -s SIZE -t T -+n -+m LIST   (buffered, -e; keeps the files)
#   read    -i1 -c -e -w -r REC -s SIZE -t T -+n -+m LIST   (reads the files write kept)
#   random  -i0 -i2 -c -e -r RREC -s RSIZE -t T -+n -+m LIST
# each once as is (IOzone's stonewall) and once with -x. Every round runs
# every line twice with each tool, in the order A B B A (odd rounds) or
# B A A B (even ones), each tool in a data directory of its own on the
# machine's disk, which every node sees (as a parallel filesystem). Why
# twice: on this bed the disk itself depends on what ran before. With one
# run each (A B, B A, ...) the write line's second command was 3-4x the
# first in 10 of 10 commands whichever tool it was, so a round's ratio
# said which tool went second. A B B A puts one tool first and last and
# the other in the middle, and the next round swaps them, so over the
# rounds each tool holds each place as often; each run of a line that
# writes starts with its tool's directory empty.
#
# The random line's files are as large as the write line's: its random
# read is served from the page cache, at about 4 GB/s a CPU here, and at
# -s 32m (the default until 7177b20) a reader's whole phase took 8 ms,
# two of the kernel's 4 ms ticks, so that which child or thread ran in
# which tick decided its figures (IOzone repeated its own random readers'
# Children see within 0.36-0.83 there, 2 threads over 2 nodes).
#
# How each tool runs:
# - IOzone 3.489 (Debian's iozone3; scripts/install-iozone.sh installs it)
#   runs in the bed's head namespace and starts its clients on the nodes
#   through RSH, a wrapper around ssh with the bed's key and known_hosts,
#   as test/ssh/iozone_real_test.go does; -+h names the head's address,
#   which its clients connect back to.
# - ioswarm iozone runs in the head namespace with the same command line,
#   -+h included (its ranks dial the coordinator there), its threadlist
#   naming the same nodes, --ssh-config and --identity of
#   the bed.
# Cache: IOzone never drops caches; ioswarm by default drops them before
# every phase. Both run here on the same terms: the script drops the page
# cache (sync; echo 3 > /proc/sys/vm/drop_caches) before every command of
# either tool, and ioswarm gets --drop-caches off, so that within one
# command (write then random read) neither drops. IOSWARM_FLAGS= (empty)
# runs ioswarm as its users get it instead. The nodes share one kernel, so
# one drop empties every node's cache. After the drop the script waits
# until the kernel has stopped handing the freed memory back to the host
# (settle_reporting in common.sh): on this VM, whether it had done so
# when a command began changed a buffered write by 4x, and that, not the
# tools, made most of the spread of earlier runs of this script.
#
# What it prints: per line, -x or not, test (initial writers, readers,
# random readers, random writers) and figure (Children see, Parent sees
# where printed (IOzone prints none with -+m), Min/Max/Avg throughput per
# process, Min xfer), the median over the rounds of the ratio ioswarm /
# IOzone taken within each round (each tool's mean of its two runs), with
# the lowest and highest ratio and the median of each tool's own value;
# and the bed's own noise: each tool's second run of a round over its
# first, median, lowest and highest. A line that a tool cannot repeat
# within 10% cannot show a 10% agreement between the tools on this bed,
# however close they are. bench/iozone_table.py makes the table; run it
# on a KEEP_OUT directory to make it again. One round and tiny sizes
# check the script works; the machine must be otherwise idle for the
# ratios to mean anything.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
# shellcheck source=common.sh
source "$HERE/common.sh"

ROUNDS=${1:-5}
SIZE=${SIZE:-256m} REC=${REC:-16m} RSIZE=${RSIZE:-256m} RREC=${RREC:-4k}
THREADS=${THREADS:-8} NODES=${NODES:-4} PREFIX=${PREFIX:-izb$$-}
LINES=${LINES:-write read random} XFLAGS=${XFLAGS:-none -x} EXTRA=${EXTRA:-}
if [ -z "${IOSWARM_FLAGS+set}" ]; then
	IOSWARM_FLAGS="--drop-caches off"
fi
CLUSTER_SH=$ROOT/test/cluster/cluster.sh

[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a whole number of at least 1, not '$ROUNDS'"
if ((ROUNDS < 5)); then
	echo "note: $ROUNDS round(s) check that the script runs; take ratios from 5 rounds or more" >&2
fi
[ "$(id -u)" = 0 ] || die "run as root: the bed is built from namespaces, and the caches are dropped"
command -v python3 >/dev/null || die "python3 is needed for the medians"
IOZONE=$(command -v iozone) || die "iozone is not installed: bash scripts/install-iozone.sh installs Debian's iozone3"

make_work /var/tmp
CL=$WORK/cl
# The bed comes down before its directory (its pids and namespaces are
# recorded there) is removed, on every way out.
trap 'bash "$CLUSTER_SH" down "$CL" >/dev/null 2>&1 || true; rm -rf -- "$WORK"' EXIT
build_ioswarm "$WORK"
bash "$CLUSTER_SH" up "$CL" "$NODES" "$PREFIX" >&2 || die "cluster up failed"
# shellcheck source=/dev/null
source "$CL/env"
HEAD=(nsenter --net="/run/netns/$CLUSTER_HEAD_NS" --)
OUT=$WORK/out
mkdir -p "$OUT" "$WORK/data/iozone" "$WORK/data/ioswarm"

# The threadlists: child i on node i mod NODES, each tool in its own
# directory. IOzone's names the nodes by address (its clients are started
# through RSH, and connect back to -+h); ioswarm's by name, through the
# bed's ssh_config.
read -r -a ips <<<"$CLUSTER_IPS"
read -r -a names <<<"$CLUSTER_NODES"
: >"$WORK/list-iozone"
: >"$WORK/list-ioswarm"
for ((i = 0; i < THREADS; i++)); do
	k=$((i % ${#ips[@]}))
	echo "${ips[k]} $WORK/data/iozone $IOZONE" >>"$WORK/list-iozone"
	echo "${names[k]} $WORK/data/ioswarm $IOZONE" >>"$WORK/list-ioswarm"
done
cat >"$WORK/rsh" <<EOF
#!/bin/sh
exec ssh -i $CLUSTER_IDENTITY -o UserKnownHostsFile=$CLUSTER_KNOWN_HOSTS -o StrictHostKeyChecking=yes -o BatchMode=yes -l root "\$@"
EOF
chmod 755 "$WORK/rsh"

# line_args NAME XFLAG prints the IOzone arguments of a line, without -+m.
line_args() {
	local x=$2
	[ "$x" = none ] && x=
	case $1 in
	write) echo "-i0 -c -e -w -r $REC -s $SIZE -t $THREADS -+n $EXTRA $x" ;;
	read) echo "-i1 -c -e -w -r $REC -s $SIZE -t $THREADS -+n $EXTRA $x" ;;
	random) echo "-i0 -i2 -c -e -r $RREC -s $RSIZE -t $THREADS -+n $EXTRA $x" ;;
	*) die "unknown line '$1' in LINES (write, read, random)" ;;
	esac
}

# run_iozone OUTFILE ARGS... runs real IOzone on the bed.
run_iozone() {
	local out=$1
	shift
	drop_caches
	settle_reporting
	(cd "$WORK/data/iozone" && RSH=$WORK/rsh "${HEAD[@]}" "$IOZONE" "$@" -+m "$WORK/list-iozone" -+h "$CLUSTER_HEAD_IP") \
		>"$out" 2>"$out.err" || die "iozone $* failed: $(tail -n 5 "$out.err" "$out")"
}

# run_ioswarm OUTFILE ARGS... runs ioswarm iozone on the bed.
run_ioswarm() {
	local out=$1
	shift
	drop_caches
	settle_reporting
	# shellcheck disable=SC2086 # IOSWARM_FLAGS is a list of words
	(cd "$WORK/data/ioswarm" && "${HEAD[@]}" "$IOSWARM" iozone "$@" -+m "$WORK/list-ioswarm" -+h "$CLUSTER_HEAD_IP" \
		--ssh-config "$CLUSTER_SSH_CONFIG" --identity "$CLUSTER_IDENTITY" $IOSWARM_FLAGS) \
		>"$out" 2>"$out.err" || die "ioswarm iozone $* failed: $(tail -n 5 "$out.err")"
}

# one_line ROUND NAME XFLAG TOOL K runs a line with one tool, its K-th
# run of the round. A line that writes starts from the tool's directory
# empty (and synced), as the first run did; the read line reads the files
# the tool's last write run kept.
one_line() {
	local round=$1 name=$2 x=$3 tool=$4 k=$5 args
	read -r -a args <<<"$(line_args "$name" "$x")"
	[ "$name" = read ] || clean "$tool"
	"run_$tool" "$OUT/$round.$name.$x.$tool.$k" "${args[@]}"
}

# both ROUND NAME XFLAG runs a line twice with each tool: A B B A in odd
# rounds, B A A B in even ones.
both() {
	local first=iozone second=ioswarm
	if (($1 % 2 == 0)); then
		first=ioswarm second=iozone
	fi
	one_line "$1" "$2" "$3" "$first" 1
	one_line "$1" "$2" "$3" "$second" 1
	one_line "$1" "$2" "$3" "$second" 2
	one_line "$1" "$2" "$3" "$first" 2
}

# clean [TOOL...] empties the tools' data directories (both when none is
# named) and waits for the deletions to reach the disk.
clean() {
	local tools=("$@") dirs=() t
	((${#tools[@]})) || tools=(iozone ioswarm)
	for t in "${tools[@]}"; do
		dirs+=("$WORK/data/$t")
	done
	find "${dirs[@]}" -mindepth 1 -delete
	sync
}

# mib SIZE prints an IOzone size (kB, or with k, m or g) in MiB, rounded up.
mib() {
	local v=${1%[kKmMgG]} unit=${1: -1}
	[[ $v =~ ^[0-9]+$ ]] || die "'$1' is not an IOzone size (a whole number of kB, or with k, m or g)"
	case $unit in
	m | M) echo "$v" ;;
	g | G) echo $((v * 1024)) ;;
	*) echo $(((v + 1023) / 1024)) ;;
	esac
}
# Each tool keeps one set of files at a time (the write line's, or the
# random line's), plus room.
need_space /var/tmp $((2 * THREADS * ($(mib "$SIZE") > $(mib "$RSIZE") ? $(mib "$SIZE") : $(mib "$RSIZE")) + 256))
echo "IOzone $IOZONE and $IOSWARM on $NODES nodes, $THREADS threads, rounds $ROUNDS, lines: $LINES, -x: $XFLAGS, more: ${EXTRA:-none}" >&2
for ((r = 1; r <= ROUNDS; r++)); do
	for x in $XFLAGS; do
		for name in $LINES; do
			both "$r" "$name" "$x"
			echo "round $r: $name ($x) done" >&2
			[ "$name" = read ] && clean
		done
		clean
	done
done
if [ -n "${KEEP_OUT:-}" ]; then
	mkdir -p "$KEEP_OUT" && cp "$OUT"/* "$KEEP_OUT"/
fi

python3 "$HERE/iozone_table.py" "$OUT"
