package ssh

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/internal/testio"
	"ioswarm/test/cluster"
	"ioswarm/test/harness"
)

// env is a running cluster, the binary under test and a benchmark
// directory that every node sees (under /var/tmp, which the nodes share;
// their /tmp is private).
type env struct {
	c    *cluster.Cluster
	bin  string
	hash string
	dir  string
}

func newEnv(t *testing.T, nodes int) *env {
	t.Helper()
	return newEnvWith(t, nodes, cluster.Options{})
}

// newEnvWith is newEnv on a cluster built with options.
func newEnvWith(t *testing.T, nodes int, opt cluster.Options) *env {
	t.Helper()
	c := cluster.StartWith(t, nodes, opt)
	e := &env{c: c, bin: bin.Path(t)}
	data, err := os.ReadFile(e.bin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	e.hash = hex.EncodeToString(sum[:])
	e.dir, err = os.MkdirTemp("/var/tmp", "ioswarm-ssh-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(e.dir) })
	return e
}

// sshFlags point the launcher at the cluster's ssh_config and key.
func (e *env) sshFlags() []string {
	return []string{"--ssh-config", e.c.SSHConfig, "--identity", e.c.Identity}
}

// remoteExe is the cached binary's path as a node sees it (root's home).
func (e *env) remoteExe() string {
	return "/root/.cache/ioswarm/" + e.hash + "/ioswarm"
}

// cachedOn is the same file as this machine sees it: each node's /root is
// a directory of the cluster's.
func (e *env) cachedOn(node string) string {
	return filepath.Join(e.c.Dir, "home", node, ".cache", "ioswarm", e.hash, "ioswarm")
}

// head runs the binary in the head namespace to completion.
func (e *env) head(t *testing.T, limit time.Duration, args ...string) harness.Outcome {
	t.Helper()
	return harness.RunCmd(t, e.c.Head(context.Background(), e.bin, args...), limit)
}

// startLong starts a run that lasts until it is stopped, and waits until
// its job directory exists: every rank has joined and set up.
func (e *env) startLong(t *testing.T, extra ...string) (*exec.Cmd, *testio.LockedBuffer) {
	t.Helper()
	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "4", "--dir", e.dir,
		"--total", "64MiB", "--block", "1MiB", "--iterations", "1000", "--drop-caches", "off"}, e.sshFlags()...)
	cmd := e.c.Head(context.Background(), e.bin, append(args, extra...)...)
	return cmd, harness.StartJob(t, cmd, e.dir, 60*time.Second)
}

// ranksLeft lists, per node, the ioswarm processes still running there.
func (e *env) ranksLeft(t *testing.T) map[string][]int {
	t.Helper()
	left := map[string][]int{}
	for _, node := range e.c.Nodes {
		pids, err := e.c.Processes(node, e.remoteExe())
		if err != nil {
			t.Fatal(err)
		}
		if len(pids) > 0 {
			left[node] = pids
		}
	}
	return left
}

// waitNothingLeft waits until no node runs ioswarm and the benchmark
// directory is empty.
func (e *env) waitNothingLeft(t *testing.T, within time.Duration) {
	t.Helper()
	var left map[string][]int
	var files []string
	within = harness.LeftoverWait(within) // load must not pass for a leftover
	clean := harness.Poll(within, 100*time.Millisecond, func() bool {
		left, files = e.ranksLeft(t), harness.DirEntries(t, e.dir)
		return len(left) == 0 && len(files) == 0
	})
	if !clean {
		t.Fatalf("%v after the run: ranks still running %v, files left in %s: %v", within, left, e.dir, files)
	}
}

// fingerprint is the SHA256 fingerprint of a node's host key, as
// ssh-keygen prints it.
func (e *env) fingerprint(t *testing.T, node string) string {
	t.Helper()
	out, err := exec.Command("ssh-keygen", "-l", "-E", "sha256", "-f",
		filepath.Join(e.c.Dir, "nodes", node, "ssh_host_ed25519_key.pub")).Output()
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(out))
	if len(f) < 2 || !strings.HasPrefix(f[1], "SHA256:") {
		t.Fatalf("ssh-keygen -l printed %q", out)
	}
	return f[1]
}

// writeFile writes a file for the test and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
