package main

import (
	"fmt"
	"strings"
	"time"

	"ioswarm/coordinator"
	"ioswarm/result"
	"ioswarm/sweep"
	"ioswarm/units"
	"ioswarm/wire"
)

// studyLeft is what is left of a study by its estimate.
type studyLeft struct {
	Points, Done int
	Known        time.Duration // the points, or parts of points, with an estimate
	// Unmeasured points still have a part no estimate covers: bytes to
	// move before any rate is measured, or metadata phases.
	Unmeasured int
	Bytes      int64 // what the unmeasured parts move
}

// estimateStudy estimates the study's missing points: a point of a
// section that has run one takes as long as that section's longest (the
// aggregate is fixed, so every point moves the same bytes); otherwise
// its random phases take their time bound, and the bytes it moves take
// them at the rate the study's sequential phases measured so far.
func estimateStudy(secs []sweep.Section, done [][]*result.Job) studyLeft {
	var left studyLeft
	rate := seqRate(done)
	for i, sec := range secs {
		all := pointsOf(sec.Plan)
		longest := longestPoint(done[i])
		for _, o := range all {
			left.Points++
			if ran(done[i], o) {
				left.Done++
				continue
			}
			if longest > 0 {
				left.Known += longest
				continue
			}
			known, bytes, open := pointEstimate(o, rate)
			left.Known += known
			if open {
				left.Unmeasured++
				left.Bytes += bytes
			}
		}
	}
	return left
}

// pointsOf are a section's points as the estimate needs them: threads,
// depth and the bytes each phase moves (validated elsewhere).
func pointsOf(p sweep.Plan) []coordinator.Workload {
	depths := p.Depths
	if len(depths) == 0 {
		depths = []int{p.Base.IODepth}
	}
	var out []coordinator.Workload
	for _, n := range p.Threads {
		for _, d := range depths {
			o := p.Base
			o.Threads, o.IODepth = n, d
			if o.FileSize > 0 && o.Total == 0 {
				o.Total = o.FileSize * int64(n)
			}
			out = append(out, o)
		}
	}
	return out
}

// pointEstimate is a point's duration from its sizes: its random phases'
// time bounds and its bytes at rate (0: not measured yet, then the bytes
// are returned and open is true), as are metadata phases (no estimate).
func pointEstimate(o coordinator.Workload, rate float64) (known time.Duration, bytes int64, open bool) {
	wrote := false
	for _, name := range o.Phases {
		ph := wire.Phase(name)
		var move int64
		switch {
		case ph.IsMeta():
			open = true
			continue
		case ph.IsRandom() && o.RandTime > 0:
			known += o.RandTime * time.Duration(max(o.Iterations, 1))
			if !wrote {
				move = o.Total // the files are prefilled untimed
			}
		default:
			move = o.Total * int64(max(o.Iterations, 1))
		}
		wrote = wrote || ph.IsWrite()
		if move <= 0 {
			continue
		}
		if rate > 0 {
			known += time.Duration(float64(move) / rate * float64(time.Second))
		} else {
			bytes, open = bytes+move, true
		}
	}
	return known, bytes, open
}

// seqRate is the rate the study's sequential phases delivered so far,
// bytes per second over their windows (0: none ran).
func seqRate(done [][]*result.Job) float64 {
	var bytes, window int64
	for _, jobs := range done {
		for _, j := range jobs {
			for _, p := range j.Phases {
				if ph := wire.Phase(p.Name); !ph.CountsOps() && p.WindowNS > 0 {
					bytes += p.Bytes
					window += p.WindowNS
				}
			}
		}
	}
	if window == 0 {
		return 0
	}
	return float64(bytes) / (float64(window) / 1e9)
}

func longestPoint(jobs []*result.Job) time.Duration {
	var longest int64
	for _, j := range jobs {
		if j.Complete {
			longest = max(longest, j.ElapsedNS)
		}
	}
	return time.Duration(longest)
}

// ran says whether a complete point of o's threads and depth is among jobs.
func ran(jobs []*result.Job, o coordinator.Workload) bool {
	for _, j := range jobs {
		if j.Complete && j.Config.Threads == o.Threads && max(j.Config.IODepth, 1) == max(o.IODepth, 1) {
			return true
		}
	}
	return false
}

// text is the estimate as a line: "about 1h2m left", and what it cannot
// yet say.
func (l studyLeft) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d points done", l.Done, l.Points)
	switch {
	case l.Points == l.Done:
		return b.String()
	case l.Unmeasured == 0:
		fmt.Fprintf(&b, "; about %s left", units.FormatDuration(int64(l.Known)))
	default:
		fmt.Fprintf(&b, "; at least %s left", units.FormatDuration(int64(l.Known)))
		if l.Bytes > 0 {
			fmt.Fprintf(&b, ", and %s to move in %d point(s) at a rate not measured yet", units.FormatBytes(l.Bytes), l.Unmeasured)
		} else {
			fmt.Fprintf(&b, ", and %d point(s) of metadata not measured yet", l.Unmeasured)
		}
	}
	return b.String()
}
