package wire

import (
	"time"

	"ioswarm/nodefacts"
	"ioswarm/result"
	"ioswarm/settings"
)

// Request kinds the coordinator sends, in the order a job uses them.
const (
	KindFacts     = "facts"     // Facts → nodefacts.Facts: memory and filesystem of the node
	KindSetup     = "setup"     // Setup → SetupReply: check the node; write nothing
	KindCreate    = "create"    // Create → Empty: make the job directory
	KindPrepare   = "prepare"   // Prepare → Empty: prefill or remove files before a phase (untimed)
	KindDrop      = "drop"      // Drop → DropReply: flush and drop caches
	KindResident  = "resident"  // Resident → ResidentReply: page-cache residency of the files a phase uses
	KindRun       = "run"       // Run → RunReply: one timed phase
	KindFirstDone = "firstdone" // FirstDone → FirstDoneReply
	KindSeries    = "series"    // Series → SeriesReply: operations done over time
	KindCleanup   = "cleanup"   // Empty → Empty: remove this rank's files
	KindManifest  = "manifest"  // WriteManifest → Empty: describe the kept files
	KindFindKept  = "findkept"  // FindManifest → Manifest: a kept job's manifest
	KindProgress  = "progress"  // Progress, unsolicited from a rank during a phase
	KindShared    = "shared"    // MakeShared → Empty: rank 0 makes the shared file before a phase
	// KindStop is Stop, a note from a rank one of whose threads raised a
	// phase's first-done stop; the coordinator relays it to every rank.
	KindStop = "stop"
)

// Job is what every rank needs to know about the whole job.
type Job struct {
	ID   string `json:"id"`
	Seed uint64 `json:"seed"`
	// FilesOf is the kept job whose directory and files this job reads
	// (--reuse); empty means the job's own. Such a job never writes them,
	// and never removes them after a failure.
	FilesOf string `json:"files_of,omitempty"`
	// Job is the job's settings as the result records them, whole (see
	// settings.Job): Threads places the parts of a shared file,
	// FilesPerThread 0 means the job runs no metadata phase, an empty
	// Engine is sync and an empty RandOrder shuffle. The directory is not
	// among them: Setup.Dir is this node's.
	settings.Job
}

// MakeShared asks rank 0 to make the shared file, untimed, before a phase
// of a shared-layout job: for a write phase anew (an earlier one's
// removed), else only where it is missing or short; Make is false for the
// other ranks, which do nothing. Only then do the ranks prepare their
// parts (Prepare), so none writes into a file about to be replaced.
type MakeShared struct {
	Phase Phase `json:"phase"`
	Make  bool  `json:"make"`
}

// Setup gives a rank the job and its share of the threads.
type Setup struct {
	Job     Job    `json:"job"`
	Rank    int    `json:"rank"`
	Host    string `json:"host"`
	Dir     string `json:"dir"`     // parent of the job directory on this node
	Threads []int  `json:"threads"` // global thread numbers this rank runs
	// Sources[i] is the thread whose file Threads[i] reads in the read
	// phases (--read-shift); empty means each reads its own.
	Sources  []int `json:"sources,omitempty"`
	DropNode bool  `json:"drop_node"` // this rank drops the node's page cache
	// CPUSlot is the place of this rank's first thread among the threads
	// on its kernel: thread i waits for each start on the (CPUSlot+i)-th
	// CPU the rank may use, so that the threads of the ranks sharing a
	// node begin spread over its CPUs.
	CPUSlot int `json:"cpu_slot,omitempty"`
	// KernelThreads counts the job's threads on this rank's kernel, all
	// ranks': where they outnumber its CPUs, the rank holds its process
	// on its threads' CPUs from this setup to the next (rank/bind.go).
	KernelThreads int `json:"kernel_threads,omitempty"`
	// MemCap is the memory the rank may use before it fails itself with
	// an error (0: no cap), set by the resource plan.
	MemCap int64 `json:"mem_cap,omitempty"`
}

// SetupReply describes the node.
type SetupReply struct {
	Hostname string `json:"hostname"`
	Kernel   string `json:"kernel"`
	Arch     string `json:"arch"`
	FSType   string `json:"fs_type"`
	FreeB    int64  `json:"free_bytes"`
	CanDrop  bool   `json:"can_drop"`
	// NoUring says why io_uring cannot be used, when the job asks for it.
	NoUring  string   `json:"no_uring,omitempty"`
	PID      int      `json:"pid"`
	Warnings []string `json:"warnings,omitempty"`
}

// Facts asks a node about its memory and the filesystem under Dir.
type Facts struct {
	Dir string `json:"dir"`
}

// FactsReply is the node's answer.
type FactsReply = nodefacts.Facts

// Resident asks for the residency of the files the phase will use: for a
// read phase the files this rank's threads read, which with --read-shift
// other nodes wrote.
type Resident struct {
	Phase Phase `json:"phase"`
}

// Empty is the body of requests and replies that carry nothing.
type Empty struct{}

// Prepare asks a rank to make sure its files exist at full size before a
// phase that reads or rewrites them, and before a write phase to remove
// what an earlier phase left, so that no timed open truncates a file.
type Prepare struct {
	Phase Phase `json:"phase"`
	// Sources, for a read phase, is the thread whose file each of the
	// rank's threads (in Setup.Threads order) reads in this phase; empty
	// keeps the last. Further reads move to nodes that have not touched
	// the files, so they change from phase to phase.
	Sources []int `json:"sources,omitempty"`
}

// Drop asks a rank to drop cached pages before a phase.
type Drop struct {
	Phase Phase `json:"phase"`
}

// DropReply says how caches were dropped.
type DropReply struct {
	Method  settings.DropMethod `json:"method"`
	Warning string              `json:"warning,omitempty"`
}

// ResidentReply counts the job's pages of this rank's files in the page cache.
type ResidentReply struct {
	Resident int64 `json:"resident"`
	Total    int64 `json:"total"`
}

// Run starts one timed phase at ReleaseAt on the rank's own clock.
type Run struct {
	Phase       Phase `json:"phase"`
	Iteration   int   `json:"iteration"`
	ReleaseAt   int64 `json:"release_at"`
	StonewallNS int64 `json:"stonewall_ns,omitempty"`
	// FirstDoneStop asks for IOzone's stonewall, live: the first thread
	// (on any rank) to complete its last record raises a stop, and every
	// other thread ends its timed part at its next record boundary (see
	// rank/firststop.go).
	FirstDoneStop bool `json:"first_done_stop,omitempty"`
}

// Stop says that a thread has raised the first-done stop of a phase run.
type Stop struct {
	Phase     Phase `json:"phase"`
	Iteration int   `json:"iteration"`
}

// ThreadRecord is one thread's raw record on the rank's clock.
type ThreadRecord struct {
	Thread      int    `json:"thread"`
	File        string `json:"file"`
	Bytes       int64  `json:"bytes"` // bytes timed
	Ops         int64  `json:"ops"`   // operations timed
	StartNS     int64  `json:"start_ns"`
	EndNS       int64  `json:"end_ns"`
	Stonewalled bool   `json:"stonewalled,omitempty"`
	// The depth the thread's io_uring loop achieved: operations in
	// flight, sampled at each submission.
	DepthMean    float64 `json:"iodepth_achieved_mean,omitempty"`
	DepthMax     int     `json:"iodepth_achieved_max,omitempty"`
	DepthSamples int64   `json:"iodepth_samples,omitempty"`
	FsyncNS      int64   `json:"fsync_ns,omitempty"` // the timed fsync's duration
	CloseNS      int64   `json:"close_ns,omitempty"` // the timed close's duration

	// The depth the kernel held: requests handed to it and not yet
	// posted to the completion queue, at each submission (mean, max,
	// samples) and averaged over the loop's span (time mean, span).
	KernelDepthMean     float64 `json:"iodepth_kernel_at_submit_mean,omitempty"`
	KernelDepthMax      int     `json:"iodepth_kernel_at_submit_max,omitempty"`
	KernelDepthSamples  int64   `json:"iodepth_kernel_samples,omitempty"`
	KernelDepthTimeMean float64 `json:"iodepth_kernel_time_mean,omitempty"`
	KernelDepthSpanNS   int64   `json:"iodepth_kernel_span_ns,omitempty"`
	// With Run.FirstDoneStop, IOzone's account of the thread: the bytes
	// and operations it had completed when the stop reached it (all of
	// them for the thread that raised it) and when its timed part ended,
	// after its fsync and close; RaisedStopNS is when this thread raised
	// the stop (0: another did), UntimedEndNS when a stopped writer had
	// finished the rest of its file, untimed.
	StonewallBytes int64 `json:"stonewall_bytes,omitempty"`
	StonewallOps   int64 `json:"stonewall_ops,omitempty"`
	StonewallEndNS int64 `json:"stonewall_end_ns,omitempty"`
	RaisedStopNS   int64 `json:"raised_stop_ns,omitempty"`
	UntimedEndNS   int64 `json:"untimed_end_ns,omitempty"`
	// The CPU time (user + system) of the thread's own OS thread from its
	// start to the end of its work on the file (a stopped writer's
	// untimed rest included), and that span's wall time: IOzone's -+u
	// (rank/cputime.go). Both 0 when not measured.
	CPUNS     int64 `json:"cpu_ns,omitempty"`
	CPUWallNS int64 `json:"cpu_wall_ns,omitempty"`
}

// RunReply carries the phase's records and the rank's merged latency histogram.
type RunReply struct {
	ReleasedAt int64 `json:"released_at"`
	// ReadyAt is when the rank's last thread began to wait for the
	// release, after the rank had taken the run request (rank clock): past
	// ReleaseAt when the request came too late for the lead it was sent
	// with.
	ReadyAt   int64             `json:"ready_at,omitempty"`
	Threads   []ThreadRecord    `json:"threads"`
	Histogram *result.Histogram `json:"histogram"`
	// Intervals holds, for random phases, the rank's latency histogram
	// of each LatencyStep interval from the release.
	Intervals []*result.Histogram `json:"intervals,omitempty"`
	// ClientCache is, for a read phase, what the node's client cache
	// outside the page cache did during it.
	ClientCache *ClientCacheUse `json:"client_cache,omitempty"`
}

// FirstDone asks how many bytes each thread had completed at At (rank clock).
type FirstDone struct {
	At int64 `json:"at"`
}

// FirstDoneReply lists bytes completed by At, in the order of RunReply.Threads.
type FirstDoneReply struct {
	Bytes []int64 `json:"bytes"`
	Ops   []int64 `json:"ops,omitempty"` // operations completed by At, likewise
}

// Progress is a rank's running total during a phase.
type Progress struct {
	Phase Phase `json:"phase"`
	Bytes int64 `json:"bytes"`
	Ops   int64 `json:"ops"`
}

// LatencyStep is the length of the intervals random phases keep latency
// histograms for: long enough that an interval holds thousands of
// operations, short enough to show a stall. Interval k covers
// [release + k·step, release + (k+1)·step) on the rank's clock, and the
// release is one coordinator time for every rank, so the ranks' intervals
// line up and merge by adding buckets.
const LatencyStep = int64(time.Second)

// Series asks for a phase's time series: the operations every thread of
// the rank had completed by each of N boundaries Start+Step, Start+2·Step,
// ... (rank clock), from the threads' operation logs.
type Series struct {
	Start int64 `json:"start"`
	Step  int64 `json:"step"`
	N     int   `json:"n"`
}

// SeriesReply holds, per boundary, the operations the rank's threads had
// completed by then, summed over its threads: cumulative counts, which
// add up exactly across ranks where rates would not.
type SeriesReply struct {
	Ops []int64 `json:"ops"`
}

// KindMarker asks a rank to make, look for or remove the marker that
// tests whether the nodes share the job directory (Marker → MarkerReply).
const KindMarker = "marker"

// MarkerName is the marker's name in the job directory.
const MarkerName = ".shared-marker"

// The steps of the shared-directory test: one node makes the marker,
// every other node looks for it, the maker removes it. A rank asked for
// no step does nothing.
const (
	MarkerMake   = "make"
	MarkerLook   = "look"
	MarkerRemove = "remove"
)

// Marker is one step of the shared-directory test; Token is what the
// marker holds, new for every job.
type Marker struct {
	Step  string `json:"step,omitempty"`
	Token string `json:"token,omitempty"`
}

// MarkerReply says whether the rank saw the marker with its token.
type MarkerReply struct {
	Seen bool `json:"seen"`
}
