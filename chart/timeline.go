package chart

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"ioswarm/figures"
	"ioswarm/result"
	"ioswarm/wire"
)

// tline is one phase iteration (or one node's part of it) over time.
type tline struct {
	legend string
	phase  string
	node   int    // index of the node for its look; 0 for the whole phase
	host   string // the node's name in a by-node line
	bw     []xy
	iops   []xy // random phases only
}

// timeline is what a timeline chart draws: each phase's series placed on
// one time axis, seconds from the job's first phase start.
type timeline struct {
	title                      string
	byNode                     bool // a line per node: each node its own colour and mark
	xLabel, bwLabel, iopsLabel string
	lines                      []tline
	random                     bool
	p99                        []tline // random phases' p99 latency per second, in ms
	end                        float64 // seconds from the origin to the last phase's end
}

// timelineOf turns a job's series into lines, per node when byNode.
func timelineOf(job *result.Job, byNode bool) (timeline, error) {
	return timelineWith(job, byNode, Labels{})
}

// timelineWith turns a job's series into lines, per node when byNode,
// the phases and words of lb where it gives them.
func timelineWith(job *result.Job, byNode bool, lb Labels) (timeline, error) {
	t := timeline{byNode: byNode, xLabel: or(lb.XLabel, "seconds from the first phase's start"),
		bwLabel: or(lb.YLabel, "bandwidth, GB/s (10^9 B/s)"), iopsLabel: or(lb.IOPSLabel, "IOPS")}
	origin := seriesOrigin(job)
	for _, p := range job.Phases {
		if p.Series == nil || !lb.draws(p.Name) {
			continue
		}
		t.addPhase(p, origin)
	}
	if len(t.lines) == 0 && len(lb.Phases) > 0 {
		return t, fmt.Errorf("no phase of %s with a time series to draw", strings.Join(lb.Phases, ", "))
	}
	if len(t.lines) == 0 {
		return t, errors.New("no phase with a time series to draw (result files from before ioswarm kept series have none)")
	}
	t.title = timelineTitle(job, lb)
	return t, nil
}

// seriesOrigin is the earliest start of any phase's series: the time
// axis's zero.
func seriesOrigin(job *result.Job) int64 {
	var origin int64
	for _, p := range job.Phases {
		if p.Series != nil && (origin == 0 || p.Series.StartNS < origin) {
			origin = p.Series.StartNS
		}
	}
	return origin
}

// addPhase adds a phase's lines (one, or one per node), its p99 line
// when it has one, and stretches the timeline to its end.
func (t *timeline) addPhase(p result.Phase, origin int64) {
	s := p.Series
	name := p.Name
	if p.Iteration > 1 {
		name = fmt.Sprintf("%s #%d", p.Name, p.Iteration)
	}
	if p.WindowNS > 0 {
		t.end = max(t.end, float64(p.StartNS+p.WindowNS-origin)/1e9)
	}
	t.random = t.random || wire.Phase(p.Name).IsRandom()
	if l, ok := p99Line(p, name, origin); ok {
		t.p99 = append(t.p99, l)
	}
	if !t.byNode || len(s.ByHost) == 0 {
		t.lines = append(t.lines, rateLine(p, origin, tline{legend: name, phase: p.Name}, s.Bytes, s.Ops))
		return
	}
	for n, h := range s.ByHost {
		l := tline{legend: name + " · " + h.Host, phase: p.Name, node: n, host: h.Host}
		t.lines = append(t.lines, rateLine(p, origin, l, h.Bytes, h.Ops))
	}
}

// rateLine fills l with the phase's rates per span of its series, from
// the bytes and operations per interval given (the job's or one node's):
// GB/s, and IOPS for a random phase.
func rateLine(p result.Phase, origin int64, l tline, bytesIn, opsIn []int64) tline {
	s := p.Series
	random := wire.Phase(p.Name).IsRandom()
	for _, iv := range spans(s, p.WindowNS) {
		// Each span's figure is drawn at its middle.
		var b, o int64
		for k := iv.first; k <= iv.last; k++ {
			b, o = b+bytesIn[k], o+opsIn[k]
		}
		x, length := float64(s.StartNS-origin+(iv.from+iv.to)/2)/1e9, iv.to-iv.from
		l.bw = append(l.bw, xy{X: x, Y: figures.Rate(b, length) / 1e9})
		if random {
			l.iops = append(l.iops, xy{X: x, Y: figures.Rate(o, length)})
		}
	}
	return l
}

// p99Line is a random phase's p99 latency per second in ms, each at the
// middle of the part of its second the phase ran; false when it has none.
func p99Line(p result.Phase, name string, origin int64) (tline, bool) {
	ls := p.LatencySeries
	if ls == nil {
		return tline{}, false
	}
	l := tline{legend: name, phase: p.Name}
	for k, v := range ls.P99 {
		if v > 0 {
			from, to := cut(int64(k)*ls.StepNS, int64(k+1)*ls.StepNS, p.StartNS+p.WindowNS-ls.StartNS, p.WindowNS > 0)
			x := float64(ls.StartNS-origin+(from+to)/2) / 1e9
			l.bw = append(l.bw, xy{X: x, Y: float64(v) / 1e6})
		}
	}
	return l, len(l.bw) > 0
}

// timelineTitle names the job, its threads and its nodes, unless lb gives
// a title.
func timelineTitle(job *result.Job, lb Labels) string {
	nodes := map[string]bool{}
	for _, h := range job.Hosts {
		nodes[h.Host] = true
	}
	on := fmt.Sprintf("%d nodes", len(nodes))
	if len(nodes) == 1 {
		on = "1 node"
	}
	return lb.title("ioswarm timeline: job "+job.JobID,
		fmt.Sprintf("%d threads on %s; each point: one interval's bytes (ops) / its length", job.Config.Threads, on))
}

// span is what one point of a timeline line covers: intervals first to
// last of the series, from..to ns after its start.
type span struct {
	first, last int
	from, to    int64
}

// spans are the points of a series: an interval each, the last one cut at
// the window's end, since the phase did nothing after it (dividing its
// bytes by a whole step drew a phase of one interval as much as a step too
// slow). A cut interval shorter than half a step joins the one before it:
// operations are counted when they complete, so a sliver of a few ms that
// holds one 16 MiB completion would draw a spike of a rate nobody saw. A
// window of 0 (none recorded) leaves every interval whole.
func spans(s *result.Series, windowNS int64) []span {
	out := make([]span, 0, len(s.Bytes))
	for k := range s.Bytes {
		from, to := cut(int64(k)*s.StepNS, int64(k+1)*s.StepNS, windowNS, windowNS > 0)
		if n := len(out); n > 0 && to-from < s.StepNS/2 {
			out[n-1].last, out[n-1].to = k, to
			continue
		}
		out = append(out, span{first: k, last: k, from: from, to: to})
	}
	return out
}

// cut ends [from, to) at end when end falls inside it and known says
// the end is known.
func cut(from, to, end int64, known bool) (int64, int64) {
	if known && end > from && end < to {
		to = end
	}
	return from, to
}

// WriteTimeline draws a job's phases over time as SVG and PNG for base
// (see Paths): GB/s against seconds, and IOPS for random phases.
func WriteTimeline(base string, job *result.Job, byNode bool, size Size, lb Labels) (svgPath, pngPath string, err error) {
	t, err := timelineWith(job, byNode, lb)
	if err != nil {
		return "", "", err
	}
	return writeBoth(base, t.figure(), size)
}

// figure lays the timeline out: GB/s over seconds, IOPS below it for
// random phases and their p99 latency per second below that, all on one
// time axis from the first phase's start.
func (t timeline) figure() *figure {
	// The time axis runs to the last phase's end, and at least past every
	// point drawn.
	end := t.end
	for _, ls := range [][]tline{t.lines, t.p99} {
		for _, l := range ls {
			for _, v := range l.bw {
				end = max(end, v.X)
			}
		}
	}
	f := &figure{title: t.title, x: axis{label: t.xLabel, lo: 0, hi: end, ticks: niceTicks(strconv.FormatFloat)}}
	bw := panel{y: axis{label: t.bwLabel, ticks: niceTicks(strconv.FormatFloat)}}
	iops := panel{y: axis{label: t.iopsLabel, ticks: niceTicks(func(v float64, _ byte, _, _ int) string { return countText(v) })}}
	for _, l := range t.lines {
		lk := look{color: phaseColor(l.phase), width: 2}
		entry := legendEntry{text: l.legend, look: lk}
		if t.byNode {
			// A node's phases follow one another along the time axis:
			// its look, not the phase's, and one legend entry per node.
			lk = nodeLook(l.node)
			entry = legendEntry{text: l.host, look: lk}
		}
		bw.series = append(bw.series, series{look: lk, pts: l.bw})
		if !slices.ContainsFunc(f.legend, func(e legendEntry) bool { return e.text == entry.text }) {
			f.legend = append(f.legend, entry)
		}
		if len(l.iops) > 0 {
			iops.series = append(iops.series, series{look: lk, pts: l.iops})
		}
	}
	f.panels = append(f.panels, bw)
	if t.random {
		f.panels = append(f.panels, iops)
	}
	if len(t.p99) > 0 {
		lat := panel{y: axis{label: "p99 latency per second, ms", ticks: niceTicks(strconv.FormatFloat)}}
		for _, l := range t.p99 {
			// Points as well as lines: a phase of one second is one point.
			lat.series = append(lat.series, series{look: look{color: phaseColor(l.phase), width: 2, glyph: glyphCircle, radius: 3.3}, pts: l.bw})
		}
		f.panels = append(f.panels, lat)
	}
	for i := range f.panels {
		f.panels[i].fitY()
	}
	return f
}
