package sweep

import (
	"errors"
	"fmt"
	"time"

	"ioswarm/result"
	"ioswarm/units"
)

// ErrBudget is what a sweep stopped by its time budget returns
// (wrapped): it did not fail, it ran out of time, and continues with
// --resume in the next allocation.
var ErrBudget = errors.New("time budget")

// budgetMargin is what a point's estimate adds to the longest point so
// far: the next point moves the same aggregate, but a busy system may
// take longer.
const budgetMargin = 1.25

// estimate is how long the next point may take: the longest point so
// far (a fixed aggregate moves the same bytes at every point) with a
// margin; 0 when no point has run yet.
func estimate(points []*result.Job) time.Duration {
	var longest int64
	for _, j := range points {
		if j.Complete {
			longest = max(longest, j.ElapsedNS)
		}
	}
	return time.Duration(float64(longest) * budgetMargin)
}

// checkBudget refuses to start a point that its estimate says cannot
// end before the deadline.
func checkBudget(deadline, now time.Time, est time.Duration, point string) error {
	if deadline.IsZero() || est <= 0 {
		return nil
	}
	left := deadline.Sub(now)
	if est <= left {
		return nil
	}
	return fmt.Errorf("%w: the point of %s was not started: it needs about %s by the points so far and %s is left; "+
		"run the same command with --resume in the next allocation", ErrBudget, point,
		units.FormatDuration(int64(est)), units.FormatDuration(int64(max(left, 0))))
}
