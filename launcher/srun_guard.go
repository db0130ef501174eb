package launcher

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"ioswarm/hostlist"
)

// The sbcast copy must not outlive the job on any node, whatever ends it.
// scancel and a time limit end every step and the coordinator with them,
// so no step can be started afterwards to remove it, and Slurm itself
// removes nothing from a node's /tmp unless the site configured an
// Epilog or job_container/tmpfs (Debian's Slurm 22.05 does neither). So
// before the copy is made, one step over every node of the allocation
// starts a shell that removes it when the step ends: on the end of its
// input (Close, or this process gone) or on the SIGTERM that scancel and
// a time limit send every step before SIGKILL. Nodes that run no rank
// are covered as well as those that do.

// guardScript is that shell; $1 is the copy's path. It says "ready" once
// its trap is set, so that the copy is made only once every node guards
// it. --input=all gives every task srun's input, whose end reaches each.
const guardScript = `trap 'rm -f -- "$1"; exit 0' HUP INT TERM; echo ready; read -r _ || :; rm -f -- "$1"`

// guardReadyWithin bounds the wait for every node's guard to start: far
// above a step's launch, so that only a node that cannot start one
// (which sbcast would then fail on too) runs into it.
const guardReadyWithin = time.Minute

// guardArgs is srun's command line for the guard of file on nodes.
func guardArgs(nodes []string, file string) []string {
	n := strconv.Itoa(len(nodes))
	return []string{
		"--nodes=" + n, "--ntasks=" + n, "--ntasks-per-node=1",
		"--nodelist=" + hostlist.Compress(nodes), "--overlap", "--mpi=none", "--input=all",
		"--job-name=ioswarm-copyguard", "--quiet", "/bin/sh", "-c", guardScript, "sh", file,
	}
}

// startGuard starts the guard of file on nodes and returns once each
// node's shell has said it is ready; on an error the step is stopped.
func (l *Srun) startGuard(ctx context.Context, nodes []string, file string) (*srunProc, error) {
	cmd := exec.Command(l.Tools.srun(), guardArgs(nodes, file)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	in, errOut, err := startChild(cmd)
	if err != nil {
		return nil, err
	}
	p := &srunProc{procEnd: newProcEnd(), cmd: cmd, in: in, grace: l.grace()}
	ready := make(chan struct{})
	go countReady(out, len(nodes), ready)
	go func() {
		var last lastLines
		_, _ = io.Copy(&last, errOut)
		p.finish(stepError("srun", cmd.Wait(), last.String()))
	}()
	timer := time.NewTimer(guardReadyWithin)
	defer timer.Stop()
	select {
	case <-ready:
		return p, nil
	case <-p.Done():
		err = p.Err()
		if err == nil {
			err = errors.New("the step ended before every node was ready")
		}
	case <-ctx.Done():
		err = ctx.Err()
	case <-timer.C:
		err = fmt.Errorf("not every node was ready after %v", guardReadyWithin)
	}
	p.Stop()
	return nil, err
}

// countReady closes ready once want lines "ready" have come, then drains
// the rest of the output so that srun never blocks on it.
func countReady(out io.Reader, want int, ready chan<- struct{}) {
	sc := bufio.NewScanner(out)
	seen := 0
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "ready" {
			continue
		}
		if seen++; seen == want {
			close(ready)
		}
	}
	_, _ = io.Copy(io.Discard, out)
}

// guard starts the guard of dst over the whole allocation. Without one the
// run goes on: Close still removes the copy when the coordinator lives to
// the end, and a rank removes its own when a signal ends it; only nodes
// without a rank would keep theirs after scancel.
func (l *Srun) guard(ctx context.Context, dst string) {
	nodes := l.Alloc.Nodes
	p, err := l.startGuard(ctx, nodes, dst)
	if err != nil {
		l.Log.Printf("warning: srun: no step guards the copy %s on %s (%v): scancel or a time limit may leave it on nodes without a rank\n",
			dst, hostlist.Compress(nodes), err)
		return
	}
	l.mu.Lock()
	closed := l.closed
	if !closed {
		l.guardProc = p
	}
	l.mu.Unlock()
	if closed {
		p.Stop() // Close came first: the run is over
	}
}

// unguard ends the guard, whose shells remove the copy as they end; it
// reports whether every one did (the step ended cleanly).
func unguard(p *srunProc) bool {
	if p == nil {
		return false
	}
	p.Stop()
	return p.Err() == nil
}
