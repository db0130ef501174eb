package harness

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ownSleep starts a copy of sleep under a path of the test's own, so that
// no other process on the machine runs the same program.
func ownSleep(t *testing.T) (*exec.Cmd, string) {
	t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep program")
	}
	data, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "own-sleep")
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, exe
}

func TestProcessesOfFindsTheLiveOnesOnly(t *testing.T) {
	cmd, exe := ownSleep(t)
	pid := cmd.Process.Pid
	if got := ProcessesOf(t, exe); !slices.Equal(got, []int{pid}) {
		t.Fatalf("processes of %s: %v, want [%d]", exe, got, pid)
	}
	procs, err := Processes()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(procs, func(p Process) bool { return p.PID == pid })
	if i < 0 || procs[i].PPID != os.Getpid() {
		t.Errorf("process %d missing or not this test's child: %+v", pid, procs)
	}
	if got := Args(pid); !slices.Equal(got, []string{exe, "60"}) {
		t.Errorf("args %q", got)
	}
	// Killed but not yet reaped: a zombie, which no longer counts.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	zombie := Poll(time.Minute, 10*time.Millisecond, func() bool { s, _, _ := stat(pid); return s == "Z" })
	if !zombie {
		t.Fatalf("process %d never became a zombie", pid)
	}
	if got := ProcessesOf(t, exe); len(got) != 0 {
		t.Errorf("a zombie counted as running: %v", got)
	}
}

func TestProcessesOfFindsADeletedBinary(t *testing.T) {
	cmd, exe := ownSleep(t)
	if err := os.Remove(exe); err != nil {
		t.Fatal(err)
	}
	if got := ProcessesOf(t, exe); !slices.Equal(got, []int{cmd.Process.Pid}) {
		t.Errorf("processes of deleted %s: %v, want [%d]", exe, got, cmd.Process.Pid)
	}
}

func TestWaitNoProcesses(t *testing.T) {
	cmd, exe := ownSleep(t)
	msg := failure(t, func(tb testing.TB) { WaitNoProcesses(tb, exe, 200*time.Millisecond) })
	if !strings.Contains(msg, "still running") || !strings.Contains(msg, strconv.Itoa(cmd.Process.Pid)) {
		t.Errorf("failed with %q, want the live process named", msg)
	}
	cmd.Process.Kill()
	cmd.Wait()
	WaitNoProcesses(t, exe, time.Minute)
}

func TestArgsOfAnEndedProcess(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if got := Args(cmd.Process.Pid); got != nil {
		t.Errorf("args of a reaped process: %q", got)
	}
}

func TestLoadResult(t *testing.T) {
	path := filepath.Join("..", "..", "report", "testdata", "job.json.golden")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		JobID string `json:"job_id"`
	}
	if err := json.Unmarshal(data, &raw); err != nil || raw.JobID == "" {
		t.Fatalf("fixture %s: job %q, %v", path, raw.JobID, err)
	}
	if job := LoadResult(t, path); job.JobID != raw.JobID {
		t.Errorf("job %q, want %q", job.JobID, raw.JobID)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"job_id": 3`), 0o600); err != nil {
		t.Fatal(err)
	}
	if msg := failure(t, func(tb testing.TB) { LoadResult(tb, bad) }); !strings.Contains(msg, bad) {
		t.Errorf("a broken file failed with %q, want its name", msg)
	}
}

func TestPoll(t *testing.T) {
	calls := 0
	if !Poll(time.Minute, time.Millisecond, func() bool { calls++; return calls == 3 }) || calls != 3 {
		t.Errorf("Poll gave up or went on: %d calls", calls)
	}
	calls = 0
	if Poll(20*time.Millisecond, 5*time.Millisecond, func() bool { calls++; return false }) || calls < 2 {
		t.Errorf("Poll of a condition never met: %d calls", calls)
	}
}
