# shellcheck shell=bash
# apt-wait.sh, sourced by the scripts that install system packages: one
# apt-get that waits for another installation to finish.
#
# On a freshly booted machine unattended upgrades (or another install) hold
# the apt and dpkg locks for minutes; apt-get fails at once on the lists lock
# and, after its own short wait, on dpkg's. apt_waiting retries while a lock
# is held, up to IOSWARM_TEST_APT_LOCK_WAIT seconds (default 900) counted from
# when this file was sourced, then stops naming the holder.
apt_lock_wait=${IOSWARM_TEST_APT_LOCK_WAIT:-900}
apt_deadline=$((SECONDS + apt_lock_wait))
apt_lock_msg='Could not get lock|Unable to acquire the dpkg frontend lock|Unable to lock'
apt_lock_files=(/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock)

# apt_lock_holder prints "PID (COMMAND) on FILE" of a process holding one of
# apt_lock_files, or nothing. apt and dpkg take fcntl locks, which /proc/locks lists
# by inode; apt-get itself says nothing while it waits for dpkg's lock.
apt_lock_holder() {
	local f ino pid
	for f in "${apt_lock_files[@]}"; do
		ino=$(stat -c %i "$f" 2>/dev/null) || continue
		pid=$(awk -v ino="$ino" '{ n = split($6, id, ":"); if (id[n] == ino) { print $5; exit } }' /proc/locks)
		if [ -n "$pid" ]; then
			echo "$pid ($(cat "/proc/$pid/comm" 2>/dev/null || echo gone)) on $f"
			return
		fi
	done
}

# apt_waiting ARGS: apt-get ARGS (stdout discarded), retried while an apt or
# dpkg lock is held by another process and the deadline has not passed.
# Any other failure prints apt-get's own error and returns its status.
apt_waiting() {
	local err rc left said_at=-60 holder
	err=$(mktemp)
	while :; do
		holder=$(apt_lock_holder)
		if [ -n "$holder" ] && ((SECONDS >= said_at + 60)); then
			echo "apt-get $1: waiting up to $((apt_deadline - SECONDS))s for another installation:" \
				"the lock is held by pid $holder" >&2
			said_at=$SECONDS
		fi
		left=$((apt_deadline - SECONDS))
		((left > 0)) || left=1
		rc=0
		apt-get -o DPkg::Lock::Timeout="$left" "$@" >/dev/null 2>"$err" || rc=$?
		if [ "$rc" = 0 ]; then
			rm -f "$err"
			return 0
		fi
		if ! grep -qE "$apt_lock_msg" "$err"; then
			cat "$err" >&2
			rm -f "$err"
			return "$rc"
		fi
		if ((SECONDS >= apt_deadline)); then
			echo "apt-get $1 still could not take the apt/dpkg lock after ${apt_lock_wait}s" \
				"(set IOSWARM_TEST_APT_LOCK_WAIT to wait longer): $(grep -m1 -E "$apt_lock_msg" "$err")" >&2
			rm -f "$err"
			return 100
		fi
		if ((SECONDS >= said_at + 60)); then
			echo "waiting for the apt/dpkg lock ($((apt_deadline - SECONDS))s left):" \
				"$(grep -m1 -E "$apt_lock_msg" "$err")" >&2
			said_at=$SECONDS
		fi
		sleep 5
	done
}
