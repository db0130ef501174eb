package figures

import (
	"encoding/json"
	"strings"
	"testing"

	"ioswarm/result"
)

func reducedJob(t *testing.T) *result.Job {
	t.Helper()
	job := &result.Job{Version: "test", Phases: []result.Phase{skewedPhase(), randPhase()}}
	for i := range job.Phases {
		if err := Reduce(&job.Phases[i]); err != nil {
			t.Fatal(err)
		}
	}
	return job
}

func TestCheckAcceptsReducedJobAfterJSON(t *testing.T) {
	raw, err := json.Marshal(reducedJob(t))
	if err != nil {
		t.Fatal(err)
	}
	var job result.Job
	if err := json.Unmarshal(raw, &job); err != nil {
		t.Fatal(err)
	}
	if err := Check(&job); err != nil {
		t.Fatalf("Check of an untouched job after a JSON round trip: %v", err)
	}
}

func TestCheckToleratesRoundingOnly(t *testing.T) {
	job := reducedJob(t)
	job.Phases[0].Bandwidth *= 1 + 1e-12
	if err := Check(job); err != nil {
		t.Fatalf("a 1e-12 relative difference was rejected: %v", err)
	}
	job.Phases[0].Bandwidth *= 1 + 1e-6
	if err := Check(job); err == nil {
		t.Fatal("a 1e-6 relative difference was accepted")
	}
}

func TestCheckCatchesEachTamperedField(t *testing.T) {
	cases := []struct {
		field string
		phase int
		edit  func(p *result.Phase)
	}{
		{"bytes", 0, func(p *result.Phase) { p.Bytes++ }},
		{"ops", 0, func(p *result.Phase) { p.Ops-- }},
		{"window_ns", 0, func(p *result.Phase) { p.WindowNS++ }},
		{"start_skew_ns", 0, func(p *result.Phase) { p.StartSkewNS = 0 }},
		{"first_done_ns", 0, func(p *result.Phase) { p.FirstDoneNS++ }},
		{"start_ns", 0, func(p *result.Phase) { p.StartNS-- }},
		{"bandwidth", 0, func(p *result.Phase) { p.Bandwidth = 81e6 }},
		{"first_done_bandwidth", 0, func(p *result.Phase) { p.FirstDoneBandwidth = p.SumOfRates }},
		{"sum_of_rates", 0, func(p *result.Phase) { p.SumOfRates *= 1.01 }},
		{"iops", 1, func(p *result.Phase) { p.IOPS++ }},
		{"thread_bandwidth.min", 0, func(p *result.Phase) { p.ThreadBandwidth.Min = 0 }},
		{"thread_bandwidth.mean", 0, func(p *result.Phase) { p.ThreadBandwidth.Mean /= 2 }},
		{"thread_bandwidth.max", 0, func(p *result.Phase) { p.ThreadBandwidth.Max *= 2 }},
		{"latency_ns.p50", 1, func(p *result.Phase) { p.Latency.P50 = 101 }},
		{"latency_ns.p99", 1, func(p *result.Phase) { p.Latency.P99 = 99 }},
		{"latency_ns.p999", 1, func(p *result.Phase) { p.Latency.P999 = 100 }},
		{"latency_ns.max", 1, func(p *result.Phase) { p.Latency.Max = 4_999_999 }},
	}
	for _, c := range cases {
		job := reducedJob(t)
		p := &job.Phases[c.phase]
		c.edit(p)
		err := Check(job)
		prefix := "phase " + p.Name + " iteration 1: " + c.field + " is "
		if err == nil || !strings.HasPrefix(err.Error(), prefix) {
			t.Errorf("tampered %s: error %v, want prefix %q", c.field, err, prefix)
		}
	}
}

func TestCheckTamperedRecordOrHistogram(t *testing.T) {
	job := reducedJob(t)
	// Moving thread B's end changes the window the stored figures used.
	job.Phases[0].Threads[1].EndNS += sec
	if err := Check(job); err == nil || !strings.HasPrefix(err.Error(), "phase write iteration 1: window_ns is 2500000000 ") {
		t.Errorf("moved end time: error %v, want window_ns named", err)
	}
	job = reducedJob(t)
	// 11 of 110 ops at 5 ms move p99 (rank 109) out of the 100 ns bucket.
	job.Phases[1].Histogram.Counts[1] += 10
	if err := Check(job); err == nil || !strings.Contains(err.Error(), "phase randread iteration 1: latency_ns.") {
		t.Errorf("tampered histogram: error %v, want a latency field named", err)
	}
}

func TestCheckRejectsUnreducible(t *testing.T) {
	job := reducedJob(t)
	job.Phases[1].Threads = nil
	err := Check(job)
	if err == nil || err.Error() != "phase randread iteration 1: no thread records" {
		t.Fatalf("error %v", err)
	}
	if Check(nil) == nil {
		t.Fatal("Check(nil) passed")
	}
}

// A result file's summary across iterations is checked against its phases.
func TestCheckCatchesTamperedSummary(t *testing.T) {
	job := reducedJob(t)
	job.Summary = Summarize(job.Phases)
	if err := Check(job); err != nil {
		t.Fatalf("true summary rejected: %v", err)
	}
	job.Summary[0].Bandwidth.Mean *= 1.01
	if err := Check(job); err == nil || !strings.Contains(err.Error(), "summary") {
		t.Fatalf("tampered summary passed: %v", err)
	}
}

// The time outside the phases is elapsed less the windows; a file whose
// figure disagrees, or whose windows do not fit in its elapsed time, is
// caught.
func TestCheckCatchesTamperedOutsidePhases(t *testing.T) {
	job := reducedJob(t)
	var windows int64
	for _, p := range job.Phases {
		windows += p.WindowNS
	}
	job.ElapsedNS = windows + 5e9
	job.OutsidePhasesNS = 5e9
	if err := Check(job); err != nil {
		t.Fatalf("true figure rejected: %v", err)
	}
	job.OutsidePhasesNS = 4e9
	if err := Check(job); err == nil || !strings.Contains(err.Error(), "outside_phases_ns") {
		t.Fatalf("tampered outside_phases_ns passed: %v", err)
	}
	job.ElapsedNS, job.OutsidePhasesNS = windows-1, -1
	if err := Check(job); err == nil || !strings.Contains(err.Error(), "more than the job's elapsed") {
		t.Fatalf("windows longer than the job passed: %v", err)
	}
}
