package figures

import (
	"strings"
	"testing"

	"ioswarm/result"
)

// fsyncPhase is skewedPhase with the threads' fsync and close times:
//
//	A: [0 s, 1 s],     fsync 250 ms, close 1 ms
//	B: [0.5 s, 2.5 s], fsync 1 s,    close 2 ms
//
// fsync share = (0.25 s + 1 s) / (1 s + 2 s) = 1.25 / 3
// fsync latency over 2 values: p50 = rank 1 = the exact minimum, 250 ms;
// p99, p99.9 = rank 2 = the exact maximum, 1 s; max 1 s.
func fsyncPhase() result.Phase {
	p := skewedPhase()
	p.Threads[0].FsyncNS, p.Threads[0].CloseNS = sec/4, sec/1000
	p.Threads[1].FsyncNS, p.Threads[1].CloseNS = sec, 2*sec/1000
	return p
}

func TestReduceFsyncFigures(t *testing.T) {
	p := fsyncPhase()
	if err := Reduce(&p); err != nil {
		t.Fatal(err)
	}
	near(t, "fsync_share", p.FsyncShare, 1.25/3)
	want := result.Latency{P50: sec / 4, P99: sec, P999: sec, Max: sec}
	if p.FsyncLatency == nil || *p.FsyncLatency != want {
		t.Fatalf("fsync latency %+v, want %+v", p.FsyncLatency, want)
	}
	// The other figures are those of skewedPhase: fsync and close are
	// inside the threads' windows, not added to them.
	near(t, "bandwidth", p.Bandwidth, 80e6)
	near(t, "first_done_bandwidth", p.FirstDoneBandwidth, 125e6)
}

// A stonewalled thread times no fsync: it counts in the share's
// denominator only, and in no percentile.
// share = 1 s / (1 s + 2 s) = 1/3; latency over B's fsync alone.
func TestReduceFsyncOfOneThread(t *testing.T) {
	p := fsyncPhase()
	p.Threads[0].FsyncNS, p.Threads[0].CloseNS = 0, 0
	if err := Reduce(&p); err != nil {
		t.Fatal(err)
	}
	near(t, "fsync_share", p.FsyncShare, 1.0/3)
	if l := p.FsyncLatency; l == nil || l.P50 != sec || l.Max != sec {
		t.Fatalf("fsync latency %+v, want every percentile 1 s", l)
	}
}

func TestReduceNoFsync(t *testing.T) {
	p := skewedPhase()
	if err := Reduce(&p); err != nil {
		t.Fatal(err)
	}
	if p.FsyncLatency != nil || p.FsyncShare != 0 {
		t.Fatalf("fsync figures without any fsync: %+v %v", p.FsyncLatency, p.FsyncShare)
	}
}

func TestReduceRejectsFsyncOutsideTheWindow(t *testing.T) {
	for name, edit := range map[string]func(th *result.Thread){
		"negative fsync":         func(th *result.Thread) { th.FsyncNS = -1 },
		"negative close":         func(th *result.Thread) { th.CloseNS = -1 },
		"fsync longer than all":  func(th *result.Thread) { th.FsyncNS = sec + 1 },
		"fsync + close too long": func(th *result.Thread) { th.FsyncNS, th.CloseNS = sec/2, sec/2+1 },
	} {
		p := fsyncPhase()
		edit(&p.Threads[0]) // A's window is 1 s
		if err := Reduce(&p); err == nil || !strings.Contains(err.Error(), "do not fit") {
			t.Errorf("%s: error %v", name, err)
		}
	}
}

func TestFirstDoneNote(t *testing.T) {
	cases := []struct {
		phase         string
		direct, fsync bool
		withheld      bool
	}{
		{"write", false, true, true},
		{"randwrite", false, true, true},
		{"rewrite", false, true, true},
		{"reread", false, true, false},
		{"write", true, true, false},   // O_DIRECT: on the filesystem call by call
		{"write", false, false, false}, // no fsync: a page-cache figure throughout
		{"read", false, true, false},
		{"randread", false, true, false},
	}
	for _, c := range cases {
		if got := FirstDoneNote(c.phase, c.direct, c.fsync) != ""; got != c.withheld {
			t.Errorf("%s direct %v fsync %v: withheld %v, want %v", c.phase, c.direct, c.fsync, got, c.withheld)
		}
	}
}

// With a note, first-done is 0 and everything else as without one.
func TestReduceWithheldFirstDone(t *testing.T) {
	p := fsyncPhase()
	p.FirstDoneNote = FirstDoneNote("write", false, true)
	if err := Reduce(&p); err != nil {
		t.Fatal(err)
	}
	if p.FirstDoneBandwidth != 0 {
		t.Fatalf("first_done_bandwidth %g, want 0 with a note", p.FirstDoneBandwidth)
	}
	near(t, "bandwidth", p.Bandwidth, 80e6)
	if p.FirstDoneNS != base+sec {
		t.Errorf("first_done_ns %d: the first-done moment is still reported", p.FirstDoneNS)
	}
}

// fsyncJob is a buffered write with fsync (note set), reduced, as the
// coordinator writes it.
func fsyncJob(t *testing.T) *result.Job {
	t.Helper()
	p := fsyncPhase()
	p.FirstDoneNote = FirstDoneNote(p.Name, false, true)
	if err := Reduce(&p); err != nil {
		t.Fatal(err)
	}
	return &result.Job{Version: "test", Config: result.Config{Fsync: true}, Phases: []result.Phase{p}}
}

func TestCheckFsyncAndNote(t *testing.T) {
	if err := Check(fsyncJob(t)); err != nil {
		t.Fatalf("untouched job: %v", err)
	}
	cases := []struct {
		field string
		edit  func(job *result.Job)
	}{
		{"fsync_share", func(job *result.Job) { job.Phases[0].FsyncShare *= 1.01 }},
		{"fsync_latency_ns.p50", func(job *result.Job) { job.Phases[0].FsyncLatency.P50++ }},
		{"fsync_latency_ns.max", func(job *result.Job) { job.Phases[0].FsyncLatency.Max-- }},
		{"fsync_latency_ns", func(job *result.Job) { job.Phases[0].FsyncLatency = nil }},
		{"fsync_latency_ns.p99", func(job *result.Job) { job.Phases[0].Threads[1].FsyncNS = sec / 2 }},
		{"first_done_bandwidth", func(job *result.Job) { job.Phases[0].FirstDoneBandwidth = 125e6 }},
		// A note the configuration does not call for, or none where it does.
		{"first_done_note", func(job *result.Job) { job.Phases[0].FirstDoneNote = "" }},
		{"first_done_note", func(job *result.Job) { job.Config.Direct = true }},
	}
	for _, c := range cases {
		job := fsyncJob(t)
		c.edit(job)
		err := Check(job)
		prefix := "phase write iteration 1: " + c.field + " is "
		if err == nil || !strings.HasPrefix(err.Error(), prefix) {
			t.Errorf("tampered %s: error %v, want prefix %q", c.field, err, prefix)
		}
	}
}
