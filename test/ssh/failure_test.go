package ssh

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"ioswarm/test/harness"
)

// A rank killed with SIGKILL mid-phase aborts the whole job within 10 s,
// naming its host and rank; no ioswarm process stays on any node and the
// job directory is gone (the dead rank's files are removed by a cleanup
// run on its node).
func TestKilledRankAbortsJob(t *testing.T) {
	e := newEnv(t, 4)
	bound := e.faultBound(t)
	cmd, stderr := e.startLong(t)
	pids, err := e.c.Processes("node2", e.remoteExe())
	if err != nil || len(pids) != 1 {
		t.Fatalf("ranks on node2: %v, %v; want one", pids, err)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	code, took := waitFault(t, cmd, time.Now(), bound)
	msg := stderr.String()
	if code != 1 || !strings.Contains(msg, "node2") || !strings.Contains(msg, "rank 1") {
		t.Fatalf("exit %d after %v, want 1 naming node2 and rank 1; stderr:\n%s", code, took, msg)
	}
	e.waitNothingLeft(t, 5*time.Second)
}

// Ctrl-C on the coordinator stops every rank on every node, removes the
// files and exits 130.
func TestInterruptStopsEveryNode(t *testing.T) {
	e := newEnv(t, 3)
	bound := e.faultBound(t)
	cmd, stderr := e.startLong(t)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code, _ := waitFault(t, cmd, time.Now(), bound)
	if code != 130 {
		t.Fatalf("exit %d after SIGINT, want 130; stderr:\n%s", code, stderr.String())
	}
	e.waitNothingLeft(t, 5*time.Second)
}

// A coordinator that dies without a word (SIGKILL) closes its SSH
// connections with it; sshd then closes each rank's input, and the ranks
// stop and remove their files within a few seconds.
func TestRanksStopWhenCoordinatorDies(t *testing.T) {
	e := newEnv(t, 3)
	cmd, _ := e.startLong(t)
	if left := e.ranksLeft(t); len(left) != 3 {
		t.Fatalf("ranks running before the kill: %v", left)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	harness.WaitExit(t, cmd, harness.Leftover) // SIGKILL: at once, unless the machine is very busy
	e.waitNothingLeft(t, 8*time.Second)
}
