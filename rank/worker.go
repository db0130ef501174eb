package rank

import (
	"errors"
	"fmt"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"ioswarm/histogram"
)

// worker is one benchmark thread: one file, one descriptor, one buffer.
// Everything it needs is allocated before the timed window opens, so the
// timed loop does no allocation and takes no lock.
type worker struct {
	thread int
	path   string
	size   int64
	pat    *pattern
	hist   *histogram.Histogram
	log    opLog
	done   atomic.Int64 // bytes completed, read by the progress reporter

	rec ThreadRecord
}

// phaseParams is what one phase asks of every worker of a rank.
type phaseParams struct {
	name      string
	block     int64 // bytes per operation
	direct    bool
	fsync     bool
	verify    bool
	stonewall int64 // rank-clock deadline after which nothing is timed; 0 = none
	seed      uint64
	stop      *atomic.Bool // set when the phase is abandoned
}

var errStopped = errors.New("phase stopped")

func (w *worker) openFlags(p *phaseParams, base int) int {
	f := base | unix.O_CLOEXEC
	if p.direct {
		f |= unix.O_DIRECT
	}
	return f
}

// run executes one phase on this worker's file. buf is block-sized and
// page-aligned.
func (w *worker) run(p *phaseParams, buf []byte) error {
	w.rec = ThreadRecord{Thread: w.thread, File: w.path}
	w.done.Store(0)
	var err error
	switch p.name {
	case "write":
		err = w.seqWrite(p, buf)
	case "read":
		err = w.seqRead(p, buf)
	case "randwrite", "randread":
		err = w.random(p, buf)
	default:
		err = fmt.Errorf("unknown phase %q", p.name)
	}
	if err != nil && err != errStopped {
		return fmt.Errorf("thread %d: %w", w.thread, err)
	}
	return err
}

// timedEnd closes the timed part of the phase once, at the first call.
func (w *worker) timedEnd(now, bytes, ops int64, stonewalled bool) {
	if w.rec.EndNS != 0 {
		return
	}
	w.rec.EndNS, w.rec.Bytes, w.rec.Ops, w.rec.Stonewalled = now, bytes, ops, stonewalled
}

// account records one timed operation that ran from t0 to t1, after which
// ops operations and bytes bytes were complete, and reports whether timing
// goes on. The rule is the same in every loop: when an operation completes
// past the stonewall and work is left (more), the thread's timed part ends
// at that moment; what follows (a writer's remaining records, fsync, close)
// is untimed and is recorded nowhere, neither in bytes nor in latency. A
// thread whose last operation crosses the deadline simply finishes, timed.
func (w *worker) account(p *phaseParams, t0, t1, ops, bytes int64, more bool) bool {
	w.hist.Record(t1 - t0)
	w.log.add(ops, t1)
	if more && p.stonewall != 0 && t1 >= p.stonewall {
		w.timedEnd(t1, bytes, ops, true)
		return false
	}
	return true
}

// bytesAt is how many bytes this worker had completed at rank time at.
func (w *worker) bytesAt(at int64, opBytes int64) int64 {
	if w.rec.EndNS <= at {
		return w.rec.Bytes
	}
	n := w.log.opsAt(at) * opBytes
	if n > w.rec.Bytes {
		n = w.rec.Bytes
	}
	return n
}

func pwriteFull(fd int, buf []byte, off int64) error {
	for len(buf) > 0 {
		n, err := unix.Pwrite(fd, buf, off)
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

func preadFull(fd int, buf []byte, off int64) error {
	for len(buf) > 0 {
		n, err := unix.Pread(fd, buf, off)
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
