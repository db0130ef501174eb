package local

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/figures"
	"ioswarm/test/harness"
)

// One shared file from three threads on two ranks, segmented and strided,
// on both engines: every phase verifies, every thread's record names the
// shared file, the result says layout and pattern, the figures recompute,
// and nothing is left.
func TestSharedFileLayouts(t *testing.T) {
	for _, c := range []struct{ pattern, scope, engine string }{
		{"segmented", "segment", "sync"}, {"strided", "file", "sync"}, {"strided", "segment", "io_uring"},
	} {
		dir := t.TempDir()
		out := filepath.Join(t.TempDir(), "shared.json")
		args := []string{"run", "--local-ranks", "2", "--threads", "3", "--dir", dir, "--total", "12MiB",
			"--block", "1MiB", "--layout", "shared", "--pattern", c.pattern, "--rand-scope", c.scope,
			"--phases", "write,read,randwrite,randread", "--verify", "--rand-time", "1s", "--output", out,
			"--iterations", "2", "--engine", c.engine}
		if c.engine == "io_uring" {
			args = append(args, "--iodepth", "4")
		}
		_, stderr, code := run(t, args...)
		if code != 0 {
			if strings.Contains(stderr, "io_uring") && c.engine == "io_uring" {
				t.Logf("io_uring unavailable here: %s", lastLine(stderr))
				continue
			}
			t.Fatalf("%+v: exit %d\n%s", c, code, stderr)
		}
		job := loadResult(t, out)
		if err := figures.Check(job); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
		if job.Config.Layout != "shared" || job.Config.Pattern.String() != c.pattern || job.Config.RandScope.String() != c.scope {
			t.Errorf("config layout %q pattern %q scope %q", job.Config.Layout, job.Config.Pattern, job.Config.RandScope)
		}
		for _, p := range job.Phases {
			if !p.Verified && (p.Name == "read" || p.Name == "randread") {
				t.Errorf("%s not verified", p.Name)
			}
			for _, th := range p.Threads {
				if filepath.Base(th.File) != "shared.dat" {
					t.Errorf("%+v %s: thread %d used %s", c, p.Name, th.Thread, th.File)
				}
				if p.Name == "write" && th.Bytes != 4<<20 {
					t.Errorf("%+v write: thread %d wrote %d bytes, want its 4 MiB part", c, th.Thread, th.Bytes)
				}
			}
		}
		if left := dirEntries(t, dir); len(left) != 0 {
			t.Errorf("%+v: left %v", c, left)
		}
	}
}

// A shared file kept by one job is read by another with --reuse; a job
// asking for another pattern is refused before anything runs.
func TestSharedFileReuseChecksLayout(t *testing.T) {
	dir := t.TempDir()
	base := []string{"run", "--threads", "2", "--dir", dir, "--total", "4MiB", "--block", "1MiB", "--layout", "shared"}
	if _, stderr, code := run(t, append(base, "--pattern", "strided", "--phases", "write", "--keep")...); code != 0 {
		t.Fatalf("keep: exit %d\n%s", code, stderr)
	}
	_, stderr, code := run(t, append(base, "--pattern", "segmented", "--phases", "read", "--reuse", "latest")...)
	if code != 2 || !strings.Contains(stderr, "--pattern strided, this job asks for --pattern segmented") {
		t.Errorf("reuse with another pattern: exit %d\n%s", code, stderr)
	}
	_, stderr, code = run(t, append(base, "--pattern", "strided", "--phases", "read", "--reuse", "latest", "--verify")...)
	if code != 0 {
		t.Fatalf("reuse: exit %d\n%s", code, stderr)
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("left after the reusing job: %v", left)
	}
}

// The metadata phases, per-thread and shared directory, on two ranks:
// counts exact (files × threads operations, one latency each), figures
// recomputed, no file or directory left.
func TestMetadataPhases(t *testing.T) {
	for _, mddir := range []string{"per-thread", "shared"} {
		dir := t.TempDir()
		out := filepath.Join(t.TempDir(), "md.json")
		_, stderr, code := run(t, "run", "--local-ranks", "2", "--threads", "3", "--dir", dir,
			"--phases", "mdcreate,mdstat,mdread,mddelete", "--files-per-thread", "300", "--md-dir", mddir,
			"--md-size", "3901", "--verify", "--iterations", "2", "--output", out)
		if code != 0 {
			t.Fatalf("--md-dir %s: exit %d\n%s", mddir, code, stderr)
		}
		job := loadResult(t, out)
		if err := figures.Check(job); err != nil {
			t.Errorf("--md-dir %s: %v", mddir, err)
		}
		if len(job.Phases) != 8 || job.Config.FilesPerThread != 300 || job.Config.MDDir.String() != mddir || job.Config.MDSize != 3901 {
			t.Fatalf("%d phases, config %+v", len(job.Phases), job.Config)
		}
		for _, p := range job.Phases {
			var count int64
			for _, c := range p.Histogram.Counts {
				count += c
			}
			wantBytes := int64(0)
			if p.Name == "mdcreate" || p.Name == "mdread" {
				wantBytes = 900 * 3901
			}
			if p.Ops != 900 || count != 900 || p.Bytes != wantBytes || p.OpsPerSec <= 0 || p.ThreadOpsPerSec == nil {
				t.Errorf("--md-dir %s %s: %d ops, %d latencies, %d bytes, %g ops/s; want 900, 900, %d",
					mddir, p.Name, p.Ops, count, p.Bytes, p.OpsPerSec, wantBytes)
			}
		}
		if left := dirEntries(t, dir); len(left) != 0 {
			t.Errorf("--md-dir %s: left %v", mddir, left)
		}
	}
}

// A filesystem that runs out of inodes mid-create (a tmpfs with room for
// a few hundred) fails the run naming rank, thread and the file; every
// metadata file and directory made before is removed. (--ignore-space
// starts the job the resource plan would refuse.)
func TestMetadataCreateOutOfInodes(t *testing.T) {
	dir := smallTmpfs(t, "size=64m,nr_inodes=400")
	o := harness.RunCmd(t, exec.Command(bin.Path(t), "run", "--local-ranks", "2", "--threads", "2",
		"--dir", dir, "--phases", "mdcreate,mddelete", "--files-per-thread", "1000", "--ignore-space"), time.Minute)
	if o.Code != 1 {
		t.Fatalf("want exit 1, got %d; stderr:\n%s", o.Code, o.Stderr)
	}
	last := lastLine(o.Stderr)
	for _, want := range []string{"rank ", "thread ", "mdcreate " + dir + "/ioswarm-", "/md-t", "/f", "no space left on device"} {
		if !strings.Contains(last, want) {
			t.Errorf("error lacks %q: %s", want, last)
		}
	}
	harness.WaitNoProcesses(t, bin.Path(t), harness.Leftover)
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Fatalf("left after the failed create: %v", left)
	}
}
