package slurmrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ioswarm/test/harness"
	"ioswarm/test/slurm"
)

// env is a running cluster, the binary under test in two places, and the
// mount namespaces of the cluster's login node and nodes, which tell this
// cluster's processes from those of any other test on the machine.
type env struct {
	c *slurm.Cluster
	// private is the build under this machine's /tmp: the login node
	// shares that /tmp, the nodes each have their own, so only a copy
	// can run there.
	private string
	shared  string            // a copy under c.Shared, seen by every node
	mntns   map[string]string // "mnt:[inode]" -> "ctl" or the node name
}

func newEnv(t *testing.T, nodes int) *env {
	t.Helper()
	c := slurm.Start(t, nodes) // skips without root before anything is built
	private := bin.Path(t)
	e := &env{c: c, private: private, shared: filepath.Join(c.Shared, "ioswarm"), mntns: map[string]string{}}
	data, err := os.ReadFile(private)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.shared, data, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e.mntns[e.output(t, c.Login(ctx, "readlink", "/proc/self/ns/mnt"))] = "ctl"
	for _, n := range c.Nodes {
		e.mntns[e.output(t, c.Exec(ctx, n, "readlink", "/proc/self/ns/mnt"))] = n
	}
	return e
}

// output runs cmd and returns its trimmed standard output.
func (e *env) output(t *testing.T, cmd interface {
	Output() ([]byte, error)
}) string {
	t.Helper()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// procs lists the live processes in node's mount namespace (this cluster's
// "ctl" or a node name) that satisfy match.
func (e *env) procs(t *testing.T, node string, match func(p proc) bool) []proc {
	t.Helper()
	var found []proc
	for _, p := range e.scan(t) {
		if p.node == node && match(p) {
			found = append(found, p)
		}
	}
	return found
}

type proc struct {
	pid, ppid           int
	node, base, cmdline string
}

// scan lists the live processes in this cluster's namespaces.
func (e *env) scan(t *testing.T) []proc {
	t.Helper()
	procs, err := harness.Processes()
	if err != nil {
		t.Fatal(err)
	}
	var found []proc
	for _, p := range procs {
		ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", p.PID))
		node, ours := e.mntns[ns]
		if err != nil || !ours {
			continue
		}
		found = append(found, proc{pid: p.PID, ppid: p.PPID, node: node, base: filepath.Base(p.Exe),
			cmdline: strings.Join(harness.Args(p.PID), " ")})
	}
	return found
}

// leftovers lists the live processes, in this cluster's namespaces, of any
// ioswarm binary (the coordinator, ranks, sbcast copies, even deleted) and
// of srun and sbcast, which ioswarm starts.
func (e *env) leftovers(t *testing.T) []string {
	t.Helper()
	var found []string
	for _, p := range e.scan(t) {
		if strings.HasPrefix(p.base, "ioswarm") || p.base == "srun" || p.base == "sbcast" {
			found = append(found, fmt.Sprintf("%s: pid %d %s", p.node, p.pid, p.cmdline))
		}
	}
	return found
}

// waitNoLeftovers allows the last processes a moment to be reaped.
func (e *env) waitNoLeftovers(t *testing.T, within time.Duration) {
	t.Helper()
	var left []string
	within = harness.LeftoverWait(within) // load must not pass for a leftover
	gone := harness.Poll(within, 100*time.Millisecond, func() bool {
		left = e.leftovers(t)
		return len(left) == 0
	})
	if !gone {
		t.Errorf("ioswarm processes still running after %v:\n  %s", within, strings.Join(left, "\n  "))
	}
}

// copiesOnNodes lists the sbcast copies left in each live node's /tmp.
func (e *env) copiesOnNodes(t *testing.T, nodes ...string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var left []string
	for _, n := range nodes {
		out := e.output(t, e.c.Exec(ctx, n, "sh", "-c", "ls -d /tmp/ioswarm-* 2>/dev/null || true"))
		for _, f := range strings.Fields(out) {
			left = append(left, n+":"+f)
		}
	}
	return left
}

func sharedDir(t *testing.T, e *env, pattern string) (dir, data string) {
	t.Helper()
	dir, err := os.MkdirTemp(e.c.Shared, pattern)
	if err != nil {
		t.Fatal(err)
	}
	// The job runs as root here, but keep the directory usable by any user.
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	data = filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir, data
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	return string(data)
}

// endlessRunScript is a batch script whose run lasts until it is stopped
// (scancel, the time limit), started from bin, the shared copy of the
// binary: the nodes run the copy sbcast put in their /tmp, including the
// nodes of the allocation that run no rank. The run's stderr and exit
// status land in dir.
func endlessRunScript(dir, bin, data string, threads int, total string) string {
	return fmt.Sprintf(`%[2]s run --launcher srun --threads %[4]d --dir %[3]s --total %[5]s --block 1MiB --iterations 1000 --drop-caches off 2>%[1]s/run.err &
wait $!
echo $? >%[1]s/run.rc
`, dir, bin, data, threads, total)
}
