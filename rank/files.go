package rank

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sys/unix"

	"ioswarm/wire"
)

// probePath is the file a rank creates to prove O_DIRECT works. Each rank
// has its own: ranks sharing a directory on one filesystem probe at once.
func probePath(jobDir string, rank int) string {
	return filepath.Join(jobDir, fmt.Sprintf(".direct-probe-%d", rank))
}

// ourFile matches the names a job creates, and only those.
var ourFile = regexp.MustCompile(`^(t[0-9]+\.dat|shared\.dat|\.direct-probe-[0-9]+|manifest\.json(\.tmp)?|\.shared-marker)$`)

// RemoveJobFiles removes the files of job jobID under dir that ioswarm
// creates, then the job directory if it is empty. It never removes anything
// else, so a mistyped directory cannot cost a user data. It is what a rank
// runs at the end and what the coordinator runs after a rank died.
func RemoveJobFiles(dir, jobID string) error {
	if err := wire.CheckJobID(jobID); err != nil {
		return err
	}
	jd := wire.JobDir(dir, jobID)
	d, err := openToClean(jd)
	if d == nil {
		return err
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	if errors.Is(err, unix.ESTALE) {
		return nil // removed by another rank while we looked
	}
	if err != nil {
		return fmt.Errorf("clean up %s: %w", jd, err)
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && ourFile.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
		if e.IsDir() && ourMDDir.MatchString(e.Name()) {
			if err := removeMDDir(d, jd, e.Name(), func(string) bool { return true }); err != nil {
				return err
			}
		}
	}
	if err := unlinkIn(d, jd, names); err != nil {
		return err
	}
	return removeDirIfEmpty(jd)
}

// openToClean opens the job directory jd for cleanup: the directory
// itself, never what a symbolic link of that name points to, since
// cleanup must not reach outside the job's own directory. A directory
// already gone (or removed by another rank on a shared filesystem, ESTALE)
// gives neither a file nor an error: there is nothing to clean.
func openToClean(jd string) (*os.File, error) {
	fd, err := openNoFollow(unix.AT_FDCWD, jd, jd)
	if gone(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("clean up: %w", err)
	}
	return os.NewFile(uintptr(fd), jd), nil
}

// gone says whether err means a file or directory is not there (any more).
func gone(err error) bool { return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ESTALE) }

// unlinkIn removes the named entries of the open directory d (at jd).
func unlinkIn(d *os.File, jd string, names []string) error {
	for _, n := range names {
		// ESTALE: another rank on a shared filesystem removed the
		// directory while this one held it open (FUSE and NFS say so
		// rather than ENOENT); what was in it is gone either way.
		if err := unix.Unlinkat(int(d.Fd()), n, 0); err != nil && !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ESTALE) {
			return fmt.Errorf("clean up %s: %w", filepath.Join(jd, n), err)
		}
	}
	return nil
}

// removeDirIfEmpty removes the job directory unless another rank sharing it
// still has files there; the last rank to clean up removes it.
func removeDirIfEmpty(jd string) error {
	return rmdirResult(jd, unix.Rmdir(jd))
}

// rmdirResult is what an rmdir of path that gave err means to cleanup: a
// directory already gone, or still holding another rank's files, is no
// error.
func rmdirResult(path string, err error) error {
	if err == nil || gone(err) || errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST) {
		return nil
	}
	return fmt.Errorf("clean up %s: %w", path, err)
}

// removeFiles removes this rank's files (all in the job directory jd)
// and, when empty, the job dir.
func removeFiles(jd string, paths []string) error {
	d, err := openToClean(jd)
	if d == nil {
		return err
	}
	defer d.Close()
	names := make([]string, 0, len(paths))
	for _, p := range paths {
		if filepath.Dir(p) != jd {
			return fmt.Errorf("clean up: %s is outside the job directory %s", p, jd)
		}
		names = append(names, filepath.Base(p))
	}
	if err := unlinkIn(d, jd, names); err != nil {
		return err
	}
	return removeDirIfEmpty(jd)
}

// createJobDir makes the job directory (another rank on a shared
// filesystem may have made it already) and opens it: every later file of
// the job is reached relative to the handle. For --direct it proves the
// filesystem accepts O_DIRECT before any timed phase.
func createJobDir(jd string, rank int, direct bool) (*dirHandle, error) {
	if err := mkdirShared(jd, os.Mkdir); err != nil {
		return nil, fmt.Errorf("create %s: %w", jd, err)
	}
	// Another rank of this job on the same filesystem may have made it,
	// and a --reuse job finds it kept: either way it must be a real
	// directory of ours, not a link planted at its name. The checks are
	// made on the opened directory, which is what every later call uses.
	d, err := openShared(jd, openDirHandle)
	if err != nil {
		return nil, err
	}
	if !direct {
		return d, nil
	}
	probe := probePath(jd, rank)
	if err := probeDirect(d, probe); err != nil {
		// A failed create leaves the rank's state "not created", so its
		// cleanup after failure skips this directory: remove the probe
		// (and the directory, when no other rank uses it) here.
		d.close()
		_ = removeFiles(jd, []string{probe})
		return nil, fmt.Errorf("--direct: the filesystem at %s refuses O_DIRECT "+
			"(as ramfs, tmpfs before Linux 6.6 and some FUSE filesystems do): %w",
			filepath.Dir(jd), err)
	}
	if err := d.remove(probe); err != nil {
		d.close()
		return nil, fmt.Errorf("remove the O_DIRECT probe: %w", err)
	}
	return d, nil
}

// mkdirShared makes directory path, which other ranks on a shared
// filesystem may be making at the same moment: one that exists is made.
// GlusterFS answers some of those simultaneous mkdirs with ESTALE while
// it heals the new directory's layout across its bricks (seen on the test
// bed: "Directory self heal xattr failed ... Stale file handle"); the call
// is then tried again, a few times, before its error stands.
func mkdirShared(path string, mkdir func(string, os.FileMode) error) error {
	return whileHealing(func() error {
		if err := mkdir(path, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
		return nil
	}, unix.ESTALE)
}

// mkdirTries bounds whileHealing's attempts: 5 spread over 0.3 s.
const mkdirTries = 5

// openShared opens the job directory that mkdirShared has just made or
// found. On GlusterFS the directory another node made a moment ago can
// still be missing, or stale, to this client's lookup after its own mkdir
// answered EEXIST (seen in CI: "open .../ioswarm-<id>: no such file or
// directory" on node1 while node2 and node3 had made it); the open is
// tried again, a few times, before its error stands.
func openShared(path string, open func(string) (*dirHandle, error)) (*dirHandle, error) {
	var d *dirHandle
	err := whileHealing(func() (err error) {
		d, err = open(path)
		return err
	}, unix.ENOENT, unix.ESTALE)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// whileHealing runs try until it succeeds or fails with an error other
// than healing's, at most mkdirTries times with growing pauses: the
// answers a shared filesystem gives while it heals a directory that
// several nodes touch at once.
func whileHealing(try func() error, healing ...error) error {
	var err error
	for n := 1; n <= mkdirTries; n++ {
		if err = try(); err == nil || !slices.ContainsFunc(healing, func(h error) bool { return errors.Is(err, h) }) {
			return err
		}
		time.Sleep(time.Duration(n) * 20 * time.Millisecond)
	}
	return err
}

// probeDirect creates path with O_DIRECT and writes one aligned 4 KiB
// block through it. Some filesystems accept the open flag and refuse only
// the first I/O, so the open alone proves too little. Linux creates the
// file before it checks the flag, so the caller removes it either way.
func probeDirect(d *dirHandle, path string) error {
	fd, err := d.open(path, unix.O_CREAT|unix.O_WRONLY|unix.O_DIRECT|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o644)
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

// prepareFiles readies the files for phase, untimed: a write phase must
// find none of its files (removeOld), any other phase all of them full
// (prefill).
func (s *state) prepareFiles(ctx context.Context, phase wire.Phase) error {
	if phase == wire.Write {
		return s.removeOld()
	}
	return s.prefill(ctx)
}

// removeOld removes what an earlier phase (an earlier iteration's write, a
// prefill) left in the files a write phase is about to create. Its timed
// open truncates (O_TRUNC) and on Linux the truncation frees the file's
// blocks inside the call: 128-512 MiB files took 0.17-1.0 s to free, up to
// 65% of a thread's window, in every iteration but the first. Removed
// here, before the caches are dropped (whose sync also writes the removal
// back), every iteration's write window holds the same work as the
// first's: create, write, fsync, close.
func (s *state) removeOld() error {
	if s.shared() {
		// Rank 0 made the file anew (makeShared); the parts are empty.
		s.sharedFull = false
		return nil
	}
	for _, w := range s.workers {
		if err := s.dir.remove(w.path); err != nil {
			return fmt.Errorf("remove the previous %s: %w", w.path, err)
		}
	}
	return nil
}

// prefill makes sure every worker's file exists at full size, writing the
// pattern untimed where it does not. Random phases need this: random writes
// into sparse files are far slower on GPFS and Lustre than into allocated
// ones, and random reads of holes read nothing.
//
// The files are written side by side (prefillWriters at a time), as the
// phase's threads write them: one stream at a time took a rank's whole
// aggregate at one client stream's rate (a 1 TB random study's prefill
// for hours on a filesystem whose clients need many streams), and left
// the files in another state than a write phase of the same threads does.
func (s *state) prefill(ctx context.Context) error {
	var todo []*worker
	switch {
	case s.shared() && s.sharedFull:
		return nil
	case s.shared():
		todo = s.workers
	default:
		for _, w := range s.workers {
			if size, err := s.dir.size(w.path); err == nil && size >= w.size {
				continue
			}
			todo = append(todo, w)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(prefillWriters(len(todo), s.job.Block))
	for _, w := range todo {
		g.Go(func() error { return s.writeWhole(gctx, w) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	s.sharedFull = s.shared()
	return nil
}

// prefillWriters is how many files a rank prefills at once: all of them up
// to 16, and no more than 256 MiB of records in flight, so a rank of many
// threads with large records does not hold a buffer per thread.
func prefillWriters(files int, block int64) int {
	return max(1, min(files, 16, int((256<<20)/max(block, 1))))
}

func (s *state) writeWhole(ctx context.Context, w *worker) error {
	bufs, err := alignedBuffers(1, s.job.Block)
	if err != nil {
		return err
	}
	defer freeBuffers(bufs)
	flags := unix.O_WRONLY | unix.O_CREAT | unix.O_CLOEXEC | unix.O_NOFOLLOW
	if s.job.Direct {
		flags |= unix.O_DIRECT
	}
	fd, err := s.dir.open(w.path, flags, 0o644)
	if err != nil {
		return fmt.Errorf("prefill: open %s: %w", w.path, err)
	}
	defer unix.Close(fd)
	for l := int64(0); l < w.size; l += s.job.Block {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("prefill of %s stopped: %w", w.path, err)
		}
		off := w.m.at(l)
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
