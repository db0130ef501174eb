package htmlreport

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"ioswarm/chart"
	"ioswarm/study"
)

// WriteChartFiles draws each section's chart as SVG and PNG files named
// base-figN, for a document that links its pictures (Markdown), and
// returns the PNGs' paths.
func (d *Document) WriteChartFiles(ss []*study.Sweep, base string) ([]string, error) {
	var out []string
	for i, sec := range d.Sections {
		lb := chart.Labels{Title: fmt.Sprintf("Figure %d: %s", i+1, sec.Name), Phases: sec.Phases}
		_, png, err := chart.Write(fmt.Sprintf("%s-fig%d", base, i+1), drawn(ss, sec.Phases), chartSize, lb)
		if err != nil {
			return nil, fmt.Errorf("report: chart of %s: %w", sec.Name, err)
		}
		out = append(out, png)
	}
	return out, nil
}

// WriteMarkdown writes the document as Markdown for a wiki, the charts
// linked by their paths relative to the document's directory dir.
func (d *Document) WriteMarkdown(w io.Writer, charts []string, dir string) error {
	m := &mdWriter{w: w}
	m.header(d)
	m.acceptance(d)
	m.configuration(d)
	for i, sec := range d.Sections {
		m.section(i, sec, charts, dir)
	}
	m.peaks(d)
	m.warnings(d)
	for _, c := range d.Compares {
		m.compare(c)
	}
	m.commands(d)
	m.definitions()
	return m.err
}

// header is the title and what made the document.
func (m *mdWriter) header(d *Document) {
	m.printf("# %s\n\n", md(d.Title))
	m.printf("Made by ioswarm %s", md(d.Version))
	if d.Generated != "" {
		m.printf(" on %s", d.Generated)
	}
	m.printf(" from %s.\n", d.Sources)
}

// acceptance is the verdict of each expectation, when there were any.
func (m *mdWriter) acceptance(d *Document) {
	if len(d.Verdicts) == 0 {
		return
	}
	m.printf("\n## Acceptance\n\n%s judged against `%s`.\n\n", md(d.Judged), d.Expected)
	var rows [][]string
	for _, v := range d.Verdicts {
		rows = append(rows, []string{v.Text, v.MeasuredText(), v.VerdictText()})
	}
	m.table([]string{"expectation", "measured", "verdict"}, rows)
}

// configuration is each study's settings and nodes.
func (m *mdWriter) configuration(d *Document) {
	m.printf("\n## Configuration and nodes\n")
	if len(d.Nodes) > 0 {
		m.printf("\nEvery study ran on %s, with the same kernel, filesystem, mount, memory and client caches, as each study's largest point saw them:\n\n", nodesText(d.Nodes))
		m.nodes(d.Nodes)
	}
	for _, s := range d.Studies {
		m.printf("\n### %s\n\n%s\n\n", md(s.Name), md(s.Describe))
		if s.SameAs != "" {
			m.printf("The same settings as %s, section by section.\n\n", md(s.SameAs))
		} else {
			m.table(settingsTable(s))
		}
		if len(s.Nodes) > 0 {
			m.printf("Its nodes, as its largest point saw them:\n\n")
			m.nodes(s.Nodes)
		}
	}
}

// section is section i's chart (charts[i], linked relative to dir) and
// its table of points; a point still incomplete is marked with a star.
func (m *mdWriter) section(i int, sec Section, charts []string, dir string) {
	m.printf("\n## %s\n\n", md(sec.Name))
	if i < len(charts) {
		rel, err := filepath.Rel(dir, charts[i])
		if err != nil {
			rel = charts[i]
		}
		m.printf("![Figure %d: %s](%s)\n\n", i+1, md(sec.Name), filepath.ToSlash(rel))
	}
	head := []string{"study", "phase", "threads", "GB/s"}
	if sec.Ops {
		head = append(head, "IOPS")
	}
	head = append(head, "first-done GB/s", "sum of rates GB/s", "iterations")
	var rows [][]string
	for _, r := range sec.Rows {
		th := fmt.Sprint(r.Threads)
		if !r.Complete {
			th += "*"
		}
		row := []string{r.Study, r.Phase, th, r.GBs}
		if sec.Ops {
			row = append(row, r.IOPS)
		}
		rows = append(rows, append(row, r.FirstDone, r.SumOfRates, fmt.Sprint(r.Iterations)))
	}
	m.table(head, rows)
}

func (m *mdWriter) peaks(d *Document) {
	m.printf("\n## Peak and sustained figures\n\n")
	var rows [][]string
	for _, p := range d.Peaks {
		rows = append(rows, []string{p.Study, p.Phase, p.Peak + " " + p.Unit, fmt.Sprint(p.PeakAt), p.Sustained + " " + p.Unit, fmt.Sprint(p.SustainedAt)})
	}
	m.table([]string{"study", "phase", "peak", "at threads", "sustained", "at threads"}, rows)
}

func (m *mdWriter) warnings(d *Document) {
	m.printf("\n## Warnings and cache verdicts\n")
	for _, s := range d.Studies {
		m.printf("\n### %s\n\n", md(s.Name))
		if len(s.Warnings) == 0 {
			m.printf("No run of this study carried a warning.\n")
		}
		for _, wn := range s.Warnings {
			m.printf("- %s: %s\n", md(wn.Where), md(wn.Text))
		}
	}
}

// compare is one study against another, point by point.
func (m *mdWriter) compare(c Comparison) {
	m.printf("\n## %s against %s\n\n", md(c.B), md(c.A))
	for _, diff := range c.Diffs {
		m.printf("The configurations differ: %s\n\n", md(diff))
	}
	var rows [][]string
	for _, r := range c.Rows {
		rows = append(rows, []string{r.Phase, fmt.Sprint(r.Threads), r.A + " " + r.Unit, r.B + " " + r.Unit, r.Change, r.Noise})
	}
	m.table([]string{"phase", "threads", c.A, c.B, "change", "noise"}, rows)
}

// commands is each study's command lines, fenced so no line is markup.
func (m *mdWriter) commands(d *Document) {
	m.printf("\n## Command lines\n")
	for _, s := range d.Studies {
		m.printf("\n### %s\n\n", md(s.Name))
		for _, c := range s.Commands {
			m.printf("```\n%s\n```\n", strings.ReplaceAll(c, "```", "` ` `"))
		}
	}
}

func (m *mdWriter) definitions() {
	m.printf("\n## Definitions\n\n")
	for _, def := range definitions {
		m.printf("- **%s**: %s\n", md(def.Name), md(def.Text))
	}
}

// mdWriter keeps the first write error, so the document is written in a
// straight line and checked once.
type mdWriter struct {
	w   io.Writer
	err error
}

func (m *mdWriter) printf(format string, args ...any) {
	if m.err == nil {
		_, m.err = fmt.Fprintf(m.w, format, args...)
	}
}

func (m *mdWriter) table(head []string, rows [][]string) {
	cell := func(cs []string) string {
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = strings.ReplaceAll(md(c), "|", `\|`)
		}
		return "| " + strings.Join(out, " | ") + " |\n"
	}
	m.printf("%s", cell(head))
	sep := make([]string, len(head))
	for i := range sep {
		sep[i] = "---"
	}
	m.printf("|%s|\n", strings.Join(sep, "|"))
	for _, r := range rows {
		m.printf("%s", cell(r))
	}
	m.printf("\n")
}

// md keeps a value on one line and from being read as markup it did not
// mean: newlines become spaces, and HTML's angle brackets are escaped.
func md(s string) string {
	s = strings.NewReplacer("\r", " ", "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
	return s
}

// settingsTable is a study's settings: name and value for a sweep, a
// column per section for a study (a value the sections share repeated:
// Markdown has no spanning cell).
func settingsTable(s Study) ([]string, [][]string) {
	head := []string{"setting", "value"}
	if len(s.Sections) > 1 {
		head = append([]string{"setting"}, s.Sections...)
	}
	var rows [][]string
	for _, r := range s.Config {
		rows = append(rows, append([]string{r.Name}, r.Values...))
	}
	return head, rows
}

func (m *mdWriter) nodes(ns []Node) {
	var rows [][]string
	for _, n := range ns {
		rows = append(rows, []string{n.Host, fmt.Sprint(n.Ranks), n.Kernel, n.FS, n.Mount, n.Memory, n.ClientCache})
	}
	m.table([]string{"node", "ranks", "kernel", "filesystem", "mount", "memory", "client cache"}, rows)
}
