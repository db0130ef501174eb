package slurmrun

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"ioswarm/figures"
	"ioswarm/result"
	"ioswarm/test/harness"
)

// checkJob asserts what every successful run here must show: the srun
// launcher, the given hosts with the given threads each, figures that
// recompute from the records, and no file left in the data directory.
func checkJob(t *testing.T, out, data string, hosts []string, threads []int) {
	t.Helper()
	j := harness.LoadResult(t, out)
	if j.Launcher != "srun" || !j.Complete {
		t.Errorf("launcher %q, complete %v; want srun, true", j.Launcher, j.Complete)
	}
	var gotHosts []string
	var gotThreads []int
	for r, h := range j.Hosts {
		gotHosts = append(gotHosts, h.Host)
		gotThreads = append(gotThreads, h.Threads)
		if h.Rank != r {
			t.Errorf("hosts[%d] has rank %d", r, h.Rank)
		}
	}
	if !slices.Equal(gotHosts, hosts) || !slices.Equal(gotThreads, threads) {
		t.Errorf("hosts %q with threads %v; want %q with %v", gotHosts, gotThreads, hosts, threads)
	}
	if err := figures.Check(j); err != nil {
		t.Errorf("figures do not recompute: %v", err)
	}
	if n := threadHosts(j); !slices.Equal(n, hosts) {
		t.Errorf("thread records ran on %q, want %q", n, hosts)
	}
	if left := harness.DirEntries(t, data); len(left) != 0 {
		t.Errorf("files left in %s: %q", data, left)
	}
}

// threadHosts lists, in order of first appearance, the hosts of the write
// phase's thread records: proof the I/O ran where the host list says.
func threadHosts(j *result.Job) []string {
	var hosts []string
	for _, p := range j.Phases {
		if p.Name != "write" {
			continue
		}
		for _, th := range p.Threads {
			if !slices.Contains(hosts, th.Host) {
				hosts = append(hosts, th.Host)
			}
		}
	}
	return hosts
}

// An sbatch -N4 job runs `ioswarm run --launcher srun` with no host list:
// one rank per node in SLURM_JOB_NODELIST order, six threads placed
// 2,2,1,1, the binary broadcast (the shared directory here is ext4, which
// ioswarm cannot know every node mounts) and removed, nothing left running.
func TestBatchJobRunsOnEveryAllocatedNode(t *testing.T) {
	e := newEnv(t, 4)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dir, data := sharedDir(t, e, "batch-")
	out := filepath.Join(dir, "r.json")
	body := fmt.Sprintf("%s run --launcher srun --threads 6 --dir %s --total 24MiB --block 1MiB --output %s\necho \"exit=$?\"\n",
		e.shared, data, out)
	j := e.submit(ctx, t, dir, body, "-N4", "-J", "ioswarm-batch")
	e.waitFile(ctx, t, j, "done")
	log := readFile(t, filepath.Join(dir, "job.out"))
	if !strings.Contains(log, "exit=0\n") {
		t.Fatalf("ioswarm failed in job %s; its output:\n%s", j.id, log)
	}
	for _, want := range []string{
		"srun: Slurm job " + j.id + ", 4 nodes: node[1-4]",
		"srun: sbcast put " + e.shared + " on the 4 nodes of job " + j.id + " at /tmp/ioswarm-" + j.id + "-",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("job output lacks %q:\n%s", want, log)
		}
	}
	checkJob(t, out, data, e.c.Nodes, []int{2, 2, 1, 1})
	if left := e.copiesOnNodes(t, e.c.Nodes...); len(left) != 0 {
		t.Errorf("sbcast copies left: %q", left)
	}
	e.waitNoLeftovers(t, 5*time.Second)
	e.waitNoSteps(ctx, t, j.id, 30*time.Second)
	if state := e.release(ctx, t, j); state != "COMPLETED" {
		t.Errorf("job %s ended %s, want COMPLETED", j.id, state)
	}
}

var copyPath = regexp.MustCompile(`at (/tmp/ioswarm-[0-9]+-[0-9a-f]{12}) in`)

// salloc from the login node runs ioswarm there with the allocation's
// environment: --launcher auto picks srun. The binary lives in the login
// node's /tmp, which no node sees, so the run works only if sbcast put it
// on every node; with --remote-bin on the shared path nothing is copied.
func TestSallocFromLoginNode(t *testing.T) {
	e := newEnv(t, 4)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if err := e.c.Exec(ctx, "node1", "test", "-e", e.private).Run(); err == nil {
		t.Fatalf("node1 sees %s: the test cannot show that sbcast placed the binary", e.private)
	}
	dir, data := sharedDir(t, e, "salloc-")
	out := filepath.Join(dir, "r.json")
	stderr := e.salloc(ctx, t, dir, "-N2", e.private, "run", "--threads", "3", "--dir", data,
		"--total", "6MiB", "--block", "1MiB", "--output", out)
	m := copyPath.FindStringSubmatch(stderr)
	if m == nil || !strings.Contains(stderr, "srun: sbcast put "+e.private) {
		t.Fatalf("no sbcast placement logged; stderr:\n%s", stderr)
	}
	checkJob(t, out, data, []string{"node1", "node2"}, []int{2, 1})
	if left := e.copiesOnNodes(t, e.c.Nodes...); len(left) != 0 {
		t.Errorf("sbcast copy %s left: %q", m[1], left)
	}
	e.waitNoLeftovers(t, 5*time.Second)

	out = filepath.Join(dir, "r2.json")
	stderr = e.salloc(ctx, t, dir, "-N4", e.shared, "run", "--launcher", "srun", "--remote-bin", e.shared,
		"--threads", "4", "--dir", data, "--total", "4MiB", "--block", "1MiB", "--output", out)
	if !strings.Contains(stderr, "srun: ranks run "+e.shared+" (--remote-bin) on every node") || strings.Contains(stderr, "sbcast") {
		t.Errorf("--remote-bin run did not run the shared binary in place; stderr:\n%s", stderr)
	}
	checkJob(t, out, data, e.c.Nodes, []int{1, 1, 1, 1})
	e.waitNoLeftovers(t, 5*time.Second)
}

// salloc runs `salloc ARGS...` on the login node in dir and returns its
// standard error, failing the test unless it succeeds.
func (e *env) salloc(ctx context.Context, t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := e.c.Login(ctx, "salloc", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("salloc %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stderr.String()
}

// deadNodeScript runs ioswarm twice once the test has killed a node: with
// the default placement (sbcast fails on the dead node) and with
// --remote-bin (the dead node's srun step fails). Each records its exit
// code, duration and standard error.
const deadNodeScript = `touch %[1]s/ready
i=0
while [ ! -e %[1]s/go ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done
s=$(date +%%s%%N)
%[2]s run --launcher srun --threads 8 --dir %[3]s --total 8MiB --block 1MiB 2>%[1]s/sbcast.err
echo "$? $(( ($(date +%%s%%N) - s) / 1000000 ))" >%[1]s/sbcast.rc
s=$(date +%%s%%N)
%[2]s run --launcher srun --remote-bin %[2]s --threads 8 --dir %[3]s --total 8MiB --block 1MiB 2>%[1]s/step.err
echo "$? $(( ($(date +%%s%%N) - s) / 1000000 ))" >%[1]s/step.rc
`

// A node whose slurmd dies after the allocation and before the run: both
// ways of starting ranks fail within a bounded time with an error naming
// the node, and leave no ioswarm process, file or copy behind.
func TestDeadNodeFailsNamingIt(t *testing.T) {
	e := newEnv(t, 4)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir, data := sharedDir(t, e, "dead-")
	// --no-kill: the job outlives the node, as the run inside it must.
	j := e.submit(ctx, t, dir, fmt.Sprintf(deadNodeScript, dir, e.shared, data), "-N4", "--no-kill", "-J", "ioswarm-dead")
	e.waitFile(ctx, t, j, "ready")
	if err := e.c.KillNode("node3"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	e.waitFile(ctx, t, j, "done")
	// The copy's guard step, started before sbcast, is the first to find
	// the node dead.
	checkDeadRun(t, dir, "sbcast", "host node3 rank 2: sbcast of "+e.shared, "failed on node node3: ")
	checkDeadRun(t, dir, "step", "host node3 rank 2: rank process exited: srun: exit status", "failed on node node3: ")
	e.waitNoLeftovers(t, 5*time.Second)
	e.waitNoSteps(ctx, t, j.id, 30*time.Second)
	if left := e.copiesOnNodes(t, "node1", "node2", "node4"); len(left) != 0 {
		t.Errorf("sbcast copies left: %q", left)
	}
	if left := harness.DirEntries(t, data); len(left) != 0 {
		t.Errorf("files left in %s: %q", data, left)
	}
	// The job is let go but not waited for: with node3 dead it stays
	// COMPLETING until slurmctld marks the node down (SlurmdTimeout), and
	// the cluster's teardown ends it anyway.
	if err := os.WriteFile(filepath.Join(dir, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkDeadRun reads what deadNodeScript recorded of one run: it must exit
// 1 with an error containing want and Slurm's reason, within a bound.
func checkDeadRun(t *testing.T, dir, name, want, reason string) {
	t.Helper()
	var code, ms int
	rc := readFile(t, filepath.Join(dir, name+".rc"))
	if _, err := fmt.Sscan(rc, &code, &ms); err != nil {
		t.Fatalf("%s.rc holds %q: %v", name, rc, err)
	}
	stderr := readFile(t, filepath.Join(dir, name+".err"))
	if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, reason) {
		t.Errorf("%s run: exit %d, stderr:\n%s\nwant exit 1 and an error containing %q and %q", name, code, stderr, want, reason)
	}
	// Slurm gives up on the node after its MessageTimeout (10 s): ioswarm
	// adds at most one more such wait.
	if ms > 60000 {
		t.Errorf("%s run took %d ms to fail, want under 60 s", name, ms)
	}
	t.Logf("%s run failed in %d ms: %s", name, ms, strings.TrimSpace(lastLine(stderr)))
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
