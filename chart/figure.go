package chart

import (
	"fmt"
	"image/color"
	"math"
	"strings"
)

// xy is a data point in the axes' units.
type xy struct{ X, Y float64 }

// yRange is how far a point's error bar reaches below and above it.
type yRange struct{ Low, High float64 }

type glyphShape int

const (
	glyphNone glyphShape = iota
	glyphCircle
	glyphTriangle
	glyphSquare
	glyphCross
)

// look is how a series is drawn, and its sample in the legend.
type look struct {
	color  color.RGBA
	width  float64
	dash   []float64
	glyph  glyphShape
	radius float64
}

// series is one line of a panel, with its marks and error bars.
type series struct {
	look
	pts  []xy
	bars []yRange // nil draws none
}

// tick is a mark on an axis; one without a label is a minor tick.
type tick struct {
	Value float64
	Label string
}

type axis struct {
	label  string
	lo, hi float64
	log    bool
	ticks  func(lo, hi float64) []tick
}

// pos maps v on the axis to pixels between a (at lo) and b (at hi).
func (ax axis) pos(v, a, b float64) float64 {
	lo, hi := ax.lo, ax.hi
	if ax.log {
		v, lo, hi = math.Log(v), math.Log(lo), math.Log(hi)
	}
	if hi == lo {
		return (a + b) / 2
	}
	return a + (v-lo)/(hi-lo)*(b-a)
}

// panel is one plot: its y axis and series, on the figure's x axis.
type panel struct {
	y      axis
	series []series
}

// scaled is the look drawn k times as large.
func (l look) scaled(k float64) look {
	l.width, l.radius = l.width*k, l.radius*k
	if l.dash != nil {
		d := make([]float64, len(l.dash))
		for i, v := range l.dash {
			d[i] = v * k
		}
		l.dash = d
	}
	return l
}

type legendEntry struct {
	text string
	look
}

// figure is a whole chart: a title, panels stacked on one x axis, and a
// legend in a column on the right, where it cannot hide a line.
type figure struct {
	title  string
	x      axis
	panels []panel
	legend []legendEntry
}

// sizes are the layout's lengths in pixels.
type sizes struct {
	title, label, tick, legend  float64 // font sizes
	margin, tickLen, gap, thumb float64 // gap: between panels; thumb: a legend entry's line sample
	k                           float64 // the scale of the series' lines and marks
}

// sizesFor a picture of W×H pixels: at the default 1000×700 and larger,
// 12 pt labels and 10 pt tick labels at 96 dpi, as large as the same
// text in a browser; a smaller picture scales them down, to a floor that
// stays legible.
func sizesFor(W, H float64) sizes {
	k := max(0.6, min(1, W/DefaultWidth, H/DefaultHeight))
	return sizes{title: 16 * k, label: 16 * k, tick: 13.3 * k, legend: 16 * k,
		margin: 8 * k, tickLen: 6 * k, gap: 18 * k, thumb: 40 * k, k: k}
}

// fitY sets a panel's y axis from zero to a little above its highest
// point or bar, so no mark touches the top.
func (p *panel) fitY() {
	top := 0.0
	for _, s := range p.series {
		for i, v := range s.pts {
			h := v.Y
			if i < len(s.bars) {
				h += s.bars[i].High
			}
			top = max(top, h)
		}
	}
	p.y.lo, p.y.hi = 0, max(top*1.08, 1e-3)
}

// legendRow is a legend row's height, in its font size.
const legendRow = 1.3

// layout places everything in a picture of w×h pixels. It measures text
// with face, the font both writers draw with.
func (f *figure) layout(w, h int, face *typeface) *scene {
	s := &scene{w: w, h: h}
	W, H := float64(w), float64(h)
	z := sizesFor(W, H)

	// The title's lines, then the panels, the first panel's data area a
	// half tick label below their top; the legend starts level with it.
	titleLines := strings.Split(f.title, "\n")
	top := z.margin + float64(len(titleLines))*z.title*1.2 + 6
	boxTop := func(panelTop float64) float64 { return panelTop + face.capHeight(z.tick)/2 + 2 }
	legendTop := boxTop(top)
	legendSize, column := f.legendFit(face, z, W, H, legendTop)
	plotLeft, plotRight := z.margin, W-column-z.margin
	f.drawTitle(s, face, z, titleLines, plotLeft, plotRight, W)

	left, right, xTicks, yTicks := f.dataSpan(face, z, plotLeft, plotRight)
	n := float64(len(f.panels))
	height := (H - z.margin - top - z.gap*(n-1)) / n
	below := z.tickLen + 3 + face.ascent(z.tick) + face.descent(z.tick) + 4 + face.ascent(z.label) + face.descent(z.label)
	for i, p := range f.panels {
		ptop := top + float64(i)*(height+z.gap)
		box := rect{left: left, right: right, top: boxTop(ptop), bottom: ptop + height - below}
		f.drawPanel(s, face, z, fmt.Sprintf("p%d", i), p, box, xTicks, yTicks[i], plotLeft)
	}
	f.drawLegend(s, face, z, pt{plotRight + z.margin, legendTop}, legendSize)
	return s
}

// legendFit is the legend's font size and the width of its column, in a
// picture W×H whose legend starts at legendTop.
func (f *figure) legendFit(face *typeface, z sizes, W, H, legendTop float64) (size, column float64) {
	size = z.legend
	if n := float64(len(f.legend)); n > 0 {
		// A long legend (a timeline per node) shrinks to fit the height.
		size = max(7, min(z.legend, (H-z.margin-legendTop)/n/legendRow))
	}
	if len(f.legend) == 0 {
		return size, 0
	}
	// A quarter wider than measured: an SVG renderer that ignores the
	// embedded font (librsvg) substitutes a wider one, and the legend
	// must still fit. It takes at most 40% of the width: beyond that its
	// text shrinks (long names in a comparison, a narrow picture).
	textW := 0.0
	for _, e := range f.legend {
		textW = max(textW, face.width(e.text, size))
	}
	column = (z.thumb+6+textW)*5/4 + 16
	if limit := 0.4 * W; column > limit && textW > 0 {
		shrunk := max(7, size*((limit-16)*4/5-z.thumb-6)/textW)
		textW *= shrunk / size
		size = shrunk
		column = (z.thumb+6+textW)*5/4 + 16
	}
	return size, column
}

// drawTitle draws the title, centred over the plots; a line too long for
// them gets the whole width W, and shrinks if even that is too narrow.
func (f *figure) drawTitle(s *scene, face *typeface, z sizes, lines []string, plotLeft, plotRight, W float64) {
	for i, line := range lines {
		size, centre := z.title, (plotLeft+plotRight)/2
		if tw := face.width(line, size); tw > plotRight-plotLeft {
			centre = W / 2
			size = max(7, min(size, size*(W-2*z.margin)/tw))
		}
		baseline := z.margin + float64(i)*z.title*1.2 + face.ascent(z.title)
		s.text("title", pt{centre, baseline}, line, size, anchorMiddle, false, black)
	}
}

// dataSpan is where every panel's data area starts and ends on x, and the
// ticks of the x axis and of each panel's y axis. Every panel's data area
// starts at one x, right of the widest y tick label of any of them, so
// the panels line up on the x axis.
func (f *figure) dataSpan(face *typeface, z sizes, plotLeft, plotRight float64) (left, right float64, xTicks []tick, yTicks [][]tick) {
	yTicks = make([][]tick, len(f.panels))
	widest := 0.0
	for i := range f.panels {
		yTicks[i] = f.panels[i].y.ticks(f.panels[i].y.lo, f.panels[i].y.hi)
		for _, t := range yTicks[i] {
			widest = max(widest, face.width(t.Label, z.tick))
		}
	}
	xTicks = f.x.ticks(f.x.lo, f.x.hi)
	left = plotLeft + face.ascent(z.label) + face.descent(z.label) + 6 + widest + 4 + z.tickLen
	right = plotRight - 4
	if n := len(xTicks); n > 0 {
		// Room for half the last label past the axis's end.
		last := xTicks[n-1]
		x := f.x.pos(last.Value, left, right)
		right -= max(0, x+face.width(last.Label, z.tick)/2-plotRight)
	}
	return left, right, xTicks, yTicks
}

// drawLegend draws the legend from at, a row per entry.
func (f *figure) drawLegend(s *scene, face *typeface, z sizes, at pt, size float64) {
	lx, ly := at.X, at.Y
	for _, e := range f.legend {
		e.look = e.look.scaled(z.k)
		mid := ly + size*legendRow/2
		s.stroke("legend", []pt{{lx, mid}, {lx + z.thumb, mid}}, e.width, e.color, e.dash)
		drawGlyph(s, "legend", e.look, pt{lx + z.thumb/2, mid})
		s.text("legend", pt{lx + z.thumb + 6, mid + face.capHeight(size)/2}, e.text, size, anchorStart, false, black)
		ly += size * legendRow
	}
}
