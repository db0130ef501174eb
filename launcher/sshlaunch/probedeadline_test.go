package sshlaunch

import (
	"context"
	"strings"
	"testing"
	"time"

	"ioswarm/internal/testio"
	"ioswarm/launcher"
)

// A node whose login shell never lets the probe answer ends the launch at
// the probe's deadline with an error that says which deadline ran out and
// what usually holds a probe, naming the node. Before, it read only
// "probing the node: context deadline exceeded".
func TestSSHProbeDeadlineSaysWhatRanOut(t *testing.T) {
	s := newTestServer(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	gate := func(string) { <-release }
	s.gate.Store(&gate)
	l := testSSH(t, s, writeFakeRank(t), &testio.LockedBuffer{})
	l.probeLimit = 2 * time.Second
	spec := func(launcher.Target, string) ([]string, []byte) { return nil, []byte("c0ffee\n") }
	done := make(chan error, 1)
	go func() {
		_, err := l.PrepareStart(context.Background(), []launcher.Target{sshTarget(s, 0)}, spec)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("PrepareStart succeeded on a node that never answered")
		}
		for _, want := range []string{"127.0.0.1", "probing the node: no answer within 2s", "login shell"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("PrepareStart: %v; want it to say %q", err, want)
			}
		}
	case <-time.After(60 * time.Second):
		t.Fatal("PrepareStart still waits for the silent node 60s after its 2s probe deadline")
	}
}
