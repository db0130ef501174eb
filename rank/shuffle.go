package rank

import "math/bits"

// feistelRounds is enough rounds of a balanced Feistel network for the
// order to look random (Luby–Rackoff needs 3 for a pseudo-random
// permutation, 4 for a strong one); nothing depends on it being secret.
const feistelRounds = 4

// shuffle visits every block of a file once, in a random order, per pass
// (IOzone's -i2 order, and fio's default random map), with O(1) memory:
// a 1 TB file at 4 KiB has 2^28 blocks, and a table of them (as IOzone
// keeps, 8 bytes a block) would take 2 GiB per thread. The order is a
// keyed bijection instead: a Feistel network over the smallest even power
// of two that holds the block count, walked in cycles until it lands
// inside [0, n) (cycle-walking keeps a permutation a permutation when its
// domain shrinks). The domain is at most 4n, so a draw costs at most a few
// rounds on average. Each pass takes new keys, so a phase that outlasts
// one pass visits every block again, in another order.
type shuffle struct {
	n    uint64 // blocks
	half uint   // bits in each half of the network's domain
	keys [feistelRounds]uint64
	seed uint64 // the thread's stream: keys are drawn from it, per pass
	pass uint64
	i    uint64 // position in the current pass
}

// newShuffle is the order of n blocks (n > 0) for the stream seed.
func newShuffle(n, seed uint64) *shuffle {
	width := uint(bits.Len64(n - 1)) // bits of the largest block number
	if width < 2 {
		width = 2 // halves of at least one bit: n of 1 or 2 blocks
	}
	s := &shuffle{n: n, half: (width + 1) / 2, seed: seed}
	s.rekey()
	return s
}

// next is the block the walk visits next.
func (s *shuffle) next() uint64 {
	if s.i == s.n {
		s.i = 0
		s.pass++
		s.rekey()
	}
	b := s.at(s.i)
	s.i++
	return b
}

// at is the block at position i of the current pass: the permutation
// applied to i, then again to its result, until it falls inside [0, n).
// It ends: the cycle through i of a permutation of the whole domain comes
// back to i, which is inside.
func (s *shuffle) at(i uint64) uint64 {
	x := s.encrypt(i)
	for x >= s.n {
		x = s.encrypt(x)
	}
	return x
}

// encrypt is the Feistel network on x < 2^(2·half): each round mixes the
// right half under a round key into the left, then swaps them. Each round
// is invertible whatever the round function, so the whole is a bijection.
func (s *shuffle) encrypt(x uint64) uint64 {
	mask := uint64(1)<<s.half - 1
	l, r := x>>s.half, x&mask
	for _, k := range s.keys {
		l, r = r, l^(mix64(r^k)&mask)
	}
	return l<<s.half | r
}

// rekey draws the current pass's round keys from the thread's stream.
func (s *shuffle) rekey() {
	for k := range s.keys {
		s.keys[k] = mix64(s.seed ^ mix64(s.pass*feistelRounds+uint64(k)+1))
	}
}

// mix64 is SplitMix64's finaliser: every input bit reaches every output
// bit, which is all a round function needs here.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
