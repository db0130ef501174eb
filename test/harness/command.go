package harness

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"ioswarm/internal/testio"
)

// Outcome is what one finished command did.
type Outcome struct {
	Stdout, Stderr string
	Code           int // the exit code; -1 when a signal ended it
	Took           time.Duration
}

// RunCmd runs cmd to completion, collecting its output, and returns what
// it did. A command still running after limit is killed and fails the
// test, as does one that cannot be started or waited for: an exit code is
// an outcome, those are not.
func RunCmd(t testing.TB, cmd *exec.Cmd, limit time.Duration) Outcome {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	var err error
	select {
	case err = <-done:
	case <-timer.C:
		t.Fatalf("%s still running after %v\nstderr:\n%s", cmd, limit, kill(cmd, done))
	}
	o := Outcome{Stdout: out.String(), Stderr: errb.String(), Took: time.Since(begin)}
	o.Code = exitCode(t, cmd, err)
	return o
}

// exitCode is the code err from Wait stands for; an error that is not an
// exit status fails the test.
func exitCode(t testing.TB, cmd *exec.Cmd, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("%s: %v\nstderr:\n%s", cmd, err, stderrOf(cmd))
	return 0
}

// WaitExit waits up to within for a started command to exit and returns
// its exit code and how long the wait took. A command still running then
// is killed and fails the test, with its standard error if cmd.Stderr can
// tell it (a testio.LockedBuffer, a bytes.Buffer).
func WaitExit(t testing.TB, cmd *exec.Cmd, within time.Duration) (code int, took time.Duration) {
	t.Helper()
	begin := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case err := <-done:
		took = time.Since(begin)
		return exitCode(t, cmd, err), took
	case <-timer.C:
		t.Fatalf("%s still running %v later\nstderr:\n%s", cmd, within, kill(cmd, done))
	}
	return 0, 0
}

// kill ends a command that outlived its wait and returns its standard
// error. Wait, whose result arrives on done, must have returned first:
// until then the output may still be written, and a second Wait (a
// test's cleanup) must not run beside it.
func kill(cmd *exec.Cmd, done <-chan error) string {
	_ = cmd.Process.Kill()
	select {
	case <-done:
		return stderrOf(cmd)
	case <-time.After(10 * time.Second):
		return "(not readable: a process it started still holds it open)"
	}
}

// stderrOf is what the command wrote to its standard error, if that went
// somewhere that can say; only once Wait has returned.
func stderrOf(cmd *exec.Cmd) string {
	if s, ok := cmd.Stderr.(fmt.Stringer); ok {
		return s.String()
	}
	return "(not kept)"
}

// StartJob starts cmd, a run meant to last until the test stops it, and
// returns its standard error once dir holds an entry (the job directory:
// every rank has joined and set up) and a moment more, so that the phases
// are under way. A directory still empty after within fails the test.
// Standard output goes wherever cmd.Stdout says (nil: nowhere). The
// command is killed, if it still runs, when the test ends.
func StartJob(t testing.TB, cmd *exec.Cmd, dir string, within time.Duration) *testio.LockedBuffer {
	t.Helper()
	stderr := &testio.LockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd, err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if !Poll(within, 20*time.Millisecond, func() bool { return len(DirEntries(t, dir)) > 0 }) {
		t.Fatalf("job directory never appeared in %s; stderr:\n%s", dir, stderr.String())
	}
	time.Sleep(300 * time.Millisecond) // into the phases
	return stderr
}
