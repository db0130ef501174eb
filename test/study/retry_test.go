package study

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"ioswarm/internal/testio"
	"ioswarm/study"
	"ioswarm/test/harness"
)

// A rank killed during the 2-thread point, on its first try and again on
// the retry, with --retries 1 --keep-going: the point runs twice (two
// failures recorded, the first retried), is kept in the study as failed
// with its error, the 4-thread point still runs, and the sweep exits 1.
func TestSweepRetriesThenKeepsGoing(t *testing.T) {
	s, stdout, stderr, code := sweepWithKills(t, 2, "--keep-going")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a point failed)\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if s.Complete || !strings.Contains(s.Error, "sweep points failed: 1 of 3") {
		t.Errorf("complete %v, error %q: want a sweep marked incomplete by its failed point", s.Complete, s.Error)
	}
	if got := pointStates(s); got != "1:complete 2:failed 4:complete" {
		t.Errorf("points %s, want the 2-thread point failed and the others measured", got)
	}
	if len(s.Failures) != 2 || !s.Failures[0].Retried || s.Failures[1].Retried ||
		s.Failures[0].Attempt != 1 || s.Failures[1].Attempt != 2 ||
		s.Failures[0].Threads != 2 || s.Failures[1].Threads != 2 || s.Failures[1].Error == "" {
		t.Errorf("failures %+v, want tries 1 (run again) and 2 (not) of the 2-thread point, with errors", s.Failures)
	}
	if !strings.Contains(stderr, "try 1 of 2") {
		t.Errorf("stderr does not say the point runs again:\n%s", stderr)
	}
	if !strings.Contains(stdout, "failed: 2 threads, try 2 (not run again)") || !strings.Contains(stdout, "INCOMPLETE") {
		t.Errorf("the table does not show the failed point:\n%s", stdout)
	}
}

// Killed once, the point passes on its retry: the default (no
// --keep-going) sweep completes, with the failed try on record.
func TestSweepRetryRecovers(t *testing.T) {
	s, stdout, stderr, code := sweepWithKills(t, 1)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if got := pointStates(s); !s.Complete || got != "1:complete 2:complete 4:complete" {
		t.Errorf("complete %v, points %s: want every point measured", s.Complete, got)
	}
	if len(s.Failures) != 1 || !s.Failures[0].Retried || s.Failures[0].Threads != 2 {
		t.Errorf("failures %+v, want the 2-thread point's first try, run again", s.Failures)
	}
}

// sweepWithKills runs a sweep over 1, 2 and 4 threads on 2 local ranks
// with --retries 1 and kills a rank kills times: once the 1-thread point
// is in, then in each new set of ranks. Every kill lands inside the
// 2-thread point whatever the machine's speed: the ranks are stopped
// (SIGSTOP) first, so the point cannot end, and the CSV is checked to
// hold only the first point's rows before one is killed and the rest go
// on. It returns the saved study, stdout, stderr and the exit code.
func sweepWithKills(t *testing.T, kills int, extra ...string) (*study.Sweep, string, string, int) {
	t.Helper()
	dir, out := t.TempDir(), t.TempDir()
	result, csvPath := filepath.Join(out, "s.json"), filepath.Join(out, "s.csv")
	exe := bin.Path(t)
	cmd := exec.Command(exe, append([]string{"sweep", "--local-ranks", "2", "--threads", "1,2,4", "--total", "16MiB",
		"--block", "1MiB", "--phases", "write,read", "--dir", dir, "--output", result, "--csv", csvPath,
		"--retries", "1", "--progress", "off", "--heartbeat-timeout", "60s"}, extra...)...)
	var stdout, stderr testio.LockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	// Header and the 1-thread point's two rows: the 2-thread point is next.
	waitFor(t, "the 1-thread point", &stderr, func() bool { return csvLines(csvPath) >= 3 })
	var seen []int
	for k := 0; k < kills; k++ {
		var fresh []int
		waitFor(t, "ranks to kill", &stderr, func() bool {
			pids, _ := rankPIDs(exe)
			fresh = slices.DeleteFunc(pids, func(p int) bool { return slices.Contains(seen, p) })
			return len(fresh) > 0
		})
		for _, p := range fresh {
			syscall.Kill(p, syscall.SIGSTOP)
		}
		if n := csvLines(csvPath); n != 3 {
			t.Fatalf("the CSV has %d lines once the ranks were stopped: the 2-thread point ended before it could be hit", n)
		}
		if err := syscall.Kill(fresh[0], syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for _, p := range fresh[1:] {
			syscall.Kill(p, syscall.SIGCONT)
		}
		seen = append(seen, fresh...)
	}
	code, _ := harness.WaitExit(t, cmd, 3*time.Minute)
	waitNoRanks(t, exe)
	if left := harness.DirEntries(t, dir); len(left) != 0 {
		t.Errorf("files left in --dir: %v", left)
	}
	s, err := study.Load(result)
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr.String())
	}
	return s, stdout.String(), stderr.String(), code
}

// waitFor polls done for up to two minutes: only a hang runs into that.
func waitFor(t *testing.T, what string, stderr *testio.LockedBuffer, done func() bool) {
	t.Helper()
	if !harness.Poll(2*time.Minute, 5*time.Millisecond, done) {
		t.Fatalf("waited two minutes for %s; stderr:\n%s", what, stderr.String())
	}
}

func csvLines(path string) int {
	data, _ := os.ReadFile(path)
	return strings.Count(string(data), "\n")
}

// pointStates is "threads:complete" or "threads:failed" per point, in
// the study's order.
func pointStates(s *study.Sweep) string {
	var out []string
	for _, p := range s.Points {
		state := "complete"
		if !p.Complete {
			state = "failed"
		}
		out = append(out, fmt.Sprintf("%d:%s", p.Config.Threads, state))
	}
	return strings.Join(out, " ")
}
