package study

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"ioswarm/figures"
	"ioswarm/report"
	"ioswarm/study"
	"ioswarm/test/harness"
)

// The whole study on this machine: 1..4 threads over 2 local ranks
// started once; a table row per point, one JSON file with the 3 points
// in full, CSV rows per phase per point, and the chart in both formats.
func TestSweepOneToFourThreads(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	result := filepath.Join(out, "study.json")
	csvPath := filepath.Join(out, "study.csv")
	exe := bin.Path(t)
	watch := watchRanks(exe)
	stdout, stderr, code := run(t, "sweep", "--local-ranks", "2", "--threads", "1..4", "--total", "16MiB",
		"--block", "1MiB", "--dir", dir, "--output", result, "--csv", csvPath, "--label", "local-test",
		"--chart-size", "640x480", "--progress", "off")
	pids := watch.Stop()
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if len(pids) != 2 {
		t.Errorf("saw rank processes %v; a sweep must start its 2 ranks once for all points", pids)
	}
	checkSweepJSON(t, result)
	checkSweepCSV(t, csvPath)
	checkCharts(t, filepath.Join(out, "study"), 640, 480, "1MiB records", "aggregate 16MiB fixed", "local-test")
	for _, n := range []string{"1", "2", "4"} {
		// The compact table: GB/s of write and read.
		if !regexp.MustCompile(`(?m)^\s+` + n + `(\s+\d+\.\d{3}){2}$`).MatchString(stdout) {
			t.Errorf("no table row for %s threads:\n%s", n, stdout)
		}
	}
	if !regexp.MustCompile(`(?m)^outside the timed phases: launch \d+\.\d\d s, 3 points \d+\.\d\d s \(median \d+\.\d\d s\)$`).MatchString(stdout) {
		t.Errorf("no line for the time outside the timed phases:\n%s", stdout)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if utf8.RuneCountInString(line) > 80 {
			t.Errorf("a line over 80 columns: %q", line)
		}
	}
	if left := harness.DirEntries(t, dir); len(left) != 0 {
		t.Errorf("files left in --dir: %v", left)
	}
}

func checkSweepJSON(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"ioswarm_version", "kind", "label", "points"} {
		if _, ok := top[k]; !ok {
			t.Errorf("sweep file lacks %q", k)
		}
	}
	s, err := study.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Kind != "sweep" || s.Label != "local-test" || !s.Complete || len(s.Points) != 3 {
		t.Fatalf("kind %q label %q complete %v points %d", s.Kind, s.Label, s.Complete, len(s.Points))
	}
	if s.LaunchNS <= 0 {
		t.Errorf("launch_ns %d", s.LaunchNS)
	}
	for i, n := range []int{1, 2, 4} {
		p := s.Points[i]
		if p.ElapsedNS <= 0 || p.OutsidePhasesNS <= 0 || p.OutsidePhasesNS >= p.ElapsedNS {
			t.Errorf("point %d: elapsed %d ns, outside the phases %d ns", n, p.ElapsedNS, p.OutsidePhasesNS)
		}
		if p.Config.Threads != n || p.Config.Total != 16<<20 || p.Config.FileSize != int64(16<<20/n) {
			t.Errorf("point %d: threads %d total %d file size %d", i, p.Config.Threads, p.Config.Total, p.Config.FileSize)
		}
		if !p.Complete || len(p.Phases) != 2 || len(p.Hosts) != min(n, 2) || p.Label != "local-test" {
			t.Errorf("point %d: complete %v, %d phases, %d hosts, label %q", i, p.Complete, len(p.Phases), len(p.Hosts), p.Label)
		}
		if err := figures.Check(p); err != nil {
			t.Errorf("point %d: figures do not recompute: %v", i, err)
		}
		// At 1 thread one of the two ranks has none and is not released:
		// the release skew spans the released ranks only (it once counted
		// the idle rank's zero moment: seconds since boot).
		for _, ph := range p.Phases {
			if ph.ReleaseSkewNS < 0 || ph.ReleaseSkewNS > int64(time.Second) {
				t.Errorf("point %d %s: release skew %v on one machine; want under a second",
					n, ph.Name, time.Duration(ph.ReleaseSkewNS))
			}
		}
	}
}

func checkSweepCSV(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+3*2 || strings.Join(rows[0], ",") != strings.Join(report.CSVHeader(), ",") {
		t.Fatalf("%d rows (want header + 6), header %v", len(rows), rows[0])
	}
	want := []string{"1 write", "1 read", "2 write", "2 read", "4 write", "4 read"}
	complete := slices.Index(rows[0], "complete")
	for i, r := range rows[1:] {
		if got := r[6] + " " + r[10]; got != want[i] || r[0] != "local-test" || r[complete] != "true" {
			t.Errorf("row %d: %q label %q complete %q, want %q", i+1, got, r[0], r[complete], want[i])
		}
	}
}

// checkCharts checks both chart files: the PNG decodes to w×h and the
// SVG carries the axis labels and the given texts.
func checkCharts(t *testing.T, base string, w, h int, texts ...string) {
	t.Helper()
	f, err := os.Open(base + ".png")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s.png does not decode: %v", base, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("PNG is %dx%d, want %dx%d", b.Dx(), b.Dy(), w, h)
	}
	svg, err := os.ReadFile(base + ".svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range append([]string{"threads (log2 scale)", "bandwidth, GB/s"}, texts...) {
		if !strings.Contains(string(svg), want) {
			t.Errorf("SVG lacks the label %q", want)
		}
	}
}

// A point that cannot run stops the sweep before anything starts: exit
// code 2, the point named, no rank process, no file written.
func TestSweepBadPointFailsUpFront(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	exe := bin.Path(t)
	watch := watchRanks(exe)
	_, stderr, code := run(t, "sweep", "--local-ranks", "2", "--threads", "1..8", "--total", "4MiB",
		"--block", "1MiB", "--dir", dir, "--output", filepath.Join(out, "s.json"))
	pids := watch.Stop()
	if code != 2 || !strings.Contains(stderr, "8 threads") {
		t.Fatalf("exit %d, stderr %q: want 2 and the 8-thread point named", code, stderr)
	}
	if len(pids) != 0 {
		t.Errorf("rank processes started: %v", pids)
	}
	if left := harness.DirEntries(t, out); len(left) != 0 {
		t.Errorf("files written: %v", left)
	}
}

func TestSweepBadThreadList(t *testing.T) {
	for _, list := range []string{"1..x", "8..2", "0", "1,1"} {
		_, stderr, code := run(t, "sweep", "--threads", list, "--dir", t.TempDir())
		if code != 2 || !strings.Contains(stderr, `--threads "`+list+`"`) {
			t.Errorf("--threads %s: exit %d, stderr %q", list, code, stderr)
		}
	}
}

// run --csv appends: two runs give one header and a row per phase each.
func TestRunCSVAppends(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(t.TempDir(), "runs.csv")
	for i := 0; i < 2; i++ {
		_, stderr, code := run(t, "run", "--local-ranks", "1", "--threads", "2", "--total", "4MiB", "--block", "1MiB",
			"--dir", dir, "--csv", path, "--progress", "off", "--label", "r")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 || rows[0][0] != "label" {
		t.Fatalf("%d rows, first %v; want header + 4", len(rows), rows[0])
	}
	if strings.Count(string(data), "label,timestamp") != 1 {
		t.Errorf("header written more than once")
	}
	if rows[1][10] != "write" || rows[4][10] != "read" || rows[3][2] == rows[1][2] {
		t.Errorf("rows: %v", rows[1:])
	}
}

// Ctrl-C in the middle of a sweep keeps what was measured: the points so
// far in the JSON file (marked incomplete) and the CSV, exit code 130,
// no rank left running and no file left in --dir.
func TestSweepInterruptedKeepsPoints(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	result, csvPath := filepath.Join(out, "s.json"), filepath.Join(out, "s.csv")
	exe := bin.Path(t)
	cmd := exec.Command(exe, "sweep", "--local-ranks", "2", "--threads", "1,2,4,8,16,32", "--total", "2GiB",
		"--block", "1MiB", "--dir", dir, "--output", result, "--csv", csvPath, "--progress", "off")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once the first point's rows are in the CSV.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		data, _ := os.ReadFile(csvPath)
		if strings.Count(string(data), "\n") >= 3 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("first point never finished: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130; stderr: %s", err, stderr.String())
	}
	s, err := study.Load(result)
	if err != nil {
		t.Fatal(err)
	}
	if s.Complete || s.Error == "" || len(s.Points) < 1 || !s.Points[0].Complete || len(s.Points) == 6 {
		t.Errorf("complete %v error %q, %d points", s.Complete, s.Error, len(s.Points))
	}
	if _, err := os.Stat(filepath.Join(out, "s.png")); err != nil {
		t.Errorf("no chart for the measured points: %v", err)
	}
	waitNoRanks(t, exe)
	if left := harness.DirEntries(t, dir); len(left) != 0 {
		t.Errorf("files left in --dir: %v", left)
	}
}

// A sweep over queue depth at one thread count: a point per depth, the
// depth in the table and the file, the chart along depth, and compare
// matches the points by depth. It prints the full table (--details):
// GB/s, first-done, sum of rates and IOPS of the random read.
func TestSweepOverDepth(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	result := filepath.Join(out, "qd.json")
	stdout, stderr, code := run(t, "sweep", "--threads", "2", "--iodepth", "1,8", "--engine", "io_uring", "--direct",
		"--phases", "randread", "--total", "16MiB", "--block", "1MiB", "--rand-time", "1s", "--dir", dir,
		"--output", result, "--chart-size", "640x480", "--progress", "off", "--details")
	if code != 0 {
		if strings.Contains(stderr, "io_uring unavailable") {
			t.Skipf("io_uring unavailable: %s", stderr)
		}
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "iodepth 1, 8") || !regexp.MustCompile(`(?m)^\s+2\s+8(\s+\d+\.\d{3}){3}\s+\d+$`).MatchString(stdout) {
		t.Errorf("table lacks the depth:\n%s", stdout)
	}
	s, err := study.Load(result)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Points) != 2 || s.Points[1].Config.IODepth != 8 || len(s.IODepths) != 2 {
		t.Fatalf("%d points, depths %v", len(s.Points), s.IODepths)
	}
	if p := s.Points[1].Phases[0]; p.IODepthAchievedMax != 8 {
		t.Errorf("depth-8 point achieved max %d", p.IODepthAchievedMax)
	}
	svg, err := os.ReadFile(filepath.Join(out, "qd.svg"))
	if err != nil || !strings.Contains(string(svg), "iodepth per thread") {
		t.Errorf("chart not along depth (%v)", err)
	}
	cmp, stderr, code := run(t, "compare", "--no-chart", result, result)
	if code != 0 || !strings.Contains(cmp, "iodepth") || !regexp.MustCompile(`(?m)^\s*randread\s+2\s+8\s`).MatchString(cmp) {
		t.Errorf("compare of depth sweeps: exit %d\n%s\n%s", code, cmp, stderr)
	}
}
