package hostlist

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"ioswarm/internal/usage"
)

// MaxClientLines bounds the entry lines of an IOzone -+m client file,
// counted while reading: far above IOzone's own limit of 1024 clients
// (MAXSTREAMS), and low enough that a file of a million lines is refused
// at once instead of costing seconds and hundreds of MB before the run.
const MaxClientLines = 1 << 16

// checkClientPaths checks an IOzone -+m line's work directory and
// executable as IOzone's format has them: absolute paths that every node
// can be handed unchanged. It runs while the file is read, so a bad line
// is a usage error naming it before any rank starts.
func checkClientPaths(workdir, exe string) error {
	if err := checkPath("workdir", workdir); err != nil {
		return err
	}
	if !strings.HasPrefix(workdir, "/") {
		return fmt.Errorf("workdir %q is not an absolute path (IOzone -+m format: host workdir exe, both absolute paths)", workdir)
	}
	if err := checkPath("exe", exe); err != nil {
		return err
	}
	if !strings.HasPrefix(exe, "/") {
		return fmt.Errorf("exe %q is not an absolute path (IOzone -+m format: host workdir exe, both absolute paths)", exe)
	}
	return nil
}

// checkPath refuses a path (what names the field) that no node could be
// given as it is: bytes that are not UTF-8, or a control character (a NUL
// cannot be in a path at all).
func checkPath(what, p string) error {
	if !utf8.ValidString(p) {
		return fmt.Errorf("%s %q is not valid UTF-8", what, p)
	}
	if i := strings.IndexFunc(p, unicode.IsControl); i >= 0 {
		return fmt.Errorf("%s %q holds a control character (%q)", what, p, p[i:i+1])
	}
	return nil
}

// looksIOzone reports whether data is meant as an IOzone -+m file even
// though isIOzone refuses it: every entry line has three fields and no
// key=value among them. Such a file is parsed as one, so that a relative
// work directory is refused in IOzone's terms rather than the host
// file's.
func looksIOzone(data []byte) bool {
	lines := 0
	notIOzone := errors.New("not an IOzone client file")
	err := eachLine(bytes.NewReader(data), "", func(fields []string) error {
		if len(fields) != 3 || strings.Contains(fields[1], "=") || strings.Contains(fields[2], "=") {
			return notIOzone
		}
		lines++
		return nil
	})
	return err == nil && lines > 0
}

// OpenRegular opens a host file for reading without blocking on a FIFO
// (O_NONBLOCK, which a regular file ignores) and refuses anything but a
// regular file: a FIFO named by --hosts would otherwise hold the run
// before it starts, waiting for a writer.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("opening host file: %w", err)
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		kind := "special file"
		if st.Mode()&os.ModeNamedPipe != 0 {
			kind = "FIFO"
		}
		err = fmt.Errorf("host file %s is not a regular file (a %s)", usage.Value(path), kind)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
