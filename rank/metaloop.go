package rank

import (
	"bytes"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"

	"ioswarm/clock"
	"ioswarm/wire"
)

// mdData is what thread w writes into each of its metadata files: its
// pattern at offset 0, cut to the file size (buf's length).
func (w *worker) mdData(buf []byte) []byte {
	full := make([]byte, (len(buf)+unitSize-1)/unitSize*unitSize)
	w.pat.fill(full, 0)
	copy(buf, full)
	return buf
}

// metadata runs one metadata phase over the worker's files. The time runs
// from before the first operation to after the last; each operation
// (create = open with O_CREAT|O_EXCL, write --md-size bytes, close; stat;
// read = open, read, close; delete = unlink) is one latency sample. After
// a stonewall, mdcreate and mddelete go on untimed to the last file, as a
// sequential writer does, so the next phase finds every file or none.
func (w *worker) metadata(p *phaseParams, buf []byte) error {
	files, prefix := p.mdFiles, w.mdPrefix
	w.log.reset(int64(files), defaultLogEntries)
	// buf holds the pattern at offset 0 (prepare), which is what every
	// file holds; a copy stays for the check after each read.
	data, want := buf[:p.mdSize], buf[len(buf)/2:len(buf)/2+int(p.mdSize)]
	copy(want, data)
	untimed := p.name == wire.MDCreate || p.name == wire.MDDelete
	path := make([]byte, 0, len(prefix)+24)
	// The record names what the thread worked in: its metadata directory,
	// not the data file (t<i>.dat) it never touches in these phases.
	w.rec.File = w.mdDir.path
	w.beginTimed(p)
	if p.gate != nil {
		p.gate.pass(p.stop)
	}
	timed := true
	var ops int64
	per := mdOpBytes(p.name, p.mdSize)
	for j := 0; j < files; j++ {
		if p.stop.Load() {
			return errStopped
		}
		path = mdPath(path, prefix, j)
		t0 := clock.Now()
		err := w.mdOp(p, path, data)
		t1 := clock.Now()
		if err != nil {
			return fmt.Errorf("%s %s/%s: %w", p.name, w.mdDir.path, path[:len(path)-1], err)
		}
		if p.verify && p.name == wire.MDRead && !bytes.Equal(data, want) {
			return fmt.Errorf("verify %s/%s: contents differ from what thread %d wrote", w.mdDir.path, path[:len(path)-1], w.thread)
		}
		if !timed {
			continue
		}
		ops++
		w.done.Store(ops * per)
		timed = w.account(p, t0, t1, ops, ops*per, j+1 < files)
		if !timed && !untimed {
			break
		}
	}
	if !timed {
		return nil // timedEnd was called at the stonewall
	}
	w.timedEnd(clock.Now(), ops*per, ops, false)
	return nil
}

// mdOpBytes is the data one operation of a metadata phase moves, and so
// what it adds to the thread's bytes (and to its bytes at first-done and
// its progress): mdcreate writes and mdread reads --md-size bytes per
// file; mdstat and mddelete move no data, so their bytes are 0. The rule
// is per operation, so a stonewalled phase counts the same as one that
// ran to its last file.
func mdOpBytes(phase wire.Phase, mdSize int64) int64 {
	if phase == wire.MDCreate || phase == wire.MDRead {
		return mdSize
	}
	return 0
}

// mdOp is one metadata operation on the NUL-terminated name, relative to
// the worker's metadata directory. Raw system calls take the name as it
// is, where the unix package would copy it, and skip the runtime's system
// call path (see rawcall.go).
func (w *worker) mdOp(p *phaseParams, path, data []byte) error {
	ptr := uintptr(unsafe.Pointer(&path[0]))
	dirfd := uintptr(w.mdDir.fd)
	switch p.name {
	case wire.MDCreate:
		fd, err := rawOpenat(w.mdDir.fd, path, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o644)
		if err != nil {
			return err
		}
		if len(data) > 0 {
			if err := writeAll(rawPwrite, fd, data, 0); err != nil {
				rawClose(fd)
				return err
			}
		}
		return rawClose(fd)
	case wire.MDStat:
		var st unix.Stat_t
		e := unix.EINTR
		for e == unix.EINTR { // a signal may cut a wait short on FUSE: look again
			_, _, e = unix.RawSyscall6(unix.SYS_NEWFSTATAT, dirfd, ptr, uintptr(unsafe.Pointer(&st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
		}
		if e != 0 {
			return e
		}
		if p.verify && (st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size != int64(len(data))) {
			return fmt.Errorf("verify: mode %o, %d bytes; want a regular file of %d", st.Mode, st.Size, len(data))
		}
		return nil
	case wire.MDRead:
		fd, err := rawOpenat(w.mdDir.fd, path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != nil {
			return err
		}
		if len(data) > 0 {
			if err := readAll(rawPread, fd, data, 0); err != nil {
				rawClose(fd)
				return err
			}
		}
		return rawClose(fd)
	case wire.MDDelete:
		interrupted := false
		for {
			_, _, e := unix.RawSyscall(unix.SYS_UNLINKAT, dirfd, ptr, 0)
			switch {
			case e == unix.EINTR:
				interrupted = true // a signal cut a wait short (FUSE): again
			case e == unix.ENOENT && interrupted:
				return nil // the interrupted unlink had been done
			default:
				return rawErr(e)
			}
		}
	}
	return fmt.Errorf("unknown phase %q", p.name)
}
