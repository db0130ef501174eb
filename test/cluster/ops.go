package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Head returns a command that runs in the head namespace: the launcher's
// host. The head shares the machine's filesystem, so a binary built by the
// test runs there as it is.
func (c *Cluster) Head(ctx context.Context, name string, args ...string) *exec.Cmd {
	argv := append([]string{"--net=/run/netns/" + c.HeadNS, "--", name}, args...)
	return exec.CommandContext(ctx, "nsenter", argv...)
}

// SSH returns a command that runs args on node over ssh from the head, with
// the run's ssh_config, key and strict host key checking. Options for ssh
// itself go through Head.
func (c *Cluster) SSH(ctx context.Context, node string, args ...string) *exec.Cmd {
	argv := append([]string{"-F", c.SSHConfig, node}, args...)
	return c.Head(ctx, "ssh", argv...)
}

// SSHAs is SSH logged in as user: root, or the cluster's Options.User.
func (c *Cluster) SSHAs(ctx context.Context, user, node string, args ...string) *exec.Cmd {
	argv := append([]string{"-F", c.SSHConfig, "-l", user, node}, args...)
	return c.Head(ctx, "ssh", argv...)
}

// Exec returns a command that runs as if on node: in its network, UTS and
// mount namespaces, so it sees the node's hostname, address and /tmp. It
// does not pass through sshd. An unknown or dead node makes the command's
// Start fail.
func (c *Cluster) Exec(ctx context.Context, node string, args ...string) *exec.Cmd {
	pid, err := c.sshdPID(node)
	argv := append([]string{"-t", strconv.Itoa(pid), "-n", "-u", "-m", "--"}, args...)
	cmd := exec.CommandContext(ctx, "nsenter", argv...)
	if err != nil {
		cmd.Err = err
	}
	return cmd
}

// LinkDown takes node's port on the fabric down: packets to and from the
// node vanish, as when a cable is pulled.
func (c *Cluster) LinkDown(node string) error { return c.op("link", node, "down") }

// LinkUp brings node's port on the fabric back up.
func (c *Cluster) LinkUp(node string) error { return c.op("link", node, "up") }

// Freeze stops (SIGSTOP) every process on node, its sshd included: the node
// keeps its link but answers nothing, like a hung machine.
func (c *Cluster) Freeze(node string) error { return c.op("freeze", node) }

// Thaw continues (SIGCONT) every process on node.
func (c *Cluster) Thaw(node string) error { return c.op("thaw", node) }

// Processes returns the PIDs of the processes on node whose executable is
// exe, as the node sees its paths ("/tmp/x/ioswarm" is the node's private
// /tmp). A process whose executable was deleted still counts.
func (c *Cluster) Processes(node string, exe string) ([]int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	out, err := c.run(ctx, "procs", c.Dir, node)
	if err != nil {
		return nil, fmt.Errorf("listing the processes on %s: %v: %s", node, err, out)
	}
	var pids []int
	for _, f := range strings.Fields(out) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("listing the processes on %s: bad PID %q", node, f)
		}
		if Runs(pid, exe) {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// Runs reports whether process pid (a host PID, as Processes returns)
// runs exe; a process that has exited, or a PID reused since, does not.
// A process whose executable was deleted still counts.
func Runs(pid int, exe string) bool {
	link, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	return err == nil && strings.TrimSuffix(link, " (deleted)") == exe
}

// Stop tears the cluster down now: every process it started or left in its
// namespaces is stopped and the namespaces are deleted. It is safe to call
// more than once; the cleanup registered by Start calls it too.
func (c *Cluster) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), downTimeout)
	defer cancel()
	if out, err := c.run(ctx, "down", c.Dir); err != nil {
		return fmt.Errorf("cluster down %s: %v\n%s", c.Dir, err, out)
	}
	return nil
}

// cleanup stops the cluster and removes its directory, keeping the
// directory when teardown failed so that its pid records survive, and
// showing the sshd logs when the test failed.
func (c *Cluster) cleanup(t testing.TB) {
	if err := c.Stop(); err != nil {
		t.Errorf("%v (run directory kept)", err)
		return
	}
	if t.Failed() {
		c.logTails(t)
	}
	if err := os.RemoveAll(c.Dir); err != nil {
		t.Errorf("removing the cluster directory: %v", err)
	}
}

func (c *Cluster) logTails(t testing.TB) {
	logs, _ := filepath.Glob(filepath.Join(c.Dir, "nodes", "*", "*.log"))
	for _, l := range logs {
		data, err := os.ReadFile(l)
		if err != nil || len(data) == 0 {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		t.Logf("%s (last lines):\n%s", l, strings.Join(lines[max(0, len(lines)-10):], "\n"))
	}
}

// Script runs a cluster.sh subcommand on this cluster, `cluster.sh SUB DIR
// ARGS...`, and returns its combined output; an error holds that output.
// It is for packages that build on the cluster, such as a filesystem
// served to its nodes (the gluster-* subcommands).
func (c *Cluster) Script(ctx context.Context, sub string, args ...string) (string, error) {
	out, err := c.run(ctx, append([]string{sub, c.Dir}, args...)...)
	if err != nil {
		return out, fmt.Errorf("cluster.sh %s %s %s: %v: %s", sub, c.Dir, strings.Join(args, " "), err, strings.TrimSpace(out))
	}
	return out, nil
}

// op runs a subcommand that acts on one node.
func (c *Cluster) op(sub, node string, args ...string) error {
	if !slices.Contains(c.Nodes, node) {
		return fmt.Errorf("%s %s: no such node in the cluster (%s)", sub, node, strings.Join(c.Nodes, " "))
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	argv := append([]string{sub, c.Dir, node}, args...)
	if out, err := c.run(ctx, argv...); err != nil {
		return fmt.Errorf("%s %s %s: %v: %s", sub, node, strings.Join(args, " "), err, strings.TrimSpace(out))
	}
	return nil
}
