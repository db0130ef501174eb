#!/usr/bin/env bash
# seq-vs-fio.sh: sequential write and read bandwidth of ioswarm against fio
# on the same pattern, buffered and with O_DIRECT, at 1, 2 and 4 threads.
#
# Usage: bench/seq-vs-fio.sh [PARENT_DIR|ram]      (default /var/tmp; run as root)
#   ram: a filesystem on a block device in memory (see ram_parent in common.sh)
#   TOTAL_MIB=4096  aggregate size in MiB, divided among the threads
#   THREADS="1 2 4"  ROUNDS=5  MODES="buffered direct"  REREADS=0 (below)
#   IOSWARM=/path/to/ioswarm (built from this tree if unset)
#
# Like with like:
# - Pattern: N threads, one new file each of TOTAL_MIB/N MiB, written then
#   read in 16 MiB records with pwrite/pread (fio ioengine=psync), one
#   fsync per file at the end of the write (ioswarm's default; fio's
#   end_fsync=1). fio gets fallocate=none because ioswarm does not
#   preallocate, and its files are removed before each write because
#   ioswarm's write creates new files. fio runs its jobs as threads
#   (--thread), as ioswarm does.
# - Cache: before each buffered phase both tools run on a cold cache:
#   ioswarm drops it itself (sync; echo 3 > /proc/sys/vm/drop_caches, as
#   root); the script does the same for fio. With O_DIRECT neither drops
#   (ioswarm reports cache_drop "direct").
# - Buffers: ioswarm asks for transparent huge pages for its record buffers
#   (madvise), so an O_DIRECT record reaches the device in requests as large
#   as it takes (4 MiB here) rather than cut at a few hundred KiB by 4 KiB
#   pages scattered in memory. fio can only get huge pages from the
#   hugetlb pool (mem=shmhuge), so the script reserves enough pages for the
#   run and gives them back at the end. Where transparent huge pages are
#   off, both use ordinary pages. (fio's default malloc buffers measured
#   ~0.9 GB/s write and ~1.4 GB/s read at 1 thread O_DIRECT here against
#   ~2.3 and ~3.7 with huge pages: a difference of buffers, not of tools.)
# - Bandwidth: ioswarm's is all bytes / (latest thread end - earliest thread
#   start), each thread timed from before open to after close, fsync
#   included. fio's is the group's bw_bytes under group_reporting: all
#   bytes / the longest job's runtime, which also includes end_fsync (fio
#   syncs inside its I/O loop). fio's runtime starts per job after its
#   setup, so it leaves out thread start skew and is, if anything, the
#   kinder figure to fio.
# - Data: both tools write data no 4 KiB block of which repeats (ioswarm's
#   stamps; fio's default scramble_buffers puts the offset and a time in
#   every 512 bytes); fio keeps its default buffers otherwise, since
#   refill_buffers would cost it ~0.75 s of CPU per 4 GiB written. On
#   these VMs a buffered 1-thread read comes out at either ~1.8 or ~3.3
#   GB/s, round by round, for both tools (seen in one run: ioswarm 1.87 in
#   round 1, fio 1.67 in round 2, both ~3.0-3.4 otherwise), and buffered
#   writes swing 0.84-1.51 GB/s; the medians of these rows move by +-10%
#   from one run of the script to the next. The O_DIRECT rows are steady.
# - Same files: each tool's read above reads the files that tool wrote, and
#   on this VM where a file lands decides its read rate (one 4 GiB file
#   written by ioswarm read at 2.72-2.81 GB/s with fio and 2.80 with
#   ioswarm, while fio's own fresh files read at ~3.6). So each round also
#   holds both tools to the same fresh files: ioswarm writes with --keep,
#   then fio (psync, same block, O_DIRECT or a cold cache) and ioswarm
#   (--reuse) read them, in alternating order; the "same files" column
#   is the ratio of those two reads.
# - Rereads (REREADS=N): the same fresh files, written once by ioswarm,
#   then read N times by each tool in alternating order with no write in
#   between, so a round's ratio holds no write-back of the round before;
#   for each thread count, after the rounds (ROUNDS=0 for the rereads only).
#   The "rereads" column is their ratio, each pair its own round.
# - Order: the tools alternate on the same directory, ioswarm first in odd
#   rounds and fio first in even ones (A B B A ...), so neither always runs
#   first on a fresh directory; the figures are medians over the rounds. On
#   these VMs a buffered write right after a cache drop is slow and an
#   immediate rerun fast, so a single run of each would compare timing
#   luck, not tools.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

PARENT=${1:-/var/tmp}
TOTAL_MIB=${TOTAL_MIB:-4096}
THREADS=${THREADS:-"1 2 4"}
ROUNDS=${ROUNDS:-5}
REREADS=${REREADS:-0}
MODES=${MODES:-"buffered direct"}
# ENGINE=io_uring IODEPTH=4: ioswarm --engine io_uring --iodepth N against
# fio ioengine=io_uring iodepth=N fixedbufs; the default is psync, depth 1.
ENGINE=${ENGINE:-sync}
IODEPTH=${IODEPTH:-1}
case $ENGINE in
sync) [ "$IODEPTH" = 1 ] || die "IODEPTH needs ENGINE=io_uring" ;;
io_uring) ;;
*) die "ENGINE=$ENGINE: sync or io_uring" ;;
esac

need_tools
for t in $THREADS; do
	[ $((TOTAL_MIB % (16 * t))) = 0 ] || die "TOTAL_MIB=$TOTAL_MIB does not divide into $t threads of 16 MiB records"
done
[ "$PARENT" = ram ] && ram_parent $((2 * TOTAL_MIB + 512))
need_space "$PARENT" $((TOTAL_MIB + 256))
make_work "$PARENT"
build_ioswarm "$WORK"
RESULTS=$WORK/results.tsv

# huge_pages_for_fio: when ioswarm can have transparent huge pages,
# reserve hugetlb pages for fio's buffers (fio takes ten 2 MiB pages for a
# 16 MiB O_DIRECT buffer; twelve a thread leave room) and set FIO_MEM to
# the fio --mem value to use.
huge_pages_for_fio() {
	local max=0 t old want
	FIO_MEM=malloc
	grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null && return
	for t in $THREADS; do ((t > max)) && max=$t; done
	old=$(cat /proc/sys/vm/nr_hugepages)
	want=$((old + 12 * max * IODEPTH)) # a 16 MiB buffer per operation in flight
	ON_EXIT="echo $old > /proc/sys/vm/nr_hugepages; ${ON_EXIT:-}"
	echo "$want" >/proc/sys/vm/nr_hugepages
	if [ "$(cat /proc/sys/vm/nr_hugepages)" -lt "$want" ]; then
		echo "warning: could not reserve $want huge pages; fio uses ordinary pages" >&2
		return
	fi
	FIO_MEM=shmhuge
}
huge_pages_for_fio

# run_ioswarm MODE T ROUND: one write,read run; appends a result line.
run_ioswarm() {
	local mode=$1 t=$2 round=$3 out=$WORK/ioswarm.json direct=()
	rm -f -- "$out" # ioswarm notes on stderr when it replaces one
	[ "$mode" = direct ] && direct=(--direct)
	[ "$ENGINE" = io_uring ] && direct+=(--engine io_uring --iodepth "$IODEPTH")
	"$IOSWARM" run --dir "$WORK" --threads "$t" --total "${TOTAL_MIB}MiB" --block 16MiB \
		--phases write,read "${direct[@]}" --quiet --format json --output "$out" >/dev/null ||
		die "ioswarm failed ($mode, $t threads)"
	python3 - "$out" "$mode" "$t" "$round" >>"$RESULTS" <<'PY'
import json, sys
path, mode, t, rnd = sys.argv[1:]
ph = {p["name"]: p for p in json.load(open(path))["phases"]}
print("ioswarm", mode, t, rnd, ph["write"]["bandwidth"], ph["read"]["bandwidth"], sep="\t")
PY
}

# same_files MODE T ROUND: ioswarm writes fresh files and keeps them; then
# fio and ioswarm (--reuse) read those very files, fio first in odd rounds;
# appends a "same" line with both read rates.
same_files() {
	local mode=$1 t=$2 round=$3 out=$WORK/same.json direct=() id names=() i fio_r sw_r keep=()
	rm -f -- "$out" # ioswarm notes on stderr when it replaces one
	[ "$mode" = direct ] && direct=(--direct)
	[ "$ENGINE" = io_uring ] && direct+=(--engine io_uring --iodepth "$IODEPTH")
	"$IOSWARM" run --dir "$WORK" --threads "$t" --total "${TOTAL_MIB}MiB" --block 16MiB \
		--phases write --keep "${direct[@]}" --quiet --format json --output "$out" >/dev/null ||
		die "ioswarm failed to write the shared files ($mode, $t threads)"
	id=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["job_id"])' "$out")
	for ((i = 0; i < t; i++)); do names+=("$WORK/ioswarm-$id/t$i.dat"); done
	same_fio() {
		local jobs=() f
		[ "$mode" = buffered ] && drop_caches
		# One job per file, as ioswarm has one thread per file; the
		# global options come first and apply to every job.
		for f in "${names[@]}"; do jobs+=(--name="same-${f##*/}" --filename="$f"); done
		fio --fadvise_hint=0 --size=$((TOTAL_MIB / t))m --bs=16m --rw=read $FIO_ENGINE \
			--direct=$([ "$mode" = direct ] && echo 1 || echo 0) --mem="$FIO_MEM" --thread --group_reporting \
			"${jobs[@]}" --output-format=json --output="$WORK/same-fio.json" >/dev/null || die "fio read of ioswarm's files failed"
		python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["bw_bytes"])' "$WORK/same-fio.json"
	}
	same_ioswarm() {
		rm -f -- "$WORK/same-read.json"
		"$IOSWARM" run --dir "$WORK" --reuse "$id" --threads "$t" --total "${TOTAL_MIB}MiB" --block 16MiB \
			--phases read "${keep[@]}" "${direct[@]}" --quiet --format json --output "$WORK/same-read.json" >/dev/null ||
			die "ioswarm --reuse read failed ($mode, $t threads)"
		python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["phases"][0]["bandwidth"])' "$WORK/same-read.json"
	}
	if [ "$round" = reread ]; then
		# The files stay (--keep on every read) for REREADS pairs of
		# reads, after the writes' dirty data has had time to drain.
		sleep 20
		keep=(--keep)
		for ((round = 1; round <= REREADS; round++)); do
			same_pair reread
		done
	else
		same_pair same
	fi
	rm -rf -- "$WORK/ioswarm-$id"
}

# same_pair KIND: one read of the same files by each tool, fio first in odd
# rounds; appends a KIND line with both read rates. Called from same_files
# only: it uses that function's mode, t, round, fio_r, sw_r and readers.
same_pair() {
	if ((round % 2)); then
		fio_r=$(same_fio)
		sw_r=$(same_ioswarm)
	else
		sw_r=$(same_ioswarm)
		fio_r=$(same_fio)
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$mode" "$t" "$round" "$sw_r" "$fio_r" >>"$RESULTS"
	tail -n 1 "$RESULTS" | awk -F'\t' '{ printf "  %-8s %s threads %s %s: ioswarm read %.3f GB/s, fio read %.3f GB/s\n", $2, $3, $1, $4, $5 / 1e9, $6 / 1e9 }'
}

# fio_phase MODE T RW: one fio run of the write or read phase; prints the
# group's bandwidth in bytes per second.
fio_phase() {
	local mode=$1 t=$2 rw=$3 out=$WORK/fio.json
	[ "$mode" = buffered ] && drop_caches
	# --fadvise_hint=0: by default fio tells the kernel POSIX_FADV_SEQUENTIAL,
	# which doubles readahead; ioswarm (like IOzone and most applications)
	# gives no hint, so neither does fio here.
	fio --fadvise_hint=0 --name=seq --directory="$WORK/fio" --numjobs="$t" --size=$((TOTAL_MIB / t))m --bs=16m \
		--rw="$rw" $FIO_ENGINE --end_fsync=1 --fallocate=none --direct=$([ "$mode" = direct ] && echo 1 || echo 0) \
		--mem="$FIO_MEM" --thread --group_reporting --output-format=json --output="$out" >/dev/null || die "fio $rw failed ($mode, $t threads)"
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["jobs"][0][sys.argv[2]]["bw_bytes"])' "$out" "$rw"
}

# run_fio MODE T ROUND: write then read on new files; appends a result line.
run_fio() {
	local mode=$1 t=$2 round=$3 w r
	rm -rf -- "$WORK/fio" && mkdir "$WORK/fio"
	w=$(fio_phase "$mode" "$t" write)
	r=$(fio_phase "$mode" "$t" read)
	rm -rf -- "$WORK/fio"
	printf 'fio\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$t" "$round" "$w" "$r" >>"$RESULTS"
}

FIO_ENGINE=--ioengine=psync
[ "$ENGINE" = io_uring ] && FIO_ENGINE="--ioengine=io_uring --iodepth=$IODEPTH --fixedbufs"
echo "seq-vs-fio: ${TOTAL_MIB} MiB in all, threads $THREADS, $ROUNDS rounds, modes $MODES, engine $ENGINE depth $IODEPTH, fio mem=$FIO_MEM, in $WORK"
# One run of each tool whose figures are thrown away: whichever tool wrote
# first after the set-up (the build, reserving huge pages) came out at a
# third of its usual rate, writing and reading (seen twice at 1 thread:
# 0.38 GB/s against 0.92-1.22 in every later round).
read -r first_mode _ <<<"$MODES"
read -r first_t _ <<<"$THREADS"
(RESULTS=/dev/null && run_ioswarm "$first_mode" "$first_t" 0 && run_fio "$first_mode" "$first_t" 0)
for mode in $MODES; do
	for t in $THREADS; do
		for ((round = 1; round <= ROUNDS; round++)); do
			in_turn "$round" run_ioswarm run_fio "$mode" "$t" "$round"
			tail -n 2 "$RESULTS" | sort | awk -F'\t' '{ printf "  %-8s %s threads round %s  %-7s  write %.3f GB/s  read %.3f GB/s\n", $2, $3, $4, $1, $5 / 1e9, $6 / 1e9 }'
			same_files "$mode" "$t" "$round"
		done
		if ((REREADS > 0)); then same_files "$mode" "$t" reread; fi
	done
done

python3 - "$RESULTS" "$here" <<'PY'
import statistics as st, sys
sys.path.insert(0, sys.argv[2])
from ratios import median_ci, verdict
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
def med(tool, mode, t, col):
    return st.median(float(r[col]) for r in rows if r[:3] == [tool, mode, t])
def ratios(mode, t, col, a="ioswarm", b="fio", bcol=None):  # each round's own ratio
    x = {r[3]: float(r[col]) for r in rows if r[:3] == [a, mode, t]}
    y = {r[3]: float(r[bcol or col]) for r in rows if r[:3] == [b, mode, t]}
    return [x[k] / y[k] for k in x if k in y]
def rounds(xs):
    m, lo, hi, _ = median_ci(xs)
    if lo is None:
        return f"{m:.3f} [too few] undecided"
    return f"{m:.3f} [{lo:.2f}-{hi:.2f}] {verdict(lo, hi, 0.98)}"
print()
print("median bandwidth in GB/s (10^9 bytes/s) over the rounds; ratio = ioswarm / fio;")
print("same files: both tools read the same fresh files ioswarm wrote")
print(f"{'mode':>8} {'threads':>7} | {'write ioswarm':>13} {'fio':>7} {'ratio':>6} | {'read ioswarm':>12} {'fio':>7} {'ratio':>6} |"
      f" {'same files':>10} {'fio':>7} {'ratio':>6}")
seen, reread = [], []
for r in rows:
    if r[0] in ("ioswarm", "fio") and r[1:3] not in seen:
        seen.append(r[1:3])
    if r[0] == "reread" and r[1:3] not in reread:
        reread.append(r[1:3])
for mode, t in seen:
    w = med("ioswarm", mode, t, 4), med("fio", mode, t, 4)
    rd = med("ioswarm", mode, t, 5), med("fio", mode, t, 5)
    sm = med("same", mode, t, 4), med("same", mode, t, 5)
    print(f"{mode:>8} {t:>7} | {w[0] / 1e9:>13.3f} {w[1] / 1e9:>7.3f} {w[0] / w[1]:>6.3f} |"
          f" {rd[0] / 1e9:>12.3f} {rd[1] / 1e9:>7.3f} {rd[0] / rd[1]:>6.3f} |"
          f" {sm[0] / 1e9:>10.3f} {sm[1] / 1e9:>7.3f} {sm[0] / sm[1]:>6.3f}")
print()
print("the rounds' own ratios (both tools side by side in each round): their median, the interval that")
print("holds the true median with 95% or more confidence whatever the spread (sign test; 6 rounds at")
print("least), and whether that interval decides a ratio >= 0.98 (undecided: it straddles 0.98)")
print(f"{'mode':>8} {'threads':>7} | {'write':>30} | {'read, own files':>30} | {'read, same files':>30}")
for mode, t in seen:
    print(f"{mode:>8} {t:>7} | {rounds(ratios(mode, t, 4)):>30} | {rounds(ratios(mode, t, 5)):>30} |"
          f" {rounds(ratios(mode, t, 4, 'same', 'same', 5)):>30}")
if reread:
    print()
    print("rereads: the same files read by each tool in turn, no write between; median GB/s and the pairs' ratio")
    for mode, t in reread:
        x = ratios(mode, t, 4, "reread", "reread", 5)
        sw, fio = med("reread", mode, t, 4), med("reread", mode, t, 5)
        print(f"{mode:>8} {t:>7} | {len(x)} pairs | ioswarm {sw / 1e9:.3f} fio {fio / 1e9:.3f} |"
              f" {rounds(x):>30} | lowest {min(x):.2f}, highest {max(x):.2f}")
PY
