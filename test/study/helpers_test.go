package study

import (
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"ioswarm/test/harness"
)

// run executes the binary to completion and returns stdout, stderr and
// the exit code.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	o := harness.RunCmd(t, exec.Command(bin.Path(t), args...), 3*time.Minute)
	return o.Stdout, o.Stderr, o.Code
}

// rankWatcher records the PIDs of every rank process of exe it sees
// while it runs: the proof that a sweep starts its ranks once.
type rankWatcher struct {
	exe  string
	stop chan struct{}
	done sync.WaitGroup
	mu   sync.Mutex
	pids map[int]bool
}

func watchRanks(exe string) *rankWatcher {
	w := &rankWatcher{exe: exe, stop: make(chan struct{}), pids: map[int]bool{}}
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		for {
			select {
			case <-w.stop:
				return
			case <-time.After(5 * time.Millisecond):
				w.scan()
			}
		}
	}()
	return w
}

// scan records the ranks running now. A failed listing records nothing
// and the next scan tries again: a watcher cannot fail the test from its
// own goroutine.
func (w *rankWatcher) scan() {
	pids, _ := rankPIDs(w.exe)
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, pid := range pids {
		w.pids[pid] = true
	}
}

// Stop ends the watch and returns the rank PIDs seen.
func (w *rankWatcher) Stop() []int {
	close(w.stop)
	w.done.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []int
	for p := range w.pids {
		out = append(out, p)
	}
	return out
}

// rankPIDs lists the live rank processes of exe: `exe rank ...`, not the
// coordinator.
func rankPIDs(exe string) ([]int, error) {
	procs, err := harness.Processes()
	var pids []int
	for _, p := range procs {
		if p.Exe != exe {
			continue
		}
		if args := harness.Args(p.PID); len(args) > 1 && args[1] == "rank" {
			pids = append(pids, p.PID)
		}
	}
	return pids, err
}

// waitNoRanks waits up to harness.Leftover for every rank process of exe
// to be gone.
func waitNoRanks(t *testing.T, exe string) {
	t.Helper()
	var pids []int
	gone := harness.Poll(harness.Leftover, 50*time.Millisecond, func() bool {
		var err error
		if pids, err = rankPIDs(exe); err != nil {
			t.Fatal(err)
		}
		return len(pids) == 0
	})
	if !gone {
		t.Fatalf("rank processes still running: %v", pids)
	}
}

// fixture is a committed result file of package study.
func fixture(name string) string {
	return filepath.Join("..", "..", "study", "testdata", name)
}
