package local

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"ioswarm/figures"
)

// Every phase on io_uring at depth 8 with O_DIRECT: the data verifies,
// the figures recompute, and the depth achieved is recorded and printed;
// the sync engine refuses a depth.
func TestIOuringAtDepth8(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "r.json")
	stdout, stderr, code := run(t, "run", "--dir", dir, "--threads", "2", "--local-ranks", "2", "--total", "32MiB",
		"--block", "1MiB", "--phases", "write,read,randwrite,randread", "--verify", "--direct",
		"--engine", "io_uring", "--iodepth", "8", "--output", out)
	if code != 0 {
		if strings.Contains(stderr, "io_uring unavailable") {
			t.Skipf("io_uring unavailable here: %s", stderr)
		}
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	job := loadResult(t, out)
	if err := figures.Check(job); err != nil {
		t.Errorf("figures do not recompute: %v", err)
	}
	if job.Config.Engine != "io_uring" || job.Config.IODepth != 8 {
		t.Errorf("config engine %q depth %d", job.Config.Engine, job.Config.IODepth)
	}
	for _, p := range job.Phases {
		if p.IODepth != 8 || p.IODepthAchievedMax != 8 || p.IODepthAchievedMean < 1 || p.IODepthAchievedMean > 8 {
			t.Errorf("%s: depth %d achieved mean %.2f max %d", p.Name, p.IODepth, p.IODepthAchievedMean, p.IODepthAchievedMax)
		}
		if (p.Name == "read" || p.Name == "randread") && !p.Verified {
			t.Errorf("%s not verified", p.Name)
		}
	}
	// The compact table's depth column reads "mean/asked" (7.9/8).
	if !regexp.MustCompile(`(?m)\s\d+\.\d/8\s*$`).MatchString(stdout) || !strings.Contains(stdout, "engine") {
		t.Errorf("table does not show the depth achieved:\n%s", stdout)
	}
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--iodepth", "4"}, "--iodepth 4 needs --engine io_uring"},
		{[]string{"--engine", "aio"}, `--engine "aio"`},
		{[]string{"--engine", "io_uring", "--iodepth", "0"}, "--iodepth 0"},
	} {
		_, stderr, code := run(t, append([]string{"run", "--dir", dir, "--total", "8MiB", "--block", "1MiB"}, c.flags...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 naming %q:\n%s", c.flags, code, c.want, stderr)
		}
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("left: %v", left)
	}
}
