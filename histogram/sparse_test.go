package histogram

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"ioswarm/result"
)

func TestSparseRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	h := New()
	for range 10_000 {
		h.Record(int64(math.Exp(math.Log(2e4) + r.NormFloat64())))
	}
	raw, err := json.Marshal(h.Sparse())
	if err != nil {
		t.Fatal(err)
	}
	var s result.Histogram
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	back, err := FromSparse(&s)
	if err != nil {
		t.Fatalf("FromSparse of Sparse output: %v", err)
	}
	if back.counts != h.counts || back.n != h.n || back.min != h.min || back.max != h.max {
		t.Fatalf("round trip differs: n %d/%d min %d/%d max %d/%d", back.n, h.n, back.min, h.min, back.max, h.max)
	}
	if len(s.Buckets) == 0 || len(s.Buckets) >= NumBuckets {
		t.Fatalf("sparse form has %d buckets: not sparse or empty", len(s.Buckets))
	}
}

func TestSparseEmptyRoundTrip(t *testing.T) {
	back, err := FromSparse(New().Sparse())
	if err != nil {
		t.Fatalf("empty round trip: %v", err)
	}
	if back.Count() != 0 {
		t.Fatalf("empty round trip has count %d", back.Count())
	}
}

func valid() *result.Histogram {
	// Values 3, 3, 300 and 1000: buckets 3, BucketOf(300), BucketOf(1000).
	return &result.Histogram{SubBits: SubBits,
		Buckets: []int{3, BucketOf(300), BucketOf(1000)}, Counts: []int64{2, 1, 1}, Min: 3, Max: 1000}
}

func TestFromSparseRejectsMalformed(t *testing.T) {
	if _, err := FromSparse(valid()); err != nil {
		t.Fatalf("the valid base case is rejected: %v", err)
	}
	cases := []struct {
		name, want string
		edit       func(s *result.Histogram)
	}{
		{"sub_bits", "sub_bits 6", func(s *result.Histogram) { s.SubBits = 6 }},
		{"lengths", "3 buckets but 2 counts", func(s *result.Histogram) { s.Counts = s.Counts[:2] }},
		{"negative index", "index -1 outside", func(s *result.Histogram) { s.Buckets[0] = -1 }},
		{"index too big", "outside [0, 7296)", func(s *result.Histogram) { s.Buckets[2] = NumBuckets }},
		{"repeated index", "not above previous", func(s *result.Histogram) { s.Buckets[1] = 3 }},
		{"decreasing", "not above previous", func(s *result.Histogram) { s.Buckets[2] = 4 }},
		{"zero count", "count 0 is not positive", func(s *result.Histogram) { s.Counts[1] = 0 }},
		{"negative count", "count -2", func(s *result.Histogram) { s.Counts[0] = -2 }},
		{"overflow", "overflows", func(s *result.Histogram) { s.Counts[1] = math.MaxInt64 }},
		{"min outside", "min 4 is outside", func(s *result.Histogram) { s.Min = 4 }},
		{"negative min", "min -3", func(s *result.Histogram) { s.Min = -3; s.Buckets[0] = 0 }},
		{"max outside", "max 2000 is outside", func(s *result.Histogram) { s.Max = 2000 }},
		{"empty with extremes", "empty histogram has min 3", func(s *result.Histogram) {
			s.Buckets, s.Counts = nil, nil
		}},
		{"single value spread", "one value", func(s *result.Histogram) {
			s.Buckets, s.Counts, s.Min, s.Max = []int{BucketOf(1000)}, []int64{1}, 1000, 1003
		}},
	}
	for _, c := range cases {
		s := valid()
		c.edit(s)
		_, err := FromSparse(s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := FromSparse(nil); err == nil {
		t.Error("FromSparse(nil) accepted")
	}
}

// Adding a stored histogram gives what adding the full one gives, and a
// damaged one is refused with h untouched.
func TestMergeSparseEqualsMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	a, b := New(), New()
	for range 5_000 {
		a.Record(int64(math.Exp(math.Log(3e4) + r.NormFloat64())))
		b.Record(int64(math.Exp(math.Log(1e6) + 2*r.NormFloat64())))
	}
	want := New()
	want.Merge(a)
	want.Merge(b)
	got := New()
	got.Merge(a)
	if err := got.MergeSparse(b.Sparse()); err != nil {
		t.Fatal(err)
	}
	if *got != *want {
		t.Fatalf("merged sparse: n %d min %d max %d; merged full: n %d min %d max %d",
			got.n, got.min, got.max, want.n, want.min, want.max)
	}
	bad := b.Sparse()
	bad.Counts[len(bad.Counts)/2] = 0
	if err := got.MergeSparse(bad); err == nil || *got != *want {
		t.Errorf("a damaged histogram: error %v, histogram changed %v", err, *got != *want)
	}
	if err := got.MergeSparse(New().Sparse()); err != nil || *got != *want {
		t.Errorf("an empty histogram: error %v, histogram changed %v", err, *got != *want)
	}
	got.Reset()
	if *got != *New() {
		t.Errorf("Reset left n %d min %d max %d", got.n, got.min, got.max)
	}
}

// Sparse allocates its slices at their final size.
func TestSparseAllocatesOnce(t *testing.T) {
	h := New()
	for v := range int64(300) {
		h.Record(v * 977)
	}
	s := h.Sparse()
	if cap(s.Buckets) != len(s.Buckets) || cap(s.Counts) != len(s.Counts) {
		t.Errorf("capacities %d/%d for %d buckets", cap(s.Buckets), cap(s.Counts), len(s.Buckets))
	}
	if n := testing.AllocsPerRun(10, func() { h.Sparse() }); n > 3 {
		t.Errorf("%v allocations, want 3 at most (the histogram and its two slices)", n)
	}
}
