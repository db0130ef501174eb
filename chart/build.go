package chart

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"gonum.org/v1/plot/plotter"

	"ioswarm/study"
	"ioswarm/units"
)

// line is one phase of one study: a line in each panel it belongs to.
type line struct {
	legend string
	phase  string
	study  int // index of the study: picks dash pattern and marker
	bw     plotter.XYs
	iops   plotter.XYs // random phases only
}

// content is everything drawn, worked out before any drawing.
type content struct {
	title              string
	xLabel             string
	bwLabel, iopsLabel string
	lines              []line
	random             bool // a random phase ran: draw the IOPS panel
	minX, maxX         float64
}

// contentOf turns studies into lines and labels. Points of runs that
// ended early are left out: they are not measurements.
func contentOf(ss []*study.Sweep) (content, error) {
	if len(ss) == 0 {
		return content{}, errors.New("nothing to draw")
	}
	c := content{minX: -1}
	names := study.Names(ss...)
	for i, s := range ss {
		for _, phase := range s.Phases() {
			l := line{legend: phase, phase: phase, study: i}
			if len(ss) > 1 {
				l.legend = phase + " · " + names[i]
			}
			for _, f := range pointsOf(s, phase) {
				if f.Threads < 1 {
					return content{}, fmt.Errorf("%s: a point of %d threads cannot be drawn on a log axis", names[i], f.Threads)
				}
				x := float64(f.Threads)
				l.bw = append(l.bw, plotter.XY{X: x, Y: f.Bandwidth / 1e9})
				if study.IsRandom(phase) {
					l.iops = append(l.iops, plotter.XY{X: x, Y: f.IOPS})
				}
				c.widen(x)
			}
			if len(l.bw) > 0 {
				c.random = c.random || study.IsRandom(phase)
				c.lines = append(c.lines, l)
			}
		}
	}
	if len(c.lines) == 0 {
		return content{}, errors.New("no complete point to draw")
	}
	c.labels(ss, names)
	return c, nil
}

// pointsOf returns a study's complete figures for one phase, by threads.
func pointsOf(s *study.Sweep, phase string) []study.Figure {
	var out []study.Figure
	for _, f := range s.Figures() {
		if f.Phase == phase && f.Complete {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Threads < out[j].Threads })
	return out
}

func (c *content) widen(x float64) {
	if c.minX < 0 || x < c.minX {
		c.minX = x
	}
	c.maxX = max(c.maxX, x)
}

// labels puts the configuration into the title and axis labels: record
// sizes, the fixed size, hosts and filesystem type. When studies differ
// in those, the title gives each its own line and the axes stay generic.
func (c *content) labels(ss []*study.Sweep, names []string) {
	first := ss[0]
	same := true
	for _, s := range ss[1:] {
		same = same && s.Describe() == first.Describe()
	}
	c.xLabel = "threads (log2 scale)"
	c.bwLabel = "bandwidth, GB/s (10^9 B/s)"
	c.iopsLabel = "IOPS"
	if same {
		c.xLabel = fmt.Sprintf("threads (log2 scale) — %s, %s", first.SizeText(), hostsText(first))
		c.bwLabel = fmt.Sprintf("bandwidth, GB/s — %s records, %s", units.FormatSize(first.Setup.BlockSize), first.FSTypes())
		c.iopsLabel = fmt.Sprintf("IOPS — %s random ops, %s", units.FormatSize(first.Setup.RandBlockSize), first.FSTypes())
	}
	if len(ss) == 1 {
		c.title = "ioswarm scaling study: " + names[0] + "\n" + first.Describe()
		return
	}
	lines := []string{"ioswarm comparison: " + strings.Join(names, " vs ")}
	for i, s := range ss {
		lines = append(lines, names[i]+": "+s.Describe())
	}
	if same {
		lines = append(lines[:1], first.Describe())
	}
	c.title = strings.Join(lines, "\n")
}

func hostsText(s *study.Sweep) string {
	if s.Hosts() == 1 {
		return "1 host"
	}
	return fmt.Sprintf("%d hosts", s.Hosts())
}
