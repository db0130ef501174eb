package study

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// run executes the binary to completion and returns stdout, stderr and
// the exit code.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin.Path(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return out.String(), errb.String(), code
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

func (w *rankWatcher) scan() {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		target, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil || target != w.exe {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		args := strings.Split(string(cmdline), "\x00")
		if len(args) > 1 && args[1] == "rank" {
			w.mu.Lock()
			w.pids[pid] = true
			w.mu.Unlock()
		}
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

// waitNoRanks waits up to 10 s for every rank process of exe to be gone.
func waitNoRanks(t *testing.T, exe string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		w := &rankWatcher{exe: exe, pids: map[int]bool{}}
		w.scan()
		if len(w.pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("rank processes still running: %v", w.pids)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// fixture is a committed result file of package study.
func fixture(name string) string {
	return filepath.Join("..", "..", "study", "testdata", name)
}
