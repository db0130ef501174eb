package rank

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"

	"ioswarm/clock"
	"ioswarm/settings"
	"ioswarm/wire"
)

// The metadata phases (mdtest's, elbencho's): each thread creates, stats,
// reads or deletes its --files-per-thread files, one operation per file,
// in a directory of its own (md-t<thread>, mdtest "easy") or in one
// directory all threads share (md-shared, names t<thread>.f<j>, a
// "hard"-like case where every create contends for the same directory).

// ourMDDir and ourMDFile match the metadata directories in a job
// directory and the files in them, and only those.
var (
	ourMDDir  = regexp.MustCompile(`^md-(t[0-9]+|shared)$`)
	ourMDFile = regexp.MustCompile(`^(t[0-9]+\.)?f[0-9]+$`)
)

// mdDirName is the name, in the job directory, of the directory thread's
// metadata files live in.
func mdDirName(thread int, shared bool) string {
	if shared {
		return "md-shared"
	}
	return "md-t" + strconv.Itoa(thread)
}

// mdPrefix is the name of thread's files, in their directory, up to the
// file number.
func mdPrefix(thread int, shared bool) string {
	if shared {
		return "t" + strconv.Itoa(thread) + ".f"
	}
	return "f"
}

// mdPath builds file j's path after prefix into buf, NUL-terminated for
// the system call, without allocating: the timed loop allocates nothing.
func mdPath(buf []byte, prefix string, j int) []byte {
	buf = append(buf[:0], prefix...)
	buf = strconv.AppendInt(buf, int64(j), 10)
	return append(buf, 0)
}

// setupMD gives every worker the name prefix of its metadata files.
func (s *state) setupMD() {
	for _, w := range s.workers {
		if w != nil && s.job.FilesPerThread > 0 {
			w.mdPrefix = mdPrefix(w.thread, s.mdShared())
		}
	}
}

// mdShared says whether this job's metadata files share one directory.
func (s *state) mdShared() bool { return s.job.MDDir == settings.MDDirShared }

// prepareMD readies the metadata files for phase, untimed: the
// directories exist; mdcreate finds none of the files, any other phase
// all of them.
func (s *state) prepareMD(phase wire.Phase) error {
	if err := s.openMDDirs(); err != nil {
		return err
	}
	if phase == wire.MDCreate {
		if s.mdAny {
			if err := s.eachMDWorker("remove the previous", func(w *worker, p string) error {
				if err := unix.Unlinkat(w.mdDir.fd, p, 0); err != nil && !errors.Is(err, unix.ENOENT) {
					return err
				}
				return nil
			}); err != nil {
				return err
			}
		}
		s.mdAll, s.mdAny = false, false
		return nil
	}
	if s.mdAll {
		return nil
	}
	data := make([]byte, s.job.MDSize)
	s.mdAny = true
	if err := s.eachMDWorker("prefill", func(w *worker, p string) error {
		// Written in place, as mdcreate writes them: a temporary name
		// would be one cleanup does not know.
		return w.mdDir.put(p, w.mdData(data))
	}); err != nil {
		return err
	}
	s.mdAll = true
	return nil
}

// openMDDirs makes the metadata directories in the job directory, where
// missing, and opens each once: every metadata file is then reached
// relative to its directory's handle.
func (s *state) openMDDirs() error {
	if s.dir == nil {
		return fmt.Errorf("metadata phase before the job directory was made")
	}
	for _, w := range s.workers {
		if w.mdDir != nil {
			continue
		}
		name := mdDirName(w.thread, s.mdShared())
		if h := s.mdDirs[name]; h != nil {
			w.mdDir = h // md-shared: one handle for all threads
			continue
		}
		h, err := s.dir.mkdir(name)
		if err != nil {
			return fmt.Errorf("thread %d: %w", w.thread, err)
		}
		if s.mdDirs == nil {
			s.mdDirs = map[string]*dirHandle{}
		}
		s.mdDirs[name], w.mdDir = h, h
	}
	return nil
}

// eachMDWorker calls f on the name (in its directory) of every metadata
// file of this rank's threads; an error names the thread and the path.
func (s *state) eachMDWorker(what string, f func(*worker, string) error) error {
	for _, w := range s.workers {
		for j := 0; j < s.job.FilesPerThread; j++ {
			n := w.mdPrefix + strconv.Itoa(j)
			if err := f(w, n); err != nil {
				return fmt.Errorf("thread %d: %s %s: %w", w.thread, what, filepath.Join(w.mdDir.path, n), err)
			}
		}
	}
	return nil
}

// closeDirs closes the job's directory handles: at the end of a job, or
// when a session's next job begins.
func (s *state) closeDirs() {
	for _, h := range s.mdDirs {
		h.close()
	}
	s.mdDirs = nil
	for _, w := range s.workers {
		w.mdDir = nil
	}
	s.dir.close()
	s.dir = nil
}

// mdData is what thread w writes into each of its metadata files: its
// pattern at offset 0, cut to the file size (buf's length).
func (w *worker) mdData(buf []byte) []byte {
	full := make([]byte, (len(buf)+unitSize-1)/unitSize*unitSize)
	w.pat.fill(full, 0)
	copy(buf, full)
	return buf
}

// phaseDone notes what a phase that succeeded left on disk.
func (s *state) phaseDone(phase wire.Phase) {
	switch phase {
	case wire.Write:
		s.sharedFull = s.shared()
	case wire.MDCreate:
		s.mdAll, s.mdAny = true, true
	case wire.MDDelete:
		s.mdAll, s.mdAny = false, false
	}
}

// removeMD removes this rank's threads' metadata files and directories
// (a shared one when no other rank still has files in it).
func (s *state) removeMD() error {
	if s.job.FilesPerThread == 0 || s.jobDir == "" {
		return nil
	}
	jd, err := openToClean(s.jobDir)
	if jd == nil {
		return err
	}
	defer jd.Close()
	mine := map[string]bool{}
	for _, w := range s.workers {
		mine["t"+strconv.Itoa(w.thread)] = true
	}
	for _, w := range s.workers {
		name := mdDirName(w.thread, s.mdShared())
		match := func(string) bool { return true }
		if s.mdShared() {
			match = func(name string) bool {
				t, _, _ := bytes.Cut([]byte(name), []byte("."))
				return mine[string(t)]
			}
		}
		if err := removeMDDir(jd, s.jobDir, name, match); err != nil {
			return err
		}
		if s.mdShared() {
			return nil // one directory for all: done
		}
	}
	return nil
}

// removeMDDir removes the metadata files in the directory name of the
// open directory parent (at path pd) that match, and the directory itself
// when then empty. It is opened relative to parent without following a
// link: cleanup never reaches outside the job directory.
func removeMDDir(parent *os.File, pd, name string, match func(string) bool) error {
	path := filepath.Join(pd, name)
	h, err := openDirAt(int(parent.Fd()), name, path)
	if gone(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("clean up: %w", err)
	}
	f := os.NewFile(uintptr(h.fd), path)
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if gone(err) {
		return nil // another rank sharing it removed it, empty, meanwhile
	}
	if err != nil {
		return fmt.Errorf("clean up %s: %w", path, err)
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && ourMDFile.MatchString(e.Name()) && match(e.Name()) {
			names = append(names, e.Name())
		}
	}
	if err := unlinkIn(f, path, names); err != nil {
		return err
	}
	return rmdirResult(path, unix.Unlinkat(int(parent.Fd()), name, unix.AT_REMOVEDIR))
}

// dropMD empties the caches a metadata phase would hit: dentries and
// inodes, which only drop_caches reaches (O_DIRECT and fadvise do not).
func (s *state) dropMD() wire.DropReply {
	switch {
	case s.job.DropCaches == settings.DropOff:
		return wire.DropReply{Method: settings.DropNone}
	case canDropNode():
		if err := s.dropKernel(); err != nil {
			return wire.DropReply{Method: settings.DropNone, Warning: err.Error()}
		}
		return wire.DropReply{Method: settings.DropCaches}
	}
	return wire.DropReply{Method: settings.DropNone, Warning: "cannot write " + dropCachesPath +
		" (not root): metadata phases ran with the node's dentry and inode caches as they were"}
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
	w.spread.release()
	w.rec.StartNS = clock.Now()
	w.cpu.begin(p.locked, w.rec.StartNS)
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
