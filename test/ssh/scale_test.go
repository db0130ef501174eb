package ssh

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"ioswarm/figures"
	"ioswarm/test/harness"
)

// Sixty-four nodes from one command, cold (a copy to every node) and warm
// (every node holds a verified copy): both complete, every node runs its
// one thread, the figures recompute, and nothing is left on any node; then
// a rank killed mid-run, and a node frozen while caches are dropped, each
// end the job within the fault limit. The times
// are logged, not asserted: on a 2-core machine 64 sshds and ranks
// share two CPUs, and bench/launch-vs-pdsh.sh is where launch speed is
// measured against pdsh.
func TestSixtyFourNodesColdThenWarm(t *testing.T) {
	if testing.Short() {
		t.Skip("64 nodes: skipped with -short")
	}
	const nodes = 64
	e := newEnv(t, nodes)
	out := filepath.Join(t.TempDir(), "result.json")
	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", fmt.Sprint(nodes), "--dir", e.dir,
		"--total", "64MiB", "--block", "1MiB", "--phases", "write,read", "--output", out}, e.sshFlags()...)
	// The faults below must end the job within faultLimit plus what the
	// warm run over the same 64 nodes took here: both are SSH sessions
	// and ranks on every node, stretched alike by the machine's load.
	var bound time.Duration
	for _, c := range []struct{ name, says string }{
		{"cold", fmt.Sprintf("copied to %d, already cached on 0", nodes)},
		{"warm", fmt.Sprintf("copied to 0, already cached on %d", nodes)},
	} {
		begin := time.Now()
		got := e.head(t, 5*time.Minute, args...)
		took := time.Since(begin)
		if got.Code != 0 {
			t.Fatalf("%s run: exit %d\nstderr:\n%s", c.name, got.Code, got.Stderr)
		}
		if !strings.Contains(got.Stderr, c.says) {
			t.Errorf("%s run: no %q; stderr:\n%s", c.name, c.says, got.Stderr)
		}
		// Cold, the copies spread from node to node: the coordinator
		// sends a few, the nodes that have one the rest.
		if tree := fmt.Sprintf("streamed to %d (", nodes); c.name == "cold" &&
			(!strings.Contains(got.Stderr, tree) || strings.Contains(got.Stderr, " 0 from other nodes")) {
			t.Errorf("cold run: the copies did not spread from node to node (want %q and more than 0 from other nodes); stderr:\n%s",
				tree, got.Stderr)
		}
		job := harness.LoadResult(t, out)
		if !job.Complete || len(job.Hosts) != nodes {
			t.Fatalf("%s run: complete %v, %d nodes in the result, want %d", c.name, job.Complete, len(job.Hosts), nodes)
		}
		seen := map[string]bool{}
		for _, h := range job.Hosts {
			if h.Threads != 1 || seen[h.Host] {
				t.Errorf("%s run: node %s has %d threads (or is listed twice)", c.name, h.Host, h.Threads)
			}
			seen[h.Host] = true
		}
		if err := figures.Check(job); err != nil {
			t.Errorf("%s run: figures do not recompute: %v", c.name, err)
		}
		e.waitNothingLeft(t, 10*time.Second)
		t.Logf("%s run of %d nodes: %.2f s in all", c.name, nodes, took.Seconds())
		bound = faultLimit + took // the warm run's, the later of the two
		for _, line := range strings.Split(got.Stderr, "\n") {
			if strings.Contains(line, "nodes ready") {
				t.Logf("%s run: %s", c.name, line)
			}
		}
	}

	// A rank killed mid-run at this scale still ends the job within the
	// fault limit, named, with nothing left on any of the 64 nodes.
	cmd, stderr := e.startLong(t, "--threads", fmt.Sprint(nodes), "--heartbeat-timeout", heartbeatTimeout)
	const victim = "node37"
	pids, err := e.c.Processes(victim, e.remoteExe())
	if err != nil || len(pids) != 1 {
		t.Fatalf("ranks on %s: %v, %v; want one", victim, pids, err)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	code, took := waitFault(t, cmd, time.Now(), bound)
	if msg := stderr.String(); code != 1 || !strings.Contains(msg, victim) || !strings.Contains(msg, "rank 36") {
		t.Fatalf("exit %d after %v, want 1 naming %s and rank 36; stderr:\n%s", code, took, victim, msg)
	}
	t.Logf("killed rank on %s: the job ended %.2f s later", victim, took.Seconds())
	e.waitNothingLeft(t, 10*time.Second)

	// A node frozen (every process on it stopped, sshd included) while
	// the job drops caches before every phase, and the frozen node is the
	// one that drops the kernel's cache for all (rank 0): named within
	// the fault limit; once thawed, its rank finds the coordinator gone,
	// and nothing is left on any node.
	const frozen = "node1"
	cmd, stderr = e.startLong(t, "--threads", fmt.Sprint(nodes), "--heartbeat-timeout", heartbeatTimeout, "--drop-caches", "on")
	if err := e.c.Freeze(frozen); err != nil {
		t.Fatal(err)
	}
	var thawOnce sync.Once
	thaw := func() {
		thawOnce.Do(func() {
			if err := e.c.Thaw(frozen); err != nil {
				t.Error(err)
			}
		})
	}
	defer thaw()
	code, took = waitFault(t, cmd, time.Now(), bound)
	if msg := stderr.String(); code != 1 || !strings.Contains(msg, "host "+frozen+" rank 0") {
		t.Fatalf("exit %d after %v, want 1 naming %s rank 0; stderr:\n%s", code, took, frozen, msg)
	}
	t.Logf("frozen %s during cache drops: the job ended %.2f s later", frozen, took.Seconds())
	thaw()
	e.waitNothingLeft(t, 10*time.Second)
}
