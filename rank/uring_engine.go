package rank

import (
	"fmt"
	"runtime"

	"ioswarm/settings"
	"ioswarm/uring"
)

// uringIO is one worker's io_uring state for a phase: its ring and one
// registered buffer per operation it may have in flight, all made before
// the timed window so the loop allocates nothing.
type uringIO struct {
	r     *uring.Ring
	depth int
	bufs  [][]byte // per slot: one block, or for randwrite a pattern period (see bodyWindows)
	fixed bool     // bufs are registered: fixed reads and writes
	start []int64  // per slot: when its operation was submitted
	off   []int64  // per slot: the operation's file offset
	done  []int64  // per slot: bytes of the operation already done (short completions)
	free  []uint16 // slots not in flight
	post  postedAt // when the completions not yet reaped were posted

	// The ring's depth, sampled at every submission: the operations in
	// flight (queued and not yet reaped) counting the one just queued.
	// What the kernel held is the loop's kernelDepth.
	depthSum, depthN int64
	depthMax         int
}

// newUringIO sets up a ring of depth entries with depth buffers of size
// bytes each, registered with the kernel.
func newUringIO(depth int, size int64) (*uringIO, error) {
	r, err := uring.New(uint32(depth))
	if err != nil {
		return nil, err
	}
	r.SetRawEnter(true) // a phase's timed call, see rawcall.go
	bufs, err := alignedBuffers(depth, size)
	if err != nil {
		r.Close()
		return nil, err
	}
	// Registered buffers are pinned, and an unprivileged user's pinned
	// memory is bounded by RLIMIT_MEMLOCK (often 8 MiB): past it, plain
	// reads and writes serve, only dearer by a page mapping per operation.
	fixed := r.RegisterBuffers(bufs) == nil
	u := &uringIO{r: r, depth: depth, bufs: bufs, fixed: fixed, start: make([]int64, depth), off: make([]int64, depth),
		done: make([]int64, depth), free: make([]uint16, 0, depth), post: newPostedAt(depth)}
	u.reset()
	return u, nil
}

func (u *uringIO) reset() {
	u.free = u.free[:0]
	for i := u.depth - 1; i >= 0; i-- {
		u.free = append(u.free, uint16(i))
	}
	u.depthSum, u.depthN, u.depthMax = 0, 0, 0
	_, tail := u.r.Ready()
	u.post.reset(tail)
}

// close tears the ring down (the kernel cancels what is still in flight
// and keeps its own references to registered pages) and frees the buffers.
func (u *uringIO) close() {
	u.r.Close()
	freeBuffers(u.bufs)
}

// uringJob is what one io_uring loop does: total operations of block
// bytes at the offsets next gives, writing or reading src.
type uringJob struct {
	write   bool
	total   int64
	block   int64
	next    func() int64
	windows bool // slot buffers hold a pattern period; an operation uses its offset's window
	stable  bool // block-multiple of the period: only stamps change between records
	untimed bool // after a stonewall, go on untimed to the end (a sequential writer)
	whole   bool // offsets anywhere in a shared file: write each offset's owner's data
	src     source
}

// uringLoop keeps up to u.depth operations in flight until job.total have
// completed, the stonewall ends the timing (and, unless job.untimed, the
// loop), or the phase is stopped. Latency is per operation, from just
// before it was queued to the return of the entry into the kernel that
// posted its completion (postedAt). Every exit waits for the operations
// still in flight, so none outlives the loop and none is counted after
// the timing ended. It returns the operations timed.
func (w *worker) uringLoop(p *phaseParams, fd int, u *uringIO, job uringJob) (int64, error) {
	u.reset()
	// The ring takes submissions from one thread only (see uring.New):
	// the first loop binds it to this one, which the worker keeps for the
	// phase (runWorkers locks it; yields keep it, see account).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := u.r.Bind(); err != nil {
		return 0, fmt.Errorf("%s %s: %w", p.name, job.src.path, err)
	}
	l := ringLoop{w: w, p: p, fd: fd, u: u, job: job, op: ringOp(job.write, u.fixed), timed: true}
	err := l.run()
	if u.depthN > 0 {
		w.rec.DepthMean, w.rec.DepthMax, w.rec.DepthSamples = float64(u.depthSum)/float64(u.depthN), u.depthMax, u.depthN
	}
	l.depth.record(&w.rec)
	return l.timedOps, err
}

// ringOp is the operation a loop submits: fixed where the buffers are
// registered.
func ringOp(write, fixed bool) uint8 {
	switch {
	case write && fixed:
		return uring.OpWriteFixed
	case write:
		return uring.OpWrite
	case fixed:
		return uring.OpReadFixed
	}
	return uring.OpRead
}

// slotBuffer is the buffer slot's operation at off uses: the slot's
// block, or its window of the slot's pattern period.
func slotBuffer(u *uringIO, slot uint16, off int64, job uringJob) []byte {
	b := u.bufs[slot]
	if job.windows {
		at := off % patternPeriod
		return b[at : at+job.block]
	}
	return b[:job.block]
}

// putPattern puts the data for offset off in a write's buffer before it
// is submitted, as the sync engine does before its clock starts.
func (w *worker) putPattern(b []byte, off int64, job uringJob) {
	owner := w.pat.thread
	if job.whole {
		owner = job.src.m.owner(off)
	}
	if job.windows || job.stable {
		w.pat.stampAs(b, off, owner)
		return
	}
	w.pat.fillAs(b, off, owner)
}

// prepareUring gives every worker its ring and buffers for phase p when
// the job uses io_uring, and returns what closes them after the phase.
func (s *state) prepareUring(p *phaseParams) (func(), error) {
	closeAll := func() {
		for _, w := range s.workers {
			if w.uring != nil {
				w.uring.close()
				w.uring = nil
			}
		}
	}
	if p.engine != settings.IOUring {
		return closeAll, nil
	}
	for _, w := range s.workers {
		u, err := newUringIO(p.depth, p.bufferSize())
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("thread %d: %w", w.thread, err)
		}
		for _, b := range u.bufs {
			w.pat.fill(b, 0)
		}
		w.uring = u
	}
	return closeAll, nil
}

// seqJob is a sequential phase's loop on io_uring: the file's records in
// order, up to the depth in flight.
func (w *worker) seqJob(p *phaseParams, write bool, src source) uringJob {
	var next int64
	return uringJob{write: write, total: w.size / p.block, block: p.block, stable: bodyStable(p.block),
		untimed: write, src: src, next: func() int64 { o := next; next += p.block; return src.m.at(o) }}
}
