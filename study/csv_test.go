package study

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ioswarm/report"
)

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s is not valid CSV: %v", path, err)
	}
	return rows
}

// Two appends give one header and one row per phase per point.
func TestAppendCSVHeaderOnce(t *testing.T) {
	s := load(t, "gen1.json")
	path := filepath.Join(t.TempDir(), "runs.csv")
	for _, p := range s.Points[:2] {
		if err := AppendCSV(path, p); err != nil {
			t.Fatal(err)
		}
	}
	rows := readCSV(t, path)
	if len(rows) != 1+2*3 {
		t.Fatalf("%d rows, want 1 header + 6", len(rows))
	}
	if strings.Join(rows[0], ",") != strings.Join(report.CSVHeader(), ",") {
		t.Errorf("first row is not the header: %v", rows[0])
	}
	for _, r := range rows[1:] {
		if r[0] != "gen1" || r[0] == "label" {
			t.Errorf("row label %q", r[0])
		}
	}
	if rows[1][6] != "1" || rows[4][6] != "2" || rows[1][10] != "write" || rows[3][10] != "randread" {
		t.Errorf("rows out of order: threads %s,%s phases %s,%s", rows[1][6], rows[4][6], rows[1][10], rows[3][10])
	}
}

// An empty file gets the header; a file whose last line lacks its
// newline gets one before the new rows.
func TestAppendCSVEmptyAndUnterminated(t *testing.T) {
	job := load(t, "gen1.json").Points[0]
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.csv")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AppendCSV(empty, job); err != nil {
		t.Fatal(err)
	}
	if rows := readCSV(t, empty); len(rows) != 4 || rows[0][0] != "label" {
		t.Fatalf("empty file: %d rows, first %v", len(rows), rows[0])
	}
	data, _ := os.ReadFile(empty)
	cut := filepath.Join(dir, "cut.csv")
	if err := os.WriteFile(cut, data[:len(data)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AppendCSV(cut, job); err != nil {
		t.Fatal(err)
	}
	if rows := readCSV(t, cut); len(rows) != 7 {
		t.Fatalf("unterminated file: %d rows after append, want 7", len(rows))
	}
}

func TestAppendCSVRefusesForeignFiles(t *testing.T) {
	job := load(t, "gen1.json").Points[0]
	dir := t.TempDir()
	cases := map[string]string{
		"notes.csv": "name,value\nx,1\n",
		"old.csv":   "label,timestamp,job_id\n",
	}
	want := map[string]string{"notes.csv": "not an ioswarm CSV", "old.csv": "columns differ"}
	for name, content := range cases {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		err := AppendCSV(path, job)
		if err == nil || !strings.Contains(err.Error(), want[name]) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming the file and containing %q", name, err, want[name])
		}
		if got, _ := os.ReadFile(path); string(got) != content {
			t.Errorf("%s was changed:\n%s", name, got)
		}
	}
}

func TestCheckCSV(t *testing.T) {
	dir := t.TempDir()
	if err := CheckCSV(filepath.Join(dir, "new.csv")); err != nil {
		t.Errorf("new file: %v", err)
	}
	if err := CheckCSV(filepath.Join(dir, "no", "such", "dir.csv")); err == nil || !strings.Contains(err.Error(), "--csv") {
		t.Errorf("missing directory: %v", err)
	}
	foreign := filepath.Join(dir, "notes.csv")
	if err := os.WriteFile(foreign, []byte("a,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckCSV(foreign); err == nil || !strings.Contains(err.Error(), "not an ioswarm CSV") {
		t.Errorf("foreign file: %v", err)
	}
}
