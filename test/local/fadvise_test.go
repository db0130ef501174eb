package local

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"ioswarm/result"
	"ioswarm/test/harness"
)

// A user who is not root cannot drop the page cache: ioswarm evicts the
// job's files with posix_fadvise instead and measures, with mincore, what
// stayed. On a local disk filesystem, whose client caches only in the page
// cache, a reread of files none of whose pages stayed reaches the disk as
// surely as after drop_caches: storage, reason fadvise, and no cache
// warning or mark. Where pages cannot be evicted (another process
// holds them locked in memory) the same read is maybe-cache, resident:
// the verdict rests on what was measured, not on the eviction having been
// asked for.
func TestUnprivilegedReadsAfterFadvise(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs ioswarm as an unprivileged user, which takes root to switch to")
	}
	user := newUnprivileged(t)
	stdout, job := user.run(t, "--phases", "write,read,reread")
	fs := job.Hosts[0].FSType
	if !map[string]bool{"ext4": true, "xfs": true, "btrfs": true, "f2fs": true}[fs] {
		t.Skipf("the temporary directory is on %s; this check needs a local disk filesystem (ext4, xfs, btrfs, f2fs)", fs)
	}
	for _, p := range job.Phases {
		if p.Name == "write" {
			continue
		}
		if p.CacheDrop != "fadvise" {
			t.Errorf("%s: cache_drop %q, want fadvise (not root)", p.Name, p.CacheDrop)
		}
		if p.CacheVerdict != result.VerdictStorage || len(p.CacheVerdicts) != 1 || p.CacheVerdicts[0].Reason != "fadvise" {
			t.Errorf("%s: verdict %q %+v, want storage by fadvise", p.Name, p.CacheVerdict, p.CacheVerdicts)
		}
		if len(p.ResidentByHost) != 1 || p.ResidentByHost[0].Pages != 8*1024*1024/int64(os.Getpagesize()) {
			t.Errorf("%s: resident_by_host %+v, want the 8 MiB the node read counted", p.Name, p.ResidentByHost)
		}
		if p.CacheGuard == nil || p.CacheGuard.Warned {
			t.Errorf("%s: cache guard %+v warned, though every node's read was shown cold", p.Name, p.CacheGuard)
		}
		// A "!" may still mark the phase for skewed starts on a busy
		// machine; the cache's own legend line must not be there.
		if strings.Contains(stdout, p.Name+" 1: may be a cache figure") {
			t.Errorf("%s: marked as a cache figure:\n%s", p.Name, stdout)
		}
	}
	if w := strings.Join(job.Warnings, "\n"); strings.Contains(w, "cache verdict") || strings.Contains(w, "is under twice") {
		t.Errorf("cache warnings for reads shown cold:\n%s", w)
	}

	// The same files kept, one of the two locked in memory by this
	// process, read again by the user: fadvise cannot evict it.
	_, kept := user.run(t, "--phases", "write", "--keep")
	locked := filepath.Join(user.dir, "ioswarm-"+kept.JobID, "t0.dat")
	unlock := lockInMemory(t, locked)
	defer unlock()
	_, reuse := user.run(t, "--phases", "read", "--reuse", kept.JobID)
	p := reuse.Phases[0]
	if p.CacheDrop != "fadvise" || p.CacheVerdict != result.VerdictMaybeCache || len(p.CacheVerdicts) != 1 ||
		p.CacheVerdicts[0].Reason != "resident" || p.ResidentFraction < 0.4 {
		t.Errorf("read with %s locked in memory: drop %q, verdict %q %+v, resident %.2f; want maybe-cache, resident, about half",
			locked, p.CacheDrop, p.CacheVerdict, p.CacheVerdicts, p.ResidentFraction)
	}
}

// unprivileged runs the binary as nobody, in a directory of its own.
type unprivileged struct {
	bin, dir string
}

// newUnprivileged copies the binary where nobody may run it (the build's
// directory is root's alone) and makes the directory the runs write in.
func newUnprivileged(t *testing.T) unprivileged {
	t.Helper()
	top := diskDir(t)
	u := unprivileged{bin: filepath.Join(top, "ioswarm"), dir: filepath.Join(top, "work")}
	data, err := os.ReadFile(bin.Path(t))
	if err == nil {
		err = os.WriteFile(u.bin, data, 0o755)
	}
	if err == nil {
		err = os.Chmod(top, 0o755)
	}
	if err == nil {
		err = os.Mkdir(u.dir, 0o755)
	}
	if err == nil {
		err = os.Chown(u.dir, nobodyUID, nobodyUID)
	}
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// run runs ioswarm run as nobody on 8 MiB in two ranks, and returns its
// stdout and result.
func (u unprivileged) run(t *testing.T, args ...string) (string, *result.Job) {
	t.Helper()
	out := filepath.Join(u.dir, "result.json")
	os.Remove(out)
	cmd := exec.Command(u.bin, append([]string{"run", "--dir", u.dir, "--local-ranks", "2", "--threads", "2",
		"--total", "8MiB", "--block", "1MiB", "--output", out}, args...)...)
	cmd.Dir = u.dir
	cmd.Env = []string{"HOME=" + u.dir, "PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobodyUID, Gid: nobodyUID}}
	o := harness.RunCmd(t, cmd, 2*time.Minute)
	if o.Code != 0 {
		t.Fatalf("ioswarm %s as nobody: exit %d\n%s", strings.Join(args, " "), o.Code, o.Stderr)
	}
	return o.Stdout, loadResult(t, out)
}

// lockInMemory maps path and locks its pages in memory until the returned
// function is called.
func lockInMemory(t *testing.T, path string) func() {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatalf("map %s: %v", path, err)
	}
	if err := unix.Mlock(m); err != nil {
		unix.Munmap(m)
		t.Fatalf("lock %s in memory: %v", path, err)
	}
	return func() { unix.Munlock(m); unix.Munmap(m) }
}
