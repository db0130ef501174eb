package histogram

import (
	"errors"
	"fmt"
	"math"

	"ioswarm/result"
)

// Sparse returns the non-empty buckets in increasing order with the exact
// minimum and maximum: the form stored in result files.
func (h *Histogram) Sparse() *result.Histogram {
	s := &result.Histogram{
		SubBits: SubBits,
		Buckets: []int{},
		Counts:  []int64{},
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
	if s == nil {
		return nil, errors.New("histogram is missing")
	}
	if s.SubBits != SubBits {
		return nil, fmt.Errorf("histogram has sub_bits %d, this build reads only %d", s.SubBits, SubBits)
	}
	if len(s.Buckets) != len(s.Counts) {
		return nil, fmt.Errorf("histogram has %d buckets but %d counts", len(s.Buckets), len(s.Counts))
	}
	h := New()
	prev := -1
	for k, idx := range s.Buckets {
		if idx < 0 || idx >= NumBuckets {
			return nil, fmt.Errorf("histogram bucket #%d: index %d outside [0, %d)", k, idx, NumBuckets)
		}
		if idx <= prev {
			return nil, fmt.Errorf("histogram bucket #%d: index %d not above previous index %d", k, idx, prev)
		}
		c := s.Counts[k]
		if c <= 0 {
			return nil, fmt.Errorf("histogram bucket #%d (index %d): count %d is not positive", k, idx, c)
		}
		if c > math.MaxInt64-h.n {
			return nil, fmt.Errorf("histogram bucket #%d (index %d): total count overflows", k, idx)
		}
		h.counts[idx] = c
		h.n += c
		prev = idx
	}
	if err := checkExtremes(s, h.n); err != nil {
		return nil, err
	}
	h.min, h.max = s.Min, s.Max
	return h, nil
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
