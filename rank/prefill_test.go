package rank

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ioswarm/wire"
)

func prefillState(t *testing.T, files int, size, block int64) *state {
	t.Helper()
	dir := t.TempDir()
	s := &state{job: wire.Job{Block: block}, jobDir: dir, dir: openTestDir(t, dir)}
	t.Cleanup(s.closeDirs)
	for i := 0; i < files; i++ {
		s.workers = append(s.workers, newWorker(i, filepath.Join(dir, fmt.Sprintf("t%d.dat", i)), size, newPattern(1, i)))
	}
	return s
}

// The prefill leaves every file whole and holding its thread's pattern,
// and writes the files side by side: while it runs, two files are seen
// part-written at once, which one file after another never shows.
func TestPrefillWritesFilesSideBySide(t *testing.T) {
	const files, size, block = 4, 16 << 20, 256 << 10
	s := prefillState(t, files, size, block)
	var overlap atomic.Bool
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			partial := 0
			for _, w := range s.workers {
				if st, err := os.Stat(w.path); err == nil && st.Size() > 0 && st.Size() < size {
					partial++
				}
			}
			if partial >= 2 {
				overlap.Store(true)
			}
		}
	}()
	err := s.prefill(context.Background())
	close(done)
	if err != nil {
		t.Fatal(err)
	}
	if !overlap.Load() {
		t.Error("never two files part-written at once: the prefill wrote them one after another")
	}
	buf := make([]byte, block)
	for _, w := range s.workers {
		f, err := os.Open(w.path)
		if err != nil {
			t.Fatal(err)
		}
		for off := int64(0); off < size; off += block {
			if _, err := f.ReadAt(buf, off); err != nil {
				t.Fatalf("%s at %d: %v", w.path, off, err)
			}
			if err := w.pat.check(buf, off); err != nil {
				t.Fatalf("%s at %d: %v", w.path, off, err)
			}
		}
		f.Close()
	}
	// Whole files are not written again.
	before, _ := os.Stat(s.workers[0].path)
	time.Sleep(10 * time.Millisecond)
	if err := s.prefill(context.Background()); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(s.workers[0].path); !after.ModTime().Equal(before.ModTime()) {
		t.Error("a whole file was written again")
	}
}

// A cancelled job stops its prefill between records, naming the file.
func TestPrefillStopsWhenCancelled(t *testing.T) {
	s := prefillState(t, 2, 16<<20, 256<<10)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := s.prefill(ctx)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "prefill of "+filepath.Join(s.jobDir, "t")) {
		t.Fatalf("prefill after cancel: %v", err)
	}
}

func TestPrefillWriters(t *testing.T) {
	for _, c := range []struct {
		files int
		block int64
		want  int
	}{{1, 16 << 20, 1}, {4, 16 << 20, 4}, {64, 16 << 20, 16}, {64, 64 << 20, 4}, {8, 1 << 30, 1}, {0, 4096, 1}} {
		if got := prefillWriters(c.files, c.block); got != c.want {
			t.Errorf("prefillWriters(%d, %d) = %d, want %d", c.files, c.block, got, c.want)
		}
	}
}
