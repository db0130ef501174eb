package rank

import "sort"

// opLog remembers when a thread's operations completed, so that after a
// phase the rank can say exactly how many bytes each thread had moved at the
// first-done moment (which is only known once every thread has finished).
//
// It keeps the completion time of every stride-th operation. While a thread
// does at most maxEntries operations the stride stays 1 and the answer is
// exact; past that the log halves itself and doubles the stride, so memory
// stays bounded and the answer is exact to within stride operations.
type opLog struct {
	t          []int64
	stride     int64
	maxEntries int
}

const defaultLogEntries = 1 << 20

// reset prepares the log for a phase of about ops operations, allocating
// outside the timed loop.
func (l *opLog) reset(ops int64, maxEntries int) {
	l.maxEntries = maxEntries
	l.stride = 1
	n := ops
	if n > int64(maxEntries) {
		n = int64(maxEntries)
	}
	if int64(cap(l.t)) < n {
		l.t = make([]int64, 0, n)
	}
	l.t = l.t[:0]
}

// add records that done operations had completed at time at.
func (l *opLog) add(done, at int64) {
	if done%l.stride != 0 {
		return
	}
	if len(l.t) == l.maxEntries {
		// Keep the entries for multiples of 2×stride: indices 1, 3, 5, …
		half := l.t[:0]
		for i := 1; i < len(l.t); i += 2 {
			half = append(half, l.t[i])
		}
		l.t = half
		l.stride *= 2
		if done%l.stride != 0 {
			return
		}
	}
	l.t = append(l.t, at)
}

// opsAt returns how many operations had completed by time at (inclusive).
func (l *opLog) opsAt(at int64) int64 {
	k := sort.Search(len(l.t), func(i int) bool { return l.t[i] > at })
	return int64(k) * l.stride
}
