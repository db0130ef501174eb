package rank

import "ioswarm/result"

// Request kinds the coordinator sends, in the order a job uses them.
const (
	KindSetup     = "setup"     // Setup → SetupReply: check the node; write nothing
	KindCreate    = "create"    // Create → Empty: make the job directory
	KindPrepare   = "prepare"   // Prepare → Empty: prefill files a phase needs (untimed)
	KindDrop      = "drop"      // Drop → DropReply: flush and drop caches
	KindResident  = "resident"  // Empty → ResidentReply: page-cache residency of the job's files
	KindRun       = "run"       // Run → RunReply: one timed phase
	KindFirstDone = "firstdone" // FirstDone → FirstDoneReply
	KindCleanup   = "cleanup"   // Empty → Empty: remove this rank's files
	KindProgress  = "progress"  // Progress, unsolicited from a rank during a phase
)

// Job is what every rank needs to know about the whole job.
type Job struct {
	ID         string `json:"id"`
	Seed       uint64 `json:"seed"`
	FileSize   int64  `json:"file_size"`
	Block      int64  `json:"block"`
	RandBlock  int64  `json:"rand_block"`
	Direct     bool   `json:"direct"`
	Fsync      bool   `json:"fsync"`
	Verify     bool   `json:"verify"`
	DropCaches string `json:"drop_caches"` // auto, on, off
	Keep       bool   `json:"keep"`
}

// Setup gives a rank the job and its share of the threads.
type Setup struct {
	Job      Job    `json:"job"`
	Rank     int    `json:"rank"`
	Host     string `json:"host"`
	Dir      string `json:"dir"`       // parent of the job directory on this node
	Threads  []int  `json:"threads"`   // global thread numbers this rank runs
	DropNode bool   `json:"drop_node"` // this rank drops the node's page cache
}

// SetupReply describes the node.
type SetupReply struct {
	Hostname string   `json:"hostname"`
	Kernel   string   `json:"kernel"`
	Arch     string   `json:"arch"`
	FSType   string   `json:"fs_type"`
	FreeB    int64    `json:"free_bytes"`
	CanDrop  bool     `json:"can_drop"`
	PID      int      `json:"pid"`
	Warnings []string `json:"warnings,omitempty"`
}

// Empty is the body of requests and replies that carry nothing.
type Empty struct{}

// Prepare asks a rank to make sure its files exist at full size before a
// phase that reads or rewrites them.
type Prepare struct {
	Phase string `json:"phase"`
}

// Drop asks a rank to drop cached pages before a phase.
type Drop struct {
	Phase string `json:"phase"`
}

// DropReply says how caches were dropped: drop_caches, fadvise, direct or none.
type DropReply struct {
	Method  string `json:"method"`
	Warning string `json:"warning,omitempty"`
}

// ResidentReply counts the job's pages of this rank's files in the page cache.
type ResidentReply struct {
	Resident int64 `json:"resident"`
	Total    int64 `json:"total"`
}

// Run starts one timed phase at ReleaseAt on the rank's own clock.
type Run struct {
	Phase       string `json:"phase"`
	Iteration   int    `json:"iteration"`
	ReleaseAt   int64  `json:"release_at"`
	StonewallNS int64  `json:"stonewall_ns,omitempty"`
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
}

// RunReply carries the phase's records and the rank's merged latency histogram.
type RunReply struct {
	ReleasedAt int64             `json:"released_at"`
	Threads    []ThreadRecord    `json:"threads"`
	Histogram  *result.Histogram `json:"histogram"`
}

// FirstDone asks how many bytes each thread had completed at At (rank clock).
type FirstDone struct {
	At int64 `json:"at"`
}

// FirstDoneReply lists bytes completed by At, in the order of RunReply.Threads.
type FirstDoneReply struct {
	Bytes []int64 `json:"bytes"`
}

// Progress is a rank's running total during a phase.
type Progress struct {
	Phase string `json:"phase"`
	Bytes int64  `json:"bytes"`
	Ops   int64  `json:"ops"`
}
