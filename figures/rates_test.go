package figures

import (
	"testing"

	"ioswarm/histogram"
	"ioswarm/result"
)

// A thread's rate is the one Reduce adds into the sum of rates, and an
// empty interval is no rate rather than a division by zero.
func TestThreadRateIsReducesRate(t *testing.T) {
	threads := []result.Thread{
		{Thread: 0, Bytes: 3 << 20, Ops: 3, StartNS: 1_000, EndNS: 7_001_000},
		{Thread: 1, Bytes: 5 << 20, Ops: 5, StartNS: 2_000, EndNS: 13_002_000},
	}
	p := result.Phase{Threads: threads}
	if err := Reduce(&p); err != nil {
		t.Fatal(err)
	}
	if sum := ThreadRate(&threads[0]) + ThreadRate(&threads[1]); sum != p.SumOfRates {
		t.Errorf("thread rates add up to %v, the phase's sum of rates is %v", sum, p.SumOfRates)
	}
	if got := Rate(p.Bytes, p.WindowNS); got != p.Bandwidth {
		t.Errorf("Rate(bytes, window) %v, bandwidth %v", got, p.Bandwidth)
	}
	if got := ThreadRate(&result.Thread{Bytes: 10, StartNS: 5, EndNS: 5}); got != 0 {
		t.Errorf("a thread with no interval has rate %v, want 0", got)
	}
}

func TestMedian(t *testing.T) {
	v := []float64{5, 1, 3, 2}
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{4}, 4}, {[]float64{3, 1, 2}, 2}, {v, 2.5}} {
		if got := Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if v[0] != 5 || v[3] != 2 {
		t.Errorf("Median reordered its input: %v", v)
	}
}

func TestIntervalP99(t *testing.T) {
	h := histogram.New()
	if got := IntervalP99(h); got != 0 {
		t.Errorf("an empty interval's p99 is %d, want 0", got)
	}
	for i := int64(1); i <= 100; i++ {
		h.Record(i * 1000)
	}
	if got, want := IntervalP99(h), h.Quantile(0.99); got != want || got == 0 {
		t.Errorf("p99 %d, want the histogram's %d", got, want)
	}
}

func TestReleaseSkew(t *testing.T) {
	if got := ReleaseSkew(nil); got != 0 {
		t.Errorf("no release: skew %d, want 0", got)
	}
	if got := ReleaseSkew([]int64{50, 20, 90, 40}); got != 70 {
		t.Errorf("skew %d, want 70", got)
	}
}
