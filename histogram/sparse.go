package histogram

import (
	"errors"
	"fmt"
	"math"

	"ioswarm/result"
)

// Sparse returns the non-empty buckets in increasing order with the exact
// minimum and maximum: the form stored in result files. Its slices are
// allocated once, at their final size.
func (h *Histogram) Sparse() *result.Histogram {
	n := 0
	for _, c := range h.counts {
		if c != 0 {
			n++
		}
	}
	s := &result.Histogram{
		SubBits: SubBits,
		Buckets: make([]int, 0, n),
		Counts:  make([]int64, 0, n),
		Min:     h.min,
		Max:     h.max,
	}
	for i, c := range h.counts {
		if c != 0 {
			s.Buckets = append(s.Buckets, i)
			s.Counts = append(s.Counts, c)
		}
	}
	return s
}

// FromSparse rebuilds a histogram from its stored form. It checks
// everything a damaged or hand-edited file could get wrong, because
// percentiles recomputed from a bad histogram would be silently wrong.
func FromSparse(s *result.Histogram) (*Histogram, error) {
	h := New()
	if err := h.MergeSparse(s); err != nil {
		return nil, err
	}
	return h, nil
}

// MergeSparse adds every value counted by a stored histogram to h, as
// Merge does for a full one. s is checked as FromSparse checks it; on an
// error h is left as it was.
func (h *Histogram) MergeSparse(s *result.Histogram) error {
	n, err := checkSparse(s)
	if err != nil || n == 0 {
		return err
	}
	if n > math.MaxInt64-h.n {
		return fmt.Errorf("histogram of %d values: total count overflows", n)
	}
	for k, idx := range s.Buckets {
		h.counts[idx] += s.Counts[k]
	}
	if h.n == 0 || s.Min < h.min {
		h.min = s.Min
	}
	if h.n == 0 || s.Max > h.max {
		h.max = s.Max
	}
	h.n += n
	return nil
}

// Reset empties h for reuse without allocating.
func (h *Histogram) Reset() { *h = Histogram{} }

// checkSparse checks a stored histogram and returns how many values it
// counts.
func checkSparse(s *result.Histogram) (int64, error) {
	if s == nil {
		return 0, errors.New("histogram is missing")
	}
	if s.SubBits != SubBits {
		return 0, fmt.Errorf("histogram has sub_bits %d, this build reads only %d", s.SubBits, SubBits)
	}
	if len(s.Buckets) != len(s.Counts) {
		return 0, fmt.Errorf("histogram has %d buckets but %d counts", len(s.Buckets), len(s.Counts))
	}
	var n int64
	prev := -1
	for k, idx := range s.Buckets {
		if idx < 0 || idx >= NumBuckets {
			return 0, fmt.Errorf("histogram bucket #%d: index %d outside [0, %d)", k, idx, NumBuckets)
		}
		if idx <= prev {
			return 0, fmt.Errorf("histogram bucket #%d: index %d not above previous index %d", k, idx, prev)
		}
		c := s.Counts[k]
		if c <= 0 {
			return 0, fmt.Errorf("histogram bucket #%d (index %d): count %d is not positive", k, idx, c)
		}
		if c > math.MaxInt64-n {
			return 0, fmt.Errorf("histogram bucket #%d (index %d): total count overflows", k, idx)
		}
		n += c
		prev = idx
	}
	return n, checkExtremes(s, n)
}

// checkExtremes verifies that min and max lie in the first and last
// non-empty buckets, which they must if they were recorded with them.
func checkExtremes(s *result.Histogram, n int64) error {
	if n == 0 {
		if s.Min != 0 || s.Max != 0 {
			return fmt.Errorf("empty histogram has min %d and max %d, want 0", s.Min, s.Max)
		}
		return nil
	}
	first, last := s.Buckets[0], s.Buckets[len(s.Buckets)-1]
	if s.Min < 0 || BucketOf(s.Min) != first {
		lo, hi := Bounds(first)
		return fmt.Errorf("histogram min %d is outside its first bucket [%d, %d]", s.Min, lo, hi)
	}
	if s.Max < s.Min || BucketOf(s.Max) != last {
		lo, hi := Bounds(last)
		return fmt.Errorf("histogram max %d is outside its last bucket [%d, %d] or below min %d", s.Max, lo, hi, s.Min)
	}
	if n == 1 && s.Min != s.Max {
		return fmt.Errorf("histogram of one value has min %d and max %d", s.Min, s.Max)
	}
	return nil
}
