package local

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"ioswarm/nodefacts"
	"ioswarm/test/harness"
)

// planRun runs the binary with env added to its environment (which the
// local ranks inherit).
func planRun(t *testing.T, env []string, args ...string) harness.Outcome {
	t.Helper()
	cmd := exec.Command(bin.Path(t), args...)
	cmd.Env = append(os.Environ(), env...)
	return harness.RunCmd(t, cmd, 2*time.Minute)
}

// wantRefused checks a usage error (exit 2) whose last line names every
// piece of want, and that nothing was written in dir.
func wantRefused(t *testing.T, o harness.Outcome, dir string, want ...string) {
	t.Helper()
	if o.Code != 2 {
		t.Fatalf("exit %d, want 2 (refused before start); stderr:\n%s", o.Code, o.Stderr)
	}
	last := lastLine(o.Stderr)
	for _, w := range want {
		if !strings.Contains(last, w) {
			t.Errorf("error lacks %q: %s", w, last)
		}
	}
	if strings.Contains(o.Stderr, "write: starting") || strings.Contains(o.Stderr, "mdcreate: starting") {
		t.Errorf("a phase started before the refusal:\n%s", o.Stderr)
	}
	harness.WaitNoProcesses(t, bin.Path(t), 10*time.Second)
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("files written before the refusal: %v", left)
	}
}

// A node whose available memory (faked through the test hook the ranks
// read) is below the job's memory plan refuses the job before start,
// naming the node, the need and what it has.
func TestPlanRefusesMemoryOverAvailable(t *testing.T) {
	dir := t.TempDir()
	host, _ := os.Hostname()
	env := []string{nodefacts.MemAvailableEnv + "=" + strconv.Itoa(16<<20)}
	o := planRun(t, env, "run", "--local-ranks", "2", "--threads", "4", "--dir", dir, "--total", "64MiB", "--block", "1MiB")
	wantRefused(t, o, dir, "host "+host, "of memory", "16.0 MiB available", nodefacts.MemAvailableEnv, "--ignore-memory")
}

// The 64-thread io_uring job at depth 4096 of 1 MiB records, which grew a
// rank to 13 GB until the kernel's OOM killer took it, is refused up
// front: its buffers alone are 256 GiB.
func TestPlanRefusesTheThirteenGigabyteRank(t *testing.T) {
	dir := t.TempDir()
	o := planRun(t, nil, "run", "--threads", "64", "--engine", "io_uring", "--iodepth", "4096", "--block", "1MiB",
		"--total", "1GiB", "--dir", dir)
	wantRefused(t, o, dir, "rank 0", "256 GiB of memory", "64 threads × (1 + 4096 in flight) × 1.00 MiB", "--iodepth")
}

// A filesystem smaller than the job (an 8 MiB tmpfs) refuses it before
// any file is written, naming the node, what the job writes and what is
// free; --ignore-space lets the same job start (and meet ENOSPC).
func TestPlanRefusesJobLargerThanFilesystem(t *testing.T) {
	dir := smallTmpfs(t, "size=8m")
	host, _ := os.Hostname()
	args := []string{"run", "--local-ranks", "2", "--threads", "2", "--dir", dir, "--total", "32MiB", "--block", "1MiB"}
	o := planRun(t, nil, args...)
	wantRefused(t, o, dir, "host "+host, "--dir "+dir, "tmpfs", "has 8.00 MiB free", "writes 32.0 MiB", "--ignore-space")
	if strings.Contains(o.Stderr, "rank 1") {
		t.Errorf("two ranks on one tmpfs should be named as one filesystem's: %s", lastLine(o.Stderr))
	}

	o = planRun(t, nil, append(args, "--ignore-space")...)
	if o.Code != 1 || !strings.Contains(lastLine(o.Stderr), "no space left on device") {
		t.Fatalf("with --ignore-space: exit %d, want 1 at ENOSPC; stderr:\n%s", o.Code, o.Stderr)
	}
	harness.WaitNoProcesses(t, bin.Path(t), 10*time.Second)
}

// A metadata job with more files than the filesystem has inodes is
// refused before it creates any.
func TestPlanRefusesMoreFilesThanInodes(t *testing.T) {
	dir := smallTmpfs(t, "size=64m,nr_inodes=400")
	o := planRun(t, nil, "run", "--local-ranks", "2", "--threads", "2", "--dir", dir,
		"--phases", "mdcreate,mddelete", "--files-per-thread", "1000")
	wantRefused(t, o, dir, "inodes free", "files and directories", "--files-per-thread")
}

// A sweep checks its largest point before its first: 6 MiB a thread fits
// an 8 MiB tmpfs at one thread, not at two, so the sweep is refused
// before the one-thread point writes anything.
func TestPlanSweepChecksItsLargestPoint(t *testing.T) {
	dir := smallTmpfs(t, "size=8m")
	o := planRun(t, nil, "sweep", "--local-ranks", "1", "--threads", "1,2", "--dir", dir,
		"--file-size", "6MiB", "--block", "1MiB")
	wantRefused(t, o, dir, "sweep point of 2 threads", "has 8.00 MiB free", "writes 12.0 MiB")
	if strings.TrimSpace(o.Stdout) != "" {
		t.Errorf("a point was reported:\n%s", o.Stdout)
	}
}

// Started past its memory plan (--ignore-memory on a node faked to have
// 40 MiB), a rank stops itself at its cap before mapping buffers that
// would pass it, with an error naming the host, the rank and the cap,
// instead of growing until the kernel's OOM killer ends it.
func TestPlanRankStopsAtItsMemoryCap(t *testing.T) {
	dir := t.TempDir()
	host, _ := os.Hostname()
	env := []string{nodefacts.MemAvailableEnv + "=" + strconv.Itoa(40<<20)}
	args := []string{"run", "--threads", "4", "--dir", dir, "--total", "64MiB", "--block", "16MiB"}
	wantRefused(t, planRun(t, env, args...), dir, "of memory", "40.0 MiB available")
	o := planRun(t, env, append(args, "--ignore-memory")...)
	if o.Code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", o.Code, o.Stderr)
	}
	last := lastLine(o.Stderr)
	for _, w := range []string{"host " + host + " rank 0", "rank memory", "write's buffers for 4 threads (64 MiB)", "past its cap of 40 MiB"} {
		if !strings.Contains(last, w) {
			t.Errorf("error lacks %q: %s", w, last)
		}
	}
	harness.WaitNoProcesses(t, bin.Path(t), 10*time.Second)
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("left after the rank stopped: %v", left)
	}
}

// A rank killed by SIGKILL (as the kernel's OOM killer would) ends the
// job with an error naming the signal and memory as a likely cause,
// where it said only "signal: killed".
func TestPlanKilledRankNamesSignalAndMemory(t *testing.T) {
	dir := t.TempDir()
	cmd, stderr := startLong(t, dir)
	exe := bin.Path(t)
	victim := 0
	for _, pid := range harness.ProcessesOf(t, exe) {
		if pid != cmd.Process.Pid && strings.Contains(strings.Join(harness.Args(pid), " "), "--rank 1 ") {
			victim = pid
		}
	}
	if victim == 0 {
		t.Fatal("rank 1 process not found")
	}
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	code, _ := harness.WaitExit(t, cmd, 30*time.Second)
	last := lastLine(stderr.String())
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr)
	}
	t.Logf("the job's error: %s", last)
	for _, w := range []string{"rank 1", "killed by signal SIGKILL", "memory may be the cause"} {
		if !strings.Contains(last, w) {
			t.Errorf("error lacks %q: %s", w, last)
		}
	}
	harness.WaitNoProcesses(t, exe, 10*time.Second)
}

// `ioswarm iozone` with -l/-u runs a launch per thread count: the first
// checks the largest's plan too, so 6 MiB a thread on an 8 MiB tmpfs is
// refused before the one-thread run writes anything.
func TestPlanIOzoneSeriesChecksItsLargest(t *testing.T) {
	dir := smallTmpfs(t, "size=8m")
	stdout, stderr, code := runIn(t, dir, "iozone", "-i0", "-l", "1", "-u", "2", "-s", "6m", "-r", "1m")
	wantRefused(t, harness.Outcome{Stdout: stdout, Stderr: stderr, Code: code}, dir,
		"run of 2 threads", "has 8.00 MiB free", "writes 12.0 MiB")
}

// A run that fits records its plan per host: the memory estimate, the
// cap the rank held itself to, and what it wrote against what was free.
func TestPlanRecordedInResult(t *testing.T) {
	dir := t.TempDir()
	out := dir + "-result.json"
	t.Cleanup(func() { os.Remove(out) })
	o := planRun(t, nil, "run", "--local-ranks", "2", "--threads", "4", "--dir", dir, "--total", "16MiB", "--block", "1MiB",
		"--quiet", "--output", out)
	if o.Code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", o.Code, o.Stderr)
	}
	job := loadResult(t, out)
	if len(job.Hosts) != 2 {
		t.Fatalf("%d hosts in the result, want 2", len(job.Hosts))
	}
	for _, h := range job.Hosts {
		if h.MemPlan <= 0 || h.MemCap < h.MemPlan || h.MemAvailable <= 0 || h.DiskPlan != 8<<20 || h.FreeBytes <= 0 {
			t.Errorf("rank %d: plan %d cap %d available %d, disk %d of %d free; want a positive plan under its cap and 8 MiB written",
				h.Rank, h.MemPlan, h.MemCap, h.MemAvailable, h.DiskPlan, h.FreeBytes)
		}
	}
}
