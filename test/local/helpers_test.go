package local

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"ioswarm/internal/testio"
	"ioswarm/result"
	"ioswarm/test/harness"
)

// run executes the binary to completion and returns stdout, stderr and
// the exit code.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	o := harness.RunCmd(t, exec.Command(bin.Path(t), args...), 2*time.Minute)
	return o.Stdout, o.Stderr, o.Code
}

// startLong starts a run that lasts long enough to be interrupted and
// waits until its job directory exists (ranks have joined and set up).
func startLong(t *testing.T, dir string, extra ...string) (*exec.Cmd, *testio.LockedBuffer) {
	t.Helper()
	args := append([]string{"run", "--local-ranks", "2", "--threads", "4", "--dir", dir,
		"--total", "64MiB", "--block", "1MiB", "--iterations", "1000", "--drop-caches", "off"}, extra...)
	cmd := exec.Command(bin.Path(t), args...)
	return cmd, harness.StartJob(t, cmd, dir, 30*time.Second)
}

func loadResult(t *testing.T, path string) *result.Job {
	t.Helper()
	return harness.LoadResult(t, path)
}

// dirEntries lists what is left in dir.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	return harness.DirEntries(t, dir)
}

// runIn is run with the working directory dir, where IOzone command
// lines write.
func runIn(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin.Path(t), args...)
	cmd.Dir = dir
	o := harness.RunCmd(t, cmd, 2*time.Minute)
	return o.Stdout, o.Stderr, o.Code
}

// smallTmpfs mounts a tmpfs with the given options (a size, an inode
// count) on a temporary directory for the test, so that a run can be made
// to fill it; the test is skipped without root. It is unmounted (lazily)
// when the test ends.
func smallTmpfs(t *testing.T, options string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, options); err != nil {
		t.Skipf("cannot mount tmpfs: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}
