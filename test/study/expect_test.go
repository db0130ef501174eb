package study

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A sweep as an acceptance test: the verdicts print under the table; an
// expectation met exits 0, one missed exits 3 with the study saved; an
// expectation the sweep could never judge is refused before anything
// starts (exit 2, no rank, no file).
func TestSweepExpect(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	args := []string{"sweep", "--local-ranks", "1", "--threads", "1,2", "--total", "4MiB", "--block", "1MiB",
		"--dir", dir, "--progress", "off"}

	stdout, stderr, code := run(t, append(args, "--expect", "write>=0.000001GB/s@2,read>=1MB/s@1",
		"--output", filepath.Join(out, "pass.json"))...)
	if code != 0 || !strings.Contains(stdout, "expectations: 2 passed, 0 failed") {
		t.Errorf("met: exit %d\n%s\n%s", code, stdout, stderr)
	}

	stdout, stderr, code = run(t, append(args, "--expect", "write>=1000TB/s@2", "--output", filepath.Join(out, "fail.json"))...)
	if code != 3 || !strings.Contains(stdout, "FAIL") || !strings.Contains(stderr, "1 of 1 failed") {
		t.Errorf("missed: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "fail.json")); err != nil {
		t.Errorf("the study of a missed expectation was not saved: %v", err)
	}

	exe := bin.Path(t)
	watch := watchRanks(exe)
	for spec, cause := range map[string]string{
		"randread>=1kIOPS@1": "no randread phase",
		"write>=1GB/s@8":     "no point at 8 threads",
		"write>=1GB@1":       "unit",
	} {
		_, stderr, code := run(t, append(args, "--expect", spec, "--output", filepath.Join(out, "never.json"))...)
		if code != 2 || !strings.Contains(stderr, cause) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("--expect %s: exit %d, stderr %q: want 2 and %q on one line", spec, code, stderr, cause)
		}
	}
	if pids := watch.Stop(); len(pids) != 0 {
		t.Errorf("rank processes started for a refused --expect: %v", pids)
	}
}

// report --expect judges the first study, prints the verdicts and puts
// them at the top of the page.
func TestReportExpect(t *testing.T) {
	page := filepath.Join(t.TempDir(), "acc.html")
	stdout, stderr, code := run(t, "report", fixture("gen2.json"), "-o", page, "--expect", "write>=2GB/s@1,read>=3GB/s@1")
	if code != 3 || !strings.Contains(stdout, "expectations: 1 passed, 1 failed") {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), `id="acceptance"`) || !strings.Contains(string(html), "read&gt;=3GB/s@1") {
		t.Error("the page has no acceptance table")
	}
}
