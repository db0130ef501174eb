package slurmrun

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"ioswarm/study"
)

// The example batch script submitted exactly as the README prints it,
// `sbatch --nodes=2 examples/slurm/ioswarm-study.sbatch`, from a clone
// where ./ioswarm was built, by a shell that exports none of the script's
// settings but plenty of unrelated names it once read (DIR, OUT, TOTAL,
// ...) and no USER. The first try must run on its defaults: the binary
// found in the clone, everything under the submit directory, points 1 to
// 8 threads (4 per node) of 128 MiB, the job's output file a table.
func TestExampleBatchScriptAsPrinted(t *testing.T) {
	e := newEnv(t, 2)
	clone := exampleClone(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := e.c.Login(ctx, "sbatch", "--parsable", "--nodes=2", "examples/slurm/ioswarm-study.sbatch")
	cmd.Dir = clone
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "USER=") && !strings.HasPrefix(kv, "IOSWARM") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	// A wrapper's own variables, with the names the old script read: none
	// may reach the job (their paths lie in this test's directory, so a
	// script that read them could not touch anything else).
	hostile := filepath.Join(t.TempDir(), "hostile")
	cmd.Env = append(cmd.Env, "DIR="+hostile+"/wrapper-dir", "OUT="+hostile+"/out", "TOTAL=8TiB", "MODE=bogus",
		"LABEL=wrong", "FIRST=64", "EXTRA=--bogus", "THREADS_PER_NODE=1000", "IOSWARM="+hostile+"/ioswarm")
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("sbatch: %v", err)
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(raw)), ";")
	state, err := e.c.WaitJob(ctx, id)
	stdout := readFile(t, filepath.Join(clone, "ioswarm-study-"+id+".out"))
	stderr := readFile(t, filepath.Join(clone, "ioswarm-study-"+id+".err"))
	if err != nil || state != "COMPLETED" {
		t.Fatalf("job %s ended %q, %v\noutput:\n%s\nerrors:\n%s", id, state, err, stdout, stderr)
	}
	t.Logf("the job's output file:\n%s", stdout)
	checkTableOnly(t, stdout, stderr)
	out := filepath.Join(clone, "ioswarm-study-"+id)
	s, err := study.Load(filepath.Join(out, "study.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Threads, []int{1, 2, 4, 8}) || !s.Complete || s.Label != "first-try" {
		t.Errorf("threads %v, complete %v, label %q; want 1..8, complete, first-try", s.Threads, s.Complete, s.Label)
	}
	for i, p := range s.Points {
		if c := p.Config; c.Total != 128<<20 || c.BlockSize != 16<<20 || c.Dir != filepath.Join(out, "data") || p.Launcher != "srun" {
			t.Errorf("point %d: total %d, block %d, dir %s, launcher %s", i, c.Total, c.BlockSize, c.Dir, p.Launcher)
		}
	}
	if _, err := os.Stat(hostile); !os.IsNotExist(err) {
		t.Errorf("the script used a wrapper's DIR or OUT: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "data")); !os.IsNotExist(err) {
		t.Errorf("the first try's data directory is still there: %v", err)
	}
	e.waitNoLeftovers(t, 5*time.Second)
}

// exampleClone is a clone as the README leaves it, on the filesystem the
// nodes share: ./ioswarm built, and the example batch script in its place.
func exampleClone(t *testing.T, e *env) string {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	script, err := os.ReadFile(filepath.Join(filepath.Dir(self), "..", "..", "examples", "slurm", "ioswarm-study.sbatch"))
	if err != nil {
		t.Fatal(err)
	}
	clone, _ := sharedDir(t, e, "clone-")
	copyFile(t, e.shared, filepath.Join(clone, "ioswarm"), 0o755)
	examples := filepath.Join(clone, "examples", "slurm")
	if err := os.MkdirAll(examples, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(examples, "ioswarm-study.sbatch"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	return clone
}

// checkTableOnly checks that the job's output file holds the sweep table,
// a header and a row per point, and nothing of the progress, launcher or
// node lines, which go to the error file.
func checkTableOnly(t *testing.T, stdout, stderr string) {
	t.Helper()
	rows := 0
	for _, line := range strings.Split(strings.TrimRight(stdout, "\n"), "\n") {
		switch {
		case regexp.MustCompile(`^\s*[1248]\s`).MatchString(line):
			rows++
		case strings.Contains(line, "[node") || strings.Contains(line, "%") && strings.Contains(line, "ETA"):
			t.Errorf("a progress or node line in the output file: %q", line)
		}
	}
	if rows != 4 {
		t.Errorf("%d table rows in the output file, want 4 (threads 1, 2, 4, 8):\n%s", rows, stdout)
	}
	if !strings.Contains(stderr, "ioswarm study: job ") {
		t.Errorf("no study summary in the error file:\n%s", stderr)
	}
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, mode); err != nil {
		t.Fatal(err)
	}
}
