package launcher

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"ioswarm/rankproto"
)

// Start implements Launcher: `srun ... <binary> rank args...` on t's node,
// with stdin written to srun's standard input, which srun hands to the one
// task. The input stays open for the life of the step; when it closes
// (Stop, or this process dies) the rank reads its end and stops.
func (l *Srun) Start(ctx context.Context, t Target, args []string, stdin []byte) (Proc, error) {
	if why, down := l.downReason(t.Host); down {
		return nil, fmt.Errorf("host %s rank %d: node unreachable: %s", t.Host, t.Rank, why)
	}
	exe, err := l.exeOf(t)
	if err != nil {
		return nil, err
	}
	p, err := l.startStep(t, append(append([]string{exe, rankproto.Subcommand}, args...), l.copyArgs(exe)...))
	if err != nil {
		return nil, fmt.Errorf("host %s rank %d: %w", t.Host, t.Rank, err)
	}
	if _, err := p.in.Write(stdin); err != nil && !p.Wait(p.grace) {
		// A write fails when srun has closed its input, which it does
		// when it exits: the step's own error then says more, through
		// the Proc. Anything else is a failure to start.
		p.Stop()
		return nil, fmt.Errorf("host %s rank %d: send job secret to srun: %w", t.Host, t.Rank, err)
	}
	l.mu.Lock()
	closed := l.closed
	l.procs = append(l.procs, p)
	l.mu.Unlock()
	if closed {
		p.Stop()
		return nil, errors.New("interrupted")
	}
	return p, nil
}

// startStep starts srun for command on t's node, its standard error
// forwarded to the log and its input left open for the caller.
func (l *Srun) startStep(t Target, command []string) (*srunProc, error) {
	cmd := exec.Command(l.Tools.srun(), stepArgs(t.Host, "ioswarm", command[0], command[1:])...)
	// In a group of its own, as the local launcher's children: srun would
	// otherwise take a terminal's Ctrl-C as a request to cancel the step
	// on its own, out of the coordinator's order.
	in, errOut, err := startChild(cmd)
	if err != nil {
		return nil, err
	}
	p := &srunProc{ProcEnd: NewProcEnd(), cmd: cmd, in: in, grace: l.grace()}
	go func() {
		var last lastLines
		l.Log.Forward(io.TeeReader(errOut, &last), t.Host, t.Rank)
		err := stepError("srun", cmd.Wait(), last.String())
		if err != nil && slices.Contains(failedNodes(last.String()), t.Host) {
			l.markDown(t.Host, "srun could not launch a task there")
		}
		p.Finish(err)
	}()
	return p, nil
}

// Exec implements Launcher: a one-task step on t's node running
// `<binary> args...`, with no input; its standard output is returned.
func (l *Srun) Exec(ctx context.Context, t Target, args []string) ([]byte, error) {
	exe, err := l.exeOn(t)
	if err != nil {
		return nil, err
	}
	cmd := l.stepCommand(ctx, stepArgs(t.Host, "ioswarm", exe, args))
	var out bytes.Buffer
	var last lastLines
	cmd.Stdout, cmd.Stderr = &out, &last
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("host %s: %s %s: %w", t.Host, exe, firstWord(args), stepError("srun", err, last.String()))
	}
	return out.Bytes(), nil
}

// exeOn is the binary a one-off step runs on t's node, or why there is
// none: a node srun or sbcast already failed on is not tried again.
func (l *Srun) exeOn(t Target) (string, error) {
	if why, down := l.downReason(t.Host); down {
		return "", fmt.Errorf("host %s: node unreachable: %s", t.Host, why)
	}
	return l.exeOf(t)
}

// stepCommand is srun with args as a step that ends with ctx: in a process
// group of its own, and cancelled with SIGTERM first, on which srun
// cancels the step on the node, where SIGKILL would leave it to Slurm to
// notice.
func (l *Srun) stepCommand(ctx context.Context, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, l.Tools.srun(), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = l.grace()
	return cmd
}

// stepError describes how a Slurm tool failed, with what it (or the task)
// printed last: "exit status 1" alone would not say that the node refused
// the launch.
func stepError(tool string, err error, lines string) error {
	if err == nil {
		return nil
	}
	if msg := summary(lines); msg != "" {
		return fmt.Errorf("%s: %w: %s", tool, err, msg)
	}
	return fmt.Errorf("%s: %w", tool, err)
}

// summary picks the line worth quoting from the last lines of a step's
// standard error: the first error of srun, sbcast or slurmstepd, which
// names the node and the cause; else the task's own last words. srun's
// per-task exit notes ("node1: task 0: Exited with exit code 1") come
// last, as they only repeat the exit status.
func summary(lines string) string {
	var task, exit string
	for _, line := range strings.Split(lines, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case strings.Contains(line, ": task 0: "):
			exit = line
		case strings.HasPrefix(line, "srun: error:"), strings.HasPrefix(line, "sbcast: error:"),
			strings.HasPrefix(line, "slurmstepd"):
			return line
		default:
			task = line
		}
	}
	if task != "" {
		return task
	}
	return exit
}

// lastLines keeps the last few complete lines written to it, for error
// messages; the rest is forwarded or dropped elsewhere.
type lastLines struct {
	mu    sync.Mutex
	lines []string
	lineSplit
}

const keptLines = 4

func (w *lastLines) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.feed(p, func(line []byte) {
		if line := strings.TrimSpace(string(line)); line != "" {
			w.lines = append(w.lines, line)
			if len(w.lines) > keptLines {
				w.lines = w.lines[1:]
			}
		}
	})
	return len(p), nil
}

// lineSplit cuts a stream written in pieces into lines, for the writers
// that keep some of srun's lines (lastLines, nodeLines).
type lineSplit struct{ partial []byte }

// feed hands each line p completes to each, without its newline; an
// unfinished line waits for the next piece, its tail only past 4 KiB
// (a line without end).
func (ls *lineSplit) feed(p []byte, each func(line []byte)) {
	ls.partial = append(ls.partial, p...)
	for {
		i := bytes.IndexByte(ls.partial, '\n')
		if i < 0 {
			break
		}
		each(ls.partial[:i])
		ls.partial = ls.partial[i+1:]
	}
	if len(ls.partial) > 4096 {
		ls.partial = ls.partial[len(ls.partial)-4096:]
	}
}

// String is the kept lines and any unfinished last line.
func (w *lastLines) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	lines := w.lines
	if s := strings.TrimSpace(string(w.partial)); s != "" {
		lines = append(lines[:len(lines):len(lines)], s)
	}
	return strings.Join(lines, "\n")
}

// srunProc is one rank's srun step.
type srunProc struct {
	ProcEnd
	cmd   *exec.Cmd
	in    io.WriteCloser
	grace time.Duration
	once  sync.Once
}

// Stop closes the step's input, which reaches the rank as end of input
// (it then aborts and removes its files); then SIGTERM to srun, which
// cancels the step on the node; then SIGKILL to srun, after which
// slurmstepd ends the task when it loses srun's connection.
func (p *srunProc) Stop() {
	p.once.Do(func() {
		p.stopChild(p.in, p.cmd.Process, p.grace, p.killGroup)
	})
	<-p.done
}

// killGroup sends SIGKILL to the whole group: srun forks a helper, and
// the group (srun's own, see Start) holds nothing else.
func (p *srunProc) killGroup() {
	if err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		_ = p.cmd.Process.Kill()
	}
}
