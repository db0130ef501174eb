package local

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"ioswarm/figures"
)

type fileID struct {
	ino   uint64
	mtime int64
	size  int64
}

func fileIDs(t *testing.T, dir string) map[string]fileID {
	t.Helper()
	ids := map[string]fileID{}
	paths, _ := filepath.Glob(filepath.Join(dir, "t*.dat"))
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		sys := st.Sys().(*syscall.Stat_t)
		ids[filepath.Base(p)] = fileID{ino: sys.Ino, mtime: st.ModTime().UnixNano(), size: st.Size()}
	}
	return ids
}

// IOzone's two-command workflow: a kept write, then read phases that read
// (and verify) exactly those files, never writing them; a job that does
// not match the kept one, or finds a file missing, is refused and leaves
// the files alone; a reusing job without --keep removes them at the end.
func TestReuseReadsTheKeptFiles(t *testing.T) {
	dir := t.TempDir()
	common := []string{"--dir", dir, "--threads", "4", "--local-ranks", "2", "--total", "16MiB", "--block", "1MiB"}
	first := filepath.Join(t.TempDir(), "write.json")
	if _, stderr, code := run(t, append([]string{"run", "--phases", "write", "--keep", "--output", first}, common...)...); code != 0 {
		t.Fatalf("kept write: exit %d\n%s", code, stderr)
	}
	written := loadResult(t, first)
	jobDir := filepath.Join(dir, "ioswarm-"+written.JobID)
	if _, err := os.Stat(filepath.Join(jobDir, "manifest.json")); err != nil {
		t.Fatalf("the kept job left no manifest: %v", err)
	}
	before := fileIDs(t, jobDir)
	if len(before) != 4 {
		t.Fatalf("kept files: %v", before)
	}

	out := filepath.Join(t.TempDir(), "read.json")
	stdout, stderr, code := run(t, append([]string{"run", "--phases", "read,reread,randread", "--verify", "--keep",
		"--reuse", written.JobID, "--output", out}, common...)...)
	if code != 0 {
		t.Fatalf("reusing read: exit %d\n%s", code, stderr)
	}
	job := loadResult(t, out)
	if job.Config.ReusedJob != written.JobID || !strings.Contains(stdout, "those job "+written.JobID+" kept") {
		t.Errorf("reused_job %q; table:\n%s", job.Config.ReusedJob, stdout)
	}
	if err := figures.Check(job); err != nil {
		t.Errorf("figures do not recompute: %v", err)
	}
	for _, p := range job.Phases {
		if !p.Verified || p.Bytes != 16<<20 {
			t.Errorf("%s: verified %v, %d bytes", p.Name, p.Verified, p.Bytes)
		}
		for _, th := range p.Threads {
			if filepath.Dir(th.File) != jobDir {
				t.Errorf("%s thread %d read %s, not a kept file", p.Name, th.Thread, th.File)
			}
		}
	}
	if after := fileIDs(t, jobDir); !equalIDs(before, after) {
		t.Errorf("reading rewrote the kept files:\nbefore %v\nafter  %v", before, after)
	}
	if _, err := os.Stat(filepath.Join(dir, "ioswarm-"+job.JobID)); !os.IsNotExist(err) {
		t.Errorf("the reusing job made a directory of its own: %v", err)
	}

	// A different thread count is named, and nothing is touched.
	args := []string{"run", "--dir", dir, "--threads", "2", "--total", "16MiB", "--block", "1MiB", "--phases", "read", "--reuse", "latest"}
	if _, stderr, code := run(t, args...); code != 2 || !strings.Contains(stderr, "has 4 threads' files, this job runs 2") {
		t.Errorf("thread mismatch: exit %d\n%s", code, stderr)
	}
	// A missing file is named; the run fails and removes nothing.
	if err := os.Remove(filepath.Join(jobDir, "t2.dat")); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, append([]string{"run", "--phases", "read", "--reuse", jobDir}, common...)...); code != 1 || !strings.Contains(stderr, "t2.dat") {
		t.Errorf("missing kept file: exit %d\n%s", code, stderr)
	}
	if left := fileIDs(t, jobDir); len(left) != 3 {
		t.Errorf("a failed reuse removed kept files: %v", left)
	}
	// Writing phases are refused before anything starts.
	if _, stderr, code := run(t, append([]string{"run", "--phases", "write,read", "--reuse", "latest"}, common...)...); code != 2 || !strings.Contains(stderr, "phase write would write the kept files anew") {
		t.Errorf("write with --reuse: exit %d\n%s", code, stderr)
	}
	if left := fileIDs(t, jobDir); len(left) != 3 {
		t.Errorf("refused reuse touched kept files: %v", left)
	}
}

// IOzone's -i 2 on a -w run's files: a reusing job random-writes the kept
// files in place (the same inodes, the same sizes), writing each block's
// own bytes again, so a later reusing read still verifies every byte.
func TestReuseRandomWritesKeepTheFilesVerifiable(t *testing.T) {
	dir := t.TempDir()
	common := []string{"--dir", dir, "--threads", "2", "--total", "8MiB", "--block", "1MiB", "--direct"}
	first := filepath.Join(t.TempDir(), "write.json")
	if _, stderr, code := run(t, append([]string{"run", "--phases", "write", "--keep", "--output", first}, common...)...); code != 0 {
		t.Fatalf("kept write: exit %d\n%s", code, stderr)
	}
	jobDir := filepath.Join(dir, "ioswarm-"+loadResult(t, first).JobID)
	before := fileIDs(t, jobDir)
	out := filepath.Join(t.TempDir(), "randwrite.json")
	if _, stderr, code := run(t, append([]string{"run", "--phases", "randwrite", "--keep", "--reuse", "latest", "--output", out}, common...)...); code != 0 {
		t.Fatalf("reusing randwrite: exit %d\n%s", code, stderr)
	}
	rw := loadResult(t, out)
	if len(rw.Phases) != 1 || rw.Phases[0].Ops != 8<<20/4096 {
		t.Fatalf("randwrite phases %+v", rw.Phases)
	}
	for _, th := range rw.Phases[0].Threads {
		if filepath.Dir(th.File) != jobDir {
			t.Errorf("thread %d wrote %s, not a kept file", th.Thread, th.File)
		}
	}
	after := fileIDs(t, jobDir)
	for name, b := range before {
		a := after[name]
		if a.ino != b.ino || a.size != b.size || a.mtime == b.mtime {
			t.Errorf("%s: before %+v, after %+v: want the same file, written in place", name, b, a)
		}
	}
	read := filepath.Join(t.TempDir(), "read.json")
	if _, stderr, code := run(t, append([]string{"run", "--phases", "read,randread", "--verify", "--reuse", "latest", "--output", read}, common...)...); code != 0 {
		t.Fatalf("verified read after the random writes: exit %d\n%s", code, stderr)
	}
	for _, p := range loadResult(t, read).Phases {
		if !p.Verified {
			t.Errorf("%s not verified", p.Name)
		}
	}
}

// Without --keep, a job that read kept files removes them at the end,
// as IOzone's second command without -w does.
func TestReuseWithoutKeepRemovesTheFiles(t *testing.T) {
	dir := t.TempDir()
	common := []string{"--dir", dir, "--threads", "2", "--total", "8MiB", "--block", "1MiB"}
	if _, stderr, code := run(t, append([]string{"run", "--phases", "write", "--keep"}, common...)...); code != 0 {
		t.Fatalf("kept write: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := run(t, append([]string{"run", "--phases", "read", "--reuse", "latest"}, common...)...); code != 0 {
		t.Fatalf("reusing read: exit %d\n%s", code, stderr)
	}
	if left := dirEntries(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func equalIDs(a, b map[string]fileID) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
