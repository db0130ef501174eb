package coordinator

import (
	"ioswarm/histogram"
	"ioswarm/result"
	"ioswarm/wire"
)

// latencyIntervals merges the ranks' per-interval latency histograms of a
// random phase: every rank's interval k starts at the same coordinator
// time (the release), so merging is adding buckets.
type latencyIntervals struct {
	h []*histogram.Histogram
}

func (l *latencyIntervals) add(sparse []*result.Histogram) error {
	for k, s := range sparse {
		if s == nil {
			continue
		}
		h, err := histogram.FromSparse(s)
		if err != nil {
			return err
		}
		for len(l.h) <= k {
			l.h = append(l.h, histogram.New())
		}
		l.h[k].Merge(h)
	}
	return nil
}

// series is the merged intervals from release, or nil for none.
func (l *latencyIntervals) series(release int64) *result.LatencySeries {
	if len(l.h) == 0 {
		return nil
	}
	s := &result.LatencySeries{StartNS: release, StepNS: wire.LatencyStep}
	for _, h := range l.h {
		s.Histograms = append(s.Histograms, h.Sparse())
		var p99 int64
		if h.Count() > 0 {
			p99 = h.Quantile(0.99)
		}
		s.P99 = append(s.P99, p99)
	}
	return s
}
