package chart

import (
	"bytes"
	"encoding/xml"
	"image"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/image/vector"

	"ioswarm/study"
)

func testFace(t *testing.T) *typeface {
	t.Helper()
	face, err := newTypeface()
	if err != nil {
		t.Fatal(err)
	}
	return face
}

// axisReading reads a panel's axis back off the scene: the value and
// pixel of every labelled tick mark, as a reader of the picture would.
type axisReading struct {
	vals, pix []float64
	log       bool
}

func readAxis(t *testing.T, s *scene, prefix string, horizontal, log bool, parse func(string) float64) axisReading {
	t.Helper()
	var a axisReading
	a.log = log
	for _, o := range s.ops {
		label, ok := strings.CutPrefix(o.role, prefix)
		if !ok || label == "" {
			continue
		}
		p := o.pts[1].Y
		if horizontal {
			p = o.pts[0].X
		}
		a.vals, a.pix = append(a.vals, parse(label)), append(a.pix, p)
	}
	if len(a.vals) < 2 {
		t.Fatalf("%q: %d labelled ticks", prefix, len(a.vals))
	}
	return a
}

// value is what a reader reads at pixel p, between the outermost ticks.
func (a axisReading) value(p float64) float64 {
	i, j := 0, len(a.vals)-1
	v0, v1 := a.vals[i], a.vals[j]
	if a.log {
		v0, v1 = math.Log(v0), math.Log(v1)
	}
	v := v0 + (p-a.pix[i])/(a.pix[j]-a.pix[i])*(v1-v0)
	if a.log {
		return math.Exp(v)
	}
	return v
}

func parseCount(s string) float64 {
	m := 1.0
	switch {
	case strings.HasSuffix(s, "k"):
		m, s = 1e3, strings.TrimSuffix(s, "k")
	case strings.HasSuffix(s, "M"):
		m, s = 1e6, strings.TrimSuffix(s, "M")
	}
	v, _ := strconv.ParseFloat(s, 64)
	return v * m
}

func parsePlain(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }

// Every mark sits where the axes' own labels say its figure is: read back
// through the tick labels, each point of the comparison gives the threads
// and the GB/s (or IOPS) of its study to 0.5%. A chart that drew a point
// off its value, or labelled an axis wrongly, fails here.
func TestPointsSitOnTheirValues(t *testing.T) {
	ss := fixture(t, "gen1.json", "gen2.json")
	c, err := contentOf(ss)
	if err != nil {
		t.Fatal(err)
	}
	face := testFace(t)
	for _, size := range []Size{{1000, 700}, {600, 400}, {2400, 1600}} {
		s := c.figure().layout(size.Width, size.Height, face)
		for panel, want := range map[string]func(line) []xy{
			"p0": func(l line) []xy { return l.bw },
			"p1": func(l line) []xy { return l.iops },
		} {
			parse := parsePlain
			if panel == "p1" {
				parse = parseCount
			}
			x := readAxis(t, s, panel+" xtick ", true, true, parsePlain)
			y := readAxis(t, s, panel+" ytick ", false, false, parse)
			var marks []pt
			for _, o := range s.ops {
				if o.role == panel+" point" {
					marks = append(marks, o.at)
				}
			}
			var points []xy
			for _, l := range c.lines {
				points = append(points, want(l)...)
			}
			if len(marks) != len(points) {
				t.Fatalf("%v %s: %d marks for %d points", size, panel, len(marks), len(points))
			}
			for i, p := range points {
				gx, gy := x.value(marks[i].X), y.value(marks[i].Y)
				if math.Abs(gx-p.X) > 0.005*p.X || math.Abs(gy-p.Y) > 0.005*p.Y {
					t.Errorf("%v %s: point %d of (%g, %g) reads as (%.4g, %.4g)", size, panel, i, p.X, p.Y, gx, gy)
				}
			}
		}
	}
}

// The PNG draws what the scene says: each mark's centre is its line's
// colour, and a pixel away from every mark, line and grid line is white.
func TestPNGDrawsTheScene(t *testing.T) {
	face := testFace(t)
	blue := phaseColor("write")
	f := &figure{title: "t", x: axis{label: "x", lo: 0.5, hi: 16, log: true, ticks: powersOfTwo},
		panels: []panel{{y: axis{label: "y", ticks: niceTicks(strconv.FormatFloat)},
			series: []series{{look: look{color: blue, width: 2, glyph: glyphCircle, radius: 5}, pts: []xy{{1, 1}, {8, 9}}}}}}}
	f.panels[0].fitY()
	s := f.layout(800, 600, face)
	img := rasterize(s, face)
	var marks []pt
	for _, o := range s.ops {
		if o.role == "p0 point" {
			marks = append(marks, o.at)
		}
	}
	if len(marks) != 2 {
		t.Fatalf("%d marks", len(marks))
	}
	for _, m := range marks {
		if got := img.RGBAAt(int(m.X), int(m.Y)); got != blue {
			t.Errorf("mark at %v: pixel %v, want %v", m, got, blue)
		}
	}
	// Below the line, between grid lines: 40% of the way from mark 1 to
	// mark 2 in x, just above mark 1's height.
	empty := image.Point{X: int(marks[0].X + (marks[1].X-marks[0].X)*0.4), Y: int(marks[0].Y - 3)}
	if got := img.RGBAAt(empty.X, empty.Y); got != white {
		t.Errorf("pixel %v, away from everything, is %v", empty, got)
	}
}

// Text is drawn in the box the layout measured, upright or turned, so a
// label measured to fit cannot overflow into its neighbour.
func TestTextStaysInItsBox(t *testing.T) {
	face := testFace(t)
	const word, size = "MMMM.....", 16.0
	w, asc, desc := face.width(word, size), face.ascent(size), face.descent(size)
	for _, vertical := range []bool{false, true} {
		s := &scene{w: 300, h: 300}
		s.text("t", pt{150, 150}, word, size, anchorMiddle, vertical, black)
		img := rasterize(s, face)
		// The box the text may use, a pixel of anti-aliasing around it.
		box := image.Rect(int(150-w/2)-1, int(150-asc)-1, int(150+w/2)+2, int(150+desc)+2)
		if vertical {
			box = image.Rect(int(150-asc)-1, int(150-w/2)-1, int(150+desc)+2, int(150+w/2)+2)
		}
		inked, outside := 0, 0
		var first, last image.Point // first and last inked along the text
		for y := 0; y < 300; y++ {
			for x := 0; x < 300; x++ {
				if img.RGBAAt(x, y) == white {
					continue
				}
				inked++
				if !(image.Point{X: x, Y: y}).In(box) {
					outside++
				}
				along := x
				if vertical {
					along = 300 - y // read upwards
				}
				if inked == 1 || along < first.X {
					first.X = along
				}
				last.X = max(last.X, along)
			}
		}
		if inked < 100 || outside > 0 {
			t.Errorf("vertical %v: %d pixels inked, %d outside %v", vertical, inked, outside, box)
		}
		// It reads the right way: the heavy capitals come first (left, or
		// at the bottom when turned), the light dots after them.
		if heavy, light := inkHalves(img, box, vertical); heavy <= 2*light {
			t.Errorf("vertical %v: %d pixels of ink in the text's first half, %d in its second: drawn backwards", vertical, heavy, light)
		}
		// The ink spans the measured width, not a shrunk or doubled one.
		if span := float64(last.X - first.X); span < w*0.9 || span > w+2 {
			t.Errorf("vertical %v: ink spans %g px along the text, measured %g", vertical, span, w)
		}
	}
}

// inkHalves counts inked pixels in the first and second half of a text's
// box along its reading direction.
func inkHalves(img *image.RGBA, box image.Rectangle, vertical bool) (first, second int) {
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			if img.RGBAAt(x, y) == white {
				continue
			}
			early := x < (box.Min.X+box.Max.X)/2
			if vertical {
				early = y >= (box.Min.Y+box.Max.Y)/2
			}
			if early {
				first++
			} else {
				second++
			}
		}
	}
	return first, second
}

// Dashes are cut along the line's length, across its corners, on and off
// in turn.
func TestDashes(t *testing.T) {
	line := []pt{{0, 0}, {40, 0}, {40, 60}} // 100 px, a corner at 40
	pieces := dashed(line, []float64{10, 5})
	on := 0.0
	for _, p := range pieces {
		for i := 1; i < len(p); i++ {
			on += math.Hypot(p[i].X-p[i-1].X, p[i].Y-p[i-1].Y)
		}
	}
	// 100 = 6 × (10 + 5) + 10: seven dashes, 70 px on.
	if len(pieces) != 7 || math.Abs(on-70) > 1e-9 {
		t.Errorf("%d dashes, %g px on; want 7 and 70", len(pieces), on)
	}
	// A dash over a corner keeps it as a vertex: 0..15 of a 20 px line
	// turning at 10 is one dash of three points, ending at (10, 5).
	if got := dashed([]pt{{0, 0}, {10, 0}, {10, 10}}, []float64{15, 5}); len(got) != 1 || len(got[0]) != 3 || got[0][2] != (pt{10, 5}) {
		t.Errorf("dash over a corner: %v", got)
	}
	if got := dashed(line, nil); len(got) != 1 || len(got[0]) != 3 {
		t.Errorf("solid line cut: %v", got)
	}
}

// Shapes of one fill add up where they overlap, whichever way each is
// wound, instead of cancelling (the rasterizer sums signed coverage): a
// zigzag's corner, where two segments and a joint disc meet, is filled,
// and so is the overlap of two squares wound opposite ways.
func TestOverlapsAreFilled(t *testing.T) {
	face := testFace(t)
	s := &scene{w: 100, h: 100}
	s.stroke("z", []pt{{10, 80}, {50, 20}, {90, 80}}, 8, black, nil)
	img := rasterize(s, face)
	for _, p := range []image.Point{{50, 22}, {50, 18}, {48, 21}, {52, 21}} {
		if got := img.RGBAAt(p.X, p.Y); got != black {
			t.Errorf("the corner's pixel %v is %v, want black", p, got)
		}
	}
	sq := func(x, y float64) []pt { return []pt{{x, y}, {x + 40, y}, {x + 40, y + 40}, {x, y + 40}} }
	img = image.NewRGBA(image.Rect(0, 0, 100, 100))
	var z vector.Rasterizer
	fillShapes(img, &z, [][]pt{sq(10, 10), reversed(sq(30, 30))}, black)
	for _, p := range []image.Point{{20, 20}, {40, 40}, {60, 60}} {
		if got := img.RGBAAt(p.X, p.Y); got != black {
			t.Errorf("pixel %v of two overlapping squares is %v, want black", p, got)
		}
	}
}

// At the smallest size allowed the labels still do not overlap: those
// that would are left out, every second one first.
func TestLabelsDoNotOverlapWhenSmall(t *testing.T) {
	face := testFace(t)
	s16 := fixture(t, "gen1.json")[0]
	c, err := contentOf([]*study.Sweep{s16})
	if err != nil {
		t.Fatal(err)
	}
	// Sixteen doublings on the x axis: 1 to 32768.
	c.minX, c.maxX = 1, 1<<15
	s := c.figure().layout(300, 200, face)
	for _, kind := range []string{"p0 xtick-label", "p0 ytick-label", "p1 xtick-label", "p1 ytick-label"} {
		var boxes [][2]float64
		for _, o := range s.ops {
			if o.role != kind {
				continue
			}
			w := face.width(o.text, o.size)
			if strings.Contains(kind, "x") {
				boxes = append(boxes, [2]float64{o.pts[0].X - w/2, o.pts[0].X + w/2})
			} else {
				boxes = append(boxes, [2]float64{o.pts[0].Y - face.ascent(o.size), o.pts[0].Y + face.descent(o.size)})
			}
		}
		if len(boxes) < 2 {
			t.Errorf("%s: %d labels", kind, len(boxes))
		}
		for i := 1; i < len(boxes); i++ {
			a, b := boxes[i-1], boxes[i]
			if strings.Contains(kind, "y") {
				a, b = b, a // y labels run upwards
			}
			if b[0] < a[1] {
				t.Errorf("%s: labels %d and %d overlap: %v %v", kind, i-1, i, boxes[i-1], boxes[i])
			}
		}
	}
}

// The SVG holds the scene, op for op, and every label's text.
func TestSVGHoldsTheScene(t *testing.T) {
	ss := fixture(t, "gen1.json", "gen2.json")
	s, face, err := sceneOf(ss, Size{Width: 1000, Height: 700}, Labels{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := writeSVG(&buf, s, face); err != nil {
		t.Fatal(err)
	}
	svg := buf.String()
	paths, texts := strings.Count(svg, "<path "), strings.Count(svg, "<text ")
	var wantPaths, wantTexts int
	for _, o := range s.ops {
		if o.kind == opLabel {
			wantTexts++
			if !strings.Contains(svg, ">"+strings.ReplaceAll(o.text, "'", "&#39;")+"</text>") {
				t.Errorf("SVG lacks the text %q", o.text)
			}
		} else {
			wantPaths++
		}
	}
	if paths != wantPaths || texts != wantTexts {
		t.Errorf("SVG has %d paths and %d texts, the scene %d and %d", paths, texts, wantPaths, wantTexts)
	}
	if m := regexp.MustCompile(`stroke="#1f5fbf"`).FindAllString(svg, -1); len(m) == 0 {
		t.Error("no stroke in the write phase's colour")
	}

	// Text that XML must escape (a study's name is the user's) still
	// gives a well-formed file that holds it.
	s.text("t", pt{10, 10}, `A&B <"gpfs"> 'old'`, 12, anchorStart, false, black)
	buf.Reset()
	if err := writeSVG(&buf, s, face); err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(&buf)
	found := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
		if cd, ok := tok.(xml.CharData); ok && string(cd) == `A&B <"gpfs"> 'old'` {
			found = true
		}
	}
	if !found {
		t.Error("the escaped text did not come back from the SVG")
	}
}
