package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"ioswarm/coordinator"
	"ioswarm/internal/usage"
	"ioswarm/study"
	"ioswarm/sweep"
	"ioswarm/units"
)

// durability are the flags that let a long sweep survive what ends it
// early: a saved study to continue, and a time budget it never overruns.
type durability struct {
	Resume       string
	ResumeAnyway bool
	TimeBudget   time.Duration
}

func durabilityFlags(o *durability) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "resume", Destination: &o.Resume, Category: catOutput, Usage: "continue the study saved in FILE (its --output): same plan, binary and nodes; its complete points are kept, the rest run (the output defaults to FILE)"},
		&cli.BoolFlag{Name: "resume-anyway", Destination: &o.ResumeAnyway, Category: catOutput, Usage: "with --resume: run on although the binary's version or the nodes differ from the saved study's"},
		&cli.DurationFlag{Name: "time-budget", Destination: &o.TimeBudget, Category: catOutput, Usage: "never start a point that would not end within this (default inside Slurm: the allocation's end less 2m); exit 4 to resume later"},
	}
}

// apply sets the plan's kept points, deadline and checkpoint: with an
// output file, the study is rewritten (atomically) after every point, so
// a killed coordinator loses at most the point in flight.
func (d durability) apply(ctx context.Context, plan *sweep.Plan, output *string, stderr io.Writer) error {
	if d.ResumeAnyway && d.Resume == "" {
		return usage.Errorf("--resume-anyway goes with --resume FILE")
	}
	if d.Resume != "" {
		saved, err := study.Load(d.Resume)
		if err != nil {
			return usage.Wrap(fmt.Errorf("--resume: %w", err))
		}
		kept, err := sweep.Resume(*plan, sweep.Resumed{Saved: saved, Version: plan.Base.Version,
			Hosts: launchHosts(plan.Launch), Anyway: d.ResumeAnyway})
		if err != nil {
			return err
		}
		plan.Kept = kept
		if *output == "" {
			*output = d.Resume
		}
		fmt.Fprintf(stderr, "resuming %s: %d point(s) kept, the rest run\n", d.Resume, len(kept))
	}
	deadline, from, err := sweepDeadline(ctx, d.TimeBudget, time.Now())
	if err != nil {
		return err
	}
	if !deadline.IsZero() {
		plan.Deadline = deadline
		fmt.Fprintf(stderr, "time budget: %s left (%s); a point that would not end by then is not started\n",
			units.FormatDuration(int64(time.Until(deadline))), from)
	}
	if out := *output; out != "" {
		plan.Checkpoint = func(sw *study.Sweep) error {
			return writeFileAtomic("output", out, func(w io.Writer) error { return study.WriteJSON(w, sw) })
		}
	}
	return nil
}

// launchHosts are the nodes a launch will use, by the names results
// give them: the targets, or this machine for local ranks.
func launchHosts(l coordinator.Launch) []string {
	if len(l.Targets) == 0 {
		h, err := os.Hostname()
		if err != nil {
			return nil
		}
		return []string{h}
	}
	out := make([]string, len(l.Targets))
	for i, t := range l.Targets {
		out[i] = t.Host
	}
	return out
}
