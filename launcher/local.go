package launcher

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"ioswarm/rankproto"
)

// Local runs ranks as child processes re-executing this binary.
type Local struct {
	Binary string        // path of this executable
	Log    *LineWriter   // where rank stderr goes
	Grace  time.Duration // between SIGTERM and SIGKILL in Stop

	mu    sync.Mutex
	procs []*localProc
}

// Name implements Launcher.
func (l *Local) Name() string { return "local" }

// Prepare implements Launcher: children reach the coordinator on loopback.
func (l *Local) Prepare(ctx context.Context, targets []Target) ([]string, error) {
	return make([]string, len(targets)), nil
}

// Start implements Launcher.
func (l *Local) Start(ctx context.Context, t Target, args []string, stdin []byte) (Proc, error) {
	cmd := exec.Command(l.Binary, append([]string{rankproto.Subcommand}, args...)...)
	in, errOut, err := startChild(cmd)
	if err != nil {
		return nil, fmt.Errorf("host %s rank %d: %w", t.Host, t.Rank, err)
	}
	p := &localProc{ProcEnd: NewProcEnd(), cmd: cmd, in: in, grace: l.Grace}
	go func() {
		l.Log.Forward(errOut, t.Host, t.Rank)
		p.Finish(cmd.Wait())
	}()
	if _, err := in.Write(stdin); err != nil {
		p.Stop()
		return nil, fmt.Errorf("host %s rank %d: send job secret: %w", t.Host, t.Rank, err)
	}
	l.mu.Lock()
	l.procs = append(l.procs, p)
	l.mu.Unlock()
	return p, nil
}

// Exec implements Launcher.
func (l *Local) Exec(ctx context.Context, t Target, args []string) ([]byte, error) {
	out, err := exec.CommandContext(ctx, l.Binary, args...).Output()
	if err != nil {
		return out, fmt.Errorf("host %s: %s %v: %w", t.Host, l.Binary, args, err)
	}
	return out, nil
}

// Close implements Launcher.
func (l *Local) Close() error {
	l.mu.Lock()
	procs := l.procs
	l.procs = nil
	l.mu.Unlock()
	StopAll(procs)
	return nil
}

// startChild starts cmd with pipes to its standard input and from its
// standard error, in a process group of its own: a terminal's Ctrl-C goes
// to the whole foreground group, and a rank (or the srun running one)
// outside it leaves the signal to the coordinator, which then stops every
// rank in order (abort, clean up, exit).
func startChild(cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	errOut, err := cmd.StderrPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	return in, errOut, nil
}

type localProc struct {
	ProcEnd
	cmd   *exec.Cmd
	in    io.Closer
	grace time.Duration
	once  sync.Once
}

// Stop closes the rank's input (a rank takes that as the coordinator's
// end and cleans up), then sends SIGTERM, then SIGKILL after the grace.
func (p *localProc) Stop() {
	p.once.Do(func() {
		p.stopChild(p.in, p.cmd.Process, GraceOr(p.grace), func() { _ = p.cmd.Process.Kill() })
	})
	<-p.done
}
