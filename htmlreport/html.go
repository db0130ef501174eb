package htmlreport

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"ioswarm/chart"
	"ioswarm/study"
)

//go:embed report.html.tmpl
var pageText string

// page is parsed once per document: the template is small and a report
// is written once, so nothing is kept between calls.
func page() (*template.Template, error) {
	return template.New("report").Funcs(template.FuncMap{
		"inc":   func(i int) int { return i + 1 },
		"nodes": nodesText,
	}).Parse(pageText)
}

// chartSize is the size the report draws its charts at, in CSS pixels;
// the page scales them to its width.
var chartSize = chart.Size{Width: 1000, Height: 620}

// Charts draws each section's chart of the studies as SVG, every study
// on it, into the document.
func (d *Document) Charts(ss []*study.Sweep) error {
	fontCSS := chart.FontFaceCSS()
	for i := range d.Sections {
		sec := &d.Sections[i]
		var b bytes.Buffer
		lb := chart.Labels{Title: fmt.Sprintf("Figure %d: %s", i+1, sec.Name), Phases: sec.Phases}
		if err := chart.SVG(&b, drawn(ss, sec.Phases), chartSize, lb); err != nil {
			return fmt.Errorf("report: chart of %s: %w", sec.Name, err)
		}
		// The SVG is this program's own drawing, its text escaped as it
		// was written: the page takes it as it is.
		sec.Chart = template.HTML(inline(b.String(), fontCSS))
	}
	return nil
}

// drawn are the studies that have a phase on a section's chart: a
// study's random section has no line on the sequential chart, and must
// not be named in its title's configuration differences either.
func drawn(ss []*study.Sweep, phases []string) []*study.Sweep {
	var out []*study.Sweep
	for _, s := range ss {
		if slices.ContainsFunc(s.Phases(), func(p string) bool { return slices.Contains(phases, p) }) {
			out = append(out, s)
		}
	}
	return out
}

// inline makes a standalone SVG file fit inside an HTML page: the XML
// declaration goes (it is not allowed there), the drawing scales to the
// page's width, and its copy of the font goes too: a style inside an
// inline SVG is the whole page's, so the page carries the font once
// (fontCSS, chart.FontFaceCSS), not once per chart (550 KB each).
func inline(svg, fontCSS string) string {
	if strings.HasPrefix(svg, "<?xml") {
		if i := strings.Index(svg, "?>"); i >= 0 {
			svg = strings.TrimLeft(svg[i+2:], "\n")
		}
	}
	svg = strings.Replace(svg, fontCSS, "", 1)
	return strings.Replace(svg, "<svg ", `<svg class="chart" role="img" preserveAspectRatio="xMidYMid meet" `, 1)
}

// WriteHTML writes the document as one self-contained HTML page.
func (d *Document) WriteHTML(w io.Writer) error {
	t, err := page()
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	view := struct {
		*Document
		Definitions []Definition
		FontCSS     template.CSS // the charts' font (see inline)
	}{Document: d, Definitions: definitions, FontCSS: template.CSS(chart.FontFaceCSS())}
	if err := t.Execute(w, view); err != nil {
		return fmt.Errorf("report: writing HTML: %w", err)
	}
	return nil
}
