package acceptance

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"ioswarm/result"
	"ioswarm/study"
)

func TestParse(t *testing.T) {
	es, err := Parse("write>=20GB/s@64, read>=23GB/s@32,randread>=500kIOPS@256,randwrite<=2MIOPS@8")
	if err != nil {
		t.Fatal(err)
	}
	want := []Expectation{
		{Phase: "write", Value: 20e9, Threads: 64, Unit: "GB/s"},
		{Phase: "read", Value: 23e9, Threads: 32, Unit: "GB/s"},
		{Phase: "randread", Value: 500e3, Ops: true, Threads: 256, Unit: "kIOPS"},
		{Phase: "randwrite", Value: 2e6, Ops: true, AtMost: true, Threads: 8, Unit: "MIOPS"},
	}
	for i, w := range want {
		g := es[i]
		g.Text = ""
		if g != w {
			t.Errorf("item %d: %+v, want %+v", i, g, w)
		}
	}
	for spec, cause := range map[string]string{
		"write>=20GB/s":        "@THREADS",
		"wrte>=20GB/s@4":       "no phase",
		"write>=20IOPS@4":      "bandwidth",
		"randread>=2GB/s@4":    "operation rate",
		"write>=20GB@4":        "unit",
		"write>=GB/s@4":        "no number",
		"write>=2GB/s@0":       "at least 1",
		"write=2GB/s@1":        "PHASE>=VALUE",
		",,":                   "no expectation",
		"write>=2GB/s@1,read>": "read>",
	} {
		if _, err := Parse(spec); err == nil || !strings.Contains(err.Error(), cause) {
			t.Errorf("Parse(%q) = %v, want an error about %q", spec, err, cause)
		}
	}
}

func fixture(t *testing.T) *study.Sweep {
	t.Helper()
	s, err := study.Load(filepath.Join("..", "study", "testdata", "gen2.json"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// gen2 wrote at 2.097 GB/s and read at 2.796 GB/s at 1 thread.
func TestJudge(t *testing.T) {
	s := fixture(t)
	es, err := Parse("write>=2GB/s@1,write>=2.1GB/s@1,read<=3GB/s@1,read<=2.5GB/s@1,write>=1GB/s@16")
	if err != nil {
		t.Fatal(err)
	}
	vs := Judge(s, es)
	for i, want := range []bool{true, false, true, false, false} {
		if vs[i].Pass != want {
			t.Errorf("%s: pass %v (measured %s), want %v", vs[i].Text, vs[i].Pass, vs[i].MeasuredText(), want)
		}
	}
	if vs[4].Found || vs[4].VerdictText() != "FAIL: not measured" {
		t.Errorf("a point the study lacks: %+v", vs[4])
	}
	if Failures(vs) != 3 || Failures(vs[:1]) != 0 {
		t.Errorf("Failures: %d of 5, %d of the first", Failures(vs), Failures(vs[:1]))
	}
	var b bytes.Buffer
	if err := WriteTable(&b, vs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "expectations: 2 passed, 3 failed") || !strings.Contains(b.String(), "2.097 GB/s") {
		t.Errorf("table:\n%s", b.String())
	}
}

// With iterations, a mean that meets the expectation passes; if its
// worst iteration missed, the table says the pass is within noise.
func TestJudgeIterations(t *testing.T) {
	s := fixture(t)
	for _, job := range s.Points {
		var phases []result.Phase
		for _, p := range job.Phases {
			for i, f := range []float64{0.9, 1.1} {
				q := p
				q.Iteration, q.Bandwidth, q.IOPS = i+1, p.Bandwidth*f, p.IOPS*f
				phases = append(phases, q)
			}
		}
		job.Phases = phases
	}
	es, err := Parse("write>=2GB/s@1,write>=1.8GB/s@1")
	if err != nil {
		t.Fatal(err)
	}
	vs := Judge(s, es)
	if !vs[0].Pass || vs[0].Every || !strings.Contains(vs[0].VerdictText(), "within noise") {
		t.Errorf("2.097 ± 10%% against 2: %+v %q", vs[0], vs[0].VerdictText())
	}
	if !vs[1].Pass || !vs[1].Every || vs[1].VerdictText() != "pass" {
		t.Errorf("2.097 ± 10%% against 1.8: %+v %q", vs[1], vs[1].VerdictText())
	}
	if !strings.Contains(vs[0].MeasuredText(), "min 1.887 of 2") {
		t.Errorf("measured %q", vs[0].MeasuredText())
	}
}
