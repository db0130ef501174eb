package htmlreport

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"ioswarm/internal/golden"
	"ioswarm/study"
)

// studyFiles loads study files (made by `ioswarm study` on the local
// launcher: two sections, seq and random, two iterations a point) as the
// report command lays them out: every measured section a sweep, and a
// group per file.
func studyFiles(t *testing.T, names ...string) ([]*study.Sweep, []Group) {
	t.Helper()
	var ss []*study.Sweep
	var gs []Group
	for _, n := range names {
		st, err := study.LoadAny(filepath.Join("testdata", n))
		if err != nil {
			t.Fatal(err)
		}
		g := Group{Name: st.Name()}
		for _, sec := range st.Measured() {
			g.Sections = append(g.Sections, len(ss))
			ss = append(ss, sec)
		}
		gs = append(gs, g)
	}
	return ss, gs
}

// studyDocument is the document of study-a compared with study-b,
// section by section, as `ioswarm report study-a.json study-b.json` makes it.
func studyDocument(t *testing.T) (*Document, []*study.Sweep) {
	t.Helper()
	ss, gs := studyFiles(t, "study-a.json", "study-b.json")
	pairs := [][2]int{{gs[0].Sections[0], gs[1].Sections[0]}, {gs[0].Sections[1], gs[1].Sections[1]}}
	d, err := Build(ss, Options{Generated: time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC), Version: "test",
		Groups: gs, Pairs: pairs})
	if err != nil {
		t.Fatal(err)
	}
	return d, ss
}

// The HTML report of two studies of two sections each, values aside:
// "2 studies (4 sections)"; the nodes once (both ran on the same one);
// the first study's settings with a column per section, the second's
// said to be the same; each section's chart and table; the peaks; the
// warnings and command lines once per study; the comparison section by
// section; the definitions (golden outline, in order).
func TestStudyReportOutline(t *testing.T) {
	d, ss := studyDocument(t)
	if err := d.Charts(ss); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := d.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "study_outline.golden", []byte(outline(b.String())))
}

// The Markdown of the same studies has the same structure: headings,
// charts linked, the nodes once, one settings table, the tables' heads in
// order (golden outline).
func TestStudyReportMarkdownOutline(t *testing.T) {
	d, ss := studyDocument(t)
	dir := t.TempDir()
	charts, err := d.WriteChartFiles(ss, filepath.Join(dir, "rep"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := d.WriteMarkdown(&b, charts, dir); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "study_outline_md.golden", []byte(mdOutline(b.String())))
}

// Studies on different nodes keep a node table each, and studies whose
// settings differ keep a settings table each.
func TestStudyReportKeepsWhatDiffers(t *testing.T) {
	ss, gs := studyFiles(t, "study-a.json", "study-b.json")
	for _, i := range gs[1].Sections {
		for _, p := range ss[i].Points {
			p.Hosts[0].Kernel += "-other"
		}
	}
	ss[gs[1].Sections[0]].Setup.BlockSize *= 2
	d, err := Build(ss, Options{Groups: gs})
	if err != nil {
		t.Fatal(err)
	}
	if d.Nodes != nil || len(d.Studies[0].Nodes) == 0 || len(d.Studies[1].Nodes) == 0 {
		t.Errorf("nodes with other kernels: shared %d, per study %d and %d", len(d.Nodes), len(d.Studies[0].Nodes), len(d.Studies[1].Nodes))
	}
	if d.Studies[1].SameAs != "" {
		t.Errorf("settings with another record size said to be the same as %s's", d.Studies[1].SameAs)
	}
	if d.Sources != "2 studies (4 sections)" {
		t.Errorf("sources %q", d.Sources)
	}
}

// mdOutline is a Markdown document's structure, values aside: its
// headings, pictures, notes on what is shared, and each table's head.
func mdOutline(doc string) string {
	lines := strings.Split(doc, "\n")
	keep := regexp.MustCompile(`^(#|!\[|Made by |Every study ran|The same settings|Its nodes)`)
	var b strings.Builder
	for i, l := range lines {
		if keep.MatchString(l) || (strings.HasPrefix(l, "| ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "|---")) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
