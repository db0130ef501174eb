package ssh

import (
	"os/exec"
	"testing"
	"time"

	"ioswarm/test/harness"
)

// faultBound is how soon after a fault the coordinator must have exited
// on this machine, loaded as it is now: faultLimit (the 10 s, met
// with seconds to spare on an idle machine) plus twice what a preflight
// over the same nodes (`ioswarm hosts`) takes now. The preflight does what
// a fault's ending does, SSH sessions to every node and a rank started
// and stopped on each, so load stretches both alike; a fault that is
// missed runs into the run's many minutes or a TCP timeout's two, far
// beyond either. Call it before the fault is set up.
func (e *env) faultBound(t *testing.T) time.Duration {
	t.Helper()
	args := append([]string{"hosts", "--hosts", e.c.HostsFile, "--dir", e.dir}, e.sshFlags()...)
	o := e.head(t, 2*time.Minute, args...)
	if o.Code != 0 {
		t.Fatalf("preflight to time the machine: exit %d\nstderr:\n%s", o.Code, o.Stderr)
	}
	bound := faultLimit + 2*o.Took
	t.Logf("a preflight of the %d nodes took %v: the coordinator must end within %v of a fault", len(e.c.Nodes), o.Took, bound)
	return bound
}

// waitFault waits for cmd to exit after a fault that struck at since: an
// exit later than bound after it is an error; one that never comes (a
// hang) fails the test at harness.Leftover past the bound. It returns the
// exit code and the time since the fault.
func waitFault(t *testing.T, cmd *exec.Cmd, since time.Time, bound time.Duration) (int, time.Duration) {
	t.Helper()
	code, _ := harness.WaitExit(t, cmd, time.Until(since.Add(bound+harness.Leftover)))
	took := time.Since(since)
	if took > bound {
		t.Errorf("exit %d %v after the fault, want within %v", code, took, bound)
	}
	return code, took
}
