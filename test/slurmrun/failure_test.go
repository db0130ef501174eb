package slurmrun

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"ioswarm/test/harness"
)

// longScript runs a run that lasts until it is stopped, in the background
// of the batch script, and records its exit code when it ends.
const longScript = `%[2]s run --launcher srun --remote-bin %[2]s --threads 3 --dir %[3]s --total 48MiB --block 1MiB --iterations 1000 --drop-caches off 2>%[1]s/run.err &
wait $!
echo $? >%[1]s/run.rc
`

// startLong submits a three-node job running longScript and waits until
// the run's job directory exists: every rank has joined and set up.
func (e *env) startLong(ctx context.Context, t *testing.T, name string) (*job, string) {
	t.Helper()
	dir, data := sharedDir(t, e, name+"-")
	j := e.submit(ctx, t, dir, fmt.Sprintf(longScript, dir, e.shared, data), "-N3", "-J", "ioswarm-"+name)
	for len(harness.DirEntries(t, data)) == 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("no job directory in %s; stderr:\n%s", data, readFile(t, filepath.Join(dir, "run.err")))
		case <-time.After(50 * time.Millisecond):
		}
	}
	time.Sleep(300 * time.Millisecond) // into the phases
	return j, data
}

// coordinator is the PID of the `ioswarm run` the batch script started on
// node1.
func (e *env) coordinator(t *testing.T) int {
	t.Helper()
	found := e.procs(t, "node1", func(p proc) bool { return p.base == "ioswarm" && strings.Contains(p.cmdline, " run ") })
	if len(found) != 1 {
		t.Fatalf("coordinators on node1: %v, want one", found)
	}
	return found[0].pid
}

// waitEmpty waits for the run's files to be removed.
func waitEmpty(t *testing.T, data string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for len(harness.DirEntries(t, data)) != 0 {
		if time.Now().After(deadline) {
			t.Errorf("files left in %s after %v: %q", data, within, harness.DirEntries(t, data))
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A coordinator that dies without a word (SIGKILL) inside a job that goes
// on: each srun reads the end of its input and hands it to its rank, which
// stops and removes its files; nothing is left, though the allocation,
// which would otherwise end every step, still stands.
func TestRanksStopWhenCoordinatorDies(t *testing.T) {
	e := newEnv(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	j, data := e.startLong(ctx, t, "coordinator")
	coord := e.coordinator(t)
	if n := len(e.procs(t, "node2", func(p proc) bool { return p.base == "ioswarm" })); n != 1 {
		t.Fatalf("ranks on node2 before the kill: %d, want one", n)
	}
	if err := syscall.Kill(coord, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	e.waitFile(ctx, t, j, "done")
	e.waitNoLeftovers(t, 15*time.Second)
	waitEmpty(t, data, 5*time.Second)
	e.waitNoSteps(ctx, t, j.id, 30*time.Second)
	if state := e.release(ctx, t, j); state != "COMPLETED" {
		t.Errorf("job %s ended %s, want COMPLETED", j.id, state)
	}
}

// SIGKILL to the srun of node2's rank: slurmstepd ends the rank when srun's
// connection drops, and the coordinator aborts the job naming node2 and
// rank 1, stops the other ranks, has node2's files removed and exits 1.
func TestKilledSrunAbortsJob(t *testing.T) {
	e := newEnv(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	j, data := e.startLong(ctx, t, "srun")
	coord := e.coordinator(t)
	// srun forks a helper; the one ioswarm started is the coordinator's child.
	sruns := e.procs(t, "node1", func(p proc) bool {
		return p.base == "srun" && p.ppid == coord && strings.Contains(p.cmdline, "--nodelist=node2 ")
	})
	if len(sruns) != 1 {
		t.Fatalf("sruns for node2: %v, want one", sruns)
	}
	if err := syscall.Kill(sruns[0].pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	e.waitFile(ctx, t, j, "done")
	rc := strings.TrimSpace(readFile(t, filepath.Join(j.dir, "run.rc")))
	stderr := readFile(t, filepath.Join(j.dir, "run.err"))
	if rc != "1" || !strings.Contains(stderr, "host node2 rank 1") {
		t.Errorf("run exit %s, stderr:\n%s\nwant exit 1 and an error naming host node2 rank 1", rc, stderr)
	}
	t.Logf("run failed: %s", lastLine(stderr))
	e.waitNoLeftovers(t, 15*time.Second)
	waitEmpty(t, data, 5*time.Second)
	e.waitNoSteps(ctx, t, j.id, 30*time.Second)
	e.release(ctx, t, j)
}
