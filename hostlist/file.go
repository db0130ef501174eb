package hostlist

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"ioswarm/internal/usage"
)

// Bounds on host files: far above any real file, and checked while reading,
// so that pointing --hosts at a large data file fails fast instead of filling
// memory.
const (
	maxFileSize = 16 << 20
	maxLineLen  = 64 << 10
)

// ParseFile reads a host file: one host, hostlist expression or inline list
// per line (with optional user@ and :port), "#" comments from a word that
// starts with "#" to the end of the line, blank lines, and key=value fields
// after the host separated by white space. The only field is dir=PATH, a
// per-host working directory. name labels errors ("hosts.txt:7: ...").
// Files over 16 MiB, lines over 64 KiB and files naming no host are errors.
func ParseFile(r io.Reader, name string) ([]Entry, error) {
	return parseFile(r, name, MaxHosts)
}

// parseFile is ParseFile with a host budget; fuzzing uses a small one to keep
// each run fast.
func parseFile(r io.Reader, name string, limit int) ([]Entry, error) {
	var entries []Entry
	err := eachLine(r, name, func(fields []string) error {
		if len(fields) > 1 && strings.HasSuffix(fields[0], ",") {
			return fmt.Errorf("%q ends with \",\" and is followed by %q: write a list without spaces (a,b) or one host per line", fields[0], fields[1])
		}
		got, err := parseInlineLimit(fields[0], limit-len(entries))
		if err != nil {
			return err
		}
		dir, err := parseFields(fields[1:])
		if err != nil {
			return err
		}
		for k := range got {
			got[k].Dir = dir
		}
		entries = append(entries, got...)
		return nil
	})
	return finish(entries, name, err)
}

// parseFields reads the key=value fields after the host.
func parseFields(fields []string) (dir string, err error) {
	seen := false
	for _, f := range fields {
		key, value, ok := strings.Cut(f, "=")
		if !ok {
			return "", fmt.Errorf("unexpected %q after the host (one host or list per line; fields are key=value, known: dir)", f)
		}
		if key != "dir" {
			return "", fmt.Errorf("unknown field %q (known: dir)", f)
		}
		if seen {
			return "", fmt.Errorf("dir= given twice")
		}
		if value == "" {
			return "", fmt.Errorf("dir= needs a path")
		}
		if err := checkPath("dir=", value); err != nil {
			return "", err
		}
		dir, seen = value, true
	}
	return dir, nil
}

// ParseIOzone reads an IOzone -+m client file: each line is "host workdir
// exe", one line per thread slot, so entries keep file order and duplicates.
// Comments and blank lines are skipped as in ParseFile. A line with other
// than three fields is an error.
func ParseIOzone(r io.Reader, name string) ([]Entry, error) {
	return parseIOzone(r, name, MaxHosts)
}

func parseIOzone(r io.Reader, name string, limit int) ([]Entry, error) {
	var entries []Entry
	lines := 0
	err := eachLine(r, name, func(fields []string) error {
		if lines++; lines > MaxClientLines {
			return fmt.Errorf("more than %d client lines (an IOzone -+m file holds at most %d, and %d MiB)", MaxClientLines, MaxClientLines, maxFileSize>>20)
		}
		if len(fields) != 3 {
			return fmt.Errorf("found %d fields, want 3: host workdir exe (IOzone -+m format)", len(fields))
		}
		if err := checkClientPaths(fields[1], fields[2]); err != nil {
			return err
		}
		got, err := parseInlineLimit(fields[0], limit-len(entries))
		if err != nil {
			return err
		}
		for k := range got {
			got[k].Dir, got[k].Exe = fields[1], fields[2]
		}
		entries = append(entries, got...)
		return nil
	})
	return finish(entries, name, err)
}

func finish(entries []Entry, name string, err error) ([]Entry, error) {
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("%s: no hosts in the file", usage.Value(name))
	}
	return entries, nil
}

// eachLine calls fn with the white-space separated fields of every line that
// is neither blank nor a comment, and labels fn's errors with name and line.
func eachLine(r io.Reader, name string, fn func(fields []string) error) error {
	name = usage.Value(name) // for messages: one line, whatever the file is called
	lr := &io.LimitedReader{R: r, N: maxFileSize + 1}
	sc := bufio.NewScanner(lr)
	// Room for the longest accepted line and its line ending.
	sc.Buffer(make([]byte, 0, 4096), maxLineLen+2)
	line := 0
	for sc.Scan() {
		line++
		if lr.N == 0 {
			return fmt.Errorf("%s: larger than %d MiB; is it really a host file?", name, maxFileSize>>20)
		}
		text := sc.Text()
		if len(text) > maxLineLen {
			return fmt.Errorf("%s:%d: line longer than %d KiB", name, line, maxLineLen>>10)
		}
		if line == 1 {
			text = strings.TrimPrefix(text, "\uFEFF") // some editors start files with a byte-order mark
		}
		fields := strings.Fields(stripComment(text))
		if len(fields) == 0 {
			continue
		}
		if err := fn(fields); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s:%d: line longer than %d KiB", name, line+1, maxLineLen>>10)
		}
		return fmt.Errorf("reading %s: %w", name, err)
	}
	if lr.N == 0 {
		return fmt.Errorf("%s: larger than %d MiB; is it really a host file?", name, maxFileSize>>20)
	}
	return nil
}

// stripComment cuts a line at a "#" that starts a word, as a shell does, so
// that a path such as dir=/scratch/run#2 keeps its "#".
func stripComment(line string) string {
	for i := 0; i < len(line); i++ {
		if line[i] == '#' && (i == 0 || isSpace(line[i-1])) {
			return line[:i]
		}
	}
	return line
}
