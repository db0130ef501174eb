package hostlist

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"ioswarm/internal/usage"
)

// Load resolves a --hosts value. When spec names an existing file, the file is
// parsed: as an IOzone -+m client file when every entry line has exactly three
// fields and the last two are absolute paths, as a host file otherwise.
// Anything else is parsed as an inline list. The second result describes the
// source for messages ("file hosts.txt", "iozone client file ./threadlist",
// "inline list").
func Load(spec string) ([]Entry, string, error) {
	info, statErr := os.Stat(spec)
	if statErr != nil {
		// Not a file (or not reachable as one): an inline list. An inline list
		// can be too long for a path, so any stat error lands here.
		entries, err := ParseInline(spec)
		if err != nil && strings.Contains(spec, "/") {
			return nil, "", fmt.Errorf("%q is neither a readable host file (%v) nor a host list: %w", spec, statErr, err)
		}
		return entries, "inline list", err
	}
	if info.IsDir() {
		return nil, "", fmt.Errorf("host file %q is a directory", spec)
	}
	data, err := readBounded(spec)
	if err != nil {
		return nil, "", err
	}
	if isIOzone(data) || looksIOzone(data) {
		entries, err := ParseIOzone(bytes.NewReader(data), spec)
		return entries, "iozone client file " + spec, err
	}
	entries, err := ParseFile(bytes.NewReader(data), spec)
	return entries, "file " + spec, err
}

// readBounded reads a whole host file, refusing one over maxFileSize before
// reading past that size.
func readBounded(path string) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading host file %s: %w", usage.Value(path), err)
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("%s: larger than %d MiB; is it really a host file?", usage.Value(path), maxFileSize>>20)
	}
	return data, nil
}

// isIOzone reports whether every entry line of data looks like "host
// /workdir /exe". A host file's second field is key=value, never a path, so
// the two formats cannot be confused.
func isIOzone(data []byte) bool {
	lines := 0
	notIOzone := errors.New("not an IOzone client file")
	err := eachLine(bytes.NewReader(data), "", func(fields []string) error {
		if len(fields) != 3 || !strings.HasPrefix(fields[1], "/") || !strings.HasPrefix(fields[2], "/") {
			return notIOzone
		}
		lines++
		return nil
	})
	return err == nil && lines > 0
}
