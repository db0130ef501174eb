package coordinator

import (
	"strings"
	"testing"
	"time"

	"ioswarm/result"
)

func TestReleaseLead(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name    string
		r       readiness
		threads int
		want    time.Duration
	}{
		{"nothing measured yet", readiness{}, 16, firstLead},
		{"three times the last", readiness{took: 10 * ms, threads: 16}, 16, 30 * ms},
		{"never under the floor", readiness{took: ms, threads: 16}, 16, minLead},
		{"twice the threads to start", readiness{took: 10 * ms, threads: 16}, 32, 60 * ms},
		{"fewer threads keep it", readiness{took: 10 * ms, threads: 16}, 4, 30 * ms},
		{"never over the cap", readiness{took: 5 * time.Second, threads: 1}, 1, maxLead},
	} {
		if got := c.r.lead(c.threads); got != c.want {
			t.Errorf("%s: lead %v, want %v", c.name, got, c.want)
		}
	}
}

// One slow phase keeps the lead up for the next few, halving, not for ever.
func TestReadinessForgetsASlowPhaseByHalves(t *testing.T) {
	ms := time.Millisecond
	r := readiness{}.next(80*ms, 8)
	var leads []time.Duration
	for range 4 {
		leads = append(leads, r.lead(8))
		r = r.next(2*ms, 8)
	}
	want := []time.Duration{240 * ms, 120 * ms, 60 * ms, 30 * ms}
	for i := range want {
		if leads[i] != want[i] {
			t.Fatalf("leads after one 80 ms phase then 2 ms ones: %v, want %v", leads, want)
		}
	}
	// Another thread count is another measurement: nothing carried.
	if got := (readiness{took: 80 * ms, threads: 8}).next(2*ms, 16); got.took != 2*ms {
		t.Errorf("after a change of threads the old measurement stayed: %v", got.took)
	}
}

func TestLateWarningNamesTheNode(t *testing.T) {
	p := &result.Phase{Name: "read", ReleaseLeadNS: int64(20 * time.Millisecond), ReleaseMarginNS: int64(5 * time.Millisecond)}
	if w := lateWarning(p, "node07"); w != "" {
		t.Fatalf("ready 5 ms early, warned %q", w)
	}
	p.ReleaseMarginNS = -int64(3 * time.Millisecond)
	w := lateWarning(p, "node07")
	for _, want := range []string{"read:", "node07", "3ms after the release", "lead 20ms", "started late"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
}
