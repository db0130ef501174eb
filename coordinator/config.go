package coordinator

import (
	"strconv"

	"ioswarm/result"
)

// config is the result's record of the workload: the one place a
// result.Config is filled, so that a job whose ranks never started
// records the same settings as one that ran. The settings are o.Job as
// the ranks receive it (Applied); result.Config spells each out in the
// contract's order, and TestConfigRecordsEverySetting fails when one of
// settings.Job is missing here. ranks is how many ranks the
// placement used and shift the rotation the read phases settled on (both
// 0 for a job that never started).
func (o *Workload) config(ranks, shift int) result.Config {
	j := o.Job.Applied()
	return result.Config{
		Threads: j.Threads, ThreadsFrom: j.ThreadsFrom, BlockSize: j.Block, RandBlockSize: j.RandBlock,
		FileSize: j.FileSize, Total: j.Total, TotalAuto: j.TotalAuto, ServerCache: j.ServerCache,
		Phases: j.Phases, Direct: j.Direct, OSync: j.OSync, ODSync: j.ODSync, Fsync: j.Fsync, Verify: j.Verify, Keep: j.Keep,
		DropCaches: j.DropCaches, Iterations: j.Iterations, StonewallNS: int64(j.Stonewall),
		RandTimeNS: int64(j.RandTime), AllowMixedFS: j.AllowMixedFS,
		IgnoreSpace: j.IgnoreSpace, IgnoreMemory: j.IgnoreMemory, Engine: j.Engine, IODepth: j.IODepth,
		Layout: j.Layout, Pattern: j.Pattern, RandScope: j.RandScope, RandOrder: j.RandOrder,
		RandCall: j.RandCall, FirstDoneStop: j.FirstDoneStop, FilesPerThread: j.FilesPerThread, MDDir: j.MDDir, MDSize: j.MDSize,
		// What is the coordinator's alone.
		Dir: o.Dir, Ranks: ranks, ReadShift: shift, ReadShiftRequested: shiftWord(o.ReadShift),
	}
}

func shiftWord(n int) string {
	if n == ReadShiftAuto {
		return "auto"
	}
	return strconv.Itoa(n)
}

// Config is the result's record of the workload as asked, before any
// rank has run it: no ranks yet, the read shift not settled, and the
// sizes as the user gave them until Settle settles them. A sweep's shared
// setup is made from it (study.SetupOf).
func (o Workload) Config() result.Config { return o.config(0, 0) }
