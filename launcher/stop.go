package launcher

import (
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// defaultGrace is Stop's grace where a launcher is given none.
const defaultGrace = 3 * time.Second

// GraceOr is grace, or defaultGrace when grace is unset.
func GraceOr(grace time.Duration) time.Duration {
	if grace <= 0 {
		return defaultGrace
	}
	return grace
}

// ProcEnd is how a rank process ended, shared by every launcher's Proc:
// done is closed once the process has exited, err set before that.
type ProcEnd struct {
	done chan struct{}
	err  error
}

// NewProcEnd is the end of a process that has not ended yet.
func NewProcEnd() ProcEnd { return ProcEnd{done: make(chan struct{})} }

// Done implements Proc.
func (e *ProcEnd) Done() <-chan struct{} { return e.done }

// Err implements Proc.
func (e *ProcEnd) Err() error { <-e.done; return e.err }

// Finish records how the process ended and wakes whoever waits for it;
// it is called once, by the goroutine that waited for the process.
func (e *ProcEnd) Finish(err error) {
	e.err = err
	close(e.done)
}

// Wait reports whether the process ends within d.
func (e *ProcEnd) Wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-e.done:
		return true
	case <-t.C:
		return false
	}
}

// stopChild ends a rank run by a child of this process (the rank itself,
// or the srun that runs it), each step firmer than the last and each of
// the first two given half the grace: close its input (a rank takes that
// as the coordinator's end, aborts and removes its files), then SIGTERM,
// then kill. kill is the caller's because what must die differs: the
// rank alone, or srun's whole process group. It returns once the process
// has ended.
func (e *ProcEnd) stopChild(in io.Closer, proc *os.Process, grace time.Duration, kill func()) {
	in.Close()
	if e.Wait(grace / 2) {
		return
	}
	_ = proc.Signal(syscall.SIGTERM)
	if e.Wait(grace / 2) {
		return
	}
	kill()
	<-e.done
}

// StopAll stops every process at once: each Stop may take its full grace,
// and one slow rank must not hold back the others' ends.
func StopAll[P Proc](procs []P) {
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() { defer wg.Done(); p.Stop() }()
	}
	wg.Wait()
}
