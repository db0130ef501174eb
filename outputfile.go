package main

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// tryWrite opens the existing file path for writing and closes it again,
// without truncating it and without blocking: O_NONBLOCK keeps the open
// of a FIFO (put there after the check of its type, or as a link's
// target) from waiting for a reader, which no signal could interrupt;
// the opened file must still be of a kind writableKind accepts.
func tryWrite(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !writableKind(st.Mode()) {
		return fmt.Errorf("is a %s, not a regular file", fileKind(st.Mode()))
	}
	return nil
}

// writableKind accepts a regular file, and a character device (/dev/null,
// a terminal), which takes writes at once; a FIFO, a socket or a block
// device as a result file is a mistake, and a FIFO without a reader
// would block the run's end.
func writableKind(m fs.FileMode) bool {
	return m.IsRegular() || (m&fs.ModeCharDevice != 0)
}

// fileKind names what a file that is not a regular one is, for a message.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m.IsDir():
		return "directory"
	}
	return "special file"
}

// createOutput creates or truncates a result file as os.Create does, but
// without blocking on a FIFO put at its name since the check before the
// run, and refuses what writableKind does not accept.
func createOutput(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0o666)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !writableKind(st.Mode()) {
		err = fmt.Errorf("%s is a %s, not a regular file", path, fileKind(st.Mode()))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
