package rank

import (
	"errors"
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"

	"ioswarm/clock"
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

// ringLoop is one run of a job on a worker's ring: what has been issued
// and completed, and whether the loop is still timing or winding down.
type ringLoop struct {
	w   *worker
	p   *phaseParams
	fd  int
	u   *uringIO
	job uringJob
	op  uint8

	issued, completed, timedOps int64
	inflight                    int
	timed                       bool  // the stonewall has not yet ended the timing
	stopping                    bool  // issue no more; drain what is in flight
	err                         error // the first error (errStopped may give way to a real one)
	depth                       kernelDepth
}

// run issues and completes until nothing is left in flight.
func (l *ringLoop) run() error {
	for {
		for l.issue() {
		}
		if l.inflight == 0 {
			return l.err
		}
		// Several queued at once (the first fill): handed over in an entry
		// that waits for nothing, then waited for, so the kernel's taking
		// them spans an entry of its own (see kernelDepth.entered).
		if l.u.r.Pending() > 1 {
			if err := l.enter(0); err != nil {
				return err
			}
		}
		if err := l.enter(1); err != nil {
			return err
		}
		if err := l.reap(); err != nil {
			return err
		}
	}
}

// enter submits what is queued and waits for wait completions. The clock
// readings bracket the kernel's entry closely (nothing between them and
// the call checks its stack, see rawcall.go), for the depth the kernel
// held over time and for when the completions it posted became known.
func (l *ringLoop) enter(wait uint32) error {
	r := l.u.r
	before, submitted := r.InKernel(), r.Submitted()
	t0 := clock.Now()
	err := r.SubmitAndWait(wait)
	t1 := clock.Now()
	if err != nil {
		return fmt.Errorf("%s %s: %w", l.p.name, l.job.src.path, err)
	}
	l.depth.entered(t0, t1, before, int(r.Submitted()-submitted), r.InKernel(), wait > 0)
	_, tail := r.Ready()
	l.u.post.entered(tail, t1)
	return nil
}

// issue queues the next operation in a free slot, if work is left, and
// says whether it did.
func (l *ringLoop) issue() bool {
	if l.inflight == l.u.depth || l.issued == l.job.total || l.stopping || l.err != nil {
		return false
	}
	if l.p.stop.Load() {
		l.stopping, l.err = true, errStopped
		return false
	}
	u := l.u
	slot := u.free[len(u.free)-1]
	u.free = u.free[:len(u.free)-1]
	off := l.job.next()
	buf := slotBuffer(u, slot, off, l.job)
	if l.job.write {
		l.w.putPattern(buf, off, l.job)
	}
	u.off[slot], u.done[slot] = off, 0
	u.start[slot] = clock.Now()
	u.r.Prepare(l.op, l.fd, slot, buf, off, uint64(slot))
	l.inflight++
	l.issued++
	u.depthSum += int64(l.inflight)
	u.depthN++
	u.depthMax = max(u.depthMax, l.inflight)
	return true
}

// reap completes every completion ready, each timed at the return of the
// entry that posted it. Each completion's slot goes back to the device at
// once, not when the whole batch has been looked at: refilled in bursts,
// the queue drains between them, and the device's own batching then keeps
// the bursts going (half the depth on average, 0.7× fio's IOPS at depth 32
// on one thread). The last of the batch is the exception: its refill goes
// with the wait for the next completion, in the same entry into the
// kernel, at once all the same. Submitted on its own, every batch cost two
// entries, at depth 1 two per operation where fio makes one.
func (l *ringLoop) reap() error {
	head, tail := l.u.r.Ready()
	l.u.post.noticed(tail, clock.Now)
	for ; head != tail; head++ {
		if !l.complete(l.u.r.At(head), l.u.post.at(head)) {
			continue // its slot is still in flight: nothing to refill
		}
		if l.issue() && head+1 != tail {
			if err := l.enter(0); err != nil {
				return err
			}
		}
	}
	l.u.r.Consumed(tail)
	return nil
}

// complete settles one completion known at t1 and says whether its slot
// is free again; a retry or the rest of a short transfer keeps the slot,
// queued again from where it stopped.
func (l *ringLoop) complete(c *uring.CQE, t1 int64) bool {
	u := l.u
	slot := uint16(c.UserData)
	rest := slotBuffer(u, slot, u.off[slot], l.job)[u.done[slot]:]
	switch res := c.Res; {
	case res == -int32(unix.EAGAIN) || res == -int32(unix.EINTR):
		u.r.Prepare(l.op, l.fd, slot, rest, u.off[slot]+u.done[slot], uint64(slot))
		return false
	case res < 0:
		if l.err == nil || errors.Is(l.err, errStopped) {
			l.err = fmt.Errorf("%s %s at offset %d: %w", l.p.name, l.job.src.path, u.off[slot], unix.Errno(-res))
		}
	case res == 0 && !l.job.write:
		if l.err == nil {
			l.err = fmt.Errorf("read %s: file ends early (EOF at offset %d)", l.job.src.path, u.off[slot]+u.done[slot])
		}
	case int(res) < len(rest):
		u.done[slot] += int64(res)
		u.r.Prepare(l.op, l.fd, slot, rest[res:], u.off[slot]+u.done[slot], uint64(slot))
		return false
	default:
		l.completed++
		l.account(slot, t1)
	}
	l.inflight--
	u.free = append(u.free, slot)
	return true
}

// account counts a whole operation in slot, known at t1: its bytes done,
// its data checked on a verified read, and while timing, its latency and
// the stonewall's verdict.
func (l *ringLoop) account(slot uint16, t1 int64) {
	if l.err != nil || l.stopping {
		return
	}
	job, w := l.job, l.w
	w.done.Store(l.completed * job.block)
	if !job.write && l.p.verify {
		buf := slotBuffer(l.u, slot, l.u.off[slot], job)
		if err := job.src.check(buf, l.u.off[slot]); err != nil {
			l.err = fmt.Errorf("verify %s: %w", job.src.path, err)
			return
		}
	}
	if l.timed {
		l.timedOps = l.completed
		l.timed = w.account(l.p, l.u.start[slot], t1, l.completed, l.completed*job.block, l.completed < job.total)
		l.stopping = !l.timed && !job.untimed
	}
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
