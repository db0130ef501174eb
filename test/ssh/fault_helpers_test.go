package ssh

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/internal/testio"
	"ioswarm/result"
	"ioswarm/test/harness"
)

// heartbeatTimeout is what the fault tests pass as --heartbeat-timeout:
// short, so that detection by silence fits the 10 s the issue allows.
const heartbeatTimeout = "3s"

// faultLimit is how soon after a fault the coordinator must have exited
// on an idle machine; faultBound widens it by what load does now.
const faultLimit = 10 * time.Second

// faultRun is a long run under way on four nodes, writing its result to
// out when it ends.
type faultRun struct {
	cmd    *exec.Cmd
	stderr *testio.LockedBuffer
	out    string
}

// startFault starts a long run with a short heartbeat timeout and a result
// file, and returns once every thread has written its file: the fault then
// strikes mid-run, not at connect time. private names a node with a
// directory of its own over --dir (see privateDir), or is empty; extra
// flags go to the run.
func (e *env) startFault(t *testing.T, private string, extra ...string) faultRun {
	t.Helper()
	out := filepath.Join(t.TempDir(), "result.json")
	args := append([]string{"--heartbeat-timeout", heartbeatTimeout, "--output", out}, extra...)
	if private != "" {
		// The private tmpfs is another filesystem than the others' on
		// purpose.
		args = append(args, "--allow-mixed-fs")
	}
	cmd, stderr := e.startLong(t, args...)
	deadline := time.Now().Add(30 * time.Second)
	for {
		files, _ := filepath.Glob(filepath.Join(e.dir, "ioswarm-*", "t*.dat"))
		if private != "" {
			files = append(files, e.filesOn(t, private)...)
		}
		if len(files) >= 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("threads' files under %s: %v, want 4; stderr:\n%s", e.dir, files, stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return faultRun{cmd: cmd, stderr: stderr, out: out}
}

// privateDir mounts a tmpfs over --dir in node's namespace only: the files
// of that node's rank are then out of reach of every other node, so only
// that rank, or a cleanup run on that node, can remove them. The mount
// goes with the node's namespace when the cluster stops.
func (e *env) privateDir(t *testing.T, node string) {
	t.Helper()
	e.onNode(t, node, "mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", e.dir)
}

// filesOn lists the threads' files in the job directories as node sees
// them.
func (e *env) filesOn(t *testing.T, node string) []string {
	t.Helper()
	return strings.Fields(e.onNode(t, node, "find", e.dir, "-mindepth", "2", "-name", "t*.dat"))
}

// waitEmptyOn waits until node's view of --dir is empty.
func (e *env) waitEmptyOn(t *testing.T, node string, within time.Duration) {
	t.Helper()
	within = harness.LeftoverWait(within) // load must not pass for a leftover
	deadline := time.Now().Add(within)
	for {
		left := e.entriesOn(t, node, e.dir)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v later, %s still sees %v in %s", within, node, left, e.dir)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitThreadFiles waits until the job directory holds n threads' files.
func (e *env) waitThreadFiles(t *testing.T, n int, stderr *testio.LockedBuffer) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		files, _ := filepath.Glob(filepath.Join(e.dir, "ioswarm-*", "t*.dat"))
		if len(files) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no thread file appeared under %s; stderr:\n%s", e.dir, stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// finalError checks that the run printed exactly one error line, last,
// and that it holds every want; it returns that line without the prefix.
func finalError(t *testing.T, stderr string, wants ...string) string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	var errs []string
	for _, l := range lines {
		if strings.HasPrefix(l, "ioswarm: ") {
			errs = append(errs, l)
		}
	}
	last := lines[len(lines)-1]
	if len(errs) != 1 || errs[0] != last {
		t.Fatalf("want one error line, last; got %d:\n%s", len(errs), stderr)
	}
	for _, w := range wants {
		if !strings.Contains(last, w) {
			t.Errorf("error line lacks %q: %s", w, last)
		}
	}
	return strings.TrimPrefix(last, "ioswarm: ")
}

// checkIncomplete checks the result file of a failed run: marked
// incomplete, carrying the error the user saw, and no phase in it that
// claims to be whole yet lacks a thread.
func checkIncomplete(t *testing.T, path, errLine string, threads int) *result.Job {
	t.Helper()
	job := harness.LoadResult(t, path)
	if job.Complete || job.Error == "" || !strings.Contains(errLine, job.Error) {
		t.Errorf("result file: complete %v, error %q; want incomplete with the error %q", job.Complete, job.Error, errLine)
	}
	for _, p := range job.Phases {
		if len(p.Threads) != threads {
			t.Errorf("result file: phase %s iteration %d has %d thread records, want %d", p.Name, p.Iteration, len(p.Threads), threads)
		}
	}
	return job
}

// checkClean waits until nothing of the job is left anywhere: no rank on
// any node, no coordinator on the head, an empty benchmark directory.
func (e *env) checkClean(t *testing.T, within time.Duration) {
	t.Helper()
	e.waitNothingLeft(t, within)
	if left := harness.ProcessesOf(t, e.bin); len(left) != 0 {
		t.Errorf("coordinator processes still running: %v", left)
	}
}

// onNode runs a command as if on node and returns its output.
func (e *env) onNode(t *testing.T, node string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := e.c.Exec(ctx, node, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("on %s: %s: %v\n%s", node, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// entriesOn lists dir as node sees it: a node may have its own mount there.
func (e *env) entriesOn(t *testing.T, node, dir string) []string {
	t.Helper()
	return strings.Fields(e.onNode(t, node, "ls", "-A", dir))
}
