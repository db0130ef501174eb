package study

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"ioswarm/figures"
	"ioswarm/report"
	"ioswarm/result"
	"ioswarm/wire"
)

// compactWidth is a compact cell without iterations: "9999.999" GB/s or
// "99999999" IOPS, a cache mark and a space more between columns. With
// iterations cells take spreadWidth. Either way threads 1..512 over four
// phases fit 80 columns, with a queue-depth column too.
const compactWidth = 10

// DetailsHint names what the compact sweep and compare tables leave out,
// and the flag that shows it.
const DetailsHint = "(first-done, sum of thread rates, random phases' GB/s: --details)"

// NewCompactTable starts the table a sweep prints by default: per phase
// the one figure a storage engineer quotes (GB/s, IOPS for random
// phases), so that the usual studies fit 80 columns. Rows and the footer
// are printed as NewTable's are; --details is NewTable.
func NewCompactTable(w io.Writer, s *Sweep) *Table {
	t := &Table{w: w, phases: s.Phases(), depth: s.DepthSwept(), width: compactWidth, compact: true}
	if s.Setup.Iterations > 1 {
		t.width = spreadWidth
	}
	title := "sweep"
	if s.Label != "" {
		title += " " + report.Clean(s.Label)
	}
	depths := ""
	if t.depth {
		depths = "; iodepth " + FormatThreads(s.IODepths)
	}
	t.wrapped("", fmt.Sprintf("%s: threads %s%s; phases %s", title, FormatThreads(s.Threads), depths,
		s.Setup.Phases.String()))
	// The directory gets its own line when the two do not fit one: a
	// path cut after "dir" reads badly.
	setup, dir := s.Describe(), "dir "+report.Clean(s.Setup.Dir)
	if utf8.RuneCountInString(setup+"; "+dir) <= report.Width {
		t.printf("%s; %s\n", setup, dir)
	} else {
		t.wrapped("", setup)
		t.printf("%s\n", dir)
	}
	t.printf("GB/s (10^9 B/s): bandwidth, the figure to quote; IOPS for random phases\n")
	t.printf("%s%s\n\n", DetailsHint, iterationText(s.Setup.Iterations))
	var groups, units strings.Builder
	groups.WriteString(pad("", 7))
	units.WriteString(pad("threads", 7))
	if t.depth {
		groups.WriteString(pad("", 8))
		units.WriteString(lpad("iodepth", 8))
	}
	for _, p := range t.phases {
		width := t.cellWidth(p)
		groups.WriteString(" " + lpad(report.Clean(p), width))
		units.WriteString(" " + lpad(compactUnit(p), width))
	}
	t.printf("%s\n%s\n", groups.String(), units.String())
	return t
}

// compactUnit is the unit of a phase's compact column.
func compactUnit(phase string) string {
	if wire.Phase(phase).CountsOps() {
		return "IOPS"
	}
	return "GB/s"
}

// cellWidth is a phase's column width: the table's, or its name's when
// that is longer, so the header stays above its column.
func (t *Table) cellWidth(phase string) int {
	return max(t.width, utf8.RuneCountInString(report.Clean(phase)))
}

// compactRow prints one point of a compact table. An incomplete point's
// error goes on its own wrapped lines under the row.
func (t *Table) compactRow(job *result.Job, byPhase map[string]Figure, stonewalled bool) {
	var b strings.Builder
	b.WriteString(lpad(strconv.Itoa(job.Config.Threads), 7))
	if t.depth {
		b.WriteString(lpad(strconv.Itoa(max(job.Config.IODepth, 1)), 8))
	}
	for _, p := range t.phases {
		f, ok := byPhase[p]
		b.WriteString(" " + lpad(compactCell(p, f, ok), t.cellWidth(p)))
	}
	if stonewalled {
		b.WriteString("  stonewalled")
	}
	if !job.Complete {
		b.WriteString("  INCOMPLETE")
	}
	t.printf("%s\n", b.String())
	if !job.Complete {
		t.wrapped("  ", "ended early: "+report.Clean(orText(job.Error, "the run ended early")))
	}
}

// compactCell is a phase's figure to quote: bandwidth, or IOPS for a
// random phase, marked when it may come from a cache; "-" when the
// point lacks the phase.
func compactCell(phase string, f Figure, ok bool) string {
	if !ok {
		return "-"
	}
	var cell string
	if wire.Phase(phase).CountsOps() {
		cell = withSpread(fmt.Sprintf("%.0f", f.IOPS), fmt.Sprintf("%.0f", f.IOPSStat.Stddev), f.Iterations)
	} else {
		cell = withSpread(gbs(f.Bandwidth), gbs(f.BandwidthStat.Stddev), f.Iterations)
	}
	if f.MaybeCache {
		cell += "!"
	}
	return cell
}

// compactFooter is Footer for a compact table: the same lines, wrapped
// to 80 columns, without the note on first-done, a column it lacks.
func (t *Table) compactFooter(s *Sweep, outside []float64, sum float64, cached bool) {
	if len(outside) > 0 {
		t.wrapped("", fmt.Sprintf("outside the timed phases: launch %.2f s, %d points %.2f s (median %.2f s)",
			float64(s.LaunchNS)/1e9, len(outside), sum, figures.Median(outside)))
	}
	if cached {
		t.wrapped("", report.CacheMarkNote)
	}
}

// wrapped prints text wrapped to 80 columns after indent, continued
// lines indented two more.
func (t *Table) wrapped(indent, text string) {
	t.printf("%s\n", report.Wrap(text, report.Width, indent, indent+"  "))
}

// WriteCompactTable is WriteTable with the compact table.
func WriteCompactTable(w io.Writer, s *Sweep) error {
	if s == nil {
		return fmt.Errorf("no sweep to print")
	}
	return writeTable(NewCompactTable(w, s), s)
}
