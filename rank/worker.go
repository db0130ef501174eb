package rank

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"ioswarm/clock"
	"ioswarm/histogram"
	"ioswarm/settings"
	"ioswarm/wire"
)

// worker is one benchmark thread: one file, one descriptor, one buffer.
// Everything it needs is allocated before the timed window opens, so the
// timed loop does no allocation and takes no lock.
type worker struct {
	thread int
	path   string
	size   int64
	pat    *pattern
	// m places the worker's data in its file: the identity in a per-thread
	// file, the thread's segment or records in a shared one.
	m fileMap
	// src is the file the read phases read and the pattern it holds: the
	// worker's own, or with --read-shift another thread's.
	src  source
	hist *histogram.Histogram
	log  opLog
	done atomic.Int64 // bytes completed, read by the progress reporter

	mdPrefix string     // metadata files' names up to their number (see mdPrefix)
	mdDir    *dirHandle // the directory they are in, open from prepare on

	rec      wire.ThreadRecord
	yieldAt  int64          // rank-clock time of the next voluntary yield
	spread   cpuSpread      // the CPU the thread waits for its start on
	uring    *uringIO       // the phase's ring with --engine io_uring; nil for sync
	interval workerInterval // the interval of a random phase it records into
	seen     firstSeen      // where the phase's first-done stop found it
	cpu      cpuMeter       // the thread's CPU time over the phase (IOzone's -+u)
	ownFiles bool           // the thread has a descriptor table of its own (ownfiles.go)
}

// yieldEvery is how often a worker passes through the Go scheduler on its
// own. The runtime's monitor takes the P of any goroutine that has run for
// 10 ms without being rescheduled, and a worker in a loop of system calls
// never is; each take also resets the monitor to polling every 20 µs. On 2
// cores that cost about a fifth more CPU per 4 KiB operation than fio
// (tens of thousands of extra wake-ups a second). A yield of our own,
// outside any latency measurement, keeps the monitor asleep. 8 ms stays
// under the monitor's 10 ms with room for an operation's length; yielding
// more often only costs more (at 16 threads, 5 ms saved 6% of the CPU and
// 8 ms 14%).
const yieldEvery = int64(8 * time.Millisecond)

// phaseParams is what one phase asks of every worker of a rank.
type phaseParams struct {
	name      wire.Phase
	dir       *dirHandle // the job directory: files are opened in it
	block     int64      // bytes per operation
	direct    bool
	osync     bool // O_SYNC on every open (IOzone -o)
	odsync    bool // O_DSYNC on every open (IOzone -+D)
	fsync     bool
	verify    bool
	stonewall int64 // rank-clock deadline after which nothing is timed; 0 = none
	seed      uint64
	stop      *atomic.Bool // set when the phase is abandoned
	locked    bool         // workers run locked to their OS threads
	gate      *startGate   // the rank's threads start their loops together; nil = no gate
	engine    settings.Engine
	// latency, when set (random phases), keeps a latency histogram per
	// latencyStep from intervalStart.
	latency       *latencyStore
	intervalStart int64
	depth         int                // operations in flight per thread with settings.IOUring
	randScope     settings.RandScope // shared files only
	randOrder     settings.RandOrder // "" is settings.Shuffle
	randCall      settings.RandCall  // "" is settings.CallPread
	first         *firstStop         // IOzone's live stonewall; nil = none
	mdSize        int64              // metadata phases: bytes written and read per file
	mdFiles       int                // metadata phases: files per thread
}

// newWorker is thread's worker on the file at path, reading its own file
// until told otherwise (readFrom).
func newWorker(thread int, path string, size int64, pat *pattern) *worker {
	m := fileMap{thread: int64(thread)} // a file of its own
	return &worker{thread: thread, path: path, size: size, pat: pat, m: m,
		src: source{thread: thread, path: path, pat: pat, m: m}}
}

// readFrom makes the read phases read the file of thread from, at path,
// holding pattern pat.
func (w *worker) readFrom(from int, path string, pat *pattern) {
	w.src = source{thread: from, path: path, pat: pat, m: w.m.of(from)}
}

// share puts the worker's data in the shared file at path, placed by m.
func (w *worker) share(path string, m fileMap) {
	w.path, w.m = path, m
	w.src = source{thread: w.thread, path: path, pat: w.pat, m: m}
}

// source is a file to read, the thread that wrote it and where in the
// file that thread's data lies.
type source struct {
	thread int
	path   string
	pat    *pattern
	m      fileMap
}

// check verifies buf as read at file offset off against the pattern of
// the thread whose part holds off.
func (s source) check(buf []byte, off int64) error {
	if !s.m.shared() {
		return s.pat.check(buf, off) // a file of one thread's
	}
	return s.pat.checkAs(buf, off, s.m.owner(off))
}

// readSource is the file a read phase of this worker reads.
func (w *worker) readSource(p *phaseParams) source {
	if p.name.IsRead() {
		return w.src
	}
	return source{thread: w.thread, path: w.path, pat: w.pat, m: w.m}
}

// openError explains a failed open; a rotated read names the writer,
// since a missing file there usually means the nodes do not share --dir.
func (w *worker) openError(src source, err error) error {
	if src.thread != w.thread && errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("open %s (written by thread %d, --read-shift): %w; do all nodes see the same --dir?", src.path, src.thread, err)
	}
	return fmt.Errorf("open %s: %w", src.path, err)
}

var errStopped = errors.New("phase stopped")

func (w *worker) openFlags(p *phaseParams, base int) int {
	// O_NOFOLLOW: a link planted at a thread file's name is refused
	// (ELOOP), never written through.
	f := base | unix.O_CLOEXEC | unix.O_NOFOLLOW
	if p.direct {
		f |= unix.O_DIRECT
	}
	if p.osync {
		f |= unix.O_SYNC
	}
	if p.odsync {
		f |= unix.O_DSYNC
	}
	return f
}

// run executes one phase on this worker's file. buf is block-sized and
// page-aligned.
func (w *worker) run(p *phaseParams, buf []byte) error {
	w.rec = wire.ThreadRecord{Thread: w.thread, File: w.path}
	w.seen = firstSeen{}
	w.cpu = cpuMeter{}
	w.done.Store(0)
	w.yieldAt = clock.Now() + yieldEvery
	var err error
	switch p.name {
	case wire.Write, wire.Rewrite:
		err = w.seqWrite(p, buf)
	case wire.Read, wire.Reread:
		err = w.seqRead(p, buf)
	case wire.RandWrite, wire.RandRead:
		err = w.random(p, buf)
	case wire.MDCreate, wire.MDStat, wire.MDRead, wire.MDDelete:
		err = w.metadata(p, buf)
	default:
		err = fmt.Errorf("unknown phase %q", p.name)
	}
	w.cpu.end(&w.rec)
	if err != nil && err != errStopped {
		return fmt.Errorf("thread %d: %w", w.thread, err)
	}
	return err
}

// closeFile ends a phase's use of fd, inside the timed window, once its
// loop has returned loopErr: fsync first when sync is set and the loop
// succeeded, then close. fd is closed on every path; the first error is
// returned. While the thread is still timed (not stonewalled) the record
// gets how long the fsync and the close took: past a stonewall both are
// untimed, and recorded nowhere (see account).
//
// After an fsync the thread passes through the scheduler before the
// close (yield): the runtime asks a goroutine that ran 10 ms without
// doing so (one in a long fsync) to yield, and with nothing that checks
// for it between the close and the end stamp, a preemption signal could
// land there and hand the locked thread off for milliseconds after the
// close had returned, past the end of the window the kernel saw. Served
// here, the request costs a pass through the scheduler inside the window.
func (w *worker) closeFile(p *phaseParams, fd int, sync bool, loopErr error) error {
	timed := w.rec.EndNS == 0
	err := loopErr
	if err == nil && sync {
		t0 := clock.Now()
		if e := rawFsync(fd); e != nil {
			err = fmt.Errorf("fsync %s: %w", w.path, e)
		}
		if timed {
			w.rec.FsyncNS = clock.Now() - t0
		}
		w.yieldMetered(p)
	}
	if err != nil {
		rawClose(fd)
		return err
	}
	t0 := clock.Now()
	if e := rawClose(fd); e != nil {
		return fmt.Errorf("close %s: %w", w.path, e)
	}
	if timed {
		w.rec.CloseNS = clock.Now() - t0
	}
	return nil
}

// timedEnd closes the timed part of the phase once, at the first call.
func (w *worker) timedEnd(now, bytes, ops int64, stonewalled bool) {
	if w.rec.EndNS != 0 {
		return
	}
	w.rec.EndNS, w.rec.Bytes, w.rec.Ops, w.rec.Stonewalled = now, bytes, ops, stonewalled
}

// account records one timed operation that ran from t0 to t1, after which
// ops operations and bytes bytes were complete, and reports whether timing
// goes on. The rule is the same in every loop: when an operation completes
// past the stonewall and work is left (more), the thread's timed part ends
// at that moment; what follows (a writer's remaining records, fsync, close)
// is untimed and is recorded nowhere, neither in bytes nor in latency. A
// thread whose last operation crosses the deadline simply finishes, timed.
func (w *worker) account(p *phaseParams, t0, t1, ops, bytes int64, more bool) bool {
	w.hist.Record(t1 - t0)
	if p.latency != nil {
		w.recordInterval(p, t1, t1-t0)
	}
	w.log.add(ops, t1)
	if t1 >= w.yieldAt {
		// A worker with a ring yields without letting its thread go:
		// the ring takes submissions from that thread alone.
		w.yieldMetered(p)
		w.yieldAt = t1 + yieldEvery
	}
	if more && p.stonewall != 0 && t1 >= p.stonewall {
		w.timedEnd(t1, bytes, ops, true)
		return false
	}
	return true
}

// unlockable says whether the worker's thread may be let go for a yield:
// not with a ring, whose single issuer must stay the thread it was bound
// to, nor with descriptors that only its thread has.
func (w *worker) unlockable(p *phaseParams) bool { return p.locked && w.uring == nil && !w.ownFiles }

// yield passes through the scheduler between two operations. A goroutine
// locked to its thread cannot do that cheaply: its thread must sleep while
// another wakes to hand the P back, three context switches each time,
// which cost 4-9% more CPU at 16 threads on 2 cores. So the lock is
// dropped for the yield alone and taken again on whatever thread resumes
// the goroutine (nearly always the same one): every system call still
// runs on the thread the goroutine is locked to.
func yield(locked bool) {
	if !locked {
		runtime.Gosched()
		return
	}
	runtime.UnlockOSThread()
	runtime.Gosched()
	runtime.LockOSThread()
}

// bytesAt is how many bytes this worker had completed at rank time at.
func (w *worker) bytesAt(at int64, opBytes int64) int64 {
	if w.rec.EndNS <= at {
		return w.rec.Bytes
	}
	n := w.log.opsAt(at) * opBytes
	if n > w.rec.Bytes {
		n = w.rec.Bytes
	}
	return n
}

// opsAt is how many operations this worker had completed at rank time at.
func (w *worker) opsAt(at int64) int64 {
	if w.rec.EndNS <= at {
		return w.rec.Ops
	}
	return min(w.log.opsAt(at), w.rec.Ops)
}
