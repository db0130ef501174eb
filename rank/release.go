package rank

import (
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"ioswarm/clock"
)

// Every worker waits for the release on its own OS thread, so that all of
// a rank's threads start within a scheduling quantum of each other. When
// they blocked on one channel closed at the release, the Go runtime woke
// them one after another (each wake-up a futex hand-off to a locked
// thread), and on 2 cores the first released were opening files before
// the last got a CPU: medians of 5-10 ms of start skew at 8 threads, up
// to 90 ms. Now each thread
// sleeps in the kernel until releaseSpin before the release, then spins on
// the clock, yielding the CPU between readings (as IOR's ranks poll in
// MPI's barrier), so every thread is runnable and looking at the clock
// when the moment comes.
const (
	// releaseSpin is how long before the release a worker stops sleeping
	// and starts spinning: more than a sleeping thread's wake-up latency
	// on a busy node (tens of µs idle, a few ms under load). It bounds
	// the spin: a worker spins at most this long per phase.
	releaseSpin = int64(2 * time.Millisecond)
	// releaseNap is the longest single sleep before the spin; a stopped
	// phase is noticed within it.
	releaseNap = int64(10 * time.Millisecond)
)

// awaitRelease blocks the calling thread until rank-clock time at and
// returns the first clock reading at or past it, or false when stop was
// set first. It must run on the worker's own locked OS thread: the sleep
// and the yields are system calls of that thread. beforeSpin, when not
// nil, runs once as the sleep ends and the spin begins (see runWorkers).
func awaitRelease(at int64, stop *atomic.Bool, beforeSpin func()) (int64, bool) {
	for {
		if stop.Load() {
			return 0, false
		}
		d := at - releaseSpin - clock.Now()
		if d <= 0 {
			break
		}
		ts := unix.NsecToTimespec(min(d, releaseNap))
		_ = unix.Nanosleep(&ts, nil) // EINTR only shortens the nap
	}
	if beforeSpin != nil {
		beforeSpin()
	}
	for {
		now := clock.Now()
		if now >= at {
			return now, true
		}
		if stop.Load() {
			return 0, false
		}
		// sched_yield lets the node's other threads (a rank's other
		// workers, two cores shared by eight) run between readings, so
		// none waits for a spinner's time slice to end. It cannot fail
		// or block, so it needs no hand-off of the thread's P.
		unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
	}
}

// openTimed opens a phase's file, taking the thread's start just before
// the open, then waits at p's gate (when it has one) until the rank's
// other threads have opened theirs. Without the gate, a thread whose loop
// copies to or from the page cache never blocks, and the threads queued
// behind it on its CPU took their starts a time slice later each (1.4-5.5
// ms steps, 4-26 ms at 8 threads on 2 cores).
//
// The open is raw, with its name made before the start (cname): nothing of
// the runtime's (an allocation, a stack's growth, a hand-off on the way
// into the call) runs between the start stamp and the open's entry, the
// moment the filesystem's work begins.
func (w *worker) openTimed(p *phaseParams, path string, flags int, mode uint32) (int, error) {
	dirfd, name, err := p.dir.cname(path)
	w.beginTimed(p)
	fd := -1
	if err == nil {
		fd, err = rawOpenat(dirfd, name, flags, mode)
	}
	if p.gate != nil {
		p.gate.pass(p.stop)
	}
	return fd, err
}

// beginTimed takes the thread's start: it gives the thread back every
// CPU it may use (it waited on one, cpuSpread) and stamps the start, from
// which its CPU time is counted too. The thread passed through the
// scheduler before its spin toward the release (runWorkers), not here: a
// pass here, after the release, handed the goroutine to another of the
// runtime's threads in some phases, which then waited behind the threads
// already running for its turn at the CPU, and the start came up to 26 ms
// late on the test bed.
func (w *worker) beginTimed(p *phaseParams) {
	w.spread.release()
	w.rec.StartNS = clock.Now()
	w.cpu.begin(p.locked, w.rec.StartNS)
}

// gateMax bounds the wait at a startGate, counted from the release: an
// open slower than that (a cold metadata server) holds no other thread.
const gateMax = int64(2 * time.Millisecond)

// startGate holds a rank's threads between their open and their first
// record until all have opened (or failed to), or until the bound, so that
// no thread's record loop takes the CPU from a thread that has not started
// yet. The wait is inside each thread's timed window, after its start.
type startGate struct {
	threads int64        // threads that pass the gate
	until   int64        // rank-clock time after which nobody waits
	opened  atomic.Int64 // threads that have reached the gate
}

// pass counts the caller in and waits, yielding the CPU between looks,
// until every thread is in, the bound passes, or stop is set.
func (g *startGate) pass(stop *atomic.Bool) {
	g.opened.Add(1)
	for g.opened.Load() < g.threads && clock.Now() < g.until && !stop.Load() {
		unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
	}
}
