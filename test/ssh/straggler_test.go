package ssh

import (
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"ioswarm/internal/testio"
	"ioswarm/test/cluster"
	"ioswarm/test/harness"
)

// A node slowed down on purpose (its rank stopped for 150 ms of every
// 200 ms with SIGSTOP and SIGCONT) is named as the slow node under the
// table, with its rate, and --details nodes shows it behind the others.
func TestSlowNodeIsNamed(t *testing.T) {
	e := newEnv(t, 4)
	out := filepath.Join(t.TempDir(), "r.json")
	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "4", "--dir", e.dir, "--total", "1GiB",
		"--block", "1MiB", "--phases", "write,read", "--read-shift", "0", "--details", "nodes", "--output", out,
		"--heartbeat-timeout", "10s"}, e.sshFlags()...)
	cmd := e.c.Head(context.Background(), e.bin, args...)
	var stdout, stderr testio.LockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	slowed := make(chan int, 1)
	go func() { // throttle node3's rank while the run lasts
		n := 0
		defer func() { slowed <- n }()
		var pids []int
		for {
			select {
			case <-done:
				return
			default:
			}
			// Listing runs a script, and right after a cache drop its
			// programs come back from the disk: one listing took 464 ms,
			// long enough for a whole read phase to pass unthrottled. So
			// the rank is listed until found and then only checked.
			pids = slices.DeleteFunc(pids, func(pid int) bool { return !cluster.Runs(pid, e.remoteExe()) })
			if len(pids) == 0 {
				pids, _ = e.c.Processes("node3", e.remoteExe())
			}
			for _, pid := range pids {
				if syscall.Kill(pid, syscall.SIGSTOP) == nil {
					n++
				}
			}
			time.Sleep(150 * time.Millisecond)
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGCONT)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	code, _ := harness.WaitExit(t, cmd, 3*time.Minute)
	close(done)
	if n := <-slowed; n == 0 {
		t.Fatal("node3's rank was never found to slow it down")
	}
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if !regexp.MustCompile(`(?m)^slow: (write|read) 1 on node node3, `).MatchString(stdout.String()) {
		t.Errorf("node3 not named as slow:\n%s", stdout.String())
	}
	if strings.Contains(stdout.String(), "on node node1,") || strings.Contains(stdout.String(), "on node node2,") {
		t.Errorf("a node that was not slowed is named:\n%s", stdout.String())
	}
	e.waitNothingLeft(t, 5*time.Second)
}
