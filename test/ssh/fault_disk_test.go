package ssh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A full filesystem on one node (a 4 MiB tmpfs mounted over --dir in
// node3's namespace only) fails the write phase: the error names node3's
// host and rank, the thread, its file and ENOSPC; every node, node3's own
// view of the directory included, is left clean.
func TestNoSpaceOnOneNode(t *testing.T) {
	e := newEnv(t, 4)
	bound := e.faultBound(t)
	e.onNode(t, "node3", "mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", e.dir)
	defer e.onNode(t, "node3", "umount", e.dir)
	out := filepath.Join(t.TempDir(), "result.json")
	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "4", "--dir", e.dir,
		"--total", "64MiB", "--block", "1MiB", "--heartbeat-timeout", heartbeatTimeout, "--output", out,
		// node3's tmpfs is another filesystem than the others' on purpose.
		"--allow-mixed-fs",
		// The resource plan would refuse the job up front: this is the
		// run that meets ENOSPC anyway.
		"--ignore-space"}, e.sshFlags()...)
	o := e.head(t, time.Minute, args...)
	if o.Code != 1 || o.Took > bound {
		t.Errorf("exit %d after %v, want 1 within %v", o.Code, o.Took, bound)
	}
	msg := finalError(t, o.Stderr, "host node3 rank 2", "thread 2", "no space left on device")
	if !strings.Contains(msg, e.dir+"/ioswarm-") || !strings.Contains(msg, "/t2.dat") {
		t.Errorf("error line does not name thread 2's file under %s: %s", e.dir, msg)
	}
	checkIncomplete(t, out, msg, 4)
	e.checkClean(t, 5*time.Second)
	if left := e.entriesOn(t, "node3", e.dir); len(left) != 0 {
		t.Errorf("left in node3's view of %s: %v", e.dir, left)
	}
}

// A directory that is read-only on one node, and in a second run missing
// on another (a per-host dir= in the host file), is caught by the check
// every rank makes before anything is created: the run fails naming the
// node, and no job directory ever appears in any node's view.
func TestBadDirectoryCaughtBeforeWriting(t *testing.T) {
	e := newEnv(t, 4)
	bound := e.faultBound(t)
	e.onNode(t, "node2", "mount", "--bind", "-o", "ro", e.dir, e.dir)
	defer e.onNode(t, "node2", "umount", e.dir)
	base := append([]string{"run", "--threads", "4", "--dir", e.dir, "--total", "8MiB", "--block", "1MiB",
		"--heartbeat-timeout", heartbeatTimeout}, e.sshFlags()...)
	o := e.head(t, time.Minute, append(base, "--hosts", e.c.HostsFile)...)
	if o.Code != 1 || o.Took > bound {
		t.Errorf("read-only: exit %d after %v, want 1 within %v", o.Code, o.Took, bound)
	}
	t.Log(finalError(t, o.Stderr, "host node2 rank 1", "not writable", "read-only file system"))
	e.checkNothingWritten(t)

	missing := filepath.Join(e.dir, "missing")
	hosts := writeFile(t, "hosts", "node1\nnode3\nnode4 dir="+missing+"\n")
	o = e.head(t, time.Minute, append(base, "--hosts", hosts)...)
	if o.Code != 1 || o.Took > bound {
		t.Errorf("missing: exit %d after %v, want 1 within %v", o.Code, o.Took, bound)
	}
	t.Log(finalError(t, o.Stderr, "host node4 rank 2", missing, "no such file or directory"))
	e.checkNothingWritten(t)
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("the run created %s (stat: %v)", missing, err)
	}
}

// checkNothingWritten checks every node's view of the benchmark directory
// (a node may have its own mount there) for anything a job made.
func (e *env) checkNothingWritten(t *testing.T) {
	t.Helper()
	e.checkClean(t, 5*time.Second)
	for _, node := range e.c.Nodes {
		if left := e.entriesOn(t, node, e.dir); len(left) != 0 {
			t.Errorf("%s sees %v in %s", node, left, e.dir)
		}
	}
}
