package cephfs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/result"
	"ioswarm/test/cluster"
	"ioswarm/test/harness"
)

// testUser is the user who is not root of the unprivileged runs.
const testUser = "ioswarm-test"

// The sizes: four threads of 32 MiB, one per node, against object
// cachers of 64 MiB, so a node's own file fits in its cache.
const (
	nodes     = 4
	perThread = 32 << 20
	ocSize    = 64 << 20
)

// runLimit bounds one command: 128 MiB written and read twice over FUSE
// takes seconds; only a hang comes near it.
const runLimit = 3 * time.Minute

// storageShare is the part of what a node read that must have come from
// the servers for a phase with no cache warning.
const storageShare = 0.95

type env struct {
	c   *cluster.Cluster
	fs  *cluster.CephFS
	bin string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	cluster.SkipCephFS(t)
	exe := bin.Path(t) // first: a build that fails needs no cluster
	c := cluster.StartWith(t, nodes, cluster.Options{User: testUser})
	return &env{c: c, fs: cluster.StartCephFS(t, c, ocSize), bin: exe}
}

// dirFor makes a directory on CephFS for one user's runs ("" is root),
// owned by that user.
func (e *env) dirFor(t *testing.T, user, name string) string {
	t.Helper()
	dir := filepath.Join(e.fs.MountPoint, name)
	args := []string{"install", "-d", dir}
	if user != "" {
		args = []string{"install", "-d", "-o", user, dir}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := e.c.Exec(ctx, e.c.Nodes[0], args...).CombinedOutput(); err != nil {
		t.Fatalf("making %s on CephFS: %v: %s", dir, err, out)
	}
	return dir
}

// removeOnCephFS removes a path through node1's mount.
func (e *env) removeOnCephFS(t *testing.T, path string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := e.c.Exec(ctx, e.c.Nodes[0], "rm", "-rf", "--", path).CombinedOutput(); err != nil {
		t.Fatalf("removing %s: %v: %s", path, err, out)
	}
}

// sshFlags log in as user ("" for root).
func (e *env) sshFlags(user string) []string {
	f := []string{"--ssh-config", e.c.SSHConfig, "--identity", e.c.Identity}
	if user != "" {
		f = append(f, "--ssh-user", user)
	}
	return f
}

// received reads every node's ceph-fuse received bytes: the oracle the
// tests hold ioswarm to, read with the ceph CLI, not through ioswarm.
func (e *env) received(t *testing.T) map[string]cluster.ClientCounters {
	t.Helper()
	out := map[string]cluster.ClientCounters{}
	for _, n := range e.c.Nodes {
		c, err := e.fs.Counters(n)
		if err != nil {
			t.Fatal(err)
		}
		out[n] = c
	}
	return out
}

// command is one ioswarm invocation and its result.
type command struct {
	label string
	job   *result.Job
	// fetched is what each node's ceph-fuse received from the servers
	// while the command ran.
	fetched map[string]int64
}

// run runs ioswarm from the head with args and --output, reading the
// ceph-fuse counters before and after it.
func (e *env) run(t *testing.T, label string, args ...string) command {
	t.Helper()
	out := filepath.Join(t.TempDir(), "result.json")
	before := e.received(t)
	o := harness.RunCmd(t, e.c.Head(context.Background(), e.bin, append(args, "--output", out)...), runLimit)
	after := e.received(t)
	if o.Code != 0 {
		t.Fatalf("%s: exit %d\nstderr:\n%s", label, o.Code, o.Stderr)
	}
	cmd := command{label: label, job: harness.LoadResult(t, out), fetched: map[string]int64{}}
	for n := range after {
		cmd.fetched[n] = after[n].ReceivedBytes - before[n].ReceivedBytes
	}
	for _, p := range cmd.job.Phases {
		var fetched int64
		for _, n := range cmd.fetched {
			fetched += n
		}
		t.Logf("%s: %-7s %6.3f GB/s  drop %-11s resident %.2f  verdict %-11s warned %-5v servers sent %d MiB in all (command)",
			label, p.Name, p.Bandwidth/1e9, p.CacheDrop, p.ResidentFraction, p.CacheVerdict, cacheWarned(p), fetched>>20)
	}
	return cmd
}

// cacheWarned says whether a phase carries a warning that its figure may
// come from a cache (the sizing guard, residency, the client cache).
func cacheWarned(p result.Phase) bool {
	for _, w := range p.Warnings {
		if strings.Contains(w, "cache") {
			return true
		}
	}
	return false
}

// readBy sums what each node's threads read in a phase.
func readBy(p result.Phase) map[string]int64 {
	m := map[string]int64{}
	for _, th := range p.Threads {
		m[th.Host] += th.Bytes
	}
	return m
}

func writeThreadlist(t *testing.T, e *env, dir string) string {
	t.Helper()
	var b strings.Builder
	for _, n := range e.c.Nodes {
		fmt.Fprintf(&b, "%s %s /usr/bin/iozone\n", n, dir)
	}
	path := filepath.Join(t.TempDir(), "threadlist")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
