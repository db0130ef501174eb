package rank

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"golang.org/x/sys/unix"
)

// JobDir is the only directory a job writes in: <dir>/ioswarm-<jobid>.
func JobDir(dir, jobID string) string {
	return filepath.Join(dir, "ioswarm-"+jobID)
}

// ThreadFile is thread's file in the job directory.
func ThreadFile(jobDir string, thread int) string {
	return filepath.Join(jobDir, fmt.Sprintf("t%d.dat", thread))
}

// probePath is the file a rank creates to prove O_DIRECT works. Each rank
// has its own: ranks sharing a directory on one filesystem probe at once.
func probePath(jobDir string, rank int) string {
	return filepath.Join(jobDir, fmt.Sprintf(".direct-probe-%d", rank))
}

// validJobID keeps a job ID from ever naming a path outside <dir>.
var validJobID = regexp.MustCompile(`^[0-9a-f]{4,64}$`)

// CheckJobID rejects a job ID that is not the hex a coordinator makes.
func CheckJobID(id string) error {
	if !validJobID.MatchString(id) {
		return fmt.Errorf("invalid job id %q", id)
	}
	return nil
}

// ourFile matches the names a job creates, and only those.
var ourFile = regexp.MustCompile(`^(t[0-9]+\.dat|\.direct-probe-[0-9]+)$`)

// RemoveJobFiles removes the files of job jobID under dir that ioswarm
// creates, then the job directory if it is empty. It never removes anything
// else, so a mistyped directory cannot cost a user data. It is what a rank
// runs at the end and what the coordinator runs after a rank died.
func RemoveJobFiles(dir, jobID string) error {
	if err := CheckJobID(jobID); err != nil {
		return err
	}
	jd := JobDir(dir, jobID)
	entries, err := os.ReadDir(jd)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("clean up %s: %w", jd, err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() && ourFile.MatchString(e.Name()) {
			if err := os.Remove(filepath.Join(jd, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("clean up: %w", err)
			}
		}
	}
	return removeDirIfEmpty(jd)
}

// removeDirIfEmpty removes the job directory unless another rank sharing it
// still has files there; the last rank to clean up removes it.
func removeDirIfEmpty(jd string) error {
	err := unix.Rmdir(jd)
	if err == nil || errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST) {
		return nil
	}
	return fmt.Errorf("clean up %s: %w", jd, err)
}

// removeFiles removes this rank's files and, when empty, the job dir.
func removeFiles(jd string, paths []string) error {
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("clean up: %w", err)
		}
	}
	return removeDirIfEmpty(jd)
}

// createJobDir makes the job directory (another rank on a shared
// filesystem may have made it already) and, for --direct, proves the
// filesystem accepts O_DIRECT before any timed phase.
func createJobDir(jd string, rank int, direct bool) error {
	if err := os.Mkdir(jd, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create %s: %w", jd, err)
	}
	if !direct {
		return nil
	}
	probe := probePath(jd, rank)
	if err := probeDirect(probe); err != nil {
		// A failed create leaves the rank's state "not created", so its
		// cleanup after failure skips this directory: remove the probe
		// (and the directory, when no other rank uses it) here.
		_ = removeFiles(jd, []string{probe})
		return fmt.Errorf("--direct: the filesystem at %s refuses O_DIRECT "+
			"(as ramfs, tmpfs before Linux 6.6 and some FUSE filesystems do): %w",
			filepath.Dir(jd), err)
	}
	if err := os.Remove(probe); err != nil {
		return fmt.Errorf("remove the O_DIRECT probe: %w", err)
	}
	return nil
}

// probeDirect creates path with O_DIRECT and writes one aligned 4 KiB
// block through it. Some filesystems accept the open flag and refuse only
// the first I/O, so the open alone proves too little. Linux creates the
// file before it checks the flag, so the caller removes it either way.
func probeDirect(path string) error {
	fd, err := unix.Open(path, unix.O_CREAT|unix.O_WRONLY|unix.O_DIRECT|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	bufs, err := alignedBuffers(1, 4096)
	if err != nil {
		return err
	}
	defer freeBuffers(bufs)
	return pwriteFull(fd, bufs[0], 0)
}

// prefill makes sure every worker's file exists at full size, writing the
// pattern untimed where it does not. Random phases need this: random writes
// into sparse files are far slower on GPFS and Lustre than into allocated
// ones, and random reads of holes read nothing.
func (s *state) prefill() error {
	for _, w := range s.workers {
		st, err := os.Stat(w.path)
		if err == nil && st.Size() >= w.size {
			continue
		}
		if err := s.writeWhole(w); err != nil {
			return err
		}
	}
	return nil
}

func (s *state) writeWhole(w *worker) error {
	bufs, err := alignedBuffers(1, s.job.Block)
	if err != nil {
		return err
	}
	defer freeBuffers(bufs)
	flags := unix.O_WRONLY | unix.O_CREAT | unix.O_CLOEXEC
	if s.job.Direct {
		flags |= unix.O_DIRECT
	}
	fd, err := unix.Open(w.path, flags, 0o644)
	if err != nil {
		return fmt.Errorf("prefill: open %s: %w", w.path, err)
	}
	defer unix.Close(fd)
	for off := int64(0); off < w.size; off += s.job.Block {
		w.pat.fill(bufs[0], off)
		if err := pwriteFull(fd, bufs[0], off); err != nil {
			return fmt.Errorf("prefill: write %s at offset %d: %w", w.path, off, err)
		}
	}
	if err := unix.Fsync(fd); err != nil {
		return fmt.Errorf("prefill: fsync %s: %w", w.path, err)
	}
	return nil
}
