package chart

import (
	"fmt"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// panels builds the bandwidth plot, the IOPS plot (nil without random
// phases) and the legend shared by both.
func (c content) panels() (*plot.Plot, *plot.Plot, plot.Legend, error) {
	bw := c.panel(c.bwLabel)
	bw.Title.Text = c.title
	bw.Y.Tick.Marker = plot.TickerFunc(niceTicks(strconv.FormatFloat))
	var iops *plot.Plot
	if c.random {
		iops = c.panel(c.iopsLabel)
		iops.Y.Tick.Marker = plot.TickerFunc(niceTicks(func(v float64, _ byte, _, _ int) string { return countText(v) }))
	}
	legend := newLegend()
	for _, l := range c.lines {
		ln, sc, err := styled(l.bw, l)
		if err != nil {
			return nil, nil, legend, fmt.Errorf("%s: %w", l.legend, err)
		}
		bw.Add(ln, sc)
		legend.Add(l.legend, ln, sc)
		if err := addSpread(bw, l.bw, l.bwErr, l); err != nil {
			return nil, nil, legend, err
		}
		if iops != nil && len(l.iops) > 0 {
			ln, sc, err := styled(l.iops, l)
			if err != nil {
				return nil, nil, legend, fmt.Errorf("%s: %w", l.legend, err)
			}
			iops.Add(ln, sc)
			if err := addSpread(iops, l.iops, l.iopsErr, l); err != nil {
				return nil, nil, legend, err
			}
		}
	}
	for _, p := range []*plot.Plot{bw, iops} {
		if p != nil {
			p.Y.Max = max(p.Y.Max*1.08, 1e-3) // room above the highest point
		}
	}
	return bw, iops, legend, nil
}

// addSpread draws a line's iteration ranges as error bars in its colour.
func addSpread(p *plot.Plot, xys plotter.XYs, errs plotter.YErrors, l line) error {
	if !l.spread {
		return nil
	}
	bars, err := plotter.NewYErrorBars(struct {
		plotter.XYs
		plotter.YErrors
	}{xys, errs})
	if err != nil {
		return fmt.Errorf("%s: %w", l.legend, err)
	}
	bars.Color, bars.Width, bars.CapWidth = phaseColor(l.phase), vg.Points(1.2), vg.Points(6)
	p.Add(bars)
	return nil
}

// panel is an empty plot with a log2 thread axis and a y axis from zero.
func (c content) panel(yLabel string) *plot.Plot {
	p := plot.New()
	sans(p)
	p.X.Label.Text = c.xLabel
	p.Y.Label.Text = yLabel
	p.X.Scale = plot.LogScale{}
	// A margin of a third of a doubling on each side keeps the end
	// points off the frame; one point alone gets a doubling each way.
	lo, hi := c.minX/1.26, c.maxX*1.26
	if c.minX == c.maxX {
		lo, hi = c.minX/2, c.maxX*2
	}
	p.X.Min, p.X.Max = lo, hi
	p.X.Tick.Marker = plot.TickerFunc(powersOfTwo)
	p.Y.Min, p.Y.Max = 0, 0
	p.Add(gridLines())
	return p
}

// newLegend is the legend every chart uses, in the charts' font.
func newLegend() plot.Legend {
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.TextStyle.Font.Variant = "Sans"
	legend.ThumbnailWidth = vg.Points(30)
	return legend
}

// split gives the legend a column on the right, where it cannot hide a
// line, and returns the panels' part of dc and the legend's. The column
// is a quarter wider than the legend measures in the embedded font: an
// SVG renderer that ignores embedded fonts (librsvg) substitutes a wider
// one, and the legend must still fit.
func split(dc draw.Canvas, legend plot.Legend) (plots, side draw.Canvas) {
	r := legend.Rectangle(dc)
	legendWidth := (r.Max.X-r.Min.X)*5/4 + vg.Points(16)
	plots = draw.Crop(dc, 0, -legendWidth, 0, 0)
	side = draw.Crop(dc, dc.Max.X-dc.Min.X-legendWidth+vg.Points(8), -vg.Points(8), 0, -vg.Points(40))
	return plots, side
}

// render draws the panels and the legend onto dc: the legend in a column
// on the right, where it cannot hide a line, the panels aligned on their
// shared thread axis to its left.
func (c content) render(dc draw.Canvas) error {
	bw, iops, legend, err := c.panels()
	if err != nil {
		return err
	}
	plots, side := split(dc, legend)
	if iops == nil {
		bw.Draw(plots)
	} else {
		tiles := draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Points(14), PadTop: vg.Points(4), PadBottom: vg.Points(4)}
		cells := plot.Align([][]*plot.Plot{{bw}, {iops}}, tiles, plots)
		bw.Draw(cells[0][0])
		iops.Draw(cells[1][0])
	}
	legend.Draw(side)
	return nil
}
