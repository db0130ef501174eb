package figures

import (
	"fmt"

	"ioswarm/histogram"
	"ioswarm/result"
)

// CheckSeries verifies a phase's time series against the phase itself:
// it starts at the phase's earliest thread start, its intervals cover the
// window and no more than one interval beyond it, and its counts, and
// every node's, add up to the phase's bytes and operations (a series
// holds counts, never rates, so sums are exact). A phase without a
// series passes.
func CheckSeries(p *result.Phase) error {
	s := p.Series
	if s == nil {
		return nil
	}
	n := int64(len(s.Ops))
	switch {
	case s.StepNS <= 0 || len(s.Bytes) != len(s.Ops):
		return fmt.Errorf("series: step %d ns, %d byte and %d op intervals", s.StepNS, len(s.Bytes), len(s.Ops))
	case s.StartNS != p.StartNS:
		return fmt.Errorf("series starts at %d, the phase at %d", s.StartNS, p.StartNS)
	case n*s.StepNS < p.WindowNS || (n-1)*s.StepNS >= p.WindowNS:
		return fmt.Errorf("series: %d intervals of %d ns do not just cover the %d ns window", n, s.StepNS, p.WindowNS)
	}
	if b, o := sum(s.Bytes), sum(s.Ops); b != p.Bytes || o != p.Ops {
		return fmt.Errorf("series adds up to %d bytes and %d ops, the phase has %d and %d", b, o, p.Bytes, p.Ops)
	}
	if len(s.ByHost) == 0 {
		return nil
	}
	var hb, ho int64
	for _, h := range s.ByHost {
		if len(h.Bytes) != len(s.Bytes) || len(h.Ops) != len(s.Ops) {
			return fmt.Errorf("series of host %s has %d intervals, the phase's %d", h.Host, len(h.Ops), len(s.Ops))
		}
		hb, ho = hb+sum(h.Bytes), ho+sum(h.Ops)
	}
	if hb != p.Bytes || ho != p.Ops {
		return fmt.Errorf("the nodes' series add up to %d bytes and %d ops, the phase has %d and %d", hb, ho, p.Bytes, p.Ops)
	}
	return nil
}

func sum(v []int64) int64 {
	var t int64
	for _, x := range v {
		t += x
	}
	return t
}

// CheckLatencySeries verifies a random phase's latency per interval: the
// intervals hold every operation of the phase's histogram once, and each
// interval's p99 is its histogram's.
func CheckLatencySeries(p *result.Phase) error {
	s := p.LatencySeries
	if s == nil {
		return nil
	}
	if s.StepNS <= 0 || len(s.P99) != len(s.Histograms) {
		return fmt.Errorf("latency series: step %d ns, %d histograms and %d p99s", s.StepNS, len(s.Histograms), len(s.P99))
	}
	var n int64
	for k, sh := range s.Histograms {
		h, err := histogram.FromSparse(sh)
		if err != nil {
			return fmt.Errorf("latency series interval %d: %w", k, err)
		}
		n += h.Count()
		if p99 := IntervalP99(h); p99 != s.P99[k] {
			return fmt.Errorf("latency series interval %d: p99 %d in the file, %d from its histogram", k, s.P99[k], p99)
		}
	}
	if p.Histogram != nil {
		total, err := histogram.FromSparse(p.Histogram)
		if err != nil {
			return err
		}
		if n != total.Count() {
			return fmt.Errorf("latency series holds %d operations, the phase's histogram %d", n, total.Count())
		}
	}
	return nil
}
