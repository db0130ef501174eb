package rank

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"time"

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
