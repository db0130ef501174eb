package figures

import (
	"slices"

	"ioswarm/histogram"
	"ioswarm/result"
)

// Rate is count per second over ns nanoseconds, 0 for an empty interval:
// the one expression behind every rate a report prints, so a node's or a
// thread's rate is computed as the phase's bandwidth is.
func Rate(count, ns int64) float64 {
	return PerSecond(float64(count), ns)
}

// PerSecond is v per second over ns nanoseconds, 0 for an empty interval:
// Rate for amounts that are not whole counts (IOzone's kB, a stonewalled
// child's share of its operations).
func PerSecond(v float64, ns int64) float64 {
	if ns <= 0 {
		return 0
	}
	return v * nsPerSecond / float64(ns)
}

// ThreadRate is a thread's bytes over its own interval (start before
// open to end after close): the figure SumOfRates adds up and
// ThreadBandwidth spreads.
func ThreadRate(th *result.Thread) float64 {
	return Rate(th.Bytes, th.EndNS-th.StartNS)
}

// Median is the middle of v, or the mean of the two middle values; 0 for
// none. v is left as it was.
func Median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// IntervalP99 is one interval's p99 latency in a latency series, 0 for an
// interval without operations.
func IntervalP99(h *histogram.Histogram) int64 {
	if h.Count() == 0 {
		return 0
	}
	return h.Quantile(0.99)
}

// ReleaseSkew is the barrier release skew: the spread (latest minus
// earliest) of the moments the ranks released their threads, on the
// coordinator's clock; 0 for none. What is left of it after the clock
// conversion is each rank's lateness, never fan-out latency.
func ReleaseSkew(released []int64) int64 {
	if len(released) == 0 {
		return 0
	}
	return slices.Max(released) - slices.Min(released)
}
