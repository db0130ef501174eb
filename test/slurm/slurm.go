package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Cluster is a running test cluster started by Start.
type Cluster struct {
	// Dir holds the cluster's configuration, state, logs (Dir/log) and the
	// records slurm.sh keeps of what it started (Dir/pids, Dir/netns).
	Dir string
	// Conf is the slurm.conf that Login and Exec set as SLURM_CONF.
	Conf string
	// Shared is a directory (mode 1777) seen at the same path by the login
	// node and every node: the place for binaries and job files.
	Shared string
	// Nodes are the node names, node1 to nodeN.
	Nodes []string

	script string
}

// Bounds for the script's own work. up includes an apt-get install the
// first time; down waits at most a few seconds per stage.
const (
	upTimeout   = 5 * time.Minute
	downTimeout = 2 * time.Minute
	killTimeout = time.Minute
)

// Start brings up a cluster of n nodes and registers its teardown with
// t.Cleanup, which also runs when the test fails. The test is skipped when
// the machine cannot host one (not root, no unshare, nsenter or ip netns).
// $IOSWARM_SLURM_PREFIX, when set, prefixes its namespace names (else
// slurm.sh derives one from the directory); a prefix names one cluster
// at a time. The cluster's directory lies under $IOSWARM_SLURM_BASE, else /var/tmp,
// never under /tmp, which each node replaces with its own. It is removed
// after a clean teardown of a passing test and kept otherwise, for its logs.
func Start(t testing.TB, n int) *Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("slurm test cluster skipped in -short mode")
	}
	if reason := unavailable(); reason != "" {
		t.Skip("slurm test cluster unavailable: " + reason)
	}
	if n < 1 {
		t.Fatalf("slurm.Start: need at least one node, got %d", n)
	}
	c, err := newCluster(n)
	if err != nil {
		t.Fatalf("slurm.Start: %v", err)
	}
	t.Cleanup(func() { c.cleanup(t) })
	ctx, cancel := context.WithTimeout(context.Background(), upTimeout)
	defer cancel()
	args := []string{"up", c.Dir, strconv.Itoa(n)}
	if prefix := os.Getenv("IOSWARM_SLURM_PREFIX"); prefix != "" {
		// Namespace names of the caller's choosing, so that concurrent
		// users of one machine can keep their clusters apart by name.
		args = append(args, prefix)
	}
	out, err := c.run(ctx, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("slurm.sh up %s %d: %v\n%s", c.Dir, n, err, out)
	}
	t.Logf("%s", bytes.TrimSpace(out))
	return c
}

// newCluster makes the cluster's directory; slurm.sh fills it.
func newCluster(n int) (*Cluster, error) {
	script, err := scriptPath()
	if err != nil {
		return nil, err
	}
	base := os.Getenv("IOSWARM_SLURM_BASE")
	if base == "" {
		base = "/var/tmp"
	}
	dir, err := os.MkdirTemp(base, "ioswarm-slurm-")
	if err != nil {
		return nil, fmt.Errorf("cluster directory: %w", err)
	}
	return &Cluster{
		Dir:    dir,
		Conf:   filepath.Join(dir, "slurm.conf"),
		Shared: filepath.Join(dir, "shared"),
		Nodes:  nodeNames(n),
		script: script,
	}, nil
}

// Login returns a command that runs on the login node (the controller's
// namespaces) with SLURM_CONF set, in the caller's directory or cmd.Dir.
func (c *Cluster) Login(ctx context.Context, name string, args ...string) *exec.Cmd {
	return c.run(ctx, append([]string{"login", c.Dir, name}, args...)...)
}

// Exec returns a command that runs inside node's network, UTS and mount
// namespaces with SLURM_CONF set. It starts in the caller's directory when
// the node sees it (not a path under /tmp), else in Shared.
func (c *Cluster) Exec(ctx context.Context, node string, args ...string) *exec.Cmd {
	return c.run(ctx, append([]string{"exec", c.Dir, node}, args...)...)
}

// KillNode makes node die: its slurmd and every process running inside the
// node (job steps, ranks) get SIGKILL. The node's address stays up, so
// connections to it are refused rather than left hanging.
func (c *Cluster) KillNode(node string) error {
	ctx, cancel := context.WithTimeout(context.Background(), killTimeout)
	defer cancel()
	out, err := c.run(ctx, "kill-node", c.Dir, node).CombinedOutput()
	if err != nil {
		return fmt.Errorf("kill node %s of cluster %s: %w: %s", node, c.Dir, err, bytes.TrimSpace(out))
	}
	return nil
}

// Stop tears the cluster down now: every recorded process is stopped and
// the namespaces are deleted. It is safe to call more than once; t.Cleanup
// calls it again and then removes Dir.
func (c *Cluster) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), downTimeout)
	defer cancel()
	out, err := c.run(ctx, "down", c.Dir).CombinedOutput()
	if err != nil {
		return fmt.Errorf("slurm.sh down %s: %w: %s", c.Dir, err, bytes.TrimSpace(out))
	}
	return nil
}

func (c *Cluster) cleanup(t testing.TB) {
	if err := c.Stop(); err != nil {
		t.Errorf("tearing down the slurm test cluster: %v (its records stay in %s)", err, c.Dir)
		return
	}
	if t.Failed() {
		t.Logf("slurm test cluster logs kept in %s", filepath.Join(c.Dir, "log"))
		return
	}
	if err := os.RemoveAll(c.Dir); err != nil {
		t.Errorf("removing the slurm test cluster directory: %v", err)
	}
}

func (c *Cluster) run(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, c.script, args...)
	// The script execs the real command, so a cancelled context signals it
	// directly. SIGTERM first: srun then cancels its job step cleanly and
	// a half-done "up" tears down what it started; SIGKILL follows if it
	// has not exited after WaitDelay.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// unavailable says why this machine cannot host a cluster, or "" when it can.
func unavailable() string {
	if os.Geteuid() != 0 {
		return "needs root for network namespaces and mounts"
	}
	for _, tool := range []string{"bash", "unshare", "nsenter", "ip"} {
		if _, err := exec.LookPath(tool); err != nil {
			return tool + " not found in PATH"
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	probes := [][]string{
		{"unshare", "--net", "--uts", "--mount", "--propagation", "slave", "true"},
		{"ip", "netns", "list"},
	}
	for _, p := range probes {
		if out, err := exec.CommandContext(ctx, p[0], p[1:]...).CombinedOutput(); err != nil {
			return fmt.Sprintf("%q fails: %v: %s", p, err, bytes.TrimSpace(out))
		}
	}
	return ""
}

// scriptPath finds slurm.sh beside this source file, so that tests of any
// package can use the cluster whatever their working directory.
func scriptPath() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("cannot locate slurm.sh: no caller information")
	}
	path := filepath.Join(filepath.Dir(file), "slurm.sh")
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("cannot locate slurm.sh: %w", err)
	}
	return path, nil
}

func nodeNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = "node" + strconv.Itoa(i+1)
	}
	return names
}
