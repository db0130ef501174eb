package gluster

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ioswarm/test/cluster"
)

// Time limits for cluster.sh's gluster subcommands; up takes about 2 s
// and down about 2.5 s on an idle 2-core machine.
const (
	upTimeout = 2 * time.Minute
	opTimeout = time.Minute
)

// Volume is a started GlusterFS volume, mounted on the cluster's nodes.
type Volume struct {
	Server     string   // the storage node's host name; resolves on the nodes only
	ServerIP   string   // its address on the cluster's subnet
	Name       string   // the volume's name: gv0
	Source     string   // what the nodes mounted: Server:/Name
	MountPoint string   // the same path on every node; an empty directory elsewhere
	Bricks     []string // the brick directories, on the machine's disk
	Nodes      []string // the nodes that mounted it at Start
	LogDir     string   // glusterd's, the bricks' (var-log/bricks) and each client's log

	c    *cluster.Cluster
	dirs atomic.Int32
}

// tools are the programs a volume needs: the server, the CLI, the brick
// process, and the FUSE client's mount helper.
var tools = []string{"glusterd", "gluster", "glusterfsd", "mount.glusterfs"}

// Unavailable says why a volume cannot be served here, or "" if it can.
func Unavailable() string {
	if os.Geteuid() != 0 {
		return "needs root to run glusterd and mount FUSE filesystems"
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if _, err := os.Stat("/usr/sbin/" + tool); err != nil {
				return tool + " not found; install glusterfs-server and glusterfs-client"
			}
		}
	}
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	if err != nil {
		return "FUSE is unavailable: " + err.Error()
	}
	f.Close()
	return ""
}

// Skip skips the test when no volume can be served here. Call it before
// building the cluster, so that a test which will skip builds nothing.
func Skip(t testing.TB) {
	t.Helper()
	if reason := Unavailable(); reason != "" {
		t.Skip("GlusterFS volume unavailable: " + reason)
	}
	if testing.Short() {
		t.Skip("GlusterFS volume skipped in -short mode")
	}
}

// Start serves a volume to every node of c and mounts it there. It is torn
// down in t.Cleanup, before the cluster (cleanups run last first), also when
// the test fails; the cluster's own teardown would tear it down as well.
func Start(t testing.TB, c *cluster.Cluster) *Volume {
	t.Helper()
	Skip(t)
	ctx, cancel := context.WithTimeout(context.Background(), upTimeout)
	defer cancel()
	v := &Volume{c: c}
	t.Cleanup(func() { v.cleanup(t) })
	out, err := c.Script(ctx, "gluster-up")
	if err != nil {
		t.Fatalf("gluster up: %v", err)
	}
	if err := v.load(); err != nil {
		t.Fatal(err)
	}
	v.Nodes = slices.Clone(c.Nodes)
	t.Log(strings.TrimSpace(lastLine(out)))
	return v
}

// load fills the volume's fields from the env file gluster-up wrote.
func (v *Volume) load() error {
	path := filepath.Join(v.c.Dir, "gluster", "env")
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading the volume's env: %w", err)
	}
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), "=")
		if ok {
			env[key] = strings.Trim(val, "'")
		}
	}
	v.Server, v.ServerIP = env["GLUSTER_SERVER"], env["GLUSTER_SERVER_IP"]
	v.Name, v.MountPoint = env["GLUSTER_VOLUME"], env["GLUSTER_MOUNT"]
	v.Bricks = strings.Fields(env["GLUSTER_BRICKS"])
	v.LogDir = env["GLUSTER_LOGS"]
	v.Source = v.Server + ":/" + v.Name
	if v.Server == "" || v.Name == "" || v.MountPoint == "" || len(v.Bricks) == 0 {
		return fmt.Errorf("volume env %s is incomplete: %q", path, data)
	}
	return nil
}

// Unmount unmounts the volume on node, in the node's mount namespace; the
// empty mount point stays, on the machine's disk.
func (v *Volume) Unmount(node string) error {
	return v.script("gluster-umount", node)
}

// Mount mounts the volume on node again, with extra mount options such as
// "ro".
func (v *Volume) Mount(node string, options ...string) error {
	args := []string{node}
	if len(options) > 0 {
		args = append(args, strings.Join(options, ","))
	}
	return v.script("gluster-mount", args...)
}

// Gluster runs the gluster CLI (in script mode) on the storage node.
func (v *Volume) Gluster(ctx context.Context, args ...string) (string, error) {
	return v.c.Script(ctx, "gluster", args...)
}

// Stop tears the volume down now. It is safe to call more than once.
func (v *Volume) Stop() error {
	return v.script("gluster-down")
}

// Mkdir makes a fresh directory on the volume, through the first node's
// mount, owned by owner (a login name; "" for root), and returns its path.
func (v *Volume) Mkdir(t testing.TB, owner string) string {
	t.Helper()
	dir := filepath.Join(v.MountPoint, "d"+strconv.Itoa(int(v.dirs.Add(1))))
	args := []string{"install", "-d", "-m", "0755"}
	if owner != "" {
		args = append(args, "-o", owner)
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if out, err := v.c.Exec(ctx, v.Nodes[0], append(args, dir)...).CombinedOutput(); err != nil {
		t.Fatalf("making %s on the volume: %v: %s", dir, err, out)
	}
	return dir
}

// BrickEntries lists, as paths relative to their brick, every entry in the
// bricks whose name match accepts. GlusterFS's own .glusterfs directory
// (gfid links and indices) is left out.
func (v *Volume) BrickEntries(t testing.TB, match func(name string) bool) []string {
	t.Helper()
	var found []string
	for _, brick := range v.Bricks {
		err := filepath.WalkDir(brick, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == ".glusterfs" {
				return filepath.SkipDir
			}
			if path != brick && match(d.Name()) {
				rel, _ := filepath.Rel(brick, path)
				found = append(found, filepath.Base(brick)+":"+rel)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("listing brick %s: %v", brick, err)
		}
	}
	return found
}

func (v *Volume) script(sub string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	_, err := v.c.Script(ctx, sub, args...)
	return err
}

// cleanup tears the volume down, showing the ends of its logs when the
// test failed.
func (v *Volume) cleanup(t testing.TB) {
	if t.Failed() && v.LogDir != "" {
		v.logTails(t)
	}
	if err := v.Stop(); err != nil {
		t.Errorf("%v", err)
	}
}

func (v *Volume) logTails(t testing.TB) {
	var logs []string
	_ = filepath.WalkDir(v.LogDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".log") {
			logs = append(logs, path)
		}
		return nil
	})
	bricks, _ := filepath.Glob(filepath.Join(v.c.Dir, "gluster", "var-log", "bricks", "*.log"))
	for _, l := range append(logs, bricks...) {
		data, err := os.ReadFile(l)
		if err != nil || len(data) == 0 {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		t.Logf("%s (last lines):\n%s", l, strings.Join(lines[max(0, len(lines)-8):], "\n"))
	}
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}
