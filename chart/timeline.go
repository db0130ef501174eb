package chart

import (
	"errors"
	"fmt"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"ioswarm/result"
	"ioswarm/wire"
)

// tline is one phase iteration (or one node's part of it) over time.
type tline struct {
	legend string
	phase  string
	node   int // index of the node for dash patterns; 0 for the whole phase
	bw     plotter.XYs
	iops   plotter.XYs // random phases only
}

// timeline is what a timeline chart draws: each phase's series placed on
// one time axis, seconds from the job's first phase start.
type timeline struct {
	title  string
	lines  []tline
	random bool
	p99    []tline // random phases' p99 latency per second, in ms
}

// timelineOf turns a job's series into lines, per node when byNode.
func timelineOf(job *result.Job, byNode bool) (timeline, error) {
	t := timeline{}
	var origin int64
	for _, p := range job.Phases {
		if p.Series != nil && (origin == 0 || p.Series.StartNS < origin) {
			origin = p.Series.StartNS
		}
	}
	for _, p := range job.Phases {
		s := p.Series
		if s == nil {
			continue
		}
		name := p.Name
		if p.Iteration > 1 {
			name = fmt.Sprintf("%s #%d", p.Name, p.Iteration)
		}
		random := wire.Phase(p.Name).IsRandom()
		t.random = t.random || random
		add := func(legend string, node int, bytesIn, opsIn []int64) {
			l := tline{legend: legend, phase: p.Name, node: node}
			step := float64(s.StepNS) / 1e9
			for k := range bytesIn {
				// Each interval's figure is drawn at its middle.
				x := (float64(s.StartNS-origin)/1e9 + (float64(k)+0.5)*step)
				l.bw = append(l.bw, plotter.XY{X: x, Y: float64(bytesIn[k]) / step / 1e9})
				if random {
					l.iops = append(l.iops, plotter.XY{X: x, Y: float64(opsIn[k]) / step})
				}
			}
			t.lines = append(t.lines, l)
		}
		if ls := p.LatencySeries; ls != nil {
			l := tline{legend: name, phase: p.Name}
			for k, v := range ls.P99 {
				if v > 0 {
					x := float64(ls.StartNS-origin)/1e9 + (float64(k)+0.5)*float64(ls.StepNS)/1e9
					l.bw = append(l.bw, plotter.XY{X: x, Y: float64(v) / 1e6})
				}
			}
			if len(l.bw) > 0 {
				t.p99 = append(t.p99, l)
			}
		}
		if !byNode || len(s.ByHost) == 0 {
			add(name, 0, s.Bytes, s.Ops)
			continue
		}
		for n, h := range s.ByHost {
			add(name+" · "+h.Host, n, h.Bytes, h.Ops)
		}
	}
	if len(t.lines) == 0 {
		return t, errors.New("no phase with a time series to draw (result files from before ioswarm kept series have none)")
	}
	nodes := map[string]bool{}
	for _, h := range job.Hosts {
		nodes[h.Host] = true
	}
	on := fmt.Sprintf("%d nodes", len(nodes))
	if len(nodes) == 1 {
		on = "1 node"
	}
	t.title = fmt.Sprintf("ioswarm timeline: job %s\n%d threads on %s; each point: one interval's bytes (ops) / its length",
		job.JobID, job.Config.Threads, on)
	return t, nil
}

// WriteTimeline draws a job's phases over time as SVG and PNG for base
// (see Paths): GB/s against seconds, and IOPS for random phases.
func WriteTimeline(base string, job *result.Job, byNode bool, size Size) (svgPath, pngPath string, err error) {
	t, err := timelineOf(job, byNode)
	if err != nil {
		return "", "", err
	}
	return writeBoth(base, t.render, size)
}

func (t timeline) render(dc draw.Canvas) error {
	bw := timePanel("bandwidth, GB/s (10^9 B/s)")
	bw.Title.Text = t.title
	bw.Y.Tick.Marker = plot.TickerFunc(niceTicks(strconv.FormatFloat))
	var iops *plot.Plot
	if t.random {
		iops = timePanel("IOPS")
		iops.Y.Tick.Marker = plot.TickerFunc(niceTicks(func(v float64, _ byte, _, _ int) string { return countText(v) }))
	}
	legend := newLegend()
	for _, l := range t.lines {
		ln, err := plotter.NewLine(l.bw)
		if err != nil {
			return fmt.Errorf("%s: %w", l.legend, err)
		}
		ln.Color, ln.Width, ln.Dashes = phaseColor(l.phase), vg.Points(1.5), dashes(l.node)
		bw.Add(ln)
		legend.Add(l.legend, ln)
		if iops != nil && len(l.iops) > 0 {
			li, err := plotter.NewLine(l.iops)
			if err != nil {
				return fmt.Errorf("%s: %w", l.legend, err)
			}
			li.Color, li.Width, li.Dashes = ln.Color, ln.Width, ln.Dashes
			iops.Add(li)
		}
	}
	var lat *plot.Plot
	if len(t.p99) > 0 {
		lat = timePanel("p99 latency per second, ms")
		lat.Y.Tick.Marker = plot.TickerFunc(niceTicks(strconv.FormatFloat))
		for _, l := range t.p99 {
			// Points as well as lines: a phase of one second is one point.
			ln, sc, err := plotter.NewLinePoints(l.bw)
			if err != nil {
				return fmt.Errorf("%s p99: %w", l.legend, err)
			}
			ln.Color, ln.Width = phaseColor(l.phase), vg.Points(1.5)
			sc.Color, sc.Radius = ln.Color, vg.Points(2.5)
			lat.Add(ln, sc)
		}
	}
	for _, p := range []*plot.Plot{bw, iops, lat} {
		if p != nil {
			p.Y.Max = max(p.Y.Max*1.08, 1e-3)
			// Every panel on one time axis, from the first start.
			p.X.Min, p.X.Max = 0, bw.X.Max
		}
	}
	plots, side := split(dc, legend)
	rows := [][]*plot.Plot{{bw}}
	for _, p := range []*plot.Plot{iops, lat} {
		if p != nil {
			rows = append(rows, []*plot.Plot{p})
		}
	}
	tiles := draw.Tiles{Rows: len(rows), Cols: 1, PadY: vg.Points(14), PadTop: vg.Points(4), PadBottom: vg.Points(4)}
	cells := plot.Align(rows, tiles, plots)
	for i, r := range rows {
		r[0].Draw(cells[i][0])
	}
	legend.Draw(side)
	return nil
}

// timePanel is an empty plot with a linear time axis and y from zero.
func timePanel(yLabel string) *plot.Plot {
	p := plot.New()
	sans(p)
	p.X.Label.Text = "seconds from the first phase's start"
	p.Y.Label.Text = yLabel
	p.X.Tick.Marker = plot.TickerFunc(niceTicks(strconv.FormatFloat))
	p.Y.Min, p.Y.Max = 0, 0
	p.Add(gridLines())
	return p
}
