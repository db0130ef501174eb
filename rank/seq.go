package rank

import (
	"fmt"

	"golang.org/x/sys/unix"

	"ioswarm/clock"
	"ioswarm/wire"
)

// seqWrite is the write phase: open (creating and truncating; for
// rewrite, the existing file as it is), every record in order, fsync when
// asked, close; the time runs from before open to
// after close. After a stonewall the writer still completes its file,
// untimed, so a later read phase never reads a short file.
func (w *worker) seqWrite(p *phaseParams, buf []byte) error {
	block := p.block
	w.log.reset(w.size/block, defaultLogEntries)
	mode := unix.O_WRONLY | unix.O_CREAT | unix.O_TRUNC
	if p.name == wire.Rewrite || w.m.shared() {
		// IOzone's rewrite: the same records again over the file as it
		// stands, which the filesystem need not allocate anew. A shared
		// file was made, sized, before the phase (makeShared).
		mode = unix.O_WRONLY
	}
	fd, err := w.openTimed(p, w.path, w.openFlags(p, mode), 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", w.path, err)
	}
	next, err := w.writeRecords(p, fd, buf, 0, true)
	if err := w.closeFile(p, fd, p.fsync, err); err != nil {
		return err
	}
	w.endTimed(p, clock.Now(), next, next/block)
	if next < w.size && p.name != wire.Rewrite {
		// Stopped by the first-done stop, its fsync and close timed: the
		// rest goes on untimed, so that later phases find a whole file.
		// (A rewriter's file is whole already: IOzone's stops there.)
		return w.finishUntimed(p, buf, next)
	}
	return nil
}

// finishUntimed writes the records of the file from offset from on,
// untimed, with the fsync and close a writer ends with.
func (w *worker) finishUntimed(p *phaseParams, buf []byte, from int64) error {
	dirfd, name, err := p.dir.cname(w.path)
	fd := -1
	if err == nil {
		fd, err = rawOpenat(dirfd, name, w.openFlags(p, unix.O_WRONLY), 0)
	}
	if err != nil {
		return fmt.Errorf("open %s again to finish it: %w", w.path, err)
	}
	_, err = w.writeRecords(p, fd, buf, from, false)
	if err := w.closeFile(p, fd, p.fsync, err); err != nil {
		return err
	}
	w.rec.UntimedEndNS = clock.Now()
	return nil
}

// writeRecords is the loop of the write phase from logical offset from,
// timed unless told otherwise; it returns where it stopped: the file's end,
// or the first-done stop's record boundary. The caller filled buf
// for offset 0; when the body is the same at every record, only the stamps
// change, so the loop touches 16 bytes per 512 rather than all of them.
func (w *worker) writeRecords(p *phaseParams, fd int, buf []byte, from int64, timed bool) (int64, error) {
	if w.uring != nil {
		_, err := w.uringLoop(p, fd, w.uring, w.seqJob(p, true, w.readSource(p)))
		return w.size, err
	}
	block := p.block
	stable := bodyStable(block)
	ops := from / block
	for l := from; l < w.size; l += block {
		if p.stop.Load() {
			return l, errStopped
		}
		if timed && w.stopBefore(p, l, ops) {
			return l, nil
		}
		off := w.m.at(l)
		if stable {
			w.pat.stamp(buf, off)
		} else {
			w.pat.fill(buf, off)
		}
		t0 := clock.Now()
		if err := writeAll(rawPwrite, fd, buf, off); err != nil {
			return l, fmt.Errorf("write %s at offset %d: %w", w.path, off, err)
		}
		t1 := clock.Now()
		ops++
		w.done.Store(l + block)
		if timed {
			more := l+block < w.size
			timed = w.account(p, t0, t1, ops, l+block, more)
			if timed && w.stopAfter(p, l+block, ops, block, more) {
				return l + block, nil
			}
		}
	}
	return w.size, nil
}

// seqRead is the read phase: the same file and record size as the write
// phase, from before open to after close, stopping at the stonewall. The
// file is the worker's read source: with --read-shift another node's.
func (w *worker) seqRead(p *phaseParams, buf []byte) error {
	block := p.block
	src := w.readSource(p)
	w.rec.File = src.path
	w.log.reset(w.size/block, defaultLogEntries)
	fd, err := w.openTimed(p, src.path, w.openFlags(p, unix.O_RDONLY), 0)
	if err != nil {
		return w.openError(src, err)
	}
	ops, err := w.readRecords(p, fd, buf, src)
	if err := w.closeFile(p, fd, false, err); err != nil {
		return err
	}
	w.endTimed(p, clock.Now(), ops*block, ops)
	return nil
}

// readRecords is the timed loop of the read phase; it returns the records
// read. With --verify each record is checked after its latency is taken:
// the check counts in the phase's time (bandwidth) but not in the latency
// of the read call, which stays a measure of the filesystem.
func (w *worker) readRecords(p *phaseParams, fd int, buf []byte, src source) (int64, error) {
	if w.uring != nil {
		return w.uringLoop(p, fd, w.uring, w.seqJob(p, false, src))
	}
	block := p.block
	var ops int64
	for l := int64(0); l < w.size; l += block {
		if p.stop.Load() {
			return ops, errStopped
		}
		if w.stopBefore(p, l, ops) {
			break
		}
		off := src.m.at(l)
		t0 := clock.Now()
		if err := readAll(rawPread, fd, buf, off); err != nil {
			return ops, fmt.Errorf("read %s at offset %d: %w", src.path, off, err)
		}
		t1 := clock.Now()
		if p.verify {
			if err := src.check(buf, off); err != nil {
				return ops, fmt.Errorf("verify %s: %w", src.path, err)
			}
		}
		ops++
		w.done.Store(l + block)
		more := l+block < w.size
		if !w.account(p, t0, t1, ops, l+block, more) || w.stopAfter(p, l+block, ops, block, more) {
			break
		}
	}
	return ops, nil
}
