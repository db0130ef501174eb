package rank

import (
	"fmt"

	"ioswarm/wire"
)

// pointReads makes this rank's threads read, in the coming read phase,
// the files (or shared-file parts) of the threads sources names, one per
// worker in setup order. The coordinator moves each further read of the
// same files to nodes that have not touched them, so the sources change
// from phase to phase; setup's are only the first read's.
func (s *state) pointReads(sources []int) error {
	if len(sources) != len(s.workers) {
		return fmt.Errorf("bad prepare: %d read sources for %d threads", len(sources), len(s.workers))
	}
	n := s.job.Threads
	var shared []*pattern
	if s.shared() {
		shared = sharedPatterns(s.job.Seed, n)
	}
	for i, w := range s.workers {
		from := sources[i]
		if from < 0 || (n > 0 && from >= n) {
			return fmt.Errorf("bad prepare: read source %d of %d threads", from, n)
		}
		switch {
		case s.shared():
			w.readFrom(from, w.path, shared[from])
		case from == w.thread:
			w.readFrom(from, w.path, w.pat)
		default:
			w.readFrom(from, wire.ThreadFile(s.jobDir, from), newPattern(s.job.Seed, from))
		}
	}
	return nil
}
