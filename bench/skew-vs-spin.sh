#!/usr/bin/env bash
# skew-vs-spin.sh: thread start skew of ioswarm against bench/spinstart.c,
# the smallest program that releases threads the way IOR's ranks leave
# their barrier (each spins on CLOCK_MONOTONIC, yielding, until a release
# time), on the same write-then-read job, alternating, medians.
#
# Usage: bench/skew-vs-spin.sh [PARENT_DIR]    (default /var/tmp; run as root)
#   THREADS=8  ROUNDS=7  TOTAL_MIB=512
#   IOSWARM=/path/to/ioswarm (built from this tree if unset)
#
# Like with like: THREADS threads in one process, each its own file of
# TOTAL_MIB/THREADS MiB in 16 MiB records, buffered, written with an fsync
# before close, then read after sync + drop_caches. Start skew is the
# latest thread's start less the earliest's, each taken right after the
# thread leaves its wait and before it opens its file (ioswarm's
# start_skew_ns; spinstart prints the same). ioswarm's threads are
# released by the coordinator over its local rank's connection; the
# program's by a time it set itself, so it is the kinder case.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

PARENT=${1:-/var/tmp}
THREADS=${THREADS:-8}
ROUNDS=${ROUNDS:-7}
TOTAL_MIB=${TOTAL_MIB:-512}

need_tools
command -v cc >/dev/null || die "a C compiler (cc) is needed for spinstart.c"
[ $((TOTAL_MIB % (16 * THREADS))) = 0 ] || die "TOTAL_MIB=$TOTAL_MIB does not divide into $THREADS threads of 16 MiB records"
need_space "$PARENT" $((TOTAL_MIB + 256))
make_work "$PARENT"
build_ioswarm "$WORK"
cc -O2 -pthread -o "$WORK/spinstart" "$here/spinstart.c" || die "cannot build spinstart.c"
RESULTS=$WORK/results.tsv

run_ioswarm() {
	local round=$1 out=$WORK/ioswarm.json
	rm -f -- "$out" # ioswarm notes on stderr when it replaces one
	"$IOSWARM" run --dir "$WORK" --threads "$THREADS" --total "${TOTAL_MIB}MiB" --block 16MiB \
		--phases write,read --quiet --format json --output "$out" >/dev/null || die "ioswarm failed"
	python3 - "$out" "$round" >>"$RESULTS" <<'PY'
import json, sys
ph = {p["name"]: p for p in json.load(open(sys.argv[1]))["phases"]}
print("ioswarm", sys.argv[2], ph["write"]["start_skew_ns"], ph["read"]["start_skew_ns"], sep="\t")
PY
}

run_spin() {
	local round=$1
	mkdir -p "$WORK/spin"
	drop_caches
	"$WORK/spinstart" "$WORK/spin" "$THREADS" $((TOTAL_MIB / THREADS * 1048576)) |
		awk -v r="$round" '{ v[$1] = $2 } END { printf "spin\t%s\t%s\t%s\n", r, v["write"], v["read"] }' >>"$RESULTS"
}

echo "skew-vs-spin: $THREADS threads, ${TOTAL_MIB} MiB in all, $ROUNDS rounds, in $WORK"
(RESULTS=/dev/null && run_ioswarm 0 && run_spin 0) # warm-up, discarded
for ((round = 1; round <= ROUNDS; round++)); do
	in_turn "$round" run_ioswarm run_spin "$round"
	tail -n 2 "$RESULTS" | sort | awk -F'\t' '{ printf "  round %s  %-7s  write skew %.3f ms  read skew %.3f ms\n", $2, $1, $3 / 1e6, $4 / 1e6 }'
done

python3 - "$RESULTS" <<'PY'
import statistics as st, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
def col(tool, c):
    return [int(r[c]) / 1e6 for r in rows if r[0] == tool]
print()
print("start skew in ms: median (min-max) over the rounds; ratio = ioswarm / spinstart (target <= 1, or <= 1 ms)")
for c, name in ((2, "write"), (3, "read")):
    a, b = col("ioswarm", c), col("spin", c)
    ma, mb = st.median(a), st.median(b)
    print(f"  {name:>5}: ioswarm {ma:.3f} ({min(a):.3f}-{max(a):.3f})  spinstart {mb:.3f} ({min(b):.3f}-{max(b):.3f})  ratio {ma / mb:.2f}")
PY
