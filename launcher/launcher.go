package launcher

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sync"
)

// Target is the node one rank runs on.
type Target struct {
	Rank int
	Host string // the name reports use
	User string
	Port int
	Dir  string // per-node directory override ("" = the job's --dir)
	Exe  string // preinstalled binary path on the node ("" = place this binary)
}

// Proc is a started rank process.
type Proc interface {
	// Done is closed when the process has exited; Err then says how.
	Done() <-chan struct{}
	Err() error
	// Stop asks the process to end (closing its input, then a signal) and
	// kills it if it has not ended after grace.
	Stop()
}

// Launcher starts rank processes on a set of nodes.
type Launcher interface {
	// Name is what the result file records: local, ssh or srun.
	Name() string
	// Prepare readies every target (connections, arch check, binary
	// placement) and returns for each the address at which that node
	// reaches this machine ("" means loopback).
	Prepare(ctx context.Context, targets []Target) ([]string, error)
	// Start runs `<binary> rank args...` on t, writes stdin to its
	// standard input and keeps that input open until the process ends.
	Start(ctx context.Context, t Target, args []string, stdin []byte) (Proc, error)
	// Exec runs `<binary> args...` on t to completion (cleanup after a
	// rank died, preflight checks) and returns its standard output.
	Exec(ctx context.Context, t Target, args []string) ([]byte, error)
	// Close stops whatever is still running and releases connections.
	Close() error
}

// RankSpec gives a target's rank its arguments and standard input, given
// the address at which the target's node reaches this machine ("" means
// loopback).
type RankSpec func(t Target, addr string) (args []string, stdin []byte)

// Starter is a Launcher that starts each node's ranks while it prepares
// the nodes, rather than after all are ready: the SSH launcher saves a
// session per node that way. It returns the ranks in the order of targets.
type Starter interface {
	PrepareStart(ctx context.Context, targets []Target, spec RankSpec) ([]Proc, error)
}

// StartAll prepares every target and starts its rank as spec says, in one
// step where l is a Starter, else by Prepare and then Start for each. The
// ranks come in the order of targets; on an error, those started so far
// (a prefix, or none) come with it, and Close stops any others.
func StartAll(ctx context.Context, l Launcher, targets []Target, spec RankSpec) ([]Proc, error) {
	if s, ok := l.(Starter); ok {
		return s.PrepareStart(ctx, targets, spec)
	}
	addrs, err := l.Prepare(ctx, targets)
	if err != nil {
		return nil, err
	}
	var procs []Proc
	for i, t := range targets {
		args, stdin := spec(t, addrs[i])
		p, err := l.Start(ctx, t, args, stdin)
		if err != nil {
			return procs, err
		}
		procs = append(procs, p)
	}
	return procs, nil
}

// LineWriter serialises the lines that several ranks forward, so lines
// from different ranks never interleave mid-line.
type LineWriter struct {
	mu   sync.Mutex
	w    io.Writer
	last map[rankKey]string // each rank's last line (lastwords.go)
}

// NewLineWriter wraps w.
func NewLineWriter(w io.Writer) *LineWriter { return &LineWriter{w: w} }

// Forward copies r to the writer line by line, each prefixed with
// "[host rank N] ", until r ends.
func (lw *LineWriter) Forward(r io.Reader, host string, rank int) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		lw.RankLine(host, rank, sc.Text())
	}
}

// RankLine writes one line of a rank's output, prefixed with
// "[host rank N] ".
func (lw *LineWriter) RankLine(host string, rank int, line string) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.keepLast(host, rank, line)
	fmt.Fprintf(lw.w, "[%s rank %d] %s\n", host, rank, line)
}

// Printf writes one line.
func (lw *LineWriter) Printf(format string, args ...any) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	fmt.Fprintf(lw.w, format, args...)
}
