package rank

import (
	"fmt"

	"golang.org/x/sys/unix"

	"ioswarm/settings"
	"ioswarm/wire"
)

// sharedSize is the size of the job's shared file: every thread's part.
func (s *state) sharedSize() int64 { return s.job.FileSize * int64(s.job.Threads) }

// makeShared makes the shared file, untimed, on rank 0 before a phase:
// for a write phase a new one (so that, as with per-thread files, no
// timed open finds an earlier phase's blocks), else the existing one, or
// a new one where none is. Its size is set up front (ftruncate), so no
// thread's write extends the file and every thread's open finds it whole.
func (s *state) makeShared(phase wire.Phase) error {
	path := wire.SharedFile(s.jobDir)
	if phase == wire.Write {
		if err := s.dir.remove(path); err != nil {
			return fmt.Errorf("remove the previous %s: %w", path, err)
		}
	}
	fd, err := s.dir.open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o644)
	if err != nil {
		return fmt.Errorf("create the shared file %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if size := s.sharedSize(); st.Size < size {
		if err := unix.Ftruncate(fd, size); err != nil {
			return fmt.Errorf("size the shared file %s to %d bytes: %w", path, size, err)
		}
	}
	return nil
}

// shared says whether this job's threads share one file.
func (s *state) shared() bool { return s.job.Layout == settings.Shared }

// setupShared points every worker at its part of the shared file, and
// with --read-shift its source at the source thread's part.
func (s *state) setupShared(in wire.Setup) error {
	n := in.Job.Threads
	if n <= 0 {
		return fmt.Errorf("bad setup: shared layout with %d threads", n)
	}
	switch in.Job.Pattern {
	case settings.Segmented, settings.Strided:
	default:
		return fmt.Errorf("bad setup: shared-file pattern %q", in.Job.Pattern)
	}
	pats := sharedPatterns(in.Job.Seed, n)
	path := wire.SharedFile(s.jobDir)
	for i, t := range in.Threads {
		if t < 0 || t >= n {
			return fmt.Errorf("bad setup: thread %d of %d", t, n)
		}
		w := newWorker(t, path, in.Job.FileSize, pats[t])
		w.share(path, sharedMap(in.Job.Pattern, t, n, in.Job.FileSize, in.Job.Block))
		if len(in.Sources) != 0 && in.Sources[i] != t {
			from := in.Sources[i]
			if from < 0 || from >= n {
				return fmt.Errorf("bad setup: read source %d of %d threads", from, n)
			}
			w.readFrom(from, path, pats[from])
		}
		s.workers[i] = w
	}
	return nil
}
