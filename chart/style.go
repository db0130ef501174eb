package chart

import (
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// phaseColor gives each phase the same colour in every chart, so two
// charts read alike; colours are distinguishable in grey print too.
func phaseColor(phase string) color.Color {
	switch phase {
	case "write":
		return color.RGBA{R: 0x1f, G: 0x5f, B: 0xbf, A: 0xff}
	case "read":
		return color.RGBA{R: 0xe0, G: 0x7b, B: 0x10, A: 0xff}
	case "randwrite":
		return color.RGBA{R: 0xb0, G: 0x20, B: 0x30, A: 0xff}
	case "randread":
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
	ln.Color, ln.Width, ln.Dashes = c, vg.Points(2), dashes(l.study)
	sc.Color, sc.Shape, sc.Radius = c, glyph(l.study), vg.Points(3.5)
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
