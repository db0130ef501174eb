package study

import (
	"math"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"ioswarm/result"
)

func TestChange(t *testing.T) {
	cases := []struct {
		a, b float64
		want string
	}{
		{1e9, 1.24e9, "+24.0%"},
		{3.7e9, 3.7e9 * 1.24, "+24.0%"},
		{2, 1, "-50.0%"},
		{5, 5, "+0.0%"},
		{1, 0, "-100.0%"},
		{0, 1, "n/a"},
		{-1, 1, "n/a"},
		{math.NaN(), 1, "n/a"},
		{1, math.Inf(1), "n/a"},
	}
	for _, c := range cases {
		if got := FormatChange(c.a, c.b); got != c.want {
			t.Errorf("FormatChange(%g, %g) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
	if c, ok := Change(100, 124); !ok || math.Abs(c-24) > 1e-9 {
		t.Errorf("Change(100, 124) = %v, %v", c, ok)
	}
}

// sweepOf builds a study from bare figures: phase name → threads → GB/s.
func sweepOf(label string, points map[int][]string) *Sweep {
	s := &Sweep{Label: label}
	for _, n := range []int{1, 2, 4, 8} {
		phases, ok := points[n]
		if !ok {
			continue
		}
		job := &result.Job{Config: result.Config{Threads: n}, Complete: true}
		for _, p := range phases {
			job.Phases = append(job.Phases, result.Phase{Name: p, Iteration: 1, Bandwidth: float64(n) * 1e9})
		}
		s.Points = append(s.Points, job)
	}
	return s
}

func TestMatchOrder(t *testing.T) {
	a := sweepOf("a", map[int][]string{1: {"write", "read"}, 4: {"write", "read"}})
	b := sweepOf("b", map[int][]string{2: {"write", "randread"}, 4: {"read", "write", "randread"}})
	var got []string
	for _, p := range Match(a, b) {
		side := "AB"
		switch {
		case p.A == nil:
			side = "B"
		case p.B == nil:
			side = "A"
		}
		got = append(got, p.Phase+"@"+string(rune('0'+p.Threads))+":"+side)
	}
	want := []string{"write@1:A", "write@2:B", "write@4:AB", "read@1:A", "read@4:AB", "randread@2:B", "randread@4:B"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

// Iterations are averaged: two iterations of 1 and 3 GB/s are 2 GB/s.
func TestFiguresMeanOverIterations(t *testing.T) {
	job := &result.Job{Config: result.Config{Threads: 2}, Complete: true, Phases: []result.Phase{
		{Name: "write", Iteration: 1, Bandwidth: 1e9, IOPS: 10},
		{Name: "write", Iteration: 2, Bandwidth: 3e9, IOPS: 30},
	}}
	f := FiguresOf(job)
	if len(f) != 1 || f[0].Bandwidth != 2e9 || f[0].IOPS != 20 || f[0].Iterations != 2 || f[0].Threads != 2 {
		t.Errorf("got %+v", f)
	}
}

func TestNamesDisambiguate(t *testing.T) {
	a := &Sweep{Source: "x/run.json"}
	b := &Sweep{Source: "y/run.json"}
	c := &Sweep{Label: "gen3", Source: "z.json"}
	got := Names(a, b, c)
	want := []string{"run (x/run.json)", "run (y/run.json)", "gen3"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// Without random phases there are no IOPS columns; a point whose run
// ended early is marked and explained.
func TestCompareSequentialAndIncomplete(t *testing.T) {
	a := sweepOf("a", map[int][]string{1: {"write"}, 2: {"write"}})
	b := sweepOf("b", map[int][]string{1: {"write"}, 2: {"write"}})
	b.Points[1].Complete = false
	var buf strings.Builder
	if err := WriteCompare(&buf, a, b); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "IOPS") {
		t.Errorf("IOPS columns without a random phase:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^\s*write\s+2\*\s`).MatchString(out) || !strings.Contains(out, "* a run that ended early") {
		t.Errorf("incomplete point not marked:\n%s", out)
	}
	if regexp.MustCompile(`(?m)^\s*write\s+1\*`).MatchString(out) {
		t.Errorf("complete point marked:\n%s", out)
	}
}
