package slurmrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/test/harness"
	"ioswarm/test/slurm"
)

// job is a batch job whose script ends by touching Dir/done and then
// waits (at most two minutes) for Dir/release, so that the test can look
// at the nodes while the allocation still holds them.
type job struct {
	id, dir string
}

const holdTail = `
touch %[1]s/done
i=0
while [ ! -e %[1]s/release ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done
`

func (e *env) submit(ctx context.Context, t *testing.T, dir, body string, args ...string) *job {
	t.Helper()
	script := "#!/bin/sh\n" + body + fmt.Sprintf(holdTail, dir)
	args = append([]string{"-o", filepath.Join(dir, "job.out")}, args...)
	id, err := e.c.Sbatch(ctx, script, args...)
	if err != nil {
		t.Fatal(err)
	}
	return &job{id: id, dir: dir}
}

// waitFile waits for the job to create name in its directory, failing the
// test with the job's output if the job ends first or ctx runs out.
func (e *env) waitFile(ctx context.Context, t *testing.T, j *job, name string) {
	t.Helper()
	for {
		if _, err := os.Stat(filepath.Join(j.dir, name)); err == nil {
			return
		}
		out, err := e.c.Login(ctx, "scontrol", "show", "job", "-o", j.id).Output()
		if err == nil {
			if state, err := slurm.ParseJobState(string(out), j.id); err == nil && slurm.IsFinal(state) {
				t.Fatalf("job %s ended %s before making %s; its output:\n%s", j.id, state, name, readFile(t, filepath.Join(j.dir, "job.out")))
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("job %s made no %s: %v; its output:\n%s", j.id, name, ctx.Err(), readFile(t, filepath.Join(j.dir, "job.out")))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// release lets the job end and returns its final state.
func (e *env) release(ctx context.Context, t *testing.T, j *job) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(j.dir, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	state, err := e.c.WaitJob(ctx, j.id)
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// liveSteps lists the job's steps other than its batch script's own.
func (e *env) liveSteps(ctx context.Context, t *testing.T, id string) []string {
	t.Helper()
	var steps []string
	for _, s := range strings.Fields(e.output(t, e.c.Login(ctx, "squeue", "-h", "-s", "-j", id, "-o", "%i"))) {
		if s != id+".batch" && s != id+".extern" {
			steps = append(steps, s)
		}
	}
	return steps
}

// waitNoSteps waits for the job's steps, other than the batch script's
// own, to be gone from the queue.
func (e *env) waitNoSteps(ctx context.Context, t *testing.T, id string, within time.Duration) {
	t.Helper()
	within = harness.LeftoverWait(within) // load must not pass for a leftover
	begin := time.Now()
	for {
		steps := e.liveSteps(ctx, t, id)
		if len(steps) == 0 {
			t.Logf("steps gone after %v", time.Since(begin).Round(time.Millisecond))
			return
		}
		if time.Since(begin) > within {
			t.Errorf("job steps still running after %v: %q", within, steps)
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}
