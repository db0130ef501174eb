package rank

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"ioswarm/settings"
	"ioswarm/wire"
)

func prefillState(t *testing.T, files int, size, block int64) *state {
	t.Helper()
	dir := t.TempDir()
	s := &state{job: wire.Job{Job: settings.Job{Block: block}}, jobDir: dir, dir: openTestDir(t, dir)}
	t.Cleanup(s.closeDirs)
	for i := 0; i < files; i++ {
		s.workers = append(s.workers, newWorker(i, filepath.Join(dir, fmt.Sprintf("t%d.dat", i)), size, newPattern(1, i)))
	}
	return s
}

// The prefill leaves every file whole and holding its thread's pattern,
// and does not write a whole file again.
func TestPrefillLeavesFilesWhole(t *testing.T) {
	const files, size, block = 4, 16 << 20, 256 << 10
	s := prefillState(t, files, size, block)
	if err := s.prefill(context.Background()); err != nil {
		t.Fatal(err)
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

// The prefill works on the files side by side: with every file a FIFO,
// whose open for writing waits for a reader, the last three files are
// opened while the first still waits for its reader. One file after
// another would wait on the first for ever.
func TestPrefillOpensFilesSideBySide(t *testing.T) {
	s := prefillState(t, 4, 1<<20, 256<<10)
	for _, w := range s.workers {
		if err := unix.Mkfifo(w.path, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	opened := make(chan int, len(s.workers))
	var readers []*os.File
	var mu sync.Mutex
	for i, w := range s.workers[1:] {
		go func() {
			f, err := os.OpenFile(w.path, os.O_RDONLY, 0) // returns once a writer opened
			if err == nil {
				mu.Lock()
				readers = append(readers, f)
				mu.Unlock()
				opened <- i + 1
			}
		}()
	}
	result := make(chan error, 1)
	go func() { result <- s.prefill(context.Background()) }()
	deadline := time.After(10 * time.Second)
	for n := 0; n < 3; n++ {
		select {
		case <-opened:
		case <-deadline:
			t.Fatalf("only %d of files 1-3 opened while file 0 waited: the prefill works on one file at a time", n)
		}
	}
	// Now let file 0 open too. A FIFO takes no pwrite (ESPIPE), so the
	// prefill then fails; only the order of the opens was asked.
	f0, err := os.OpenFile(s.workers[0].path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f0.Close()
	select {
	case err := <-result:
		if err == nil {
			t.Error("prefill of FIFOs succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the prefill did not end once every file could open")
	}
	mu.Lock()
	for _, f := range readers {
		f.Close()
	}
	mu.Unlock()
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
