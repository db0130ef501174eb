package main

import (
	"os"
	"syscall"

	"ioswarm/internal/usage"
)

// Exit codes, listed in --help.
const (
	exitOK        = 0
	exitFailed    = 1   // the run failed: a node, a rank, the filesystem
	exitUsage     = 2   // bad flags, sizes, host lists: nothing was started
	exitHangup    = 129 // SIGHUP: ranks stopped, files removed
	exitInterrupt = 130 // SIGINT: likewise
	exitTerm      = 143 // SIGTERM: likewise
)

const exitCodesHelp = `EXIT CODES:
   0 success; 1 the run failed (node, rank or filesystem error);
   2 bad usage, nothing started; 129 hung up (SIGHUP); 130 interrupted (SIGINT);
   143 terminated (SIGTERM). Ranks are stopped and files removed in every case.`

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
	}
	return exitFailed
}
