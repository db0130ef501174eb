package resplan

import "time"

// Job is what the plan needs to know of a workload.
type Job struct {
	FileSize  int64 // bytes per thread
	Block     int64 // sequential phases' record
	RandBlock int64 // random phases' operation
	Phases    []string
	// Engine "io_uring" gives each thread IODepth more buffers and a ring.
	Engine  string
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

func (j Job) has(phases ...string) bool {
	for _, p := range j.Phases {
		for _, q := range phases {
			if p == q {
				return true
			}
		}
	}
	return false
}

func (j Job) dataPhases() bool {
	return j.has("write", "rewrite", "read", "reread", "randwrite", "randread")
}

func (j Job) mdPhases() bool { return j.has("mdcreate", "mdstat", "mdread", "mddelete") }

func (j Job) randomPhases() bool { return j.has("randwrite", "randread") }

func (j Job) uring() bool { return j.Engine == "io_uring" }

// roundUp rounds n up to a multiple of unit (unit ≤ 0: n).
func roundUp(n, unit int64) int64 {
	if unit <= 0 || n <= 0 {
		return max(n, 0)
	}
	return (n + unit - 1) / unit * unit
}
