#!/usr/bin/env bash
# shared-vs-fio.sh: N threads writing, then reading, one shared file in
# contiguous segments (--layout shared --pattern segmented) against fio with
# one shared file and offset_increment, at 1, 4 and 8 threads.
#
# Usage: bench/shared-vs-fio.sh [PARENT_DIR]    (default /var/tmp; run as root)
#   TOTAL_MIB=4096  size of the shared file in MiB; each thread's segment is TOTAL_MIB/N
#   THREADS="1 4 8"  ROUNDS=5  BLOCK_MIB=16
#   IOSWARM=/path/to/ioswarm (built from this tree if unset)
#
# Like with like:
# - Pattern: one file of TOTAL_MIB MiB; thread i writes then reads
#   [i·S, (i+1)·S), S = TOTAL_MIB/N, in BLOCK_MIB records with pwrite/pread
#   (fio ioengine=psync, filename=<one file>, io_size=S, offset_increment=S,
#   filesize=TOTAL), one fsync per thread at the end of its write (ioswarm's
#   default; fio end_fsync=1), threads not processes (fio --thread).
# - File: ioswarm's rank 0 makes the file anew and sizes it (ftruncate,
#   sparse) before the write, untimed; the script removes fio's file before
#   each write and gives fio fallocate=none, so fio also extends a sparse
#   file rather than preallocating blocks.
# - Cache: cold before each phase for both (ioswarm drops it itself as root;
#   the script does sync + drop_caches for fio).
# - Bandwidth: ioswarm's all bytes / (latest end - earliest start), open
#   to close, fsync inside; fio's group bw_bytes (all bytes / the longest
#   job's runtime), which leaves out thread start skew: if anything the
#   kinder figure to fio.
# - Order: A B B A over the rounds, medians; target ratio >= 0.98.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

PARENT=${1:-/var/tmp}
TOTAL_MIB=${TOTAL_MIB:-4096}
THREADS=${THREADS:-"1 4 8"}
ROUNDS=${ROUNDS:-5}
BLOCK_MIB=${BLOCK_MIB:-16}

need_tools
for t in $THREADS; do
	[ $((TOTAL_MIB % (BLOCK_MIB * t))) = 0 ] || die "TOTAL_MIB=$TOTAL_MIB does not divide into $t segments of whole ${BLOCK_MIB} MiB records"
done
need_space "$PARENT" $((TOTAL_MIB + 256))
make_work "$PARENT"
build_ioswarm "$WORK"
RESULTS=$WORK/results.tsv

# run_ioswarm T ROUND: one write,read run on a shared file; appends a line.
run_ioswarm() {
	local t=$1 round=$2 out=$WORK/ioswarm.json
	rm -f -- "$out" # ioswarm notes on stderr when it replaces one
	"$IOSWARM" run --dir "$WORK" --threads "$t" --total "${TOTAL_MIB}MiB" --block "${BLOCK_MIB}MiB" \
		--layout shared --pattern segmented --phases write,read --quiet --format json --output "$out" >/dev/null ||
		die "ioswarm failed ($t threads)"
	python3 - "$out" "$t" "$round" >>"$RESULTS" <<'PY'
import json, sys
path, t, rnd = sys.argv[1:]
ph = {p["name"]: p for p in json.load(open(path))["phases"]}
print("ioswarm", t, rnd, ph["write"]["bandwidth"], ph["read"]["bandwidth"], sep="\t")
PY
}

# fio_phase T RW: one fio phase over the shared file; prints bytes/s.
fio_phase() {
	local t=$1 rw=$2 out=$WORK/fio.json seg=$((TOTAL_MIB / t))
	drop_caches
	fio --fadvise_hint=0 --name=shared --filename="$WORK/fio/shared.dat" --numjobs="$t" \
		--filesize="${TOTAL_MIB}m" --io_size="${seg}m" --offset_increment="${seg}m" --bs="${BLOCK_MIB}m" \
		--rw="$rw" --ioengine=psync --end_fsync=1 --fallocate=none --thread --group_reporting \
		--output-format=json --output="$out" >/dev/null || die "fio $rw failed ($t threads)"
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["jobs"][0][sys.argv[2]]["bw_bytes"])' "$out" "$rw"
}

run_fio() {
	local t=$1 round=$2 w r
	rm -rf -- "$WORK/fio" && mkdir "$WORK/fio"
	w=$(fio_phase "$t" write)
	r=$(fio_phase "$t" read)
	rm -rf -- "$WORK/fio"
	printf 'fio\t%s\t%s\t%s\t%s\n' "$t" "$round" "$w" "$r" >>"$RESULTS"
}

echo "shared-vs-fio: one ${TOTAL_MIB} MiB file, segmented, threads $THREADS, $ROUNDS rounds, in $WORK"
read -r first_t _ <<<"$THREADS"
(RESULTS=/dev/null && run_ioswarm "$first_t" 0 && run_fio "$first_t" 0) # warm-up, discarded
for t in $THREADS; do
	for ((round = 1; round <= ROUNDS; round++)); do
		in_turn "$round" run_ioswarm run_fio "$t" "$round"
		tail -n 2 "$RESULTS" | sort | awk -F'\t' '{ printf "  %s threads round %s  %-7s  write %.3f GB/s  read %.3f GB/s\n", $2, $3, $1, $4 / 1e9, $5 / 1e9 }'
	done
done

python3 - "$RESULTS" <<'PY'
import statistics as st, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
def med(tool, t, col):
    return st.median(float(r[col]) for r in rows if r[:2] == [tool, t])
print()
print("shared file, segmented: median GB/s over the rounds; ratio = ioswarm / fio (target >= 0.98)")
print(f"{'threads':>7} | {'write ioswarm':>13} {'fio':>7} {'ratio':>6} | {'read ioswarm':>12} {'fio':>7} {'ratio':>6}")
for t in dict.fromkeys(r[1] for r in rows):
    w = med("ioswarm", t, 3), med("fio", t, 3)
    rd = med("ioswarm", t, 4), med("fio", t, 4)
    print(f"{t:>7} | {w[0] / 1e9:>13.3f} {w[1] / 1e9:>7.3f} {w[0] / w[1]:>6.3f} | {rd[0] / 1e9:>12.3f} {rd[1] / 1e9:>7.3f} {rd[0] / rd[1]:>6.3f}")
PY
