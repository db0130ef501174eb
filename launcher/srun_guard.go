package launcher

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
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
// node's shell has said it is ready; on an error the step is stopped, and
// the last lines srun printed come with the error: the line naming a node
// it could not launch on need not be the one the error quotes.
func (l *Srun) startGuard(ctx context.Context, nodes []string, file string) (*srunProc, string, error) {
	cmd := exec.Command(l.Tools.srun(), guardArgs(nodes, file)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	in, errOut, err := startChild(cmd)
	if err != nil {
		return nil, "", err
	}
	p := &srunProc{ProcEnd: NewProcEnd(), cmd: cmd, in: in, grace: l.grace()}
	ready := make(chan struct{})
	go countReady(out, len(nodes), ready)
	var last lastLines
	var named nodeLines // a multi-node step's other tasks print after it
	go func() {
		_, _ = io.Copy(io.MultiWriter(&last, &named), errOut)
		p.Finish(stepError("srun", cmd.Wait(), last.String()))
	}()
	timer := time.NewTimer(guardReadyWithin)
	defer timer.Stop()
	select {
	case <-ready:
		return p, "", nil
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
	p.Stop() // its output is complete once it has ended
	return nil, named.String() + last.String(), err
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

// guard starts the guard of dst over the whole allocation. A node it could
// not start on fails the placement at once, as sbcast would after as long
// a wait again. Without a guard for another reason the run goes on: Close
// still removes the copy when the coordinator lives to the end, and a
// rank removes its own when a signal ends it; only nodes without a rank
// would keep theirs after scancel.
func (l *Srun) guard(ctx context.Context, targets []Target, dst string) error {
	nodes := l.Alloc.Nodes
	p, stderr, err := l.startGuard(ctx, nodes, dst)
	if err != nil && len(failedNodes(stderr)) > 0 {
		return l.bcastError(targets, dst, fmt.Errorf("its guard step: %w", guardFailure(err, stderr)), stderr)
	}
	if err != nil {
		l.Log.Printf("warning: srun: no step guards the copy %s on %s (%v): scancel or a time limit may leave it on nodes without a rank\n",
			dst, hostlist.Compress(nodes), err)
		return nil
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
	return nil
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

// guardFailure is the line of stderr that names a node srun could not
// launch on, rather than err, which quotes what srun printed last: the
// other nodes' cancelled tasks.
func guardFailure(err error, stderr string) error {
	for _, line := range strings.Split(stderr, "\n") {
		if len(failedNodes(line)) > 0 {
			return errors.New(strings.TrimSpace(line))
		}
	}
	return err
}

// nodeLines keeps the first few lines in which srun names a node it could
// not launch on (what failedNodes reads), however much follows them.
type nodeLines struct {
	mu   sync.Mutex
	kept strings.Builder
	n    int
	lineSplit
}

const keptNodeLines = 16

func (w *nodeLines) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.feed(p, func(line []byte) {
		if w.n < keptNodeLines && len(failedNodes(string(line))) > 0 {
			w.kept.Write(bytes.TrimSpace(line))
			w.kept.WriteByte('\n')
			w.n++
		}
	})
	return len(p), nil
}

// String is the kept lines, each ended by a newline.
func (w *nodeLines) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.kept.String()
}
