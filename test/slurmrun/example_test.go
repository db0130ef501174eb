package slurmrun

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"ioswarm/figures"
	"ioswarm/result"
	"ioswarm/settings"
	"ioswarm/study"
	"ioswarm/test/harness"
)

// The example batch script, submitted as a user would, scaled down through
// its variables: two nodes, two threads per node (points 1, 2, 4), 64 MiB
// in its 16 MiB records; once as a sweep and once as the loop of runs.
func TestExampleBatchScript(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	script, err := os.ReadFile(filepath.Join(filepath.Dir(self), "..", "..", "examples", "slurm", "ioswarm-study.sbatch"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	for _, mode := range []string{"sweep", "loop"} {
		runExample(ctx, t, e, string(script), mode)
	}
	e.waitNoLeftovers(t, 5*time.Second)
}

func runExample(ctx context.Context, t *testing.T, e *env, script, mode string) {
	t.Helper()
	dir, data := sharedDir(t, e, mode+"-")
	out := filepath.Join(dir, "out")
	vars := []string{"IOSWARM_BIN=" + e.shared, "IOSWARM_DIR=" + data, "IOSWARM_TOTAL=64MiB", "IOSWARM_THREADS_PER_NODE=2",
		"IOSWARM_OUT=" + out, "IOSWARM_LABEL=testbed", "IOSWARM_MODE=" + mode}
	id, err := e.c.Sbatch(ctx, script, "-N2", "-o", filepath.Join(dir, "job.out"), "--export=ALL,"+strings.Join(vars, ","))
	if err != nil {
		t.Fatal(err)
	}
	state, err := e.c.WaitJob(ctx, id)
	if err != nil || state != "COMPLETED" {
		t.Fatalf("%s job %s ended %q, %v; its output:\n%s", mode, id, state, err, readFile(t, filepath.Join(dir, "job.out")))
	}
	var jobs []*result.Job
	if mode == "sweep" {
		s, err := study.Load(filepath.Join(out, "study.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s.Threads, []int{1, 2, 4}) || !s.Complete || s.Label != "testbed" {
			t.Errorf("sweep: threads %v, complete %v, label %q", s.Threads, s.Complete, s.Label)
		}
		jobs = s.Points
		for _, chart := range []string{"study.svg", "study.png"} {
			if _, err := os.Stat(filepath.Join(out, chart)); err != nil {
				t.Errorf("no chart: %v", err)
			}
		}
	} else {
		for _, n := range []string{"1", "2", "4"} {
			jobs = append(jobs, harness.LoadResult(t, filepath.Join(out, "run-"+n+".json")))
		}
	}
	checkStudy(t, mode, jobs)
	csv := strings.Split(strings.TrimSpace(readFile(t, filepath.Join(out, "study.csv"))), "\n")
	if len(csv) != 1+3*2 {
		t.Errorf("%s: study.csv has %d lines, want a header and 6 rows:\n%s", mode, len(csv), strings.Join(csv, "\n"))
	}
	if left := harness.DirEntries(t, data); len(left) != 0 {
		t.Errorf("%s: files left in %s: %q", mode, data, left)
	}
}

// checkStudy: three points of 1, 2 and 4 threads, each over both nodes
// (the first over node1 alone), with 16 MiB records, 64 MiB in all, write
// and read, launched by srun, and figures that recompute.
func checkStudy(t *testing.T, mode string, jobs []*result.Job) {
	t.Helper()
	if len(jobs) != 3 {
		t.Fatalf("%s: %d points, want 3", mode, len(jobs))
	}
	for i, j := range jobs {
		want := 1 << i
		c := j.Config
		if c.Threads != want || c.Total != 64<<20 || c.BlockSize != 16<<20 || !slices.Equal(c.Phases, settings.PhaseList{"write", "read"}) {
			t.Errorf("%s point %d: threads %d, total %d, block %d, phases %v", mode, i, c.Threads, c.Total, c.BlockSize, c.Phases)
		}
		if j.Launcher != "srun" || !j.Complete || len(j.Phases) != 2 {
			t.Errorf("%s point %d: launcher %q, complete %v, %d phases", mode, i, j.Launcher, j.Complete, len(j.Phases))
		}
		if hosts := threadHosts(j); len(hosts) != min(want, 2) {
			t.Errorf("%s point %d: threads ran on %q", mode, i, hosts)
		}
		if err := figures.Check(j); err != nil {
			t.Errorf("%s point %d: figures do not recompute: %v", mode, i, err)
		}
	}
}
