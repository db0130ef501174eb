package study

import (
	"strings"
	"testing"

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
