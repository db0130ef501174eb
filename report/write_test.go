package report

import (
	"bytes"
	"encoding/csv"
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"ioswarm/result"
)

// failAfter accepts n bytes, then fails every write.
type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, errors.New("disk full")
	}
	f.n -= len(p)
	return len(p), nil
}

func TestWritersReportWriteErrors(t *testing.T) {
	job := fixtureJob(t)
	writers := map[string]func(w *failAfter) error{
		"table": func(w *failAfter) error { return WriteTable(w, job) },
		"csv":   func(w *failAfter) error { return WriteCSV(w, job, true) },
		"json":  func(w *failAfter) error { return WriteJSON(w, job) },
	}
	for name, write := range writers {
		if err := write(&failAfter{n: 100}); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%s: error %v, want the writer's error", name, err)
		}
	}
}

func TestWritersRejectNilJob(t *testing.T) {
	var buf bytes.Buffer
	if WriteTable(&buf, nil) == nil || WriteCSV(&buf, nil, true) == nil || WriteJSON(&buf, nil) == nil {
		t.Fatal("a nil job was accepted")
	}
}

func TestCSVRowsMatchHeader(t *testing.T) {
	var buf bytes.Buffer
	job := fixtureJob(t)
	job.CommandLine = `ioswarm run --dir "/scratch/a,b"` // quoting must keep columns
	if err := WriteCSV(&buf, job, false); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(job.Phases) {
		t.Fatalf("%d rows without header, want %d", len(rows), len(job.Phases))
	}
	header := CSVHeader()
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	r := rows[4] // randread iteration 1
	if len(r) != len(header) || r[col["phase"]] != "randread" || r[col["command_line"]] != job.CommandLine ||
		r[col["iops"]] != exact(job.Phases[4].IOPS) || r[col["stonewalled"]] != "true" {
		t.Fatalf("row does not line up with the header: %q", r)
	}
}

func TestTableCleansControlCharacters(t *testing.T) {
	job := &result.Job{Version: "1", Complete: true, JobID: "a\tb\nc",
		Phases: []result.Phase{{Name: "wri\tte", Threads: []result.Thread{{}}}}}
	var buf bytes.Buffer
	if err := WriteTable(&buf, job); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "job         a b c\n") || !strings.Contains(out, "wri te") {
		t.Fatalf("control characters not replaced:\n%s", out)
	}
}

func TestLoadJobAtLimitAndOneByteReads(t *testing.T) {
	const limit = 4096
	doc := `{"ioswarm_version":"1"}`
	padded := doc + strings.Repeat(" ", limit-len(doc))
	if _, err := loadJob(strings.NewReader(padded), "x.json", limit); err != nil {
		t.Fatalf("a file of exactly the limit was refused: %v", err)
	}
	if _, err := loadJob(strings.NewReader(padded+" "), "x.json", limit); err == nil {
		t.Fatal("a file one byte over the limit was accepted")
	}
	raw := jobJSON(t)
	if _, err := LoadJob(iotest.OneByteReader(bytes.NewReader(raw)), "slow.json"); err != nil {
		t.Fatalf("one-byte reads: %v", err)
	}
	if _, err := LoadJob(iotest.TimeoutReader(bytes.NewReader(raw)), "t.json"); err == nil ||
		!strings.Contains(err.Error(), "t.json: reading result file: timeout") {
		t.Fatalf("a reader error mid-file: %v", err)
	}
}
