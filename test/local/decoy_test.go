package local

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The attack on --reuse latest in a shared scratch directory: another
// user plants a copy of a real manifest, a FIFO and a 1 TiB sparse file,
// each in a job directory of its own with a future time. The victim's
// run still reads its own kept job, at once. Before, the copy failed the
// run, the FIFO hung it and the sparse file crashed rank 0 out of memory.
func TestReuseLatestIgnoresPlantedDecoys(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to plant directories owned by another user")
	}
	dir := t.TempDir()
	common := []string{"--dir", dir, "--threads", "2", "--local-ranks", "2", "--total", "4MiB", "--block", "1MiB"}
	first := filepath.Join(t.TempDir(), "write.json")
	if _, stderr, code := run(t, append([]string{"run", "--phases", "write", "--keep", "--output", first}, common...)...); code != 0 {
		t.Fatalf("kept write: exit %d\n%s", code, stderr)
	}
	kept := loadResult(t, first).JobID
	manifest, err := os.ReadFile(filepath.Join(dir, "ioswarm-"+kept, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(24 * time.Hour)
	plant := func(id string, make func(path string) error) {
		jobDir := filepath.Join(dir, "ioswarm-"+id)
		path := filepath.Join(jobDir, "manifest.json")
		if err := os.Mkdir(jobDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := make(path); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{path, jobDir} {
			if err := os.Lchown(p, nobodyUID, nobodyUID); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, future, future); err != nil {
				t.Fatal(err)
			}
		}
	}
	plant("dec0", func(p string) error { return os.WriteFile(p, manifest, 0o644) })
	plant("dec1", func(p string) error { return syscall.Mkfifo(p, 0o644) })
	plant("dec2", func(p string) error {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			return err
		}
		return os.Truncate(p, 1<<40)
	})
	out := filepath.Join(t.TempDir(), "read.json")
	_, stderr, code := run(t, append([]string{"run", "--phases", "read", "--keep", "--reuse", "latest", "--output", out}, common...)...)
	if code != 0 {
		t.Fatalf("--reuse latest beside the decoys: exit %d\n%s", code, stderr)
	}
	if got := loadResult(t, out).Config.ReusedJob; got != kept {
		t.Fatalf("--reuse latest read job %q, want the user's own %q", got, kept)
	}
}

// nobodyUID is a user other than the one running the tests.
const nobodyUID = 65534
