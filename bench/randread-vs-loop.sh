#!/usr/bin/env bash
# randread-vs-loop.sh: ioswarm's random read of cached files with lseek
# and read (IOzone's -i2 calls, what `ioswarm iozone` runs) against a
# minimal loop shaped as IOzone's readers (bench/randloop.c: one forked,
# single-threaded process per file, its records once each in a shuffled
# order), on the same kept files, from the page cache.
#
# Usage: bench/randread-vs-loop.sh [PARENT_DIR]   (default /var/tmp; run as root)
#   FILES=8     files, one per reader: ioswarm runs them as FILES one-thread
#               ranks (--local-ranks), as a -+m threadlist places them
#   SIZE=256MiB each file          RECORD=4096   bytes per read
#   ROUNDS=5    IOSWARM=/path/to/ioswarm (built from this tree if unset)
#
# Both read the same files, written once by ioswarm (--keep) and read
# through once so that every page is cached; neither drops the cache. The
# figures: "children" is the sum of each reader's own rate (IOzone's
# Children see; ioswarm's sum_of_rates), "window" all the bytes over the
# time from the earliest start to the latest end (ioswarm's bandwidth),
# "cpu" the readers' CPU seconds over their timed parts (ioswarm's per
# thread cpu_ns, which IOzone's -+u reports). ioswarm takes two clock
# readings per read for its latency histogram and passes through Go's
# scheduler every 8 ms; the loop does neither. Order A B B A over the
# rounds, medians. What a ratio below 1 is made of, and what was done
# about it, is in docs/benchmarks.md.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

PARENT=${1:-/var/tmp}
FILES=${FILES:-8}
SIZE=${SIZE:-256MiB}
RECORD=${RECORD:-4096}
ROUNDS=${ROUNDS:-5}

need_tools
command -v cc >/dev/null || die "a C compiler (cc) is needed for the loop"
make_work "$PARENT"
build_ioswarm "$WORK"
cc -O2 -o "$WORK/randloop" "$here/randloop.c" || die "cannot build randloop.c"
RESULTS=$WORK/results.tsv

common=(--dir "$WORK" --local-ranks "$FILES" --threads "$FILES" --file-size "$SIZE" --drop-caches off --quiet)
"$IOSWARM" run "${common[@]}" --block 1MiB --phases write --keep >/dev/null || die "ioswarm could not write the files"
JOBDIR=$(ls -d "$WORK"/ioswarm-*/)
cat "$JOBDIR"t*.dat >/dev/null

run_ioswarm() {
	local round=$1 out=$WORK/ioswarm.json
	rm -f -- "$out"
	"$IOSWARM" run "${common[@]}" --reuse latest --keep --phases randread --rand-call lseek --rand-block "$RECORD" \
		--rand-time 0 --read-shift 0 --format json --output "$out" >/dev/null || die "ioswarm failed"
	python3 - "$out" "$round" >>"$RESULTS" <<'PY'
import json, sys
path, rnd = sys.argv[1:]
p = json.load(open(path))["phases"][0]
cpu = sum(t.get("cpu_ns", 0) for t in p["threads"]) / 1e9
print("ioswarm", rnd, p["sum_of_rates"] / 1024, p["bandwidth"] / 1024, cpu, sep="\t")
PY
}

run_loop() {
	local round=$1
	# shellcheck disable=SC2086 # the file names are the job's, without spaces
	"$WORK/randloop" "$RECORD" "$JOBDIR"t*.dat |
		awk -v r="$round" '{ printf "loop\t%s\t%s\t%s\t%s\n", r, $2, $4, $6 }' >>"$RESULTS"
}

echo "randread-vs-loop: $FILES files of $SIZE, $RECORD-byte reads, $ROUNDS rounds, in $WORK"
(RESULTS=/dev/null && run_ioswarm 0 && run_loop 0) # warm-up, discarded
for ((round = 1; round <= ROUNDS; round++)); do
	in_turn "$round" run_ioswarm run_loop "$round"
	tail -n 2 "$RESULTS" | sort | awk -F'\t' '{ printf "  round %s  %-7s  children %.0f kB/s  window %.0f kB/s  cpu %.3f s\n", $2, $1, $3, $4, $5 }'
done

python3 - "$RESULTS" <<'PY'
import statistics as st, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
def med(tool, col):
    return st.median(float(r[col]) for r in rows if r[0] == tool)
print()
print("medians over the rounds; ratio = ioswarm / loop (cpu: above 1 is more CPU per byte)")
for name, col in (("children kB/s", 2), ("window kB/s", 3), ("cpu s", 4)):
    a, b = med("ioswarm", col), med("loop", col)
    print(f"{name:>14}  ioswarm {a:>12.3f}  loop {b:>12.3f}  ratio {a / b:.3f}")
PY
