package study

import (
	"errors"
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

// cellWidth is the width of every numeric column. Rows are printed as
// points complete, so widths cannot be fitted to the data afterwards; 11
// holds "9999999.999" GB/s and any IOPS a cluster reaches, and
// spreadWidth a mean ± stddev such as "234067±32462" (with iterations).
const (
	cellWidth   = 11
	spreadWidth = 14
)

// Table prints a sweep as it runs: a title, a two-line column header,
// then one row per point. Each phase has columns for bandwidth (the
// figure to quote; with iterations, mean ± sample stddev), first-done
// bandwidth and the sum of thread rates in GB/s, and random phases IOPS
// as well.
type Table struct {
	w      io.Writer
	phases []string
	depth  bool // a column for the queue depth (a sweep over depths)
	width  int  // of every numeric column
	// compact: one figure per phase in 80 columns (NewCompactTable).
	compact bool
	err     error
}

// NewTable starts a table for a sweep with the given setup and label and
// writes its title and header: every column (sweep --details), wider
// than 80 columns; NewCompactTable is the default.
func NewTable(w io.Writer, s *Sweep) *Table {
	t := &Table{w: w, phases: s.Phases(), depth: s.DepthSwept(), width: cellWidth}
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
	t.printf("%s: threads %s%s; phases %s\n%s; dir %s\n", title, FormatThreads(s.Threads), depths,
		s.Setup.Phases, s.Describe(), report.Clean(s.Setup.Dir))
	t.printf("GB/s (10^9 B/s): bandwidth, the figure to quote (IOPS for random phases), first-done\n")
	t.printf("and sum of thread rates (IOzone -x's \"Children see\")%s\n\n", iterationText(s.Setup.Iterations))
	var groups, names strings.Builder
	groups.WriteString(pad("", 7))
	names.WriteString(pad("threads", 7))
	if t.depth {
		groups.WriteString(pad("", 8))
		names.WriteString(lpad("iodepth", 8))
	}
	for _, p := range t.phases {
		cols := []string{"GB/s", "first-done", "sum"}
		if wire.Phase(p).CountsOps() {
			cols = append(cols, "IOPS")
		}
		groups.WriteString("  " + pad(report.Clean(p), len(cols)*(t.width+1)-1))
		for _, c := range cols {
			names.WriteString(" " + lpad(c, t.width))
		}
		groups.WriteString(" ")
	}
	t.printf("%s\n%s\n", strings.TrimRight(groups.String(), " "), names.String())
	return t
}

// Row prints one point.
func (t *Table) Row(job *result.Job) {
	byPhase := map[string]Figure{}
	for _, f := range FiguresOf(job) {
		byPhase[f.Phase] = f
	}
	var b strings.Builder
	b.WriteString(lpad(strconv.Itoa(job.Config.Threads), 7))
	if t.depth {
		b.WriteString(lpad(strconv.Itoa(max(job.Config.IODepth, 1)), 8))
	}
	stonewalled := false
	for i := range job.Phases {
		stonewalled = stonewalled || job.Phases[i].Stonewalled
	}
	if t.compact {
		t.compactRow(job, byPhase, stonewalled)
		return
	}
	for _, p := range t.phases {
		f, ok := byPhase[p]
		for _, c := range cells(p, f, ok) {
			b.WriteString(" " + lpad(c, t.width))
		}
	}
	if stonewalled {
		b.WriteString("  stonewalled")
	}
	if !job.Complete {
		b.WriteString("  INCOMPLETE: " + report.Clean(orText(job.Error, "the run ended early")))
	}
	t.printf("%s\n", b.String())
}

// cells are one phase's columns of a row; a phase the point lacks (it
// stopped before it) shows dashes.
func cells(phase string, f Figure, ok bool) []string {
	out := []string{"-", "-", "-"}
	if ok {
		out = []string{withSpread(gbs(f.Bandwidth), gbs(f.BandwidthStat.Stddev), f.Iterations),
			gbs(f.FirstDone), gbs(f.SumOfRates)}
		if f.FirstDoneWithheld {
			out[1] = "n/a"
		}
		if f.MaybeCache {
			out[0] += "!"
		}
	}
	if wire.Phase(phase).CountsOps() {
		out = append(out, "-")
		if ok {
			out[3] = withSpread(fmt.Sprintf("%.0f", f.IOPS), fmt.Sprintf("%.0f", f.IOPSStat.Stddev), f.Iterations)
		}
	}
	return out
}

// withSpread adds "±stddev" to a mean over two iterations or more.
func withSpread(mean, sd string, iterations int) string {
	if iterations < 2 {
		return mean
	}
	return mean + "±" + sd
}

// gbs prints a rate in decimal GB/s, as the seeds quote it.
func gbs(rate float64) string { return fmt.Sprintf("%.3f", rate/1e9) }

// Err is the first write error, if any.
func (t *Table) Err() error { return t.err }

func (t *Table) printf(format string, args ...any) {
	if t.err != nil {
		return
	}
	if _, err := fmt.Fprintf(t.w, format, args...); err != nil {
		t.err = fmt.Errorf("writing sweep table: %w", err)
	}
}

// Footer prints the time the sweep spent outside its timed phases, when
// its points recorded it: the launch, then the points' own (node checks,
// job directories, cache drops, prefills, gathering, cleanup), in all and
// per point at the median. Where a row showed "n/a", it says why. Every
// failed try at a point (sweep --retries) is listed first.
func (t *Table) Footer(s *Sweep) {
	var outside []float64 // seconds
	var sum float64
	withheld, cached := false, false
	for _, p := range s.Points {
		if p != nil && p.ElapsedNS > 0 {
			outside = append(outside, float64(p.OutsidePhasesNS)/1e9)
			sum += outside[len(outside)-1]
		}
		withheld = withheld || (p != nil && report.FirstDoneWithheld(p.Phases))
		cached = cached || (p != nil && report.CacheMark(p.Phases, "") != "")
	}
	t.failures(s)
	if t.compact {
		t.compactFooter(s, outside, sum, cached)
		return
	}
	if len(outside) > 0 {
		t.printf("outside the timed phases: launch %.2f s, then %.2f s over %d points (median %.2f s per point)\n",
			float64(s.LaunchNS)/1e9, sum, len(outside), figures.Median(outside))
	}
	if withheld {
		t.printf("%s\n", report.FirstDoneWithheldNote)
	}
	if cached {
		t.printf("%s\n", report.CacheMarkNote)
	}
}

// WriteTable prints a whole sweep: what the live table printed, followed
// by the reason when it stopped early.
func WriteTable(w io.Writer, s *Sweep) error {
	if s == nil {
		return errors.New("no sweep to print")
	}
	return writeTable(NewTable(w, s), s)
}

// writeTable prints s's points and footer in t.
func writeTable(t *Table, s *Sweep) error {
	for _, p := range s.Points {
		t.Row(p)
	}
	t.Footer(s)
	if !s.Complete {
		stopped := "sweep stopped early: " + report.Clean(orText(s.Error, "not every point ran"))
		if t.compact {
			t.wrapped("", stopped)
		} else {
			t.printf("%s\n", stopped)
		}
	}
	return t.Err()
}

func iterationText(n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf(";\neach the mean over %d iterations, ±: sample standard deviation", n)
}

// pad and lpad count characters, not bytes: "±" is one column.
func pad(s string, n int) string {
	if k := utf8.RuneCountInString(s); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s
}

func lpad(s string, n int) string {
	if k := utf8.RuneCountInString(s); k < n {
		return strings.Repeat(" ", n-k) + s
	}
	return s
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
