package usage

import (
	"errors"
	"fmt"
)

// ErrUsage matches every usage error under errors.Is, however it was
// wrapped since.
var ErrUsage = errors.New("usage error")

// Error is a usage error. It keeps the error it was made from, so that
// errors.Is and errors.As still find what lies below it.
type Error struct{ err error }

func (e *Error) Error() string { return e.err.Error() }

// Unwrap returns the error the usage error was made from.
func (e *Error) Unwrap() error { return e.err }

// Is makes errors.Is(err, ErrUsage) true for every usage error.
func (e *Error) Is(target error) bool { return target == ErrUsage }

// Errorf is a usage error formatted as fmt.Errorf does, %w included. A
// string argument printed with %s or %v is quoted when it holds a control
// character (Value): a usage error echoes what the user typed, and a
// newline in it must not split the message.
func Errorf(format string, args ...any) error {
	return &Error{err: fmt.Errorf(format, safeArgs(args)...)}
}

// Wrap marks err as a usage error, keeping its message and its chain; nil
// stays nil and a usage error is returned as it is.
func Wrap(err error) error {
	if err == nil || Is(err) {
		return err
	}
	return &Error{err: err}
}

// Is reports whether err is, or wraps, a usage error.
func Is(err error) bool { return errors.Is(err, ErrUsage) }
