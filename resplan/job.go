package resplan

import (
	"ioswarm/settings"
	"slices"
	"time"
)

// Job is what the plan needs to know of a workload.
type Job struct {
	FileSize  int64 // bytes per thread
	Block     int64 // sequential phases' record
	RandBlock int64 // random phases' operation
	Phases    []settings.Phase
	// Engine io_uring gives each thread IODepth more buffers and a ring.
	Engine  settings.Engine
	IODepth int
	// SharedFile: one file for all threads (--layout shared).
	SharedFile bool
	// ReadsOthers: read phases read another thread's file (--read-shift),
	// which takes a second data pattern per thread.
	ReadsOthers bool
	// Reuse: the data files exist already (--reuse); none is written.
	Reuse bool
	// The metadata phases' files.
	FilesPerThread int
	MDSize         int64
	MDShared       bool
	RandTime       time.Duration // bound on a random phase (0: none)
}

// has says whether the job runs a phase that is.
func (j Job) has(is func(settings.Phase) bool) bool { return slices.ContainsFunc(j.Phases, is) }

func (j Job) dataPhases() bool { return j.has(func(p settings.Phase) bool { return !p.IsMeta() }) }

func (j Job) mdPhases() bool { return j.has(settings.Phase.IsMeta) }

func (j Job) randomPhases() bool { return j.has(settings.Phase.IsRandom) }

func (j Job) uring() bool { return j.Engine == settings.IOUring }

// roundUp rounds n up to a multiple of unit (unit ≤ 0: n).
func roundUp(n, unit int64) int64 {
	if unit <= 0 || n <= 0 {
		return max(n, 0)
	}
	return (n + unit - 1) / unit * unit
}
