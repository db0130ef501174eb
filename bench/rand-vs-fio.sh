#!/usr/bin/env bash
# rand-vs-fio.sh: random 4 KiB O_DIRECT IOPS, p99 latency and CPU cost of
# ioswarm against fio, on the same files, at 1, 4, 8 and 16 threads.
#
# Usage: bench/rand-vs-fio.sh [PARENT_DIR|ram]      (default /var/tmp; run as root)
#   ram: a filesystem of its own on a block device in memory (zram), made
#     and removed by the script: the engines' own cost, without the VM
#     disk's swings (see ram_parent in common.sh)
#   TOTAL_MIB=512  aggregate file size in MiB, divided among the threads
#   THREADS="1 4 8 16"  ROUNDS=5  IOSWARM=/path/to/ioswarm (built if unset)
#   ENGINE=io_uring DEPTHS="1 8 32"  queue depth: ioswarm --engine io_uring
#     --iodepth D against fio ioengine=io_uring iodepth=D fixedbufs (both
#     register their buffers); the default ENGINE=sync is psync, depth 1
#
# Like with like:
# - Workload: each thread has its own file of TOTAL_MIB/threads MiB and does
#   one 4 KiB operation per block of it (file size / 4 KiB ops) at uniformly
#   random aligned offsets, with replacement: fio's ioengine=psync (pread/
#   pwrite, queue depth 1), direct=1, randrepeat=0, norandommap, size= the
#   file; ioswarm's randwrite then randread with --direct. Writes end with
#   fsync in both (ioswarm's default, fio's end_fsync=1).
# - Same files: each round first makes new files, one per thread, with an
#   ioswarm sequential write phase of the same threads (--keep), as a study
#   does before its random phases. Both tools then run on exactly those
#   files: ioswarm reusing them (--reuse; its randwrite writes each block's
#   own bytes again), fio with one job per file (a job file with one section
#   per thread), fallocate=none so it never touches the layout. Neither
#   rewrites them first. Where the files lie matters more than either tool
#   on this VM's disk: the same 4 threads' randwrite ran at about 64k IOPS
#   on files ioswarm had just written and about 107k on files fio had just
#   written beside them (fio both times, 4 rounds each; rewriting the
#   former in place did not change it), so the tools must meet the very
#   same files, not a pair of file sets.
#   fio runs its jobs as threads of one process (thread), as ioswarm runs
#   its threads: fio's default of a process per job costs it about 1 s more
#   CPU per million operations at 8 jobs here.
# - Order: the tools alternate on each round's files, and the order flips
#   every round (round 1 ioswarm then fio, round 2 fio then ioswarm, ...):
#   the second random-write pass over files runs faster here than the first
#   (fio second after ioswarm about 1.25x fio first), so neither may always
#   go first; the figures are medians over the rounds.
# - IOPS: ioswarm's is operations / (latest thread end - earliest thread
#   start), opens, fsync and closes included. fio's is the group's iops with
#   group_reporting: all operations / the longest job's runtime (ms), end_fsync
#   included, which excludes thread start skew and so never favours ioswarm.
# - p99: ioswarm's from its merged per-op histogram (buckets under 1% wide),
#   each operation timed from its submission to its completion; fio's total
#   latency 99th percentile (lat_percentiles=1: submission + completion,
#   the same span). fio's clat, its default, leaves the submission out: for
#   psync the two are the same (the pread/pwrite call), for io_uring clat
#   starts after io_uring_enter returned and so is not our figure.
# - CPU: user + system seconds of the whole process tree from /usr/bin/time
#   (ioswarm: the coordinator and its rank process; fio: its one process)
#   per million operations of both phases. Both counts hold a fixed cost
#   besides the operations: start-up (ioswarm also hashes its own binary),
#   opens and closes. So each round also runs each
#   tool cut to one operation per thread and random phase (ioswarm
#   --stonewall 1ns, fio number_ios=1) and the "net" figure is
#   (CPU - CPU of that run) / (ops - its ops): the cost of an operation.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

PARENT=${1:-/var/tmp}
TOTAL_MIB=${TOTAL_MIB:-512}
THREADS=${THREADS:-"1 4 8 16"}
ROUNDS=${ROUNDS:-5}
ENGINE=${ENGINE:-sync}
DEPTHS=${DEPTHS:-1}
DEPTH=1
case $ENGINE in
sync) [ "$DEPTHS" = 1 ] || die "DEPTHS needs ENGINE=io_uring" ;;
io_uring) ;;
*) die "ENGINE=$ENGINE: sync or io_uring" ;;
esac

# key names a point in the results: threads, and with io_uring @depth.
key() {
	if [ "$ENGINE" = sync ]; then echo "$1"; else echo "$1@$DEPTH"; fi
}

need_tools
for t in $THREADS; do
	[ $((TOTAL_MIB % t)) = 0 ] || die "TOTAL_MIB=$TOTAL_MIB does not divide among $t threads"
done
[ "$PARENT" = ram ] && ram_parent $((2 * TOTAL_MIB + 512))
need_space "$PARENT" $((2 * TOTAL_MIB + 256))
make_work "$PARENT"
build_ioswarm "$WORK"
RESULTS=$WORK/results.tsv

# make_files T ROUND: new files for both tools, written by an ioswarm
# write phase of T threads and kept; prints the kept job's id.
make_files() {
	local t=$1 round=$2 out=$WORK/files-$1-$2.json
	rm -f -- "$out"
	"$IOSWARM" run --dir "$WORK" --phases write --direct --threads "$t" --total "${TOTAL_MIB}MiB" \
		--keep --quiet --format json --output "$out" >/dev/null || die "ioswarm could not write the files at $t threads (see $out)"
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["job_id"])' "$out"
}

# run_ioswarm T ROUND ID [fixed]: randwrite then randread on the kept
# files of job ID, kept again; appends one result line. With "fixed" it is
# the same run cut by --stonewall 1ns after one operation a thread: the
# run's cost without its operations.
run_ioswarm() {
	local t=$1 round=$2 id=$3 kind=${4:-} out=$WORK/ioswarm-$1-$2.json extra=(--keep --reuse "$3")
	rm -f -- "$out" # ioswarm notes on stderr when it replaces one
	[ "$kind" = fixed ] && extra+=(--stonewall 1ns)
	[ "$ENGINE" = io_uring ] && extra+=(--engine io_uring --iodepth "$DEPTH")
	/usr/bin/time -f '%U %S' -o "$WORK/time" "$IOSWARM" run --dir "$WORK" \
		--phases randwrite,randread --direct --threads "$t" --total "${TOTAL_MIB}MiB" \
		"${extra[@]}" --quiet --format json --output "$out" >/dev/null ||
		die "ioswarm failed at $t threads (see $out)"
	python3 - "$out" "ioswarm${kind:+-$kind}" "$(key "$t")" "$round" "$(cpu_seconds "$WORK/time")" >>"$RESULTS" <<'PY'
import json, sys
path, tool, t, rnd, cpu = sys.argv[1:]
job = json.load(open(path))
ph = {p["name"]: p for p in job["phases"]}
w, r = ph["randwrite"], ph["randread"]
print(tool, t, rnd, w["iops"], r["iops"], w["latency_ns"]["p99"], r["latency_ns"]["p99"],
      cpu, w["ops"] + r["ops"], sep="\t")
PY
}

# fio_jobfile T DIR [fixed]: two groups, one section per file in each,
# separated by a stonewall: randwrite, then randread. With "fixed" each
# job does one operation (number_ios=1).
fio_jobfile() {
	local t=$1 dir=$2 kind=${3:-} i
	if [ "$ENGINE" = io_uring ]; then
		printf '[global]\nioengine=io_uring\niodepth=%d\nfixedbufs\n' "$DEPTH"
	else
		printf '[global]\nioengine=psync\n'
	fi
	printf 'direct=1\nbs=4k\nsize=%dm\nrandrepeat=0\nnorandommap\n' $((TOTAL_MIB / t))
	printf 'fallocate=none\nthread\ngroup_reporting\nlat_percentiles=1\n'
	for rw in randwrite randread; do
		for ((i = 0; i < t; i++)); do
			printf '[%s%d]\nrw=%s\nfilename=%s/t%d.dat\n' "${rw:4:1}" "$i" "$rw" "$dir" "$i"
			[ "$i" = 0 ] && printf 'stonewall\n'
			[ "$rw" = randwrite ] && printf 'end_fsync=1\n'
			[ "$kind" = fixed ] && printf 'number_ios=1\n'
		done
	done
	return 0
}

# run_fio T ROUND DIR [fixed]: the same phases on ioswarm's files in DIR.
run_fio() {
	local t=$1 round=$2 dir=$3 kind=${4:-} out=$WORK/fio-$1-$2.json
	fio_jobfile "$t" "$dir" "$kind" >"$WORK/job.fio"
	/usr/bin/time -f '%U %S' -o "$WORK/time" fio --output-format=json --output="$out" "$WORK/job.fio" \
		>/dev/null || die "fio failed at $t threads (see $out)"
	python3 - "$out" "fio${kind:+-$kind}" "$(key "$t")" "$round" "$(cpu_seconds "$WORK/time")" >>"$RESULTS" <<'PY'
import json, sys
path, tool, t, rnd, cpu = sys.argv[1:]
jobs = json.load(open(path))["jobs"]
w = next(j for j in jobs if j["groupid"] == 0)["write"]
r = next(j for j in jobs if j["groupid"] == 1)["read"]
p99 = lambda d: d["lat_ns"]["percentile"]["99.000000"]
print(tool, t, rnd, w["iops"], r["iops"], p99(w), p99(r), cpu, w["total_ios"] + r["total_ios"], sep="\t")
PY
}

# pair T ROUND: new files, both tools on them in this round's order, then
# the fixed-cost run of each; the files are removed after.
pair() {
	local t=$1 round=$2 id dir
	id=$(make_files "$t" "$round")
	dir=$WORK/ioswarm-$id
	if ((round % 2 == 1)); then
		run_ioswarm "$t" "$round" "$id"
		run_fio "$t" "$round" "$dir"
	else
		run_fio "$t" "$round" "$dir"
		run_ioswarm "$t" "$round" "$id"
	fi
	tail -n 2 "$RESULTS" | awk -F'\t' '{ printf "  round %s  %2s threads  %-7s  randwrite %7.0f IOPS  randread %7.0f IOPS  cpu %.2f s\n", $3, $2, $1, $4, $5, $8 }'
	run_ioswarm "$t" "$round" "$id" fixed
	run_fio "$t" "$round" "$dir" fixed
	rm -rf -- "$dir"
}

echo "rand-vs-fio: ${TOTAL_MIB} MiB in all, threads $THREADS, engine $ENGINE, depths $DEPTHS, $ROUNDS rounds, in $WORK"
for ((round = 1; round <= ROUNDS; round++)); do
	for t in $THREADS; do
		for DEPTH in $DEPTHS; do
			pair "$t" "$round"
		done
	done
done

python3 - "$RESULTS" "$here" <<'PY'
import statistics as st, sys
sys.path.insert(0, sys.argv[2])
from ratios import median_ci, verdict, verdict_at_most
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
def runs(tool, t):
    return {r[2]: r for r in rows if r[0] == tool and r[1] == t}
def med(tool, t, col):
    return st.median(float(r[col]) for r in runs(tool, t).values())
def ratios(t, col):  # each round's ratio, the two tools side by side in it
    a, b = runs("ioswarm", t), runs("fio", t)
    return [float(a[k][col]) / float(b[k][col]) for k in a if k in b]
def interval(xs):
    m, lo, hi, cover = median_ci(xs)
    text = f"{m:.3f} [{lo:.2f}-{hi:.2f}]" if lo is not None else f"{m:.3f} [too few]"
    return text, lo, hi, cover
def cpu(tool, t):  # CPU seconds per million operations, per run, then the median
    return st.median(float(r[7]) / float(r[8]) * 1e6 for r in runs(tool, t).values())
def per_op(full, fixed):  # CPU seconds per operation of one run, its round's fixed-cost run taken off
    return (float(full[7]) - float(fixed[7])) / (float(full[8]) - float(fixed[8]))
def net(tool, t):  # per million operations, the median over the rounds
    full, fixed = runs(tool, t), runs(tool + "-fixed", t)
    return st.median(per_op(full[k], fixed[k]) * 1e6 for k in full)
def net_ratios(t):
    a, af, b, bf = runs("ioswarm", t), runs("ioswarm-fixed", t), runs("fio", t), runs("fio-fixed", t)
    return [per_op(a[k], af[k]) / per_op(b[k], bf[k]) for k in a if k in b and k in af and k in bf]
threads = sorted({r[1] for r in rows if not r[0].endswith("-fixed")}, key=lambda k: [int(x) for x in k.split("@")])
n = len({r[2] for r in rows})
_, lo, _, cover = median_ci([0.0] * n)
print()
print(f"medians of {n} rounds; IOPS, p99 in µs, CPU s per million ops; points are threads[@iodepth]")
print("ratio: ioswarm's median / fio's median")
print("rounds: the median of the rounds' own ratios (both tools side by side in each round) and the")
if lo is None:
    print(f"interval for it: {n} rounds are too few for a 95% interval (6 are needed);")
else:
    print(f"interval that holds the true median with {cover:.1%} confidence whatever the spread (sign test);")
print("met: the target decided by that interval (IOPS >= 0.95, p99 <= 1.10 of fio's), undecided where")
print("the interval straddles it: this many rounds on this device cannot tell")
print(f"{'threads':>7} {'phase':>9} | {'IOPS ioswarm':>12} {'fio':>9} {'ratio':>6} {'rounds':>19} {'met':>9} |"
      f" {'p99 ioswarm':>11} {'fio':>8} {'ratio':>6} {'rounds':>19} {'met':>9}")
for t in threads:
    for name, icol, pcol in (("randwrite", 3, 5), ("randread", 4, 6)):
        a, b = med("ioswarm", t, icol), med("fio", t, icol)
        pa, pb = med("ioswarm", t, pcol) / 1e3, med("fio", t, pcol) / 1e3
        itext, ilo, ihi, _ = interval(ratios(t, icol))
        ptext, plo, phi, _ = interval(ratios(t, pcol))
        print(f"{t:>7} {name:>9} | {a:>12.0f} {b:>9.0f} {a / b:>6.3f} {itext:>19} {verdict(ilo, ihi, 0.95):>9} |"
              f" {pa:>11.1f} {pb:>8.1f} {pa / pb:>6.3f} {ptext:>19} {verdict_at_most(plo, phi, 1.10):>9}")
print()
print("CPU s per million ops of both phases: whole process tree, and net of each run's fixed cost;")
print("rounds: as above, of the net figure (target <= 1.05)")
print(f"{'threads':>7} | {'whole ioswarm':>13} {'fio':>7} {'ratio':>6} | {'net ioswarm':>11} {'fio':>7} {'ratio':>6} {'rounds':>19} {'met':>9}")
for t in threads:
    a, b = cpu("ioswarm", t), cpu("fio", t)
    na, nb = net("ioswarm", t), net("fio", t)
    ctext, clo, chi, _ = interval(net_ratios(t))
    print(f"{t:>7} | {a:>13.2f} {b:>7.2f} {a / b:>6.3f} | {na:>11.2f} {nb:>7.2f} {na / nb:>6.3f} {ctext:>19}"
          f" {verdict_at_most(clo, chi, 1.05):>9}")
PY
