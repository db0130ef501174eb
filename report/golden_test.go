package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test ./report -update rewrites it after review)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

func TestTableGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTable(&buf, fixtureJob(t)); err != nil {
		t.Fatal(err)
	}
	golden(t, "table.golden", buf.Bytes())
}

func TestTableIncompleteGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTable(&buf, incompleteJob(t)); err != nil {
		t.Fatal(err)
	}
	golden(t, "table_incomplete.golden", buf.Bytes())
}

func TestCSVGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCSV(&buf, fixtureJob(t), true); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&buf, incompleteJob(t), false); err != nil {
		t.Fatal(err)
	}
	golden(t, "jobs.csv.golden", buf.Bytes())
}

func TestJSONGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, fixtureJob(t)); err != nil {
		t.Fatal(err)
	}
	golden(t, "job.json.golden", buf.Bytes())
}
