package sweep

import (
	"errors"
	"strings"
	"testing"
	"time"

	"ioswarm/coordinator"
	"ioswarm/result"
	"ioswarm/settings"
)

func planOf(threads ...int) Plan {
	return Plan{Base: coordinator.Workload{Phases: settings.PhaseList{"write", "read"}, Total: 1 << 30, Block: 1 << 20,
		RandBlock: 4096, Dir: "/x", Iterations: 1, Fsync: true, Version: "v1"}, Threads: threads}
}

func point(threads int, complete bool, host, id string) *result.Job {
	return &result.Job{JobID: id, Complete: complete, Config: result.Config{Threads: threads},
		Hosts: []result.Host{{Host: host}}, ElapsedNS: int64(threads) * int64(time.Second)}
}

// Resume keeps the complete points the plan asks for, once each and in
// the plan's order, and drops the one in flight.
func TestResumeKeepsCompletePoints(t *testing.T) {
	p := planOf(1, 2, 4)
	saved := p.NewSweep()
	saved.Points = []*result.Job{point(2, true, "n1", "b"), point(1, true, "n1", "a"), point(4, false, "n1", "c")}
	kept, err := Resume(p, Resumed{Saved: saved, Version: "v1", Hosts: []string{"n1", "n2"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 2 || kept[0].JobID != "a" || kept[1].JobID != "b" {
		t.Errorf("kept %+v", kept)
	}
	if !done(kept, 2, 0, false) || done(kept, 4, 0, false) {
		t.Error("done")
	}
}

// A different plan is refused naming each difference; another version
// or other nodes unless told to run anyway.
func TestResumeRefusesAnotherStudy(t *testing.T) {
	p := planOf(1, 2)
	other := planOf(1, 2, 4)
	other.Base.Total, other.Base.Direct = 2<<30, true
	saved := other.NewSweep()
	saved.Points = []*result.Job{point(1, true, "n1", "a")}
	_, err := Resume(p, Resumed{Saved: saved, Version: "v1"})
	for _, want := range []string{"total: saved 2147483648, now 1073741824", "direct: saved true, now false", "threads: saved 1, 2, 4, now 1, 2"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("another plan: %v, want %q", err, want)
		}
	}
	saved = p.NewSweep()
	saved.Points = []*result.Job{point(1, true, "n9", "a")}
	_, err = Resume(p, Resumed{Saved: saved, Version: "v2", Hosts: []string{"n1"}})
	if err == nil || !strings.Contains(err.Error(), "ioswarm version: saved v1, now v2") || !strings.Contains(err.Error(), "nodes: saved n9, now n1") {
		t.Errorf("another version and nodes: %v", err)
	}
	if kept, err := Resume(p, Resumed{Saved: saved, Version: "v2", Hosts: []string{"n1"}, Anyway: true}); err != nil || len(kept) != 1 {
		t.Errorf("anyway: %v %v", kept, err)
	}
}

// A point starts only when the longest point so far, with its margin,
// ends before the deadline.
func TestBudget(t *testing.T) {
	now := time.Unix(1000, 0)
	points := []*result.Job{point(1, true, "n", "a"), point(4, true, "n", "b"), point(8, false, "n", "c")}
	est := estimate(points)
	if est != 5*time.Second {
		t.Errorf("estimate %v, want the longest complete point (4 s) × 1.25", est)
	}
	if err := checkBudget(now.Add(6*time.Second), now, est, "8 threads"); err != nil {
		t.Errorf("6 s left for 5: %v", err)
	}
	err := checkBudget(now.Add(4*time.Second), now, est, "8 threads")
	if !errors.Is(err, ErrBudget) || !strings.Contains(err.Error(), "8 threads") {
		t.Errorf("4 s left for 5: %v", err)
	}
	if checkBudget(time.Time{}, now, est, "x") != nil || checkBudget(now, now, 0, "x") != nil {
		t.Error("no deadline, or nothing to estimate by, must not stop a sweep")
	}
}

// A sweep with no point of its own yet asks the study's estimate; once
// it has one, its own longest point rules.
func TestNextEstimate(t *testing.T) {
	p := planOf(1, 2)
	o := coordinator.Workload{Threads: 2}
	if got := p.nextEstimate(nil, o); got != 0 {
		t.Errorf("no points, no study estimate: %v", got)
	}
	p.NextEstimate = func(coordinator.Workload) time.Duration { return 7 * time.Second }
	if got := p.nextEstimate(nil, o); got != 7*time.Second {
		t.Errorf("the study's estimate: %v", got)
	}
	if got := p.nextEstimate([]*result.Job{point(2, true, "n", "a")}, o); got != 2500*time.Millisecond {
		t.Errorf("the sweep's own point (2 s × 1.25): %v", got)
	}
}
