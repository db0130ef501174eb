package study

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"ioswarm/report"
	"ioswarm/wire"
)

// ErrNothingInCommon is returned by WriteCompare when the two studies
// share no point: an empty table would read as "no difference".
var ErrNothingInCommon = errors.New("no point in common")

// WriteCompare prints the matched points of a and b: the figure to quote
// (bandwidth, and IOPS for random phases) side by side with the change
// from a to b, the change of first-done and of the sum of thread rates,
// and whether the difference exceeds the spread of both sides' iterations.
// Above the table it says when either side is a single run (no spread to
// judge by) and how the two configurations differ; points only one study
// has are listed after it. Studies with no point in common are refused
// (ErrNothingInCommon), before anything is printed. This is compare
// --details; WriteCompactCompare is the default.
func WriteCompare(w io.Writer, a, b *Sweep) error {
	pairs, err := comparable(a, b)
	if err != nil {
		return err
	}
	ew := &report.ErrWriter{W: w, What: "comparison"}
	writeCompareHead(ew, a, b, pairs, false)
	width, head := columns(pairs)
	depth := a.DepthSwept() || b.DepthSwept()
	if depth {
		head = append(head[:2:2], append([]string{"iodepth"}, head[2:]...)...)
	}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, strings.Join(head, "\t")+"\t\n")
	early, withheld, cached := false, false, false
	for _, p := range pairs {
		if p.A != nil && p.B != nil {
			withheld = withheld || p.A.FirstDoneWithheld || p.B.FirstDoneWithheld
			cached = cached || p.A.MaybeCache || p.B.MaybeCache
			cells := pairCells(p, width, slices.Contains(head, "A IOPS"))
			if depth {
				cells = append(cells[:2:2], append([]string{strconv.Itoa(p.IODepth)}, cells[2:]...)...)
			}
			fmt.Fprint(tw, strings.Join(cells, "\t")+"\t\n")
			early = early || !p.A.Complete || !p.B.Complete
		}
	}
	tw.Flush()
	fmt.Fprintln(ew, "spread: beyond = the ranges (min to max) of A's and B's iterations do not overlap;")
	fmt.Fprintln(ew, "within = they do, the change may be noise; - = a side has one iteration")
	if early {
		fmt.Fprintln(ew, "* a run that ended early, in A or B: its figures are not a measurement of the whole point")
	}
	if withheld {
		fmt.Fprintln(ew, report.FirstDoneWithheldNote)
	}
	if cached {
		fmt.Fprintln(ew, report.CacheMarkNote)
	}
	for _, line := range unmatched(pairs) {
		fmt.Fprintln(ew, line)
	}
	return ew.Err
}

// comparable pairs the points of a and b, or says why they cannot be
// compared: a side is missing, or no point is in both.
func comparable(a, b *Sweep) ([]Pair, error) {
	if a == nil || b == nil {
		return nil, errors.New("compare needs two studies")
	}
	pairs := Match(a, b)
	for _, p := range pairs {
		if p.A != nil && p.B != nil {
			return pairs, nil
		}
	}
	names := Names(a, b)
	return nil, fmt.Errorf("%w: %s has %s, %s has %s", ErrNothingInCommon,
		report.Clean(names[0]), pointsText(a), report.Clean(names[1]), pointsText(b))
}

// writeCompareHead prints what precedes a comparison's table: the two
// systems, how to read a change, how their configurations differ and
// whether either side is a single run. wrap keeps the systems' lines and
// the note to 80 columns (the compact table); without it they print as
// they always have (--details).
func writeCompareHead(ew io.Writer, a, b *Sweep, pairs []Pair, wrap bool) {
	names := Names(a, b)
	for i, s := range []*Sweep{a, b} {
		side := []string{"A  ", "B  "}[i]
		if wrap {
			report.WriteWrapped(ew, report.Clean(names[i])+": "+s.Describe(), side, "     ")
		} else {
			fmt.Fprintf(ew, "%s%s: %s\n", side, report.Clean(names[i]), s.Describe())
		}
	}
	fmt.Fprintf(ew, "change is B relative to A (+24.0%% means B = 1.24 × A); GB/s are 10^9 B/s\n")
	for _, d := range ConfigDiff(a, b) {
		report.WriteWrapped(ew, "warning: the configurations differ: "+report.Clean(d), "", "  ")
	}
	switch single := singleRuns(pairs, names); {
	case single == "":
	case wrap:
		report.WriteWrapped(ew, strings.ReplaceAll(single, "\n", " "), "note: ", "  ")
	default:
		fmt.Fprintln(ew, "note: "+single)
	}
	fmt.Fprintln(ew)
}

// columns returns the width of the phase column and the column titles:
// IOPS columns only when a random phase is compared.
func columns(pairs []Pair) (int, []string) {
	width, random := len("phase"), false
	for _, p := range pairs {
		width = max(width, len(report.Clean(p.Phase)))
		random = random || (wire.Phase(p.Phase).CountsOps() && p.A != nil && p.B != nil)
	}
	head := []string{pad("phase", width), "threads", "A GB/s", "B GB/s", "change", "first-done", "sum of rates"}
	if random {
		head = append(head, "A IOPS", "B IOPS", "change")
	}
	return width, append(head, "spread")
}

// Noise says whether the difference between a and b is beyond the noise
// of their iterations ("beyond": their min-max ranges do not overlap),
// "within" it, or cannot be judged ("-": a side ran one iteration).
func Noise(a, b *Figure) string { return spread(a, b) }

// spread says whether the headline figure's difference exceeds the spread
// of both sides: their min-max ranges over the iterations do not overlap.
func spread(a, b *Figure) string {
	if a.Iterations < 2 || b.Iterations < 2 {
		return "-"
	}
	sa, sb := a.Spread(), b.Spread()
	if sa.Max < sb.Min || sb.Max < sa.Min {
		return "beyond"
	}
	return "within"
}

// singleRuns says which sides have points of one iteration, or "".
func singleRuns(pairs []Pair, names []string) string {
	var one []string
	for i, side := range []func(Pair) *Figure{func(p Pair) *Figure { return p.A }, func(p Pair) *Figure { return p.B }} {
		for _, p := range pairs {
			if f := side(p); f != nil && p.A != nil && p.B != nil && f.Iterations < 2 {
				one = append(one, []string{"A", "B"}[i]+" ("+report.Clean(names[i])+")")
				break
			}
		}
	}
	if len(one) == 0 {
		return ""
	}
	return strings.Join(one, " and ") + " ran one iteration per point: with no spread to judge by,\n" +
		"  a change within the run-to-run noise of shared storage (often ±10%) cannot be told\n" +
		"  from a real one; run both with --iterations 3 or more"
}

// pointsText lists a study's thread counts and phases for a message.
func pointsText(s *Sweep) string {
	var threads []int
	for _, f := range s.Figures() {
		if !slices.Contains(threads, f.Threads) {
			threads = append(threads, f.Threads)
		}
	}
	if len(threads) == 0 {
		return "no point"
	}
	slices.Sort(threads)
	return fmt.Sprintf("threads %s of %s", FormatThreads(threads), strings.Join(s.Phases(), ","))
}

// unmatched lists, per side and thread count, the phases only one study
// has: "only in B: 8 threads (write, read)".
func unmatched(pairs []Pair) []string {
	type key struct {
		side    string
		threads int
	}
	var order []key
	phases := map[key][]string{}
	for _, p := range pairs {
		k := key{"A", p.Threads}
		switch {
		case p.A != nil && p.B != nil:
			continue
		case p.A == nil:
			k.side = "B"
		}
		if phases[k] == nil {
			order = append(order, k)
		}
		phases[k] = append(phases[k], report.Clean(p.Phase))
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].side != order[j].side {
			return order[i].side < order[j].side
		}
		return order[i].threads < order[j].threads
	})
	out := make([]string, len(order))
	for i, k := range order {
		out[i] = fmt.Sprintf("only in %s: %d threads (%s)", k.side, k.threads, strings.Join(phases[k], ", "))
	}
	return out
}

// pairCells are one row; the phase is padded to width so that it reads
// left-aligned in a table whose numbers align right. random says whether
// the table has IOPS columns.
func pairCells(p Pair, width int, random bool) []string {
	a, b := p.A, p.B
	threads := strconv.Itoa(p.Threads)
	if !a.Complete || !b.Complete {
		threads += "*"
	}
	fd := FormatChange(a.FirstDone, b.FirstDone)
	if a.FirstDoneWithheld || b.FirstDoneWithheld {
		fd = "n/a"
	}
	cells := []string{pad(report.Clean(p.Phase), width), threads,
		gbs(a.Bandwidth) + cacheMark(a), gbs(b.Bandwidth) + cacheMark(b), FormatChange(a.Bandwidth, b.Bandwidth),
		fd, FormatChange(a.SumOfRates, b.SumOfRates)}
	switch {
	case random && wire.Phase(p.Phase).CountsOps():
		cells = append(cells, fmt.Sprintf("%.0f", a.IOPS), fmt.Sprintf("%.0f", b.IOPS), FormatChange(a.IOPS, b.IOPS))
	case random:
		cells = append(cells, "-", "-", "-")
	}
	return append(cells, spread(a, b))
}

// Names are the names of studies side by side: their labels, else their
// file names, with the file name added where two would read the same.
func Names(ss ...*Sweep) []string {
	names := make([]string, len(ss))
	count := map[string]int{}
	for i, s := range ss {
		names[i] = s.Name()
		count[names[i]]++
	}
	for i, s := range ss {
		if count[names[i]] > 1 && s.Source != "" {
			names[i] += " (" + s.Source + ")"
		}
	}
	return names
}

// cacheMark marks a side's figure that may come from a cache.
func cacheMark(f *Figure) string {
	if f.MaybeCache {
		return "!"
	}
	return ""
}
