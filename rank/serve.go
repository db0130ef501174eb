package rank

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"ioswarm/barrier"
	"ioswarm/settings"
	"ioswarm/uring"
	"ioswarm/wire"
)

// Options start a rank process.
type Options struct {
	Addr       string // coordinator address
	Rank       int
	JobID      string
	Host       string // the name the coordinator knows this node by
	BinaryHash string
	Secret     []byte
	Dial       barrier.DialOptions
	Log        io.Writer // the rank's stderr, forwarded by the launcher
}

// state is a rank's memory between requests.
type state struct {
	member  *barrier.Member
	log     io.Writer
	job     wire.Job
	setup   wire.Setup
	jobDir  string
	dir     *dirHandle            // the job directory, open from create on
	mdDirs  map[string]*dirHandle // its metadata directories, by name
	workers []*worker
	// bound holds the process on its threads' CPUs, from setup until the
	// next job's, where the node runs more of the job's threads than it
	// has CPUs (bind.go).
	bound   procBind
	created bool // the job directory may hold our files
	cleaned bool
	// sharedFull says this rank's threads' parts of the shared file are
	// written whole (by a write phase or a prefill) since it was made.
	sharedFull bool
	// mdAll and mdAny say whether all, or any, of this rank's metadata
	// files exist.
	mdAll, mdAny bool
	// armed is the next phase's memory, made when it was prepared.
	armed *armedPhase
	// latency is a random phase's latency per interval.
	latency latencyStore
	// progressEvery is how often a running phase reports its totals; 0
	// is progressEvery's default (tests shorten it).
	progressEvery time.Duration
	// stops holds the first-done stop of the phase under way (firststop.go).
	stops stopBoard
	// mem keeps the rank under the job's memory cap (see memguard.go).
	mem memGuard
	// clientCache is the node's client cache and its counters before the
	// phase about to run.
	clientCache clientCacheWatch
}

// Serve joins the coordinator and answers its requests until the job ends.
// When the job ends abnormally (abort, lost coordinator, ctx cancelled) the
// rank removes its own files before returning, unless the job keeps them.
func Serve(ctx context.Context, opt Options) error {
	m, err := barrier.Dial(ctx, opt.Addr, barrier.Hello{
		JobID: opt.JobID, Rank: opt.Rank, Host: opt.Host, BinaryHash: opt.BinaryHash,
	}, opt.Secret, opt.Dial)
	if err != nil {
		return fmt.Errorf("join coordinator at %s: %w", opt.Addr, err)
	}
	defer m.Close()
	s := &state{member: m, log: opt.Log}
	go s.hearStops(m.Relayed()) // ends when the session does
	defer func() { s.closeDirs() }()
	defer s.disarm()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-m.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	err = s.serve(ctx, m)
	if cerr := s.cleanupAfterFailure(); cerr != nil {
		return errors.Join(err, cerr)
	}
	return err
}

func (s *state) serve(ctx context.Context, m *barrier.Member) error {
	for {
		select {
		case <-ctx.Done():
			select {
			case <-m.Done():
				// nil when the coordinator ended the job normally.
				return m.Err()
			default:
			}
			return ctx.Err()
		case req, ok := <-m.Requests():
			if !ok {
				return m.Err()
			}
			body, err := s.handle(ctx, req)
			if rerr := m.Reply(req, body, err); rerr != nil {
				select {
				case <-m.Done():
					// Aborted while answering: say why, not how.
					return m.Err()
				default:
				}
				return rerr
			}
		}
	}
}

func (s *state) doSetup(in wire.Setup) (wire.SetupReply, error) {
	if err := wire.CheckJobID(in.Job.ID); err != nil {
		return wire.SetupReply{}, err
	}
	if in.Job.FileSize <= 0 || in.Job.Block <= 0 || in.Job.RandBlock <= 0 {
		return wire.SetupReply{}, fmt.Errorf("bad sizes in setup: file %d, block %d, rand block %d",
			in.Job.FileSize, in.Job.Block, in.Job.RandBlock)
	}
	// A session runs one job after another (the points of a sweep):
	// nothing of the last job's state may decide what this one cleans up.
	s.job, s.setup = in.Job, in
	s.jobDir = wire.JobDir(in.Dir, in.Job.ID)
	if in.Job.FilesOf != "" {
		if err := wire.CheckJobID(in.Job.FilesOf); err != nil {
			return wire.SetupReply{}, err
		}
		s.jobDir = wire.JobDir(in.Dir, in.Job.FilesOf)
	}
	s.closeDirs()
	s.created, s.cleaned = false, false
	s.sharedFull, s.mdAll, s.mdAny = false, false, false
	need := in.Job.FileSize * int64(len(in.Threads))
	reply, err := checkNode(in.Dir, need)
	if err != nil {
		return reply, err
	}
	if in.Job.Engine == settings.IOUring {
		reply.NoUring = uring.Available()
	}
	if len(in.Sources) != 0 && len(in.Sources) != len(in.Threads) {
		return wire.SetupReply{}, fmt.Errorf("bad setup: %d read sources for %d threads", len(in.Sources), len(in.Threads))
	}
	s.mem.setCap(in.MemCap)
	if err := s.mem.admit(int64(len(in.Threads))*threadStateBytes, fmt.Sprintf("the state of %d threads", len(in.Threads))); err != nil {
		return reply, err
	}
	ensureProcs(len(in.Threads))
	if w := s.bindCPUs(in); w != "" {
		reply.Warnings = append(reply.Warnings, w)
	}
	s.workers = make([]*worker, len(in.Threads))
	if in.Job.Layout == settings.Shared {
		err := s.setupShared(in)
		s.setupMD()
		return reply, err
	}
	for i, t := range in.Threads {
		w := newWorker(t, wire.ThreadFile(s.jobDir, t), in.Job.FileSize, newPattern(in.Job.Seed, t))
		if len(in.Sources) != 0 && in.Sources[i] != t {
			from := in.Sources[i]
			w.readFrom(from, wire.ThreadFile(s.jobDir, from), newPattern(in.Job.Seed, from))
		}
		s.workers[i] = w
	}
	s.setupMD()
	return reply, nil
}

// opBytes is the operation size of the phase just run, for firstdone.
func (s *state) opBytes() int64 {
	if len(s.workers) > 0 && s.workers[0].rec.Ops > 0 {
		return s.workers[0].rec.Bytes / s.workers[0].rec.Ops
	}
	return s.job.Block
}

// ownFiles is every file this rank may have made: its threads' files,
// its O_DIRECT probe, and the manifest of a kept job.
func (s *state) ownFiles() []string {
	return append(s.paths(), probePath(s.jobDir, s.setup.Rank), manifestPath(s.jobDir), markerPath(s.jobDir))
}

func (s *state) paths() []string {
	p := make([]string, 0, len(s.workers))
	for _, w := range s.workers {
		if len(p) == 0 || !w.m.shared() {
			p = append(p, w.path) // a shared file once
		}
	}
	return p
}

// phasePaths are the files the phase's threads open: their own, or for
// a read phase the files they read.
func (s *state) phasePaths(phase wire.Phase) []string {
	if phase.IsMeta() {
		return nil
	}
	p := make([]string, 0, len(s.workers))
	for _, w := range s.workers {
		if len(p) == 0 || !w.m.shared() {
			// A shared file once: each rank counts its node's cache of
			// the whole file.
			p = append(p, w.readSource(&phaseParams{name: phase}).path)
		}
	}
	return p
}

// droppable is every file whose cached pages this rank drops before a
// phase: its own and those it reads, which may have been cached here by
// an earlier read of them.
func (s *state) droppable() []string {
	p := s.paths()
	for _, w := range s.workers {
		if w.src.path != w.path {
			p = append(p, w.src.path)
		}
	}
	return p
}

// drop empties the page cache of this rank's files before a phase.
func (s *state) drop() wire.DropReply {
	switch {
	case s.job.Direct:
		return wire.DropReply{Method: settings.DropDirect}
	case s.job.DropCaches == settings.DropOff:
		return wire.DropReply{Method: settings.DropNone}
	case canDropNode():
		err := s.dropKernel()
		if err == nil {
			return wire.DropReply{Method: settings.DropCaches}
		}
		if s.job.DropCaches == settings.DropOn {
			return wire.DropReply{Method: settings.DropNone, Warning: err.Error()}
		}
	}
	if err := s.fadviseFiles(s.droppable()); err != nil {
		return wire.DropReply{Method: settings.DropNone, Warning: err.Error()}
	}
	return wire.DropReply{Method: settings.DropFadvise, Warning: "cannot write " + dropCachesPath +
		" (not root): dropped only this job's files with posix_fadvise(DONTNEED)"}
}

// dropKernel drops the kernel's caches when this rank is the one of its
// kernel chosen to (Setup.DropNode); the others rely on it, since the
// coordinator waits for every rank's reply before going on.
func (s *state) dropKernel() error {
	if !s.setup.DropNode {
		return nil
	}
	return dropNode()
}

// cleanupAfterFailure removes our files when the job ended before the
// coordinator asked for cleanup: a lost coordinator must not leave a
// filesystem full of benchmark files.
func (s *state) cleanupAfterFailure() error {
	if !s.created || s.cleaned || s.job.Keep || s.job.FilesOf != "" {
		return nil
	}
	if err := s.removeMD(); err != nil {
		return fmt.Errorf("cleanup after failure: %w", err)
	}
	if err := removeFiles(s.jobDir, s.ownFiles()); err != nil {
		return fmt.Errorf("cleanup after failure: %w", err)
	}
	return nil
}
