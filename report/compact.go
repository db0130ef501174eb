package report

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"ioswarm/result"
	"ioswarm/units"
	"ioswarm/wire"
)

// Details says which blocks beyond the compact one a table shows.
type Details struct {
	Phases  bool // the two wide blocks: sizes, window, GiB/s, latency spread, skew, cache
	Nodes   bool // each node's share of every phase
	Threads bool // every thread's record
}

// writeCompact writes one row per phase iteration in at most 80 columns:
// the figure to quote first (GB/s, and IOPS for random phases), then the
// figures people hold against other tools', then how cold the cache was.
func writeCompact(w io.Writer, phases []result.Phase) {
	if len(phases) == 0 {
		fmt.Fprintln(w, "no phase completed")
		return
	}
	depth := false
	for i := range phases {
		depth = depth || phases[i].IODepth > 0
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head1 := []string{"phase", "iter", "GB/s", "IOPS", "p99", "first-done", "sum of rates", "resident"}
	head2 := []string{"", "", "quote", "quote", "latency", "GB/s", "GB/s", "before"}
	if depth {
		head1, head2 = append(head1, "depth"), append(head2, "achieved")
	}
	row(tw, head1...)
	row(tw, head2...)
	for i := range phases {
		p := &phases[i]
		iops, p99 := "-", "-"
		if wire.Phase(p.Name).CountsOps() {
			iops = count(p.IOPS)
		}
		if hasLatency(p) {
			p99 = units.FormatDuration(p.Latency.P99)
		}
		cells := []string{phaseName(p), strconv.Itoa(p.Iteration), gb(p.Bandwidth), iops, p99,
			firstDone(p), gb(p.SumOfRates), percent(p.ResidentFraction)}
		if depth {
			d := "-"
			if p.IODepth > 0 {
				d = fmt.Sprintf("%.1f/%d", depthShown(p), p.IODepth)
			}
			cells = append(cells, d)
		}
		row(tw, cells...)
	}
	tw.Flush()
	fmt.Fprintln(w, "quote: GB/s (IOPS for random phases) = all bytes (ops) / the job's window,")
	fmt.Fprintln(w, "  earliest open to latest close, fsync inside, as IOR; see the README")
	writeFootnotes(w, phases)
	for i := range phases {
		if s := straggler(&phases[i]); s != "" {
			fmt.Fprintln(w, s)
		}
	}
	fmt.Fprintln(w)
}

// writeFootnotes explains the marks and the cells that need a word.
func writeFootnotes(w io.Writer, phases []result.Phase) {
	var sequential, random bool
	for i := range phases {
		if phases[i].Stonewalled {
			if wire.Phase(phases[i].Name).CountsOps() || wire.Phase(phases[i].Name).IsSeqRead() {
				random = true
			} else {
				sequential = true
			}
		}
	}
	switch {
	case sequential && random:
		fmt.Fprintln(w, "* stonewalled: figures cover only the timed part; writers finished their files")
		fmt.Fprintln(w, "  untimed, readers and random phases stopped there")
	case sequential:
		fmt.Fprintln(w, "* stonewalled: figures cover only the timed part; threads finished their files untimed")
	case random:
		fmt.Fprintln(w, "* stonewalled: figures cover only the timed part; threads stopped there")
	}
	if warned(phases) {
		writeMarkLegend(w, phases)
	}
	if v := verifiedNames(phases); v != "" {
		fmt.Fprintf(w, "%s: data verified while reading, inside the timed window\n", v)
	}
	if FirstDoneWithheld(phases) {
		fmt.Fprintln(w, FirstDoneWithheldNote)
	}
}
