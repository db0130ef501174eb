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

// LineWriter serialises the lines that several ranks forward, so lines
// from different ranks never interleave mid-line.
type LineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// NewLineWriter wraps w.
func NewLineWriter(w io.Writer) *LineWriter { return &LineWriter{w: w} }

// Forward copies r to the writer line by line, each prefixed with
// "[host rank N] ", until r ends.
func (lw *LineWriter) Forward(r io.Reader, host string, rank int) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		lw.mu.Lock()
		fmt.Fprintf(lw.w, "[%s rank %d] %s\n", host, rank, sc.Text())
		lw.mu.Unlock()
	}
}

// Printf writes one line.
func (lw *LineWriter) Printf(format string, args ...any) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	fmt.Fprintf(lw.w, format, args...)
}
