package chart

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"ioswarm/study"
	"ioswarm/wire"
)

// line is one phase of one study: a line in each panel it belongs to.
type line struct {
	legend string
	phase  string
	study  int // index of the study: picks dash pattern and marker
	depth  int // the queue depth of a per-depth line; 0 otherwise
	// kind picks dashes and marks: the study's index, or for a per-depth
	// line the depth's place among the study's depths, so that
	// neighbouring depths never share a pattern.
	kind int
	bw   []xy
	iops []xy // random phases only
	// The iterations' range around each point (min below, max above),
	// when a point ran more than one iteration; drawn as error bars.
	bwErr, iopsErr []yRange
	spread         bool
}

// content is everything drawn, worked out before any drawing.
type content struct {
	title              string
	head, sub          string // ioswarm's two title lines, before any Labels
	barsNote           string // what the error bars span, after the x label
	xLabel             string
	bwLabel, iopsLabel string
	lines              []line
	random             bool // a random phase ran: draw the IOPS panel
	minX, maxX         float64
	iterations         int  // the most iterations of any point: > 1 draws the range
	byDepth            bool // the x axis is the queue depth (a sweep over depth alone)
}

// contentOf turns studies into lines and ioswarm's own labels.
func contentOf(ss []*study.Sweep) (content, error) { return contentWith(ss, Labels{}) }

// contentWith turns studies into lines and labels, the phases and words
// of lb where it gives them. Points of runs that ended early are left
// out: they are not measurements.
func contentWith(ss []*study.Sweep, lb Labels) (content, error) {
	if len(ss) == 0 {
		return content{}, errors.New("nothing to draw")
	}
	c := content{minX: -1, byDepth: true}
	names := study.Names(ss...)
	for _, s := range ss {
		// Depth is the x axis only when every study swept depth alone.
		c.byDepth = c.byDepth && s.DepthSwept() && len(threadCounts(s)) == 1
	}
	for i, s := range ss {
		for _, g := range groupsOf(s, c.byDepth) {
			phase := g.phase
			if !lb.draws(phase) {
				continue
			}
			l := line{legend: g.legend, phase: phase, study: i, depth: g.depth, kind: i}
			if g.depth > 0 {
				l.kind = depthPlace(s, g.depth)
			}
			if len(ss) > 1 {
				l.legend = g.legend + " · " + names[i]
			}
			if err := c.plot(&l, g.points, names[i]); err != nil {
				return content{}, err
			}
			if len(l.bw) > 0 {
				c.random = c.random || wire.Phase(phase).CountsOps()
				c.lines = append(c.lines, l)
			}
		}
	}
	if len(c.lines) == 0 {
		if len(lb.Phases) > 0 {
			return content{}, fmt.Errorf("no complete point of %s to draw", strings.Join(lb.Phases, ", "))
		}
		return content{}, errors.New("no complete point to draw")
	}
	c.labels(ss, names)
	c.title = lb.title(c.head, c.sub)
	// The bars' statistic stays on the axis whatever its label: a reader
	// must know what the bars span.
	c.xLabel = or(lb.XLabel, c.xLabel) + c.barsNote
	c.bwLabel = or(lb.YLabel, c.bwLabel)
	c.iopsLabel = or(lb.IOPSLabel, c.iopsLabel)
	return c, nil
}

// plot puts a group's points on line l: its x (threads, or depth when
// every study swept depth alone), its bandwidth and IOPS with their
// spread, and widens the axes to them. name is the group's study.
func (c *content) plot(l *line, points []study.Figure, name string) error {
	for _, f := range points {
		if f.Threads < 1 {
			return fmt.Errorf("%s: a point of %d threads cannot be drawn on a log axis", name, f.Threads)
		}
		x := float64(f.Threads)
		if c.byDepth {
			x = float64(f.IODepth)
		}
		bs := f.BandwidthStat
		l.bw = append(l.bw, xy{X: x, Y: f.Bandwidth / 1e9})
		l.bwErr = append(l.bwErr, errorOf(f.Bandwidth/1e9, bs.Stddev/1e9, f.Iterations))
		if wire.Phase(l.phase).CountsOps() {
			is := f.IOPSStat
			l.iops = append(l.iops, xy{X: x, Y: f.IOPS})
			l.iopsErr = append(l.iopsErr, errorOf(f.IOPS, is.Stddev, f.Iterations))
		}
		l.spread = l.spread || f.Iterations > 1
		c.iterations = max(c.iterations, f.Iterations)
		c.widen(x)
	}
	return nil
}

// errorOf is a point's spread over its iterations, the sample standard
// deviation the tables print beside the mean (mean ± stddev), as
// distances below and above the mean it is drawn at, the lower one cut
// at zero; nothing for a single iteration.
func errorOf(mean, stddev float64, iterations int) yRange {
	if iterations < 2 {
		return yRange{}
	}
	return yRange{Low: min(stddev, mean), High: stddev}
}

// group is one line's points: a phase, and in a sweep over threads and
// depths together one depth of it.
type group struct {
	phase, legend string
	depth         int // 0 when the line is not one depth's
	points        []study.Figure
}

// groupsOf splits a study's complete figures into lines, each sorted
// along the x axis: by depth when byDepth, else by threads, a line per
// phase and depth when the study swept depths at several thread counts.
func groupsOf(s *study.Sweep, byDepth bool) []group {
	perDepth := s.DepthSwept() && !byDepth
	var out []group
	at := map[[2]any]int{}
	for _, phase := range s.Phases() {
		for _, f := range s.Figures() {
			if f.Phase != phase || !f.Complete {
				continue
			}
			k := [2]any{phase, 0}
			if perDepth {
				k[1] = f.IODepth
			}
			i, ok := at[k]
			if !ok {
				i = len(out)
				at[k] = i
				g := group{phase: phase, legend: phase}
				if perDepth {
					g.depth, g.legend = f.IODepth, fmt.Sprintf("%s qd%d", phase, f.IODepth)
				}
				out = append(out, g)
			}
			out[i].points = append(out[i].points, f)
		}
	}
	for i := range out {
		sort.Slice(out[i].points, func(a, b int) bool {
			if byDepth {
				return out[i].points[a].IODepth < out[i].points[b].IODepth
			}
			return out[i].points[a].Threads < out[i].points[b].Threads
		})
	}
	return out
}

// depthPlace is where depth d falls among the study's depths, smallest 0.
func depthPlace(s *study.Sweep, d int) int {
	n := 0
	seen := map[int]bool{}
	for _, p := range s.Points {
		if e := p.Config.IODepth; e < d && !seen[e] {
			seen[e] = true
			n++
		}
	}
	return n
}

// threadCounts lists the distinct thread counts of a study's points.
func threadCounts(s *study.Sweep) []int {
	var out []int
	for _, p := range s.Points {
		if !slices.Contains(out, p.Config.Threads) {
			out = append(out, p.Config.Threads)
		}
	}
	return out
}

func (c *content) widen(x float64) {
	if c.minX < 0 || x < c.minX {
		c.minX = x
	}
	c.maxX = max(c.maxX, x)
}
