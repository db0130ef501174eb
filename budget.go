package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// slurmMargin is what a sweep keeps free at the end of a Slurm
// allocation: time to stop the ranks, remove the files and save.
const slurmMargin = 2 * time.Minute

// sweepDeadline is when a sweep must be done: now + --time-budget when
// given, else inside a Slurm allocation its end less a margin, else none
// (zero). The words say where it came from, for the message.
func sweepDeadline(ctx context.Context, budget time.Duration, now time.Time) (time.Time, string, error) {
	if budget < 0 {
		return time.Time{}, "", flagError("time-budget", budget.String(), fmt.Errorf("must not be negative"))
	}
	if budget > 0 {
		return now.Add(budget), "--time-budget", nil
	}
	job := os.Getenv("SLURM_JOB_ID")
	if job == "" {
		return time.Time{}, "", nil
	}
	end, err := slurmEnd(ctx, job)
	if err != nil || end.IsZero() {
		// No known end (an allocation without a limit, or squeue not
		// answering): no budget, as without Slurm.
		return time.Time{}, "", nil
	}
	return end.Add(-slurmMargin), "the Slurm allocation's end", nil
}

// slurmEnd is the allocation's end time: SLURM_JOB_END_TIME (seconds
// since the epoch) where Slurm sets it, else squeue's end time of the
// job; zero when it has none.
func slurmEnd(ctx context.Context, job string) (time.Time, error) {
	if v := os.Getenv("SLURM_JOB_END_TIME"); v != "" {
		sec, err := strconv.ParseInt(v, 10, 64)
		if err == nil && sec > 0 {
			return time.Unix(sec, 0), nil
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "squeue", "-h", "-j", job, "-o", "%e").Output()
	if err != nil {
		return time.Time{}, err
	}
	return parseSqueueTime(strings.TrimSpace(string(out)))
}

// parseSqueueTime reads squeue's %e: local time as 2006-01-02T15:04:05,
// or N/A, Unknown or NONE for a job without an end.
func parseSqueueTime(s string) (time.Time, error) {
	switch s {
	case "", "N/A", "Unknown", "NONE", "UNLIMITED":
		return time.Time{}, nil
	}
	return time.ParseInLocation("2006-01-02T15:04:05", s, time.Local)
}
