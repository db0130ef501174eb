package sweep

import (
	"context"
	"errors"
	"fmt"
	"time"

	"ioswarm/coordinator"
	"ioswarm/internal/usage"
	"ioswarm/result"
	"ioswarm/study"
)

// DefaultRetries is how many times a failed point runs again unless told
// otherwise: once. A point that failed from a passing cause (a node that
// rebooted, a link that flapped, a rank the OOM killer took while another
// job peaked) usually passes the second time; a node that is really gone
// fails again, and every further try costs a fresh launch plus the point's
// time up to its failure (at the seeds' sizes up to an hour), so more
// tries by default would mostly spend the allocation.
const DefaultRetries = 1

// ErrPointsFailed is what a sweep with KeepGoing returns (wrapped) when
// it ran every point but some failed every attempt.
var ErrPointsFailed = errors.New("sweep points failed")

// ranks holds the session the points run on. After a failed point the
// session is closed (its ranks stopped, the point's files removed) and
// the next attempt starts a fresh one: a rank that died, or lost its
// coordinator mid-phase, cannot be trusted with another point.
type ranks struct {
	plan       Plan
	launch     coordinator.Launch
	sess       *coordinator.Session // nil after a failure until the next attempt
	relaunchNS int64                // time spent starting ranks again
}

// session returns the running session, or starts ranks again.
func (r *ranks) session(ctx context.Context) (*coordinator.Session, error) {
	if r.sess != nil {
		return r.sess, nil
	}
	l := r.launch
	if r.plan.Relaunch != nil {
		var err error
		if l, err = r.plan.Relaunch(l); err != nil {
			return nil, fmt.Errorf("starting the ranks again: %w", err)
		}
	}
	begin := time.Now()
	sess, err := coordinator.Start(ctx, l)
	r.relaunchNS += int64(time.Since(begin))
	if err != nil {
		return nil, fmt.Errorf("starting the ranks again: %w", err)
	}
	r.sess = sess
	return sess, nil
}

// drop closes the session, if one runs, with the error that ends it.
func (r *ranks) drop(err error) {
	if r.sess != nil {
		r.sess.Close(err)
		r.sess = nil
	}
}

// runPoint runs one point, and after a failure runs it again on fresh
// ranks up to Retries times. Every failed attempt is recorded in sw. It
// returns the last attempt's result (nil when none got as far as one)
// and its error.
func runPoint(ctx context.Context, r *ranks, o coordinator.Workload, sw *study.Sweep) (*result.Job, error) {
	var last *result.Job
	for attempt := 1; ; attempt++ {
		sess, err := r.session(ctx)
		if err == nil {
			var job *result.Job
			if job, err = sess.Run(ctx, o); job != nil {
				last = job
			}
		}
		if err == nil {
			return last, nil
		}
		r.drop(err)
		retry := attempt <= r.plan.Retries && retriable(ctx, err)
		// A retry is a point like any other: it must fit the time left.
		var budgetErr error
		if retry {
			budgetErr = checkBudget(r.plan.Deadline, time.Now(), estimate(sw.Points), pointText(o, len(r.plan.Depths) > 1))
			retry = budgetErr == nil
		}
		sw.Failures = append(sw.Failures, study.PointFailure{Threads: o.Threads, IODepth: o.IODepth,
			Attempt: attempt, Error: err.Error(), Retried: retry})
		if budgetErr != nil {
			return last, budgetErr
		}
		if !retry {
			return last, err
		}
		if r.plan.Retrying != nil {
			r.plan.Retrying(o, attempt, err)
		}
	}
}

// retriable says whether a point's error may pass on another attempt: not
// a usage error (it would fail the same way), not the context's end (the
// user stopped the sweep), not the time budget.
func retriable(ctx context.Context, err error) bool {
	return ctx.Err() == nil && !usage.Is(err) && !errors.Is(err, ErrBudget)
}

// failedPoint is the record of a point none of whose attempts got as far
// as a result (the ranks could not be started again): its configuration
// and the error, no phase.
func failedPoint(o coordinator.Workload, err error) *result.Job {
	return &result.Job{Version: o.Version, CommandLine: o.CommandLine, Label: o.Label,
		StartedAt: time.Now().Format(time.RFC3339), Error: err.Error(),
		Config: result.Config{Threads: o.Threads, BlockSize: o.Block, RandBlockSize: o.RandBlock,
			FileSize: o.FileSize, Total: o.Total, Dir: o.Dir, Direct: o.Direct, OSync: o.OSync, ODSync: o.ODSync, Fsync: o.Fsync,
			Phases: o.Phases, DropCaches: o.DropCaches, Iterations: o.Iterations, Engine: o.Engine,
			IODepth: o.IODepth}}
}
