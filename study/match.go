package study

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Pair is one phase at one thread count in two studies. A or B is nil
// when only the other study has that point.
type Pair struct {
	Phase   string
	Threads int
	IODepth int
	A, B    *Figure
}

// Match pairs the points of a and b by phase and thread count: phases in
// the order a ran them (then any only b ran), thread counts ascending.
func Match(a, b *Sweep) []Pair {
	type key struct {
		phase          string
		threads, depth int
	}
	pairs := map[key]*Pair{}
	add := func(s *Sweep, side func(*Pair, *Figure)) {
		for _, f := range s.Figures() {
			k := key{f.Phase, f.Threads, f.IODepth}
			if pairs[k] == nil {
				pairs[k] = &Pair{Phase: f.Phase, Threads: f.Threads, IODepth: f.IODepth}
			}
			f := f
			side(pairs[k], &f)
		}
	}
	add(a, func(p *Pair, f *Figure) { p.A = f })
	add(b, func(p *Pair, f *Figure) { p.B = f })
	order := a.Phases()
	for _, p := range b.Phases() {
		if !slices.Contains(order, p) {
			order = append(order, p)
		}
	}
	rank := map[string]int{}
	for i, p := range order {
		rank[p] = i
	}
	out := make([]Pair, 0, len(pairs))
	for _, p := range pairs {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool {
		if rank[out[i].Phase] != rank[out[j].Phase] {
			return rank[out[i].Phase] < rank[out[j].Phase]
		}
		if out[i].Threads != out[j].Threads {
			return out[i].Threads < out[j].Threads
		}
		return out[i].IODepth < out[j].IODepth
	})
	return out
}

// Change is b relative to a in percent: +24 when b is 1.24 × a. It is
// not defined (false) when a is not a positive finite figure.
func Change(a, b float64) (float64, bool) {
	if !(a > 0) || math.IsInf(a, 0) || math.IsNaN(b) || math.IsInf(b, 0) {
		return 0, false
	}
	return (b/a - 1) * 100, true
}

// FormatChange prints Change with one decimal and its sign: "+24.0%".
func FormatChange(a, b float64) string {
	c, ok := Change(a, b)
	if !ok {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f%%", c)
}
