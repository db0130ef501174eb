package ssh

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"ioswarm/report"
	"ioswarm/result"
	"ioswarm/test/cluster"
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

// outcome is what one finished command did.
type outcome struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// head runs the binary in the head namespace to completion.
func (e *env) head(t *testing.T, limit time.Duration, args ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := e.c.Head(ctx, e.bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	begin := time.Now()
	err := cmd.Run()
	o := outcome{stdout: out.String(), stderr: errb.String(), took: time.Since(begin)}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		o.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("ioswarm %v: %v\nstderr:\n%s", args, err, o.stderr)
	}
	if ctx.Err() != nil {
		t.Fatalf("ioswarm %v still running after %v\nstderr:\n%s", args, limit, o.stderr)
	}
	return o
}

// lockedBuffer collects a running command's stderr for the test to read.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startLong starts a run that lasts until it is stopped, and waits until
// its job directory exists: every rank has joined and set up.
func (e *env) startLong(t *testing.T, extra ...string) (*exec.Cmd, *lockedBuffer) {
	t.Helper()
	args := append([]string{"run", "--hosts", e.c.HostsFile, "--threads", "4", "--dir", e.dir,
		"--total", "64MiB", "--block", "1MiB", "--iterations", "1000", "--drop-caches", "off"}, e.sshFlags()...)
	cmd := e.c.Head(context.Background(), e.bin, append(args, extra...)...)
	stderr := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(60 * time.Second)
	for len(entries(t, e.dir)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("job directory never appeared; stderr:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // into the phases
	return cmd, stderr
}

// waitExit waits for a started command and returns its exit code and how
// long the wait took.
func waitExit(t *testing.T, cmd *exec.Cmd, within time.Duration, stderr *lockedBuffer) (int, time.Duration) {
	t.Helper()
	begin := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), time.Since(begin)
		}
		return 0, time.Since(begin)
	case <-time.After(within):
		t.Fatalf("coordinator still running %v later; stderr:\n%s", within, stderr.String())
	}
	return 0, 0
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
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
	deadline := time.Now().Add(within)
	for {
		left, files := e.ranksLeft(t), entries(t, e.dir)
		if len(left) == 0 && len(files) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v after the run: ranks still running %v, files left in %s: %v", within, left, e.dir, files)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func loadJob(t *testing.T, path string) *result.Job {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	job, err := report.LoadJob(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return job
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
