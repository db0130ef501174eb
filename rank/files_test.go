package rank

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	if err := createJobDir(jd, 0, false); err == nil || !strings.Contains(err.Error(), "symbolic link") {
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
	if err := createJobDir(jd, 0, false); err != nil {
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
