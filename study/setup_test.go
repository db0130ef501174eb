package study

import (
	"testing"

	"ioswarm/result"
	"ioswarm/settings"
)

// A sweep about to run and a run loaded as one point get their setup
// from the same settings by one rule: a settled run is described by its
// aggregate (it does not record which size the user gave), a base given
// a size per thread by that size, and both keep the engine (a loaded
// run's setup once lost it).
func TestSetupOfOneRule(t *testing.T) {
	run := result.Config{Threads: 4, Total: 4 << 20, FileSize: 1 << 20, BlockSize: 1 << 20, RandBlockSize: 4096,
		Phases: settings.PhaseList{settings.Write}, Dir: "/x", Iterations: 2, Fsync: true, Engine: settings.IOUring}
	s := single(&result.Job{Config: run}).Setup
	if s.Sizing != SizingTotal || s.Total != 4<<20 || s.FileSize != 0 || s.Engine != settings.IOUring ||
		s.BlockSize != 1<<20 || s.RandBlockSize != 4096 || s.Dir != "/x" || s.Iterations != 2 || !s.Fsync {
		t.Errorf("a loaded run's setup: %+v", s)
	}
	base := run
	base.Total = 0
	if s := SetupOf(base); s.Sizing != SizingFileSize || s.FileSize != 1<<20 || s.Total != 0 {
		t.Errorf("a base sized per thread: %+v", s)
	}
}
