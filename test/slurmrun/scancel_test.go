package slurmrun

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"ioswarm/test/harness"
)

// scancel of a batch job whose ranks run the sbcast copy leaves no copy
// on any node: the coordinator is killed with its job and cannot remove
// them, and the copies used to stay in every node's /tmp.
func TestScancelLeavesNoCopy(t *testing.T) {
	e := newEnv(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dir, data := sharedDir(t, e, "scancel-")
	j := e.submit(ctx, t, dir, endlessRunScript(dir, e.shared, data, 3, "48MiB"), "-N3", "-J", "ioswarm-scancel")
	ended := filepath.Join(dir, "run.rc")
	if !harness.Poll(2*time.Minute, 50*time.Millisecond, func() bool {
		return len(harness.DirEntries(t, data)) > 0 || fileExists(ended)
	}) || fileExists(ended) {
		t.Fatalf("no job directory in %s; stderr:\n%s", data, readFile(t, filepath.Join(dir, "run.err")))
	}
	if copies := e.copiesOnNodes(t, e.c.Nodes...); len(copies) != 3 {
		t.Fatalf("sbcast copies while the job runs: %q, want one per node", copies)
	}
	if err := e.c.Login(ctx, "scancel", j.id).Run(); err != nil {
		t.Fatalf("scancel %s: %v", j.id, err)
	}
	if state, err := e.c.WaitJob(ctx, j.id); err != nil {
		t.Fatalf("job %s after scancel: %s, %v", j.id, state, err)
	}
	var left []string
	if !harness.Poll(30*time.Second, 100*time.Millisecond, func() bool {
		left = e.copiesOnNodes(t, e.c.Nodes...)
		return len(left) == 0
	}) {
		t.Errorf("sbcast copies left after scancel: %q; stderr:\n%s", left, readFile(t, filepath.Join(dir, "run.err")))
	}
	e.waitNoLeftovers(t, 30*time.Second)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
