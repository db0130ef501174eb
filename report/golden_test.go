package report

import (
	"bytes"
	"testing"

	"ioswarm/internal/golden"
)

func TestTableGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTable(&buf, fixtureJob(t)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "table.golden", buf.Bytes())
}

func TestTableIncompleteGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTable(&buf, incompleteJob(t)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "table_incomplete.golden", buf.Bytes())
}

func TestCSVGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCSV(&buf, fixtureJob(t), true); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&buf, incompleteJob(t), false); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "jobs.csv.golden", buf.Bytes())
}

func TestJSONGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, fixtureJob(t)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "job.json.golden", buf.Bytes())
}
