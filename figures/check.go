package figures

import (
	"errors"
	"fmt"
	"math"
	"reflect"

	"ioswarm/result"
)

// rateTolerance is the relative difference allowed between a stored rate
// and its recomputation: float sums in another order differ in the last
// bits, a tampered or stale figure differs by far more.
const rateTolerance = 1e-9

// Check recomputes every figure of every phase of job from its thread
// records and histograms and returns an error naming the phase, iteration
// and field (by its JSON name) of the first figure that differs. Integers
// must match exactly, rates within a relative 1e-9. Latency is checked only
// for phases that carry a histogram. A phase's first_done_note must be the
// one its name and the job's configuration call for (FirstDoneNote).
func Check(job *result.Job) error {
	if job == nil {
		return errors.New("no job to check")
	}
	for i := range job.Phases {
		stored := &job.Phases[i]
		again := *stored // Reduce writes only figure fields, never Threads
		if want := FirstDoneNote(stored.Name, job.Config.WritesCallByCall(), job.Config.Fsync); stored.FirstDoneNote != want {
			return fmt.Errorf("phase %s iteration %d: first_done_note is %q in the file but %q for this phase and configuration",
				stored.Name, stored.Iteration, stored.FirstDoneNote, want)
		}
		if err := Reduce(&again); err != nil {
			return fmt.Errorf("phase %s iteration %d: %w", stored.Name, stored.Iteration, err)
		}
		if err := compare(stored, &again); err != nil {
			return fmt.Errorf("phase %s iteration %d: %w", stored.Name, stored.Iteration, err)
		}
		if err := CheckSeries(stored); err != nil {
			return fmt.Errorf("phase %s iteration %d: %w", stored.Name, stored.Iteration, err)
		}
		if err := CheckLatencySeries(stored); err != nil {
			return fmt.Errorf("phase %s iteration %d: %w", stored.Name, stored.Iteration, err)
		}
	}
	// The time outside the phases, when recorded, is what the job's
	// elapsed time and the phases' windows give, and the phases fit in it.
	if job.ElapsedNS != 0 {
		if want := result.OutsidePhases(job.ElapsedNS, job.Phases); job.OutsidePhasesNS != want {
			return fmt.Errorf("outside_phases_ns is %d in the file but elapsed_ns less the phases' windows is %d", job.OutsidePhasesNS, want)
		}
		if job.OutsidePhasesNS < 0 {
			return fmt.Errorf("the phases' windows add up to more than the job's elapsed time (%d ns)", job.ElapsedNS)
		}
	}
	// The summary, when present, must be what the phases give.
	if len(job.Summary) > 0 && !reflect.DeepEqual(job.Summary, Summarize(job.Phases)) {
		return errors.New("summary across iterations does not match the phases' figures")
	}
	return nil
}

type intField struct {
	name          string
	stored, again int64
}

type rateField struct {
	name          string
	stored, again float64
}

// compare reports the first field where stored differs from again.
func compare(stored, again *result.Phase) error {
	ints := []intField{
		{"bytes", stored.Bytes, again.Bytes},
		{"ops", stored.Ops, again.Ops},
		{"window_ns", stored.WindowNS, again.WindowNS},
		{"start_skew_ns", stored.StartSkewNS, again.StartSkewNS},
		{"first_done_ns", stored.FirstDoneNS, again.FirstDoneNS},
		{"start_ns", stored.StartNS, again.StartNS},
	}
	if stored.Histogram != nil {
		ints = append(ints,
			intField{"latency_ns.p50", stored.Latency.P50, again.Latency.P50},
			intField{"latency_ns.p99", stored.Latency.P99, again.Latency.P99},
			intField{"latency_ns.p999", stored.Latency.P999, again.Latency.P999},
			intField{"latency_ns.max", stored.Latency.Max, again.Latency.Max})
	}
	ints, err := appendFsync(ints, stored.FsyncLatency, again.FsyncLatency)
	if err != nil {
		return err
	}
	for _, f := range ints {
		if f.stored != f.again {
			return fmt.Errorf("%s is %d in the file but %d from the records", f.name, f.stored, f.again)
		}
	}
	rates := []rateField{
		{"bandwidth", stored.Bandwidth, again.Bandwidth},
		{"first_done_bandwidth", stored.FirstDoneBandwidth, again.FirstDoneBandwidth},
		{"sum_of_rates", stored.SumOfRates, again.SumOfRates},
		{"iops", stored.IOPS, again.IOPS},
		{"thread_bandwidth.min", stored.ThreadBandwidth.Min, again.ThreadBandwidth.Min},
		{"thread_bandwidth.mean", stored.ThreadBandwidth.Mean, again.ThreadBandwidth.Mean},
		{"thread_bandwidth.max", stored.ThreadBandwidth.Max, again.ThreadBandwidth.Max},
		{"fsync_share", stored.FsyncShare, again.FsyncShare},
		{"ops_per_sec", stored.OpsPerSec, again.OpsPerSec},
		{"first_done_ops_per_sec", stored.FirstDoneOpsPerSec, again.FirstDoneOpsPerSec},
	}
	if (stored.ThreadOpsPerSec == nil) != (again.ThreadOpsPerSec == nil) {
		return fmt.Errorf("thread_ops_per_sec is %v in the file but %v from the records", stored.ThreadOpsPerSec, again.ThreadOpsPerSec)
	}
	if s, a := stored.ThreadOpsPerSec, again.ThreadOpsPerSec; s != nil {
		rates = append(rates,
			rateField{"thread_ops_per_sec.min", s.Min, a.Min},
			rateField{"thread_ops_per_sec.mean", s.Mean, a.Mean},
			rateField{"thread_ops_per_sec.max", s.Max, a.Max})
	}
	for _, f := range rates {
		if !agree(f.stored, f.again) {
			return fmt.Errorf("%s is %g in the file but %g from the records", f.name, f.stored, f.again)
		}
	}
	return nil
}

// appendFsync adds the fsync percentiles to the fields to compare; a file
// that has them where the records give none, or the reverse, is wrong.
func appendFsync(ints []intField, stored, again *result.Latency) ([]intField, error) {
	switch {
	case stored == nil && again == nil:
		return ints, nil
	case stored == nil || again == nil:
		return nil, fmt.Errorf("fsync_latency_ns is %v in the file but %v from the records", stored, again)
	}
	return append(ints,
		intField{"fsync_latency_ns.p50", stored.P50, again.P50},
		intField{"fsync_latency_ns.p99", stored.P99, again.P99},
		intField{"fsync_latency_ns.p999", stored.P999, again.P999},
		intField{"fsync_latency_ns.max", stored.Max, again.Max}), nil
}

// agree reports whether a and b agree within rateTolerance of the larger.
// NaN never agrees with anything, so a NaN in memory is always caught.
func agree(a, b float64) bool {
	return math.Abs(a-b) <= rateTolerance*max(math.Abs(a), math.Abs(b))
}
