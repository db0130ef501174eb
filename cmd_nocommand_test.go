package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"ioswarm/internal/usage"
)

// `ioswarm` alone prints the commands on stderr and is a usage error
// (exit 2), which main does not print again.
func TestNoCommandShowsHelpAndFails(t *testing.T) {
	app := newApp()
	var out, errOut strings.Builder
	app.Writer, app.ErrWriter = &out, &errOut
	err := app.RunContext(context.Background(), []string{"ioswarm"})
	if !usage.Is(err) || exitCode(err, nil) != exitUsage {
		t.Fatalf("got %v (exit %d), want a usage error (exit 2)", err, exitCode(err, nil))
	}
	if !errors.As(err, new(shownUsageError)) {
		t.Errorf("%v would be printed again under the help", err)
	}
	if !strings.Contains(errOut.String(), "COMMANDS:") || out.Len() != 0 {
		t.Errorf("want the help on stderr only; stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	}
}
