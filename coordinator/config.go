package coordinator

import (
	"strconv"

	"ioswarm/result"
	"ioswarm/settings"
)

// config is the result's record of the workload: the one place a
// result.Config is filled, so that a job whose ranks never started
// records the same settings as one that ran. ranks is how many ranks the
// placement used and shift the rotation the read phases settled on (both
// 0 for a job that never started).
func (o *Workload) config(ranks, shift int) result.Config {
	c := result.Config{
		Threads: o.Threads, BlockSize: o.Block, RandBlockSize: o.RandBlock, FileSize: o.FileSize,
		Total: o.Total, Dir: o.Dir, Direct: o.Direct, Fsync: o.Fsync, Phases: o.Phases,
		DropCaches: o.DropCaches, Ranks: ranks, Iterations: o.Iterations,
		StonewallNS: int64(o.Stonewall), Verify: o.Verify, Keep: o.Keep,
		ReadShift: shift, ReadShiftRequested: shiftWord(o.ReadShift), ServerCache: o.ServerCache,
		TotalAuto: o.TotalAuto, AllowMixedFS: o.AllowMixedFS, ThreadsFrom: o.ThreadsFrom,
		Engine: o.Engine, IODepth: o.IODepth, RandTimeNS: int64(o.RandTime),
		Layout: o.Layout, RandOrder: o.RandOrder, FirstDoneStop: o.FirstDoneStop,
		IgnoreSpace: o.IgnoreSpace, IgnoreMemory: o.IgnoreMemory,
	}
	if o.Layout == settings.Shared {
		c.Pattern, c.RandScope = o.Pattern, o.RandScope
	}
	if o.hasMD() {
		c.FilesPerThread, c.MDDir, c.MDSize = o.FilesPerThread, o.MDDir, o.MDSize
	}
	return c
}

func shiftWord(n int) string {
	if n == ReadShiftAuto {
		return "auto"
	}
	return strconv.Itoa(n)
}
