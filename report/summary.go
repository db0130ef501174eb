package report

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"ioswarm/figures"
	"ioswarm/result"
	"ioswarm/units"
	"ioswarm/wire"
)

// writeSummary writes mean ± sample stddev, min and max for every phase
// run more than once; a single iteration has nothing to summarise.
func writeSummary(w io.Writer, phases []result.Phase) {
	var repeated []figures.Summary
	for _, s := range figures.Summarize(phases) {
		if s.Iterations > 1 {
			repeated = append(repeated, s)
		}
	}
	if len(repeated) == 0 {
		return
	}
	fmt.Fprintln(w, "across n iterations: mean ± sample standard deviation, min, max")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row(tw, "phase", "n", "figure", "mean ± stddev", "min", "max")
	for _, s := range repeated {
		for _, r := range summaryRows(s, phaseLatency(phases, s.Name)) {
			if r[0] == firstDoneTitle && withheld(phases, s.Name) {
				r = []string{firstDoneTitle, "n/a", "n/a", "n/a"}
			}
			row(tw, append([]string{Clean(s.Name), strconv.Itoa(s.Iterations)}, r...)...)
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
}

// summaryRows returns figure, mean ± stddev, min and max cells for each
// figure that applies to the phase.
func summaryRows(s figures.Summary, latency bool) [][]string {
	rate := func(title string, st figures.Stat) []string {
		return []string{title, gb(st.Mean) + " ± " + gb(st.Stddev), gb(st.Min), gb(st.Max)}
	}
	rows := [][]string{
		rate("bandwidth GB/s", s.Bandwidth),
		rate(firstDoneTitle, s.FirstDoneBandwidth),
		rate("sum of rates GB/s", s.SumOfRates),
	}
	if wire.Phase(s.Name).CountsOps() {
		st := s.IOPS
		rows = append(rows, []string{"IOPS", count(st.Mean) + " ± " + count(st.Stddev), count(st.Min), count(st.Max)})
	}
	if !latency {
		return rows
	}
	for _, l := range []struct {
		title string
		st    figures.Stat
	}{{"latency p50", s.P50}, {"latency p99", s.P99}, {"latency p99.9", s.P999}} {
		st := l.st
		rows = append(rows, []string{l.title, units.FormatNanos(st.Mean) + " ± " + units.FormatNanos(st.Stddev), units.FormatNanos(st.Min), units.FormatNanos(st.Max)})
	}
	return rows
}

const firstDoneTitle = "first-done GB/s"

// phaseLatency reports whether any iteration of the named phase measured
// latency, so a summary never shows unmeasured latency as 0 ns.
func phaseLatency(phases []result.Phase, name string) bool {
	for i := range phases {
		if phases[i].Name == name && hasLatency(&phases[i]) {
			return true
		}
	}
	return false
}

func writeWarnings(w io.Writer, warnings []string) {
	if len(warnings) == 0 {
		return
	}
	fmt.Fprintln(w, "warnings:")
	for _, s := range warnings {
		WriteWrapped(w, Clean(s), "  ", "    ")
	}
}
