package htmlreport

import (
	"errors"
	"fmt"
	"html/template"
	"slices"
	"sort"
	"strings"
	"time"

	"ioswarm/acceptance"
	"ioswarm/study"
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
	// Groups, when set, are the study files the sweeps came from, each
	// with its sections: the configuration, nodes, warnings and command
	// lines are then said once per study; otherwise each sweep is one.
	Groups []Group
}

// Document is everything the report shows, worked out before anything
// is written, so the HTML and the Markdown say the same.
type Document struct {
	Title     string
	Generated string
	Version   string
	Studies   []Study
	// Nodes, when every study ran on the same nodes with the same facts,
	// are those nodes, shown once (the studies then hold none).
	Nodes []Node
	// Sources says what the document was made from: "2 studies (4 sections)".
	Sources  string
	Sections []Section
	Peaks    []Peak
	Compares []Comparison
	// Verdicts are the first study judged against the expectations an
	// acceptance test gave (none without).
	Verdicts []acceptance.Verdict
	Expected string // the expectations as given
	Judged   string // the name of what was judged: the first study, or a study's sections
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
	if !o.Generated.IsZero() {
		d.Generated = o.Generated.UTC().Format(time.RFC3339)
	}
	groups, err := groupsOf(o.Groups, names)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		d.Studies = append(d.Studies, studyOf(ss, g))
	}
	d.shareNodes()
	d.shareSettings()
	d.Sources = sourcesText(d.Studies)
	if d.Title == "" {
		d.Title = "Storage characterisation: " + strings.Join(studyNames(d.Studies), " vs ")
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
