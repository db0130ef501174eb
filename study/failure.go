package study

import (
	"fmt"

	"ioswarm/report"
)

// PointFailure is one failed attempt at a point of a sweep: the point,
// which attempt it was (1 is the first run), the error, and whether the
// point ran again after it. A point whose last attempt failed is also
// among the sweep's points, incomplete, with that error.
type PointFailure struct {
	Threads int    `json:"threads"`
	IODepth int    `json:"iodepth,omitempty"`
	Attempt int    `json:"attempt"`
	Error   string `json:"error"`
	Retried bool   `json:"retried"`
}

// failures lists, under a sweep's rows, every failed attempt at a point:
// which try it was, whether the point ran again, and the error, each
// wrapped to 80 columns. A sweep without failures prints nothing here.
func (t *Table) failures(s *Sweep) {
	for _, f := range s.Failures {
		then := "not run again"
		if f.Retried {
			then = "run again"
		}
		point := fmt.Sprintf("%d threads", f.Threads)
		if t.depth {
			point += fmt.Sprintf(" at iodepth %d", max(f.IODepth, 1))
		}
		t.wrapped("", fmt.Sprintf("failed: %s, try %d (%s): %s", point, f.Attempt, then, report.Clean(f.Error)))
	}
}
