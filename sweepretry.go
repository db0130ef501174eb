package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"ioswarm/coordinator"
	"ioswarm/internal/usage"
	"ioswarm/report"
	"ioswarm/sweep"
)

// retrying are the flags that say what a sweep does with a point that
// fails: run it again, then stop (the default) or record it and go on.
type retrying struct {
	Retries   int
	KeepGoing bool
}

func retryFlags(o *retrying) []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "retries", Value: sweep.DefaultRetries, Destination: &o.Retries, Category: catOutput,
			Usage: "a point that fails (a rank dies, a node stops answering) runs again this many times on freshly started ranks; 0: never"},
		&cli.BoolFlag{Name: "keep-going", Destination: &o.KeepGoing, Category: catOutput,
			Usage: "a point that failed every try is recorded as failed, with its error, and the sweep goes on (exit 1 at the end); without it the sweep stops there"},
	}
}

// apply sets the plan's retries: the launch to start ranks again with (a
// fresh launcher from the same flags, for the same nodes) and a line on
// stderr for every retry.
func (r retrying) apply(plan *sweep.Plan, lo *launchOptions, stderr io.Writer) error {
	if r.Retries < 0 {
		return usage.Errorf("--retries %d: must be 0 or more", r.Retries)
	}
	plan.Retries, plan.KeepGoing = r.Retries, r.KeepGoing
	plan.Relaunch = func(l coordinator.Launch) (coordinator.Launch, error) {
		fresh, _, err := launcherFrom(lo, l.Log)
		if err != nil {
			return l, err
		}
		l.Launcher = fresh
		return l, nil
	}
	plan.Retrying = func(o coordinator.Workload, attempt int, err error) {
		report.WriteWrapped(stderr, fmt.Sprintf("sweep: the point of %d threads failed (try %d of %d): %v; starting the ranks again to run it once more",
			o.Threads, attempt, r.Retries+1, err), "", "  ")
	}
	return nil
}
