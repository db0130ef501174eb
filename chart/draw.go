package chart

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// panels builds the bandwidth plot, the IOPS plot (nil without random
// phases) and the legend shared by both.
func (c content) panels() (*plot.Plot, *plot.Plot, plot.Legend, error) {
	bw := c.panel(c.bwLabel)
	bw.Title.Text = c.title
	var iops *plot.Plot
	if c.random {
		iops = c.panel(c.iopsLabel)
		iops.Y.Tick.Marker = plot.TickerFunc(counts)
	}
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.TextStyle.Font.Variant = "Sans"
	legend.ThumbnailWidth = vg.Points(30)
	for _, l := range c.lines {
		ln, sc, err := styled(l.bw, l)
		if err != nil {
			return nil, nil, legend, fmt.Errorf("%s: %w", l.legend, err)
		}
		bw.Add(ln, sc)
		legend.Add(l.legend, ln, sc)
		if iops != nil && len(l.iops) > 0 {
			ln, sc, err := styled(l.iops, l)
			if err != nil {
				return nil, nil, legend, fmt.Errorf("%s: %w", l.legend, err)
			}
			iops.Add(ln, sc)
		}
	}
	for _, p := range []*plot.Plot{bw, iops} {
		if p != nil {
			p.Y.Max = max(p.Y.Max*1.08, 1e-3) // room above the highest point
		}
	}
	return bw, iops, legend, nil
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

// render draws the panels and the legend onto dc: the legend in a column
// on the right, where it cannot hide a line, the panels aligned on their
// shared thread axis to its left.
func (c content) render(dc draw.Canvas) error {
	bw, iops, legend, err := c.panels()
	if err != nil {
		return err
	}
	r := legend.Rectangle(dc)
	legendWidth := r.Max.X - r.Min.X + vg.Points(16)
	plots := draw.Crop(dc, 0, -legendWidth, 0, 0)
	side := draw.Crop(dc, dc.Max.X-dc.Min.X-legendWidth+vg.Points(8), -vg.Points(8), 0, -vg.Points(40))
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
