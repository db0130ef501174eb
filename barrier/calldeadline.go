package barrier

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// callContext bounds one call of kind by the configured CallLimit, if it
// sets one for kind: a rank that is alive (its heartbeats keep coming)
// but whose handler never returns must not hold the job for good.
func (c *Coordinator) callContext(ctx context.Context, kind string) (context.Context, context.CancelFunc) {
	if c.cfg.CallLimit == nil {
		return ctx, func() {}
	}
	limit := c.cfg.CallLimit(kind)
	if limit <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, limit, &callDeadline{limit: limit})
}

// callDeadline is the cause of a call cut off by its CallLimit.
type callDeadline struct{ limit time.Duration }

func (e *callDeadline) Error() string { return fmt.Sprintf("no reply within %s", e.limit) }

// callCut is the error of a call whose ctx ended before every rank
// replied. A call cut off by its deadline names the ranks that did not
// answer, the first as a RankError; otherwise (a cancel from above) the
// call says so plainly, as before.
func callCut(ctx context.Context, kind string, sessions []*session, replied []bool) error {
	var cut *callDeadline
	if !errors.As(context.Cause(ctx), &cut) {
		return fmt.Errorf("call %q: %w", kind, ctx.Err())
	}
	var silent []*session
	for r, s := range sessions {
		if !replied[r] {
			silent = append(silent, s)
		}
	}
	if len(silent) == 0 { // every reply came as the deadline struck
		return fmt.Errorf("call %q: %v", kind, cut)
	}
	msg := fmt.Sprintf("%q call: %v", kind, cut)
	if len(silent) > 1 {
		var others []string
		for i, s := range silent[1:] {
			if i == 8 {
				others = append(others, fmt.Sprintf("and %d more", len(silent)-1-i))
				break
			}
			others = append(others, fmt.Sprintf("%s rank %d", s.host, s.rank))
		}
		msg += "; nor from " + strings.Join(others, ", ")
	}
	return silent[0].rankError(msg)
}
