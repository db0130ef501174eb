package rank

import "testing"

// Every block is visited exactly once per pass, for block counts that are
// not powers of two (cycle-walking) and the smallest ones, and again once
// each in the next pass.
func TestShuffleVisitsEveryBlockOncePerPass(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 5, 7, 17, 1000, 4097, 12345} {
		s := newShuffle(n, 0xabc+n)
		for pass := 0; pass < 2; pass++ {
			seen := make([]bool, n)
			for i := uint64(0); i < n; i++ {
				b := s.next()
				if b >= n {
					t.Fatalf("n %d pass %d: block %d outside [0, %d)", n, pass, b, n)
				}
				if seen[b] {
					t.Fatalf("n %d pass %d: block %d visited twice", n, pass, b)
				}
				seen[b] = true
			}
		}
	}
}

// The order is shuffled: not the identity, not a walk in steps, not the
// same for two streams, and not the same from one pass to the next.
func TestShuffleOrderLooksRandom(t *testing.T) {
	const n = 1000
	order := func(s *shuffle) []uint64 {
		out := make([]uint64, n)
		for i := range out {
			out[i] = s.next()
		}
		return out
	}
	s := newShuffle(n, 1)
	a, again := order(s), order(s)
	b := order(newShuffle(n, 2))
	steps, samePass, sameStream := 0, 0, 0
	for i := range a {
		if i > 0 && a[i] == a[i-1]+1 {
			steps++
		}
		if a[i] == again[i] {
			samePass++
		}
		if a[i] == b[i] {
			sameStream++
		}
	}
	// A random order has about one ascending step and one coincidence
	// per position with another order in n.
	if steps > 10 || samePass > 10 || sameStream > 10 {
		t.Errorf("order not shuffled: %d unit steps, %d positions equal to the next pass, %d to another stream", steps, samePass, sameStream)
	}
}

// A file of 2^28 blocks (1 TB at 4 KiB) costs the shuffle its fixed
// state only: no allocation per draw, and draws inside the file.
func TestShuffleHugeFileNeedsNoTable(t *testing.T) {
	const n = 1 << 28
	s := newShuffle(n+3, 7) // not a power of two: cycle-walking over 2^30
	allocs := testing.AllocsPerRun(1000, func() {
		if b := s.next(); b >= n+3 {
			t.Fatalf("block %d outside the file", b)
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per draw, want 0", allocs)
	}
}

// A shuffled generator gives aligned offsets, each block once, through
// the thread's file map.
func TestOffsetGenShuffledCoversFile(t *testing.T) {
	const block, n = 4096, 777
	g := newOffsetGen(3, 1, n*block, block)
	g.shuffled()
	seen := map[int64]bool{}
	for i := 0; i < n; i++ {
		off := g.next()
		if off%block != 0 || off < 0 || off >= n*block || seen[off] {
			t.Fatalf("draw %d: offset %d unaligned, outside or repeated", i, off)
		}
		seen[off] = true
	}
}
