package uring

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestSetupErrorsSayWhatToDo(t *testing.T) {
	for errno, want := range map[unix.Errno]string{
		unix.ENOSYS: "no io_uring",
		unix.EPERM:  "io_uring_disabled",
		unix.ENOMEM: "io_uring_setup",
	} {
		err := uringSetupError(errno)
		if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want ErrUnavailable mentioning %q", errno, err, want)
		}
	}
}

// A ring where the kernel allows one: entries as asked, a read of a
// file through it, and Available agreeing.
func TestRingReadsAFile(t *testing.T) {
	r, err := New(4)
	if errors.Is(err, ErrUnavailable) {
		if Available() == "" {
			t.Fatalf("New failed (%v) but Available says yes", err)
		}
		t.Skipf("io_uring unavailable here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := r.Bind(); err != nil {
		t.Fatal(err)
	}
	if Available() != "" {
		t.Errorf("a ring was set up but Available says %q", Available())
	}
	fd, err := unix.Open("/proc/self/exe", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	want := make([]byte, 4)
	if _, err := unix.Pread(fd, want, 0); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	r.Prepare(OpRead, fd, 0, buf, 0, 42)
	if err := r.SubmitAndWait(1); err != nil {
		t.Fatal(err)
	}
	head, tail := r.Ready()
	if tail-head != 1 {
		t.Fatalf("%d completions, want 1", tail-head)
	}
	c := r.At(head)
	if c.UserData != 42 || c.Res != 4 || string(buf) != string(want) {
		t.Errorf("completion %+v, read %q, want 42, 4, %q", *c, buf, want)
	}
	r.Consumed(tail)
	if head, tail := r.Ready(); head != tail {
		t.Errorf("completions left after Consumed")
	}
}

// boundRing is a ring of entries bound to the test's thread, which stays
// locked to it until the test ends.
func boundRing(t *testing.T, entries uint32) *Ring {
	t.Helper()
	r, err := New(entries)
	if errors.Is(err, ErrUnavailable) {
		t.Skipf("io_uring unavailable here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	if err := r.Bind(); err != nil {
		t.Fatal(err)
	}
	return r
}

// A wait cut short by a signal submitted nothing, and must not count a
// submission: the Go runtime signals its threads on its own (SIGURG), and
// a miscount made the next wait return at once with nothing ready and the
// next submission spin for ever.
func TestInterruptedWaitCountsNothing(t *testing.T) {
	r := boundRing(t, 2)
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	buf := make([]byte, 1)
	r.Prepare(OpRead, p[0], 0, buf, 0, 7) // stays in flight: the pipe is empty
	if err := r.SubmitAndWait(0); err != nil {
		t.Fatal(err)
	}
	pid, tid := unix.Getpid(), unix.Gettid()
	go func() {
		for i := 0; i < 5; i++ {
			time.Sleep(20 * time.Millisecond)
			_ = unix.Tgkill(pid, tid, unix.SIGURG)
		}
		time.Sleep(20 * time.Millisecond)
		_, _ = unix.Write(p[1], []byte{'x'})
	}()
	if err := r.SubmitAndWait(1); err != nil {
		t.Fatal(err)
	}
	head, tail := r.Ready()
	if tail-head != 1 || r.pending != 0 {
		t.Fatalf("after the interrupted wait: %d completions ready, %d counted pending; want 1 and 0", tail-head, r.pending)
	}
	if c := r.At(head); c.UserData != 7 || c.Res != 1 || buf[0] != 'x' {
		t.Errorf("completion %+v, read %q", *c, buf)
	}
}

// A ring set up for one thread refuses another's submissions, with words
// that say so; the engine relies on each worker keeping its thread.
func TestOwnedRingRefusesAnotherThread(t *testing.T) {
	r := boundRing(t, 2)
	if !r.owned {
		t.Skip("this kernel has no single-issuer rings (before 6.1)")
	}
	errc := make(chan error)
	go func() {
		runtime.LockOSThread() // a thread of its own, never the test's
		defer runtime.UnlockOSThread()
		errc <- r.SubmitAndWait(0)
	}()
	err := <-errc
	if !errors.Is(err, unix.EEXIST) || !strings.Contains(err.Error(), "another thread") {
		t.Errorf("a submission from another thread: %v, want EEXIST naming the cause", err)
	}
}

// InKernel counts what the kernel holds: a request leaves the count when
// its completion is posted, reaped or not, and not before; on a ring
// with deferred completions that is only inside a SubmitAndWait.
func TestInKernelCountsUntilPosted(t *testing.T) {
	r := boundRing(t, 4)
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	bufs := [][]byte{make([]byte, 1), make([]byte, 1)}
	r.Prepare(OpRead, p[0], 0, bufs[0], 0, 1) // both wait: the pipe is empty
	r.Prepare(OpRead, p[0], 0, bufs[1], 0, 2)
	if n := r.InKernel(); n != 0 {
		t.Fatalf("%d in the kernel before any submission, want 0", n)
	}
	if err := r.SubmitAndWait(0); err != nil {
		t.Fatal(err)
	}
	if n := r.InKernel(); n != 2 {
		t.Fatalf("%d in the kernel after submitting 2 reads of an empty pipe, want 2", n)
	}
	if _, err := unix.Write(p[1], []byte{'x'}); err != nil {
		t.Fatal(err)
	}
	if r.Deferred() {
		// Done, but not posted until the owner enters the kernel.
		if n := r.InKernel(); n != 2 {
			t.Errorf("%d in the kernel after a read finished unposted, want 2", n)
		}
	}
	if err := r.SubmitAndWait(1); err != nil {
		t.Fatal(err)
	}
	head, tail := r.Ready()
	if tail-head != 1 {
		t.Fatalf("%d completions ready, want 1", tail-head)
	}
	// Posted and not reaped: no longer the kernel's.
	if n := r.InKernel(); n != 1 {
		t.Errorf("%d in the kernel with one read posted (unreaped), want 1", n)
	}
	r.Consumed(tail)
	if n := r.InKernel(); n != 1 {
		t.Errorf("%d in the kernel after reaping, want 1", n)
	}
	if _, err := unix.Write(p[1], []byte{'y'}); err != nil {
		t.Fatal(err)
	}
	if err := r.SubmitAndWait(1); err != nil {
		t.Fatal(err)
	}
	if n := r.InKernel(); n != 0 {
		t.Errorf("%d in the kernel after both reads were posted, want 0", n)
	}
}
