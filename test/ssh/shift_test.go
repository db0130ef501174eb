package ssh

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"ioswarm/figures"
	"ioswarm/test/harness"
)

// Rotated reads on four real nodes: every thread of the read phase reads
// (and verifies) the file written one node further along, the randread
// after it (a further read of the same files) two nodes along, and the
// records say which host wrote it; with --read-shift 0 each reads its own;
// a shift the placement cannot give is refused with the reason.
func TestReadShiftReadsAnotherNodesFile(t *testing.T) {
	e := newEnv(t, 4)
	nodes := []string{"node1", "node2", "node3", "node4"}
	along := func(host string, k int) string { return nodes[(slices.Index(nodes, host)+k)%4] }
	for _, shift := range []string{"1", "0"} {
		out := filepath.Join(t.TempDir(), "shift"+shift+".json")
		args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "8", "--dir", e.dir,
			"--total", "32MiB", "--block", "1MiB", "--phases", "write,read,randread", "--verify",
			"--read-shift", shift, "--output", out}, e.sshFlags()...)
		res := e.head(t, 3*time.Minute, args...)
		if res.Code != 0 {
			t.Fatalf("--read-shift %s: exit %d\nstderr:\n%s", shift, res.Code, res.Stderr)
		}
		job := harness.LoadResult(t, out)
		if err := figures.Check(job); err != nil {
			t.Errorf("--read-shift %s: figures do not recompute: %v", shift, err)
		}
		if want := map[string]int{"1": 1, "0": 0}[shift]; job.Config.ReadShift != want {
			t.Errorf("config read_shift %d, want %d", job.Config.ReadShift, want)
		}
		for _, p := range job.Phases {
			for _, th := range p.Threads {
				writer := th.Host
				wantThread := th.Thread
				if shift == "1" && (p.Name == "read" || p.Name == "randread") {
					k := map[string]int{"read": 1, "randread": 2}[p.Name]
					writer = along(th.Host, k)
					// 8 threads on 4 nodes, thread t on node t mod 4: k
					// nodes along is thread t − t mod 4 + (t + k) mod 4.
					wantThread = th.Thread - th.Thread%4 + (th.Thread+k)%4
				}
				if th.WrittenByThread == nil || th.WrittenByHost != writer || *th.WrittenByThread != wantThread ||
					filepath.Base(th.File) != fmt.Sprintf("t%d.dat", wantThread) {
					t.Errorf("--read-shift %s %s: thread %d on %s used %s, written by thread %d on %s; want thread %d on %s",
						shift, p.Name, th.Thread, th.Host, th.File, th.WrittenByThread, th.WrittenByHost, wantThread, writer)
					continue
				}
			}
			if (p.Name == "read" || p.Name == "randread") && (p.CacheGuard == nil || len(p.ResidentByHost) != 4) {
				t.Errorf("%s: cache guard %+v, residency by host %+v", p.Name, p.CacheGuard, p.ResidentByHost)
			}
		}
		for _, h := range job.Hosts {
			if h.MemTotal <= 0 || h.MountPoint == "" || h.FSBlockSize <= 0 {
				t.Errorf("host %s: mem_total %d, mount point %q, block size %d", h.Host, h.MemTotal, h.MountPoint, h.FSBlockSize)
			}
		}
		e.waitNothingLeft(t, 5*time.Second)
	}

	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "8", "--dir", e.dir,
		"--total", "32MiB", "--block", "1MiB", "--read-shift", "4"}, e.sshFlags()...)
	res := e.head(t, time.Minute, args...)
	if res.Code != 2 || !strings.Contains(res.Stderr, "--read-shift 4") || !strings.Contains(res.Stderr, "needs at least 5") {
		t.Errorf("--read-shift 4 on 4 nodes: exit %d, stderr:\n%s", res.Code, res.Stderr)
	}
	if entries := harness.DirEntries(t, e.dir); len(entries) != 0 {
		t.Errorf("refused run left %v in %s", entries, e.dir)
	}
	e.waitNothingLeft(t, 5*time.Second)
}

// io_uring at depth 8 on four real nodes, rotated reads included: the
// depth is achieved on every node and the data verifies.
func TestIOuringOnFourNodes(t *testing.T) {
	e := newEnv(t, 4)
	out := filepath.Join(t.TempDir(), "uring.json")
	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "4", "--dir", e.dir,
		"--total", "32MiB", "--block", "1MiB", "--phases", "write,read,randread", "--verify", "--direct",
		"--engine", "io_uring", "--iodepth", "8", "--output", out}, e.sshFlags()...)
	res := e.head(t, 3*time.Minute, args...)
	if res.Code != 0 {
		t.Fatalf("exit %d\n%s", res.Code, res.Stderr)
	}
	job := harness.LoadResult(t, out)
	if err := figures.Check(job); err != nil {
		t.Errorf("figures do not recompute: %v", err)
	}
	for _, p := range job.Phases {
		if p.IODepthAchievedMax != 8 {
			t.Errorf("%s: achieved max depth %d, want 8", p.Name, p.IODepthAchievedMax)
		}
		for _, th := range p.Threads {
			if th.IODepthAchievedMax != 8 {
				t.Errorf("%s thread %d on %s: achieved max depth %d", p.Name, th.Thread, th.Host, th.IODepthAchievedMax)
			}
		}
	}
	e.waitNothingLeft(t, 5*time.Second)
}
