package coordinator

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"ioswarm/barrier"
	"ioswarm/internal/fakerank"
	"ioswarm/launcher"
	"ioswarm/selfbin"
	"ioswarm/wire"
)

// fakeLauncher starts in-process ranks (fakerank) in place of rank
// processes: each reads its secret and the coordinator's address from the
// input a launcher would hand a real rank, joins the barrier and answers
// the job loop's requests with canned records, doing no I/O. One rank may
// fail at one request kind, by an error reply or by dying.
type fakeLauncher struct {
	t    *testing.T
	hash string
	fail failAt

	mu   sync.Mutex
	seen map[int][]string // request kinds each rank received, in order
}

// failAt says where a fake rank fails: rank at the first request of
// kind, by replying with an error or, with die, by ending its session
// and exiting as a killed process would.
type failAt struct {
	rank int
	kind string
	die  bool
}

func newFakeLauncher(t *testing.T, fail failAt) *fakeLauncher {
	self, err := selfbin.Self()
	if err != nil {
		t.Fatal(err)
	}
	return &fakeLauncher{t: t, hash: self.Hash, fail: fail, seen: map[int][]string{}}
}

func (l *fakeLauncher) Name() string { return "fake" }
func (l *fakeLauncher) Prepare(_ context.Context, targets []launcher.Target) ([]string, error) {
	return make([]string, len(targets)), nil
}
func (l *fakeLauncher) Exec(context.Context, launcher.Target, []string) ([]byte, error) {
	return nil, nil
}
func (l *fakeLauncher) Close() error { return nil }

// Start joins in the background, as a process would: the coordinator
// starts every rank before any has joined.
func (l *fakeLauncher) Start(_ context.Context, t launcher.Target, args []string, stdin []byte) (launcher.Proc, error) {
	secretHex, addr, _ := strings.Cut(strings.TrimSpace(string(stdin)), "\n")
	secret, err := hex.DecodeString(secretHex)
	if err != nil {
		return nil, fmt.Errorf("fake rank %d: secret: %w", t.Rank, err)
	}
	job := argValue(args, "--job")
	ctx, cancel := context.WithCancel(context.Background())
	p := &fakeProc{done: make(chan struct{}), cancel: cancel}
	go p.run(ctx, l, t, job, addr, secret)
	return p, nil
}

func argValue(args []string, flag string) string {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == flag {
			return args[i+1]
		}
	}
	return ""
}

// fakeProc is a fake rank seen as a process: done when its session ends.
type fakeProc struct {
	done   chan struct{}
	cancel context.CancelFunc

	mu     sync.Mutex
	member *barrier.Member
	err    error
}

func (p *fakeProc) run(ctx context.Context, l *fakeLauncher, t launcher.Target, job, addr string, secret []byte) {
	defer close(p.done)
	hello := barrier.Hello{JobID: job, Rank: t.Rank, Host: t.Host, BinaryHash: l.hash}
	m, err := barrier.Dial(ctx, addr, hello, secret, barrier.DialOptions{Timeout: 30 * time.Second})
	if err != nil {
		p.exit(err)
		return
	}
	p.mu.Lock()
	p.member = m
	p.mu.Unlock()
	r := &fakeRank{l: l, proc: p}
	fakerank.Serve(l.t, m, t.Rank, r.handle)
	select {
	case <-m.Done():
	case <-ctx.Done():
		_ = m.Close()
	}
}

// exit ends the process with err, closing its session if it has one.
func (p *fakeProc) exit(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		p.err = err
	}
	if p.member != nil {
		_ = p.member.Close()
	}
}

func (p *fakeProc) Done() <-chan struct{} { return p.done }
func (p *fakeProc) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}
func (p *fakeProc) Stop() { p.cancel() }

// fakeRank answers one rank's requests; it keeps what setup told it.
type fakeRank struct {
	l    *fakeLauncher
	proc *fakeProc

	mu      sync.Mutex
	threads []int
	job     wire.Job
}

func (f *fakeRank) handle(rank int, r *barrier.Request) (any, error) {
	f.l.mu.Lock()
	f.l.seen[rank] = append(f.l.seen[rank], r.Kind)
	f.l.mu.Unlock()
	if fail := f.l.fail; fail.rank == rank && fail.kind == r.Kind {
		if fail.die {
			f.proc.exit(errors.New("signal: killed"))
			return nil, nil
		}
		return nil, fmt.Errorf("fake %s failed", r.Kind)
	}
	switch r.Kind {
	case wire.KindFacts:
		return wire.FactsReply{FSType: "fakefs", MountPoint: "/fake", AbsDir: "/fake/dir"}, nil
	case wire.KindSetup:
		return f.setup(r.Body)
	case wire.KindMarker:
		return wire.MarkerReply{Seen: true}, nil
	case wire.KindDrop:
		return wire.DropReply{Method: "drop_caches"}, nil
	case wire.KindResident:
		return wire.ResidentReply{}, nil
	case wire.KindRun:
		return f.run(r.Body)
	case wire.KindFirstDone:
		return f.firstDone()
	case wire.KindSeries:
		return f.series(r.Body)
	}
	return wire.Empty{}, nil
}

func (f *fakeRank) setup(body json.RawMessage) (any, error) {
	var s wire.Setup
	if err := json.Unmarshal(body, &s); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.threads, f.job = s.Threads, s.Job
	f.mu.Unlock()
	return wire.SetupReply{Kernel: "6.1.0-fake", Arch: "x86_64", FSType: "fakefs", CanDrop: true}, nil
}

// Each thread moves its whole file in (thread+1) × 10 ms from the
// release, one operation a record.
const fakeThreadTime = 10 * int64(time.Millisecond)

func (f *fakeRank) run(body json.RawMessage) (any, error) {
	var run wire.Run
	if err := json.Unmarshal(body, &run); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	rep := wire.RunReply{ReleasedAt: run.ReleaseAt, ReadyAt: run.ReleaseAt - int64(time.Millisecond)}
	for _, th := range f.threads {
		rep.Threads = append(rep.Threads, wire.ThreadRecord{
			Thread: th, File: fmt.Sprintf("t%d.dat", th), Bytes: f.job.FileSize, Ops: f.job.FileSize / f.job.Block,
			StartNS: run.ReleaseAt, EndNS: run.ReleaseAt + int64(th+1)*fakeThreadTime,
		})
	}
	return rep, nil
}

// firstDone reports a count that names the thread, so a test can see
// each count reach its own thread's record.
func (f *fakeRank) firstDone() (any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var rep wire.FirstDoneReply
	for _, th := range f.threads {
		rep.Bytes = append(rep.Bytes, firstDoneBytes(th))
	}
	return rep, nil
}

func firstDoneBytes(thread int) int64 { return 1000 * int64(thread+1) }

// series says every operation completed in the last interval.
func (f *fakeRank) series(body json.RawMessage) (any, error) {
	var s wire.Series
	if err := json.Unmarshal(body, &s); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	ops := make([]int64, s.N)
	if s.N > 0 {
		ops[s.N-1] = int64(len(f.threads)) * f.job.FileSize / f.job.Block
	}
	return wire.SeriesReply{Ops: ops}, nil
}

// kinds is what rank received, in order.
func (l *fakeLauncher) kinds(rank int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen[rank]...)
}
