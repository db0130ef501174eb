package rank

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The timed system calls of a phase (a record's read or write, fsync,
// close, a metadata call) go straight to the kernel with RawSyscall, not
// through the Go runtime's syscall entry and exit. On the way out of a
// call the runtime must settle with its monitor thread, which looks at
// every thread in a call and may take its P; when the CPUs are
// oversubscribed that monitor is itself often preempted mid-look, and the
// thread coming back waits for it, asleep: 3-4 ms after one call in ten
// in a loop of 20 ms calls beside three busy processes on 2 cores (Go
// 1.26), and 3.8 ms after an fsync in a traced run. It lands between the
// call's return and our clock reading: at 8 threads of 4 KiB random
// writes on 2 cores (in memory) ioswarm's p99 was 120-205 µs against
// fio's 9-10 µs; with raw calls it is 6.7-7.3 µs.
//
// A raw call keeps its P while it blocks, which is safe here because:
//   - every worker has a P of its own, and the rank two spare for its
//     session (ensureProcs), so nothing waits for the P a call holds;
//   - the collector is off while a phase is armed (holdGC): a collection
//     stops the world, and a stop would wait for the slowest call in
//     flight, heartbeats included, for as long as a storage server takes
//     to answer;
//   - a worker passes through the scheduler every few ms between calls
//     (yield), so the monitor has no reason to preempt it; a call longer
//     than 10 ms may still get one preemption signal, as it would through
//     the runtime's path: it comes back from a wait interrupted by it with
//     EINTR, which every caller retries, or is restarted by the kernel.
//
// The raw calls, and writeAll and readAll around them, are nosplit: they
// never check their stack, so a goroutine the runtime asked to yield during
// a long call (it ran 10 ms without passing through the scheduler) does
// not yield between the call and the clock reading after it, nor between
// a reading and the call it times: a locked thread's hand-off took
// milliseconds there on a busy CPU. It yields at the next function that
// checks, outside the stamps (clock.Now is such a leaf too).

// rawErr is errno as an error, nil for 0.
//
//go:nosplit
func rawErr(e unix.Errno) error {
	if e != 0 {
		return e
	}
	return nil
}

//go:nosplit
func rawPwrite(fd int, b []byte, off int64) (int, error) {
	n, _, e := unix.RawSyscall6(unix.SYS_PWRITE64, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(off), 0, 0)
	return int(n), rawErr(e)
}

//go:nosplit
func rawPread(fd int, b []byte, off int64) (int, error) {
	n, _, e := unix.RawSyscall6(unix.SYS_PREAD64, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(off), 0, 0)
	return int(n), rawErr(e)
}

// rawSeekWrite and rawSeekRead reach off as IOzone's random tests do,
// lseek(2) and then write(2) or read(2) (--rand-call lseek): where the page
// cache serves the operation, the second call costs about a seventh of
// its rate (4 KiB reads), and an IOzone figure counts it. Both go through
// RawSyscall6, as rawPread does: the three-argument RawSyscall is one
// more call on the way to it, a share of the wrappers' cost that showed
// in a profile of cached 4 KiB reads.
//
//go:nosplit
func rawSeekWrite(fd int, b []byte, off int64) (int, error) {
	if _, _, e := unix.RawSyscall6(unix.SYS_LSEEK, uintptr(fd), uintptr(off), uintptr(unix.SEEK_SET), 0, 0, 0); e != 0 {
		return 0, rawErr(e)
	}
	n, _, e := unix.RawSyscall6(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), 0, 0, 0)
	return int(n), rawErr(e)
}

//go:nosplit
func rawSeekRead(fd int, b []byte, off int64) (int, error) {
	if _, _, e := unix.RawSyscall6(unix.SYS_LSEEK, uintptr(fd), uintptr(off), uintptr(unix.SEEK_SET), 0, 0, 0); e != 0 {
		return 0, rawErr(e)
	}
	n, _, e := unix.RawSyscall6(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), 0, 0, 0)
	return int(n), rawErr(e)
}

// rawFsync asks again after EINTR: a signal may cut the wait short on a
// filesystem whose waits it interrupts (FUSE), and fsync is safe to repeat.
//
//go:nosplit
func rawFsync(fd int) error {
	for {
		_, _, e := unix.RawSyscall(unix.SYS_FSYNC, uintptr(fd), 0, 0)
		if e != unix.EINTR {
			return rawErr(e)
		}
	}
}

// rawOpenat opens the NUL-terminated name relative to dirfd, asking again
// after EINTR: a signal may cut an open short on FUSE and NFS, and an open
// that returned EINTR has opened nothing.
//
//go:nosplit
func rawOpenat(dirfd int, name []byte, flags int, mode uint32) (int, error) {
	for {
		fd, _, e := unix.RawSyscall6(unix.SYS_OPENAT, uintptr(dirfd), uintptr(unsafe.Pointer(unsafe.SliceData(name))), uintptr(flags), uintptr(mode), 0, 0)
		if e != unix.EINTR {
			if e != 0 {
				return -1, rawErr(e)
			}
			return int(fd), nil
		}
	}
}

// rawClose closes fd once: a close interrupted by a signal has still
// released the descriptor (Linux), so EINTR is not retried.
//
//go:nosplit
func rawClose(fd int) error {
	_, _, e := unix.RawSyscall(unix.SYS_CLOSE, uintptr(fd), 0, 0)
	if e == unix.EINTR {
		return nil
	}
	return rawErr(e)
}

// gcHeadroom is how much the Go heap may grow while the collector is held
// off before it runs anyway: a quarter of the node's memory, at least 256
// MiB. Garbage is a few KiB a phase; what grows is live: a random phase
// keeps its latency per second, merged over the rank's threads and sparse
// (latencyStore: tens of KiB a second at most), which the collector could
// not free anyway.
// Against a limit that the live heap reaches it would run again and
// again, each time stopping the world, so the limit is only a backstop
// against a fault, far above any phase's needs.
func gcHeadroom() int64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 256 << 20
	}
	return max(256<<20, int64(si.Totalram)*int64(si.Unit)/4)
}

// gcHold is the collector's settings from before a phase was armed.
type gcHold struct {
	held    bool // false: nothing was changed, nothing to restore
	percent int
	limit   int64
}

// holdGC turns the collector off (see the raw calls above), with a memory
// limit gcHeadroom above what the runtime holds now as the backstop, and
// returns what restores it.
func holdGC() gcHold {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	used := int64(0)
	if s[0].Value.Kind() == metrics.KindUint64 && s[1].Value.Kind() == metrics.KindUint64 {
		used = int64(s[0].Value.Uint64() - s[1].Value.Uint64())
	}
	limit := debug.SetMemoryLimit(-1)
	h := gcHold{held: true, percent: debug.SetGCPercent(-1), limit: limit}
	debug.SetMemoryLimit(min(used+gcHeadroom(), math.MaxInt64))
	return h
}

// release restores the collector as it was before holdGC.
func (h gcHold) release() {
	if !h.held {
		return
	}
	debug.SetGCPercent(h.percent)
	debug.SetMemoryLimit(h.limit)
}
