package histogram

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func record(values []int64) *Histogram {
	h := New()
	for _, v := range values {
		h.Record(v)
	}
	return h
}

func TestSmallExactQuantiles(t *testing.T) {
	var values []int64
	for v := int64(1); v <= 100; v++ {
		values = append(values, v)
	}
	h := record(values)
	// n = 100, rank = ceil(q*100): q=0.5 → 50th value = 50, q=0.99 → 99,
	// q=0.999 → ceil(99.9) = 100, q=0.001 → ceil(0.1) = 1.
	cases := []struct {
		q    float64
		want int64
	}{{0, 1}, {0.001, 1}, {0.5, 50}, {0.505, 51}, {0.99, 99}, {0.999, 100}, {1, 100}}
	for _, c := range cases {
		if got := h.Quantile(c.q); got != c.want {
			t.Errorf("Quantile(%v) = %d, want %d", c.q, got, c.want)
		}
	}
	if h.Count() != 100 || h.Min() != 1 || h.Max() != 100 {
		t.Errorf("count/min/max = %d/%d/%d, want 100/1/100", h.Count(), h.Min(), h.Max())
	}
}

func TestEmptyAndNegative(t *testing.T) {
	h := New()
	if h.Quantile(0.5) != 0 || h.Count() != 0 || h.Min() != 0 || h.Max() != 0 {
		t.Fatalf("empty histogram: q50 %d count %d min %d max %d", h.Quantile(0.5), h.Count(), h.Min(), h.Max())
	}
	h.Record(-5)
	h.Record(7)
	if h.Min() != 0 || h.Max() != 7 || h.counts[0] != 1 {
		t.Fatalf("after Record(-5), Record(7): min %d max %d bucket0 %d", h.Min(), h.Max(), h.counts[0])
	}
}

func TestMaxExactInWideBucket(t *testing.T) {
	// 1_000_003 lies in a bucket 8192 wide; the midpoint would be wrong,
	// so q=1 and a lone sample must come back exactly.
	h := record([]int64{1_000_003})
	for _, q := range []float64{0, 0.5, 1} {
		if got := h.Quantile(q); got != 1_000_003 {
			t.Errorf("Quantile(%v) of one sample = %d, want 1000003", q, got)
		}
	}
}

func TestExtremeRanksAreExact(t *testing.T) {
	// 3 values in wide buckets: rank ceil(0.999*3) = 3 = n is the max and
	// rank ceil(0.2*3) = 1 is the min, both known exactly; rank 2 is the
	// midpoint of 2_000_001's bucket [1998848, 2007039] (2^20 ≤ v < 2^21,
	// width 2^(20−7) = 8192): 1998848 + 4095 = 2002943.
	h := record([]int64{1_000_003, 2_000_001, 3_000_005})
	if got := h.Quantile(0.999); got != 3_000_005 {
		t.Errorf("Quantile(0.999) = %d, want the exact max 3000005", got)
	}
	if got := h.Quantile(0.2); got != 1_000_003 {
		t.Errorf("Quantile(0.2) = %d, want the exact min 1000003", got)
	}
	if got := h.Quantile(0.5); got != 2_002_943 {
		t.Errorf("Quantile(0.5) = %d, want bucket midpoint 2002943", got)
	}
}

type distribution struct {
	name string
	draw func(r *rand.Rand) int64
}

func distributions() []distribution {
	return []distribution{
		{"uniform", func(r *rand.Rand) int64 { return 1000 + r.Int64N(999_000) }},
		{"lognormal", func(r *rand.Rand) int64 {
			return int64(math.Exp(math.Log(50_000) + r.NormFloat64()))
		}},
		{"bimodal", func(r *rand.Rand) int64 {
			if r.IntN(10) == 0 {
				return int64(5e6 + 2e5*r.NormFloat64())
			}
			return int64(1e5 + 1e4*r.NormFloat64())
		}},
		{"small", func(r *rand.Rand) int64 { return r.Int64N(300) }},
	}
}

func TestQuantileAgainstSortedSamples(t *testing.T) {
	quantiles := []float64{0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999, 1}
	for seed, d := range distributions() {
		r := rand.New(rand.NewPCG(uint64(seed), 99))
		values := make([]int64, 200_001)
		for i := range values {
			values[i] = d.draw(r)
		}
		h := record(values)
		slices.Sort(values)
		for _, q := range quantiles {
			rank := max(1, int(math.Ceil(q*float64(len(values)))))
			want := values[rank-1]
			got := h.Quantile(q)
			checkClose(t, d.name, q, got, want)
		}
	}
}

// checkClose demands an exact answer below 2^SubBits (exact buckets) and
// at q=1, and 1% relative error elsewhere.
func checkClose(t *testing.T, name string, q float64, got, want int64) {
	t.Helper()
	if want < subCount || q == 1 {
		if got != want {
			t.Errorf("%s: Quantile(%v) = %d, want exactly %d", name, q, got, want)
		}
		return
	}
	if rel := math.Abs(float64(got-want)) / float64(want); rel > 0.01 {
		t.Errorf("%s: Quantile(%v) = %d, want %d (relative error %.4f)", name, q, got, want, rel)
	}
}

func TestMergeEqualsUnion(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	all := New()
	parts := []*Histogram{New(), New(), New(), New()}
	for i := range 50_000 {
		v := int64(math.Exp(math.Log(1e5) + 2*r.NormFloat64()))
		all.Record(v)
		parts[i%len(parts)].Record(v)
	}
	merged := New()
	merged.Merge(New()) // an empty part must change nothing
	for _, p := range parts {
		merged.Merge(p)
	}
	merged.Merge(nil)
	if merged.counts != all.counts {
		for i := range all.counts {
			if merged.counts[i] != all.counts[i] {
				t.Fatalf("bucket %d: merged %d, union %d", i, merged.counts[i], all.counts[i])
			}
		}
	}
	if merged.Count() != all.Count() || merged.Min() != all.Min() || merged.Max() != all.Max() {
		t.Fatalf("merged count/min/max %d/%d/%d, union %d/%d/%d",
			merged.Count(), merged.Min(), merged.Max(), all.Count(), all.Min(), all.Max())
	}
}

func TestMergeKeepsExtremesOfEitherSide(t *testing.T) {
	a := record([]int64{500, 600})
	b := record([]int64{50, 9000})
	a.Merge(b)
	if a.Min() != 50 || a.Max() != 9000 || a.Count() != 4 {
		t.Fatalf("min/max/count = %d/%d/%d, want 50/9000/4", a.Min(), a.Max(), a.Count())
	}
}

func TestRecordDoesNotAllocate(t *testing.T) {
	h := New()
	v := int64(1)
	allocs := testing.AllocsPerRun(1000, func() {
		h.Record(v)
		v = v*3 + 1
	})
	if allocs != 0 {
		t.Fatalf("Record allocates %.1f times per call", allocs)
	}
}

func BenchmarkRecord(b *testing.B) {
	h := New()
	b.ReportAllocs()
	v := int64(12345)
	for b.Loop() {
		h.Record(v)
		// A cheap varying value so the benchmark does not hit one bucket.
		v = (v*1103515245 + 12345) & (1<<40 - 1)
	}
}
