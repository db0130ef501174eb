package htmlreport

import (
	"fmt"

	"ioswarm/study"
	"ioswarm/wire"
)

// peaksOf is each phase's best complete point and its figure at the
// study's largest thread count.
func peaksOf(s *study.Sweep, name string) []Peak {
	var out []Peak
	for _, phase := range s.Phases() {
		var best, last *study.Figure
		for _, f := range s.Figures() {
			if f.Phase != phase || !f.Complete {
				continue
			}
			f := f
			if best == nil || quoted(f) > quoted(*best) {
				best = &f
			}
			if last == nil || f.Threads > last.Threads {
				last = &f
			}
		}
		if best == nil {
			continue
		}
		out = append(out, Peak{Study: name, Phase: phase, Unit: unitOf(phase),
			Peak: figureText(*best), PeakAt: best.Threads, Sustained: figureText(*last), SustainedAt: last.Threads})
	}
	return out
}

// unitOf is the unit a phase's quoted figure is shown in: GB/s, IOPS, or
// operations per second for metadata phases.
func unitOf(phase string) string {
	switch {
	case wire.Phase(phase).IsMeta():
		return "ops/s"
	case wire.Phase(phase).CountsOps():
		return "IOPS"
	}
	return "GB/s"
}

// figureText is a point's quoted figure in its unit (without the unit).
func figureText(f study.Figure) string {
	if wire.Phase(f.Phase).CountsOps() {
		return fmt.Sprintf("%.0f", f.IOPS)
	}
	return fmt.Sprintf("%.3f", f.Bandwidth/1e9)
}

// quoted is the figure to quote for a point: IOPS (or operations per
// second) for phases counted in operations, bandwidth otherwise.
func quoted(f study.Figure) float64 {
	if wire.Phase(f.Phase).CountsOps() {
		return f.IOPS
	}
	return f.Bandwidth
}

func compareOf(a, b *study.Sweep, an, bn string) Comparison {
	c := Comparison{A: an, B: bn, Diffs: study.ConfigDiff(a, b)}
	for _, p := range study.Match(a, b) {
		if p.A == nil || p.B == nil {
			continue
		}
		c.Rows = append(c.Rows, CompareRow{Phase: p.Phase, Threads: p.Threads, Unit: unitOf(p.Phase),
			A: figureText(*p.A), B: figureText(*p.B),
			Change: study.FormatChange(quoted(*p.A), quoted(*p.B)), Noise: study.Noise(p.A, p.B)})
	}
	return c
}
