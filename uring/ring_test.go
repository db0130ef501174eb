package uring

import (
	"errors"
	"strings"
	"testing"

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
