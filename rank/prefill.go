package rank

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sys/unix"

	"ioswarm/wire"
)

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
