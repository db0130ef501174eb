// Package usage holds the one error type for a problem with what the user
// asked for (a bad flag, size, host list or result file): printed as one
// line, exit code 2, nothing started. Any other error is a failure of the
// run or a bug.
//
// It imports only the standard library, so every package may use it.
package usage
