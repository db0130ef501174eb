package progress

import (
	"fmt"
	"io"

	"golang.org/x/sys/unix"
)

// Mode chooses how progress is shown.
type Mode string

// The modes a user can ask for with --progress.
const (
	Auto  Mode = "auto"  // TTY on a terminal, Plain otherwise
	TTY   Mode = "tty"   // one line per phase, redrawn in place
	Plain Mode = "plain" // a whole line every interval
	Off   Mode = "off"   // nothing
)

// ParseMode reads a --progress value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Auto, TTY, Plain, Off:
		return m, nil
	}
	return "", fmt.Errorf("must be auto, tty, plain or off")
}

// IsTerminal reports whether w is a terminal: a file whose descriptor
// answers the terminal-attributes request.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// Resolve turns Auto into TTY or Plain for w.
func (m Mode) Resolve(w io.Writer) Mode {
	if m != Auto {
		return m
	}
	if IsTerminal(w) {
		return TTY
	}
	return Plain
}
