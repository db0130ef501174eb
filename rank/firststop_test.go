package rank

import (
	"path/filepath"
	"sync"
	"testing"

	"ioswarm/histogram"
	"ioswarm/wire"
)

func firstStopParams(phase wire.Phase, block int64) *phaseParams {
	p := testParams(phase, block)
	p.first = newFirstStop()
	return p
}

// The thread that completes its last record first raises the stop and is
// timed whole; a thread that comes to a record boundary after it stops
// there, its fsync and close inside its time, and finishes its file
// untimed.
func TestFirstStopRaisedByFirstDoneStopsTheNext(t *testing.T) {
	const block, n = 4096, 16
	p := firstStopParams("write", block)
	first := testWorker(t, n*block)
	runPhaseOn(t, first, p)
	r := first.rec
	if r.RaisedStopNS == 0 || r.Stonewalled || r.StonewallBytes != n*block || r.StonewallOps != n || r.StonewallEndNS != r.EndNS {
		t.Fatalf("first done: record %+v, want the stop raised and the whole file its xfer", r)
	}
	select {
	case <-p.first.up:
	default:
		t.Fatal("the stop was not raised for the other ranks")
	}
	next := newWorker(1, filepath.Join(t.TempDir(), "t1.dat"), n*block, newPattern(1, 1))
	runPhaseOn(t, next, p)
	r = next.rec
	if !r.Stonewalled || r.RaisedStopNS != 0 || r.StonewallBytes != 0 || r.StonewallOps != 0 {
		t.Errorf("stopped: record %+v, want stonewalled at its first record boundary with nothing counted", r)
	}
	if r.FsyncNS <= 0 || r.StonewallEndNS != r.EndNS || r.UntimedEndNS < r.EndNS {
		t.Errorf("stopped: fsync %d ns, end %d, stonewall end %d, untimed end %d: want the fsync inside its time and the rest after it",
			r.FsyncNS, r.EndNS, r.StonewallEndNS, r.UntimedEndNS)
	}
	checkWholeFile(t, next)
}

// A record that completes while the stop is up is not in the xfer count
// (IOzone takes it back); the last record of a thread raises the stop
// only when no other thread has.
func TestFirstStopCountsOnlyRecordsBeforeIt(t *testing.T) {
	const block = 4096
	w := testWorker(t, 8*block)
	p := firstStopParams("write", block)
	if w.stopAfter(p, 5*block, 5, block, true) || w.seen.ok {
		t.Fatal("stopped with no stop raised")
	}
	p.first.heard()
	if !w.stopAfter(p, 5*block, 5, block, true) || w.seen != (firstSeen{ok: true, bytes: 4 * block, ops: 4}) {
		t.Fatalf("after a record under the stop: seen %+v, want 4 records", w.seen)
	}
	w.seen = firstSeen{}
	if !w.stopAfter(p, 8*block, 8, block, false) || w.rec.RaisedStopNS != 0 || w.seen.bytes != 7*block {
		t.Fatalf("last record under another's stop: seen %+v, raised at %d; want stopped, not raising", w.seen, w.rec.RaisedStopNS)
	}
}

// Threads run together on one rank: exactly one raises the stop, its xfer
// is its whole file; every other thread's xfer falls short of it by a
// record at least, and its time ends after the stop was raised. Which
// thread comes first is the scheduler's business; the test asserts only
// what holds whichever it is.
func TestFirstStopAmongConcurrentThreads(t *testing.T) {
	const block, n, threads = 4096, 64, 3
	for _, phase := range []wire.Phase{"write", "read", "randread", "randwrite"} {
		ws := make([]*worker, threads)
		dir := t.TempDir()
		for i := range ws {
			ws[i] = newWorker(i, filepath.Join(dir, "t"+string(rune('0'+i))+".dat"), n*block, newPattern(1, i))
			if phase != "write" {
				runPhaseOn(t, ws[i], testParams("write", block))
			}
		}
		p := firstStopParams(phase, block)
		var wg sync.WaitGroup
		errs := make([]error, threads)
		for i, w := range ws {
			w.hist = histogram.New()
			buf := testBuffer(t, w, block)
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = w.run(p, buf)
			}()
		}
		wg.Wait()
		var raisers []*worker
		for i, w := range ws {
			if errs[i] != nil {
				t.Fatalf("%s thread %d: %v", phase, i, errs[i])
			}
			if w.rec.RaisedStopNS != 0 {
				raisers = append(raisers, w)
			}
		}
		if len(raisers) != 1 {
			t.Fatalf("%s: %d threads raised the stop, want exactly 1", phase, len(raisers))
		}
		raised := raisers[0].rec.RaisedStopNS
		for i, w := range ws {
			r := w.rec
			switch {
			case w == raisers[0]:
				if r.StonewallBytes != n*block || r.Stonewalled {
					t.Errorf("%s thread %d raised the stop: record %+v, want its whole file", phase, i, r)
				}
			case r.StonewallBytes > (n-1)*block || !r.Stonewalled || r.StonewallEndNS < raised:
				t.Errorf("%s thread %d: xfer %d of %d, end %d, stop raised at %d: want it stopped after the stop",
					phase, i, r.StonewallBytes, n*block, r.StonewallEndNS, raised)
			}
			if phase == "write" {
				checkWholeFile(t, w)
			}
		}
	}
}

// A relayed stop reaches the run it names, also when it came before that
// run began on this rank, and no other run.
func TestStopBoard(t *testing.T) {
	var b stopBoard
	run := wire.Stop{Phase: "write", Iteration: 0}
	b.hear(run) // the word came before the run request
	f := newFirstStop()
	b.begin(run, f)
	if !f.raised.Load() {
		t.Fatal("an early stop was lost")
	}
	b.end()
	next := wire.Stop{Phase: "read", Iteration: 0}
	b.hear(wire.Stop{Phase: "write", Iteration: 0}) // stale: for the run that ended
	g := newFirstStop()
	b.begin(next, g)
	if g.raised.Load() {
		t.Fatal("a stale stop raised the next run's")
	}
	b.hear(next)
	if !g.raised.Load() {
		t.Fatal("a stop during the run was not heard")
	}
}
