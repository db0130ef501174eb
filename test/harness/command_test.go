package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/internal/testio"
)

func TestRunCmdCollectsOutputAndCode(t *testing.T) {
	o := RunCmd(t, exec.Command("sh", "-c", "echo out; echo err >&2; exit 3"), time.Minute)
	if o.Stdout != "out\n" || o.Stderr != "err\n" || o.Code != 3 || o.Took <= 0 {
		t.Errorf("got %+v, want out, err, code 3 and a duration", o)
	}
	if o := RunCmd(t, exec.Command("sh", "-c", "kill -TERM $$"), time.Minute); o.Code != -1 {
		t.Errorf("killed by a signal: code %d, want -1", o.Code)
	}
}

func TestRunCmdFailsPastItsLimit(t *testing.T) {
	cmd := exec.Command("sh", "-c", "echo partial >&2; exec sleep 60")
	msg := failure(t, func(tb testing.TB) { RunCmd(tb, cmd, 300*time.Millisecond) })
	if !strings.Contains(msg, "still running after 300ms") {
		t.Errorf("failed with %q, want a limit named", msg)
	}
	if cmd.ProcessState == nil || cmd.ProcessState.Exited() {
		t.Errorf("command past its limit not killed: %v", cmd.ProcessState)
	}
}

func TestRunCmdFailsWhenItCannotStart(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none")
	msg := failure(t, func(tb testing.TB) { RunCmd(tb, exec.Command(missing), time.Minute) })
	if !strings.Contains(msg, "start") || !strings.Contains(msg, missing) {
		t.Errorf("failed with %q, want the start and the program named", msg)
	}
}

func TestWaitExit(t *testing.T) {
	cmd := exec.Command("sh", "-c", "exit 4")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if code, took := WaitExit(t, cmd, time.Minute); code != 4 || took <= 0 {
		t.Errorf("code %d after %v, want 4", code, took)
	}
}

func TestWaitExitFailsWithStderrSoFar(t *testing.T) {
	cmd := exec.Command("sh", "-c", "echo last words >&2; exec sleep 60")
	stderr := &testio.LockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if !Poll(time.Minute, 10*time.Millisecond, func() bool { return stderr.String() != "" }) {
		t.Fatal("the command wrote nothing")
	}
	msg := failure(t, func(tb testing.TB) { WaitExit(tb, cmd, 100*time.Millisecond) })
	if !strings.Contains(msg, "still running 100ms later") || !strings.Contains(msg, "last words") {
		t.Errorf("failed with %q, want the wait and the command's stderr", msg)
	}
}

func TestStartJobWaitsForTheJobDirectory(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", `sleep 0.2; echo set up >&2; mkdir "$0/job"; exec sleep 60`, dir)
	t.Run("start", func(t *testing.T) {
		stderr := StartJob(t, cmd, dir, time.Minute)
		if got := DirEntries(t, dir); len(got) != 1 || got[0] != "job" {
			t.Errorf("returned with %v in the directory, want the job", got)
		}
		if stderr.String() != "set up\n" {
			t.Errorf("stderr %q", stderr.String())
		}
	})
	if cmd.ProcessState == nil {
		t.Error("the job was not stopped when its test ended")
	}
}

func TestStartJobFailsWithoutAJobDirectory(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", "echo no luck >&2; exec sleep 60")
	msg := failure(t, func(tb testing.TB) { StartJob(tb, cmd, dir, 200*time.Millisecond) })
	if !strings.Contains(msg, "job directory never appeared") || !strings.Contains(msg, "no luck") {
		t.Errorf("failed with %q, want the missing directory and the stderr", msg)
	}
	if cmd.ProcessState == nil {
		t.Error("the failed job was not stopped")
	}
}

func TestDirEntries(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b", "a"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got := DirEntries(t, dir); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("got %v, want [a b]", got)
	}
	if msg := failure(t, func(tb testing.TB) { DirEntries(tb, filepath.Join(dir, "none")) }); msg == "" {
		t.Error("a missing directory did not fail the test")
	}
}
