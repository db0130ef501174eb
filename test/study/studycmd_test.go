package study

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"ioswarm/test/harness"
	"ioswarm/units"
)

// savedWhole is the part of a study's file these tests read.
type savedWhole struct {
	Kind     string       `json:"kind"`
	Complete bool         `json:"complete"`
	Error    string       `json:"error"`
	Plan     string       `json:"plan"`
	Sections []savedStudy `json:"sections"`
}

type sectionOf struct {
	savedStudy
	Section string `json:"section"`
}

func readWhole(path string) (savedWhole, map[string]map[int]string, error) {
	var s savedWhole
	var raw struct {
		Sections []sectionOf `json:"sections"`
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return s, nil, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, nil, err
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return s, nil, err
	}
	done := map[string]map[int]string{}
	for _, sec := range raw.Sections {
		done[sec.Section] = completePoints(sec.savedStudy)
	}
	return s, done, nil
}

func count(done map[string]map[int]string) int {
	n := 0
	for _, d := range done {
		n += len(d)
	}
	return n
}

// writePlan writes a two-section plan into dir: sequential N-N and
// random 4 KiB, each with its own aggregate, files under data.
func writePlan(t *testing.T, dir, data, seqThreads, seqTotal string) string {
	t.Helper()
	text := fmt.Sprintf(`# a study in miniature
[study]
dir = %s
block = 64KiB
drop-caches = off

[seq]
threads = %s
total = %s

[random]
threads = 1,2
total = 4MiB
rand-time = 1s
`, data, seqThreads, seqTotal)
	path := filepath.Join(dir, "mini.plan")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A two-section study runs both sections on one launch of the ranks,
// saves every point of each in one file (kind study), and `report`
// renders it, a chart per section; the same command again starts no
// rank and keeps the file.
func TestStudyTwoSections(t *testing.T) {
	dir, data := t.TempDir(), t.TempDir()
	plan := writePlan(t, dir, data, "1,2", "4MiB")
	out := filepath.Join(dir, "mini.json")
	exe := bin.Path(t)
	watch := watchRanks(exe)
	stdout, stderr, code := run(t, "study", "--plan", plan, "--local-ranks", "2", "--progress", "off")
	pids := watch.Stop()
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if len(pids) != 2 {
		t.Errorf("rank processes %v: want the 2 ranks started once for both sections", pids)
	}
	for _, want := range []string{"[seq] 64KiB records, aggregate 4MiB fixed", "[random]"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "0 of 4 points done") || !strings.Contains(stderr, "4 of 4 points done") {
		t.Errorf("no estimate up front and after the points:\n%s", stderr)
	}
	s, done, err := readWhole(out)
	if err != nil {
		t.Fatalf("the study's file (named after the plan): %v", err)
	}
	if s.Kind != "study" || !s.Complete || len(s.Sections) != 2 || len(done["seq"]) != 2 || len(done["random"]) != 2 {
		t.Fatalf("study file: kind %q complete %v, %d sections, points %v", s.Kind, s.Complete, len(s.Sections), done)
	}
	if !strings.Contains(s.Plan, "[random]\nrand-time = 1s\nthreads = 1,2\ntotal = 4MiB\n") {
		t.Errorf("the plan the file records:\n%s", s.Plan)
	}

	page := filepath.Join(dir, "mini.html")
	stdout, stderr, code = run(t, "report", out, "-o", page, "--expect", "write>=1MB/s@2,randread>=1IOPS@2")
	if code != 0 || !strings.Contains(stdout, "expectations: 2 passed, 0 failed") {
		t.Fatalf("report: exit %d: %s\n%s", code, stdout, stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Sequential N-to-N", "Random I/O", "mini seq", "mini random", "mini judged against"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if n := strings.Count(string(html), "<svg"); n != 2 {
		t.Errorf("%d charts in the report, want one per section", n)
	}

	watch = watchRanks(exe)
	_, stderr, code = run(t, "study", "--plan", plan, "--local-ranks", "2", "--progress", "off")
	if pids := watch.Stop(); code != 0 || len(pids) != 0 || !strings.Contains(stderr, "4 finished point(s) kept") {
		t.Errorf("the finished study again: exit %d, ranks %v: %s", code, pids, stderr)
	}
}

// A coordinator SIGKILLed mid-study leaves a file holding every point
// finished before it; a changed plan is refused by name, nothing run;
// the same command continues at the first missing point and keeps the
// finished ones as they were. The timeline is logged.
func TestStudyResumesAfterKill(t *testing.T) {
	dir, data := t.TempDir(), t.TempDir()
	plan := writePlan(t, dir, data, "1,2,4,8,16,32", "8MiB")
	out := filepath.Join(dir, "mini.json")
	exe := bin.Path(t)
	start := time.Now()
	logf := func(format string, args ...any) {
		t.Logf("%6.2fs  %s", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
	}
	args := []string{"study", "--plan", plan, "--local-ranks", "1", "--progress", "off"}
	cmd := exec.Command(exe, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logf("study started (pid %d): seq 1..32 threads, random 1,2", cmd.Process.Pid)
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	saved := harness.Poll(2*time.Minute, 5*time.Millisecond, func() bool {
		select {
		case <-exited:
			return true
		default:
		}
		_, done, err := readWhole(out)
		return err == nil && count(done) > 0
	})
	cmd.Process.Signal(syscall.SIGKILL)
	<-exited
	if !saved {
		t.Fatal("no point was saved before the study was killed")
	}
	before, kept, err := readWhole(out)
	if err != nil {
		t.Fatalf("the study's file after SIGKILL: %v", err)
	}
	logf("coordinator SIGKILLed; the file holds %d finished point(s): %v", count(kept), kept)
	waitRanksGone(t, exe)
	logf("its ranks have exited")
	if before.Complete || count(kept) == 0 || count(kept) == 8 {
		t.Fatalf("after the kill: complete %v, %d finished points: want an unfinished study with some", before.Complete, count(kept))
	}

	changed := writePlan(t, t.TempDir(), data, "1,2,4,8,16,32", "16MiB")
	watch := watchRanks(exe)
	_, stderr, code := run(t, "study", "--plan", changed, "--output", out, "--local-ranks", "1", "--progress", "off")
	if pids := watch.Stop(); code != 2 || !strings.Contains(stderr, "seq.total: saved 8MiB, now 16MiB") || len(pids) != 0 {
		t.Errorf("a changed plan: exit %d, ranks %v, %q", code, pids, stderr)
	}
	logf("a changed plan refused: exit %d: %s", code, strings.TrimSpace(stderr))

	_, stderr, code = run(t, args...)
	if code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, stderr)
	}
	if want := fmt.Sprintf("%d finished point(s) kept", count(kept)); !strings.Contains(stderr, want) {
		t.Errorf("the rerun does not say %q:\n%s", want, stderr)
	}
	after, done, err := readWhole(out)
	if err != nil {
		t.Fatal(err)
	}
	logf("the same command again: exit 0, %d finished point(s), complete %v", count(done), after.Complete)
	if !after.Complete || len(done["seq"]) != 6 || len(done["random"]) != 2 {
		t.Errorf("after the rerun: complete %v, points %v", after.Complete, done)
	}
	for sec, pts := range kept {
		for threads, id := range pts {
			if done[sec][threads] != id {
				t.Errorf("[%s] the point of %d threads ran again (job %s, was %s)", sec, threads, done[sec][threads], id)
			}
		}
	}
}

// A time budget shorter than a point stops the study before the next
// point (exit 4, the file saved with the point done); --resume FILE
// alone (the plan is in the file) finishes it, keeping that point.
func TestStudyTimeBudgetThenRerun(t *testing.T) {
	dir, data := t.TempDir(), t.TempDir()
	plan := writePlan(t, dir, data, "1,2", "4MiB")
	out := filepath.Join(dir, "mini.json")
	args := []string{"study", "--plan", plan, "--local-ranks", "1", "--progress", "off"}
	// 1 ns: the first point runs (nothing to estimate it by), the
	// second cannot fit what is left.
	_, stderr, code := run(t, append(args, "--time-budget", "1ns")...)
	if code != 4 || !strings.Contains(stderr, "resume") {
		t.Fatalf("budget: exit %d, %q", code, stderr)
	}
	s, done, err := readWhole(out)
	if err != nil {
		t.Fatal(err)
	}
	if s.Complete || count(done) != 1 || !strings.Contains(s.Error, "time budget") {
		t.Fatalf("after the budget: complete %v, points %v, error %q", s.Complete, done, s.Error)
	}
	first := done["seq"][1]
	if _, stderr, code = run(t, "study", "--resume", out, "--local-ranks", "1", "--progress", "off"); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, stderr)
	}
	if s, done, err = readWhole(out); err != nil || !s.Complete || count(done) != 4 || done["seq"][1] != first {
		t.Errorf("after the rerun: complete %v, points %v (first point was %s), %v", s.Complete, done, first, err)
	}
}

// --total auto is settled once on the nodes for the whole section, in
// whole records at each of its thread counts, and every point of every
// section is held against the nodes' memory before any runs: a node too
// small (faked) stops the study naming the section's point, no file
// written. (A real auto total is twice this machine's memory: too big
// to write in a test.)
func TestStudyChecksEveryPointFirst(t *testing.T) {
	dir, data := t.TempDir(), t.TempDir()
	out := filepath.Join(dir, "auto.json")
	cmd := exec.Command(bin.Path(t), "study", "--seq", "1,2,4", "--seq-total", "auto", "--random", "1,2",
		"--random-total", "8MiB", "--block", "1MiB", "--dir", data, "--output", out, "--progress", "off", "--local-ranks", "2")
	cmd.Env = append(os.Environ(), "IOSWARM_TEST_MEM_AVAILABLE=1")
	o := harness.RunCmd(t, cmd, 3*time.Minute)
	if o.Code != 2 || !strings.Contains(o.Stderr, "[seq] sweep point of 1 thread") || !strings.Contains(o.Stderr, "memory") {
		t.Fatalf("exit %d: %s", o.Code, o.Stderr)
	}
	_, line, found := strings.Cut(o.Stderr, "[seq] --total auto: ")
	word, _, _ := strings.Cut(line, " ")
	total, err := units.ParseSize(word)
	if !found || err != nil || total <= 0 {
		t.Fatalf("no settled total in %q: %v", o.Stderr, err)
	}
	if total%(4<<20) != 0 {
		t.Errorf("--total auto %d is not whole 1 MiB records at 4 threads", total)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a study stopped before its first point wrote its file")
	}
}

// A study's report in a real browser: both sections' charts drawn (the
// sequential write and read lines, the random read line), nothing
// fetched, no console error.
func TestStudyReportInBrowser(t *testing.T) {
	exe := chromium(t)
	dir, data := t.TempDir(), t.TempDir()
	plan := writePlan(t, dir, data, "1,2", "4MiB")
	if _, stderr, code := run(t, "study", "--plan", plan, "--local-ranks", "1", "--progress", "off"); code != 0 {
		t.Fatalf("study: exit %d: %s", code, stderr)
	}
	page := filepath.Join(dir, "mini.html")
	if _, stderr, code := run(t, "report", filepath.Join(dir, "mini.json"), "-o", page); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	shot := filepath.Join(dir, "shot.png")
	netlog, stderr := browse(t, exe, page, "--window-size=1200,5200", "--screenshot="+shot)
	if strings.Contains(stderr, "CONSOLE") || strings.Contains(stderr, "Uncaught") {
		t.Errorf("the browser said:\n%s", stderr)
	}
	checkNoNetwork(t, netlog)
	checkChartsOnScreen(t, shot)
}
