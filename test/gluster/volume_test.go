package gluster

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"ioswarm/test/cluster"
)

// The volume itself, without ioswarm: mounted on every node and nowhere
// else, one namespace's write read back on another node and found in a
// brick, a node unmounted and mounted again, and a teardown that leaves no
// glusterd, no storage namespace and nothing new in the system's gluster
// directories.
func TestVolumeMountsAndTeardown(t *testing.T) {
	Skip(t)
	systemBefore := systemEntries(t)
	c := cluster.Start(t, 2)
	v := Start(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	for _, node := range c.Nodes {
		if got := findmnt(ctx, t, c, node, v.MountPoint); got != "fuse.glusterfs "+v.Source {
			t.Errorf("%s: %s is %q, want fuse.glusterfs from %s", node, v.MountPoint, got, v.Source)
		}
	}
	if entries, err := os.ReadDir(v.MountPoint); err != nil || len(entries) != 0 {
		t.Errorf("the mount point as the root namespace sees it: %d entries, %v; want an empty directory", len(entries), err)
	}

	file := filepath.Join(v.MountPoint, "hello.txt")
	if out, err := c.Exec(ctx, "node1", "sh", "-c", "echo hello >"+file).CombinedOutput(); err != nil {
		t.Fatalf("writing on node1: %v: %s", err, out)
	}
	if out, err := c.Exec(ctx, "node2", "cat", file).CombinedOutput(); err != nil || string(out) != "hello\n" {
		t.Errorf("node2 reads %q, %v", out, err)
	}
	if in := v.BrickEntries(t, func(name string) bool { return name == "hello.txt" }); len(in) != 1 {
		t.Errorf("hello.txt in the bricks: %v, want one brick to hold it", in)
	}

	if err := v.Unmount("node2"); err != nil {
		t.Fatal(err)
	}
	if got := findmnt(ctx, t, c, "node2", v.MountPoint); strings.HasPrefix(got, "fuse.glusterfs") {
		t.Errorf("node2 still has the volume mounted after Unmount: %q", got)
	}
	if err := v.Mount("node2", "ro"); err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(ctx, "node2", "touch", file).Run(); err == nil {
		t.Errorf("node2 wrote to its read-only mount")
	}

	pid := glusterdPID(t, c)
	if err := v.Stop(); err != nil {
		t.Fatal(err)
	}
	if running(pid) {
		t.Errorf("glusterd (PID %d) still runs after Stop", pid)
	}
	if _, err := os.Stat("/run/netns/" + c.Prefix + "st"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the storage namespace is still there after Stop (stat: %v)", err)
	}
	if hosts, err := os.ReadFile(filepath.Join(c.Dir, "etc_hosts")); err != nil || strings.Contains(string(hosts), v.Server) {
		t.Errorf("the nodes' /etc/hosts still names %s after Stop (%v)", v.Server, err)
	}
	if after := systemEntries(t); !slices.Equal(after, systemBefore) {
		t.Errorf("the system's gluster directories held %q before, %q after", systemBefore, after)
	}
	if err := v.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

// findmnt returns "FSTYPE SOURCE" of the mount holding path on node.
func findmnt(ctx context.Context, t *testing.T, c *cluster.Cluster, node, path string) string {
	t.Helper()
	out, err := c.Exec(ctx, node, "findmnt", "-n", "-o", "FSTYPE,SOURCE", "-T", path).CombinedOutput()
	if err != nil {
		t.Fatalf("findmnt on %s: %v: %s", node, err, out)
	}
	return strings.Join(strings.Fields(string(out)), " ")
}

func glusterdPID(t *testing.T, c *cluster.Cluster) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(c.Dir, "gluster", "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.Fields(string(data))[0])
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// running reports whether pid is a live process, not a zombie: exited
// processes linger a while here before PID 1 reaps them.
func running(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// systemEntries lists what /var/lib/glusterd and /var/log/glusterfs hold.
func systemEntries(t *testing.T) []string {
	t.Helper()
	var all []string
	for _, d := range []string{"/var/lib/glusterd", "/var/log/glusterfs"} {
		entries, err := os.ReadDir(d)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		for _, e := range entries {
			all = append(all, filepath.Join(d, e.Name()))
		}
	}
	return all
}
