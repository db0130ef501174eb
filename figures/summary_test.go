package figures

import (
	"math"
	"testing"

	"ioswarm/result"
)

func TestSummarizeOrderAndStats(t *testing.T) {
	ph := func(name string, bw float64, p99 int64) result.Phase {
		return result.Phase{Name: name, Bandwidth: bw, FirstDoneBandwidth: 2 * bw,
			SumOfRates: 3 * bw, IOPS: bw / 10, Latency: result.Latency{P50: p99 / 2, P99: p99, P999: 2 * p99}}
	}
	phases := []result.Phase{
		ph("write", 1e9, 100), ph("read", 5e9, 40), ph("write", 2e9, 300), ph("write", 3e9, 200),
	}
	got := Summarize(phases)
	if len(got) != 2 || got[0].Name != "write" || got[1].Name != "read" {
		t.Fatalf("summaries %+v, want write then read", got)
	}
	w := got[0]
	// Bandwidth 1, 2, 3 GB/s: mean 2, sample variance ((1)²+0+(1)²)/2 = 1,
	// stddev 1 GB/s. p99 100, 300, 200: mean 200, stddev 100.
	wantBW := Stat{Mean: 2e9, Min: 1e9, Max: 3e9, Stddev: 1e9, N: 3}
	checkStat(t, "write bandwidth", w.Bandwidth, wantBW)
	checkStat(t, "write first-done", w.FirstDoneBandwidth, Stat{Mean: 4e9, Min: 2e9, Max: 6e9, Stddev: 2e9, N: 3})
	checkStat(t, "write sum of rates", w.SumOfRates, Stat{Mean: 6e9, Min: 3e9, Max: 9e9, Stddev: 3e9, N: 3})
	checkStat(t, "write iops", w.IOPS, Stat{Mean: 2e8, Min: 1e8, Max: 3e8, Stddev: 1e8, N: 3})
	checkStat(t, "write p99", w.P99, Stat{Mean: 200, Min: 100, Max: 300, Stddev: 100, N: 3})
	checkStat(t, "write p50", w.P50, Stat{Mean: 100, Min: 50, Max: 150, Stddev: 50, N: 3})
	checkStat(t, "write p999", w.P999, Stat{Mean: 400, Min: 200, Max: 600, Stddev: 200, N: 3})
	if w.Iterations != 3 {
		t.Errorf("write iterations %d, want 3", w.Iterations)
	}
	// One iteration: stddev 0, not NaN from dividing by n−1 = 0.
	checkStat(t, "read bandwidth", got[1].Bandwidth, Stat{Mean: 5e9, Min: 5e9, Max: 5e9, N: 1})
}

func checkStat(t *testing.T, name string, got, want Stat) {
	t.Helper()
	ok := got.N == want.N
	for _, p := range [][2]float64{{got.Mean, want.Mean}, {got.Min, want.Min}, {got.Max, want.Max}, {got.Stddev, want.Stddev}} {
		ok = ok && math.Abs(p[0]-p[1]) <= 1e-12*math.Abs(p[1])
	}
	if !ok {
		t.Errorf("%s: %+v, want %+v", name, got, want)
	}
}

func TestSummarizeEmpty(t *testing.T) {
	if got := Summarize(nil); len(got) != 0 {
		t.Fatalf("Summarize(nil) = %+v", got)
	}
}
