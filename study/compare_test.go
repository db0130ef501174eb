package study

import (
	"errors"
	"math"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"ioswarm/report"
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

// withIterations gives every phase of s's points n iterations whose
// bandwidths spread by ±frac around the point's.
func withIterations(s *Sweep, n int, frac float64) *Sweep {
	for _, job := range s.Points {
		var phases []result.Phase
		for _, p := range job.Phases {
			for i := 0; i < n; i++ {
				q := p
				q.Iteration = i + 1
				q.Bandwidth = p.Bandwidth * (1 - frac + 2*frac*float64(i)/float64(n-1))
				phases = append(phases, q)
			}
		}
		job.Phases = phases
	}
	s.Setup.Iterations = n
	return s
}

func compareText(t *testing.T, a, b *Sweep) string {
	t.Helper()
	var buf strings.Builder
	if err := WriteCompare(&buf, a, b); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestCompareRules(t *testing.T) {
	// Nothing in common: refused, nothing printed.
	var buf strings.Builder
	err := WriteCompare(&buf, sweepOf("a", map[int][]string{1: {"write"}}), sweepOf("b", map[int][]string{2: {"read"}}))
	if !errors.Is(err, ErrNothingInCommon) || buf.Len() != 0 || !strings.Contains(err.Error(), "threads 1 of write") {
		t.Errorf("no common point: %v, printed %q", err, buf.String())
	}
	// Single runs: said so, and the spread column is "-".
	one := compareText(t, sweepOf("a", map[int][]string{1: {"write"}}), sweepOf("b", map[int][]string{1: {"write"}}))
	if !strings.Contains(one, "ran one iteration per point") || !regexp.MustCompile(`(?m)^\s*write\s+1 .* -$`).MatchString(one) {
		t.Errorf("single runs:\n%s", one)
	}
	// Three iterations, ±5%: 1 vs 1.24 GB/s is beyond the spread, 1 vs 1.02 within.
	a := withIterations(sweepOf("a", map[int][]string{1: {"write"}}), 3, 0.05)
	far := withIterations(sweepOf("b", map[int][]string{1: {"write"}}), 3, 0.05)
	far.Points[0].Phases[0].Bandwidth *= 1.24
	far.Points[0].Phases[1].Bandwidth *= 1.24
	far.Points[0].Phases[2].Bandwidth *= 1.24
	if out := compareText(t, a, far); !strings.Contains(out, "beyond") || strings.Contains(out, "ran one iteration") {
		t.Errorf("24%% apart with ±5%% spread:\n%s", out)
	}
	near := withIterations(sweepOf("b", map[int][]string{1: {"write"}}), 3, 0.05)
	for i := range near.Points[0].Phases {
		near.Points[0].Phases[i].Bandwidth *= 1.02
	}
	if out := compareText(t, a, near); !regexp.MustCompile(`(?m)within$`).MatchString(out) {
		t.Errorf("2%% apart with ±5%% spread:\n%s", out)
	}
	// Different configurations are named.
	x, y := sweepOf("a", map[int][]string{1: {"write"}}), sweepOf("b", map[int][]string{1: {"write"}})
	x.Setup = Setup{Sizing: SizingTotal, Total: 1 << 30, BlockSize: 16 << 20, Fsync: true}
	y.Setup = Setup{Sizing: SizingTotal, Total: 2 << 30, BlockSize: 16 << 20, Fsync: true, Direct: true}
	out := compareText(t, x, y)
	for _, want := range []string{"warning: the configurations differ: size: A aggregate 1GiB fixed, B aggregate 2GiB fixed",
		"O_DIRECT: A off, B on"} {
		// Warnings are wrapped to 80 columns: compare words, not lines.
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("config difference %q not named:\n%s", want, out)
		}
	}
	if strings.Contains(out, "records:") || strings.Contains(out, "fsync:") {
		t.Errorf("a setting both share was named:\n%s", out)
	}
}

// A first-done cell shown as "n/a" is explained under the comparison, as
// under a run's table; with no such cell there is no such line.
func TestCompareExplainsWithheldFirstDone(t *testing.T) {
	a := sweepOf("a", map[int][]string{1: {"write", "read"}})
	b := sweepOf("b", map[int][]string{1: {"write", "read"}})
	if out := compareText(t, a, b); strings.Contains(out, "first-done n/a") {
		t.Errorf("explained an n/a that is not there:\n%s", out)
	}
	b.Points[0].Phases[0].FirstDoneNote = "buffered write with fsync"
	out := compareText(t, a, b)
	if !regexp.MustCompile(`(?m)^\s*write\s+1\s+.*\sn/a\s`).MatchString(out) {
		t.Fatalf("the write's first-done is not n/a:\n%s", out)
	}
	if !strings.Contains(out, report.FirstDoneWithheldNote+"\n") {
		t.Errorf("n/a not explained:\n%s", out)
	}
}
