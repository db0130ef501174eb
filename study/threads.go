package study

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxThreads bounds a point's thread count. Each thread is a file and a
// goroutine; a million is past any real study and catches a typo such as
// 1..10000000000 before it turns into a loop that never ends.
const MaxThreads = 1 << 20

// ParseThreads reads a thread list: "A..B" is every power of two from A
// to B inclusive (1..512 is 1, 2, 4, … 512), and a comma list takes
// numbers and ranges alike ("1,2,4,6" or "1..8,12"). Points run in the
// order given; a count given twice is an error, as is an empty list.
func ParseThreads(s string) ([]int, error) { return threadCounts.parse(s) }

// ParseDepths reads a list of io_uring queue depths as ParseThreads
// reads threads; its errors speak of depths.
func ParseDepths(s string) ([]int, error) { return depthCounts.parse(s) }

// countList is what a list counts, for its errors.
type countList struct {
	unit string             // "threads": "a whole number of threads"
	one  func(n int) string // "4 threads", "depth 4"
}

var (
	threadCounts = countList{"threads", func(n int) string { return fmt.Sprintf("%d threads", n) }}
	depthCounts  = countList{"operations in flight (a queue depth)", func(n int) string { return fmt.Sprintf("depth %d", n) }}
)

func (l countList) parse(s string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("empty item in %q (write e.g. 1..64 or 1,2,4,8)", s)
		}
		counts, err := l.item(item)
		if err != nil {
			return nil, err
		}
		for _, n := range counts {
			if seen[n] {
				return nil, fmt.Errorf("%s given twice", l.one(n))
			}
			seen[n] = true
			out = append(out, n)
		}
	}
	return out, nil
}

// item reads one number or one range.
func (l countList) item(item string) ([]int, error) {
	lo, hi, isRange := strings.Cut(item, "..")
	if !isRange {
		n, err := l.count(item)
		if err != nil {
			return nil, err
		}
		return []int{n}, nil
	}
	a, err := l.count(lo)
	if err != nil {
		return nil, err
	}
	b, err := l.count(hi)
	if err != nil {
		return nil, err
	}
	if a > b {
		return nil, fmt.Errorf("range %s runs backwards (write %d..%d)", item, b, a)
	}
	var out []int
	for p := 1; p <= b; p *= 2 {
		if p >= a {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no power of two between %d and %d (list counts explicitly: %d,%d)", a, b, a, b)
	}
	return out, nil
}

// count reads one count.
func (l countList) count(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%q is not a whole number of %s", s, l.unit)
	}
	if n < 1 {
		return 0, fmt.Errorf("%s: need at least 1", l.one(n))
	}
	if n > MaxThreads {
		return 0, fmt.Errorf("%s: more than %d", l.one(n), MaxThreads)
	}
	return n, nil
}

// FormatThreads prints a thread list the way a person reads it.
func FormatThreads(ts []int) string {
	parts := make([]string, len(ts))
	for i, n := range ts {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ", ")
}
