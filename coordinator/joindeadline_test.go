package coordinator

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"ioswarm/barrier"
	"ioswarm/launcher"
)

// stubLauncher "starts" ranks that take their input and never dial: a
// rank stopped before its join, or a stub planted in place of ioswarm.
type stubLauncher struct {
	mu      sync.Mutex
	started []*stubProc
}

func (l *stubLauncher) Name() string { return "stub" }
func (l *stubLauncher) Prepare(_ context.Context, targets []launcher.Target) ([]string, error) {
	return make([]string, len(targets)), nil
}
func (l *stubLauncher) Start(context.Context, launcher.Target, []string, []byte) (launcher.Proc, error) {
	p := &stubProc{done: make(chan struct{})}
	l.mu.Lock()
	l.started = append(l.started, p)
	l.mu.Unlock()
	return p, nil
}
func (l *stubLauncher) Exec(context.Context, launcher.Target, []string) ([]byte, error) {
	return nil, nil
}
func (l *stubLauncher) Close() error { return nil }

// stubProc runs until stopped.
type stubProc struct {
	once sync.Once
	done chan struct{}
}

func (p *stubProc) Done() <-chan struct{} { return p.done }
func (p *stubProc) Err() error            { return nil }
func (p *stubProc) Stop()                 { p.once.Do(func() { close(p.done) }) }

// Ranks that start but never join end the start at the join deadline,
// with an error naming every such host and rank and the flag that sets
// it. Before, Start waited for them for good.
func TestStartEndsAtJoinDeadline(t *testing.T) {
	l := &stubLauncher{}
	launch := Launch{Launcher: l, HeartbeatTimeout: 5 * time.Second, Threads: 2,
		Targets:     []launcher.Target{{Rank: 0, Host: "nodeA"}, {Rank: 1, Host: "nodeB"}},
		JoinTimeout: 500 * time.Millisecond, JoinLimit: "3 × --connect-timeout",
		Log: launcher.NewLineWriter(io.Discard), Listen: "127.0.0.1:0"}
	err := startError(t, launch, "for ranks that never dial, 60s on with a 500ms join deadline")
	var re *barrier.RankError
	if !errors.As(err, &re) || re.Host != "nodeA" || re.Rank != 0 {
		t.Fatalf("Start: %v; want a RankError for host nodeA rank 0", err)
	}
	for _, want := range []string{"did not join within 500ms (3 × --connect-timeout)", "nodeB rank 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for r, p := range l.started {
		select {
		case <-p.Done():
		default:
			t.Errorf("rank %d still running after the failed start", r)
		}
	}
}

// startError runs Start on launch and returns its error, failing the test
// if it still waits after a minute (what for, in the words of waiting).
func startError(t *testing.T, launch Launch, waiting string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		s, err := Start(context.Background(), launch)
		if s != nil {
			s.Close(nil)
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(60 * time.Second):
		t.Fatal("Start still waits " + waiting)
		return nil
	}
}
