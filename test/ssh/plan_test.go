package ssh

import (
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// One node whose --dir is a filesystem of its own smaller than its share
// (a 4 MiB tmpfs over --dir in node3's namespace) is refused before any
// file is written anywhere, naming that node, what it would write and
// what is free there.
func TestPlanRefusesOneNodesSmallDisk(t *testing.T) {
	e := newEnv(t, 4)
	e.onNode(t, "node3", "mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", e.dir)
	defer e.onNode(t, "node3", "umount", e.dir)
	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "4", "--dir", e.dir,
		"--total", "64MiB", "--block", "1MiB", "--heartbeat-timeout", heartbeatTimeout, "--allow-mixed-fs"}, e.sshFlags()...)
	o := e.head(t, time.Minute, args...)
	if o.Code != 2 {
		t.Fatalf("exit %d, want 2; stderr:\n%s", o.Code, o.Stderr)
	}
	finalError(t, o.Stderr, "host node3 rank 2", "--dir "+e.dir, "tmpfs", "has 4.00 MiB free", "writes 16.0 MiB", "--ignore-space")
	e.checkClean(t, 5*time.Second)
	for _, node := range []string{"node1", "node3"} {
		if left := e.entriesOn(t, node, e.dir); len(left) != 0 {
			t.Errorf("written in %s's view of %s before the refusal: %v", node, e.dir, left)
		}
	}
}

// Nodes that write one filesystem (here the machine's disk, which every
// node's --dir is on) are held against its free space together: each
// node's share fits, all four do not, and the refusal names them as one.
func TestPlanCountsOneFilesystemOnce(t *testing.T) {
	e := newEnv(t, 4)
	var sfs unix.Statfs_t
	if err := unix.Statfs(e.dir, &sfs); err != nil {
		t.Fatal(err)
	}
	free := int64(sfs.Bavail) * sfs.Frsize
	// A quarter of the free space and a GiB more each: together past it.
	perThread := (free/4 + 1<<30) >> 20 << 20
	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "4", "--dir", e.dir,
		"--file-size", strconv.FormatInt(perThread>>20, 10) + "MiB", "--block", "1MiB", "--heartbeat-timeout", heartbeatTimeout}, e.sshFlags()...)
	o := e.head(t, time.Minute, args...)
	if o.Code != 2 {
		t.Fatalf("exit %d, want 2; stderr:\n%s", o.Code, o.Stderr)
	}
	finalError(t, o.Stderr, "hosts node[1-4] (4 ranks on one filesystem)", "--dir "+e.dir, "free and the job writes")
	e.checkClean(t, 5*time.Second)
	if left := e.entriesOn(t, "node1", e.dir); len(left) != 0 {
		t.Errorf("written before the refusal: %v", left)
	}
}
