// Package result holds the result file: the stable JSON contract of DESIGN §9.
//
// Field names here are a promise to users' scripts: fields may be added,
// never renamed or removed. Sizes are bytes, rates bytes per second, times
// nanoseconds on the coordinator's monotonic clock.
//
// This package holds data only; of the project's packages it imports
// settings alone (the types of the configuration's enumerated settings,
// which marshal to the same words).
package result

import "ioswarm/settings"

// Job is one run: configuration, hosts and every phase with its thread records.
type Job struct {
	Version string `json:"ioswarm_version"`
	JobID   string `json:"job_id"` // names the job directory, <dir>/ioswarm-<job_id>
	// SessionID is the id the rank processes were started with (their
	// --job): the first job of a session has the same id, the later
	// points of a sweep their own.
	SessionID   string   `json:"session_id,omitempty"`
	CommandLine string   `json:"command_line"`
	StartedAt   string   `json:"started_at"` // RFC 3339
	Launcher    string   `json:"launcher"`   // "local", "ssh" or "srun"
	Label       string   `json:"label,omitempty"`
	Config      Config   `json:"config"`
	Hosts       []Host   `json:"hosts"`
	Phases      []Phase  `json:"phases"`
	Warnings    []string `json:"warnings,omitempty"`
	// RejectedConnections counts, by source address, the connections to
	// the coordinator's port refused for not proving the job's secret.
	RejectedConnections map[string]int `json:"rejected_connections,omitempty"`
	// Complete is false when the run ended early (error, Ctrl-C); the
	// phases present are then not a valid measurement of the whole job.
	Complete bool   `json:"complete"`
	Error    string `json:"error,omitempty"`
	// Summary holds, per phase name, mean, min, max and sample standard
	// deviation of each figure across iterations (figures.Summarize).
	Summary []PhaseSummary `json:"summary,omitempty"`
	// ElapsedNS is the job's own time on the coordinator's monotonic
	// clock, from its start on ranks already running (for a sweep's
	// point, after the previous point) to its end, cleanup included: the
	// launch is not in it. OutsidePhasesNS is ElapsedNS less every
	// phase's window: what the job spent outside its timed phases (node
	// checks, job directories, cache drops, prefills, clock probes,
	// gathering records, cleanup). figures.Check recomputes it.
	ElapsedNS       int64 `json:"elapsed_ns,omitempty"`
	OutsidePhasesNS int64 `json:"outside_phases_ns,omitempty"`
}

// OutsidePhases is elapsed less the sum of the phases' windows.
func OutsidePhases(elapsed int64, phases []Phase) int64 {
	for _, p := range phases {
		elapsed -= p.WindowNS
	}
	return elapsed
}

// Config is everything that shaped the run.
type Config struct {
	Threads       int                `json:"threads"`
	BlockSize     int64              `json:"block_size"`
	RandBlockSize int64              `json:"rand_block_size"`
	FileSize      int64              `json:"file_size"` // per thread
	Total         int64              `json:"total"`     // FileSize × Threads
	Dir           string             `json:"dir"`
	Direct        bool               `json:"direct"`
	OSync         bool               `json:"o_sync,omitempty"`  // every file opened with O_SYNC (--o-sync, IOzone -o)
	ODSync        bool               `json:"o_dsync,omitempty"` // every file opened with O_DSYNC (--o-dsync, IOzone -+D)
	Fsync         bool               `json:"fsync"`
	Phases        settings.PhaseList `json:"phases"`
	DropCaches    settings.DropMode  `json:"drop_caches"` // requested
	Ranks         int                `json:"ranks"`
	Iterations    int                `json:"iterations"`
	StonewallNS   int64              `json:"stonewall_ns,omitempty"`
	Verify        bool               `json:"verify,omitempty"`
	Keep          bool               `json:"keep"`
	// ReadShift is the rotation the read phases used: each thread read the
	// file written this many nodes further along (IOR's -Q); 0 = its own.
	// ReadShiftRequested is what was asked ("auto" or a number).
	ReadShift          int    `json:"read_shift"`
	ReadShiftRequested string `json:"read_shift_requested,omitempty"`
	// ServerCache is what the user said the servers can cache (--server-cache).
	ServerCache  int64 `json:"server_cache,omitempty"`
	TotalAuto    bool  `json:"total_auto,omitempty"` // --total auto chose Total
	AllowMixedFS bool  `json:"allow_mixed_fs,omitempty"`
	// ReusedJob is the kept job whose files the read phases read (--reuse).
	ReusedJob string `json:"reused_job,omitempty"`
	// ThreadsFrom says where Threads came from when not from --threads.
	ThreadsFrom string `json:"threads_from,omitempty"`
	// Engine is sync (pread/pwrite, one operation in flight per thread)
	// or io_uring, with IODepth operations in flight per thread at most.
	Engine  settings.Engine `json:"engine,omitempty"`
	IODepth int             `json:"iodepth,omitempty"`
	// RandTimeNS bounds the timed part of random phases (--rand-time).
	RandTimeNS int64 `json:"rand_time_ns,omitempty"`
	// Layout is "per-thread" (a file per thread) or "shared" (one file,
	// shared.dat, for all threads); for shared, Pattern is "segmented"
	// (thread i's bytes at [i·file_size, (i+1)·file_size)) or "strided"
	// (record j of thread i at (j·threads + i)·block_size), and RandScope
	// where random phases draw offsets: "segment" (the thread's own part)
	// or "file" (anywhere in it). Absent from files before shared files.
	Layout    settings.Layout    `json:"layout,omitempty"`
	Pattern   settings.Pattern   `json:"pattern,omitempty"`
	RandScope settings.RandScope `json:"rand_scope,omitempty"`
	// RandOrder is the random phases' order of offsets: "shuffle" (every
	// block of the file once per pass, in a random order, as IOzone's -i2
	// and fio's default) or "uniform" (drawn with replacement: some blocks
	// twice, some never). Absent from files before the choice existed,
	// whose random phases drew uniformly.
	RandOrder settings.RandOrder `json:"rand_order,omitempty"`
	// RandCall is how the sync engine's random operations reached their
	// offsets: "pread" (pread/pwrite) or "lseek" (lseek and then
	// read/write, as IOzone's -i2; `ioswarm iozone` runs so). Absent from
	// files before the choice existed, whose random phases used pread.
	RandCall settings.RandCall `json:"rand_call,omitempty"`
	// FirstDoneStop: every thread's timed part ended when the first thread
	// to complete its last record raised a stop (IOzone's stonewall, as
	// `ioswarm iozone` runs without -x; --first-done-stop).
	FirstDoneStop bool `json:"first_done_stop,omitempty"`
	// The metadata phases' files: FilesPerThread per thread, in a
	// directory per thread or one shared ("per-thread" or "shared"),
	// MDSize bytes each.
	FilesPerThread int            `json:"files_per_thread,omitempty"`
	MDDir          settings.MDDir `json:"md_dir,omitempty"`
	MDSize         int64          `json:"md_size,omitempty"`
	// IgnoreSpace and IgnoreMemory say the job started past its resource
	// plan's check of free space and inodes, or of memory
	// (--ignore-space, --ignore-memory).
	IgnoreSpace  bool `json:"ignore_space,omitempty"`
	IgnoreMemory bool `json:"ignore_memory,omitempty"`
}

// WritesCallByCall says whether each write reached the filesystem before
// it returned (O_DIRECT, O_SYNC, O_DSYNC), rather than the page cache.
func (c Config) WritesCallByCall() bool { return c.Direct || c.OSync || c.ODSync }

// Host is one rank's node.
type Host struct {
	Host    string `json:"host"`
	Rank    int    `json:"rank"`
	Threads int    `json:"threads"`
	Kernel  string `json:"kernel"`
	Arch    string `json:"arch"`
	FSType  string `json:"fs_type"`
	// Dir is the benchmark directory on this node as given (--dir or the
	// host file's dir=); AbsDir is the absolute path the node resolved
	// it to (a relative dir is relative to where the rank started).
	Dir           string `json:"dir,omitempty"`
	AbsDir        string `json:"abs_dir,omitempty"`
	ClockOffsetNS int64  `json:"clock_offset_ns"` // rank clock − coordinator clock
	ClockErrorNS  int64  `json:"clock_error_ns"`  // bound on |offset error| (half the best round trip)
	// What the node said of its memory and of the filesystem under --dir.
	MemTotal     int64    `json:"mem_total"`
	CacheBytes   int64    `json:"cache_bytes"` // what its client caches can hold (see nodefacts)
	CacheNotes   []string `json:"cache_notes,omitempty"`
	BootID       string   `json:"boot_id,omitempty"` // equal on nodes that share one kernel
	MountPoint   string   `json:"mount_point"`
	FSSource     string   `json:"fs_source"`
	MountOptions string   `json:"mount_options"`
	FSBlockSize  int64    `json:"fs_block_size"`
	Stripe       string   `json:"stripe,omitempty"`
	// The resource plan on this rank (bytes; absent in older files): its
	// memory estimate and the cap the rank held itself to, what the node
	// said it had available, and what the rank writes under --dir
	// against what was free there.
	MemPlan      int64 `json:"mem_plan,omitempty"`
	MemCap       int64 `json:"mem_cap,omitempty"`
	MemAvailable int64 `json:"mem_available,omitempty"`
	DiskPlan     int64 `json:"disk_plan,omitempty"`
	FreeBytes    int64 `json:"free_bytes,omitempty"`
	// The client cache of the node's mount of --dir (see ClientCache).
	ClientCache *ClientCache `json:"client_cache,omitempty"`
	// FreePageReporting: the node hands freed memory back to its
	// hypervisor, so its buffered figures also depend on how long before
	// each phase memory was freed (the job warns; absent in older files
	// and where false).
	FreePageReporting bool `json:"free_page_reporting,omitempty"`
}

// Phase is one timed phase (one iteration of it) with its figures and records.
type Phase struct {
	Name               string  `json:"name"` // write, rewrite, read, reread, randwrite, randread
	Iteration          int     `json:"iteration"`
	Bytes              int64   `json:"bytes"`
	Ops                int64   `json:"ops"`
	Bandwidth          float64 `json:"bandwidth"`            // Bytes / WindowNS
	FirstDoneBandwidth float64 `json:"first_done_bandwidth"` // bytes_at_first_done sum / (FirstDoneNS − earliest start); 0 when FirstDoneNote says why
	SumOfRates         float64 `json:"sum_of_rates"`         // Σ bytes_i / (end_i − start_i)
	IOPS               float64 `json:"iops"`                 // Ops / WindowNS
	WindowNS           int64   `json:"window_ns"`            // latest end − earliest start
	StartSkewNS        int64   `json:"start_skew_ns"`        // latest start − earliest start
	ReleaseSkewNS      int64   `json:"release_skew_ns"`      // spread of the measured release moments of the ranks with threads in the phase: their first threads' wake-up lateness, no clock error
	// ReleaseLeadNS is how far ahead of the run request the release was
	// set (coordinator clock); ReleaseMarginNS is the release less the
	// moment the last rank's threads were all waiting for it: what was
	// left of the lead, negative when they were ready only after it and
	// started late.
	ReleaseLeadNS   int64   `json:"release_lead_ns,omitempty"`
	ReleaseMarginNS int64   `json:"release_margin_ns,omitempty"`
	FirstDoneNS     int64   `json:"first_done_ns"`    // earliest thread end, coordinator clock
	StartNS         int64   `json:"start_ns"`         // earliest thread start, coordinator clock
	ThreadBandwidth Spread  `json:"thread_bandwidth"` // per-thread bytes/(end−start)
	Latency         Latency `json:"latency_ns"`
	// FsyncLatency is over the threads' timed fsyncs (thread fsync_ns),
	// absent when the phase timed none; FsyncShare is Σ fsync_ns /
	// Σ (end_ns − start_ns) over all threads: the share of the threads'
	// timed time that was fsync.
	FsyncLatency *Latency `json:"fsync_latency_ns,omitempty"`
	FsyncShare   float64  `json:"fsync_share,omitempty"`
	// FirstDoneNote, when set, says why first_done_bandwidth is not
	// reported for this phase (and is 0): see figures.FirstDoneNote.
	FirstDoneNote string `json:"first_done_note,omitempty"`
	// Histogram holds the merged latency histogram (see package histogram)
	// so percentiles can be recomputed from the file.
	Histogram        *Histogram          `json:"latency_histogram,omitempty"`
	CacheDrop        settings.DropMethod `json:"cache_drop"`
	ResidentFraction float64             `json:"resident_fraction"`
	Stonewalled      bool                `json:"stonewalled"`
	TimedBytes       int64               `json:"timed_bytes"`
	Verified         bool                `json:"verified,omitempty"`
	// The queue depth asked for and the depth the threads' rings achieved:
	// operations in flight (queued and not yet reaped) sampled at each
	// submission, the mean over all samples of all threads and the largest
	// seen (io_uring only). What the kernel held is below.
	IODepth             int     `json:"iodepth,omitempty"`
	IODepthAchievedMean float64 `json:"iodepth_achieved_mean,omitempty"`
	IODepthAchievedMax  int     `json:"iodepth_achieved_max,omitempty"`

	// The depth the kernel held (io_uring only): requests handed to it and
	// not yet posted to the completion queue, reaped or not. At each
	// submission, counting the request submitted: the mean over every
	// submission of every thread and the largest. Over time: each thread's
	// mean over its loop's span, weighted by that span. The achieved
	// figures above count a request until it is reaped, which keeps them
	// at the depth asked; files without these fields had only those.
	IODepthKernelAtSubmitMean float64 `json:"iodepth_kernel_at_submit_mean,omitempty"`
	IODepthKernelAtSubmitMax  int     `json:"iodepth_kernel_at_submit_max,omitempty"`
	IODepthKernelTimeMean     float64 `json:"iodepth_kernel_time_mean,omitempty"`

	// Series is the phase over time: what completed in each interval.
	Series *Series `json:"series,omitempty"`
	// LatencySeries is a random phase's latency over time.
	LatencySeries *LatencySeries `json:"latency_series,omitempty"`
	// Metadata phases (mdcreate, mdstat, mdread, mddelete): OpsPerSec is
	// ops / window_ns (the definition of iops, which holds the same
	// value); FirstDoneOpsPerSec is Σ ops_at_first_done / (first_done_ns
	// − start_ns); ThreadOpsPerSec is the spread of ops_i / (end_i −
	// start_i).
	OpsPerSec          float64 `json:"ops_per_sec,omitempty"`
	FirstDoneOpsPerSec float64 `json:"first_done_ops_per_sec,omitempty"`
	ThreadOpsPerSec    *Spread `json:"thread_ops_per_sec,omitempty"`
	// ResidentByHost is ResidentFraction node by node.
	ResidentByHost []HostResidency `json:"resident_by_host,omitempty"`
	CacheGuard     *CacheGuard     `json:"cache_guard,omitempty"`
	// ClientCacheByHost is, for a read phase, what each node's client
	// cache outside the page cache served (see HostClientCache).
	ClientCacheByHost []HostClientCache `json:"client_cache_by_host,omitempty"`
	// Warnings are what a reader of this phase's figures must know (a read
	// that may have come from a cache); they are also in the job's list.
	Warnings []string `json:"warnings,omitempty"`
	Threads  []Thread `json:"threads"`
	// The cache verdict of a read phase: "storage" when every node's part
	// is shown to come from storage, else "maybe-cache", with one sentence
	// for people and the verdict node by node (see NodeVerdict).
	CacheVerdict  string        `json:"cache_verdict,omitempty"`
	CacheReason   string        `json:"cache_reason,omitempty"`
	CacheVerdicts []NodeVerdict `json:"cache_verdicts,omitempty"`
	// ReadShift is the rotation this read phase used (nodes along); a
	// further read of the same files moves on to nodes that have not
	// touched them.
	ReadShift *int `json:"read_shift,omitempty"`
}
