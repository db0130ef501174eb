package launcher

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"
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

// Verifies implements Verifier: the children run the coordinator's own
// executable, which the coordinator hashed.
func (l *Local) Verifies(Target) bool { return true }

// Prepare implements Launcher: children reach the coordinator on loopback.
func (l *Local) Prepare(ctx context.Context, targets []Target) ([]string, error) {
	return make([]string, len(targets)), nil
}

// Start implements Launcher.
func (l *Local) Start(ctx context.Context, t Target, args []string, stdin []byte) (Proc, error) {
	cmd := exec.Command(l.Binary, append([]string{"rank"}, args...)...)
	// A terminal's Ctrl-C goes to the whole foreground process group;
	// ranks get their own group so only the coordinator sees it and can
	// stop them in order (abort, clean up, exit).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	errOut, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("host %s rank %d: start %s: %w", t.Host, t.Rank, l.Binary, err)
	}
	p := &localProc{cmd: cmd, in: in, done: make(chan struct{}), grace: l.Grace}
	go func() {
		l.Log.Forward(errOut, t.Host, t.Rank)
		p.err = cmd.Wait()
		close(p.done)
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
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() { defer wg.Done(); p.Stop() }()
	}
	wg.Wait()
	return nil
}

type localProc struct {
	cmd   *exec.Cmd
	in    interface{ Close() error }
	done  chan struct{}
	err   error
	grace time.Duration
	once  sync.Once
}

func (p *localProc) Done() <-chan struct{} { return p.done }
func (p *localProc) Err() error            { <-p.done; return p.err }

// Stop closes the rank's input (a rank takes that as the coordinator's
// end and cleans up), then sends SIGTERM, then SIGKILL after the grace.
func (p *localProc) Stop() {
	p.once.Do(func() {
		p.in.Close()
		grace := p.grace
		if grace <= 0 {
			grace = 3 * time.Second
		}
		select {
		case <-p.done:
			return
		case <-time.After(grace / 2):
		}
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
			return
		case <-time.After(grace / 2):
		}
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	<-p.done
}
