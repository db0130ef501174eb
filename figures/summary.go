package figures

import (
	"math"

	"ioswarm/result"
)

// Stat and Summary live in the result package, since they are part of the
// result file; these names keep the figure code readable.
type (
	Stat    = result.Stat
	Summary = result.PhaseSummary
)

// Summarize returns one Summary per phase name, in the order the names
// first appear in phases. It uses the figures stored in each phase; run
// Reduce or Check first if they may be stale.
func Summarize(phases []result.Phase) []Summary {
	var order []string
	groups := map[string][]*result.Phase{}
	for i := range phases {
		p := &phases[i]
		if _, seen := groups[p.Name]; !seen {
			order = append(order, p.Name)
		}
		groups[p.Name] = append(groups[p.Name], p)
	}
	out := make([]Summary, 0, len(order))
	for _, name := range order {
		out = append(out, summarize(name, groups[name]))
	}
	return out
}

func summarize(name string, ps []*result.Phase) Summary {
	pick := func(f func(p *result.Phase) float64) Stat {
		xs := make([]float64, len(ps))
		for i, p := range ps {
			xs[i] = f(p)
		}
		return statOf(xs)
	}
	return Summary{
		Name:               name,
		Iterations:         len(ps),
		Bandwidth:          pick(func(p *result.Phase) float64 { return p.Bandwidth }),
		FirstDoneBandwidth: pick(func(p *result.Phase) float64 { return p.FirstDoneBandwidth }),
		SumOfRates:         pick(func(p *result.Phase) float64 { return p.SumOfRates }),
		IOPS:               pick(func(p *result.Phase) float64 { return p.IOPS }),
		P50:                pick(func(p *result.Phase) float64 { return float64(p.Latency.P50) }),
		P99:                pick(func(p *result.Phase) float64 { return float64(p.Latency.P99) }),
		P999:               pick(func(p *result.Phase) float64 { return float64(p.Latency.P999) }),
	}
}

// statOf computes mean, extremes and sample standard deviation in two
// passes, which is exact enough for a handful of iterations and avoids
// the cancellation of the one-pass sum-of-squares formula.
func statOf(xs []float64) Stat {
	s := Stat{N: len(xs)}
	if s.N == 0 {
		return s
	}
	s.Min, s.Max = xs[0], xs[0]
	n := float64(s.N)
	for _, x := range xs {
		s.Mean += x / n // dividing first keeps the sum finite for any finite inputs
		s.Min, s.Max = min(s.Min, x), max(s.Max, x)
	}
	if s.N < 2 {
		return s
	}
	var sq float64
	for _, x := range xs {
		sq += (x - s.Mean) * (x - s.Mean)
	}
	s.Stddev = math.Sqrt(sq / float64(s.N-1))
	return s
}
