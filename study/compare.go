package study

import (
	"errors"
	"fmt"
	"io"
	"ioswarm/report"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Pair is one phase at one thread count in two studies. A or B is nil
// when only the other study has that point.
type Pair struct {
	Phase   string
	Threads int
	A, B    *Figure
}

// Match pairs the points of a and b by phase and thread count: phases in
// the order a ran them (then any only b ran), thread counts ascending.
func Match(a, b *Sweep) []Pair {
	type key struct {
		phase   string
		threads int
	}
	pairs := map[key]*Pair{}
	add := func(s *Sweep, side func(*Pair, *Figure)) {
		for _, f := range s.Figures() {
			k := key{f.Phase, f.Threads}
			if pairs[k] == nil {
				pairs[k] = &Pair{Phase: f.Phase, Threads: f.Threads}
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
		return out[i].Threads < out[j].Threads
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

// WriteCompare prints the matched points of a and b with the change from
// a to b of bandwidth, first-done bandwidth and, for random phases, IOPS
// (the IOPS columns only when a random phase is compared); points only
// one study has are listed after the table.
func WriteCompare(w io.Writer, a, b *Sweep) error {
	if a == nil || b == nil {
		return errors.New("compare needs two studies")
	}
	ew := &report.ErrWriter{W: w, What: "comparison"}
	names := Names(a, b)
	fmt.Fprintf(ew, "A  %s: %s\n", report.Clean(names[0]), a.Describe())
	fmt.Fprintf(ew, "B  %s: %s\n", report.Clean(names[1]), b.Describe())
	fmt.Fprintf(ew, "change is B relative to A (+24.0%% means B = 1.24 × A); GB/s are 10^9 B/s\n\n")
	pairs := Match(a, b)
	width, head := columns(pairs)
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, strings.Join(head, "\t")+"\t\n")
	early := false
	for _, p := range pairs {
		if p.A != nil && p.B != nil {
			fmt.Fprint(tw, strings.Join(pairCells(p, width)[:len(head)], "\t")+"\t\n")
			early = early || !p.A.Complete || !p.B.Complete
		}
	}
	tw.Flush()
	if early {
		fmt.Fprintln(ew, "* a run that ended early, in A or B: its figures are not a measurement of the whole point")
	}
	for _, line := range unmatched(pairs) {
		fmt.Fprintln(ew, line)
	}
	return ew.Err
}

// columns returns the width of the phase column and the column titles:
// IOPS columns only when a random phase is compared.
func columns(pairs []Pair) (int, []string) {
	width, random := len("phase"), false
	for _, p := range pairs {
		width = max(width, len(report.Clean(p.Phase)))
		random = random || (IsRandom(p.Phase) && p.A != nil && p.B != nil)
	}
	head := []string{pad("phase", width), "threads", "A GB/s", "B GB/s", "change", "A first-done", "B first-done", "change"}
	if random {
		head = append(head, "A IOPS", "B IOPS", "change")
	}
	return width, head
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
// left-aligned in a table whose numbers align right.
func pairCells(p Pair, width int) []string {
	a, b := p.A, p.B
	threads := strconv.Itoa(p.Threads)
	if !a.Complete || !b.Complete {
		threads += "*"
	}
	cells := []string{pad(report.Clean(p.Phase), width), threads,
		gbs(a.Bandwidth), gbs(b.Bandwidth), FormatChange(a.Bandwidth, b.Bandwidth),
		gbs(a.FirstDone), gbs(b.FirstDone), FormatChange(a.FirstDone, b.FirstDone)}
	if !IsRandom(p.Phase) {
		return append(cells, "-", "-", "-")
	}
	return append(cells, fmt.Sprintf("%.0f", a.IOPS), fmt.Sprintf("%.0f", b.IOPS), FormatChange(a.IOPS, b.IOPS))
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
