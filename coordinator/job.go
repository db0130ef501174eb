package coordinator

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"ioswarm/barrier"
	"ioswarm/figures"
	"ioswarm/launcher"
	"ioswarm/nodefacts"
	"ioswarm/result"
	"ioswarm/settings"
	"ioswarm/units"
	"ioswarm/wire"
)

// job is one run's state in the coordinator.
type job struct {
	s       *Session
	o       Workload
	id      string
	seed    uint64
	threads [][]int // threads[rank]; ranks past the placement get none
	dropper []bool
	members []barrier.MemberInfo
	res     *result.Job
	// sources[t] is the thread whose file thread t reads in read phases;
	// shift is the rotation that gives (0: every thread its own).
	sources []int
	shift   int
	// threadHost[t] is the host thread t runs on, from the placement.
	threadHost []string
	// What the nodes said, and what follows from it for the cache guard.
	facts       []nodefacts.Facts
	clientCache int64
	kernels     int
	// filesOf is the kept job whose files this job reads (--reuse), and
	// keptThreads how many threads' files it kept (this job may read the
	// first of them only).
	filesOf     string
	keptThreads int
	// release is the coordinator time the current phase was released at.
	release int64
	// memCaps[rank] is the memory the rank may use (see checkPlan).
	memCaps []int64
	// cold is who touched which file, for reads that stay cold.
	cold coldReads
	// kept is the manifest of the kept job this job reuses.
	kept wire.Manifest
}

// Run starts ranks for w (as many as its threads need), runs it and
// stops them. It returns the result also when the run fails, marked
// incomplete and holding only what was measured.
func Run(ctx context.Context, l Launch, w Workload) (*result.Job, error) {
	l.Threads = max(w.Threads, slices.Max(append([]int{0}, w.PlanThreads...)))
	s, err := Start(ctx, l)
	if err == nil {
		err = s.checkSeries(ctx, w)
	}
	if err != nil {
		// Ranks that never all joined still leave a result file to read
		// the error from, as every failed run does.
		if s != nil {
			s.Close(err)
		}
		return notStarted(l, w, err), err
	}
	res, err := s.Run(ctx, w)
	s.Close(err)
	return res, err
}

// notStarted is the result of a job whose ranks could not be started or
// did not all join: its configuration and the error, no phase.
func notStarted(l Launch, o Workload, err error) *result.Job {
	name := "local"
	if l.Launcher != nil {
		name = l.Launcher.Name()
	}
	return &result.Job{
		Version: o.Version, CommandLine: o.CommandLine, Label: o.Label,
		StartedAt: time.Now().Format(time.RFC3339), Launcher: name, Error: err.Error(),
		Config: o.config(0, 0),
	}
}

// Run runs one job on the session's ranks: on the first w.Threads of
// them, or all when it has more threads than ranks. A failure ends the
// session's usefulness: the caller closes it with the error.
func (s *Session) Run(ctx context.Context, w Workload) (*result.Job, error) {
	j, err := s.newJob(w)
	if err != nil {
		return nil, err
	}
	s.current = j
	ctx, cancel := s.guard(ctx)
	defer cancel(nil)
	begin := time.Now()
	defer func() {
		if r := s.Rejected(); len(r) > 0 {
			j.res.RejectedConnections = r
		}
		j.res.ElapsedNS = int64(time.Since(begin))
		j.res.OutsidePhasesNS = result.OutsidePhases(j.res.ElapsedNS, j.res.Phases)
	}()
	if err := j.run(ctx); err != nil {
		err = s.failure(ctx, err)
		j.res.Error = err.Error()
		return j.res, err
	}
	j.res.Complete = true
	return j.res, nil
}

func (s *Session) newJob(o Workload) (*job, error) {
	random := make([]byte, 6+8)
	if _, err := rand.Read(random); err != nil {
		return nil, fmt.Errorf("job id: %w", err)
	}
	pl := place(o.Threads, s.targets)
	hosts := make([]string, len(pl.targets))
	for r, t := range pl.targets {
		hosts[r] = t.Host
	}
	sources, shift, note, err := readSources(pl.threads, hosts, o.ReadShift)
	if err != nil {
		return nil, err
	}
	threadHost := make([]string, o.Threads)
	for r, th := range pl.threads {
		for _, t := range th {
			threadHost[t] = hosts[r]
		}
	}
	id := hex.EncodeToString(random[:6])
	if s.current == nil {
		// The first job takes the session's id, so the ranks' --job (what
		// ps shows on a node) names its directory, ioswarm-<id>.
		id = s.id
	}
	j := &job{s: s, o: o, sources: sources, shift: shift, threadHost: threadHost, id: id, seed: binary.LittleEndian.Uint64(random[6:]),
		threads: make([][]int, len(s.targets)), dropper: make([]bool, len(s.targets)), members: s.members}
	copy(j.threads, pl.threads)
	copy(j.dropper, pl.dropper)
	j.res = &result.Job{
		Version: o.Version, JobID: j.id, SessionID: s.id, CommandLine: o.CommandLine, Label: o.Label,
		StartedAt: time.Now().Format(time.RFC3339), Launcher: s.o.Launcher.Name(),
		Config: o.config(len(pl.targets), shift),
	}
	if note != "" {
		j.warn(note)
	}
	return j, nil
}

func (j *job) run(ctx context.Context) error {
	if err := j.setup(ctx); err != nil {
		return err
	}
	for it := 1; it <= j.o.Iterations; it++ {
		for _, name := range j.o.Phases {
			p, err := j.phase(ctx, name, it)
			if err != nil {
				return fmt.Errorf("phase %s: %w", name, err)
			}
			j.res.Phases = append(j.res.Phases, p)
			if err := j.recordReuse(ctx, name); err != nil {
				return err
			}
		}
	}
	j.res.Summary = figures.Summarize(j.res.Phases)
	if j.o.Keep {
		if err := j.keepManifest(ctx); err != nil {
			return err
		}
	}
	if _, err := j.s.coord.Call(ctx, wire.KindCleanup, same(wire.Empty{})); err != nil {
		return fmt.Errorf("cleanup: %w", err)
	}
	return nil
}

// same builds the same request body for every rank.
func same(v any) func(int) any { return func(int) any { return v } }

func (j *job) dirOf(t launcher.Target) string {
	if t.Dir != "" {
		return t.Dir
	}
	return j.o.Dir
}

// setup sends each rank its share, checks every node before anything is
// written anywhere, then creates the job directories.
func (j *job) setup(ctx context.Context) error {
	facts, err := j.askFacts(ctx)
	if err != nil {
		return err
	}
	if err := j.useFacts(facts); err != nil {
		return err
	}
	if j.o.Reuse != "" {
		if err := j.useKept(ctx); err != nil {
			return err
		}
	}
	if err := j.checkPlan(facts); err != nil {
		return err
	}
	replies, err := callAll[wire.SetupReply](ctx, j.s.coord, wire.KindSetup, "setup", func(r int) any {
		t := j.s.targets[r]
		return wire.Setup{Job: j.rankJob(), Rank: r, Host: t.Host, Dir: j.dirOf(t),
			Threads: j.threads[r], Sources: j.sourcesOf(r), DropNode: j.dropper[r], MemCap: j.memCap(r)}
	})
	if err != nil {
		return fmt.Errorf("checking nodes: %w", err)
	}
	if err := j.noteHosts(replies, facts); err != nil {
		return err
	}
	j.notePlan()
	if _, err := j.s.coord.Call(ctx, wire.KindCreate, same(wire.Empty{})); err != nil {
		return fmt.Errorf("creating job directory: %w", err)
	}
	return j.testShared(ctx)
}

// useFacts checks that every node measures one filesystem and keeps what
// the nodes' facts decide: who drops each kernel's cache, the client
// caches, and --total auto's size.
func (j *job) useFacts(facts []nodefacts.Facts) error {
	if err := j.sameFilesystem(facts); err != nil {
		return err
	}
	j.facts = facts
	j.dropper = j.droppers(facts)
	j.noteKernels(facts)
	j.initColdReads()
	j.clientCache, j.kernels = j.sumClientCache(facts)
	if j.o.TotalAuto {
		return j.sizeAuto()
	}
	return nil
}

// useKept finds the job --reuse names and takes its files: they hold the
// kept job's pattern, so they are read and verified with its seed.
func (j *job) useKept(ctx context.Context) error {
	m, err := j.findKept(ctx)
	if err != nil {
		return err
	}
	j.filesOf, j.seed, j.keptThreads, j.kept = m.JobID, m.Seed, m.Threads, m
	j.applyKept(m)
	j.res.Config.ReusedJob = m.JobID
	j.s.o.Log.Printf("--reuse: reading the files job %s kept in %s\n", m.JobID, wire.JobDir(j.dirOf(j.s.targets[0]), m.JobID))
	return nil
}

// noteHosts refuses a node that cannot run the job as asked, passes on
// the nodes' warnings, and records every working rank's host.
func (j *job) noteHosts(replies []wire.SetupReply, facts []nodefacts.Facts) error {
	for r, s := range replies {
		t := j.s.targets[r]
		if len(j.threads[r]) == 0 {
			continue
		}
		if s.NoUring != "" {
			return usagef("host %s rank %d: --engine io_uring: %s", t.Host, r, s.NoUring)
		}
		if j.o.DropCaches == settings.DropOn && !s.CanDrop {
			return &barrier.RankError{Host: t.Host, Rank: r,
				Msg: "--drop-caches on, but this node's page cache cannot be dropped (not root)"}
		}
		for _, w := range s.Warnings {
			j.warn(fmt.Sprintf("host %s rank %d: %s", t.Host, r, w))
		}
		m, f := j.members[r], facts[r]
		j.res.Hosts = append(j.res.Hosts, result.Host{
			Host: t.Host, Rank: r, Threads: len(j.threads[r]), Kernel: s.Kernel, Arch: s.Arch,
			FSType: s.FSType, Dir: j.dirOf(t), AbsDir: f.AbsDir, ClockOffsetNS: m.ClockOffset, ClockErrorNS: m.ClockError,
			MemTotal: f.MemTotal, CacheBytes: f.CacheBytes, CacheNotes: f.CacheNotes, BootID: f.BootID,
			MountPoint: f.MountPoint, FSSource: f.FSSource, MountOptions: f.MountOptions,
			FSBlockSize: f.BlockSize, Stripe: f.Stripe, ClientCache: hostClientCache(f.ClientCache),
		})
	}
	return nil
}

// sourcesOf lists, for each of rank r's threads, whose file it reads.
func (j *job) sourcesOf(r int) []int {
	src := make([]int, len(j.threads[r]))
	for i, t := range j.threads[r] {
		src[i] = j.sources[t]
	}
	return src
}

// sizeAuto settles --total auto from what the nodes can cache.
func (j *job) sizeAuto() error {
	total := autoTotal(j.clientCache, j.o.ServerCache, j.o.Threads, j.o.Block, j.o.RandBlock)
	j.o.Total, j.o.FileSize = total, 0
	if err := j.o.validateAggregate(); err != nil {
		return err
	}
	j.o.settleAggregate()
	j.res.Config.Total, j.res.Config.FileSize = j.o.Total, j.o.FileSize
	j.s.o.Log.Printf("--total auto: %s, that is --total %s (2 × (clients %s on %d node(s) + servers %s), in whole records)\n",
		units.FormatBytes(total), units.FormatSize(total), units.FormatBytes(j.clientCache), j.kernels, units.FormatBytes(j.o.ServerCache))
	return nil
}

func (j *job) rankJob() wire.Job {
	rj := wire.Job{ID: j.id, Seed: j.seed, FileSize: j.o.FileSize, Block: j.o.Block,
		RandBlock: j.o.RandBlock, Direct: j.o.Direct, Fsync: j.o.Fsync, Verify: j.o.Verify,
		DropCaches: j.o.DropCaches, Keep: j.o.Keep, FilesOf: j.filesOf, Engine: j.o.Engine, IODepth: j.o.IODepth,
		Threads: j.o.Threads, Layout: j.o.Layout, Pattern: j.o.Pattern, RandScope: j.o.RandScope,
		RandOrder: j.o.RandOrder}
	if j.o.hasMD() {
		rj.MDFiles, rj.MDDir, rj.MDSize = j.o.FilesPerThread, j.o.MDDir, j.o.MDSize
	}
	return rj
}

func (j *job) warn(msg string) {
	j.res.Warnings = append(j.res.Warnings, msg)
	j.s.o.logWarning(msg)
}
