package slurmrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/study"
)

// A study that runs out of its allocation goes on in the next, as
// docs/slurm.md shows: the first job's time budget (given here as an
// argument, 1 ns: the first point runs, the second cannot fit) ends it
// with exit 4 and the study saved; a second job naming the same results
// (IOSWARM_OUT) resumes it, keeping the first point as it was.
func TestExampleBatchScriptResumesInTheNextJob(t *testing.T) {
	e := newEnv(t, 2)
	clone := exampleClone(t, e)
	out := filepath.Join(clone, "results")
	submit := func(args ...string) (string, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		cmd := e.c.Login(ctx, "sbatch", append([]string{"--parsable", "--nodes=2", "examples/slurm/ioswarm-study.sbatch"}, args...)...)
		cmd.Dir = clone
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "IOSWARM") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, "IOSWARM_OUT="+out)
		raw, err := cmd.Output()
		if err != nil {
			t.Fatalf("sbatch: %v", err)
		}
		id, _, _ := strings.Cut(strings.TrimSpace(string(raw)), ";")
		state, err := e.c.WaitJob(ctx, id)
		if err != nil {
			t.Fatalf("job %s: %v", id, err)
		}
		return state, readFile(t, filepath.Join(clone, "ioswarm-study-"+id+".err"))
	}

	state, stderr := submit("--time-budget", "1ns")
	if state != "FAILED" || !strings.Contains(stderr, "out of time") {
		t.Fatalf("first job: %s, want FAILED (exit 4) and the out-of-time line\n%s", state, stderr)
	}
	first, err := study.Load(filepath.Join(out, "study.json"))
	if err != nil {
		t.Fatal(err)
	}
	if first.Complete || len(first.Points) != 1 || !first.Points[0].Complete {
		t.Fatalf("after the first job: complete %v, %d points; want one finished point of an unfinished study", first.Complete, len(first.Points))
	}

	state, stderr = submit()
	if state != "COMPLETED" || !strings.Contains(stderr, "resuming") {
		t.Fatalf("second job: %s\n%s", state, stderr)
	}
	second, err := study.Load(filepath.Join(out, "study.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !second.Complete || len(second.Points) != 4 || second.Points[0].JobID != first.Points[0].JobID {
		t.Errorf("after the second job: complete %v, %d points, first point %s (was %s); want 4 points, the first kept",
			second.Complete, len(second.Points), second.Points[0].JobID, first.Points[0].JobID)
	}
	e.waitNoLeftovers(t, 5*time.Second)
}
