package sshlaunch

import (
	"bufio"
	"context"
	"fmt"
	"ioswarm/launcher"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/internal/testio"
)

func waitProcDone(t *testing.T, p launcher.Proc, within time.Duration) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(within):
		t.Fatalf("rank still running %v later", within)
	}
}

// waitLog waits for a line to appear in a log written by other goroutines.
func waitLog(t *testing.T, log *testio.LockedBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(log.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("log never said %q; it holds:\n%s", want, log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The secret arrives as the first line of input, stderr comes back line by
// line with host and rank, and the end of input is the rank's signal to go.
func TestSSHStartForwardsStderrAndStopsByClosingInput(t *testing.T) {
	s := newTestServer(t)
	var log testio.LockedBuffer
	l := testSSH(t, s, writeFakeRank(t), &log)
	mustPrepare(t, l, sshTarget(s, 3))
	p, err := l.Start(context.Background(), sshTarget(s, 3), []string{"--job", "a b"}, []byte("c0ffee\n"))
	if err != nil {
		t.Fatal(err)
	}
	waitLog(t, &log, "[127.0.0.1 rank 3] secret c0ffee, args rank --job a b")
	p.Stop()
	if err := p.Err(); err != nil {
		t.Errorf("rank ended with %v, want a clean exit", err)
	}
	if !strings.Contains(log.String(), "[127.0.0.1 rank 3] input ended") {
		t.Errorf("the rank did not see its input end; log:\n%s", log.String())
	}
	if slicesContainPrefix(s.seen(), "kill -KILL ") {
		t.Error("killed by PID although closing its input would do")
	}
}

// A rank that ignores its input and SIGTERM, on a server that ignores
// signal requests, is killed by PID from a second session.
func TestSSHStopKillsByPIDWhenSignalsAreIgnored(t *testing.T) {
	s := newTestServer(t)
	s.noSignal = true
	var log testio.LockedBuffer
	l := testSSH(t, s, writeFakeRank(t), &log)
	mustPrepare(t, l, sshTarget(s, 0))
	p, err := l.Start(context.Background(), sshTarget(s, 0), []string{"stubborn"}, []byte("ab\n"))
	if err != nil {
		t.Fatal(err)
	}
	waitLog(t, &log, "secret ab")
	p.Stop()
	// A login shell that does not exec its command reports the kill as
	// its own exit status.
	if err := p.Err(); err == nil || err.Error() != "killed by signal KILL" && err.Error() != "exit status 137" {
		t.Errorf("stubborn rank ended with %v, want killed by signal KILL", err)
	}
	if !slicesContainPrefix(s.seen(), "kill -KILL ") {
		t.Errorf("no kill by PID among %q", s.seen())
	}
}

// Where signals are delivered, SIGTERM ends a rank that ignores its input.
func TestSSHStopSignalsTerm(t *testing.T) {
	s := newTestServer(t)
	var log testio.LockedBuffer
	l := testSSH(t, s, writeFakeRank(t), &log)
	mustPrepare(t, l, sshTarget(s, 0))
	p, err := l.Start(context.Background(), sshTarget(s, 0), []string{"sleepy"}, []byte("ab\n"))
	if err != nil {
		t.Fatal(err)
	}
	waitLog(t, &log, "secret ab")
	p.Stop()
	if err := p.Err(); err == nil || err.Error() != "killed by signal TERM" {
		t.Errorf("rank ended with %v, want killed by signal TERM", err)
	}
	if slicesContainPrefix(s.seen(), "kill -KILL ") {
		t.Error("killed by PID although SIGTERM was delivered")
	}
}

func slicesContainPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

func TestSSHExecReturnsOutputAndExplainsFailure(t *testing.T) {
	s := newTestServer(t)
	l := testSSH(t, s, writeFakeRank(t), &testio.LockedBuffer{})
	mustPrepare(t, l, sshTarget(s, 0))
	out, err := l.Exec(context.Background(), sshTarget(s, 0), []string{"cleanup", "--dir", "/a b/c"})
	if err != nil || string(out) != "ran cleanup --dir /a b/c\n" {
		t.Errorf("Exec = %q, %v", out, err)
	}
	_, err = l.Exec(context.Background(), sshTarget(s, 0), []string{"fail"})
	if err == nil || !strings.Contains(err.Error(), "exit status 4: no good") || !strings.Contains(err.Error(), "host 127.0.0.1") {
		t.Errorf("failing Exec: %v, want host, status and stderr", err)
	}
	if _, err := l.Exec(context.Background(), sshTarget(s, 9), []string{"x"}); err == nil {
		t.Error("Exec on a target that was never prepared succeeded")
	}
}

func TestSSHStreamExchangesLines(t *testing.T) {
	s := newTestServer(t)
	l := testSSH(t, s, writeFakeRank(t), &testio.LockedBuffer{})
	mustPrepare(t, l, sshTarget(s, 0))
	st, err := l.Stream(context.Background(), sshTarget(s, 0), []string{"echo"})
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(st.Out)
	for i := range 3 {
		fmt.Fprintf(st.In, "ping %d\n", i)
		line, err := br.ReadString('\n')
		if err != nil || line != fmt.Sprintf("ping %d\n", i) {
			t.Fatalf("round trip %d: %q, %v", i, line, err)
		}
	}
	if err := st.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// Nine ranks on one host need two connections: OpenSSH allows ten sessions
// on one, and cleanup sessions must still fit.
func TestSSHManyRanksOnOneHostSpreadOverConnections(t *testing.T) {
	s := newTestServer(t)
	var log testio.LockedBuffer
	l := testSSH(t, s, writeFakeRank(t), &log)
	var targets []launcher.Target
	for r := range 9 {
		targets = append(targets, sshTarget(s, r))
	}
	mustPrepare(t, l, targets...)
	if n := s.conns.Load(); n != 2 {
		t.Errorf("%d connections for 9 ranks on one host, want 2", n)
	}
	if copies(s) != 1 {
		t.Errorf("%d copies to one host, want 1", copies(s))
	}
	var procs []launcher.Proc
	for _, tg := range targets {
		p, err := l.Start(context.Background(), tg, nil, []byte("ab\n"))
		if err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
	}
	for r := range 9 {
		waitLog(t, &log, fmt.Sprintf("rank %d] secret ab", r))
	}
	l.Close()
	for _, p := range procs {
		waitProcDone(t, p, 5*time.Second)
		if err := p.Err(); err != nil {
			t.Errorf("rank ended with %v", err)
		}
	}
}

// A node behind a jump host is reached through it, with both host keys
// checked; ranks dial back the address of the first hop's connection.
func TestSSHProxyJump(t *testing.T) {
	node, jump := newTestServer(t), newTestServer(t)
	cfg := filepath.Join(t.TempDir(), "config")
	text := fmt.Sprintf(`Host inner
  HostName 127.0.0.1
  Port %d
  ProxyJump gate
  IdentityFile %s
Host gate
  HostName 127.0.0.1
  Port %d
  IdentityFile %s
Host *
  UserKnownHostsFile %s %s
  GlobalKnownHostsFile /dev/null
`, node.port, node.keyFile, jump.port, jump.keyFile, node.known, jump.known)
	os.WriteFile(cfg, []byte(text), 0o600)
	var log testio.LockedBuffer
	l := testSSH(t, node, writeFakeRank(t), &log)
	l.Identities, l.ConfigFiles = nil, []string{cfg}
	addrs := mustPrepare(t, l, launcher.Target{Rank: 0, Host: "inner"})
	if node.conns.Load() != 1 || jump.conns.Load() != 1 || len(jump.seen()) != 0 || copies(node) != 1 {
		t.Errorf("connections node %d jump %d, commands on the jump host %q, copies to the node %d",
			node.conns.Load(), jump.conns.Load(), jump.seen(), copies(node))
	}
	if addrs[0] != "127.0.0.1" {
		t.Errorf("address %q, want the first hop's local address", addrs[0])
	}
	out, err := l.Exec(context.Background(), launcher.Target{Rank: 0, Host: "inner"}, []string{"hello"})
	if err != nil || string(out) != "ran hello\n" {
		t.Errorf("Exec through the jump host: %q, %v", out, err)
	}
}
