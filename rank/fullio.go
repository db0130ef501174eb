package rank

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// pwriteFull writes all of buf through the Go runtime's system call path:
// for what is not timed (prefill, files of the job).
func pwriteFull(fd int, buf []byte, off int64) error { return writeAll(unix.Pwrite, fd, buf, off) }

// writeAll writes all of buf at off with pwrite (unix.Pwrite, or
// rawPwrite inside a phase), going on after a short write and EINTR.
// Nosplit: see rawcall.go.
//
//go:nosplit
func writeAll(pwrite func(int, []byte, int64) (int, error), fd int, buf []byte, off int64) error {
	for len(buf) > 0 {
		n, err := pwrite(fd, buf, off)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return errors.New("write returned 0 bytes")
		}
		buf, off = buf[n:], off+int64(n)
	}
	return nil
}

// readAll is writeAll's reading twin; a file that ends before buf is full
// is an error.
//
//go:nosplit
func readAll(pread func(int, []byte, int64) (int, error), fd int, buf []byte, off int64) error {
	for len(buf) > 0 {
		n, err := pread(fd, buf, off)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("file ends early (EOF at offset %d)", off)
		}
		buf, off = buf[n:], off+int64(n)
	}
	return nil
}
