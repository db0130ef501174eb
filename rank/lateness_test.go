package rank

import (
	"testing"
	"time"
)

// idleLateBound is how late a release may come on an idle machine.
const idleLateBound = 5 * time.Millisecond

// lateBound is how late a release may come now: the idle bound plus twice
// what a plain 1 ms sleep overslept at best of five tries just now. A busy
// machine (load 11-18 on 2 cores) wakes every thread late by tens of
// milliseconds, whatever the code does; this measures that, so only a
// release later than the machine explains fails.
func lateBound(t *testing.T) time.Duration {
	t.Helper()
	best := time.Duration(1<<63 - 1)
	for range 5 {
		begin := time.Now()
		time.Sleep(time.Millisecond)
		best = min(best, time.Since(begin)-time.Millisecond)
	}
	bound := idleLateBound + 2*max(best, 0)
	t.Logf("a 1 ms sleep overslept by %v at best: releases may be %v late", best, bound)
	return bound
}
