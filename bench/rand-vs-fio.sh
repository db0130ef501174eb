#!/usr/bin/env bash
# rand-vs-fio.sh: random 4 KiB O_DIRECT IOPS, p99 latency and CPU cost of
# ioswarm against fio, on the same files, at 1, 4, 8 and 16 threads.
#
# Usage: bench/rand-vs-fio.sh [PARENT_DIR]      (default /var/tmp; run as root)
#   TOTAL_MIB=512  aggregate file size in MiB, divided among the threads
#   THREADS="1 4 8 16"  ROUNDS=3  IOSWARM=/path/to/ioswarm (built if unset)
#
# Like with like:
# - Workload: each thread has its own file of TOTAL_MIB/threads MiB and does
#   one 4 KiB operation per block of it (file size / 4 KiB ops) at uniformly
#   random aligned offsets, with replacement: fio's ioengine=psync (pread/
#   pwrite, queue depth 1), direct=1, randrepeat=0, norandommap, size= the
#   file; ioswarm's randwrite then randread with --direct. Writes end with
#   fsync in both (ioswarm's default, fio's end_fsync=1).
# - Same files: ioswarm writes the files (its untimed prefill) and keeps
#   them (--keep); fio then runs on exactly those files, one job per file
#   (a job file with one section per thread). fallocate=none so fio never
#   touches the layout.
# - Order: the tools alternate, and the order flips every round (round 1
#   ioswarm then fio, round 2 fio then ioswarm on the files of round 1, ...),
#   so neither always runs on the fresher files or the warmer machine; the
#   figures are medians over the rounds.
# - IOPS: ioswarm's is operations / (latest thread end - earliest thread
#   start), opens, fsync and closes included. fio's is the group's iops with
#   group_reporting: all operations / the longest job's runtime (ms), end_fsync
#   included, which excludes thread start skew and so never favours ioswarm.
# - p99: ioswarm's from its merged per-op histogram (buckets under 1% wide),
#   fio's clat 99th percentile (for psync the time of the pread/pwrite call).
# - CPU: user + system seconds of the whole process tree from /usr/bin/time
#   (ioswarm: the coordinator and its rank process; fio: fio and its job
#   processes) per million operations of both phases. ioswarm's count also
#   holds its process start-up and its prefill of the files, which fio does
#   not do here (about 0.1 s a run), so the comparison leans against ioswarm.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

PARENT=${1:-/var/tmp}
TOTAL_MIB=${TOTAL_MIB:-512}
THREADS=${THREADS:-"1 4 8 16"}
ROUNDS=${ROUNDS:-3}

need_tools
for t in $THREADS; do
	[ $((TOTAL_MIB % t)) = 0 ] || die "TOTAL_MIB=$TOTAL_MIB does not divide among $t threads"
done
need_space "$PARENT" $((2 * TOTAL_MIB + 256))
make_work "$PARENT"
build_ioswarm "$WORK"
RESULTS=$WORK/results.tsv

# run_ioswarm T ROUND: randwrite then randread on new files, kept; prints
# the job directory holding them and appends one result line.
run_ioswarm() {
	local t=$1 round=$2 out=$WORK/ioswarm-$1-$2.json
	/usr/bin/time -f '%U %S' -o "$WORK/time" "$IOSWARM" run --dir "$WORK" \
		--phases randwrite,randread --direct --threads "$t" --total "${TOTAL_MIB}MiB" \
		--keep --quiet --format json --output "$out" >/dev/null ||
		die "ioswarm failed at $t threads (see $out)"
	python3 - "$out" "$t" "$round" "$(cpu_seconds "$WORK/time")" >>"$RESULTS" <<'PY'
import json, sys
path, t, rnd, cpu = sys.argv[1:]
job = json.load(open(path))
ph = {p["name"]: p for p in job["phases"]}
w, r = ph["randwrite"], ph["randread"]
print("ioswarm", t, rnd, w["iops"], r["iops"], w["latency_ns"]["p99"], r["latency_ns"]["p99"],
      cpu, w["ops"] + r["ops"], sep="\t")
PY
	echo "$WORK/ioswarm-$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["job_id"])' "$out")"
}

# fio_jobfile T DIR: one randwrite section per file, then (after a
# stonewall, so in a second group) one randread section per file.
fio_jobfile() {
	local t=$1 dir=$2 i
	printf '[global]\nioengine=psync\ndirect=1\nbs=4k\nsize=%dm\nrandrepeat=0\nnorandommap\n' $((TOTAL_MIB / t))
	printf 'fallocate=none\ngroup_reporting\n'
	for ((i = 0; i < t; i++)); do
		printf '[w%d]\nrw=randwrite\nend_fsync=1\nfilename=%s/t%d.dat\n' "$i" "$dir" "$i"
	done
	for ((i = 0; i < t; i++)); do
		printf '[r%d]\nrw=randread\nfilename=%s/t%d.dat\n' "$i" "$dir" "$i"
		[ "$i" = 0 ] && printf 'stonewall\n'
	done
	return 0
}

# run_fio T ROUND DIR: the same phases on ioswarm's files in DIR.
run_fio() {
	local t=$1 round=$2 dir=$3 out=$WORK/fio-$1-$2.json
	fio_jobfile "$t" "$dir" >"$WORK/job.fio"
	/usr/bin/time -f '%U %S' -o "$WORK/time" fio --output-format=json --output="$out" "$WORK/job.fio" \
		>/dev/null || die "fio failed at $t threads (see $out)"
	python3 - "$out" "$t" "$round" "$(cpu_seconds "$WORK/time")" >>"$RESULTS" <<'PY'
import json, sys
path, t, rnd, cpu = sys.argv[1:]
jobs = json.load(open(path))["jobs"]
w = next(j for j in jobs if j["groupid"] == 0)["write"]
r = next(j for j in jobs if j["groupid"] == 1)["read"]
p99 = lambda d: d["clat_ns"]["percentile"]["99.000000"]
print("fio", t, rnd, w["iops"], r["iops"], p99(w), p99(r), cpu, w["total_ios"] + r["total_ios"], sep="\t")
PY
}

declare -A files
echo "rand-vs-fio: ${TOTAL_MIB} MiB in all, threads $THREADS, $ROUNDS rounds, in $WORK" >&2
for ((round = 1; round <= ROUNDS; round++)); do
	for t in $THREADS; do
		if ((round % 2 == 1)); then
			new=$(run_ioswarm "$t" "$round")
			[ -z "${files[$t]:-}" ] || rm -rf -- "${files[$t]}"
			files[$t]=$new
			run_fio "$t" "$round" "${files[$t]}"
		else
			run_fio "$t" "$round" "${files[$t]}"
			new=$(run_ioswarm "$t" "$round")
			rm -rf -- "${files[$t]}"
			files[$t]=$new
		fi
		tail -n 2 "$RESULTS" | awk -F'\t' '{ printf "  round %s  %2s threads  %-7s  randwrite %7.0f IOPS  randread %7.0f IOPS  cpu %.2f s\n", $3, $2, $1, $4, $5, $8 }' >&2
	done
done

python3 - "$RESULTS" <<'PY'
import statistics as st, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
def med(tool, t, col):
    return st.median(float(r[col]) for r in rows if r[0] == tool and r[1] == t)
def cpu(tool, t):  # CPU seconds per million operations, per run, then the median
    return st.median(float(r[7]) / float(r[8]) * 1e6 for r in rows if r[0] == tool and r[1] == t)
threads = sorted({r[1] for r in rows}, key=int)
n = len({r[2] for r in rows})
print(f"medians of {n} rounds; IOPS, p99 in µs, CPU s per million ops; ratio = ioswarm / fio")
print(f"{'threads':>7} {'phase':>9} | {'IOPS ioswarm':>12} {'fio':>9} {'ratio':>6} | {'p99 ioswarm':>11} {'fio':>8} {'ratio':>6}")
for t in threads:
    for name, icol, pcol in (("randwrite", 3, 5), ("randread", 4, 6)):
        a, b = med("ioswarm", t, icol), med("fio", t, icol)
        pa, pb = med("ioswarm", t, pcol) / 1e3, med("fio", t, pcol) / 1e3
        print(f"{t:>7} {name:>9} | {a:>12.0f} {b:>9.0f} {a / b:>6.3f} | {pa:>11.1f} {pb:>8.1f} {pa / pb:>6.3f}")
print()
print(f"{'threads':>7} | {'CPU s/Mops ioswarm':>18} {'fio':>8} {'ratio':>6}   (both phases, whole process tree)")
for t in threads:
    a, b = cpu("ioswarm", t), cpu("fio", t)
    print(f"{t:>7} | {a:>18.2f} {b:>8.2f} {a / b:>6.3f}")
PY
