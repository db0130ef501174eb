# Shared by the bench/*-vs-fio.sh scripts; sourced, not run.
#
# Each script compares ioswarm with fio on this machine. Neither is a test:
# they take minutes, need root (cache dropping) and a few GiB of disk, and
# print figures for a human to read.

# die prints its arguments and stops the script.
die() {
	echo "error: $*" >&2
	exit 1
}

# need_tools checks for root, python3 (JSON and medians) and GNU time,
# and installs Debian's fio when it is missing.
need_tools() {
	[ "$(id -u)" = 0 ] || die "run as root: the benchmarks drop the page cache"
	command -v python3 >/dev/null || die "python3 is needed to read JSON results"
	if ! command -v fio >/dev/null || [ ! -x /usr/bin/time ]; then
		echo "installing fio and time from apt ..." >&2
		apt-get update -qq >&2 && apt-get install -y -qq fio time >&2 ||
			die "could not install fio and time with apt-get"
	fi
}

# build_ioswarm sets IOSWARM to a binary: the one named by $IOSWARM, or one
# built from this tree into the work directory.
build_ioswarm() {
	local work=$1
	if [ -n "${IOSWARM:-}" ]; then
		[ -x "$IOSWARM" ] || die "IOSWARM=$IOSWARM is not executable"
		return
	fi
	local root
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	(cd "$root" && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$work/ioswarm" .) || die "go build failed"
	IOSWARM=$work/ioswarm
}

# make_work creates a private work directory under $1 and removes it, and
# everything the tools wrote there, when the script exits for any reason,
# after running $ON_EXIT (for other undoing a script registers).
make_work() {
	local parent=$1
	[ -d "$parent" ] || die "$parent is not a directory"
	WORK=$(mktemp -d "$parent/ioswarm-bench.XXXXXX")
	trap 'rm -rf -- "$WORK"; eval "${ON_EXIT:-}"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# ram_parent MIB sets PARENT to an empty ext4 filesystem of MIB MiB on a
# block device kept in memory, made for this run and undone when the
# script exits: a zram device of its own (hot-added, so a zram device the
# machine already uses is left alone), or, where zram is missing, a loop
# device over a file in /dev/shm.
#
# Why: on this VM's virtual disk the rate of a random-write round swings
# by a third and more from one round to the next (0.64-1.21 of the other
# tool's in the same round), more than the 5% the comparison is about. In
# memory a round costs each tool the CPU of its operations and little
# else, so an engine that spends more per operation than fio shows at
# once, and the device itself is steady enough to decide. Both tools
# write data that does not compress (ioswarm's per-unit random bodies;
# fio's random buffers), so zram stores what each wrote at the same cost.
# A loop device hands every request to a kernel worker, whose scheduling
# on two cores makes it noisier than zram.
ram_parent() {
	local mib=$1 dev id img
	RAM_MNT=$(mktemp -d /tmp/ioswarm-ram.XXXXXX)
	if [ -r /sys/class/zram-control/hot_add ] || modprobe zram 2>/dev/null; then
		id=$(cat /sys/class/zram-control/hot_add) || die "could not add a zram device"
		dev=/dev/zram$id
		ON_EXIT="umount $RAM_MNT 2>/dev/null; echo $id > /sys/class/zram-control/hot_remove; rmdir $RAM_MNT; ${ON_EXIT:-}"
		trap 'eval "${ON_EXIT:-}"' EXIT
		echo lz4 >"/sys/block/zram$id/comp_algorithm" 2>/dev/null || true
		echo "${mib}M" >"/sys/block/zram$id/disksize" || die "could not size $dev to $mib MiB"
	else
		img=$(mktemp /dev/shm/ioswarm-ram.XXXXXX)
		truncate -s "${mib}M" "$img"
		dev=$(losetup -f --show "$img") || {
			rm -f "$img"
			die "could not attach a loop device to $img"
		}
		ON_EXIT="umount $RAM_MNT 2>/dev/null; losetup -d $dev; rm -f $img; rmdir $RAM_MNT; ${ON_EXIT:-}"
		trap 'eval "${ON_EXIT:-}"' EXIT
	fi
	# -m 0: no blocks kept back for root, which on a scratch filesystem
	# only made a run of 2 GiB and more fail its check of free space.
	mkfs.ext4 -q -F -m 0 "$dev" || die "mkfs.ext4 $dev failed"
	mount "$dev" "$RAM_MNT" || die "could not mount $dev on $RAM_MNT"
	echo "in memory: ext4 on $dev ($mib MiB), mounted on $RAM_MNT" >&2
	PARENT=$RAM_MNT
}

# need_space fails early when $1 lacks $2 MiB of free space.
need_space() {
	local free
	free=$(df -Pm "$1" | awk 'NR == 2 { print $4 }')
	[ "$free" -ge "$2" ] || die "$1 has $free MiB free, the benchmark needs $2 MiB"
}

# drop_caches is what ioswarm does before each phase, done for fio.
drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# settle_reporting waits until the kernel has reported no free memory to
# its host for 3 s in a row (at most 60 s), where it does that: a virtual
# machine with free page reporting (virtio-balloon's, or this machine's
# page_reporting module) hands freed pages back to the host, a few seconds
# after they are freed, and the host must fault each one in again on its
# next touch. On this 2-core VM that alone decided a buffered write's rate
# by 4x: IOzone's seeds' write line (8 x 256 MiB with -e) read 2.8-3.3 GB/s
# run straight after the files of the run before were deleted (nothing
# reported in between) and 0.5-0.8 GB/s five seconds later (1.4 GB
# reported), whichever tool ran. After a drop of the page cache the kernel
# reports the freed memory from about 1.4 s on, in bursts about 2 s apart,
# for some 10 s. Waiting for the end puts every command on the same
# footing: every page it takes comes from the host anew, as on a machine
# that has just booted. Where the kernel does no reporting this returns at
# once.
settle_reporting() {
	local f=/sys/module/page_reporting/parameters/reported_kib a b quiet=0 i
	[ -r "$f" ] || return 0
	a=$(cat "$f")
	for ((i = 0; i < 60; i++)); do
		sleep 1
		b=$(cat "$f")
		if [ "$a" = "$b" ]; then
			quiet=$((quiet + 1))
			((quiet < 3)) || return 0
		else
			quiet=0
		fi
		a=$b
	done
	echo "note: the kernel was still reporting free memory to the host after 60 s" >&2
}

# cpu_seconds reads a file written by /usr/bin/time -f '%U %S' and prints
# user + system seconds of the process and every child it waited for.
cpu_seconds() {
	awk 'END { printf "%.3f\n", $1 + $2 }' "$1"
}

# in_turn ROUND FIRST SECOND [ARGS...] runs FIRST then SECOND, each with
# ARGS, in odd rounds and SECOND then FIRST in even ones (A B B A ...), so
# neither tool always runs first on fresh files or a cold machine.
in_turn() {
	local round=$1 first=$2 second=$3
	shift 3
	if ((round % 2)); then
		"$first" "$@"
		"$second" "$@"
	else
		"$second" "$@"
		"$first" "$@"
	fi
}
