package launcher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Stream implements the preflight's streaming probe under Slurm: a
// one-task step whose input and output stay connected to the caller.
// --unbuffered makes srun pass each line of the task's output on as it
// comes, so a round trip through the step takes milliseconds, not a
// buffer's fill.
func (l *Srun) Stream(ctx context.Context, t Target, args []string) (*Stream, error) {
	exe, err := l.exeOn(t)
	if err != nil {
		return nil, err
	}
	cmd := l.stepCommand(ctx, slices.Insert(stepArgs(t.Host, "ioswarm", exe, args), 0, "--unbuffered"))
	var last lastLines
	cmd.Stderr = &last
	in, err1 := cmd.StdinPipe()
	out, err2 := cmd.StdoutPipe()
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("host %s: %w", t.Host, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("host %s: start %s: %w", t.Host, l.Tools.srun(), err)
	}
	what := fmt.Sprintf("host %s: %s %s", t.Host, exe, firstWord(args))
	return &Stream{In: in, Out: out, close: func() error {
		in.Close()
		// Output nobody reads would keep the task blocked in a write.
		_, _ = io.Copy(io.Discard, out)
		if err := stepError("srun", cmd.Wait(), last.String()); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	}}, nil
}

// firstWord is the subcommand of a command line, for error messages.
func firstWord(args []string) string {
	if len(args) == 0 {
		return "?"
	}
	return args[0]
}
