package settings

import (
	"slices"
	"time"
)

// Job is every setting of one job that both the ranks receive and the
// result file records, as one record from the flags to the wire to the
// result: the coordinator's workload embeds it, the job message to the
// ranks carries it whole, and the result's config is filled from it. A
// setting added here reaches the ranks with no more code, and a test of
// the coordinator's fails until the result records it too.
//
// Its JSON names are the result file's (DESIGN §9: they are a contract),
// which the messages to the ranks use as well: both ends of those are the
// same build. What a job holds only for the coordinator (the directory
// each node uses, the read shift asked for, the kept job to reuse, the
// version and command line) is not here.
type Job struct {
	Threads int `json:"threads"`
	// ThreadsFrom says where Threads came from when the user did not give
	// it (an IOzone client file's line count).
	ThreadsFrom string `json:"threads_from,omitempty"`
	Total       int64  `json:"total"`     // aggregate bytes, divided among threads; 0 when FileSize is given
	FileSize    int64  `json:"file_size"` // bytes per thread; 0 when Total is given
	Block       int64  `json:"block_size"`
	RandBlock   int64  `json:"rand_block_size"`
	// TotalAuto sizes the aggregate at the seed's rule, twice what the
	// clients' and servers' caches hold; Total and FileSize are then 0
	// until the nodes have said how much memory they have.
	TotalAuto   bool      `json:"total_auto,omitempty"`
	ServerCache int64     `json:"server_cache,omitempty"` // what the servers can cache (--server-cache), bytes
	Phases      PhaseList `json:"phases"`
	Direct      bool      `json:"direct"`
	// OSync opens the data phases' files with O_SYNC (IOzone -o): each
	// write returns once its data is on stable storage.
	OSync bool `json:"o_sync,omitempty"`
	// ODSync opens them with O_DSYNC (IOzone -+D): each write returns once
	// its data, and the metadata needed to read it back, are on stable
	// storage; unlike O_SYNC, not the file's timestamps.
	ODSync     bool          `json:"o_dsync,omitempty"`
	Fsync      bool          `json:"fsync"`
	Verify     bool          `json:"verify,omitempty"`
	Keep       bool          `json:"keep"`
	DropCaches DropMode      `json:"drop_caches"`
	Iterations int           `json:"iterations"`
	Stonewall  time.Duration `json:"stonewall_ns,omitempty"`
	// RandTime bounds the timed part of random phases (0: none), so that
	// a random phase over a large aggregate cannot run for hours unasked.
	RandTime     time.Duration `json:"rand_time_ns,omitempty"`
	AllowMixedFS bool          `json:"allow_mixed_fs,omitempty"` // run even when nodes see different filesystems under --dir
	// IgnoreSpace and IgnoreMemory start a job its resource plan refuses:
	// for a filesystem that reports its free space or inodes wrongly, or
	// an estimate the user knows better than.
	IgnoreSpace  bool `json:"ignore_space,omitempty"`
	IgnoreMemory bool `json:"ignore_memory,omitempty"`
	// Engine is how threads issue operations: one at a time, or on
	// io_uring with up to IODepth in flight per thread.
	Engine  Engine `json:"engine,omitempty"`
	IODepth int    `json:"iodepth,omitempty"`
	// Layout is per-thread (one file each, the default) or shared (one
	// file for all threads) with Pattern segmented or strided; RandScope
	// says where a shared file's random phases draw offsets.
	Layout    Layout    `json:"layout,omitempty"`
	Pattern   Pattern   `json:"pattern,omitempty"`
	RandScope RandScope `json:"rand_scope,omitempty"`
	// RandOrder is the random phases' order of offsets: Shuffle (every
	// block once per pass, the default) or Uniform.
	RandOrder RandOrder `json:"rand_order,omitempty"`
	// RandCall is how the sync engine's random operations reach their
	// offset: CallPread (the default) or CallLseek.
	RandCall RandCall `json:"rand_call,omitempty"`
	// FirstDoneStop ends every thread's timed part when the first thread
	// to complete its last record raises a stop (IOzone's stonewall).
	FirstDoneStop bool `json:"first_done_stop,omitempty"`
	// The metadata phases: FilesPerThread files per thread, in per-thread
	// or one shared directory (MDDir), MDSize bytes each.
	FilesPerThread int   `json:"files_per_thread,omitempty"`
	MDDir          MDDir `json:"md_dir,omitempty"`
	MDSize         int64 `json:"md_size,omitempty"`
}

// WritesCallByCall says whether each write reaches the filesystem before
// it returns (O_DIRECT, O_SYNC, O_DSYNC), rather than the page cache.
func (j Job) WritesCallByCall() bool { return j.Direct || j.OSync || j.ODSync }

// Applied is j with the settings that shape nothing in it cleared: the
// shared file's pattern and random scope when every thread has a file of
// its own, and the metadata files' when no metadata phase runs. This is
// what the ranks receive and the result records (a rank takes FilesPerThread
// 0 to mean the job has no metadata files).
func (j Job) Applied() Job {
	if j.Layout != Shared {
		j.Pattern, j.RandScope = "", ""
	}
	if !slices.ContainsFunc(j.Phases, Phase.IsMeta) {
		j.FilesPerThread, j.MDDir, j.MDSize = 0, "", 0
	}
	return j
}
