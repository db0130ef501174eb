package htmlreport

import (
	"errors"
	"fmt"
	"html/template"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"ioswarm/acceptance"
	"ioswarm/settings"
	"ioswarm/study"
	"ioswarm/units"
	"ioswarm/wire"
)

// Options are what the document says beyond the studies.
type Options struct {
	Title     string                   // the document's title; a default names the studies
	Expect    []acceptance.Expectation // judged against the first study
	Generated time.Time                // when the document was made (fixed in tests)
	Version   string                   // the ioswarm that made it
	// Pairs, when set, are the studies to compare, by their index in the
	// list (a study's sections with the same sections of another);
	// otherwise the first is compared with each other.
	Pairs [][2]int
	// Judged, when set, is what the expectations are judged against
	// instead of the first study (every section of a study at once).
	Judged *study.Sweep
}

// Document is everything the report shows, worked out before anything
// is written, so the HTML and the Markdown say the same.
type Document struct {
	Title     string
	Generated string
	Version   string
	Studies   []Study
	Sections  []Section
	Peaks     []Peak
	Compares  []Comparison
	// Verdicts are the first study judged against the expectations an
	// acceptance test gave (none without).
	Verdicts []acceptance.Verdict
	Expected string // the expectations as given
	Judged   string // the name of what was judged: the first study, or a study's sections
}

// Study is one study's configuration, nodes, command lines and warnings.
type Study struct {
	Name, Describe string
	Complete       bool
	Error          string
	Config         [][2]string // what shaped the runs, name and value
	Nodes          []Node
	Commands       []string
	Warnings       []Warning
}

// Node is one node as the first point of a study saw it.
type Node struct {
	Host, Kernel, FS, Mount, Memory, ClientCache string
	Ranks                                        int
}

// Warning is a warning a point's run carried.
type Warning struct {
	Threads int
	Text    string
}

// sectionKinds are the sections in the order a characterisation reads:
// what each holds and how its figures are counted.
var sectionKinds = []struct {
	name   string
	phases []string
	ops    bool
}{
	{"Sequential N-to-N", []string{"write", "rewrite", "read", "reread"}, false},
	{"Random I/O", []string{"randwrite", "randread"}, true},
	{"Metadata", []string{"mdcreate", "mdstat", "mdread", "mddelete"}, true},
}

// Section is one kind of I/O: its chart (every study on it) and a row per
// study, phase and thread count.
type Section struct {
	Name   string
	Phases []string
	Ops    bool          // counted in operations per second
	Chart  template.HTML // SVG, filled by Charts for the page
	Rows   []Row
}

// Row is one point of one phase of one study.
type Row struct {
	Study, Phase string
	Threads      int
	GBs, IOPS    string // mean ± sample stddev over the iterations
	Iterations   int
	Complete     bool
	SumOfRates   string
	FirstDone    string
}

// Peak is a phase's best point and its sustained figure: the figure at
// the study's largest thread count.
type Peak struct {
	Study, Phase        string
	Unit                string
	Peak, Sustained     string
	PeakAt, SustainedAt int
}

// Comparison is each point both studies have: the first study (A)
// against another (B).
type Comparison struct {
	A, B  string
	Diffs []string // how the configurations differ
	Rows  []CompareRow
}

// CompareRow is one matched point.
type CompareRow struct {
	Phase      string
	Threads    int
	A, B, Unit string
	Change     string
	Noise      string // beyond, within, or "-" (a side ran once)
}

// Build works out the document of the studies, the first being the one
// the others are compared with.
func Build(ss []*study.Sweep, o Options) (*Document, error) {
	if len(ss) == 0 {
		return nil, errors.New("report: no study given")
	}
	names := study.Names(ss...)
	d := &Document{Title: o.Title, Version: o.Version}
	if d.Title == "" {
		d.Title = "Storage characterisation: " + strings.Join(names, " vs ")
	}
	if !o.Generated.IsZero() {
		d.Generated = o.Generated.UTC().Format(time.RFC3339)
	}
	for i, s := range ss {
		d.Studies = append(d.Studies, studyOf(s, names[i]))
	}
	d.Sections = sectionsOf(ss, names)
	if len(d.Sections) == 0 {
		return nil, errors.New("report: the studies hold no measured point")
	}
	for i, s := range ss {
		d.Peaks = append(d.Peaks, peaksOf(s, names[i])...)
	}
	if len(o.Expect) > 0 {
		d.judge(ss[0], names[0], o)
	}
	compares, err := comparesOf(ss, names, o.Pairs)
	if err != nil {
		return nil, err
	}
	d.Compares = compares
	return d, nil
}

// sectionsOf is each kind of section the studies measured, in the
// order a characterisation reads, with every study's points of it.
func sectionsOf(ss []*study.Sweep, names []string) []Section {
	var out []Section
	for _, k := range sectionKinds {
		sec := Section{Name: k.name, Ops: k.ops}
		for i, s := range ss {
			for _, f := range s.Figures() {
				if !slices.Contains(k.phases, f.Phase) {
					continue
				}
				if !slices.Contains(sec.Phases, f.Phase) {
					sec.Phases = append(sec.Phases, f.Phase)
				}
				sec.Rows = append(sec.Rows, rowOf(names[i], f))
			}
		}
		if len(sec.Rows) > 0 {
			sortPhases(sec.Phases, k.phases)
			out = append(out, sec)
		}
	}
	return out
}

// judge judges the expectations against the first study (first, named
// firstName) or against o.Judged when that is set.
func (d *Document) judge(first *study.Sweep, firstName string, o Options) {
	judged := first
	d.Judged = firstName
	if o.Judged != nil {
		judged, d.Judged = o.Judged, o.Judged.Name()
	}
	d.Verdicts = acceptance.Judge(judged, o.Expect)
	var texts []string
	for _, e := range o.Expect {
		texts = append(texts, e.Text)
	}
	d.Expected = strings.Join(texts, ", ")
}

// comparesOf compares the pairs of studies given by their index, or
// without pairs the first study with each other.
func comparesOf(ss []*study.Sweep, names []string, pairs [][2]int) ([]Comparison, error) {
	if pairs == nil {
		for i := 1; i < len(ss); i++ {
			pairs = append(pairs, [2]int{0, i})
		}
	}
	var out []Comparison
	for _, p := range pairs {
		if p[0] < 0 || p[1] < 0 || p[0] >= len(ss) || p[1] >= len(ss) {
			return nil, fmt.Errorf("report: no study %d to compare", max(p[0], p[1]))
		}
		out = append(out, compareOf(ss[p[0]], ss[p[1]], names[p[0]], names[p[1]]))
	}
	return out, nil
}

// sortPhases puts phases in the order their section lists them.
func sortPhases(ps, order []string) {
	sort.Slice(ps, func(i, j int) bool { return slices.Index(order, ps[i]) < slices.Index(order, ps[j]) })
}

func studyOf(s *study.Sweep, name string) Study {
	st := Study{Name: name, Describe: s.Describe(), Complete: s.Complete, Error: s.Error}
	su := s.Setup
	io := "buffered"
	if su.Direct {
		io = "O_DIRECT"
	}
	engine := su.Engine
	if engine == "" {
		engine = settings.Sync
	}
	st.Config = [][2]string{
		{"phases", su.Phases.Join(", ")},
		{"size held fixed", s.SizeText()},
		{"record size", units.FormatSize(su.BlockSize)},
		{"random op size", units.FormatSize(su.RandBlockSize)},
		{"I/O", io + ", fsync " + onOff(su.Fsync) + ", engine " + engine.String()},
		{"iterations per point", strconv.Itoa(su.Iterations)},
		{"directory", su.Dir},
		{"nodes", strconv.Itoa(s.Hosts())},
	}
	seenCmd := map[string]bool{}
	for _, p := range s.Points {
		if c := p.CommandLine; c != "" && !seenCmd[c] {
			seenCmd[c] = true
			st.Commands = append(st.Commands, c)
		}
		for _, w := range p.Warnings {
			st.Warnings = append(st.Warnings, Warning{Threads: p.Config.Threads, Text: w})
		}
	}
	if len(s.Points) > 0 {
		st.Nodes = nodesOf(s)
	}
	return st
}

// nodesOf lists the nodes of the study's largest point, each once.
func nodesOf(s *study.Sweep) []Node {
	p := s.Points[0]
	for _, q := range s.Points {
		if len(q.Hosts) > len(p.Hosts) {
			p = q
		}
	}
	var out []Node
	at := map[string]int{}
	for _, h := range p.Hosts {
		if i, ok := at[h.Host]; ok {
			out[i].Ranks++
			continue
		}
		at[h.Host] = len(out)
		cache := "page cache"
		if len(h.CacheNotes) > 0 {
			cache = strings.Join(h.CacheNotes, "; ")
		}
		if h.CacheBytes > 0 {
			cache = units.FormatBytes(h.CacheBytes) + ": " + cache
		}
		mount, memory := "not recorded", "not recorded"
		if h.MountPoint != "" {
			mount = strings.TrimPrefix(h.FSSource+" on "+h.MountPoint, " on ")
		}
		if h.MemTotal > 0 {
			memory = units.FormatBytes(h.MemTotal)
		}
		out = append(out, Node{Host: h.Host, Kernel: h.Kernel, FS: h.FSType, Mount: mount, Memory: memory, ClientCache: cache, Ranks: 1})
	}
	return out
}

func rowOf(name string, f study.Figure) Row {
	r := Row{Study: name, Phase: f.Phase, Threads: f.Threads, Iterations: f.Iterations, Complete: f.Complete,
		GBs:        spreadText(f.Bandwidth/1e9, f.BandwidthStat.Stddev/1e9, f.Iterations, "%.3f"),
		SumOfRates: fmt.Sprintf("%.3f", f.SumOfRates/1e9), FirstDone: fmt.Sprintf("%.3f", f.FirstDone/1e9)}
	if f.FirstDoneWithheld {
		r.FirstDone = "n/a"
	}
	if wire.Phase(f.Phase).CountsOps() {
		r.IOPS = spreadText(f.IOPS, f.IOPSStat.Stddev, f.Iterations, "%.0f")
	}
	return r
}

// spreadText is a mean, with ± its sample stddev when the point ran more
// than once.
func spreadText(mean, sd float64, iterations int, format string) string {
	if iterations < 2 {
		return fmt.Sprintf(format, mean)
	}
	return fmt.Sprintf(format+" ± "+format, mean, sd)
}

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

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
