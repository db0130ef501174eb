package sweep

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"ioswarm/internal/usage"
)

// Only a failure that may pass is run again: not a usage error, not the
// time budget, not a sweep the user stopped.
func TestRetriable(t *testing.T) {
	live := context.Background()
	stopped, cancel := context.WithCancel(live)
	cancel()
	died := errors.New("host n1 rank 1: rank process exited: signal: killed")
	for _, c := range []struct {
		ctx  context.Context
		err  error
		want bool
	}{
		{live, died, true},
		{live, fmt.Errorf("sweep point of 2 threads: %w", died), true},
		{live, usage.Errorf("--read-shift 3: more than the nodes"), false},
		{live, fmt.Errorf("%w: the point of 4 threads was not started", ErrBudget), false},
		{stopped, died, false},
	} {
		if got := retriable(c.ctx, c.err); got != c.want {
			t.Errorf("retriable(%v) with the context's error %v = %v, want %v", c.err, c.ctx.Err(), got, c.want)
		}
	}
}
