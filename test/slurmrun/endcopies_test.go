package slurmrun

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/test/harness"
)

// However a job ends, no node of its allocation keeps the sbcast copy:
// neither the nodes that run a rank nor those that run none, after
// scancel and after the job's time limit, both of which end the
// coordinator too. Slurm itself removes nothing here (no Epilog, no
// job_container/tmpfs, TMPDIR=/tmp, as Debian's defaults).
func TestJobEndLeavesNoCopyOnAnyNode(t *testing.T) {
	e := newEnv(t, 4)
	for _, end := range []struct {
		name  string
		args  []string
		state string
	}{
		{"scancel", nil, "CANCELLED"},
		{"time-limit", []string{"--time=1"}, "TIMEOUT"},
	} {
		t.Run(end.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			dir, data := sharedDir(t, e, end.name+"-")
			args := append([]string{"-N4", "-J", "ioswarm-" + end.name}, end.args...)
			j := e.submit(ctx, t, dir, endlessRunScript(dir, e.shared, data, 2, "32MiB"), args...)
			ended := filepath.Join(dir, "run.rc")
			if !harness.Poll(2*time.Minute, 50*time.Millisecond, func() bool {
				return len(harness.DirEntries(t, data)) > 0 || fileExists(ended)
			}) || fileExists(ended) {
				t.Fatalf("no job directory in %s; stderr:\n%s", data, readFile(t, filepath.Join(dir, "run.err")))
			}
			copies := e.copiesOnNodes(t, e.c.Nodes...)
			if n := countJobCopies(copies, j.id); n != 4 {
				t.Fatalf("sbcast copies while job %s runs: %q, want one of it on each of the 4 nodes", j.id, copies)
			}
			if end.name == "scancel" {
				if err := e.c.Login(ctx, "scancel", j.id).Run(); err != nil {
					t.Fatalf("scancel %s: %v", j.id, err)
				}
			}
			state, err := e.c.WaitJob(ctx, j.id)
			if err != nil || state != end.state {
				t.Fatalf("job %s ended %s (%v), want %s", j.id, state, err, end.state)
			}
			var left []string
			if !harness.Poll(30*time.Second, 100*time.Millisecond, func() bool {
				left = e.copiesOnNodes(t, e.c.Nodes...)
				return len(left) == 0
			}) {
				t.Errorf("sbcast copies left after the job ended %s: %q; stderr:\n%s", state, left, readFile(t, filepath.Join(dir, "run.err")))
			}
			e.waitNoLeftovers(t, 30*time.Second)
		})
	}
}

// countJobCopies counts the copies of job id among "node:path" entries.
func countJobCopies(copies []string, id string) int {
	n := 0
	for _, c := range copies {
		if strings.Contains(c, ":/tmp/ioswarm-"+id+"-") {
			n++
		}
	}
	return n
}
