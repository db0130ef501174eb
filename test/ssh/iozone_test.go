package ssh

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/figures"
	"ioswarm/test/harness"
)

// The seeds' three IOzone command lines, unchanged but for sizes, over a
// 4-node -+m threadlist: write and keep, read back the kept files in a
// second command, then random 4 KiB on them; child i runs on line i's
// host, in its working directory.
func TestIOzoneSeedCommandsOverAThreadlist(t *testing.T) {
	e := newEnv(t, 4)
	threadlist := filepath.Join(t.TempDir(), "threadlist")
	var lines []string
	for i := 0; i < 8; i++ {
		lines = append(lines, fmt.Sprintf("%s %s /usr/local/bin/iozone", e.c.Nodes[i%4], e.dir))
	}
	if err := os.WriteFile(threadlist, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	seeds := [][]string{
		{"-i0", "-c", "-e", "-w", "-r", "1M", "-s", "4m", "-t", "8", "-+n", "-+m", threadlist},
		{"-i1", "-c", "-e", "-w", "-r", "1M", "-s", "4m", "-t", "8", "-+n", "-+m", threadlist},
		{"-i2", "-c", "-O", "-w", "-r", "4K", "-s", "4m", "-t", "8", "-+n", "-+m", threadlist},
	}
	wants := []string{"initial writers", "readers", "random readers"}
	var firstJob string
	for i, seed := range seeds {
		out := filepath.Join(t.TempDir(), fmt.Sprintf("seed%d.json", i))
		args := append(append([]string{"iozone"}, seed...), append(e.sshFlags(), "--output", out)...)
		res := e.head(t, 3*time.Minute, args...)
		if res.Code != 0 {
			t.Fatalf("seed %d (%s): exit %d\n%s", i, strings.Join(seed, " "), res.Code, res.Stderr)
		}
		if !strings.Contains(res.Stdout, "Children see throughput for") || !strings.Contains(res.Stdout, wants[i]) {
			t.Errorf("seed %d report:\n%s", i, res.Stdout)
		}
		if i == 2 && !strings.Contains(res.Stdout, "ops/sec") {
			t.Errorf("-O report is not in ops/sec:\n%s", res.Stdout)
		}
		// IOzone's -+m stream: each test after "Test running:", no Parent
		// sees, no "Test cleanup:" with -w, one closing line; ioswarm's
		// own figures only on stderr.
		// The counts are real IOzone 3.489's for these lines with -+m.
		tests := []int{1, 1, 2}[i]
		kB, ops := []int{4, 4, 0}[i], []int{0, 0, 8}[i]
		for pattern, want := range map[string]int{"Children see": tests, "Test running:": tests, "Min xfer": tests,
			"kB/sec": kB, "ops/sec": ops, "Parent sees": 0, "Test cleanup:": 0, "Network distribution mode enabled.": 1,
			"iozone test complete.": 1, "global window": 0} {
			if got := strings.Count(res.Stdout, pattern); got != want {
				t.Errorf("seed %d: %d lines with %q, IOzone prints %d:\n%s", i, got, pattern, want, res.Stdout)
			}
		}
		if !strings.Contains(res.Stderr, "global window") {
			t.Errorf("seed %d: ioswarm's own figure is not on stderr:\n%s", i, res.Stderr)
		}
		job := harness.LoadIOzoneJob(t, out)
		if err := figures.Check(job); err != nil {
			t.Errorf("seed %d: figures do not recompute: %v", i, err)
		}
		if len(job.Hosts) != 8 || job.Config.Threads != 8 {
			t.Errorf("seed %d: %d ranks, %d threads", i, len(job.Hosts), job.Config.Threads)
		}
		for _, p := range job.Phases {
			for _, th := range p.Threads {
				if want := e.c.Nodes[th.Thread%4]; th.Host != want || th.WrittenByHost != want {
					t.Errorf("seed %d %s: thread %d on %s (file of %s), want line %d's %s", i, p.Name, th.Thread, th.Host, th.WrittenByHost, th.Thread, want)
				}
			}
		}
		switch i {
		case 0:
			firstJob = job.JobID
		default:
			if job.Config.ReusedJob != firstJob {
				t.Errorf("seed %d read job %q's files, want the kept %s", i, job.Config.ReusedJob, firstJob)
			}
		}
	}
	// -w kept the files, as IOzone's -w does: exactly the first job's.
	if left := harness.DirEntries(t, e.dir); len(left) != 1 || left[0] != "ioswarm-"+firstJob {
		t.Errorf("left in %s: %v, want only the kept ioswarm-%s", e.dir, left, firstJob)
	}
	if err := os.RemoveAll(filepath.Join(e.dir, "ioswarm-"+firstJob)); err != nil {
		t.Fatal(err)
	}
	e.waitNothingLeft(t, 5*time.Second)
}
