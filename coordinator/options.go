package coordinator

import (
	"errors"
	"os"
	"slices"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"ioswarm/internal/usage"
	"ioswarm/launcher"
	"ioswarm/settings"
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
	// Job is every setting the ranks receive and the result records,
	// carried whole (see settings.Job): a setting added there needs no
	// copy here, in the message to the ranks or in the result.
	settings.Job
	// Dir is --dir: each node's own directory travels in its setup (a
	// host file may give a node its own), so it is not in Job.
	Dir string
	// ReadShift rotates the read phases' files this many nodes along
	// (ReadShiftAuto: one node when there are two or more). The ranks get
	// the files it settles on; the result records both (see config).
	ReadShift int
	// PlanThreads are the thread counts of a series that runs one launch
	// each with this job's file size per thread (`ioswarm iozone` with
	// -l/-u): the first job holds every one's resource plan against the
	// nodes before it writes anything (see checkSeries).
	PlanThreads []int
	// Reuse names a kept job whose files the read phases read instead of
	// the job's own: its id, or ReuseLatest (see validateReuse).
	Reuse string
	// ReuseWrites lets a reusing job random-write into the kept files, as
	// IOzone's -i2 does and run's --reuse allows (it writes the bytes they
	// already hold).
	ReuseWrites bool

	Version     string
	CommandLine string
	Label       string
	Progress    Progress // nil = no live progress
}

// usagef is a problem with what the user asked for (see package usage).
func usagef(format string, args ...any) error { return usage.Errorf(format, args...) }

// Settle makes the workload ready to run on on: it gives what a workload
// built in Go left empty its flag's default, validates the launch and the
// workload, settles its sizes and, for a local run, checks this machine's
// --dir and privileges. Every command calls it once before Run, so a bad
// launch is refused, as a bad workload is, before any rank starts or any
// result is written; it is the one place a Launch is validated (Start
// relies on it).
func (o *Workload) Settle(on Launch) error {
	o.fillDefaults()
	if err := on.Validate(); err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return err
	}
	o.settleSizes()
	if on.local() {
		return o.checkLocal()
	}
	return nil
}

// fillDefaults gives the settings a workload built in Go left at their
// zero value the default of their flag. (--drop-caches has none: a
// workload must say.)
func (o *Workload) fillDefaults() {
	if o.Engine == "" {
		o.Engine = settings.Sync
		if o.IODepth == 0 {
			o.IODepth = 1
		}
	}
	if o.Layout == "" {
		o.Layout = settings.PerThread
	}
	if o.Pattern == "" {
		o.Pattern = settings.Segmented
	}
	if o.RandScope == "" {
		o.RandScope = settings.ScopeSegment
	}
	if o.RandOrder == "" {
		// Each block once per pass, as IOzone's -i2 and fio's default do,
		// so a buffered random read never finds a block that the same
		// phase already brought into the page cache.
		o.RandOrder = settings.Shuffle
	}
	if o.RandCall == "" {
		o.RandCall = settings.CallPread
	}
	if o.MDDir == "" {
		o.MDDir = settings.MDDirPerThread
	}
}

// Validate checks everything about the workload that can be checked
// before anything starts, on o as it is: it changes nothing and reads
// nothing outside o (Settle fills defaults first, checks the launch, and
// checks the machine after).
func (o Workload) Validate() error {
	if o.Threads <= 0 {
		return usagef("--threads %d: must be at least 1", o.Threads)
	}
	if err := o.Phases.Check(); err != nil {
		return err
	}
	if !o.onlyMD() {
		if err := o.validateSizes(); err != nil {
			return err
		}
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
	for _, check := range []func() error{o.validateEngine, o.validateLayout, o.RandOrder.Check, o.RandCall.Check,
		o.validateFirstDoneStop, o.validateMD, o.DropCaches.Check} {
		if err := check(); err != nil {
			return err
		}
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
	return nil
}

func (o *Workload) needsRand() bool {
	return slices.ContainsFunc(o.Phases, settings.Phase.IsRandom)
}

// needsSeq says whether a phase moves --block records in file order.
func (o *Workload) needsSeq() bool {
	return slices.ContainsFunc(o.Phases, func(p settings.Phase) bool { return !p.IsRandom() && !p.IsMeta() })
}

// maxIODepth bounds --iodepth: a ring per thread of that many entries and
// as many buffers.
const maxIODepth = 4096

// validateEngine checks --engine and --iodepth, and --rand-call against the engine.
func (o *Workload) validateEngine() error {
	if err := o.Engine.Check(); err != nil {
		return err
	}
	switch {
	case o.IODepth < 1 || o.IODepth > maxIODepth:
		return usagef("--iodepth %d: must be 1 to %d", o.IODepth, maxIODepth)
	case o.Engine == settings.Sync && o.IODepth > 1:
		return usagef("--iodepth %d needs --engine io_uring (the sync engine has one operation in flight per thread)", o.IODepth)
	case o.Engine != settings.Sync && o.RandCall == settings.CallLseek:
		return usagef("--rand-call %s needs --engine sync (io_uring places every operation at its offset itself)", o.RandCall)
	}
	return nil
}

// checkLocal checks what a local run needs of this machine: root for
// --drop-caches on, and a --dir it can write.
func (o *Workload) checkLocal() error {
	if o.DropCaches == settings.DropOn && os.Geteuid() != 0 {
		return usagef("--drop-caches on: dropping the page cache needs root (use auto to fall back to posix_fadvise)")
	}
	return checkLocalDir(o.Dir)
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
