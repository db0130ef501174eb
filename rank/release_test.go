package rank

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"ioswarm/barrier"
	"ioswarm/clock"
	"ioswarm/settings"
	"ioswarm/wire"
)

// A release is never early, and comes at the moment: a wait that slept
// past it (a nap of 10 ms) would be late every time, while a busy machine
// (the race tests of several packages on two cores) makes one try late now
// and then, so each lead gets up to five tries, and one must be on time.
func TestAwaitReleaseReturnsAtTheMoment(t *testing.T) {
	for _, lead := range []time.Duration{0, time.Millisecond, 30 * time.Millisecond} {
		var lates []time.Duration
		bound := lateBound(t)
		for range 5 {
			at := clock.Now() + int64(lead)
			got, ok := awaitRelease(at, new(atomic.Bool), nil)
			if !ok || got < at {
				t.Fatalf("lead %v: released at %d (ok %v), before the release time %d", lead, got, ok, at)
			}
			late := time.Duration(got - at)
			lates = append(lates, late)
			if late <= bound {
				break
			}
		}
		if len(lates) == 5 && lates[4] > bound {
			t.Errorf("lead %v: released late in five tries: %v (bound %v)", lead, lates, bound)
		}
	}
}

func TestAwaitReleaseStops(t *testing.T) {
	stop := new(atomic.Bool)
	go func() { time.Sleep(20 * time.Millisecond); stop.Store(true) }()
	t0 := time.Now()
	if _, ok := awaitRelease(clock.Now()+int64(time.Hour), stop, nil); ok {
		t.Fatal("released although stopped")
	}
	// Far below the hour the release was set at, and more than load delays.
	if d := time.Since(t0); d > 30*time.Second {
		t.Fatalf("stop noticed after %v", d)
	}
}

// The gate lets its threads through once all are in, or alone at its bound.
func TestStartGate(t *testing.T) {
	stop := new(atomic.Bool)
	g := &startGate{threads: 2, until: clock.Now() + int64(time.Hour)}
	passed := make(chan struct{})
	go func() { g.pass(stop); close(passed) }()
	select {
	case <-passed:
		t.Fatal("the first thread passed before the second opened")
	case <-time.After(20 * time.Millisecond):
	}
	g.pass(stop)
	<-passed
	lone := &startGate{threads: 3, until: clock.Now() + int64(5*time.Millisecond)}
	lone.pass(stop) // returns at the bound
	if now := clock.Now(); now < lone.until {
		t.Fatalf("passed %d ns before the bound", lone.until-now)
	}
}

// testState is a rank after setup and create, with threads of 4 records of
// 4 KiB each, in a temp dir; req drives it as the coordinator would.
func testState(t *testing.T, threads ...int) (*state, func(kind string, body any) json.RawMessage) {
	t.Helper()
	s := &state{log: io.Discard}
	req := func(kind string, body any) json.RawMessage {
		t.Helper()
		raw, _ := json.Marshal(body)
		out, err := s.handle(context.Background(), &barrier.Request{Kind: kind, Body: raw})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		b, _ := json.Marshal(out)
		return b
	}
	req(wire.KindSetup, wire.Setup{Job: wire.Job{ID: "abcd01", Seed: 1,
		Job: settings.Job{FileSize: 16 << 10, Block: 4 << 10, RandBlock: 4 << 10, Fsync: true,
			DropCaches: "off"}}, Dir: t.TempDir(), Threads: threads})
	req(wire.KindCreate, wire.Empty{})
	return s, req
}

func runReply(t *testing.T, raw json.RawMessage) wire.RunReply {
	t.Helper()
	var r wire.RunReply
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// Iteration 2's write must not time the freeing of iteration 1's file: the
// preparation before it removes the file, so the timed open creates it as
// in iteration 1 and truncates nothing.
func TestWriteIterationsTimeNoTruncation(t *testing.T) {
	s, req := testState(t, 0, 1)
	for iter := 1; iter <= 2; iter++ {
		req(wire.KindPrepare, wire.Prepare{Phase: "write"})
		for _, w := range s.workers {
			if _, err := os.Stat(w.path); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("iteration %d: %s exists before the timed open (%v)", iter, w.path, err)
			}
		}
		r := runReply(t, req(wire.KindRun, wire.Run{Phase: "write", Iteration: iter, ReleaseAt: clock.Now() + int64(5*time.Millisecond)}))
		for _, tr := range r.Threads {
			if tr.Bytes != 16<<10 {
				t.Fatalf("iteration %d: record %+v", iter, tr)
			}
			// fsync and close are timed and lie inside the thread's window.
			if tr.FsyncNS <= 0 || tr.CloseNS <= 0 || tr.FsyncNS+tr.CloseNS > tr.EndNS-tr.StartNS {
				t.Errorf("iteration %d: fsync %d ns, close %d ns in a window of %d ns",
					iter, tr.FsyncNS, tr.CloseNS, tr.EndNS-tr.StartNS)
			}
		}
		req(wire.KindPrepare, wire.Prepare{Phase: "read"}) // finds full files: writes nothing
		r = runReply(t, req(wire.KindRun, wire.Run{Phase: "read", Iteration: iter, ReleaseAt: clock.Now()}))
		for _, tr := range r.Threads {
			if tr.Bytes != 16<<10 || tr.FsyncNS != 0 || tr.CloseNS <= 0 {
				t.Errorf("iteration %d read: record %+v (a read has no fsync)", iter, tr)
			}
		}
	}
	for _, w := range s.workers {
		checkWholeFile(t, w)
	}
}

// The rank's release moment is the earliest worker's, at or after ReleaseAt.
func TestRunPhaseReleaseMoment(t *testing.T) {
	_, req := testState(t, 0, 1, 2)
	// Never early, in every try; on time in one of up to five, as in
	// TestAwaitReleaseReturnsAtTheMoment: a release that slept past its
	// moment is late in all of them, a busy machine in one now and then.
	var lates []time.Duration
	for try := 1; try <= 5; try++ {
		req(wire.KindPrepare, wire.Prepare{Phase: "write"})
		bound := lateBound(t)
		at := clock.Now() + int64(20*time.Millisecond)
		r := runReply(t, req(wire.KindRun, wire.Run{Phase: "write", Iteration: try, ReleaseAt: at}))
		if r.ReleasedAt < at {
			t.Fatalf("try %d: released %d ns before ReleaseAt", try, at-r.ReleasedAt)
		}
		for _, tr := range r.Threads {
			if tr.StartNS < r.ReleasedAt {
				t.Errorf("try %d: thread %d started %d ns before the release", try, tr.Thread, r.ReleasedAt-tr.StartNS)
			}
		}
		late := time.Duration(r.ReleasedAt - at)
		if late <= bound {
			return
		}
		lates = append(lates, late)
		t.Logf("try %d: released %v after ReleaseAt (bound %v)", try, late, bound)
	}
	t.Fatalf("released late in five tries: %v", lates)
}

// A phase cancelled while its threads wait for the release ends at once,
// with the context's error, and writes nothing.
func TestRunPhaseCancelledBeforeRelease(t *testing.T) {
	s, _ := testState(t, 0, 1)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(30 * time.Millisecond); cancel() }()
	t0 := time.Now()
	_, err := s.runPhase(ctx, wire.Run{Phase: "write", Iteration: 1, ReleaseAt: clock.Now() + int64(time.Hour)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	// Far below the hour the release was set at, and more than load delays.
	if d := time.Since(t0); d > 30*time.Second {
		t.Fatalf("cancellation took %v", d)
	}
	for _, w := range s.workers {
		if _, err := os.Stat(w.path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s written by a cancelled phase", w.path)
		}
	}
}

// A phase driven without a session (as these tests drive one) outlasting
// the progress interval reports to nobody: it once called Notify on the
// missing session and crashed a slow run of this package.
func TestPhaseWithoutSessionOutlastsProgressInterval(t *testing.T) {
	s, req := testState(t, 0, 1)
	s.progressEvery = time.Millisecond
	req(wire.KindPrepare, wire.Prepare{Phase: "write"})
	r := runReply(t, req(wire.KindRun, wire.Run{Phase: "write", Iteration: 1, ReleaseAt: clock.Now() + int64(30*time.Millisecond)}))
	if len(r.Threads) != 2 || r.Threads[0].Bytes != 16<<10 || r.Threads[1].Bytes != 16<<10 {
		t.Fatalf("records %+v, want two threads of 16 KiB", r.Threads)
	}
}
