package slurm

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"
)

// pollEvery is how often WaitJob asks slurmctld. sbatch --wait is not used:
// it polls after 2 s, then 8 s, then 32 s, which makes short jobs slow.
const pollEvery = 200 * time.Millisecond

// IsFinal reports whether a job in state will never run again.
// COMPLETING, REQUEUED, SPECIAL_EXIT and the like are not final: the job
// either still has processes on its nodes or may start again.
func IsFinal(state string) bool {
	switch state {
	case "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
		"BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY", "REVOKED":
		return true
	}
	return false
}

func isJobID(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Sbatch submits script (the batch script's text, given to sbatch on its
// standard input) from the login node with --parsable and the extra sbatch
// args, and returns the job ID. A script without "#!" runs under /bin/sh.
// The job starts in Shared, so its default slurm-<id>.out lands there.
func (c *Cluster) Sbatch(ctx context.Context, script string, args ...string) (jobID string, err error) {
	if !strings.HasPrefix(script, "#!") {
		script = "#!/bin/sh\n" + script
	}
	cmd := c.Login(ctx, "sbatch", append([]string{"--parsable"}, args...)...)
	cmd.Dir = c.Shared
	cmd.Stdin = strings.NewReader(script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("sbatch %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	// --parsable prints "ID" or "ID;cluster".
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	if !isJobID(id) {
		return "", fmt.Errorf("sbatch %s printed %q, not a job ID", strings.Join(args, " "), out)
	}
	return id, nil
}

// WaitJob polls `scontrol show job -o ID` every 200 ms until the job reaches
// a final state (see IsFinal) and returns that state, whatever it is: the
// caller decides whether FAILED is an error. It fails when ctx ends first
// or scontrol no longer knows the job.
func (c *Cluster) WaitJob(ctx context.Context, id string) (state string, err error) {
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		state, err = c.jobState(ctx, id)
		if err != nil {
			return "", err
		}
		if IsFinal(state) {
			return state, nil
		}
		select {
		case <-ctx.Done():
			return state, fmt.Errorf("waiting for job %s (last state %s): %w", id, state, ctx.Err())
		case <-tick.C:
		}
	}
}

func (c *Cluster) jobState(ctx context.Context, id string) (string, error) {
	cmd := c.Login(ctx, "scontrol", "show", "job", "-o", id)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ctx.Err() != nil {
		return "", fmt.Errorf("waiting for job %s: %w", id, ctx.Err())
	}
	if err != nil {
		return "", fmt.Errorf("scontrol show job %s: %w: %s", id, err, bytes.TrimSpace(stderr.Bytes()))
	}
	return ParseJobState(string(out), id)
}

// ParseJobState finds job id's JobState in the output of
// `scontrol show job -o`, one job per line.
func ParseJobState(out, id string) (string, error) {
	for _, line := range strings.Split(out, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] != "JobId="+id {
			continue
		}
		for _, f := range fields[1:] {
			if state, ok := strings.CutPrefix(f, "JobState="); ok && state != "" {
				return state, nil
			}
		}
		return "", fmt.Errorf("scontrol shows job %s without a JobState: %q", id, line)
	}
	return "", fmt.Errorf("scontrol output has no job %s: %q", id, strings.TrimSpace(out))
}
