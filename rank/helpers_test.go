package rank

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"ioswarm/histogram"
	"ioswarm/wire"
)

// testWorker is thread 0 of a job with seed 1, its file in a fresh temp dir.
func testWorker(t *testing.T, size int64) *worker {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t0.dat")
	w := newWorker(0, path, size, newPattern(1, 0))
	w.hist = histogram.New()
	return w
}

// openTestDir opens dir as a rank opens its job directory, closing the
// handles (its own and the metadata directories') when the test ends.
func openTestDir(t *testing.T, dir string) *dirHandle {
	t.Helper()
	d, err := openDirHandle(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.close)
	return d
}

func testParams(name wire.Phase, block int64) *phaseParams {
	return &phaseParams{name: name, block: block, fsync: true, seed: 7, stop: new(atomic.Bool)}
}

// testBuffer maps one aligned buffer filled for offset 0, as runPhase
// hands it to a worker.
func testBuffer(t *testing.T, w *worker, block int64) []byte {
	t.Helper()
	bufs, err := alignedBuffers(1, block)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { freeBuffers(bufs) })
	w.pat.fill(bufs[0], 0)
	return bufs[0]
}

// runPhaseOn runs one phase on w with a fresh histogram, failing the test
// on error.
func runPhaseOn(t *testing.T, w *worker, p *phaseParams) {
	t.Helper()
	w.hist = histogram.New()
	if err := w.run(p, testBuffer(t, w, p.block)); err != nil {
		t.Fatalf("%s: %v", p.name, err)
	}
}

// checkWholeFile reads w's file back and checks its size and every unit's
// pattern.
func checkWholeFile(t *testing.T, w *worker) {
	t.Helper()
	data, err := os.ReadFile(w.path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) != w.size {
		t.Fatalf("%s is %d bytes, want %d", w.path, len(data), w.size)
	}
	if err := w.pat.check(data, 0); err != nil {
		t.Fatalf("%s: %v", w.path, err)
	}
}

// corruptByte flips one byte of the file at off.
func corruptByte(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x5a
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}
