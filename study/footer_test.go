package study

import (
	"strings"
	"testing"

	"ioswarm/report"
	"ioswarm/result"
)

// The footer sums the points' time outside their phases and gives the
// median per point; points that recorded none (older files) print none.
func TestFooterSumsTimeOutsideThePhases(t *testing.T) {
	s := &Sweep{LaunchNS: 2.5e9, Points: []*result.Job{
		{ElapsedNS: 10e9, OutsidePhasesNS: 1e9},
		{ElapsedNS: 10e9, OutsidePhasesNS: 4e9},
		{ElapsedNS: 10e9, OutsidePhasesNS: 2e9},
	}}
	var out strings.Builder
	tab := NewTable(&out, s) // prints the header
	out.Reset()
	tab.Footer(s)
	want := "outside the timed phases: launch 2.50 s, then 7.00 s over 3 points (median 2.00 s per point)\n"
	if out.String() != want {
		t.Errorf("footer %q, want %q", out.String(), want)
	}
	old := &Sweep{Points: []*result.Job{{}}}
	tab = NewTable(&out, old)
	out.Reset()
	tab.Footer(old)
	if out.Len() != 0 {
		t.Errorf("a sweep without the figure printed %q", out.String())
	}
}

// A sweep whose rows showed first-done as "n/a" says why in its footer.
func TestFooterExplainsWithheldFirstDone(t *testing.T) {
	s := &Sweep{Points: []*result.Job{
		{Config: result.Config{Threads: 1}, Phases: []result.Phase{{Name: "write", Iteration: 1}, {Name: "read", Iteration: 1}}},
	}}
	var out strings.Builder
	tab := NewTable(&out, s)
	out.Reset()
	tab.Footer(s)
	if out.Len() != 0 {
		t.Errorf("a sweep without n/a printed %q", out.String())
	}
	s.Points[0].Phases[0].FirstDoneNote = "buffered write with fsync"
	tab.Row(s.Points[0])
	row := out.String()
	out.Reset()
	tab.Footer(s)
	if !strings.Contains(row, "n/a") || out.String() != report.FirstDoneWithheldNote+"\n" {
		t.Errorf("row %q, footer %q: want an n/a explained by %q", row, out.String(), report.FirstDoneWithheldNote)
	}
}
