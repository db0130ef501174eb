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
	// cpuSlot[rank] and kernelThreads[rank], from the nodes' boot ids
	// (cpuSlots).
	cpuSlot, kernelThreads []int
	members                []barrier.MemberInfo
	res                    *result.Job
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

func (j *job) rankJob() wire.Job {
	return wire.Job{ID: j.id, Seed: j.seed, FilesOf: j.filesOf, Job: j.o.Job.Applied()}
}

func (j *job) warn(msg string) {
	j.res.Warnings = append(j.res.Warnings, msg)
	j.s.o.logWarning(msg)
}
