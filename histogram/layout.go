package histogram

import "math/bits"

// SubBits fixes the bucket layout; it is written into every sparse
// histogram so a file made with another layout is refused, not misread.
const SubBits = 7

// subCount is the number of buckets per power of two, and also the
// number of exact buckets at the bottom of the range.
const subCount = 1 << SubBits

// NumBuckets covers every non-negative int64: subCount exact buckets, then
// subCount buckets for each power of two from 2^SubBits to 2^62.
const NumBuckets = (64 - SubBits) * subCount

// BucketOf returns the index of the bucket holding v. Negative values
// land in bucket 0, as Record counts them as 0.
func BucketOf(v int64) int {
	if v < subCount {
		if v < 0 {
			return 0
		}
		return int(v)
	}
	// shift is how many low bits a bucket of v's power of two ignores;
	// v>>shift then lies in [subCount, 2*subCount).
	shift := bits.Len64(uint64(v)) - 1 - SubBits
	return shift*subCount + int(v>>shift)
}

// Bounds returns the smallest and largest value of bucket i, both
// inclusive. It panics if i is not in [0, NumBuckets), as indexing would.
func Bounds(i int) (lo, hi int64) {
	if i < 0 || i >= NumBuckets {
		panic("histogram: bucket index out of range")
	}
	if i < subCount {
		return int64(i), int64(i)
	}
	shift := i/subCount - 1
	mantissa := int64(i%subCount + subCount)
	lo = mantissa << shift
	// Computed as lo + (width-1) so the top bucket ends at MaxInt64
	// without overflowing.
	hi = lo + (int64(1)<<shift - 1)
	return lo, hi
}

// midpoint is the value reported for a rank falling in bucket i: the
// centre keeps the worst error at half a bucket width.
func midpoint(i int) int64 {
	lo, hi := Bounds(i)
	return lo + (hi-lo)/2
}
