package histogram

import "math"

// Histogram counts int64 values (nanoseconds) in log-linear buckets and
// keeps the exact count, minimum and maximum.
type Histogram struct {
	counts [NumBuckets]int64
	n      int64
	min    int64
	max    int64
}

// New returns an empty histogram. All memory is allocated here, once, so
// that Record inside a timed loop never allocates.
func New() *Histogram {
	return &Histogram{}
}

// Record counts one value; a negative value counts as 0 (a clock that
// stepped backwards is not a negative latency).
func (h *Histogram) Record(v int64) {
	if v < 0 {
		v = 0
	}
	if h.n == 0 || v < h.min {
		h.min = v
	}
	if h.n == 0 || v > h.max {
		h.max = v
	}
	h.counts[BucketOf(v)]++
	h.n++
}

// Merge adds every value counted by o to h, bucket by bucket, so the
// result equals the histogram of the union of both sets of values.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil || o.n == 0 {
		return
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	if h.n == 0 || o.max > h.max {
		h.max = o.max
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
}

// Count returns how many values were recorded.
func (h *Histogram) Count() int64 { return h.n }

// Min returns the smallest value recorded, exactly; 0 when empty.
func (h *Histogram) Min() int64 { return h.min }

// Max returns the largest value recorded, exactly; 0 when empty.
func (h *Histogram) Max() int64 { return h.max }

// Quantile returns the value at rank ceil(q*n) (1-based) of the recorded
// values, reported as the midpoint of its bucket and clamped to
// [Min, Max], so it is within half a bucket width of the true value.
// Ranks 1 and n are the exact Min and Max, which are known, so q >= 1,
// q <= 0 (or NaN) and any q whose rank is n (p99.9 of fewer than 1000
// values) answer exactly. An empty histogram returns 0.
func (h *Histogram) Quantile(q float64) int64 {
	if h.n == 0 {
		return 0
	}
	if q >= 1 {
		return h.max
	}
	if !(q > 0) {
		return h.min
	}
	rank := int64(math.Ceil(q * float64(h.n)))
	if rank >= h.n {
		return h.max
	}
	if rank <= 1 {
		return h.min
	}
	var seen int64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return max(h.min, min(midpoint(i), h.max))
		}
	}
	// Unreachable while n equals the sum of counts, which every method
	// keeps true; Max is the only honest answer if it ever were reached.
	return h.max
}
