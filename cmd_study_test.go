package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/coordinator"
	"ioswarm/internal/usage"
	"ioswarm/result"
	"ioswarm/settings"
	"ioswarm/studyplan"
	"ioswarm/sweep"
)

// newStudyOptions is study's options at their flag defaults, local
// ranks, output captured.
func newStudyOptions(t *testing.T) studyOptions {
	o := studyOptions{ioOptions: defaultIO(t), values: map[string]string{}}
	o.reportOptions = reportOptions{Format: "table", Progress: "off", ProgressInterval: time.Second}
	o.Launcher = "local"
	o.stdout, o.stderr = &bytes.Buffer{}, &bytes.Buffer{}
	return o
}

// Every refusal of a study is a usage error on one line naming what to
// fix (the plan file's line, the flag, the section's point), found
// before a rank would start.
func TestStudyRefusesBadPlans(t *testing.T) {
	dir := t.TempDir()
	writePlan := func(text string) string {
		p := filepath.Join(dir, "p.plan")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		set  func(o *studyOptions)
		want string
	}{
		{func(o *studyOptions) {}, "nothing to run"},
		{func(o *studyOptions) { o.PlanFile, o.Seq = writePlan("[seq]\nthreads = 1\n"), "1" }, "not both"},
		{func(o *studyOptions) { o.PlanFile = writePlan("[seq]\nthreads = 1\nbogus = 2\n") }, "p.plan:3: bogus: not a setting"},
		{func(o *studyOptions) { o.PlanFile = writePlan("[seq]\nthreads = 1\nhosts = n1\n") }, "p.plan:3: hosts: not in a plan: how the ranks start is the command line's (give --hosts"},
		{func(o *studyOptions) { o.PlanFile = writePlan("[seq]\nthreads = 1\nssh-user = me\n") }, "p.plan:3: ssh-user: not in a plan"},
		{func(o *studyOptions) { o.PlanFile = writePlan("[seq]\nthread = 1\n") }, "p.plan:2: thread: not a setting: did you mean threads?"},
		{func(o *studyOptions) { o.PlanFile = writePlan("[seq]\nthreads = 1\niterations = x\n") }, "p.plan:3: [seq] iterations = x: not a whole number"},
		{func(o *studyOptions) { o.PlanFile = writePlan("[seq]\nthreads = 1\nrand-time = 5\n") }, "p.plan:3: [seq] rand-time = 5: a duration needs a unit: write 5s"},
		{func(o *studyOptions) { o.PlanFile = writePlan("[seq]\nthreads = 1\nrand-time = soon\n") }, "p.plan:3: [seq] rand-time = soon: not a duration such as 30s"},
		{func(o *studyOptions) { o.PlanFile = writePlan("[seq]\nthreads = 1\ntotal = 5x\n") }, "p.plan:3: [seq] --total \"5x\": invalid size"},
		{func(o *studyOptions) { o.PlanFile = writePlan("[seq]\nthreads = 1\nlocal-ranks = 2\n") }, "p.plan:3: local-ranks: not in a plan"},
		{func(o *studyOptions) { o.PlanFile = writePlan("[study]\nphases = read\n[seq]\nthreads = 1\n") }, "p.plan:2: phases: each section has its own"},
		{func(o *studyOptions) { o.PlanFile = writePlan("[seq]\nthreads = 1\ndirect = maybe\n") }, "p.plan:3: [seq] direct = maybe: want true or false"},
		{func(o *studyOptions) { o.PlanFile = writePlan("[seq]\nthreads = 16..1\n") }, "p.plan:2: [seq] threads = 16..1"},
		{func(o *studyOptions) { o.PlanFile = writePlan("[random]\nthreads = 1,2,32\ntotal = 64MiB\n") }, "[random] sweep point of 32 threads"},
		{func(o *studyOptions) { o.Seq, o.SeqTotal, o.Expect = "1,2", "64MiB", "randread>=1kIOPS@2" }, "no randread phase"},
		{func(o *studyOptions) {
			o.Seq, o.SeqTotal, o.Random, o.Expect = "1,2", "64MiB", "4", "randread>=1kIOPS@2"
		}, "no section runs randread at 2 threads"},
		{func(o *studyOptions) { o.Seq, o.SeqTotal = "1,2", "64MiB" }, "--output FILE"},
	} {
		o := newStudyOptions(t)
		c.set(&o)
		err := runStudy(context.Background(), o)
		if !usage.Is(err) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("got %v, want a one-line usage error with %q", err, c.want)
		}
	}
}

// A section's settings are run's flags at their defaults, the kind's
// defaults over them, then [study]'s and the section's entries; a flag
// given on the command line is a [study] entry over the file's.
func TestSectionSettings(t *testing.T) {
	p, err := studyplan.Parse(strings.NewReader("[study]\nblock = 1MiB\niterations = 2\n[shared]\nthreads = 1,4\ntotal = 8MiB\niterations = 3\n"), "p")
	if err != nil {
		t.Fatal(err)
	}
	o := newStudyOptions(t)
	o.PlanFile = "x"
	o.values["block"] = "2MiB"
	p.Shared.Set("block", o.values["block"])
	sec, err := sectionPlan(p, p.Sections[0], coordinator.Launch{LocalRanks: 1}, "cmd")
	if err != nil {
		t.Fatal(err)
	}
	b := sec.Plan.Base
	if b.Layout != "shared" || b.Phases.String() != "write,read" || b.Block != 2<<20 || b.Iterations != 3 ||
		b.Total != 8<<20 || b.RandTime != 2*time.Minute || len(sec.Plan.Threads) != 2 || sec.Plan.Threads[1] != 4 {
		t.Errorf("shared section: layout %s phases %v block %d iterations %d total %d rand-time %v threads %v",
			b.Layout, b.Phases, b.Block, b.Iterations, b.Total, b.RandTime, sec.Plan.Threads)
	}
}

// The estimate: a section that ran a point takes that long per point;
// before that, random phases take their time bound and bytes take the
// measured sequential rate, or stay open until one is measured.
func TestEstimateStudy(t *testing.T) {
	seq := coordinator.Workload{Dir: t.TempDir(), Job: settings.Job{Phases: settings.PhaseList{"write",
		"read"}, Total: 1 << 30, Block: 1 << 20, RandBlock: 4096, Iterations: 1, DropCaches: "off"}}
	random := seq
	random.Phases, random.RandTime = settings.PhaseList{"randwrite", "randread"}, time.Minute
	secs := sectionsOf(seq, random)
	left := estimateStudy(secs, [][]*result.Job{nil, nil})
	if left.Points != 4 || left.Done != 0 || left.Known != 4*time.Minute || left.Unmeasured != 4 || left.Bytes != 2*(2<<30)+2*(1<<30) {
		t.Errorf("before any point: %+v", left)
	}
	if !strings.Contains(left.text(), "at least 240s left, and 6.00 GiB to move in 4 point(s)") {
		t.Errorf("text %q", left.text())
	}
	// One sequential point: 1 GiB written and read, each in 1 s.
	job := &result.Job{Complete: true, ElapsedNS: int64(3 * time.Second), Config: result.Config{Threads: 1},
		Phases: []result.Phase{{Name: "write", Bytes: 1 << 30, WindowNS: 1e9}, {Name: "read", Bytes: 1 << 30, WindowNS: 1e9}}}
	left = estimateStudy(secs, [][]*result.Job{{job}, nil})
	// seq's other point: as long as its first (3 s); random's two: 1 min
	// of each phase + the 1 GiB prefill at 1 GiB/s.
	want := 3*time.Second + 2*(2*time.Minute+time.Second)
	if left.Done != 1 || left.Unmeasured != 0 || left.Known != want {
		t.Errorf("after a point: %+v, want %v known", left, want)
	}
	if !strings.Contains(left.text(), "1 of 4 points done; about") {
		t.Errorf("text %q", left.text())
	}
}

func sectionsOf(ws ...coordinator.Workload) []sweep.Section {
	var out []sweep.Section
	for i, w := range ws {
		out = append(out, sweep.Section{Name: []string{"seq", "random"}[i]})
		out[i].Plan.Base, out[i].Plan.Threads = w, []int{1, 2}
		out[i].Plan.Launch = coordinator.Launch{LocalRanks: 1}
	}
	return out
}

// The plan docs/study.md shows is a valid plan: it parses, its keys are
// known, and every point of every section validates.
func TestDocumentedPlan(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("docs", "study.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```ini\n")
	text, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/study.md has no ```ini block")
	}
	p, err := studyplan.Parse(strings.NewReader(text), "docs/study.md")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Check(planKeyCheck); err != nil {
		t.Fatal(err)
	}
	p.Shared.Set("dir", t.TempDir()) // the example's is on the cluster
	var names []string
	for _, s := range p.Sections {
		sec, err := sectionPlan(p, s, coordinator.Launch{LocalRanks: 16, HeartbeatTimeout: 5 * time.Second}, "cmd")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sweep.Points(sec.Plan.Base, sec.Plan.Launch, sec.Plan.Threads, sec.Plan.Depths); err != nil {
			t.Errorf("[%s]: %v", s.Name, err)
		}
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "seq,random,shared,metadata" {
		t.Errorf("sections %v", names)
	}
}

// A metadata section writes no data file: its aggregate is 0 unless the
// plan gives one, and its tables say so.
func TestMetadataSectionHasNoAggregate(t *testing.T) {
	p, err := studyplan.Parse(strings.NewReader("[metadata]\nthreads = 1,2\nfiles-per-thread = 10\n"), "p")
	if err != nil {
		t.Fatal(err)
	}
	sec, err := sectionPlan(p, p.Sections[0], coordinator.Launch{LocalRanks: 1}, "cmd")
	if err != nil {
		t.Fatal(err)
	}
	if b := sec.Plan.Base; b.Total != 0 || b.FilesPerThread != 10 || b.Phases[0] != "mdcreate" {
		t.Errorf("metadata section: total %d, files %d, phases %v", b.Total, b.FilesPerThread, b.Phases)
	}
	if got := sec.Plan.NewSweep().SizeText(); got != "no data files" {
		t.Errorf("size text %q", got)
	}
}
