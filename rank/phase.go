package rank

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"ioswarm/clock"
	"ioswarm/histogram"
	"ioswarm/wire"
)

// progressEvery is how often a rank reports its running totals during a
// phase. The reporter reads atomics the workers store; it never touches
// their loop.
const progressEvery = time.Second

// runPhase runs every worker through one phase. Buffers, histograms and
// threads are made ready first; then every worker starts on its own at
// req.ReleaseAt on this rank's clock (see awaitRelease).
func (s *state) runPhase(ctx context.Context, req wire.Run) (wire.RunReply, error) {
	if s.dir == nil {
		// Every file of a phase is opened relative to the job directory.
		return wire.RunReply{}, fmt.Errorf("%s: the job directory is not made yet", req.Phase)
	}
	p := s.params(req)
	a := s.takeArmed(req.Phase)
	if a == nil {
		var err error
		if a, err = s.armFor(p); err != nil {
			return wire.RunReply{}, err
		}
	}
	defer a.free()
	bufs := a.bufs
	finished := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			p.stop.Store(true)
		case <-finished:
		}
	}()
	defer close(finished)
	if req.FirstDoneStop {
		run := wire.Stop{Phase: req.Phase, Iteration: req.Iteration}
		p.first = newFirstStop()
		s.stops.begin(run, p.first)
		defer s.stops.end()
		go s.tellStop(run, p.first, finished)
	}
	// The reporter's first note comes a second after this, after the
	// release; a note before it would only say 0 bytes.
	go s.reportProgress(req.Phase, finished)
	go s.mem.watch(p.stop, finished)
	errs, released, ready := s.runWorkers(ctx, p, bufs, req.ReleaseAt)
	if err := s.mem.err(); err != nil {
		return wire.RunReply{}, err
	}
	if released == 0 {
		// No worker reached the release: the phase was abandoned first.
		if err := ctx.Err(); err != nil {
			return wire.RunReply{}, err
		}
	}
	if err := firstError(errs); err != nil {
		return wire.RunReply{}, err
	}
	s.phaseDone(req.Phase)
	reply := s.phaseReply(released)
	reply.ReadyAt = ready
	reply.ClientCache = s.clientCacheAfter(ctx, req.Phase)
	return reply, nil
}

// params is what the phase req asks of every worker.
func (s *state) params(req wire.Run) *phaseParams {
	p := &phaseParams{
		name: req.Phase, block: s.job.Block, direct: s.job.Direct, osync: s.job.OSync, odsync: s.job.ODSync, fsync: s.job.Fsync,
		verify: s.job.Verify, seed: s.job.Seed ^ uint64(req.Iteration+1)*0x9e3779b97f4a7c15,
		stop: new(atomic.Bool), locked: true, dir: s.dir,
	}
	if req.Phase == wire.RandWrite || req.Phase == wire.RandRead {
		p.block = s.job.RandBlock
	}
	p.randScope, p.randOrder, p.randCall = s.job.RandScope, s.job.RandOrder, s.job.RandCall
	if req.Phase.IsMeta() {
		// The buffer holds a file's data and, in its second half, the
		// copy a verified read is checked against (see metadata).
		p.mdSize, p.mdFiles = s.job.MDSize, s.job.FilesPerThread
		p.block = max(4096, (2*s.job.MDSize+4095)/4096*4096)
	}
	p.engine, p.depth = s.job.Engine, max(s.job.IODepth, 1)
	p.gate = &startGate{threads: int64(len(s.workers)), until: req.ReleaseAt + gateMax}
	if req.StonewallNS > 0 {
		p.stonewall = req.ReleaseAt + req.StonewallNS
	}
	if req.Phase.IsRandom() {
		p.latency, p.intervalStart = &s.latency, req.ReleaseAt
	}
	return p
}

// runWorkers runs one goroutine per worker, each waiting on its own thread
// for rank time at (see awaitRelease) before it runs the phase, and
// returns once all are done: their errors, the rank's release moment (the
// earliest clock reading at or past at that any worker took, 0 when none
// was released), and when the last worker began to wait for it.
func (s *state) runWorkers(ctx context.Context, p *phaseParams, bufs [][]byte, at int64) ([]error, int64, int64) {
	errs := make([]error, len(s.workers))
	seen := make([]int64, len(s.workers))
	waiting := make([]int64, len(s.workers))
	var wg sync.WaitGroup
	for i, w := range s.workers {
		// Where the process is held on its threads' CPUs (bind.go),
		// thread i's is the i-th of those; else its slot's of all.
		slot := s.setup.CPUSlot + i
		if s.bound.on {
			slot = i
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			offMainThread(func() { waiting[i], seen[i], errs[i] = w.runLocked(ctx, p, slot, bufs[i], at) })
		}()
	}
	wg.Wait()
	var released int64
	for _, t := range seen {
		if t != 0 && (released == 0 || t < released) {
			released = t
		}
	}
	var ready int64
	if len(waiting) > 0 {
		ready = slices.Max(waiting)
	}
	return errs, released, ready
}

// runLocked is a worker's part of a phase, on the OS thread its goroutine
// is locked to (one per benchmark thread, as IOzone's or fio's: a blocking
// write holds its own thread): it waits on the thread's CPU slot for rank
// time at, then runs the phase. It returns when it began to wait, the
// clock reading at its release (0 when stopped before it) and its error.
// A sync engine's thread takes descriptors of its own (ownfiles.go) and
// then keeps the lock, so that the thread ends with the goroutine; else
// the lock is let go at the end, and between operations only to pass
// through the scheduler (see yield).
func (w *worker) runLocked(ctx context.Context, p *phaseParams, slot int, buf []byte, at int64) (waiting, released int64, err error) {
	w.ownFiles = w.uring == nil && ownDescriptors()
	if !w.ownFiles {
		defer runtime.UnlockOSThread()
	}
	// Released before the thread's start (beginTimed); here too, for a
	// thread stopped before it.
	w.spread.hold(slot)
	defer w.spread.release()
	waiting = clock.Now()
	// The pass through the scheduler that serves a request to yield made
	// during the wait (the runtime asks one of a goroutine that ran 10 ms
	// without passing through it) comes before the spin, while no thread
	// of the phase runs yet: served later, inside the window, it handed
	// the locked thread off for milliseconds. The goroutine may come back
	// on another thread, so the hold is let go before and taken again
	// after.
	var pass func()
	if w.unlockable(p) {
		pass = func() {
			w.spread.release()
			yield(true)
			w.spread.hold(slot)
		}
	}
	now, ok := awaitRelease(at, p.stop, pass)
	if !ok {
		if err := ctx.Err(); err != nil {
			return waiting, 0, err
		}
		return waiting, 0, errStopped
	}
	if err := w.run(p, buf); err != nil {
		p.stop.Store(true)
		return waiting, now, err
	}
	return waiting, now, nil
}

// firstError prefers a thread's real failure over the errStopped of the
// threads that were stopped because of it.
func firstError(errs []error) error {
	var stopped error
	for _, err := range errs {
		if err == nil {
			continue
		}
		if errors.Is(err, errStopped) || errors.Is(err, context.Canceled) {
			stopped = err
			continue
		}
		return err
	}
	if stopped != nil {
		return fmt.Errorf("phase abandoned: %w", stopped)
	}
	return nil
}

func (s *state) phaseReply(released int64) wire.RunReply {
	merged := histogram.New()
	reply := wire.RunReply{ReleasedAt: released, Threads: make([]wire.ThreadRecord, len(s.workers))}
	for i, w := range s.workers {
		merged.Merge(w.hist)
		reply.Threads[i] = w.rec
	}
	reply.Histogram = merged.Sparse()
	reply.Intervals = s.intervalReply()
	return reply
}

func (s *state) reportProgress(phase wire.Phase, finished <-chan struct{}) {
	if s.member == nil {
		return // driven without a session (a test): nobody to tell
	}
	every := s.progressEvery
	if every <= 0 {
		every = progressEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-finished:
			return
		case <-t.C:
			var b int64
			for _, w := range s.workers {
				b += w.done.Load()
			}
			// Best effort: a full queue or a closing session only
			// loses a progress line.
			_ = s.member.Notify(wire.KindProgress, wire.Progress{Phase: phase, Bytes: b})
		}
	}
}

// firstDone answers how many bytes every worker had completed at rank time at.
func (s *state) firstDone(req wire.FirstDone, opBytes int64) wire.FirstDoneReply {
	out := wire.FirstDoneReply{Bytes: make([]int64, len(s.workers)), Ops: make([]int64, len(s.workers))}
	for i, w := range s.workers {
		out.Bytes[i] = w.bytesAt(req.At, opBytes)
		out.Ops[i] = w.opsAt(req.At)
	}
	return out
}
