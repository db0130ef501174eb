package chart

import (
	"image/color"
	"math"
	"math/bits"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"ioswarm/wire"
)

// phaseColor gives each phase the same colour in every chart, so two
// charts read alike; colours are distinguishable in grey print too.
func phaseColor(phase string) color.Color {
	switch wire.Phase(phase) {
	case wire.Write:
		return color.RGBA{R: 0x1f, G: 0x5f, B: 0xbf, A: 0xff}
	case wire.Read:
		return color.RGBA{R: 0xe0, G: 0x7b, B: 0x10, A: 0xff}
	case wire.RandWrite:
		return color.RGBA{R: 0xb0, G: 0x20, B: 0x30, A: 0xff}
	case wire.RandRead:
		return color.RGBA{R: 0x2a, G: 0x9d, B: 0x4a, A: 0xff}
	}
	return color.Gray{Y: 0x40}
}

// dashes tells studies apart: the first solid, the next dashed, dotted.
func dashes(study int) []vg.Length {
	switch study % 3 {
	case 1:
		return []vg.Length{vg.Points(7), vg.Points(4)}
	case 2:
		return []vg.Length{vg.Points(2), vg.Points(3)}
	}
	return nil
}

// glyph marks the measured points, a different shape per study.
func glyph(study int) draw.GlyphDrawer {
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}}
	return shapes[study%len(shapes)]
}

// styled returns the line and its point marks for one series.
func styled(xys plotter.XYs, l line) (*plotter.Line, *plotter.Scatter, error) {
	ln, sc, err := plotter.NewLinePoints(xys)
	if err != nil {
		return nil, nil, err
	}
	c := phaseColor(l.phase)
	// Studies differ in dashes and marks; so do the depths of one phase
	// in a sweep over threads and depths together.
	kind := l.study
	if l.depth > 0 {
		kind = bits.Len(uint(l.depth)) - 1
	}
	ln.Color, ln.Width, ln.Dashes = c, vg.Points(2), dashes(kind)
	sc.Color, sc.Shape, sc.Radius = c, glyph(kind), vg.Points(3.5)
	return ln, sc, nil
}

// gridLines are faint lines at the ticks, for reading values off.
func gridLines() *plotter.Grid {
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 0xdd}
	g.Horizontal.Color = color.Gray{Y: 0xdd}
	return g
}

// powersOfTwo marks every power of two in the axis range, labelled with
// the plain number, which is how thread counts are read.
func powersOfTwo(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log2(lo)); ; e++ {
		v := math.Exp2(e)
		if v > hi {
			break
		}
		if v >= lo {
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
		}
	}
	return ticks
}

// niceTicks labels a linear axis from zero at steps of 1, 2, 2.5 or 5
// times a power of ten, five to nine of them, so values can be read off;
// gonum's default labels only two or three. format prints a value.
func niceTicks(format func(float64, byte, int, int) string) func(lo, hi float64) []plot.Tick {
	return func(lo, hi float64) []plot.Tick {
		// A step of at least an eighth of the span and at most twice that:
		// five to nine labels.
		step := niceStep((hi - lo) / 8)
		if step <= 0 || math.IsInf(step, 0) || math.IsNaN(step) {
			return plot.DefaultTicks{}.Ticks(lo, hi)
		}
		var ticks []plot.Tick
		for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
			v := math.Round(v/step) * step // no 0.30000000000000004
			ticks = append(ticks, plot.Tick{Value: v, Label: format(v, 'f', decimals(step), 64)})
			minor := v + step/2
			if minor < hi {
				ticks = append(ticks, plot.Tick{Value: minor})
			}
		}
		return ticks
	}
}

// niceStep is the smallest of 1, 2, 2.5, 5 × 10^k at or above raw.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// decimals is how many decimals a multiple of step needs.
func decimals(step float64) int {
	for d := 0; d < 10; d++ {
		s := step * math.Pow(10, float64(d))
		if math.Abs(s-math.Round(s)) < 1e-9 {
			return d
		}
	}
	return 10
}

// counts labels an IOPS axis in thousands or millions ("250k", "1.5M"):
// the default labels print "250000.00", which nobody reads at a glance.
func counts(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = countText(ticks[i].Value)
		}
	}
	return ticks
}

func countText(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// sans switches every text of p to Liberation Sans: SVG viewers without
// the Liberation fonts substitute Arial or Helvetica, which have the same
// widths, so labels keep their places.
func sans(p *plot.Plot) {
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font} {
		f.Variant = "Sans"
	}
}
