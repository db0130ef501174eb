package main

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A second signal ends the process with the first one's exit code,
// saying so, whatever the run is still waiting for.
func TestSecondSignalExits(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	codes := make(chan int, 1)
	var stderr strings.Builder
	go exitOnSecondSignal(sigs, syscall.SIGTERM, &stderr, func(code int) { codes <- code })
	select {
	case code := <-codes:
		t.Fatalf("exited (%d) before a second signal", code)
	case <-time.After(50 * time.Millisecond):
	}
	sigs <- syscall.SIGINT
	select {
	case code := <-codes:
		if code != exitTerm {
			t.Errorf("exit %d, want %d (the first signal's)", code, exitTerm)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no exit after the second signal")
	}
	if !strings.Contains(stderr.String(), "SIGINT again") {
		t.Errorf("stderr %q does not say why", stderr.String())
	}
}
