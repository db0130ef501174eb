package rank

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"

	"ioswarm/clock"
	"ioswarm/wire"
)

// inode is the file fd names in the calling thread's descriptor table.
func inode(fd int) (uint64, error) {
	var st unix.Stat_t
	err := unix.Fstat(fd, &st)
	return st.Ino, err
}

// onOwnThread starts f on a thread of its own with a descriptor table of
// its own, off the main thread; the thread ends with f. The channel is
// closed when it has.
func onOwnThread(t *testing.T, f func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		offMainThread(func() {
			if !ownDescriptors() {
				t.Error("no descriptor table of its own for a locked thread off the main thread")
				runtime.UnlockOSThread()
				return
			}
			f()
		})
	}()
	return done
}

// A thread with its own table sees the descriptors the process had when
// it took it, and the files it opens after are its alone: the process's
// table has no such descriptor, or another file under that number.
func TestOwnDescriptorsKeepAThreadsFilesToIt(t *testing.T) {
	dir := t.TempDir()
	before, err := os.Create(filepath.Join(dir, "before"))
	if err != nil {
		t.Fatal(err)
	}
	defer before.Close()
	wantBefore, err := inode(int(before.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	opened := make(chan [2]uint64, 1)
	release := make(chan struct{})
	ended := onOwnThread(t, func() {
		if ino, err := inode(int(before.Fd())); err != nil || ino != wantBefore {
			t.Errorf("the process's descriptor %d on the thread: inode %d, %v; want %d", before.Fd(), ino, err, wantBefore)
		}
		fd, err := unix.Open(filepath.Join(dir, "own"), unix.O_CREAT|unix.O_RDWR|unix.O_CLOEXEC, 0o644)
		if err != nil {
			t.Error(err)
			return
		}
		ino, _ := inode(fd)
		opened <- [2]uint64{uint64(fd), ino}
		<-release
		unix.Close(fd)
	})
	var got [2]uint64
	select {
	case got = <-opened:
	case <-ended:
		t.FailNow()
	}
	// This goroutine is not locked and that thread is: it runs elsewhere.
	ino, err := inode(int(got[0]))
	close(release)
	<-ended
	if err == nil && ino == got[1] {
		t.Fatalf("the process's table names the thread's file under descriptor %d", got[0])
	}
	if err != nil && !errors.Is(err, unix.EBADF) {
		t.Fatalf("fstat %d: %v, want EBADF or another file", got[0], err)
	}
}

// The sync engine's threads run their phases with tables of their own,
// and the phases still do their work: a write, then a verified random
// read of what it wrote.
func TestRunWorkersGiveSyncThreadsTheirOwnDescriptors(t *testing.T) {
	w := testWorker(t, 1<<20)
	s := &state{workers: []*worker{w}}
	buf := testBuffer(t, w, 4096)
	for _, name := range []wire.Phase{wire.Write, wire.RandRead} {
		p := testParams(name, 4096)
		p.locked, p.verify = true, true
		errs, _, _ := s.runWorkers(context.Background(), p, [][]byte{buf}, clock.Now())
		if errs[0] != nil {
			t.Fatalf("%s: %v", name, errs[0])
		}
		if w.rec.Bytes != 1<<20 {
			t.Fatalf("%s: %d bytes, want %d", name, w.rec.Bytes, 1<<20)
		}
		if !w.ownFiles {
			t.Errorf("%s ran on the process's descriptor table", name)
		}
	}
	checkWholeFile(t, w)
}
