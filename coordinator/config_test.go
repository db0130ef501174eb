package coordinator

import (
	"errors"
	"testing"
	"time"

	"ioswarm/settings"
)

// A run whose ranks never started records every setting a started run
// does (the old record of a failed launch kept 14 of them).
func TestNotStartedRecordsEverySetting(t *testing.T) {
	w := validWorkload(t)
	w.Phases = settings.PhaseList{settings.Write, settings.RandRead, settings.MDStat}
	w.Engine, w.IODepth = settings.IOUring, 8
	w.Layout, w.Pattern, w.RandScope, w.RandOrder = settings.Shared, settings.Strided, settings.ScopeFile, settings.Uniform
	w.RandCall = settings.CallLseek
	w.FilesPerThread, w.MDDir, w.MDSize = 10, settings.MDDirShared, 100
	w.Stonewall, w.RandTime, w.Verify, w.FirstDoneStop = time.Second, time.Minute, true, true
	w.ReadShift, w.ServerCache, w.IgnoreSpace, w.ThreadsFrom = 2, 1<<30, true, "a client file"
	c := notStarted(Launch{}, w, errors.New("no ranks")).Config
	for _, f := range []struct {
		name string
		ok   bool
	}{
		{"phases", c.Phases.String() == "write,randread,mdstat"},
		{"engine", c.Engine == settings.IOUring && c.IODepth == 8},
		{"layout", c.Layout == settings.Shared && c.Pattern == settings.Strided && c.RandScope == settings.ScopeFile},
		{"rand_order", c.RandOrder == settings.Uniform},
		{"rand_call", c.RandCall == settings.CallLseek},
		{"metadata", c.FilesPerThread == 10 && c.MDDir == settings.MDDirShared && c.MDSize == 100},
		{"stonewall_ns", c.StonewallNS == int64(time.Second)},
		{"rand_time_ns", c.RandTimeNS == int64(time.Minute)},
		{"verify", c.Verify},
		{"first_done_stop", c.FirstDoneStop},
		{"read_shift_requested", c.ReadShiftRequested == "2"},
		{"server_cache", c.ServerCache == 1<<30},
		{"ignore_space", c.IgnoreSpace},
		{"threads_from", c.ThreadsFrom == "a client file"},
		{"drop_caches", c.DropCaches == settings.DropAuto},
	} {
		if !f.ok {
			t.Errorf("%s not recorded: %+v", f.name, c)
		}
	}
}

// Validate only looks: a workload that passes comes back unchanged, and
// Settle is what fills defaults and sizes.
func TestValidateChangesNothing(t *testing.T) {
	w := Workload{Dir: t.TempDir(), Job: settings.Job{Threads: 4, Total: 8 << 20, Block: 1 << 20, RandBlock: 4096,
		Phases: settings.PhaseList{settings.Write}, DropCaches: settings.DropOff, Iterations: 1,
		Engine: settings.Sync, IODepth: 1, Layout: settings.PerThread, Pattern: settings.Segmented,
		RandScope: settings.ScopeSegment, RandOrder: settings.Shuffle, RandCall: settings.CallPread, MDDir: settings.MDDirPerThread}}
	before := w
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	if w.FileSize != before.FileSize || w.Total != before.Total {
		t.Errorf("Validate changed the sizes: %+v", w)
	}
	if err := w.Settle(localLaunch); err != nil || w.FileSize != 2<<20 || w.Total != 8<<20 {
		t.Errorf("Settle: %v, file size %d total %d; want 2MiB of 8MiB", err, w.FileSize, w.Total)
	}
}
