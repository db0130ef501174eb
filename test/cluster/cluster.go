package cluster

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Time limits for the script. Bringing a cluster up may include installing
// openssh-server from apt, which takes seconds, or minutes on a slow mirror.
const (
	upTimeout   = 5 * time.Minute
	downTimeout = time.Minute
	opTimeout   = 30 * time.Second
)

// Cluster is a running cluster as cluster.sh up left it. Nodes are named
// node1..nodeN; IPs[i] is the address of Nodes[i].
type Cluster struct {
	Dir        string // the run directory: keys, configs, logs, pid records
	Prefix     string // the namespace name prefix of this run
	Nodes      []string
	IPs        []string
	HeadNS     string // network namespace of the head (launcher) host
	HeadIP     string // the head's address on the cluster's subnet
	SSHConfig  string // ssh_config naming every node, for ssh -F
	KnownHosts string // every node's host key under its name and its IP
	Identity   string // the private key every node accepts for root
	HostsFile  string // the node names, one per line
	User       string // Options.User: a user who is not root, or ""
	UserHome   string // that user's home directory, as the nodes see it

	fabricNS string
	script   string
	env      []string // extra environment for cluster.sh
}

// Start brings a cluster of n nodes up for the test and tears it down in
// t.Cleanup, also when the test fails. It skips the test when it does not
// run as root or the tools to build namespaces are missing, and in -short
// mode, since a cluster takes about a second to build.
func Start(t testing.TB, n int) *Cluster {
	t.Helper()
	return StartWith(t, n, Options{})
}

// Options vary how a cluster is built.
type Options struct {
	// ClockOffset moves node K's (1-based) CLOCK_MONOTONIC ahead by the
	// given whole seconds, through a time namespace.
	ClockOffset map[int]int
	// SharedHome gives every node node1's home directory as its /root,
	// as a cluster's nodes share one home filesystem.
	SharedHome bool
	// User names a user who is not root whom every node's sshd also
	// accepts the run's key for (ssh -l User). The user is created with
	// useradd unless it exists; each node binds a home of its own, owned
	// by the user, under Dir/userhome over the user's home directory
	// (shared like /root with SharedHome).
	User string
}

// StartWith is Start with options.
func StartWith(t testing.TB, n int, opt Options) *Cluster {
	t.Helper()
	if reason := unavailable(); reason != "" {
		t.Skip("namespaced SSH cluster unavailable: " + reason)
	}
	if testing.Short() {
		t.Skip("namespaced SSH cluster skipped in -short mode")
	}
	script, err := scriptPath()
	if err != nil {
		t.Fatal(err)
	}
	// A short directory under /tmp: unix socket paths (ssh ControlPath,
	// agents) under it must stay within 108 bytes.
	dir, err := os.MkdirTemp("/tmp", "iocl-")
	if err != nil {
		t.Fatalf("cluster: %v", err)
	}
	c := &Cluster{Dir: dir, Prefix: prefixFor(t.Name()), script: script}
	t.Cleanup(func() { c.cleanup(t) })
	ctx, cancel := context.WithTimeout(context.Background(), upTimeout)
	defer cancel()
	var offsets []string
	for k, sec := range opt.ClockOffset {
		offsets = append(offsets, fmt.Sprintf("%d=%d", k, sec))
	}
	c.env = []string{"CLUSTER_CLOCK_OFFSETS=" + strings.Join(offsets, " ")}
	if opt.SharedHome {
		c.env = append(c.env, "CLUSTER_SHARED_HOME=1")
	}
	if opt.User != "" {
		if _, err := exec.LookPath("useradd"); err != nil {
			t.Skip("namespaced SSH cluster with a user who is not root: useradd not found")
		}
		c.env = append(c.env, "CLUSTER_USER="+opt.User)
	}
	out, err := c.run(ctx, "up", dir, strconv.Itoa(n), c.Prefix)
	if err != nil {
		t.Fatalf("cluster up of %d nodes in %s: %v\n%s", n, dir, err, out)
	}
	if err := c.load(); err != nil {
		t.Fatalf("cluster up of %d nodes: %v", n, err)
	}
	t.Log(strings.TrimSpace(lastLine(out)))
	return c
}

// unavailable says why a cluster cannot be built here, or "" if it can.
func unavailable() string {
	if os.Geteuid() != 0 {
		return "needs root to create namespaces"
	}
	for _, tool := range []string{"bash", "ip", "nsenter", "unshare"} {
		if _, err := exec.LookPath(tool); err != nil {
			return tool + " not found in PATH"
		}
	}
	if _, err := os.Stat("/proc/self/ns/net"); err != nil {
		return "the kernel has no network namespaces"
	}
	if err := exec.Command("ip", "netns", "list").Run(); err != nil {
		return "ip netns does not work: " + err.Error()
	}
	return ""
}

// scriptPath finds cluster.sh beside this source file; CLUSTER_SH
// overrides it for a test binary run away from the source tree.
func scriptPath() (string, error) {
	if p := os.Getenv("CLUSTER_SH"); p != "" {
		return p, nil
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("cluster: cannot locate cluster.sh; set CLUSTER_SH")
	}
	p := filepath.Join(filepath.Dir(file), "cluster.sh")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("cluster: %w; set CLUSTER_SH to the script's path", err)
	}
	return p, nil
}

// prefixFor makes a namespace prefix unique to this Start: a hash of the
// test name (to tell clusters apart in `ip netns`), the process ID (for
// concurrent test binaries) and random bits (for several clusters in one
// test). cluster.sh refuses a prefix that is already in use.
func prefixFor(name string) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	var r [2]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("t%04x%04x%04x-",
		h.Sum32()&0xffff, os.Getpid()&0xffff, binary.BigEndian.Uint16(r[:]))
}

// run runs a cluster.sh subcommand and returns its combined output.
func (c *Cluster) run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "bash", append([]string{c.script}, args...)...)
	// The sshds started by up write to their own logs; should anything still
	// hold the output pipe, do not wait for it forever.
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = append(os.Environ(), c.env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// load fills the cluster's fields from the env file up wrote.
func (c *Cluster) load() error {
	data, err := os.ReadFile(filepath.Join(c.Dir, "env"))
	if err != nil {
		return fmt.Errorf("reading the cluster's env: %w", err)
	}
	env, err := parseEnv(data)
	if err != nil {
		return err
	}
	c.Nodes = strings.Fields(env["CLUSTER_NODES"])
	c.IPs = strings.Fields(env["CLUSTER_IPS"])
	c.HeadNS = env["CLUSTER_HEAD_NS"]
	c.HeadIP = env["CLUSTER_HEAD_IP"]
	c.fabricNS = env["CLUSTER_FABRIC_NS"]
	c.SSHConfig = env["CLUSTER_SSH_CONFIG"]
	c.KnownHosts = env["CLUSTER_KNOWN_HOSTS"]
	c.Identity = env["CLUSTER_IDENTITY"]
	c.HostsFile = env["CLUSTER_HOSTS_FILE"]
	c.User = env["CLUSTER_USER"]
	c.UserHome = env["CLUSTER_USER_HOME"]
	if len(c.Nodes) == 0 || len(c.Nodes) != len(c.IPs) || c.HeadNS == "" {
		return fmt.Errorf("cluster env %s: %d nodes, %d addresses, head %q",
			c.Dir, len(c.Nodes), len(c.IPs), c.HeadNS)
	}
	return nil
}

// parseEnv reads the KEY='value' lines cluster.sh writes; values never
// hold a single quote, so no further unquoting is needed.
func parseEnv(data []byte) (map[string]string, error) {
	env := make(map[string]string)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok || key == "" || len(val) < 2 || val[0] != '\'' || val[len(val)-1] != '\'' ||
			strings.Contains(val[1:len(val)-1], "'") {
			return nil, fmt.Errorf("cluster env line %d: want KEY='value', got %q", n, line)
		}
		env[key] = val[1 : len(val)-1]
	}
	return env, sc.Err()
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}
