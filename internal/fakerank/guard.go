package fakerank

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// Guard fails the whole binary, with every goroutine's stack, if the test
// and its cleanups have not finished within d: a deadlock shows up as a
// readable failure instead of the go test timeout. d is a bound only a
// hang reaches, never a measure of speed.
func Guard(t testing.TB, d time.Duration) {
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		select {
		case <-done:
		case <-time.After(d):
			panic(fmt.Sprintf("%s still running after %v: deadlock?\n%s", t.Name(), d, stacks()))
		}
	}()
}

// NoGoroutinesPast waits until the binary runs no more goroutines than
// before (a count taken with runtime.NumGoroutine when the test began),
// and fails the test with every goroutine's stack if some are still there
// after within. Goroutines that end late on a loaded machine only make it
// wait; one that never ends fails it.
func NoGoroutinesPast(t testing.TB, before int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines %v after the test's work, %d before it:\n%s",
				runtime.NumGoroutine(), within, before, stacks())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func stacks() []byte {
	buf := make([]byte, 1<<20)
	return buf[:runtime.Stack(buf, true)]
}
