package sshlaunch

import (
	"context"
	"errors"
	"ioswarm/launcher"
	"strings"
	"testing"
	"time"

	"ioswarm/internal/testio"
)

// A node that never answers the start of a command (its sshd stuck in
// the user's login shell) must not hold the launch after a Ctrl-C: the
// cancelled launch closes the connection and returns, naming the node.
// Before, PrepareStart waited for that answer for good.
func TestSSHCancelledLaunchDoesNotWaitForStuckNode(t *testing.T) {
	s := newTestServer(t)
	// Buffered: the node may be asked before this goroutine waits for it,
	// and a send with nobody waiting would be lost.
	held := make(chan struct{}, 1)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	gate := func(string) {
		select {
		case held <- struct{}{}:
		default:
		}
		<-release
	}
	s.gate.Store(&gate)
	l := testSSH(t, s, writeFakeRank(t), &testio.LockedBuffer{})
	spec := func(launcher.Target, string) ([]string, []byte) { return nil, []byte("c0ffee\n") }
	ctx, cancel := context.WithCancelCause(context.Background())
	type result struct{ err error }
	done := make(chan result, 1)
	go func() {
		_, err := l.PrepareStart(ctx, []launcher.Target{sshTarget(s, 0)}, spec)
		done <- result{err}
	}()
	select {
	case <-held:
	case r := <-done:
		t.Fatalf("PrepareStart returned before the node was asked anything: %v", r.err)
	case <-time.After(30 * time.Second):
		t.Fatal("the node was never asked to run anything")
	}
	cancel(errors.New("interrupted (SIGINT)"))
	select {
	case r := <-done:
		if r.err == nil || !strings.Contains(r.err.Error(), "127.0.0.1") || !strings.Contains(r.err.Error(), "SIGINT") {
			t.Fatalf("PrepareStart after the cancel: %v; want an error naming the node and the cause", r.err)
		}
		t.Logf("PrepareStart: %v", r.err)
	case <-time.After(30 * time.Second):
		t.Fatal("PrepareStart still waits for the stuck node 30s after its launch was cancelled")
	}
}
