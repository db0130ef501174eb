package study

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"ioswarm/report"
	"ioswarm/result"
)

// AppendCSV appends one row per phase iteration of job to the CSV file
// at path, creating it if needed. The header is written only when the
// file is new or empty, so runs on different days collect in one file.
// A file whose header is not this version's is refused rather than
// extended with rows its columns do not describe.
func AppendCSV(path string, job *result.Job) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("--csv: %w", err)
	}
	header, err := needsHeader(f)
	if err == nil {
		err = report.WriteCSV(f, job, header)
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--csv %s: %w", path, err)
	}
	return nil
}

// CheckCSV checks, before a long sweep starts, that rows can be appended
// to path: the file can be created or opened, and is empty or this
// version's CSV. An empty file may be left behind; it gets the header
// with the first rows.
func CheckCSV(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("--csv: %w", err)
	}
	defer f.Close()
	if _, err := needsHeader(f); err != nil {
		return fmt.Errorf("--csv %s: %w", path, err)
	}
	return nil
}

// needsHeader reports whether f is empty, and checks the first line of a
// file that is not.
func needsHeader(f *os.File) (bool, error) {
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	if st.Size() == 0 {
		return true, nil
	}
	line, err := bufio.NewReader(io.LimitReader(f, 64<<10)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	want := strings.Join(report.CSVHeader(), ",")
	got := strings.TrimRight(line, "\r\n")
	switch {
	case got == want:
		return false, endLine(f, st.Size())
	case strings.HasPrefix(got, "label,timestamp,"):
		return false, errors.New("the file's columns differ from this version's; append to a new file")
	default:
		return false, errors.New("not an ioswarm CSV file (its first line is not the ioswarm header); give a new file")
	}
}

// endLine ends a last line that lacks its newline (a file edited by hand),
// so the first appended row does not run into it.
func endLine(f *os.File, size int64) error {
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, size-1); err != nil {
		return err
	}
	if last[0] == '\n' {
		return nil
	}
	_, err := f.Write([]byte("\n"))
	return err
}
