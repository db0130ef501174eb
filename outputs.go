package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"ioswarm/internal/usage"
)

// outputPath is a file a command writes after its run: --output, --csv,
// a chart file, IOzone's -b workbook.
type outputPath struct {
	flag, path string
	// replaced is true for a file written whole (--output, a chart);
	// false for one appended to (--csv).
	replaced bool
}

// optionName is how errors name the option that gave a file: a long flag
// by its name ("output": --output), an IOzone option as it is ("-b").
func optionName(flag string) string {
	if strings.HasPrefix(flag, "-") {
		return flag
	}
	return "--" + flag
}

// checkOutputs makes sure every output can be written before any rank
// starts: an hour's run must not end in "permission denied". An existing
// file is opened for writing without truncating it (it is replaced only
// once results exist, and said so on stderr for --output); for a new one
// the directory is tried with a scratch file, removed again.
func checkOutputs(stderr io.Writer, paths ...outputPath) error {
	for _, p := range paths {
		if p.path == "" {
			continue
		}
		st, err := os.Stat(p.path)
		switch {
		case err == nil && st.IsDir():
			return usage.Errorf("%s %s: is a directory", optionName(p.flag), p.path)
		case err == nil && !writableKind(st.Mode()):
			return usage.Errorf("%s %s: is a %s, not a regular file (results go to a regular file, or a new one)",
				optionName(p.flag), p.path, fileKind(st.Mode()))
		case err == nil:
			if err := tryWrite(p.path); err != nil {
				return usage.Errorf("%s %s: cannot be written: %w", optionName(p.flag), p.path, unwrapPath(err))
			}
			if p.replaced && p.flag == "output" && st.Mode().IsRegular() {
				fmt.Fprintf(stderr, "note: --output %s exists and will be replaced by this run's results\n", p.path)
			}
		case errors.Is(err, os.ErrNotExist):
			f, err := os.CreateTemp(filepath.Dir(p.path), ".ioswarm-check-*")
			if err != nil {
				return usage.Errorf("%s %s: cannot be created: %w", optionName(p.flag), p.path, unwrapPath(err))
			}
			f.Close()
			os.Remove(f.Name())
		default:
			return usage.Errorf("%s %s: %w", optionName(p.flag), p.path, unwrapPath(err))
		}
	}
	return nil
}

// unwrapPath drops the path a *PathError repeats (the message names the
// file already), keeping the cause.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// writeFile writes a result file through write, so that a failure names
// the flag and the file.
func writeFile(flag, path string, write func(io.Writer) error) error {
	f, err := createOutput(path)
	if err != nil {
		return fmt.Errorf("%s: %w", optionName(flag), err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s %s: %w", optionName(flag), path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s %s: %w", optionName(flag), path, err)
	}
	return nil
}
