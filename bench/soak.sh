#!/usr/bin/env bash
# Soak: many consecutive short runs, alternating the local and SSH launchers
# and fault-free runs with faulty ones, on a namespaced 4-node cluster. It
# counts hangs (a run still going after its limit), leftovers (an ioswarm
# process still alive, or a job directory still present, after a run) and
# reports the spread of the fault-free figures. Not part of the test suite.
#
#   bash bench/soak.sh [RUNS]      (root; default 100 runs)
#   SOAK_DROP_CACHES=off leaves the page cache alone, for when other
#   measurements share the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-100}
[ "$(id -u)" = 0 ] || { echo "soak: needs root (namespaces)" >&2; exit 1; }

work=$(mktemp -d /var/tmp/ioswarm-soak-XXXXXX)
cl=$(mktemp -d /tmp/iosoak-XXXXXX)
data=$work/data
mkdir -p "$data"
cleanup() {
	bash test/cluster/cluster.sh down "$cl" >/dev/null 2>&1 || true
	rm -rf "$work" "$cl"
}
trap cleanup EXIT

CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$work/ioswarm" .
bin=$work/ioswarm
bash test/cluster/cluster.sh up "$cl" 4 "so$$-" | tail -1
ssh_args=(--hosts "$cl/hosts" --ssh-config "$cl/ssh_config" --identity "$cl/id_ed25519")

# ioswarm_pids lists live processes of this build: the coordinator, local
# ranks, and the ranks on the nodes (their copy lives in each node's cache).
ioswarm_pids() {
	local p exe state
	for p in /proc/[0-9]*; do
		exe=$(readlink "$p/exe" 2>/dev/null) || continue
		case $exe in
		"$bin" | */.cache/ioswarm/*/ioswarm) ;;
		*) continue ;;
		esac
		state=$(sed 's/.*) //' "$p/stat" 2>/dev/null | cut -c1) || continue
		[ "$state" = Z ] || echo "${p#/proc/}"
	done
}

# rank_pid prints the PID of one running rank process (rank 1), if any.
rank_pid() {
	local p
	for p in $(ioswarm_pids); do
		if tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q -- ' rank --rank 1 '; then
			echo "$p"
			return
		fi
	done
}

hangs=0 leftovers=0 failures_expected=0 failures_unexpected=0
declare -a figures=()
declare -A faulted=()
for ((i = 1; i <= runs; i++)); do
	if ((i % 2)); then launcher=local; else launcher=ssh; fi
	# Faults follow i/2, launchers i%2, so both launchers get every fault.
	case $(((i / 2) % 8)) in
	1) fault=kill-rank ;;
	3) fault=sigint ;;
	5) if [ "$launcher" = ssh ]; then fault=link-down; else fault=sigterm; fi ;;
	7) fault=sigterm ;;
	*) fault=none ;;
	esac
	args=(run --threads 4 --dir "$data" --total 64MiB --block 1MiB --quiet --output "$work/r.json" --heartbeat-timeout 3s --drop-caches "${SOAK_DROP_CACHES:-auto}")
	if [ "$launcher" = ssh ]; then args+=("${ssh_args[@]}"); else args+=(--local-ranks 2); fi
	if [ "$fault" != none ]; then args+=(--iterations 1000); fi
	rm -f "$work/r.json"
	bash test/cluster/cluster.sh head "$cl" "$bin" "${args[@]}" >/dev/null 2>"$work/err" &
	pid=$!
	if [ "$fault" != none ]; then
		for _ in $(seq 200); do
			[ -n "$(ls "$data")" ] && break
			sleep 0.05
		done
		sleep 0.5
		case $fault in
		kill-rank) r=$(rank_pid); [ -n "$r" ] && kill -KILL "$r" ;;
		sigint) kill -INT "$pid" 2>/dev/null || true ;;
		sigterm) kill -TERM "$pid" 2>/dev/null || true ;;
		link-down) bash test/cluster/cluster.sh link "$cl" node2 down ;;
		esac
	fi
	# A run that outlives 60 s is a hang.
	code=0
	for ((w = 0; w < 600; w++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		hangs=$((hangs + 1))
		echo "run $i ($launcher, $fault): HANG"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" || code=$?
	[ "$fault" = link-down ] && bash test/cluster/cluster.sh link "$cl" node2 up
	sleep 0.2
	left=$(ioswarm_pids | tr '\n' ' ')
	files=$(ls "$data")
	if [ -n "$left" ] || [ -n "$files" ]; then
		leftovers=$((leftovers + 1))
		echo "run $i ($launcher, $fault): LEFTOVER processes [$left] files [$files]"
		for p in $left; do kill -KILL "$p" 2>/dev/null || true; done
		rm -rf "${data:?}"/ioswarm-*
	fi
	if [ "$fault" = none ]; then
		if [ "$code" -ne 0 ]; then
			failures_unexpected=$((failures_unexpected + 1))
			echo "run $i ($launcher): failed without a fault: $(tail -1 "$work/err")"
		else
			figures+=("$(python3 -c "import json;j=json.load(open('$work/r.json'));print(' '.join('%.3f'%(p['bandwidth']/1e9) for p in j['phases']))") $launcher")
		fi
	else
		faulted[$launcher]=$((${faulted[$launcher]:-0} + 1))
		if [ "$code" -eq 0 ]; then
			echo "run $i ($launcher, $fault): exit 0 despite the fault"
		else
			failures_expected=$((failures_expected + 1))
		fi
	fi
done

echo
echo "faulty runs by launcher: local ${faulted[local]:-0}, ssh ${faulted[ssh]:-0}"
echo "runs: $runs  hangs: $hangs  leftovers: $leftovers  faulty runs that failed cleanly: $failures_expected  fault-free runs that failed: $failures_unexpected"
printf '%s\n' "${figures[@]}" | python3 -c '
import sys, statistics as st
rows = [l.split() for l in sys.stdin if l.strip()]
for launcher in ("local", "ssh"):
    for i, phase in enumerate(("write", "read")):
        v = sorted(float(r[i]) for r in rows if r[-1] == launcher)
        if v:
            print(f"{launcher:5} {phase:5} GB/s over {len(v)} runs: median {st.median(v):.3f}  min {v[0]:.3f}  max {v[-1]:.3f}")
'
