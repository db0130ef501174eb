package launcher

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"time"

	"ioswarm/hostlist"
)

// Srun runs each rank as a one-task job step (srun) on its node, inside the
// Slurm allocation this process runs in.
//
// One step per node, rather than one step over every node, gives each rank
// its own standard input (the job secret, then the coordinator's life) and
// its own exit status, so a failed launch names its node and rank, and the
// ranks keep the numbers and hosts the coordinator gave them.
type Srun struct {
	Binary string // this executable
	// BinaryHash is Binary's hex SHA-256 (selfbin.Self); "" hashes the file.
	BinaryHash string
	RemoteBin  string // this very build, installed at this path on every node: nothing is placed
	// Advertise is the address ranks dial (from --listen); "" makes each
	// node dial this machine's address on its route to that node.
	Advertise string
	Alloc     Allocation
	BcastDir  string // node-local directory for the sbcast copy ("" = /tmp)
	Tools     SlurmTools
	Log       *LineWriter
	Grace     time.Duration // between closing a rank's input, SIGTERM and SIGKILL of its srun

	mu       sync.Mutex
	exe      string // the binary every node runs, once Prepare has placed it
	prepared bool
	bcast    string            // the sbcast copy Close removes, "" when none was made
	down     map[string]string // nodes found unreachable, with what showed it
	procs    []*srunProc
	resolver *net.Resolver // nil: the system's; tests set one that sends no query
	closed   bool

	// guardProc is the step that removes bcast from every node when the
	// job ends (srun_guard.go); nil when none runs.
	guardProc *srunProc
}

// Allocation is the Slurm job this process runs in.
type Allocation struct {
	JobID string
	Nodes []string // in SLURM_JOB_NODELIST order
}

// SlurmTools names the Slurm commands; an empty field means the command of
// that name found in PATH.
type SlurmTools struct {
	Srun, Sbcast, Scontrol string
}

func (t SlurmTools) srun() string     { return orDefault(t.Srun, "srun") }
func (t SlurmTools) sbcast() string   { return orDefault(t.Sbcast, "sbcast") }
func (t SlurmTools) scontrol() string { return orDefault(t.Scontrol, "scontrol") }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// InSlurmAllocation reports whether this process runs inside a Slurm job
// (a batch script, salloc, or a step), where --launcher auto picks srun.
func InSlurmAllocation() bool { return os.Getenv("SLURM_JOB_ID") != "" }

// AllocationFromEnv reads the job ID and its nodes from the variables Slurm
// sets in a job's environment.
func AllocationFromEnv(getenv func(string) string) (Allocation, error) {
	id := getenv("SLURM_JOB_ID")
	if id == "" {
		return Allocation{}, errors.New("not inside a Slurm allocation (SLURM_JOB_ID is not set): " +
			"run ioswarm from a batch script or salloc, or use --hosts")
	}
	list, name := getenv("SLURM_JOB_NODELIST"), "SLURM_JOB_NODELIST"
	if list == "" {
		// Slurm before 16.05 set only this one; newer ones set both.
		list, name = getenv("SLURM_NODELIST"), "SLURM_NODELIST"
	}
	if list == "" {
		return Allocation{}, fmt.Errorf("Slurm job %s: SLURM_JOB_NODELIST is not set, so its nodes are unknown", id)
	}
	nodes, err := hostlist.Expand(list)
	if err != nil {
		return Allocation{}, fmt.Errorf("Slurm job %s: %s=%q: %w", id, name, list, err)
	}
	if len(nodes) == 0 {
		return Allocation{}, fmt.Errorf("Slurm job %s: %s=%q names no node", id, name, list)
	}
	return Allocation{JobID: id, Nodes: nodes}, nil
}

// Targets is one target per node of the allocation, in order: thread i
// then runs on node i mod N, as with any host list.
func (a Allocation) Targets() []Target {
	ts := make([]Target, len(a.Nodes))
	for i, n := range a.Nodes {
		ts[i] = Target{Rank: i, Host: n}
	}
	return ts
}

// Name implements Launcher.
func (l *Srun) Name() string { return "srun" }

// Prepare implements Launcher: it finds the address by which each node
// reaches this machine, then puts the binary where every node can run it.
func (l *Srun) Prepare(ctx context.Context, targets []Target) ([]string, error) {
	if _, err := exec.LookPath(l.Tools.srun()); err != nil {
		return nil, fmt.Errorf("srun launcher: %w (is Slurm's client installed here?)", err)
	}
	addrs, err := l.addresses(ctx, targets)
	if err != nil {
		return nil, err
	}
	exe, err := l.place(ctx, targets)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, errors.New("interrupted")
	}
	l.exe, l.prepared = exe, true
	return addrs, nil
}

// exeOf is the binary t runs: a target's own preinstalled path first.
func (l *Srun) exeOf(t Target) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return "", errors.New("interrupted")
	}
	if !l.prepared {
		return "", fmt.Errorf("host %s: srun launcher not prepared", t.Host)
	}
	if t.Exe != "" {
		return t.Exe, nil
	}
	return l.exe, nil
}

// markDown records that node cannot be reached, so later steps there
// (cleanup, removal of the copy) fail at once instead of waiting for
// Slurm's own timeout once more.
func (l *Srun) markDown(node, why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.down == nil {
		l.down = map[string]string{}
	}
	if _, ok := l.down[node]; !ok {
		l.down[node] = why
	}
}

func (l *Srun) downReason(node string) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	why, ok := l.down[node]
	return why, ok
}

func (l *Srun) grace() time.Duration {
	if l.Grace > 0 {
		return l.Grace
	}
	return 4 * time.Second
}

// Close implements Launcher: it stops every rank step still running, then
// removes the sbcast copy from every node that got one.
func (l *Srun) Close() error {
	l.mu.Lock()
	procs, bcast, guard, placed := l.procs, l.bcast, l.guardProc, l.prepared
	l.procs, l.bcast, l.guardProc, l.closed = nil, "", nil, true
	l.mu.Unlock()
	StopAll(procs)
	// Every node's guard removes the copy as it ends; when Close comes in
	// the middle of Prepare, sbcast may still write after that.
	if cleared := unguard(guard); bcast == "" || (cleared && placed) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return l.unplace(ctx, bcast)
}
