package ssh

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/figures"
	"ioswarm/test/harness"
)

// One shared file written by eight threads on four nodes, then read back
// verified (every 512-byte unit checked against the pattern of the thread
// whose part it is) by threads reading the part written one node along,
// segmented and strided; the figures recompute and every node is clean.
func TestSharedFileVerifiedAcrossNodes(t *testing.T) {
	e := newEnv(t, 4)
	for _, pattern := range []string{"segmented", "strided"} {
		out := filepath.Join(t.TempDir(), pattern+".json")
		args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "8", "--dir", e.dir,
			"--total", "32MiB", "--block", "1MiB", "--layout", "shared", "--pattern", pattern,
			"--phases", "write,read,randread", "--verify", "--rand-time", "2s", "--output", out}, e.sshFlags()...)
		res := e.head(t, 3*time.Minute, args...)
		if res.Code != 0 {
			t.Fatalf("%s: exit %d\nstderr:\n%s", pattern, res.Code, res.Stderr)
		}
		job := harness.LoadResult(t, out)
		if err := figures.Check(job); err != nil {
			t.Errorf("%s: figures do not recompute: %v", pattern, err)
		}
		if job.Config.Layout != "shared" || job.Config.Pattern.String() != pattern || job.Config.ReadShift != 1 {
			t.Errorf("%s: config layout %q pattern %q read_shift %d", pattern, job.Config.Layout, job.Config.Pattern, job.Config.ReadShift)
		}
		for _, p := range job.Phases {
			if len(p.Threads) != 8 {
				t.Fatalf("%s %s: %d thread records", pattern, p.Name, len(p.Threads))
			}
			for _, th := range p.Threads {
				if filepath.Base(th.File) != "shared.dat" || th.WrittenByThread == nil {
					t.Errorf("%s %s: thread %d used %s, written by %v", pattern, p.Name, th.Thread, th.File, th.WrittenByThread)
					continue
				}
				if p.Name != "write" && th.WrittenByHost == th.Host {
					t.Errorf("%s %s: thread %d on %s read the part written on its own node", pattern, p.Name, th.Thread, th.Host)
				}
			}
			if (p.Name == "read" || p.Name == "randread") && !p.Verified {
				t.Errorf("%s %s: not verified", pattern, p.Name)
			}
		}
		e.checkClean(t, 5*time.Second)
	}
}

// The metadata phases on four nodes, per-thread and shared directories:
// exact counts, figures recomputed, nothing left on any node.
func TestMetadataPhasesOnFourNodes(t *testing.T) {
	e := newEnv(t, 4)
	for _, mddir := range []string{"per-thread", "shared"} {
		out := filepath.Join(t.TempDir(), mddir+".json")
		args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "8", "--dir", e.dir,
			"--phases", "mdcreate,mdstat,mdread,mddelete", "--files-per-thread", "200", "--md-dir", mddir,
			"--md-size", "3901", "--verify", "--output", out}, e.sshFlags()...)
		res := e.head(t, 3*time.Minute, args...)
		if res.Code != 0 {
			t.Fatalf("%s: exit %d\nstderr:\n%s", mddir, res.Code, res.Stderr)
		}
		job := harness.LoadResult(t, out)
		if err := figures.Check(job); err != nil {
			t.Errorf("%s: %v", mddir, err)
		}
		for _, p := range job.Phases {
			hosts := map[string]bool{}
			for _, th := range p.Threads {
				hosts[th.Host] = true
				if th.Ops != 200 {
					t.Errorf("%s %s: thread %d did %d operations, want 200", mddir, p.Name, th.Thread, th.Ops)
				}
			}
			if p.Ops != 1600 || len(hosts) != 4 || p.OpsPerSec <= 0 {
				t.Errorf("%s %s: %d ops on %d hosts, %g ops/s", mddir, p.Name, p.Ops, len(hosts), p.OpsPerSec)
			}
		}
		e.checkClean(t, 5*time.Second)
	}
}

// A filesystem out of inodes on one node (a tmpfs with nr_inodes over
// --dir in node3's namespace) fails mdcreate there: the error names
// node3's host and rank, the thread and the file; every node, node3's
// own view included, is left clean.
func TestMetadataCreateFailsOnOneNode(t *testing.T) {
	e := newEnv(t, 4)
	bound := e.faultBound(t)
	e.onNode(t, "node3", "mount", "-t", "tmpfs", "-o", "size=64m,nr_inodes=100", "tmpfs", e.dir)
	defer e.onNode(t, "node3", "umount", e.dir)
	out := filepath.Join(t.TempDir(), "result.json")
	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "4", "--dir", e.dir,
		"--phases", "mdcreate,mddelete", "--files-per-thread", "500", "--heartbeat-timeout", heartbeatTimeout,
		"--output", out, "--allow-mixed-fs", "--ignore-space"}, e.sshFlags()...)
	o := e.head(t, time.Minute, args...)
	if o.Code != 1 || o.Took > bound {
		t.Errorf("exit %d after %v, want 1 within %v", o.Code, o.Took, bound)
	}
	msg := finalError(t, o.Stderr, "host node3 rank 2", "thread 2", "no space left on device")
	if !strings.Contains(msg, "mdcreate "+e.dir+"/ioswarm-") || !strings.Contains(msg, "/md-t2/f") {
		t.Errorf("error line does not name thread 2's file under %s: %s", e.dir, msg)
	}
	checkIncomplete(t, out, msg, 4)
	e.checkClean(t, 5*time.Second)
	if left := e.entriesOn(t, "node3", e.dir); len(left) != 0 {
		t.Errorf("left in node3's view of %s: %v", e.dir, left)
	}
}
