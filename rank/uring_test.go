package rank

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"

	"ioswarm/settings"
	"ioswarm/uring"
	"ioswarm/wire"
)

// uringWorker is a test worker with a ring of depth slots of size bytes,
// skipping where io_uring is unavailable.
func uringWorker(t *testing.T, w *worker, depth int, size int64) {
	t.Helper()
	u, err := newUringIO(depth, size)
	if errors.Is(err, uring.ErrUnavailable) {
		t.Skipf("io_uring unavailable here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range u.bufs {
		w.pat.fill(b, 0)
	}
	w.uring = u
	t.Cleanup(func() { u.close(); w.uring = nil })
	// The first phase binds the ring to the thread it runs on; the
	// test's later phases must run there too, as a worker's do.
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
}

// refill puts the pattern at offset 0 back in every slot buffer, as each
// phase's prepareUring does: a randwrite's windows rely on it.
func refill(w *worker) {
	for _, b := range w.uring.bufs {
		w.pat.fill(b, 0)
	}
}

func uringPhase(name string, block int64, depth int) *phaseParams {
	p := testParams(wire.Phase(name), block)
	p.engine, p.depth = settings.IOUring, depth
	return p
}

// Every phase on io_uring at several depths: the file comes out whole
// and verifiable, each operation is counted once, and the depth achieved
// is what a file of that many records allows.
func TestUringPhasesAtDepth(t *testing.T) {
	for _, depth := range []int{1, 4, 16} {
		for _, block := range []int64{4096, 64 << 10} {
			w := testWorker(t, 32*block)
			size := block
			uringWorker(t, w, depth, max(size, patternPeriod))
			runPhaseOn(t, w, uringPhase("write", block, depth))
			checkWholeFile(t, w)
			if w.rec.Bytes != w.size || w.rec.Ops != 32 || w.hist.Count() != 32 {
				t.Errorf("depth %d block %d write: %d bytes %d ops %d latencies", depth, block, w.rec.Bytes, w.rec.Ops, w.hist.Count())
			}
			if w.rec.DepthMax != depth || w.rec.DepthMean <= 0 || w.rec.DepthMean > float64(depth) {
				t.Errorf("depth %d: achieved mean %.2f max %d", depth, w.rec.DepthMean, w.rec.DepthMax)
			}
			for _, name := range []string{"read", "randread", "randwrite", "read"} {
				p := uringPhase(name, block, depth)
				p.verify = true
				refill(w)
				runPhaseOn(t, w, p)
				if w.rec.Ops != 32 || w.hist.Count() != 32 {
					t.Errorf("depth %d block %d %s: %d ops, %d latencies", depth, block, name, w.rec.Ops, w.hist.Count())
				}
			}
			checkWholeFile(t, w)
		}
	}
}

// One entry into the kernel per completion wait, the refill of the last
// completion seen riding on it: at depth 1 one per operation, as fio's,
// where submitting each refill on its own made two.
func TestUringEntersOncePerOperationAtDepthOne(t *testing.T) {
	const block, ops = 4096, 64
	w := testWorker(t, ops*block)
	uringWorker(t, w, 1, patternPeriod)
	runPhaseOn(t, w, uringPhase("write", block, 1))
	for _, name := range []string{"read", "randread", "randwrite"} {
		refill(w)
		before := w.uring.r.Enters()
		runPhaseOn(t, w, uringPhase(name, block, 1))
		// A signal may cut a wait short (EINTR, entered again): a few
		// spare entries, far fewer than the ops more of two per op.
		if n := w.uring.r.Enters() - before; w.rec.Ops != ops || n > ops+4 {
			t.Errorf("%s at depth 1: %d entries into the kernel for %d operations", name, n, w.rec.Ops)
		}
	}
}

// A stonewall already past stops readers after their first completion
// and lets the writer finish its file untimed; operations in flight at
// the stonewall are drained, never counted.
func TestUringStonewall(t *testing.T) {
	const block = 4096
	w := testWorker(t, 64*block)
	uringWorker(t, w, 8, patternPeriod)
	p := uringPhase("write", block, 8)
	p.stonewall = pastStonewall
	runPhaseOn(t, w, p)
	if !w.rec.Stonewalled || w.rec.Ops != 1 || w.hist.Count() != 1 {
		t.Errorf("write: %+v with %d latencies, want stonewalled after one op", w.rec, w.hist.Count())
	}
	checkWholeFile(t, w)
	for _, name := range []string{"read", "randread", "randwrite"} {
		p := uringPhase(name, block, 8)
		p.stonewall = pastStonewall
		refill(w)
		runPhaseOn(t, w, p)
		if !w.rec.Stonewalled || w.rec.Ops != 1 || w.hist.Count() != 1 {
			t.Errorf("%s: %+v with %d latencies, want stonewalled after one op", name, w.rec, w.hist.Count())
		}
	}
	checkWholeFile(t, w)
}

// A phase stopped from outside drains what is in flight and says so.
func TestUringStop(t *testing.T) {
	const block = 4096
	w := testWorker(t, 64*block)
	uringWorker(t, w, 8, patternPeriod)
	runPhaseOn(t, w, uringPhase("write", block, 8))
	p := uringPhase("randread", block, 8)
	p.stop.Store(true)
	err := w.run(p, testBuffer(t, w, block))
	if !errors.Is(err, errStopped) {
		t.Errorf("stopped phase: %v, want errStopped", err)
	}
}

// A read past the end of the file is an error naming it, not a hang or a
// short count.
func TestUringShortFile(t *testing.T) {
	const block = 4096
	w := testWorker(t, 16*block)
	uringWorker(t, w, 4, block)
	runPhaseOn(t, w, uringPhase("write", block, 4))
	if err := os.Truncate(w.path, 5*block+100); err != nil {
		t.Fatal(err)
	}
	err := w.run(uringPhase("read", block, 4), testBuffer(t, w, block))
	if err == nil {
		t.Fatal("read of a short file succeeded")
	}
	if !strings.Contains(err.Error(), "file ends early") {
		t.Errorf("short file: %v", err)
	}
}

func TestUringAllocatesNothingPerOperation(t *testing.T) {
	const block = 4096
	w := testWorker(t, 256*block)
	uringWorker(t, w, 8, patternPeriod)
	runPhaseOn(t, w, uringPhase("write", block, 8))
	p := uringPhase("randread", block, 8)
	buf := testBuffer(t, w, block)
	allocs := testing.AllocsPerRun(3, func() {
		if err := w.run(p, buf); err != nil {
			t.Fatal(err)
		}
	})
	// The run's own set-up (a generator, a closure) may allocate a
	// handful; 256 operations must not add one each.
	if allocs > 16 {
		t.Errorf("%v allocations for 256 operations", allocs)
	}
}
