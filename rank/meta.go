package rank

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"golang.org/x/sys/unix"

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
