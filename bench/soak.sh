#!/usr/bin/env bash
# Soak: many consecutive short runs, alternating the local and SSH launchers
# and fault-free runs with faulty ones, on a namespaced 4-node cluster. Each
# faulty run injects one fault and must end with that fault's exit code. It
# counts hangs (a run still going after its limit), leftovers (an ioswarm
# process, a job directory, a partial cache copy or a node's /tmp copy, or a
# process other than sshd on a node, still there after a run) and wrong exit
# codes, and reports the spread of the fault-free figures. Not part of the
# test suite.
#
#   bash bench/soak.sh [RUNS]      (root; default 100 runs)
#   SOAK_DROP_CACHES=off leaves the page cache alone, for when other
#   measurements share the machine. SOAK_PREFIX names the cluster's
#   namespaces (default so<pid>-), for machines shared with other beds.
#
# Faults (launcher: expected exit code):
#   kill-rank      SIGKILL to rank 1 mid-run                      (both: 1)
#   sigint/sigterm the coordinator interrupted mid-run    (both: 130 / 143)
#   link-down      node2's link down mid-run                        (ssh: 1)
#   nojoin         node2's shell stops itself where it would become the
#                  rank: a rank stopped before its join             (ssh: 1)
#   bashrc-sleep   node3's ~/.bashrc blocks (a hung home); every other time
#                  SIGINT once it blocks, else the probe's deadline
#                                                       (ssh: 130, else 1)
#   endless-copy   node4 without a cached copy fetches it from a server
#                  that streams without end; the copy is cut, refused and
#                  sent over SSH instead                            (ssh: 0)
#   small-fs       --dir on a 16 MiB tmpfs for a 64 MiB job       (local: 2)
#   mem-plan       a node's MemAvailable faked at 1 MiB (test hook) (local: 2)
#   bad-hostfile   a -+m file with a relative work directory        (ssh: 2)
#   fifo-output    --output names a FIFO                          (local: 2)
#   decoy          --reuse latest beside another user's planted job
#                  directories (a copy of a real manifest with a future
#                  mtime, and a FIFO manifest)                    (local: 0)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-100}
[ "$(id -u)" = 0 ] || { echo "soak: needs root (namespaces)" >&2; exit 1; }

work=$(mktemp -d /var/tmp/ioswarm-soak-XXXXXX)
cl=$(mktemp -d /tmp/iosoak-XXXXXX)
data=$work/data
small=$work/small
mkdir -p "$data" "$small"
endless_pid=
cleanup() {
	[ -z "$endless_pid" ] || kill "$endless_pid" 2>/dev/null || true
	umount "$small" 2>/dev/null || true
	bash test/cluster/cluster.sh down "$cl" >/dev/null 2>&1 || true
	rm -rf "$work" "$cl"
}
trap cleanup EXIT

CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$work/ioswarm" .
bin=$work/ioswarm
bash test/cluster/cluster.sh up "$cl" 4 "${SOAK_PREFIX:-so$$-}" | tail -1
# shellcheck source=/dev/null
source "$cl/env"
ssh_args=(--hosts "$cl/hosts" --ssh-config "$cl/ssh_config" --identity "$cl/id_ed25519")
mount -t tmpfs -o size=16m soak-small "$small"
mkfifo "$work/fifo"
# The endless server runs in node4's namespace for the whole soak; only an
# endless-copy run redirects node4's connections to the other nodes and
# the head (but the barrier's fixed port) to it.
nsenter --net="/run/netns/${CLUSTER_PREFIX}n4" python3 bench/soak_endless.py 47999 &
endless_pid=$!
barrier_port=47000

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

# node_strays lists the processes on the nodes other than their sshd
# daemons: a shell or rank a run left behind.
node_strays() {
	local n p cmd
	for n in $CLUSTER_NODES; do
		for p in $(bash test/cluster/cluster.sh procs "$cl" "$n"); do
			[ "$p" = "$(cat "$cl/nodes/$n/sshd.pid" 2>/dev/null)" ] && continue
			cmd=$( (tr '\0' ' ' <"/proc/$p/cmdline") 2>/dev/null) || continue # gone meanwhile
			echo "$n:$p:${cmd:0:60}"
		done
	done
}

# copy_strays lists files in the nodes' caches other than finished copies
# and their stamps, and ioswarm files in the nodes' own /tmp.
copy_strays() {
	find "$cl"/home/node*/.cache/ioswarm -mindepth 2 ! -name ioswarm ! -name 'ioswarm.verified.*' 2>/dev/null || true
	local n
	for n in $CLUSTER_NODES; do
		bash test/cluster/cluster.sh exec "$cl" "$n" sh -c 'ls -d /tmp/ioswarm* 2>/dev/null || true' | sed "s/^/$n:/"
	done
}

all_faults="kill-rank:local kill-rank:ssh sigint:local sigint:ssh sigterm:local link-down:ssh nojoin:ssh"
all_faults+=" bashrc-sleep:ssh endless-copy:ssh small-fs:local mem-plan:local bad-hostfile:ssh fifo-output:local decoy:local"
read -r -a faults <<<"${SOAK_FAULTS:-$all_faults}"
declare -A want=([none]=0 [kill-rank]=1 [sigint]=130 [sigterm]=143 [link-down]=1 [nojoin]=1 [bashrc-sleep]=1
	[endless-copy]=0 [small-fs]=2 [mem-plan]=2 [bad-hostfile]=2 [fifo-output]=2 [decoy]=0)
hangs=0 leftovers=0 wrong=0 bashrc_runs=0
declare -a figures=() sigint_exits=()
declare -A faulted=()
for ((i = 1; i <= runs; i++)); do
	if ((i % 2)); then
		fault=none
		if (((i / 2) % 2)); then launcher=local; else launcher=ssh; fi
	else
		f=${faults[(i / 2 - 1) % ${#faults[@]}]}
		fault=${f%%:*} launcher=${f#*:}
	fi
	expect=${want[$fault]}
	dir=$data
	out=$work/r.json
	args=(--threads 4 --total 64MiB --block 1MiB --quiet --heartbeat-timeout 3s
		--connect-timeout 3s --drop-caches "${SOAK_DROP_CACHES:-auto}")
	pre=()
	signal_at=
	case $fault in
	kill-rank | sigint | sigterm | link-down) args+=(--iterations 1000) ;;
	nojoin)
		# The shell that would exec the rank stops itself first.
		cat >"$cl/home/node2/.bashrc" <<-'RC'
			s=$BASH_EXECUTION_STRING
			case $s in *'exec "$p" "$@"'* | *'exec "$0" "$@"'*)
				s=${s//'exec "$p" "$@"'/'kill -STOP $$; exec "$p" "$@"'}
				s=${s//'exec "$0" "$@"'/'kill -STOP $$; exec "$0" "$@"'}
				eval "$s"
				exit $? ;;
			esac
		RC
		;;
	bashrc-sleep)
		bashrc_runs=$((bashrc_runs + 1))
		touch "$work/hold"
		printf 'touch %s\nwhile [ -e %s ]; do sleep 0.2; done\n' "$work/entered" "$work/hold" >"$cl/home/node3/.bashrc"
		if ((bashrc_runs % 2)); then signal_at=entered expect=130; fi
		;;
	endless-copy)
		rm -rf "$cl"/home/node4/.cache/ioswarm/*/
		nsenter --net="/run/netns/${CLUSTER_PREFIX}n4" iptables -t nat -A OUTPUT -p tcp -d "$CLUSTER_SUBNET" \
			! --dport "$barrier_port" -j REDIRECT --to-ports 47999
		args+=(--listen "$CLUSTER_HEAD_IP:$barrier_port")
		;;
	small-fs) dir=$small ;;
	mem-plan) pre=(env IOSWARM_TEST_MEM_AVAILABLE=1048576) ;;
	bad-hostfile) printf 'node1 %s /usr/bin/iozone\nnode2 relative/dir /usr/bin/iozone\n' "$data" >"$work/clients" ;;
	fifo-output) out=$work/fifo ;;
	decoy)
		# The user's own kept job, then other users' decoys, newer than it.
		bash test/cluster/cluster.sh head "$cl" "$bin" run "${args[@]}" --local-ranks 2 --dir "$data" --keep \
			--phases write >/dev/null 2>"$work/err" || echo "run $i (decoy): the kept run failed: $(tail -1 "$work/err")"
		kept=$(find "$data" -mindepth 1 -maxdepth 1 -name 'ioswarm-*' | head -1)
		mkdir "$data/ioswarm-decoy1" "$data/ioswarm-decoy2"
		cp "$kept/manifest.json" "$data/ioswarm-decoy1/"
		mkfifo "$data/ioswarm-decoy2/manifest.json"
		chown -R 65534:65534 "$data/ioswarm-decoy1" "$data/ioswarm-decoy2"
		touch -h -d '+1 hour' "$data/ioswarm-decoy1/manifest.json" "$data/ioswarm-decoy1" "$data/ioswarm-decoy2"
		args+=(--reuse latest --phases read)
		;;
	esac
	args+=(--output "$out")
	if [ "$fault" = bad-hostfile ]; then
		args+=(--hosts "$work/clients" --ssh-config "$cl/ssh_config" --identity "$cl/id_ed25519")
	elif [ "$launcher" = ssh ]; then
		args+=("${ssh_args[@]}")
	else
		args+=(--local-ranks 2)
	fi
	rm -f "$work/r.json" "$work/entered"
	t0=$EPOCHREALTIME
	bash test/cluster/cluster.sh head "$cl" "${pre[@]}" "$bin" run --dir "$dir" "${args[@]}" >/dev/null 2>"$work/err" &
	pid=$!
	case $fault in
	kill-rank | sigint | sigterm | link-down)
		for _ in $(seq 200); do
			[ -n "$(ls "$data")" ] && break
			sleep 0.05
		done
		sleep 0.5
		;;
	esac
	case $fault in
	kill-rank) r=$(rank_pid); [ -n "$r" ] && kill -KILL "$r" ;;
	sigint) kill -INT "$pid" 2>/dev/null || true ;;
	sigterm) kill -TERM "$pid" 2>/dev/null || true ;;
	link-down) bash test/cluster/cluster.sh link "$cl" node2 down ;;
	bashrc-sleep)
		if [ -n "$signal_at" ]; then
			for _ in $(seq 600); do
				[ -e "$work/entered" ] && break
				sleep 0.05
			done
			sleep 1 # the launch now waits on node3's shell
			ts=$EPOCHREALTIME
			kill -INT "$pid" 2>/dev/null || true
		fi
		;;
	esac
	# A run that outlives 120 s is a hang (a blocked probe ends at 63 s).
	code=0
	for ((w = 0; w < 1200; w++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		hangs=$((hangs + 1))
		echo "run $i ($launcher, $fault): HANG"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" || code=$?
	took=$(python3 -c "print(f'{$EPOCHREALTIME - $t0:.1f}')")
	if [ "$fault" = bashrc-sleep ] && [ -n "$signal_at" ]; then
		sigint_exits+=("$(python3 -c "print(f'{$EPOCHREALTIME - $ts:.1f}')")")
	fi
	# Undo the fault before counting what is left.
	case $fault in
	link-down) bash test/cluster/cluster.sh link "$cl" node2 up ;;
	nojoin) rm -f "$cl/home/node2/.bashrc" ;;
	bashrc-sleep) rm -f "$work/hold" "$cl/home/node3/.bashrc" ;;
	endless-copy) nsenter --net="/run/netns/${CLUSTER_PREFIX}n4" iptables -t nat -F OUTPUT ;;
	decoy) rm -rf "$data/ioswarm-decoy1" "$data/ioswarm-decoy2" ;;
	esac
	if [ "$code" -ne "$expect" ]; then
		wrong=$((wrong + 1))
		echo "run $i ($launcher, $fault): exit $code, want $expect, after ${took}s: $(tail -1 "$work/err")"
	fi
	# Leftovers: give a blocked shell that was just released, and the
	# last processes, a moment to end.
	left='' files='' strays='' copies=''
	for _ in $(seq 50); do
		left=$(ioswarm_pids | tr '\n' ' ')
		files=$(find "$data" "$small" -mindepth 1 -maxdepth 1 -name 'ioswarm-*' | tr '\n' ' ')
		strays=$(node_strays | tr '\n' ' ')
		copies=$(copy_strays | tr '\n' ' ')
		[ -z "$left$files$strays$copies" ] && break
		sleep 0.1
	done
	if [ -n "$left$files$strays$copies" ]; then
		leftovers=$((leftovers + 1))
		echo "run $i ($launcher, $fault): LEFTOVER processes [$left] job dirs [$files] node processes [$strays] copies [$copies]"
		for p in $left; do kill -KILL "$p" 2>/dev/null || true; done
		rm -rf "${data:?}"/ioswarm-* "${small:?}"/ioswarm-*
	fi
	if [ "$fault" = none ]; then
		if [ "$code" -eq 0 ]; then
			figures+=("$(python3 -c "import json;j=json.load(open('$work/r.json'));print(' '.join('%.3f'%(p['bandwidth']/1e9) for p in j['phases']))") $launcher")
		fi
	else
		faulted[$fault]=$((${faulted[$fault]:-0} + 1))
	fi
done

echo
printf 'faulty runs:'
for f in "${!faulted[@]}"; do printf ' %s %d,' "$f" "${faulted[$f]}"; done
echo
echo "runs: $runs  hangs: $hangs  leftovers: $leftovers  wrong exit codes: $wrong"
if ((${#sigint_exits[@]})); then
	echo "SIGINT to exit with node3's login shell blocked (s): ${sigint_exits[*]}"
fi
printf '%s\n' "${figures[@]}" | python3 -c '
import sys, statistics as st
rows = [l.split() for l in sys.stdin if l.strip()]
for launcher in ("local", "ssh"):
    for i, phase in enumerate(("write", "read")):
        v = sorted(float(r[i]) for r in rows if r[-1] == launcher)
        if v:
            print(f"{launcher:5} {phase:5} GB/s over {len(v)} runs: median {st.median(v):.3f}  min {v[0]:.3f}  max {v[-1]:.3f}")
'
