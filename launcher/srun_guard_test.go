package launcher

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"ioswarm/internal/testio"
	"ioswarm/mounts"
)

// preparedCopy prepares l, whose binary must be copied, and returns the
// copy's path.
func preparedCopy(t *testing.T, f *fakeSlurm, l *Srun) string {
	t.Helper()
	if fs := mounts.FSType(f.dir); sharedFS(fs) {
		t.Skipf("the temporary directory is on %s, which counts as shared: no copy would be made", fs)
	}
	l.Advertise = "127.0.0.1"
	if _, err := l.Prepare(context.Background(), l.Alloc.Targets()[:1]); err != nil {
		t.Fatal(err)
	}
	copies, _ := filepath.Glob(filepath.Join(l.BcastDir, "ioswarm-42-*"))
	if len(copies) != 1 {
		t.Fatalf("copies after Prepare = %q, want one", copies)
	}
	return copies[0]
}

// scancel and a time limit send SIGTERM to every step before anything
// else; the guard's shells then remove the copy, on nodes with a rank and
// without one alike, though the coordinator is never heard from again.
func TestSrunGuardRemovesTheCopyOnSIGTERM(t *testing.T) {
	f := newFakeSlurm(t, "")
	var log testio.LockedBuffer
	l := sbcastSrun(t, f, &log, "n1", "n2", "n3")
	copyPath := preparedCopy(t, f, l)
	l.mu.Lock()
	guard := l.guardProc
	l.mu.Unlock()
	if guard == nil {
		t.Fatalf("no guard runs after Prepare; log:\n%s", log.String())
	}
	// The fake srun and its three shells are one process group, as the
	// tasks of a step are what scancel signals.
	if err := syscall.Kill(-guard.cmd.Process.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the guard to end", func() bool { return guard.Wait(0) })
	if _, err := os.Stat(copyPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the copy survives SIGTERM to its guard (stat: %v)", err)
	}
}

// A guard that cannot start does not stop the run: it is said, and Close
// still removes the copy with a step of its own.
func TestSrunWithoutAGuardCloseStillRemovesTheCopy(t *testing.T) {
	f := newFakeSlurm(t, "")
	var log testio.LockedBuffer
	l := sbcastSrun(t, f, &log, "n1", "n2")
	f.fail(t, f.tools.Srun, "srun: error: Unable to create step for job 42: Job/step already completing or completed\n")
	copyPath := preparedCopy(t, f, l)
	if !strings.Contains(log.String(), "warning: srun: no step guards the copy") ||
		!strings.Contains(log.String(), "already completing") {
		t.Errorf("the missing guard is not explained:\n%s", log.String())
	}
	if err := os.Remove(f.tools.Srun + ".fail"); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(copyPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the copy survives Close (stat: %v)", err)
	}
	calls := f.calls(t, f.tools.Srun)
	if want := strings.Join(removeArgs([]string{"n1", "n2"}, copyPath), " "); calls[len(calls)-1] != want {
		t.Errorf("last srun call = %q, want the removal %q", calls[len(calls)-1], want)
	}
}

// A node the guard cannot start on fails the placement at once, naming the
// node, without waiting for sbcast to fail there too.
func TestSrunGuardFailureOnANodeFailsThePlacement(t *testing.T) {
	f := newFakeSlurm(t, "")
	var log testio.LockedBuffer
	l := sbcastSrun(t, f, &log, "n1", "n2", "n3")
	if fs := mounts.FSType(f.dir); sharedFS(fs) {
		t.Skipf("the temporary directory is on %s, which counts as shared", fs)
	}
	l.Advertise = "127.0.0.1"
	// As a real srun does, the other nodes' lines follow the one that
	// names the node, more of them than an error quotes.
	f.fail(t, f.tools.Srun, "srun: error: Task launch for StepId=42.0 failed on node n2: Communication connection failure\n"+
		"srun: error: Application launch failed: Communication connection failure\n"+
		"srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"+
		"slurmstepd-n1: error: *** STEP 42.0 ON n1 CANCELLED AT 2026-12-03T19:29:30 ***\n"+
		"srun: error: n1: task 0: Killed\n"+
		"srun: error: n3: task 2: Killed\n")
	_, err := l.Prepare(context.Background(), l.Alloc.Targets())
	var herrs HostErrors
	if !errors.As(err, &herrs) || len(herrs) != 1 || herrs[0].Host != "n2" || herrs[0].Rank != 1 {
		t.Fatalf("Prepare = %v, want one HostError for n2 rank 1", err)
	}
	if !strings.Contains(err.Error(), "guard step") || !strings.Contains(err.Error(), "failed on node n2: Communication connection failure") {
		t.Errorf("error %q does not quote the guard's srun", err)
	}
	if got := f.calls(t, f.tools.Sbcast); got != nil {
		t.Errorf("sbcast ran after the guard failed on n2: %q", got)
	}
	if why, down := l.downReason("n2"); !down {
		t.Errorf("n2 not marked down (%q)", why)
	}
}
