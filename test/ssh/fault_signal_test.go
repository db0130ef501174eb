package ssh

import (
	"syscall"
	"testing"
	"time"
)

// SIGTERM (what a batch system or `kill` sends) on the coordinator stops
// every rank on every node, removes the files and exits 143, with the
// result file marked incomplete.
func TestTerminateStopsEveryNode(t *testing.T) {
	e := newEnv(t, 4)
	bound := e.faultBound(t)
	run := e.startFault(t, "")
	if err := run.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code, took := waitFault(t, run.cmd, time.Now(), bound)
	t.Logf("exit %d %v after SIGTERM", code, took)
	if code != 143 {
		t.Errorf("exit %d after SIGTERM, want 143", code)
	}
	msg := finalError(t, run.stderr.String(), "SIGTERM")
	checkIncomplete(t, run.out, msg, 4)
	e.checkClean(t, 5*time.Second)
}
