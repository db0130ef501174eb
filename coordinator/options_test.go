package coordinator

import (
	"strings"
	"testing"
	"time"

	"ioswarm/internal/usage"
	"ioswarm/launcher"
	"ioswarm/settings"
)

// localLaunch is a valid launch on this machine, for workload tests.
var localLaunch = Launch{LocalRanks: 1, HeartbeatTimeout: 5 * time.Second}

func TestLaunchValidate(t *testing.T) {
	for _, c := range []struct {
		l    Launch
		want string
	}{
		{Launch{LocalRanks: 0, HeartbeatTimeout: time.Second}, "--local-ranks 0"},
		{Launch{LocalRanks: 1}, "--heartbeat-timeout"},
		{Launch{Targets: []launcher.Target{{Host: "n1", Dir: "/a\xff"}}, HeartbeatTimeout: time.Second}, "node n1: dir="},
	} {
		err := c.l.Validate()
		if !usage.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want a usage error with %q", c.l, err, c.want)
		}
	}
	// With nodes, --local-ranks plays no part.
	l := Launch{Targets: []launcher.Target{{Host: "n1"}}, HeartbeatTimeout: time.Second}
	if err := l.Validate(); err != nil {
		t.Error(err)
	}
}

// validWorkload is a small workload that Validate accepts as it is.
func validWorkload(t *testing.T) Workload {
	w := Workload{Dir: t.TempDir(), Job: settings.Job{Threads: 2, Total: 2 << 20, Block: 1 << 20,
		RandBlock: 4096, Phases: settings.PhaseList{"write"}, DropCaches: "auto", Iterations: 1}}
	w.fillDefaults()
	return w
}

// A workload is checked against where it runs: the launch first, then a
// local run's directory (Settle's check of this machine).
func TestWorkloadSettleChecksTheLaunch(t *testing.T) {
	base := Workload{Dir: t.TempDir(), Job: settings.Job{Threads: 2, Total: 2 << 20, Block: 1 << 20,
		RandBlock: 4096, Phases: settings.PhaseList{"write"}, DropCaches: "auto", Iterations: 1}}
	w := base
	if err := w.Settle(Launch{HeartbeatTimeout: time.Second}); !usage.Is(err) || !strings.Contains(err.Error(), "--local-ranks") {
		t.Errorf("bad launch: %v", err)
	}
	w = base
	w.Dir = "/nonexistent/ioswarm"
	if err := w.Settle(localLaunch); !usage.Is(err) || !strings.Contains(err.Error(), "--dir") {
		t.Errorf("missing local dir: %v", err)
	}
	// On nodes the directory is theirs to check.
	remote := Launch{Targets: []launcher.Target{{Host: "n1"}}, HeartbeatTimeout: time.Second}
	w = base
	w.Dir = "/nonexistent/ioswarm"
	if err := w.Settle(remote); err != nil {
		t.Errorf("remote run: %v", err)
	}
}

// The rank cap is the placement's, and the caller's targets stay as they
// were.
func TestPlaceCapsRanksAndCopies(t *testing.T) {
	in := []launcher.Target{{Rank: 7, Host: "a"}, {Rank: 7, Host: "b"}, {Rank: 7, Host: "a"}}
	p := place(2, in)
	if len(p.targets) != 2 || p.targets[0].Rank != 0 || p.targets[1].Rank != 1 {
		t.Errorf("place(2) targets %+v", p.targets)
	}
	for i, tg := range in {
		if tg.Rank != 7 {
			t.Errorf("caller's target %d changed: %+v", i, tg)
		}
	}
	if p := place(5, in); len(p.targets) != 3 || len(p.threads[0]) != 2 || !p.dropper[0] || !p.dropper[1] || p.dropper[2] {
		t.Errorf("place(5) over 3: %+v", p)
	}
}

// A total too small for the threads proposes what would fit.
func TestTooSmallTotalProposesValues(t *testing.T) {
	w := Workload{Dir: t.TempDir(), Job: settings.Job{Threads: 600, Total: 1 << 30, Block: 16 << 20,
		RandBlock: 4096, Phases: settings.PhaseList{"write"}, DropCaches: "auto", Iterations: 1}}
	err := w.Validate()
	want := "--total 1GiB is smaller than --threads 600 × --block 16MiB; use --total 9600MiB or more, or --threads 64 or fewer"
	if !usage.Is(err) || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// Where the only data phases are random, --block sizes nothing but the
// prefill of their files, and a total too small for it also proposes the
// --block that makes each file one record; not where a sequential phase
// or a strided shared file uses --block itself.
func TestTooSmallTotalOfRandomPhasesProposesABlock(t *testing.T) {
	job := func(phases settings.PhaseList, layout settings.Layout, pattern settings.Pattern) Workload {
		return Workload{Dir: t.TempDir(), Job: settings.Job{Threads: 256, Total: 1 << 30, Block: 16 << 20,
			RandBlock: 4096, Phases: phases, Layout: layout, Pattern: pattern, DropCaches: "auto", Iterations: 1}}
	}
	base := "--total 1GiB is smaller than --threads 256 × --block 16MiB; use --total 4GiB or more, or --threads 64 or fewer"
	for _, c := range []struct {
		w    Workload
		want string
	}{
		{job(settings.PhaseList{"randwrite", "randread"}, "", ""), base + ", or --block 4MiB (the random phases use --block only to prefill their files)"},
		{job(settings.PhaseList{"randread", "mdstat"}, settings.Shared, settings.Segmented), base + ", or --block 4MiB (the random phases use --block only to prefill their files)"},
		{job(settings.PhaseList{"write", "randread"}, "", ""), base},
		{job(settings.PhaseList{"randread"}, settings.Shared, settings.Strided), base},
	} {
		if err := c.w.Validate(); !usage.Is(err) || err.Error() != c.want {
			t.Errorf("%v %s %s:\n got  %v\n want %s", c.w.Phases, c.w.Layout, c.w.Pattern, err, c.want)
		}
	}
}
