package sweep

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"ioswarm/coordinator"
	"ioswarm/internal/usage"
	"ioswarm/result"
	"ioswarm/study"
)

// Plan is a sweep as the user asked for it.
type Plan struct {
	// Base is the parsed options of every point; Threads is set per
	// point. With Total set the aggregate stays fixed and is divided
	// among each point's threads; with FileSize each thread's file does.
	Base    coordinator.Workload
	Threads []int
	// Launch says where the ranks run; they start once, for the largest
	// point.
	Launch coordinator.Launch
	// Depths, when set, are the queue depths each thread count runs at
	// (--engine io_uring): the points are every thread count × every depth.
	Depths []int
	// Before, when set, is called as each point starts with its options.
	Before func(o coordinator.Workload)
	// After, when set, is called with each point's result as soon as it
	// is in, an incomplete one included; an error stops the sweep.
	After func(job *result.Job) error
	// Kept are the complete points of a saved study this sweep resumes
	// (see Resume): they are not run again.
	Kept []*result.Job
	// Deadline, when set, is when the sweep must be done (a batch
	// allocation's end): a point whose estimate would pass it is not
	// started, and the sweep ends with ErrBudget.
	Deadline time.Time
	// Checkpoint, when set, is called with the sweep after every point,
	// so the study on disk loses at most the point in flight; an error
	// stops the sweep.
	Checkpoint func(sw *study.Sweep) error
	// Retries is how many times a point that fails (a rank dies, a node
	// stops answering) runs again, on freshly started ranks, before it
	// counts as failed (see DefaultRetries). A usage error, the context's
	// end or the time budget is never retried.
	Retries int
	// KeepGoing records a point that failed every attempt (an incomplete
	// point with its error) and runs the next; the sweep then ends with
	// ErrPointsFailed. Without it a failed point stops the sweep.
	KeepGoing bool
	// Relaunch, when set, returns the launch for ranks started again
	// after a failed point: closing the failed ranks closed the launcher,
	// and an SSH or srun launcher is not used again. Nil starts the new
	// ranks with the same launcher (enough for local ranks).
	Relaunch func(l coordinator.Launch) (coordinator.Launch, error)
	// Retrying, when set, is told that a point failed and runs again.
	Retrying func(o coordinator.Workload, attempt int, err error)
	// NextEstimate, when set, estimates a point before any of this
	// sweep's own has run (a study's later section, from what earlier
	// sections measured), for the deadline.
	NextEstimate func(o coordinator.Workload) time.Duration
	// Section names the part of a study this sweep is ("" for none).
	Section string
}

// nextEstimate is how long point o may take: by this sweep's points so
// far, else by NextEstimate.
func (p Plan) nextEstimate(points []*result.Job, o coordinator.Workload) time.Duration {
	if est := estimate(points); est > 0 || p.NextEstimate == nil {
		return est
	}
	return p.NextEstimate(o)
}

// Points returns the validated options of every point, in order. Each is
// validated on its own copy of the base options before anything starts,
// so a point that cannot run (a total that does not divide among its
// threads) fails the sweep at once, naming the point.
func Points(base coordinator.Workload, on coordinator.Launch, threads, depths []int) ([]coordinator.Workload, error) {
	if len(threads) == 0 {
		return nil, usage.Errorf("--threads: no thread counts given")
	}
	if len(depths) == 0 {
		depths = []int{base.IODepth}
	}
	var out []coordinator.Workload
	for _, n := range threads {
		for _, d := range depths {
			o := base
			o.Threads, o.IODepth = n, d
			if err := o.Settle(on); err != nil {
				return nil, fmt.Errorf("sweep point of %s: %w", pointText(o, len(depths) > 1), err)
			}
			out = append(out, o)
		}
	}
	return out, nil
}

// pointText names a point: "4 threads", or "4 threads at iodepth 16"
// in a sweep over depths.
func pointText(o coordinator.Workload, depths bool) string {
	if !depths {
		return threadsText(o.Threads)
	}
	return fmt.Sprintf("%s at iodepth %d", threadsText(o.Threads), o.IODepth)
}

// NewSweep is the sweep the plan describes, before any point has run.
func (p Plan) NewSweep() *study.Sweep {
	b := p.Base
	setup := study.Setup{Phases: b.Phases, Sizing: study.SizingTotal, Total: b.Total, BlockSize: b.Block,
		RandBlockSize: b.RandBlock, Dir: b.Dir, Iterations: b.Iterations, Direct: b.Direct, Fsync: b.Fsync,
		Engine: b.Engine}
	if b.FileSize != 0 {
		setup.Sizing, setup.Total, setup.FileSize = study.SizingFileSize, 0, b.FileSize
	}
	sw := &study.Sweep{Version: b.Version, Kind: study.Kind, Label: b.Label, Section: p.Section,
		Threads: append([]int(nil), p.Threads...), Setup: setup}
	if len(p.Depths) > 1 {
		sw.IODepths = append([]int(nil), p.Depths...)
	}
	return sw
}

// Run validates every point, starts the ranks once for the largest point
// and runs the points in order on them. It returns the sweep also when a
// point fails or the context ends: the points measured so far, marked
// incomplete, so they can still be saved. It returns nil only when
// nothing ran.
func Run(ctx context.Context, p Plan) (*study.Sweep, error) {
	all, err := Points(p.Base, p.Launch, p.Threads, p.Depths)
	if err != nil {
		return nil, err
	}
	var points []coordinator.Workload
	for _, o := range all {
		if !done(p.Kept, o.Threads, o.IODepth, len(p.Depths) > 0) {
			points = append(points, o)
		}
	}
	sw := p.NewSweep()
	sw.Points = append(sw.Points, p.Kept...)
	if len(points) == 0 {
		// Every point is in the saved study: nothing to start.
		sw.Complete = true
		return sw, nil
	}
	if err := checkBudget(p.Deadline, time.Now(), p.nextEstimate(p.Kept, points[0]), pointText(points[0], len(p.Depths) > 1)); err != nil {
		sw.Error = err.Error()
		return sw, err
	}
	launch := p.Launch
	for _, o := range points {
		launch.Threads = max(launch.Threads, o.Threads)
	}
	begin := time.Now()
	sess, err := coordinator.Start(ctx, launch)
	if err != nil {
		return nil, err
	}
	// Every point's resource plan, the largest's among them, is checked
	// before the first point writes anything.
	if err := sess.CheckPlan(ctx, points, func(o coordinator.Workload) string { return "sweep point of " + pointText(o, len(p.Depths) > 1) }); err != nil {
		sess.Close(err)
		return nil, err
	}
	sw.LaunchNS = int64(time.Since(begin))
	r := &ranks{plan: p, launch: launch, sess: sess}
	runErr := runPoints(ctx, r, p, points, sw)
	r.drop(runErr)
	sw.LaunchNS += r.relaunchNS
	sw.Complete = runErr == nil
	if runErr != nil {
		sw.Error = runErr.Error()
	}
	return sw, runErr
}

// runPoints runs each point on the ranks and collects its result. A
// point that failed every attempt stops the sweep, or with KeepGoing is
// kept as failed while the next runs.
func runPoints(ctx context.Context, r *ranks, p Plan, points []coordinator.Workload, sw *study.Sweep) error {
	var failed []string
	for _, o := range points {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("sweep stopped before the point of %s: %w", pointText(o, len(p.Depths) > 1), err)
		}
		if err := checkBudget(p.Deadline, time.Now(), p.nextEstimate(sw.Points, o), pointText(o, len(p.Depths) > 1)); err != nil {
			return err
		}
		if p.Before != nil {
			p.Before(o)
		}
		job, err := runPoint(ctx, r, o, sw)
		pointFailed := err != nil && retriable(ctx, err)
		if job == nil && pointFailed {
			job = failedPoint(o, err)
		}
		if job != nil {
			sw.Points = append(sw.Points, job)
			// A run error says more than a failure to record it.
			if p.After != nil {
				if aerr := p.After(job); err == nil {
					err, pointFailed = aerr, false
				}
			}
		}
		// A point that failed every attempt is saved like a measured one
		// when the sweep goes on past it.
		keep := err != nil && pointFailed && p.KeepGoing
		if (err == nil || keep) && p.Checkpoint != nil {
			if cerr := p.Checkpoint(sw); cerr != nil {
				err, keep = errors.Join(err, cerr), false
			}
		}
		if keep {
			failed = append(failed, fmt.Sprintf("%s (%v)", pointText(o, len(p.Depths) > 1), err))
			continue
		}
		if err != nil {
			return fmt.Errorf("sweep point of %s: %w", pointText(o, len(p.Depths) > 1), err)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%w: %d of %d: %s", ErrPointsFailed, len(failed), len(points), strings.Join(failed, "; "))
	}
	return nil
}

// threadsText is "1 thread" or "N threads".
func threadsText(n int) string {
	if n == 1 {
		return "1 thread"
	}
	return fmt.Sprintf("%d threads", n)
}
