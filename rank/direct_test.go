package rank

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"ioswarm/wire"
)

// mountRamfs mounts a ramfs, which has no direct I/O, on a temp dir. It
// needs root; elsewhere the test is skipped. (tmpfs, the usual example of
// a filesystem refusing O_DIRECT, accepts it since Linux 6.6.)
func mountRamfs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("ramfs", dir, "ramfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a ramfs to test O_DIRECT refusal (needs root): %v", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

func TestDirectRefusedNamesDirAndLeavesNothing(t *testing.T) {
	dir := mountRamfs(t)
	jd := wire.JobDir(dir, "0123abcd")
	_, err := createJobDir(jd, 0, true)
	if err == nil {
		t.Fatal("ramfs accepted O_DIRECT: the probe proves nothing")
	}
	for _, want := range []string{dir + " refuses O_DIRECT", "--direct"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the refused probe left %v in %s", left, dir)
	}
	// Without --direct the same filesystem is fine.
	d, err := createJobDir(jd, 0, false)
	if err != nil {
		t.Fatalf("buffered: %v", err)
	}
	d.close()
}

// directOK says whether dir's filesystem takes O_DIRECT, for tests that
// must skip where it does not.
func directOK(t *testing.T, dir string) bool {
	t.Helper()
	p := filepath.Join(dir, "probe")
	err := probeDirect(nil, p)
	os.Remove(p)
	return err == nil
}

func TestDirectAcceptedKeepsJobDirAndRemovesProbe(t *testing.T) {
	dir := t.TempDir()
	if !directOK(t, dir) {
		t.Skipf("%s refuses O_DIRECT", dir)
	}
	jd := wire.JobDir(dir, "0123abcd")
	if _, err := createJobDir(jd, 0, true); err != nil {
		t.Fatal(err)
	}
	if left, err := os.ReadDir(jd); err != nil || len(left) != 0 {
		t.Fatalf("job dir after probe: %v, %v", left, err)
	}
}

// Every phase runs with O_DIRECT on aligned buffers, and the data it
// writes verifies.
func TestPhasesWithDirect(t *testing.T) {
	w := testWorker(t, 2<<20)
	if !directOK(t, filepath.Dir(w.path)) {
		t.Skipf("%s refuses O_DIRECT", filepath.Dir(w.path))
	}
	for _, phase := range []string{"write", "read", "randwrite", "randread", "read"} {
		p := testParams(wire.Phase(phase), 64<<10)
		if strings.HasPrefix(phase, "rand") {
			p.block = 4096
		}
		p.direct, p.verify = true, true
		runPhaseOn(t, w, p)
		if w.rec.Ops != w.size/p.block {
			t.Errorf("%s: %d ops, want %d", phase, w.rec.Ops, w.size/p.block)
		}
	}
	checkWholeFile(t, w)
}

// Ranks sharing a directory probe at the same moment without tripping over
// each other's probe file, and a left-over probe is one of the files the
// after-failure cleanup may remove.
func TestDirectProbesOfRanksSharingADir(t *testing.T) {
	dir := t.TempDir()
	if !directOK(t, dir) {
		t.Skipf("%s refuses O_DIRECT", dir)
	}
	jd := wire.JobDir(dir, "0123abcd")
	errs := make(chan error, 8)
	for r := 0; r < 8; r++ {
		go func() {
			d, err := createJobDir(jd, r, true)
			d.close()
			errs <- err
		}()
	}
	for r := 0; r < 8; r++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if err := os.WriteFile(probePath(jd, 3), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := RemoveJobFiles(dir, "0123abcd"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(jd); !os.IsNotExist(err) {
		t.Fatalf("job dir with a left-over probe not removed: %v", err)
	}
}
