package rank

import "testing"

// Chi-square critical values for 999 degrees of freedom (1000 blocks) at
// 0.001 in each tail, from the Wilson–Hilferty approximation
// k·(1 − 2/(9k) ± z·√(2/(9k)))³ with z = 3.0902, which is accurate to
// about 0.1 at this k. Rounded outwards. The lower bound matters too: a
// generator that walks the blocks in turn is "too uniform" and lands far
// below it, where an upper-tail-only test would pass it.
const (
	chiBlocks = 1000
	chiDraws  = 100 * chiBlocks
	chiLow    = 866.0
	chiHigh   = 1143.0
)

// chiSquare draws chiDraws offsets from next, fails the test on any
// offset that is unaligned or outside the file, and returns Pearson's
// statistic against the uniform distribution over chiBlocks blocks.
func chiSquare(t *testing.T, next func() int64, block int64) float64 {
	t.Helper()
	counts := make([]int, chiBlocks)
	size := int64(chiBlocks) * block
	for i := 0; i < chiDraws; i++ {
		off := next()
		if off < 0 || off >= size || off%block != 0 {
			t.Fatalf("draw %d: offset %d unaligned to %d or outside [0, %d)", i, off, block, size)
		}
		counts[off/block]++
	}
	want := float64(chiDraws) / chiBlocks
	var x2 float64
	for _, c := range counts {
		d := float64(c) - want
		x2 += d * d / want
	}
	return x2
}

func TestOffsetsAlignedInRangeAndUniform(t *testing.T) {
	for i, block := range []int64{512, 4096, 1 << 20} {
		g := newOffsetGen(0x5eed, i, chiBlocks*block, block)
		x2 := chiSquare(t, g.next, block)
		t.Logf("block %d: chi-square %.1f", block, x2)
		if x2 < chiLow || x2 > chiHigh {
			t.Errorf("block %d: chi-square %.1f outside [%.0f, %.0f]", block, x2, chiLow, chiHigh)
		}
	}
}

// The statistic must be able to fail: a generator that never reaches the
// last tenth of the file, and one that walks the blocks in order, are both
// rejected.
func TestChiSquareRejectsBadGenerators(t *testing.T) {
	g := newOffsetGen(0x5eed, 3, chiBlocks*4096, 4096)
	short := func() int64 { return int64(g.rng.Uint64N(chiBlocks*9/10)) * 4096 }
	if x2 := chiSquare(t, short, 4096); x2 <= chiHigh {
		t.Errorf("generator missing 10%% of the file passed: chi-square %.1f", x2)
	}
	var i int64
	walk := func() int64 { i++; return (i % chiBlocks) * 4096 }
	if x2 := chiSquare(t, walk, 4096); x2 >= chiLow {
		t.Errorf("sequential walk passed: chi-square %.1f", x2)
	}
}

// Threads and iterations get their own streams, and a seed reproduces its
// stream exactly.
func TestOffsetStreamsDifferAndRepeat(t *testing.T) {
	const size, block = 1 << 30, 4096
	a, b := newOffsetGen(9, 0, size, block), newOffsetGen(9, 0, size, block)
	c, d := newOffsetGen(9, 1, size, block), newOffsetGen(10, 0, size, block)
	same, diffThread, diffSeed := true, 0, 0
	for i := 0; i < 64; i++ {
		x := a.next()
		same = same && x == b.next()
		if x == c.next() {
			diffThread++
		}
		if x == d.next() {
			diffSeed++
		}
	}
	if !same {
		t.Error("same seed and thread gave different offsets")
	}
	// 262144 blocks: a chance coincidence in 64 draws has p ≈ 2.4e-4.
	if diffThread > 1 || diffSeed > 1 {
		t.Errorf("streams collide: %d with another thread, %d with another seed", diffThread, diffSeed)
	}
	if a.nblocks != size/block {
		t.Errorf("nblocks %d, want %d", a.nblocks, size/block)
	}
}
