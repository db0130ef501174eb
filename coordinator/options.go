package coordinator

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"ioswarm/internal/usage"
	"ioswarm/launcher"
	"ioswarm/units"
)

// Launch says where the ranks run and how they are reached: what Start
// needs, and all it needs. A session keeps its Launch for every job it runs.
type Launch struct {
	Launcher launcher.Launcher
	Targets  []launcher.Target // nodes, in host order; empty for local runs
	// LocalRanks is how many ranks run on this machine when Targets is
	// empty.
	LocalRanks int
	// Threads is the most threads any job of the session runs. No more
	// ranks start than that (see place): a rank without threads would
	// only idle. 0 starts one rank per target.
	Threads int
	// Where the coordinator listens ("" = loopback for local runs, all
	// interfaces otherwise).
	Listen           string
	HeartbeatTimeout time.Duration
	Log              *launcher.LineWriter // rank logs and warnings
	// WrapWarning, when set, lays a warning out for the log, as the run
	// table lays out its own (wrapped to 80 columns, indented); nil logs
	// each as one line.
	WrapWarning func(text string) string
	// JoinTimeout bounds the wait for started ranks to join (0: 30 s);
	// JoinLimit names it in the error.
	JoinTimeout time.Duration
	JoinLimit   string
}

// local reports whether the ranks run on this machine.
func (l *Launch) local() bool { return len(l.Targets) == 0 }

// Validate checks the launch before anything starts.
func (l *Launch) Validate() error {
	if l.local() && l.LocalRanks < 1 {
		return usagef("--local-ranks %d: must be at least 1", l.LocalRanks)
	}
	if l.HeartbeatTimeout <= 0 {
		return usagef("--heartbeat-timeout %q: must be positive", l.HeartbeatTimeout.String())
	}
	for _, t := range l.Targets {
		// As a workload's --dir (see Workload.Validate).
		if !utf8.ValidString(t.Dir) {
			return usagef("node %s: dir=%q is not valid UTF-8; ioswarm needs a directory name it can pass to every node unchanged", t.Host, t.Dir)
		}
	}
	return nil
}

// Workload is one job as the user asked for it, with sizes already
// parsed: what runs, whichever ranks run it.
type Workload struct {
	Dir     string
	Threads int
	// ThreadsFrom says where Threads came from when the user did not give
	// it (an IOzone client file's line count).
	ThreadsFrom string
	Total       int64 // aggregate bytes, divided among threads; 0 when FileSize is given
	FileSize    int64 // bytes per thread; 0 when Total is given
	Block       int64
	RandBlock   int64
	Phases      []string
	Fsync       bool
	Direct      bool
	Verify      bool
	Keep        bool
	DropCaches  string // auto, on, off
	Iterations  int
	Stonewall   time.Duration
	// RandTime bounds the timed part of random phases (0: none), so that
	// a random phase over a large aggregate cannot run for hours unasked.
	RandTime time.Duration
	// ReadShift rotates the read phases' files this many nodes along
	// (ReadShiftAuto: one node when there are two or more).
	ReadShift int
	// TotalAuto sizes the aggregate at the seed's rule, twice what the
	// clients' and servers' caches hold; Total and FileSize are then 0
	// until the nodes have said how much memory they have.
	TotalAuto    bool
	ServerCache  int64 // what the servers can cache (--server-cache), bytes
	AllowMixedFS bool  // run even when nodes see different filesystems under --dir
	// IgnoreSpace and IgnoreMemory start a job its resource plan refuses
	// (see checkPlan): for a filesystem that reports its free space or
	// inodes wrongly, or an estimate the user knows better than.
	IgnoreSpace, IgnoreMemory bool
	// PlanThreads are the thread counts of a series that runs one launch
	// each with this job's file size per thread (`ioswarm iozone` with
	// -l/-u): the first job holds every one's resource plan against the
	// nodes before it writes anything (see checkSeries).
	PlanThreads []int
	// Engine is how threads issue operations: "sync" (pread/pwrite, one
	// at a time) or "io_uring" with up to IODepth in flight per thread.
	Engine  string
	IODepth int
	// Reuse names a kept job whose files the read phases read instead of
	// the job's own: its id, or ReuseLatest (see validateReuse).
	Reuse string
	// ReuseWrites lets a reusing job random-write into the kept files, as
	// IOzone's -i2 does and run's --reuse allows (it writes the bytes they
	// already hold).
	ReuseWrites bool
	// Layout is per-thread (one file each, the default) or shared (one
	// file for all threads) with Pattern segmented or strided; RandScope
	// says where a shared file's random phases draw offsets (see layout.go).
	Layout    string
	Pattern   string
	RandScope string
	// RandOrder is the random phases' order of offsets: wire.OrderShuffle
	// (every block once per pass, the default) or wire.OrderUniform.
	RandOrder string
	// FirstDoneStop ends every thread's timed part when the first thread
	// to complete its last record raises a stop (IOzone's stonewall; see
	// rank/firststop.go).
	FirstDoneStop bool
	// The metadata phases: FilesPerThread files per thread, in per-thread
	// or one shared directory (MDDir), MDSize bytes each.
	FilesPerThread int
	MDDir          string
	MDSize         int64

	Version     string
	CommandLine string
	Label       string
	Progress    Progress // nil = no live progress
}

// usagef is a problem with what the user asked for (see package usage).
func usagef(format string, args ...any) error { return usage.Errorf(format, args...) }

// Phase names, in the order users usually want them. rewrite and reread
// are IOzone's second passes: the same records over the existing files.
var knownPhases = []string{"write", "rewrite", "read", "reread", "randwrite", "randread",
	"mdcreate", "mdstat", "mdread", "mddelete"}

// Validate checks everything that can be checked before anything starts
// and settles FileSize and Total. on is where the job will run: its launch
// is checked too, and a local run's --dir is checked here.
func (o *Workload) Validate(on Launch) error {
	if err := on.Validate(); err != nil {
		return err
	}
	if o.Threads <= 0 {
		return usagef("--threads %d: must be at least 1", o.Threads)
	}
	if len(o.Phases) == 0 {
		return usagef("--phases: no phase given (known: %s)", strings.Join(knownPhases, ", "))
	}
	seen := map[string]bool{}
	for _, p := range o.Phases {
		if !slices.Contains(knownPhases, p) {
			return usagef("--phases: unknown phase %q (known: %s)", p, strings.Join(knownPhases, ", "))
		}
		if seen[p] {
			return usagef("--phases: phase %q given twice", p)
		}
		seen[p] = true
	}
	if o.onlyMD() {
		o.noDataSizes()
	} else if err := o.validateSizes(); err != nil {
		return err
	}
	if o.ReadShift < ReadShiftAuto {
		return usagef("--read-shift %d: must be auto or a number of nodes, 0 or more", o.ReadShift)
	}
	if o.ServerCache < 0 {
		return usagef("--server-cache: must not be negative")
	}
	if err := o.validateReuse(); err != nil {
		return err
	}
	// Requests travel as JSON, where bytes that are not UTF-8 become
	// U+FFFD: the rank would look for (or, worse, find) another directory.
	if !utf8.ValidString(o.Dir) {
		return usagef("--dir %q: not valid UTF-8; ioswarm needs a directory name it can pass to every node unchanged", o.Dir)
	}
	if err := o.validateEngine(); err != nil {
		return err
	}
	if err := o.validateLayout(); err != nil {
		return err
	}
	if err := o.validateRandOrder(); err != nil {
		return err
	}
	if err := o.validateFirstDoneStop(); err != nil {
		return err
	}
	if err := o.validateMD(); err != nil {
		return err
	}
	switch o.DropCaches {
	case "auto", "on", "off":
	default:
		return usagef("--drop-caches %q: must be auto, on or off", o.DropCaches)
	}
	if o.DropCaches == "on" && os.Geteuid() != 0 && on.local() {
		return usagef("--drop-caches on: dropping the page cache needs root (use auto to fall back to posix_fadvise)")
	}
	if o.Iterations < 1 {
		return usagef("--iterations %d: must be at least 1", o.Iterations)
	}
	if o.RandTime < 0 {
		return usagef("--rand-time %s: must not be negative (0 times every operation)", o.RandTime)
	}
	if o.Stonewall < 0 {
		return usagef("--stonewall %s: must not be negative", o.Stonewall)
	}
	if on.local() {
		return checkLocalDir(o.Dir)
	}
	return nil
}

func (o *Workload) validateSizes() error {
	if o.Block <= 0 {
		return usagef("--block: must be positive")
	}
	if o.Block%512 != 0 {
		return usagef("--block %d: must be a multiple of 512 bytes", o.Block)
	}
	if o.RandBlock <= 0 || o.RandBlock%512 != 0 {
		return usagef("--rand-block %d: must be a positive multiple of 512 bytes", o.RandBlock)
	}
	if o.Direct && (o.Block%4096 != 0 || o.RandBlock%4096 != 0) {
		return usagef("--direct needs --block and --rand-block aligned to 4 KiB (got %d and %d)", o.Block, o.RandBlock)
	}
	if (o.Total != 0 || o.TotalAuto) && o.FileSize != 0 {
		return usagef("--total and --file-size both given: use one (--total is divided among the threads)")
	}
	if o.TotalAuto {
		return nil // sized by autoTotal once the nodes are known
	}
	return o.validateAggregate()
}

// validateAggregate settles FileSize and Total from whichever was given.
func (o *Workload) validateAggregate() error {
	if o.FileSize == 0 {
		if o.Total <= 0 {
			return usagef("--total: must be positive")
		}
		per := o.Total / int64(o.Threads)
		if per < o.Block {
			return usagef("--total %s is smaller than --threads %d × --block %s; %s", units.FormatSize(o.Total), o.Threads,
				units.FormatSize(o.Block), o.tooSmallHint())
		}
		if o.Total%int64(o.Threads) != 0 || per%o.Block != 0 {
			lo := per / o.Block * o.Block * int64(o.Threads)
			return usagef("--total %s does not divide into %d threads × whole %s records; use --total %s or %s",
				units.FormatSize(o.Total), o.Threads, units.FormatSize(o.Block), units.FormatSize(lo), units.FormatSize(lo+o.Block*int64(o.Threads)))
		}
		o.FileSize = per
	} else {
		if o.FileSize < 0 {
			return usagef("--file-size: must be positive")
		}
		if o.FileSize%o.Block != 0 {
			lo := o.FileSize / o.Block * o.Block
			alt := units.FormatSize(lo + o.Block)
			if lo > 0 {
				alt = units.FormatSize(lo) + " or " + alt
			}
			return usagef("--file-size %s is not a whole number of %s records; use %s", units.FormatSize(o.FileSize), units.FormatSize(o.Block), alt)
		}
	}
	o.Total = o.FileSize * int64(o.Threads)
	if o.needsRand() && o.FileSize%o.RandBlock != 0 {
		return usagef("--rand-block %s does not divide the file size %s", units.FormatSize(o.RandBlock), units.FormatSize(o.FileSize))
	}
	return nil
}

// tooSmallHint proposes what fits when --total cannot give every thread a
// whole record: the total that does, and the most threads it can hold.
func (o *Workload) tooSmallHint() string {
	hint := "use --total " + units.FormatSize(o.Block*int64(o.Threads)) + " or more"
	for t := o.Total / o.Block; t >= 1; t-- {
		if o.Total%t == 0 && (o.Total/t)%o.Block == 0 {
			return fmt.Sprintf("%s, or --threads %d or fewer", hint, t)
		}
	}
	return hint
}

func (o *Workload) needsRand() bool {
	return slices.Contains(o.Phases, "randwrite") || slices.Contains(o.Phases, "randread")
}

// maxIODepth bounds --iodepth: a ring per thread of that many entries and
// as many buffers.
const maxIODepth = 4096

// validateEngine checks --engine and --iodepth; an empty engine is sync.
func (o *Workload) validateEngine() error {
	if o.Engine == "" && o.IODepth == 0 {
		// A workload built in Go rather than from flags.
		o.Engine, o.IODepth = "sync", 1
	}
	switch {
	case o.Engine == "":
		o.Engine = "sync"
		return o.validateEngine()
	case o.Engine != "sync" && o.Engine != "io_uring":
		return usagef("--engine %q: must be sync or io_uring", o.Engine)
	case o.IODepth < 1 || o.IODepth > maxIODepth:
		return usagef("--iodepth %d: must be 1 to %d", o.IODepth, maxIODepth)
	case o.Engine == "sync" && o.IODepth > 1:
		return usagef("--iodepth %d needs --engine io_uring (the sync engine has one operation in flight per thread)", o.IODepth)
	}
	return nil
}

// checkLocalDir catches a missing or unwritable directory before any rank
// starts, with the flag named.
func checkLocalDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return usagef("--dir %s: %v", dir, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return usagef("--dir %s: not a directory", dir)
	}
	if err := unix.Access(dir, unix.W_OK|unix.X_OK); err != nil {
		return usagef("--dir %s: not writable: %v", dir, err)
	}
	return nil
}
