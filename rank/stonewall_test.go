package rank

import (
	"testing"

	"ioswarm/wire"
)

// A stonewall already past when the phase starts cuts every loop after its
// first operation: deterministic, with no timing in the test.
const pastStonewall = 1

func TestStonewallWriterFinishesFileUntimed(t *testing.T) {
	for _, block := range []int64{4096, 64 << 10} { // stamp-only refill and full refill
		w := testWorker(t, 16*block)
		p := testParams("write", block)
		p.stonewall = pastStonewall
		runPhaseOn(t, w, p)
		r := w.rec
		if !r.Stonewalled || r.Bytes != block || r.Ops != 1 {
			t.Errorf("block %d: record %+v, want stonewalled after 1 op of %d bytes", block, r, block)
		}
		if r.Bytes >= w.size || r.EndNS <= r.StartNS {
			t.Errorf("block %d: timed bytes %d of %d, start %d end %d", block, r.Bytes, w.size, r.StartNS, r.EndNS)
		}
		// Untimed records are in no figure: not in latency, not in the
		// first-done log.
		if n := w.hist.Count(); n != 1 {
			t.Errorf("block %d: %d latencies recorded, want only the timed one", block, n)
		}
		if got := w.bytesAt(r.EndNS+1e12, block); got != block {
			t.Errorf("block %d: bytes at first-done after the end = %d, want %d", block, got, block)
		}
		if w.log.opsAt(1<<62) != 1 {
			t.Errorf("block %d: first-done log holds %d ops, want 1", block, w.log.opsAt(1<<62))
		}
		checkWholeFile(t, w)
	}
}

func TestStonewallStopsReadersEarly(t *testing.T) {
	for _, phase := range []string{"read", "randread", "randwrite"} {
		const block = 4096
		w := testWorker(t, 32*block)
		runPhaseOn(t, w, testParams("write", block))
		p := testParams(wire.Phase(phase), block)
		p.stonewall = pastStonewall
		runPhaseOn(t, w, p)
		r := w.rec
		if !r.Stonewalled || r.Ops != 1 || r.Bytes != block || w.hist.Count() != 1 {
			t.Errorf("%s: record %+v, %d latencies; want stonewalled after 1 op", phase, r, w.hist.Count())
		}
		if done := w.done.Load(); done != block {
			t.Errorf("%s: %d bytes done, want the loop to stop at %d", phase, done, block)
		}
		checkWholeFile(t, w) // randwrite's one op kept the pattern
	}
}

// With no stonewall, or one that never comes, every op is timed.
func TestNoStonewallTimesEverything(t *testing.T) {
	const block, n = 4096, 32
	w := testWorker(t, n*block)
	for _, phase := range []string{"write", "read", "randwrite", "randread"} {
		for _, wall := range []int64{0, 1 << 62} {
			p := testParams(wire.Phase(phase), block)
			p.stonewall = wall
			runPhaseOn(t, w, p)
			r := w.rec
			if r.Stonewalled || r.Ops != n || r.Bytes != n*block || w.hist.Count() != n {
				t.Errorf("%s stonewall %d: record %+v, %d latencies", phase, wall, r, w.hist.Count())
			}
		}
	}
	checkWholeFile(t, w)
}

// A thread whose last operation crosses the deadline has nothing left to
// cut: it finishes timed, fsync and close included, and is not stonewalled.
func TestStonewallOnLastOpIsNotACut(t *testing.T) {
	const block = 64 << 10
	w := testWorker(t, block)
	p := testParams("write", block)
	p.stonewall = pastStonewall
	runPhaseOn(t, w, p)
	if r := w.rec; r.Stonewalled || r.Bytes != block || r.Ops != 1 {
		t.Fatalf("record %+v, want the whole one-record file timed", r)
	}
}

// Timed operations pass through the scheduler every yieldEvery, counted
// from the operation that crossed the last mark (see yieldEvery).
func TestAccountYieldsOnSchedule(t *testing.T) {
	w := testWorker(t, 4096)
	p := testParams("read", 4096)
	w.log.reset(2, 2)
	w.yieldAt = 1000
	w.account(p, 0, 999, 1, 4096, true)
	if w.yieldAt != 1000 {
		t.Fatalf("yielded before the mark: next at %d", w.yieldAt)
	}
	w.account(p, 0, 1500, 2, 8192, true)
	if w.yieldAt != 1500+yieldEvery {
		t.Fatalf("after the mark the next yield is at %d, want %d", w.yieldAt, 1500+yieldEvery)
	}
}
