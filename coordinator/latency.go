package coordinator

import (
	"ioswarm/figures"
	"ioswarm/histogram"
	"ioswarm/result"
	"ioswarm/wire"
)

// latencyIntervals merges the ranks' per-interval latency histograms of a
// random phase: every rank's interval k starts at the same coordinator
// time (the release), so merging is adding buckets. Each interval is kept
// sparse, as the ranks send it: full histograms would take 58 KiB a
// second, 209 MiB for an hour-long phase.
type latencyIntervals struct {
	h    []*result.Histogram
	work *histogram.Histogram // where one interval is merged, reused
}

func (l *latencyIntervals) add(sparse []*result.Histogram) error {
	for k, s := range sparse {
		if s == nil {
			continue
		}
		for len(l.h) <= k {
			l.h = append(l.h, nil)
		}
		if l.work == nil {
			l.work = histogram.New()
		}
		l.work.Reset()
		if l.h[k] != nil {
			// Made by Sparse below: it cannot be refused.
			_ = l.work.MergeSparse(l.h[k])
		}
		if err := l.work.MergeSparse(s); err != nil {
			return err
		}
		l.h[k] = l.work.Sparse()
	}
	return nil
}

// series is the merged intervals from release, or nil for none.
func (l *latencyIntervals) series(release int64) *result.LatencySeries {
	if len(l.h) == 0 {
		return nil
	}
	s := &result.LatencySeries{StartNS: release, StepNS: wire.LatencyStep}
	h := histogram.New()
	for _, sp := range l.h {
		h.Reset()
		if sp != nil {
			_ = h.MergeSparse(sp) // made by Sparse in add
		} else {
			sp = h.Sparse()
		}
		s.Histograms = append(s.Histograms, sp)
		s.P99 = append(s.P99, figures.IntervalP99(h))
	}
	return s
}
