package rank

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"ioswarm/wire"
)

// A symbolic link at the job directory's name is refused when the job
// starts and when it cleans up, and the link's target is left alone.
func TestSymlinkedJobDirIsRefused(t *testing.T) {
	dir, target := t.TempDir(), t.TempDir()
	victim := filepath.Join(target, "t0.dat")
	if err := os.WriteFile(victim, []byte("user data"), 0o644); err != nil {
		t.Fatal(err)
	}
	const id = "abcdef012345"
	jd := wire.JobDir(dir, id)
	if err := os.Symlink(target, jd); err != nil {
		t.Fatal(err)
	}
	if _, err := createJobDir(jd, 0, false); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("create over a symlink: %v", err)
	}
	if err := RemoveJobFiles(dir, id); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("cleanup through a symlink: %v", err)
	}
	if err := removeFiles(jd, []string{filepath.Join(jd, "t0.dat")}); err == nil {
		t.Error("removeFiles through a symlink succeeded")
	}
	if data, err := os.ReadFile(victim); err != nil || string(data) != "user data" {
		t.Errorf("the link's target was touched: %q, %v", data, err)
	}
}

// A link planted at a thread file's name is not written through.
func TestThreadFileLinkIsNotFollowed(t *testing.T) {
	w := testWorker(t, 64<<10)
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("user data"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, w.path); err != nil {
		t.Fatal(err)
	}
	err := w.run(testParams("write", 64<<10), testBuffer(t, w, 64<<10))
	if err == nil {
		t.Error("write through a planted link succeeded")
	}
	if data, _ := os.ReadFile(victim); string(data) != "user data" {
		t.Errorf("the link's target was written: %q", data)
	}
}

func TestRemoveFilesStaysInTheJobDir(t *testing.T) {
	jd := filepath.Join(t.TempDir(), "ioswarm-abcd")
	if _, err := createJobDir(jd, 0, false); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "keep")
	if err := os.WriteFile(outside, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := removeFiles(jd, []string{outside}); err == nil {
		t.Error("removed a file outside the job directory")
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("outside file: %v", err)
	}
}

// Files are made in the directory that was checked, through its open
// handle: a job directory swapped for a link after the check does not
// redirect a thread's write (an open by path would follow the link, since
// O_NOFOLLOW guards only the last component), and a path outside the
// directory is refused.
func TestFilesAreMadeInTheOpenedJobDir(t *testing.T) {
	dir, target := t.TempDir(), t.TempDir()
	jd := wire.JobDir(dir, "abcd1234")
	d, err := createJobDir(jd, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	moved := jd + ".moved"
	if err := os.Rename(jd, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, jd); err != nil {
		t.Fatal(err)
	}
	w := newWorker(0, wire.ThreadFile(jd, 0), 64<<10, newPattern(1, 0))
	p := testParams("write", 64<<10)
	p.dir = d
	runPhaseOn(t, w, p)
	if left, _ := os.ReadDir(target); len(left) != 0 {
		t.Errorf("the write followed the swapped-in link: %v in %s", left, target)
	}
	if st, err := os.Stat(filepath.Join(moved, "t0.dat")); err != nil || st.Size() != 64<<10 {
		t.Errorf("the checked directory lacks the file: %v", err)
	}
	if fd, err := d.open(filepath.Join(target, "t0.dat"), os.O_RDONLY, 0); err == nil || !strings.Contains(err.Error(), "not in the job directory") {
		t.Errorf("open outside the job directory: fd %d, %v", fd, err)
	}
}

// A job directory that other ranks make at the same moment on GlusterFS
// may answer ESTALE while the filesystem heals it: the mkdir is tried
// again, and a directory that then exists counts as made. Any other error,
// or ESTALE that persists, stands.
func TestMkdirSharedRetriesStaleHandles(t *testing.T) {
	calls := 0
	answers := func(errs ...error) func(string, os.FileMode) error {
		calls = 0
		return func(string, os.FileMode) error {
			calls++
			if calls <= len(errs) {
				return errs[calls-1]
			}
			return errs[len(errs)-1]
		}
	}
	if err := mkdirShared("d", answers(unix.ESTALE, unix.ESTALE, os.ErrExist)); err != nil || calls != 3 {
		t.Errorf("ESTALE twice, then exists: %v after %d calls, want made after 3", err, calls)
	}
	if err := mkdirShared("d", answers(unix.EACCES)); !errors.Is(err, unix.EACCES) || calls != 1 {
		t.Errorf("EACCES: %v after %d calls, want EACCES at once", err, calls)
	}
	if err := mkdirShared("d", answers(unix.ESTALE)); !errors.Is(err, unix.ESTALE) || calls != mkdirTries {
		t.Errorf("ESTALE for ever: %v after %d calls, want ESTALE after %d", err, calls, mkdirTries)
	}
}

// The directory another node has just made may be missing or stale to
// this node's GlusterFS client for a moment after its mkdir said EEXIST:
// the open is tried again; any other error, or one that persists, stands.
func TestOpenSharedRetriesMissingDirectory(t *testing.T) {
	calls := 0
	answers := func(errs ...error) func(string) (*dirHandle, error) {
		calls = 0
		return func(string) (*dirHandle, error) {
			err := errs[min(calls, len(errs)-1)] // the last answer repeats
			calls++
			if err == nil {
				return &dirHandle{path: "d"}, nil
			}
			return nil, &os.PathError{Op: "open", Path: "d", Err: err}
		}
	}
	if d, err := openShared("d", answers(unix.ENOENT, unix.ESTALE, nil)); err != nil || d == nil || calls != 3 {
		t.Errorf("ENOENT, ESTALE, then there: %v after %d calls, want it open after 3", err, calls)
	}
	if _, err := openShared("d", answers(unix.EACCES)); !errors.Is(err, unix.EACCES) || calls != 1 {
		t.Errorf("EACCES: %v after %d calls, want EACCES at once", err, calls)
	}
	if _, err := openShared("d", answers(unix.ENOENT)); !errors.Is(err, unix.ENOENT) || calls != mkdirTries {
		t.Errorf("ENOENT for ever: %v after %d calls, want ENOENT after %d", err, calls, mkdirTries)
	}
}
