package fakerank

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// Log collects a coordinator's log lines for a test to read while the
// coordinator still writes them.
type Log struct {
	mu    sync.Mutex
	lines []string
}

// Logf adds one line; it has the shape of a coordinator's Logf.
func (l *Log) Logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

// Count is the number of lines containing substr.
func (l *Log) Count(substr string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.lines {
		if strings.Contains(line, substr) {
			n++
		}
	}
	return n
}

func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// WaitFor waits until at least n lines contain substr, failing the test
// after within (a bound only a hang reaches).
func (l *Log) WaitFor(t testing.TB, substr string, n int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for l.Count(substr) < n {
		if time.Now().After(deadline) {
			t.Fatalf("want %d log lines containing %q, got %d; log:\n%s", n, substr, l.Count(substr), l)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Len is the number of lines so far.
func (l *Log) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lines)
}
