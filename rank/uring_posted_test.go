package rank

import "testing"

// Each completion is timed at the return of the entry that posted it,
// across the completion queue's wrap, with no allocation once made.
func TestPostedAtTimesEachCompletionByItsEntry(t *testing.T) {
	p := newPostedAt(4)
	start := ^uint32(0) - 1 // two completions before the indices wrap
	p.reset(start)
	p.entered(start, 50)    // posted nothing: no mark
	p.entered(start+3, 100) // posted start, start+1 and 0 (wrapped)
	p.noticed(start+3, func() int64 { t.Error("noticed read the clock with nothing new"); return 0 })
	p.entered(start+5, 200) // posted 1 and 2
	p.noticed(start+6, func() int64 { return 300 })
	for i, want := range []int64{100, 100, 100, 200, 200, 300} {
		if got := p.at(start + uint32(i)); got != want {
			t.Errorf("completion %d: timed at %d, want %d", i, got, want)
		}
	}
	allocs := testing.AllocsPerRun(100, func() {
		for i := uint32(0); i < 64; i++ {
			tail := start + 6 + i
			p.entered(tail+1, int64(i))
			_ = p.at(tail)
		}
		start += 64
	})
	if allocs != 0 {
		t.Errorf("%v allocations per 64 completions", allocs)
	}
}
