package study

import "ioswarm/result"

// SetupOf is the setup a sweep shares, from the settings its points
// record: the one place a Setup is filled, for a sweep about to run (from
// its base workload's config, sizes as the user gave them) and for a run
// loaded as a sweep of one point. A config that gives a size per thread
// and no aggregate is sized per thread; any other, a settled run's
// included (it does not record which size the user gave), by its
// aggregate.
func SetupOf(c result.Config) Setup {
	s := Setup{Phases: c.Phases, Sizing: SizingTotal, Total: c.Total, BlockSize: c.BlockSize,
		RandBlockSize: c.RandBlockSize, Dir: c.Dir, Iterations: c.Iterations, Direct: c.Direct,
		OSync: c.OSync, ODSync: c.ODSync, Fsync: c.Fsync, Engine: c.Engine}
	if c.FileSize != 0 && c.Total == 0 {
		s.Sizing, s.FileSize = SizingFileSize, c.FileSize
	}
	return s
}
