package ssh

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"ioswarm/internal/testio"
	"ioswarm/launcher"
	"ioswarm/launcher/sshlaunch"
	"ioswarm/test/cluster"
)

// stubbornRank ignores the end of its input (a real rank stops there) and
// SIGTERM, and leaves a child, so that only the last step of Stop can end
// it: SIGKILL for the rank's process group, from a second session.
const stubbornRank = "#!/bin/sh\nread secret\necho ready >&2\ntrap '' TERM\nsleep 600 &\nwait\n"

const helperEnv = "IOSWARM_SSH_STOP_HELPER"

// Through real OpenSSH, Stop ends a rank that ignores its input and
// signals: sshd refuses signal requests for root ("session signalling
// requires privilege separation"), so the kill by PID is what works. No
// process of the rank's session is left.
func TestStopKillsStubbornRankThroughOpenSSH(t *testing.T) {
	if os.Getenv(helperEnv) != "" {
		t.Skip("helper process")
	}
	c := cluster.Start(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The launcher must run in the head namespace: run this test binary
	// there, as a helper that stops one rank and prints how it went.
	cmd := c.Head(ctx, os.Args[0], "-test.run=^TestStopHelper$", "-test.v")
	cmd.Env = append(os.Environ(), helperEnv+"="+c.SSHConfig)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`RESULT (\d+)ms (.*)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("helper printed no result:\n%s", out)
	}
	ms, _ := strconv.Atoi(string(m[1]))
	if got := string(m[2]); got != "killed by signal KILL" && got != "exit status 137" {
		t.Errorf("stubborn rank ended with %q, want a SIGKILL", got)
	}
	// Grace 2 s: 1 s after closing the input, 1 s after SIGTERM, then the
	// kill from a second SSH session, which a loaded machine slows by
	// seconds; the stubborn rank would run 600 s, and a kill that never
	// comes leaves its sleep behind (checked below).
	if ms > 30000 {
		t.Errorf("Stop took %d ms", ms)
	}
	for _, exe := range []string{"/usr/bin/sleep", "/bin/sleep"} {
		if pids, err := c.Processes("node1", exe); err != nil || len(pids) != 0 {
			t.Errorf("left on node1: %s %v (%v)", exe, pids, err)
		}
	}
}

// TestStopHelper runs only inside the test above.
func TestStopHelper(t *testing.T) {
	config := os.Getenv(helperEnv)
	if config == "" {
		t.Skip("runs only as the helper of TestStopKillsStubbornRankThroughOpenSSH")
	}
	bin := filepath.Join(t.TempDir(), "ioswarm")
	if err := os.WriteFile(bin, []byte(stubbornRank), 0o755); err != nil {
		t.Fatal(err)
	}
	log := &testio.LockedBuffer{}
	l := &sshlaunch.SSH{Binary: bin, Home: t.TempDir(), LocalUser: "root", ConfigFiles: []string{config},
		ConnectTimeout: 5 * time.Second, Fanout: 1, Log: launcher.NewLineWriter(log), Grace: 2 * time.Second}
	defer l.Close()
	tg := launcher.Target{Rank: 0, Host: "node1"}
	ctx := context.Background()
	if _, err := l.Prepare(ctx, []launcher.Target{tg}); err != nil {
		t.Fatal(err)
	}
	p, err := l.Start(ctx, tg, nil, []byte("00\n"))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !regexp.MustCompile(`rank 0\] ready`).MatchString(log.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("rank never started:\n%s", log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	begin := time.Now()
	p.Stop()
	fmt.Printf("RESULT %dms %v\n", time.Since(begin).Milliseconds(), p.Err())
}
