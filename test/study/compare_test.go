package study

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// compare on the committed results: B's 1-thread point is exactly 1.24 ×
// A's and prints +24.0%; the chart lands where --chart says.
func TestCompareCommittedResults(t *testing.T) {
	base := filepath.Join(t.TempDir(), "cmp")
	stdout, stderr, code := run(t, "compare", "--chart", base, "--chart-size", "800x500",
		fixture("gen1.json"), fixture("gen2.json"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`(?m)^\s+write\s+1\s+GB/s\s+1\.691\s+2\.097\s+\+24\.0%`).MatchString(stdout) {
		t.Errorf("no +24.0%% for write at 1 thread:\n%s", stdout)
	}
	if !strings.Contains(stdout, "A  gen1") || !strings.Contains(stdout, "B  gen2") {
		t.Errorf("systems not named by their labels:\n%s", stdout)
	}
	checkCharts(t, base, 800, 500, "8MiB records", "aggregate 800MiB fixed")
	svg, _ := os.ReadFile(base + ".svg")
	if !strings.Contains(string(svg), "gen1 vs gen2") {
		t.Errorf("chart title does not name both systems")
	}
}

// Without --chart the comparison chart goes next to A; unlabelled files
// are named by their file names.
func TestCompareDefaultChartAndNames(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"gen1.json", "gen2.json"} {
		data, err := os.ReadFile(fixture(n))
		if err != nil {
			t.Fatal(err)
		}
		var top map[string]any
		if err := json.Unmarshal(data, &top); err != nil {
			t.Fatal(err)
		}
		top["label"] = ""
		if data, err = json.Marshal(top); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "old-"+n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout, stderr, code := run(t, "compare", filepath.Join(dir, "old-gen1.json"), filepath.Join(dir, "old-gen2.json"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "A  old-gen1:") || !strings.Contains(stdout, "B  old-gen2:") {
		t.Errorf("unlabelled systems not named by file:\n%s", stdout)
	}
	for _, ext := range []string{".svg", ".png"} {
		if _, err := os.Stat(filepath.Join(dir, "old-gen1-vs-old-gen2"+ext)); err != nil {
			t.Errorf("default chart: %v", err)
		}
	}
}

func TestCompareUsage(t *testing.T) {
	_, stderr, code := run(t, "compare", fixture("gen1.json"))
	if code != 2 || !strings.Contains(stderr, "two result files") {
		t.Errorf("one file: exit %d, %q", code, stderr)
	}
	_, stderr, code = run(t, "compare", fixture("gen1.json"), filepath.Join(t.TempDir(), "none.json"))
	if code != 2 || !strings.Contains(stderr, "none.json") {
		t.Errorf("missing file: exit %d, %q", code, stderr)
	}
}

// plot re-draws from saved files, next to the first by default.
func TestPlotRedraws(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(fixture("gen2.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "saved.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, "plot", "--chart-size", "700x400", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkCharts(t, filepath.Join(dir, "saved"), 700, 400, "ioswarm scaling study: gen2")
	if !strings.Contains(stdout, filepath.Join(dir, "saved.png")) {
		t.Errorf("plot does not say where the chart went: %q", stdout)
	}
	_, stderr, code = run(t, "plot", "--chart-size", "big", path)
	if code != 2 || !strings.Contains(stderr, `--chart-size "big"`) {
		t.Errorf("bad size: exit %d, %q", code, stderr)
	}
}
