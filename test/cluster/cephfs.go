package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Time limits for cluster.sh's ceph subcommands: up takes 10-15 s on a
// loaded 2-core machine, down about 6 s.
const (
	cephUpTimeout = 3 * time.Minute
	cephOpTimeout = 2 * time.Minute
)

// CephFS is a CephFS filesystem served from one more namespaced node and
// mounted with ceph-fuse on the cluster's nodes (cluster.sh ceph-up).
type CephFS struct {
	MountPoint string // the same path on every node; an empty directory elsewhere
	Conf       string // ceph.conf, for the ceph CLI
	RunDir     string // the daemons' and clients' admin sockets: NODE.asok per client
	LogDir     string
	OCSize     int64    // each ceph-fuse's object cacher, client_oc_size
	Nodes      []string // the nodes that mounted it at StartCephFS
	c          *Cluster
}

// CephFSUnavailable says why CephFS cannot be served here, or "" if it can.
func CephFSUnavailable() string {
	if os.Geteuid() != 0 {
		return "needs root to run the ceph daemons and mount FUSE filesystems"
	}
	for _, tool := range []string{"ceph", "ceph-mon", "ceph-mgr", "ceph-osd", "ceph-mds", "ceph-fuse", "ceph-authtool", "monmaptool"} {
		if _, err := exec.LookPath(tool); err != nil {
			return tool + " not found; install ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse"
		}
	}
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	if err != nil {
		return "FUSE is unavailable: " + err.Error()
	}
	f.Close()
	return ""
}

// SkipCephFS skips the test when CephFS cannot be served here. Call it
// before building the cluster, so that a test which will skip builds
// nothing.
func SkipCephFS(t testing.TB) {
	t.Helper()
	if reason := CephFSUnavailable(); reason != "" {
		t.Skip("CephFS unavailable: " + reason)
	}
	if testing.Short() {
		t.Skip("CephFS skipped in -short mode")
	}
}

// StartCephFS serves CephFS to every node of c, each ceph-fuse with an
// object cacher of ocSize bytes. It is torn down in t.Cleanup, before the
// cluster, also when the test fails.
func StartCephFS(t testing.TB, c *Cluster, ocSize int64) *CephFS {
	t.Helper()
	SkipCephFS(t)
	ctx, cancel := context.WithTimeout(context.Background(), cephUpTimeout)
	defer cancel()
	f := &CephFS{c: c}
	t.Cleanup(func() { f.cleanup(t) })
	cmd := exec.CommandContext(ctx, "bash", c.script, "ceph-up", c.Dir)
	cmd.Env = append(append(os.Environ(), c.env...), "CEPH_OC_SIZE="+strconv.FormatInt(ocSize, 10))
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ceph up: %v\n%s", err, out)
	}
	if err := f.load(); err != nil {
		t.Fatal(err)
	}
	f.Nodes = slices.Clone(c.Nodes)
	t.Log(strings.TrimSpace(lastLine(string(out))))
	return f
}

func (f *CephFS) load() error {
	data, err := os.ReadFile(filepath.Join(f.c.Dir, "ceph", "env"))
	if err != nil {
		return fmt.Errorf("reading the filesystem's env: %w", err)
	}
	env, err := parseEnv(data)
	if err != nil {
		return err
	}
	f.MountPoint, f.Conf, f.RunDir, f.LogDir = env["CEPH_MOUNT"], env["CEPH_CONF"], env["CEPH_RUN"], env["CEPH_LOGS"]
	f.OCSize, err = strconv.ParseInt(env["CEPH_OC_SIZE"], 10, 64)
	return err
}

func (f *CephFS) cleanup(t testing.TB) {
	ctx, cancel := context.WithTimeout(context.Background(), cephOpTimeout)
	defer cancel()
	if out, err := f.c.Script(ctx, "ceph-down"); err != nil {
		t.Errorf("ceph down: %v\n%s", err, out)
	}
}

// Remount unmounts and mounts CephFS again on node: its ceph-fuse, and so
// its object cacher, starts empty.
func (f *CephFS) Remount(node string) error {
	ctx, cancel := context.WithTimeout(context.Background(), cephOpTimeout)
	defer cancel()
	if _, err := f.c.Script(ctx, "ceph-umount", node); err != nil {
		return err
	}
	_, err := f.c.Script(ctx, "ceph-mount", node)
	return err
}

// RemountAll remounts every node's CephFS.
func (f *CephFS) RemountAll() error {
	for _, n := range f.Nodes {
		if err := f.Remount(n); err != nil {
			return err
		}
	}
	return nil
}

// ClientCounters are a node's ceph-fuse totals, read with the ceph CLI
// from its admin socket: the object cacher's own hit and miss bytes and
// the bytes its messengers received from the servers.
type ClientCounters struct {
	HitBytes, MissBytes, ReceivedBytes int64
}

// Counters reads node's ceph-fuse counters (`ceph --admin-daemon SOCK
// perf dump`).
func (f *CephFS) Counters(node string) (ClientCounters, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sock := filepath.Join(f.RunDir, node+".asok")
	out, err := exec.CommandContext(ctx, "ceph", "--admin-daemon", sock, "perf", "dump").Output()
	if err != nil {
		return ClientCounters{}, fmt.Errorf("ceph --admin-daemon %s perf dump: %w", sock, err)
	}
	return parsePerfDump(out)
}

func parsePerfDump(out []byte) (ClientCounters, error) {
	var dump map[string]map[string]json.RawMessage
	if err := json.Unmarshal(out, &dump); err != nil {
		return ClientCounters{}, fmt.Errorf("perf dump: %w", err)
	}
	num := func(sec, key string) int64 {
		n, _ := strconv.ParseInt(string(dump[sec][key]), 10, 64)
		return n
	}
	c := ClientCounters{HitBytes: num("objectcacher-libcephfs", "cache_bytes_hit"),
		MissBytes: num("objectcacher-libcephfs", "cache_bytes_miss")}
	for name := range dump {
		if strings.HasPrefix(name, "AsyncMessenger::Worker") {
			c.ReceivedBytes += num(name, "msgr_recv_bytes")
		}
	}
	return c, nil
}
