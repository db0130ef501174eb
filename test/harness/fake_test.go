package harness

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// fakeT stands in for a test that a helper may fail: it records the
// failure and ends the helper's goroutine as t.Fatal would, and holds the
// cleanups for the caller to run.
type fakeT struct {
	testing.TB // anything the helpers are not expected to call

	mu       sync.Mutex
	msg      string
	cleanups []func()
}

func (f *fakeT) Helper() {}

func (f *fakeT) Fatal(args ...any) { f.fail(fmt.Sprint(args...)) }

func (f *fakeT) Fatalf(format string, args ...any) { f.fail(fmt.Sprintf(format, args...)) }

func (f *fakeT) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups = append(f.cleanups, fn)
}

func (f *fakeT) fail(msg string) {
	f.mu.Lock()
	f.msg = msg
	f.mu.Unlock()
	runtime.Goexit()
}

// failure runs body as a test on its own goroutine, runs its cleanups, and
// returns the message it failed with, "" if it did not.
func failure(t *testing.T, body func(tb testing.TB)) string {
	t.Helper()
	f := &fakeT{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		body(f)
	}()
	<-done
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
	return f.msg
}
