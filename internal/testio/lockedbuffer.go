// Package testio holds the io helpers tests share: a buffer that a test
// reads while goroutines or processes still write to it. It is imported
// only by tests and test-support packages.
package testio

import (
	"bytes"
	"sync"
)

// LockedBuffer collects output that a test reads while something else
// (a command, ranks, a ticker) still writes it.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p whole: concurrent writes do not interleave.
func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns everything written so far.
func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
