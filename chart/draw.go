package chart

import "strconv"

// figure lays a study chart out: the bandwidth panel, an IOPS panel below
// it when random phases ran, both on the log2 thread (or depth) axis,
// and the legend shared by both.
func (c content) figure() *figure {
	// A margin of a third of a doubling on each side keeps the end
	// points off the frame; one point alone gets a doubling each way.
	lo, hi := c.minX/1.26, c.maxX*1.26
	if c.minX == c.maxX {
		lo, hi = c.minX/2, c.maxX*2
	}
	f := &figure{title: c.title, x: axis{label: c.xLabel, lo: lo, hi: hi, log: true, ticks: powersOfTwo}}
	bw := panel{y: axis{label: c.bwLabel, ticks: niceTicks(strconv.FormatFloat)}}
	iops := panel{y: axis{label: c.iopsLabel, ticks: niceTicks(func(v float64, _ byte, _, _ int) string { return countText(v) })}}
	for _, l := range c.lines {
		lk := styled(l)
		bw.series = append(bw.series, series{look: lk, pts: l.bw, bars: spreadOf(l, l.bwErr)})
		f.legend = append(f.legend, legendEntry{text: l.legend, look: lk})
		if len(l.iops) > 0 {
			iops.series = append(iops.series, series{look: lk, pts: l.iops, bars: spreadOf(l, l.iopsErr)})
		}
	}
	f.panels = append(f.panels, bw)
	if c.random {
		f.panels = append(f.panels, iops)
	}
	for i := range f.panels {
		f.panels[i].fitY()
	}
	return f
}

// spreadOf is a line's iteration ranges, drawn as error bars in its
// colour, or none when every point ran once.
func spreadOf(l line, r []yRange) []yRange {
	if !l.spread {
		return nil
	}
	return r
}
