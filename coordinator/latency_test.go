package coordinator

import (
	"testing"

	"ioswarm/histogram"
	"ioswarm/result"
)

// Ranks' intervals merge interval by interval into what one histogram of
// all their values would be, a rank's gap stays a gap for that rank only,
// and each interval's p99 is its merged histogram's.
func TestLatencyIntervalsMergeRanks(t *testing.T) {
	rank := func(values ...[]int64) []*result.Histogram {
		out := make([]*result.Histogram, len(values))
		for k, vs := range values {
			if vs == nil {
				continue
			}
			h := histogram.New()
			for _, v := range vs {
				h.Record(v)
			}
			out[k] = h.Sparse()
		}
		return out
	}
	var l latencyIntervals
	for _, r := range [][]*result.Histogram{
		rank([]int64{100, 200}, nil, []int64{5000}),
		rank([]int64{300}, []int64{70}),
		rank(nil, nil, []int64{9000, 1}),
	} {
		if err := l.add(r); err != nil {
			t.Fatal(err)
		}
	}
	s := l.series(42)
	want := [][]int64{{100, 200, 300}, {70}, {5000, 9000, 1}}
	if s.StartNS != 42 || len(s.Histograms) != len(want) {
		t.Fatalf("series from %d with %d intervals, want 42 and %d", s.StartNS, len(s.Histograms), len(want))
	}
	for k, vs := range want {
		h := histogram.New()
		for _, v := range vs {
			h.Record(v)
		}
		got, err := histogram.FromSparse(s.Histograms[k])
		if err != nil {
			t.Fatalf("interval %d: %v", k, err)
		}
		if *got != *h || s.P99[k] != h.Quantile(0.99) {
			t.Errorf("interval %d: n %d min %d max %d p99 %d; want n %d min %d max %d p99 %d",
				k, got.Count(), got.Min(), got.Max(), s.P99[k], h.Count(), h.Min(), h.Max(), h.Quantile(0.99))
		}
	}
	bad := rank([]int64{1})
	bad[0].Counts[0] = -1
	if err := l.add(bad); err == nil {
		t.Error("a damaged histogram from a rank was merged")
	}
}
