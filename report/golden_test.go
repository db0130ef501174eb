package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"ioswarm/internal/golden"
)

func TestTableGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTable(&buf, fixtureJob(t)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "table.golden", buf.Bytes())
	fitsTerminal(t, buf.String())
}

// fitsTerminal fails on any line wider than an 80-column terminal, but
// for the command line, which quotes the user. Warnings are wrapped (see
// WriteWrapped), so they are held to it too.
func fitsTerminal(t *testing.T, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > 80 && !strings.HasPrefix(line, "command ") {
			t.Errorf("%d columns: %q", n, line)
		}
	}
}

// Every detail block, for the golden file and the 80 columns of the
// per-node block.
func TestTableDetailsGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTableWith(&buf, fixtureJob(t), Details{Phases: true, Nodes: true, Threads: true}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "table_details.golden", buf.Bytes())
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
