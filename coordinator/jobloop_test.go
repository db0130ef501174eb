package coordinator

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"ioswarm/barrier"
	"ioswarm/internal/fakerank"
	"ioswarm/launcher"
	"ioswarm/result"
	"ioswarm/settings"
	"ioswarm/wire"
)

// fakeJob runs a write and a read phase of two threads on two fake nodes
// through Run, the job loop's whole path, and returns what Run returned.
func fakeJob(t *testing.T, l *fakeLauncher) (*result.Job, error) {
	t.Helper()
	launch := Launch{Launcher: l, HeartbeatTimeout: 30 * time.Second, Listen: "127.0.0.1:0",
		Targets:     []launcher.Target{{Rank: 0, Host: "nodeA"}, {Rank: 1, Host: "nodeB"}},
		JoinTimeout: time.Minute, Log: launcher.NewLineWriter(&strings.Builder{})}
	w := Workload{Dir: "/fake/dir", Threads: 2, Total: 2 << 20, FileSize: 1 << 20, Block: 1 << 20,
		RandBlock: 4096, Phases: settings.PhaseList{"write", "read"}, DropCaches: settings.DropAuto, Iterations: 1, Fsync: true}
	type outcome struct {
		job *result.Job
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		job, err := Run(context.Background(), launch, w)
		done <- outcome{job, err}
	}()
	select {
	case o := <-done:
		return o.job, o.err
	case <-time.After(2 * time.Minute):
		t.Fatal("the job still runs against fake ranks after 2 minutes")
		return nil, nil
	}
}

// wantKinds is what every rank hears in a job of a write and a read phase
// on two nodes: the setup (facts, checks, the job directory, the
// shared-directory marker made, looked for and removed), then per phase
// its preparation, cache drop, residency, the run and what collect asks
// after it (first-done bytes, the time series), then the cleanup.
var wantKinds = []string{
	wire.KindFacts, wire.KindSetup, wire.KindCreate, wire.KindMarker, wire.KindMarker, wire.KindMarker,
	wire.KindPrepare, wire.KindDrop, wire.KindResident, wire.KindRun, wire.KindFirstDone, wire.KindSeries,
	wire.KindPrepare, wire.KindDrop, wire.KindResident, wire.KindRun, wire.KindFirstDone, wire.KindSeries,
	wire.KindCleanup,
}

// The job loop, in-process against fake ranks: every rank gets setup,
// phase and collect's requests in order, and the result holds each
// rank's records under its own host, with each first-done count on the
// thread it was reported for.
func TestJobLoopAgainstFakeRanks(t *testing.T) {
	fakerank.Guard(t, 3*time.Minute)
	l := newFakeLauncher(t, failAt{rank: -1})
	res, err := fakeJob(t, l)
	if err != nil || !res.Complete {
		t.Fatalf("job: complete %v, error %v", res.Complete, err)
	}
	for r := range 2 {
		if got := l.kinds(r); strings.Join(got, " ") != strings.Join(wantKinds, " ") {
			t.Errorf("rank %d heard %v\nwant %v", r, got, wantKinds)
		}
	}
	if len(res.Hosts) != 2 || res.Hosts[0].Host != "nodeA" || res.Hosts[1].Host != "nodeB" || res.Hosts[1].Kernel != "6.1.0-fake" {
		t.Errorf("hosts %+v", res.Hosts)
	}
	if len(res.Phases) != 2 || res.Phases[0].Name != "write" || res.Phases[1].Name != "read" {
		t.Fatalf("phases %+v", res.Phases)
	}
	for _, p := range res.Phases {
		if p.Bytes != 2<<20 || len(p.Threads) != 2 || p.Bandwidth <= 0 {
			t.Errorf("phase %s: %d bytes, %d threads, bandwidth %v", p.Name, p.Bytes, len(p.Threads), p.Bandwidth)
		}
		for _, th := range p.Threads {
			if want := []string{"nodeA", "nodeB"}[th.Thread]; th.Host != want || th.Rank != th.Thread {
				t.Errorf("phase %s thread %d on %s rank %d, want %s rank %d", p.Name, th.Thread, th.Host, th.Rank, want, th.Thread)
			}
			if th.BytesAtFirstDone != firstDoneBytes(th.Thread) {
				t.Errorf("phase %s thread %d: %d bytes at first done, want %d", p.Name, th.Thread, th.BytesAtFirstDone, firstDoneBytes(th.Thread))
			}
		}
	}
}

// A rank that fails at any step of the job loop fails the job with an
// error naming its host and rank, whether it answers with an error or
// dies; and the coordinator leaves no goroutine behind either way.
func TestJobLoopRankFailingAtEachStep(t *testing.T) {
	steps := []string{wire.KindFacts, wire.KindSetup, wire.KindCreate, wire.KindMarker, wire.KindPrepare,
		wire.KindDrop, wire.KindResident, wire.KindRun, wire.KindFirstDone, wire.KindSeries, wire.KindCleanup}
	for _, kind := range steps {
		for _, die := range []bool{false, true} {
			name := kind + "/error"
			if die {
				name = kind + "/dies"
			}
			t.Run(name, func(t *testing.T) {
				fakerank.Guard(t, 3*time.Minute)
				before := runtime.NumGoroutine()
				l := newFakeLauncher(t, failAt{rank: 1, kind: kind, die: die})
				res, err := fakeJob(t, l)
				if err == nil || res.Complete {
					t.Fatalf("job: complete %v, error %v; want it to fail at %s", res.Complete, err, kind)
				}
				var re *barrier.RankError
				if !errors.As(err, &re) || re.Host != "nodeB" || re.Rank != 1 {
					t.Errorf("error %q: want a RankError for host nodeB rank 1", err)
				}
				if msg := err.Error(); !strings.Contains(msg, "nodeB") || !strings.Contains(msg, "rank 1") {
					t.Errorf("error %q does not name host nodeB rank 1", msg)
				}
				// The job stopped at the failing step: the rank heard the
				// loop's requests up to that one and nothing after it.
				upTo := wantKinds[:slices.Index(wantKinds, kind)+1]
				if got := l.kinds(1); strings.Join(got, " ") != strings.Join(upTo, " ") {
					t.Errorf("rank 1 heard %v\nwant %v", got, upTo)
				}
				why := "fake " + kind + " failed"
				if die {
					why = "signal: killed"
				}
				if !strings.Contains(err.Error(), why) {
					t.Errorf("error %q does not say why (%s)", err, why)
				}
				fakerank.NoGoroutinesPast(t, before, time.Minute)
			})
		}
	}
}
