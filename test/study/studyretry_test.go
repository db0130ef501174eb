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

	"ioswarm/internal/testio"
	"ioswarm/test/harness"
)

// A rank killed inside the sequential section's 2-thread point, with
// --retries 1: the point runs again on fresh ranks, and the random
// section after it runs on those ranks; the study completes with the
// failed try on record and every point measured.
func TestStudyRetryOnFreshRanks(t *testing.T) {
	dir, data := t.TempDir(), t.TempDir()
	plan := writePlan(t, dir, data, "1,2", "32MiB")
	out := filepath.Join(dir, "mini.json")
	exe := bin.Path(t)
	cmd := exec.Command(exe, "study", "--plan", plan, "--local-ranks", "2", "--retries", "1",
		"--progress", "off", "--heartbeat-timeout", "60s")
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
	finished := func() int {
		_, done, err := readWhole(out)
		if err != nil {
			return 0
		}
		return count(done)
	}
	// The 1-thread point is in the file: the 2-thread point is next.
	waitFor(t, "the 1-thread point", &stderr, func() bool { return finished() >= 1 })
	var pids []int
	waitFor(t, "ranks to kill", &stderr, func() bool { pids, _ = rankPIDs(exe); return len(pids) == 2 })
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGSTOP)
	}
	if n := finished(); n != 1 {
		t.Fatalf("%d points in the file once the ranks were stopped: the 2-thread point ended before it could be hit", n)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	syscall.Kill(pids[1], syscall.SIGCONT)
	code, _ := harness.WaitExit(t, cmd, 3*time.Minute)
	waitNoRanks(t, exe)
	if code != 0 || !strings.Contains(stderr.String(), "try 1 of 2") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	s, done, err := readWhole(out)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Complete || len(done["seq"]) != 2 || len(done["random"]) != 2 {
		t.Errorf("complete %v, points %v: want every point of both sections", s.Complete, done)
	}
	var failures struct {
		Sections []struct {
			Section  string `json:"section"`
			Failures []struct {
				Threads int  `json:"threads"`
				Retried bool `json:"retried"`
			} `json:"failures"`
		} `json:"sections"`
	}
	raw, _ := os.ReadFile(out)
	if err := json.Unmarshal(raw, &failures); err != nil {
		t.Fatal(err)
	}
	f := failures.Sections[0].Failures
	if failures.Sections[0].Section != "seq" || len(f) != 1 || f[0].Threads != 2 || !f[0].Retried ||
		len(failures.Sections[1].Failures) != 0 {
		t.Errorf("failures %+v: want the seq 2-thread point's first try, run again, and none in random", failures.Sections)
	}
	if left := harness.DirEntries(t, data); len(left) != 0 {
		t.Errorf("files left in the study's --dir: %v", left)
	}
}
