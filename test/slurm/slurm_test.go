package slurm

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSlurmUpDown starts a real 4-node cluster, runs srun and sbatch jobs
// on it, checks that node-local /tmp really is per node, kills a node, and
// checks that teardown leaves no recorded process alive.
func TestSlurmUpDown(t *testing.T) {
	t0 := time.Now()
	c := Start(t, 4)
	t.Logf("Start(4) took %v", time.Since(t0).Round(time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	t.Run("srun", func(t *testing.T) { checkSrunHostnames(ctx, t, c) })
	t.Run("sbatch", func(t *testing.T) { checkSbatch(ctx, t, c) })
	t.Run("node-local-tmp", func(t *testing.T) { checkNodeLocalTmp(ctx, t, c) })
	t.Run("exec", func(t *testing.T) { checkExec(ctx, t, c) })
	t.Run("cancel", func(t *testing.T) { checkCancel(ctx, t, c) })
	t.Run("kill-node", func(t *testing.T) { checkKillNode(ctx, t, c) })

	recs := readRecords(t, c.Dir)
	for _, r := range recs {
		// Only the node killed above may be dead, so that the check after
		// teardown is not vacuous.
		if want := r.role != "slurmd:node4"; r.alive() != want {
			t.Errorf("before teardown: %s (pid %d) alive = %v, want %v", r.role, r.pid, !want, want)
		}
	}
	netns := readLines(t, filepath.Join(c.Dir, "netns"))
	t1 := time.Now()
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	t.Logf("Stop took %v", time.Since(t1).Round(time.Millisecond))
	for _, r := range recs {
		if r.alive() {
			t.Errorf("%s (pid %d) still runs after teardown", r.role, r.pid)
		}
	}
	for _, ns := range netns {
		if _, err := os.Stat(filepath.Join("/run/netns", ns)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("network namespace %s survives teardown (stat: %v)", ns, err)
		}
	}
	if err := c.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

func checkSrunHostnames(ctx context.Context, t *testing.T, c *Cluster) {
	got := outputFields(t, c.Login(ctx, "srun", "-N4", "-n4", "hostname"))
	slices.Sort(got)
	if !slices.Equal(got, c.Nodes) {
		t.Errorf("srun -N4 -n4 hostname printed %q, want %q", got, c.Nodes)
	}
}

func checkSbatch(ctx context.Context, t *testing.T, c *Cluster) {
	dir, err := os.MkdirTemp(c.Shared, "sbatch-")
	if err != nil {
		t.Fatal(err)
	}
	result := filepath.Join(dir, "nodes.txt")
	script := fmt.Sprintf("{ echo \"$SLURM_JOB_NODELIST\"; scontrol show hostnames; } > %s\n", result)
	id, err := c.Sbatch(ctx, script, "-N4", "-o", filepath.Join(dir, "slurm-%j.out"))
	if err != nil {
		t.Fatal(err)
	}
	state, err := c.WaitJob(ctx, id)
	if err != nil || state != "COMPLETED" {
		out, _ := os.ReadFile(filepath.Join(dir, "slurm-"+id+".out"))
		t.Fatalf("job %s ended %q, %v; want COMPLETED; its output: %q", id, state, err, out)
	}
	lines := readLines(t, result)
	want := append([]string{"node[1-4]"}, c.Nodes...)
	if !slices.Equal(lines, want) {
		t.Errorf("job %s wrote %q, want %q", id, lines, want)
	}
}

// checkNodeLocalTmp writes a file to node1's /tmp and expects node1 to see
// it (so the negative checks can fail) but neither node2 nor the host.
func checkNodeLocalTmp(ctx context.Context, t *testing.T, c *Cluster) {
	path := "/tmp/ioswarm-node-local-" + filepath.Base(c.Dir)
	outputFields(t, c.Login(ctx, "srun", "-N1", "-w", "node1", "sh", "-c", "echo here >"+path))
	probe := fmt.Sprintf("if [ -e %s ]; then echo visible; else echo absent; fi", path)
	for node, want := range map[string]string{"node1": "visible", "node2": "absent"} {
		got := outputFields(t, c.Login(ctx, "srun", "-N1", "-w", node, "sh", "-c", probe))
		if !slices.Equal(got, []string{want}) {
			t.Errorf("after writing %s on node1, srun on %s printed %q, want %q", path, node, got, want)
		}
		got = outputFields(t, c.Exec(ctx, node, "sh", "-c", probe))
		if !slices.Equal(got, []string{want}) {
			t.Errorf("after writing %s on node1, Exec on %s printed %q, want %q", path, node, got, want)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("node1's %s is visible on the host (stat: %v)", path, err)
	}
}

func checkExec(ctx context.Context, t *testing.T, c *Cluster) {
	if got := outputFields(t, c.Exec(ctx, "node3", "hostname")); !slices.Equal(got, []string{"node3"}) {
		t.Errorf("Exec(node3, hostname) printed %q, want node3", got)
	}
	if got := outputFields(t, c.Login(ctx, "hostname")); !slices.Equal(got, []string{"ctl"}) {
		t.Errorf("Login(hostname) printed %q, want ctl", got)
	}
	if out, err := c.Exec(ctx, "node9", "true").CombinedOutput(); err == nil {
		t.Errorf("Exec on node9 of a 4-node cluster succeeded: %q", out)
	}
}

// checkCancel: a cancelled context ends WaitJob and a running srun, and
// the srun's job leaves the queue; a cancelled batch job ends CANCELLED.
func checkCancel(ctx context.Context, t *testing.T, c *Cluster) {
	id, err := c.Sbatch(ctx, "sleep 300\n", "-N1", "-J", "long", "-o", "/dev/null")
	if err != nil {
		t.Fatal(err)
	}
	short, cancelShort := context.WithTimeout(ctx, time.Second)
	defer cancelShort()
	if state, err := c.WaitJob(short, id); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitJob on a 300 s job with a 1 s context = %q, %v; want a deadline error", state, err)
	}
	sctx, cancelSrun := context.WithCancel(ctx)
	srun := c.Login(sctx, "srun", "-N1", "-J", "interactive", "sleep", "300")
	if err := srun.Start(); err != nil {
		t.Fatal(err)
	}
	waitQueue(ctx, t, c, "interactive", true)
	cancelSrun()
	if err := srun.Wait(); err == nil {
		t.Error("srun sleep 300 exited cleanly after its context was cancelled")
	}
	waitQueue(ctx, t, c, "interactive", false)
	if err := c.Login(ctx, "scancel", id).Run(); err != nil {
		t.Fatalf("scancel %s: %v", id, err)
	}
	if state, err := c.WaitJob(ctx, id); err != nil || state != "CANCELLED" {
		t.Errorf("WaitJob after scancel = %q, %v; want CANCELLED", state, err)
	}
}

// waitQueue polls squeue until a job named name is running (want true) or
// gone from the queue (want false).
func waitQueue(ctx context.Context, t *testing.T, c *Cluster, name string, want bool) {
	t.Helper()
	for {
		out := outputFields(t, c.Login(ctx, "squeue", "-h", "-n", name, "-o", "%T"))
		if running := slices.Contains(out, "RUNNING"); (want && running) || (!want && len(out) == 0) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("squeue -n %s still shows %q: %v", name, out, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func checkKillNode(ctx context.Context, t *testing.T, c *Cluster) {
	if err := c.KillNode("node4"); err != nil {
		t.Fatal(err)
	}
	if out, err := c.Exec(ctx, "node4", "true").CombinedOutput(); err == nil {
		t.Errorf("Exec on killed node4 succeeded: %q", out)
	}
	sctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if out, err := c.Login(sctx, "srun", "-N1", "-w", "node4", "true").CombinedOutput(); err == nil {
		t.Errorf("srun on killed node4 succeeded: %q", out)
	}
	got := outputFields(t, c.Login(ctx, "srun", "-N3", "-w", "node[1-3]", "hostname"))
	slices.Sort(got)
	if want := c.Nodes[:3]; !slices.Equal(got, want) {
		t.Errorf("srun on the surviving nodes printed %q, want %q", got, want)
	}
}

// outputFields runs cmd and returns the words of its standard output, failing
// the test with its standard error when it fails.
func outputFields(t *testing.T, cmd *exec.Cmd) []string {
	t.Helper()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v: %s", strings.Join(cmd.Args, " "), err, stderr.String())
	}
	return strings.Fields(string(out))
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return lines
}
