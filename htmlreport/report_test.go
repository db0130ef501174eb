package htmlreport

import (
	"bytes"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"ioswarm/chart"
	"ioswarm/internal/golden"
	"ioswarm/study"
)

func studies(t *testing.T, names ...string) []*study.Sweep {
	t.Helper()
	var out []*study.Sweep
	for _, n := range names {
		s, err := study.Load(filepath.Join("..", "study", "testdata", n))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func htmlOf(t *testing.T, ss []*study.Sweep) string {
	t.Helper()
	d, err := Build(ss, Options{Title: "Figure test", Generated: time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Charts(ss); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := d.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// outline is the page's structure, values aside: its headings, notes on
// what is shared, figures and tables with their column heads, and rows of
// settings with their cells as {} (or {N} for a cell spanning N
// columns), one a line.
var outlineTags = regexp.MustCompile(`(?s)<h[123][^>]*>.*?</h[123]>|<p class="meta">.*?</p>|<p>(Every study ran|The same settings|Its nodes)|<table class="[a-z]+">|<figure>|<svg class="chart"|<tr><th>.*?</tr>`)

var (
	headCell  = regexp.MustCompile(`<th>([^<]*)</th>`)
	valueCell = regexp.MustCompile(`<td>[^<]*</td>`)
	spanCell  = regexp.MustCompile(`<td colspan="(\d+)">[^<]*</td>`)
)

func outline(page string) string {
	var b strings.Builder
	for _, m := range outlineTags.FindAllString(page, -1) {
		if strings.HasPrefix(m, "<tr>") {
			m = headCell.ReplaceAllString(m, "[$1]")
			m = valueCell.ReplaceAllString(m, "{}")
			m = spanCell.ReplaceAllString(m, "{$1}")
		}
		b.WriteString(m + "\n")
	}
	return b.String()
}

// The report of a study compared with another holds, in order: the
// configuration, a section per kind of I/O each with its chart and table,
// the peaks, the warnings, the comparison, the command lines and the
// definitions (golden outline).
func TestReportOutline(t *testing.T) {
	page := htmlOf(t, studies(t, "gen2.json", "gen1.json"))
	golden.Check(t, "outline.golden", []byte(outline(page)))
}

// Nothing on the page is fetched: no script, no stylesheet or image from
// anywhere, no link off the page. The only URL is the SVG namespace,
// which names and fetches nothing.
func TestReportIsSelfContained(t *testing.T) {
	page := htmlOf(t, studies(t, "gen2.json", "gen1.json"))
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "@import", "url(http", `src="http`, `href="http`} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	urls := regexp.MustCompile(`https?://[^"' )<]+`).FindAllString(page, -1)
	for _, u := range urls {
		if u != "http://www.w3.org/2000/svg" {
			t.Errorf("the page names %s", u)
		}
	}
	if strings.Contains(page, "<?xml") {
		t.Error("an XML declaration was left inside the page")
	}
	if n := strings.Count(page, `<svg class="chart"`); n != 2 {
		t.Errorf("%d charts, want 2 (sequential and random)", n)
	}
}

// The charts' font is on the page once, in its style, not once per chart
// (550 KB each), and every chart still asks for it by name.
func TestReportCarriesTheChartsFontOnce(t *testing.T) {
	page := htmlOf(t, studies(t, "gen2.json", "gen1.json"))
	font := chart.FontFaceCSS()
	if n := strings.Count(page, "@font-face"); n != 1 || strings.Count(page, font) != 1 {
		t.Errorf("%d font rules on the page (%d of the charts' font), want that one once", n, strings.Count(page, font))
	}
	style, _, _ := strings.Cut(page, "</style>")
	if !strings.Contains(style, font) {
		t.Error("the charts' font is not in the page's style")
	}
	charts := strings.Split(page, `<svg class="chart"`)[1:]
	for i, c := range charts {
		if !strings.Contains(c, "text{font-family:'Liberation Sans'") {
			t.Errorf("chart %d does not ask for the font", i+1)
		}
	}
	if len(page) > len(font)+400<<10 {
		t.Errorf("the page is %d bytes, more than the font (%d) and 400 KiB", len(page), len(font))
	}
}

// The peak is the best complete point and the sustained figure the one
// at the largest thread count, recomputed here from the study's points.
func TestPeaksFromThePoints(t *testing.T) {
	ss := studies(t, "gen2.json")
	d, err := Build(ss, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Peaks {
		var best, last float64
		bestAt, lastAt := 0, 0
		for _, f := range ss[0].Figures() {
			if f.Phase != p.Phase || !f.Complete {
				continue
			}
			v := f.Bandwidth / 1e9
			if p.Unit != "GB/s" {
				v = f.IOPS
			}
			if v > best {
				best, bestAt = v, f.Threads
			}
			if f.Threads > lastAt {
				last, lastAt = v, f.Threads
			}
		}
		if got, _ := strconv.ParseFloat(p.Peak, 64); math.Abs(got-best) > 0.001*best+0.5e-3 || p.PeakAt != bestAt {
			t.Errorf("%s peak %s at %d, want %.3f at %d", p.Phase, p.Peak, p.PeakAt, best, bestAt)
		}
		if got, _ := strconv.ParseFloat(p.Sustained, 64); math.Abs(got-last) > 0.001*last+0.5e-3 || p.SustainedAt != lastAt {
			t.Errorf("%s sustained %s at %d, want %.3f at %d", p.Phase, p.Sustained, p.SustainedAt, last, lastAt)
		}
	}
	if len(d.Peaks) != len(ss[0].Phases()) {
		t.Errorf("%d peaks for %d phases", len(d.Peaks), len(ss[0].Phases()))
	}
}

// A value that holds markup is shown, never obeyed: a label with a
// script tag reaches the page escaped.
func TestReportEscapes(t *testing.T) {
	ss := studies(t, "gen2.json")
	ss[0].Label = `<script>alert(1)</script>`
	page := htmlOf(t, ss)
	if strings.Contains(page, "<script>") || !strings.Contains(page, "&lt;script&gt;") {
		t.Error("the label's markup was not escaped")
	}
}

// The Markdown says the same: each section with its chart linked, the
// comparison's rows, the definitions.
func TestReportMarkdown(t *testing.T) {
	ss := studies(t, "gen2.json", "gen1.json")
	d, err := Build(ss, Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	charts, err := d.WriteChartFiles(ss, filepath.Join(dir, "rep"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := d.WriteMarkdown(&b, charts, dir); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"## Sequential N-to-N", "![Figure 1: Sequential N-to-N](rep-fig1.png)", "## Random I/O",
		"![Figure 2: Random I/O](rep-fig2.png)", "## Peak and sustained figures", "against", "## Definitions", "| phase | threads |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if len(charts) != 2 {
		t.Errorf("%d chart files", len(charts))
	}
}

// Studies with no measured point make no report.
func TestReportNeedsPoints(t *testing.T) {
	if _, err := Build(nil, Options{}); err == nil {
		t.Error("a report of nothing")
	}
	s := studies(t, "gen2.json")[0]
	s.Points = nil
	if _, err := Build([]*study.Sweep{s}, Options{}); err == nil || !strings.Contains(err.Error(), "no measured point") {
		t.Errorf("no points: %v", err)
	}
}
