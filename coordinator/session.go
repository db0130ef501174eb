package coordinator

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"ioswarm/barrier"
	"ioswarm/launcher"
	"ioswarm/rankproto"
	"ioswarm/selfbin"
	"ioswarm/wire"
)

// Session is a set of rank processes, started and joined once, that runs
// one job or several (the points of a sweep) before it is closed.
type Session struct {
	o       Launch
	id      string // names the session in the handshake
	secret  []byte
	targets []launcher.Target // one per rank
	coord   *barrier.Coordinator
	procs   []launcher.Proc
	members []barrier.MemberInfo
	// ready is how long the ranks took to start their threads in the
	// last phase, which sets the next one's release lead.
	ready readiness

	mu      sync.Mutex
	closing bool
	cause   error         // why the session failed, once it has
	failed  chan struct{} // closed when cause is set
	current *job          // the job running now, for cleanup after a failure
	// logged holds the warnings about the nodes themselves that a job of
	// this session has logged already (see warnOncePerSession).
	logged map[string]bool
}

// Start launches one rank per target, at most l.Threads of them, and
// waits until every rank has joined. With no targets, l.LocalRanks ranks
// run on this machine. l's slices are not changed. l must have passed
// Validate: Workload.Settle, which every job goes through before it runs,
// checks it there, before anything starts.
func Start(ctx context.Context, l Launch) (*Session, error) {
	random := make([]byte, 6+32)
	if _, err := rand.Read(random); err != nil {
		return nil, fmt.Errorf("job secret: %w", err)
	}
	self, err := selfbin.Self()
	if err != nil {
		return nil, err
	}
	targets := l.Targets
	if l.local() {
		host, _ := os.Hostname()
		targets = localTargets(l.LocalRanks, host)
	}
	threads := l.Threads
	if threads <= 0 {
		threads = len(targets)
	}
	targets = place(threads, targets).targets
	if err := checkFileLimit(len(targets)); err != nil {
		return nil, err
	}
	s := &Session{o: l, id: hex.EncodeToString(random[:6]), secret: random[6:], targets: targets,
		failed: make(chan struct{})}
	if err := s.start(ctx, self.Hash); err != nil {
		err = s.explain(err)
		s.Close(err)
		return nil, err
	}
	return s, nil
}

// Ranks is the number of rank processes.
func (s *Session) Ranks() int { return len(s.targets) }

// Rejected counts, by source address, the connections to the barrier port
// refused because they did not prove the job secret.
func (s *Session) Rejected() map[string]int { return s.coord.Rejected() }

func (s *Session) start(ctx context.Context, hash string) error {
	listen := s.o.Listen
	if listen == "" {
		listen = "127.0.0.1:0"
		if len(s.o.Targets) > 0 {
			listen = ":0"
		}
	}
	coord, err := barrier.Listen(ctx, listen, barrier.Config{
		JobID: s.id, Secret: s.secret, BinaryHash: hash, Ranks: len(s.targets),
		Timeout: s.o.HeartbeatTimeout,
		Logf:    func(f string, a ...any) { s.o.Log.Printf("coordinator: "+f+"\n", a...) },
		// A thread's first-done stop must reach every rank's threads
		// while they run (rank/firststop.go).
		Relay: []string{wire.KindStop},
		// Bounded calls name a rank that does not answer.
		CallLimit: callLimit,
	})
	if err != nil {
		return fmt.Errorf("listen on %s: %w", listen, err)
	}
	s.coord = coord
	port := strconv.Itoa(coord.Addr().(*net.TCPAddr).Port)
	spec := func(t launcher.Target, host string) ([]string, []byte) {
		if host == "" {
			host = "127.0.0.1"
		}
		args := rankproto.RankArgs{Rank: t.Rank, Job: s.id, Host: t.Host, HeartbeatTimeout: s.o.HeartbeatTimeout}
		// The secret and the address to dial travel on the launcher's
		// channel, not argv: any user of the node can read a command line.
		return args.Argv(), rankproto.LaunchInput(s.secret, net.JoinHostPort(host, port))
	}
	procs, err := launcher.StartAll(ctx, s.o.Launcher, s.targets, spec)
	s.procs = procs
	if err != nil {
		return err
	}
	for r, p := range procs {
		go s.watch(s.targets[r], p)
	}
	ctx, cancel := s.guard(ctx)
	defer cancel(nil)
	members, err := s.join(ctx)
	if err != nil {
		return coord.JoinError(s.failure(ctx, fmt.Errorf("ranks joining: %w", err)))
	}
	s.members = members
	return nil
}

// guard derives a context that ends, with the cause, when a rank process
// dies, so no call waits on a rank that is gone.
func (s *Session) guard(ctx context.Context) (context.Context, context.CancelCauseFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case <-s.failed:
			cancel(s.cause)
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// failure prefers the reason a rank died over what the caller saw of it.
func (s *Session) failure(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) &&
		!errors.Is(cause, context.DeadlineExceeded) {
		return cause
	}
	return s.explain(err)
}

// watch fails the session when a rank process ends before Close.
func (s *Session) watch(t launcher.Target, p launcher.Proc) {
	<-p.Done()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing || s.cause != nil {
		return
	}
	msg := "rank process exited"
	if err := p.Err(); err != nil {
		msg += ": " + exitText(err) + s.lastWords(t.Host, t.Rank, err)
	}
	s.cause = &barrier.RankError{Host: t.Host, Rank: t.Rank, Msg: msg}
	close(s.failed)
}

// explain adds the reason a rank's process ended to an error about that
// rank: "rank process exited: signal: killed" tells the user more than
// "connection lost: EOF".
func (s *Session) explain(err error) error {
	var re *barrier.RankError
	if !errors.As(err, &re) || re.Rank < 0 || re.Rank >= len(s.procs) {
		return err
	}
	p := s.procs[re.Rank]
	select {
	case <-p.Done():
	case <-time.After(300 * time.Millisecond):
		return err
	}
	// The watcher may have named the exit already.
	if perr := p.Err(); perr != nil && !errors.Is(err, perr) && !strings.Contains(re.Msg, exitText(perr)) {
		return fmt.Errorf("%w (rank process exited: %s%s)", err, exitText(perr), s.lastWords(re.Host, re.Rank, perr))
	}
	return err
}

// Close ends every rank on every path. After a failure ranks remove their
// own files when told to abort; a rank that could not (it died) has the
// job's files on its node removed by a cleanup run there.
func (s *Session) Close(runErr error) {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	var cut []int
	if s.coord != nil {
		reason := ""
		if runErr != nil {
			reason = runErr.Error()
		}
		s.coord.Close(reason)
		cut = s.coord.Cut()
	}
	dead := s.stopAll(cut)
	defer s.o.Launcher.Close()
	if runErr == nil || s.current == nil || s.current.o.Keep {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, r := range dead {
		t := s.targets[r]
		dir := s.current.dirOf(t)
		if _, err := s.o.Launcher.Exec(ctx, t, rankproto.CleanupArgs(dir, s.current.id)); err != nil {
			hint := ""
			if slices.Contains(cut, r) {
				// Unreachable from here, but not necessarily dead.
				hint = " (a rank still running there removes its files at its heartbeat timeout)"
			}
			s.o.logWarning(fmt.Sprintf("host %s: could not remove %s: %v%s", t.Host, wire.JobDir(dir, s.current.id), err, hint))
		}
	}
}

// stopAll gives every rank up to 5 s to end by itself after the close
// frame, then stops it, and returns the ranks that died or had to be
// stopped. Ranks in cut never got the close frame: they are stopped at
// once, since waiting for them only delays the user (a node whose link
// is down would hold the job the full 5 s and more). Stops run in
// parallel, for the same reason.
func (s *Session) stopAll(cut []int) []int {
	settle, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	gone := make([]bool, len(s.procs))
	var wg sync.WaitGroup
	for r, p := range s.procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !slices.Contains(cut, r) {
				select {
				case <-p.Done():
				case <-settle.Done():
				}
			}
			select {
			case <-p.Done():
				gone[r] = p.Err() != nil
			default:
				p.Stop()
				gone[r] = true
			}
		}()
	}
	wg.Wait()
	var dead []int
	for r, g := range gone {
		if g {
			dead = append(dead, r)
		}
	}
	return dead
}
