package study

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"ioswarm/test/harness"
)

// savedStudy is the part of a sweep's file these tests read.
type savedStudy struct {
	Complete bool   `json:"complete"`
	Error    string `json:"error"`
	Points   []struct {
		JobID    string `json:"job_id"`
		Complete bool   `json:"complete"`
		Config   struct {
			Threads int `json:"threads"`
		} `json:"config"`
	} `json:"points"`
}

func readStudy(t *testing.T, path string) (savedStudy, error) {
	t.Helper()
	var s savedStudy
	data, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(data, &s)
}

func completePoints(s savedStudy) map[int]string {
	out := map[int]string{}
	for _, p := range s.Points {
		if p.Complete {
			out[p.Config.Threads] = p.JobID
		}
	}
	return out
}

var resumeArgs = []string{"sweep", "--local-ranks", "1", "--threads", "1,2,4,8,16,32", "--total", "8MiB",
	"--block", "64KiB", "--progress", "off", "--drop-caches", "off"}

// A coordinator SIGKILLed mid-sweep leaves a study file that holds every
// point finished before it (rewritten after each one, never half
// written); the same command with --resume keeps those points as they
// were and runs only the rest; a changed plan is refused by name.
func TestSweepResumesAfterKill(t *testing.T) {
	dir, out := t.TempDir(), filepath.Join(t.TempDir(), "s.json")
	exe := bin.Path(t)
	args := append(append([]string{}, resumeArgs...), "--dir", dir, "--output", out)
	cmd := exec.Command(exe, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	// Kill it as soon as the file holds a finished point: the other
	// points of the six are still to run.
	saved := harness.Poll(2*time.Minute, 5*time.Millisecond, func() bool {
		select {
		case <-exited:
			return true
		default:
		}
		s, err := readStudy(t, out)
		return err == nil && len(completePoints(s)) > 0
	})
	cmd.Process.Signal(syscall.SIGKILL)
	<-exited
	if !saved {
		t.Fatal("no point was saved before the sweep was killed")
	}
	waitRanksGone(t, exe)
	before, err := readStudy(t, out)
	if err != nil {
		t.Fatalf("the study file after SIGKILL: %v", err)
	}
	kept := completePoints(before)
	if before.Complete || len(kept) == 0 || len(kept) == 6 {
		t.Fatalf("after the kill: complete %v, %d finished points: want an unfinished study with some points", before.Complete, len(kept))
	}

	_, stderr, code := run(t, append(append([]string{}, args[:len(args)-2]...), "--total", "16MiB", "--resume", out)...)
	if code != 2 || !strings.Contains(stderr, "total: saved") {
		t.Errorf("a changed plan: exit %d, %q", code, stderr)
	}

	_, stderr, code = run(t, append(args[:len(args)-2:len(args)-2], "--resume", out)...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	after, err := readStudy(t, out)
	if err != nil {
		t.Fatal(err)
	}
	all := completePoints(after)
	if !after.Complete || len(all) != 6 || len(after.Points) != 6 {
		t.Errorf("after the resume: complete %v, %d points (%d complete), want 6", after.Complete, len(after.Points), len(all))
	}
	for threads, id := range kept {
		if all[threads] != id {
			t.Errorf("the point of %d threads ran again (job %s, was %s)", threads, all[threads], id)
		}
	}
}

// A time budget shorter than a point stops the sweep before the next
// point (exit 4, the study saved with the points done); --resume without
// the budget finishes it.
func TestSweepTimeBudgetThenResume(t *testing.T) {
	dir, out := t.TempDir(), filepath.Join(t.TempDir(), "s.json")
	args := []string{"sweep", "--local-ranks", "1", "--threads", "1,2", "--total", "4MiB", "--block", "1MiB",
		"--progress", "off", "--dir", dir}
	// 1 ns: the first point runs (nothing to estimate by), the second
	// cannot fit what is left.
	_, stderr, code := run(t, append(args, "--output", out, "--time-budget", "1ns")...)
	if code != 4 || !strings.Contains(stderr, "--resume") {
		t.Fatalf("budget: exit %d, %q", code, stderr)
	}
	s, err := readStudy(t, out)
	if err != nil {
		t.Fatal(err)
	}
	if s.Complete || len(completePoints(s)) != 1 || !strings.Contains(s.Error, "time budget") {
		t.Errorf("after the budget: complete %v, %d points, error %q", s.Complete, len(completePoints(s)), s.Error)
	}
	_, stderr, code = run(t, append(args, "--resume", out)...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	if s, err = readStudy(t, out); err != nil || !s.Complete || len(completePoints(s)) != 2 {
		t.Errorf("after the resume: %+v, %v", s, err)
	}
	// Resuming a finished study starts nothing and keeps it.
	if _, stderr, code = run(t, append(args, "--resume", out)...); code != 0 {
		t.Errorf("resume of a finished study: exit %d: %s", code, stderr)
	}
}

// waitRanksGone waits for the ranks of a killed coordinator to notice
// (their input closes) and exit; a minute is far past a loaded
// machine's slowest.
func waitRanksGone(t *testing.T, exe string) {
	t.Helper()
	var pids []int
	if !harness.Poll(time.Minute, 50*time.Millisecond, func() bool {
		pids, _ = rankPIDs(exe)
		return len(pids) == 0
	}) {
		t.Fatalf("rank processes still running a minute after their coordinator was killed: %v", pids)
	}
}
