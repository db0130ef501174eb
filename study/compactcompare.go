package study

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"ioswarm/report"
	"ioswarm/wire"
)

// CompareDetailsHint names what the compact comparison leaves out, and
// the flag that shows it.
const CompareDetailsHint = "(changes of first-done and sum of thread rates, random phases' GB/s: --details)"

// WriteCompactCompare is the comparison compare prints by default: per
// matched point the figure to quote (GB/s, IOPS for random phases) of A
// and B, the change and the spread verdict, so that two systems over
// threads 1..512 fit 80 columns. The lines around the table are
// WriteCompare's, wrapped; --details is WriteCompare.
func WriteCompactCompare(w io.Writer, a, b *Sweep) error {
	pairs, err := comparable(a, b)
	if err != nil {
		return err
	}
	ew := &report.ErrWriter{W: w, What: "comparison"}
	writeCompareHead(ew, a, b, pairs, true)
	width, _ := columns(pairs)
	depth := a.DepthSwept() || b.DepthSwept()
	head := []string{pad("phase", width), "threads", "unit", "A", "B", "change", "spread"}
	if depth {
		head = append(head[:2:2], append([]string{"iodepth"}, head[2:]...)...)
	}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, strings.Join(head, "\t")+"\t\n")
	early, cached := false, false
	for _, p := range pairs {
		if p.A == nil || p.B == nil {
			continue
		}
		cached = cached || p.A.MaybeCache || p.B.MaybeCache
		early = early || !p.A.Complete || !p.B.Complete
		cells := compactPairCells(p, width)
		if depth {
			cells = append(cells[:2:2], append([]string{strconv.Itoa(p.IODepth)}, cells[2:]...)...)
		}
		fmt.Fprint(tw, strings.Join(cells, "\t")+"\t\n")
	}
	tw.Flush()
	fmt.Fprintln(ew, "spread: beyond = the min-max ranges of A's and B's iterations do not overlap;")
	fmt.Fprintln(ew, "within = they do, the change may be noise; - = a side has one iteration")
	fmt.Fprintln(ew, CompareDetailsHint)
	if early {
		report.WriteWrapped(ew, "* a run that ended early, in A or B: its figures are not a measurement of the whole point", "", "  ")
	}
	if cached {
		report.WriteWrapped(ew, report.CacheMarkNote, "", "  ")
	}
	for _, line := range unmatched(pairs) {
		report.WriteWrapped(ew, line, "", "  ")
	}
	return ew.Err
}

// compactPairCells are one row of the compact comparison: phase, threads,
// unit, A, B, change and spread. The figure is the one quoted for the
// phase: IOPS for random phases, else bandwidth in GB/s.
func compactPairCells(p Pair, width int) []string {
	a, b := p.A, p.B
	threads := strconv.Itoa(p.Threads)
	if !a.Complete || !b.Complete {
		threads += "*"
	}
	unit, fa, fb := "GB/s", gbs(a.Bandwidth), gbs(b.Bandwidth)
	change := FormatChange(a.Bandwidth, b.Bandwidth)
	if wire.Phase(p.Phase).CountsOps() {
		unit, fa, fb = "IOPS", fmt.Sprintf("%.0f", a.IOPS), fmt.Sprintf("%.0f", b.IOPS)
		change = FormatChange(a.IOPS, b.IOPS)
	}
	return []string{pad(report.Clean(p.Phase), width), threads, unit,
		fa + cacheMark(a), fb + cacheMark(b), change, spread(a, b)}
}
