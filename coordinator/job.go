package coordinator

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"ioswarm/barrier"
	"ioswarm/figures"
	"ioswarm/launcher"
	"ioswarm/rank"
	"ioswarm/result"
)

// job is one run's state in the coordinator.
type job struct {
	s       *Session
	o       Options
	id      string
	seed    uint64
	threads [][]int // threads[rank]; ranks past the placement get none
	dropper []bool
	members []barrier.MemberInfo
	res     *result.Job
}

// Run starts ranks, runs one job and stops them. It returns the result
// also when the run fails, marked incomplete and holding only what was
// measured.
func Run(ctx context.Context, o Options) (*result.Job, error) {
	s, err := Start(ctx, o, o.Threads)
	if err != nil {
		return nil, err
	}
	res, err := s.Run(ctx, o)
	s.Close(err)
	return res, err
}

// Run runs one job on the session's ranks. o's workload fields are used;
// its launch fields were used by Start. A failure ends the session's
// usefulness: the caller closes it with the error.
func (s *Session) Run(ctx context.Context, o Options) (*result.Job, error) {
	j, err := s.newJob(o)
	if err != nil {
		return nil, err
	}
	s.current = j
	ctx, cancel := s.guard(ctx)
	defer cancel(nil)
	if err := j.run(ctx); err != nil {
		err = s.failure(ctx, err)
		j.res.Error = err.Error()
		return j.res, err
	}
	j.res.Complete = true
	return j.res, nil
}

func (s *Session) newJob(o Options) (*job, error) {
	random := make([]byte, 6+8)
	if _, err := rand.Read(random); err != nil {
		return nil, fmt.Errorf("job id: %w", err)
	}
	pl := place(o.Threads, s.targets)
	j := &job{s: s, o: o, id: hex.EncodeToString(random[:6]), seed: binary.LittleEndian.Uint64(random[6:]),
		threads: make([][]int, len(s.targets)), dropper: make([]bool, len(s.targets)), members: s.members}
	copy(j.threads, pl.threads)
	copy(j.dropper, pl.dropper)
	j.res = &result.Job{
		Version: o.Version, JobID: j.id, CommandLine: o.CommandLine, Label: o.Label,
		StartedAt: time.Now().Format(time.RFC3339), Launcher: s.o.Launcher.Name(),
		Config: result.Config{
			Threads: o.Threads, BlockSize: o.Block, RandBlockSize: o.RandBlock, FileSize: o.FileSize,
			Total: o.Total, Dir: o.Dir, Direct: o.Direct, Fsync: o.Fsync, Phases: o.Phases,
			DropCaches: o.DropCaches, Ranks: len(pl.targets), Iterations: o.Iterations,
			StonewallNS: int64(o.Stonewall), Verify: o.Verify, Keep: o.Keep,
		},
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
		}
	}
	j.res.Summary = figures.Summarize(j.res.Phases)
	if _, err := j.s.coord.Call(ctx, rank.KindCleanup, same(rank.Empty{})); err != nil {
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
	replies, err := j.s.coord.Call(ctx, rank.KindSetup, func(r int) any {
		t := j.s.targets[r]
		return rank.Setup{Job: j.rankJob(), Rank: r, Host: t.Host, Dir: j.dirOf(t),
			Threads: j.threads[r], DropNode: j.dropper[r]}
	})
	if err != nil {
		return fmt.Errorf("checking nodes: %w", err)
	}
	for r, raw := range replies {
		var s rank.SetupReply
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("rank %d: bad setup reply: %w", r, err)
		}
		t := j.s.targets[r]
		if len(j.threads[r]) == 0 {
			continue
		}
		if j.o.DropCaches == "on" && !s.CanDrop {
			return &barrier.RankError{Host: t.Host, Rank: r,
				Msg: "--drop-caches on, but this node's page cache cannot be dropped (not root)"}
		}
		for _, w := range s.Warnings {
			j.warn(fmt.Sprintf("host %s rank %d: %s", t.Host, r, w))
		}
		m := j.members[r]
		j.res.Hosts = append(j.res.Hosts, result.Host{
			Host: t.Host, Rank: r, Threads: len(j.threads[r]), Kernel: s.Kernel, Arch: s.Arch,
			FSType: s.FSType, ClockOffsetNS: m.ClockOffset, ClockErrorNS: m.ClockError,
		})
	}
	if _, err := j.s.coord.Call(ctx, rank.KindCreate, same(rank.Empty{})); err != nil {
		return fmt.Errorf("creating job directory: %w", err)
	}
	return nil
}

func (j *job) rankJob() rank.Job {
	return rank.Job{ID: j.id, Seed: j.seed, FileSize: j.o.FileSize, Block: j.o.Block,
		RandBlock: j.o.RandBlock, Direct: j.o.Direct, Fsync: j.o.Fsync, Verify: j.o.Verify,
		DropCaches: j.o.DropCaches, Keep: j.o.Keep}
}

func (j *job) warn(msg string) {
	j.res.Warnings = append(j.res.Warnings, msg)
	j.o.Log.Printf("warning: %s\n", msg)
}
