package main

import (
	"errors"
	"os"
	"syscall"

	"ioswarm/acceptance"
	"ioswarm/internal/usage"
	"ioswarm/sweep"
)

// Exit codes, listed in --help.
const (
	exitOK        = 0
	exitFailed    = 1   // the run failed: a node, a rank, the filesystem
	exitUsage     = 2   // bad flags, sizes, host lists: nothing was started
	exitExpect    = 3   // the run succeeded but an --expect was not met
	exitBudget    = 4   // a sweep stopped before a point its time budget could not hold: resume later
	exitHangup    = 129 // SIGHUP: ranks stopped, files removed
	exitInterrupt = 130 // SIGINT: likewise
	exitTerm      = 143 // SIGTERM: likewise
)

const exitCodesHelp = `EXIT CODES:
   0 success; 1 the run failed (node, rank or filesystem error);
   2 bad usage, nothing started; 3 an --expect (acceptance figure) was not
   met; 4 a sweep stopped at its time budget (run it again with --resume
   FILE); 129 hung up (SIGHUP); 130 interrupted (SIGINT); 143 terminated
   (SIGTERM). Ranks are stopped and files removed in every case.`

// silentError fails with exit code 1 but prints nothing: the message was
// already given elsewhere.
type silentError struct{ error }

// shownUsageError is a usage error (exit 2) whose explanation, such as
// the help text, was already printed.
type shownUsageError struct{ error }

func (e shownUsageError) Unwrap() error { return e.error }

func exitCode(err error, sig os.Signal) int {
	switch {
	case err == nil:
		return exitOK
	case sig == syscall.SIGINT:
		return exitInterrupt
	case sig == syscall.SIGTERM:
		return exitTerm
	case sig == syscall.SIGHUP:
		return exitHangup
	case usage.Is(err):
		return exitUsage
	case errors.Is(err, acceptance.ErrNotMet):
		return exitExpect
	case errors.Is(err, sweep.ErrBudget):
		return exitBudget
	}
	return exitFailed
}
