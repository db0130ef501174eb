package iozone

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"ioswarm/result"
)

// readSheet is ReadWorkbook, failing the test where it refuses.
func readSheet(t *testing.T, b []byte) []Cell {
	t.Helper()
	cells, err := ReadWorkbook(b)
	if err != nil {
		t.Fatal(err)
	}
	return cells
}

// TestWorkbook: -b's worksheet holds the command line, the -R table's
// three lines, and each row's name and values at IOzone's places, each
// value the table's own, and with -+u the CPU table after it.
func TestWorkbook(t *testing.T) {
	cmd, err := Parse(words("-i0 -i1 -+u -r 1m -s 8m -l 3 -u 4 -b out.xls"))
	if err != nil {
		t.Fatal(err)
	}
	second := handJob(3)
	second.Phases = second.Phases[:2]
	jobs := []*result.Job{handJob(3), second}
	var buf bytes.Buffer
	if err := WriteWorkbook(&buf, jobs, cmd, []string{"ioswarm", "iozone", "-i0", "-b", "out.xls"}); err != nil {
		t.Fatal(err)
	}
	got := readSheet(t, buf.Bytes())
	rows, err := ExcelRows(jobs, cmd)
	if err != nil {
		t.Fatal(err)
	}
	cpu, err := CPURows(jobs, cmd)
	if err != nil {
		t.Fatal(err)
	}
	want := []Cell{{Row: 0, Text: "ioswarm iozone -i0 -b out.xls "}}
	add := func(title, unit string, rows []ExcelRow) {
		r := 0 // the row after the last so far
		for _, c := range want {
			r = max(r, c.Row)
		}
		r++
		want = append(want, Cell{Row: r, Text: title}, Cell{Row: r + 1, Text: "Record size = 1024 kBytes"},
			Cell{Row: r + 2, Text: "Output is in " + unit})
		for i, row := range rows {
			want = append(want, Cell{Row: r + 3 + i, Text: fmt.Sprintf("%15s ", row.Test)})
			for k, v := range row.Values {
				want = append(want, Cell{Row: r + 3 + i, Col: 2 + k, Value: v, Number: true})
			}
		}
	}
	add("Throughput report Y-axis is type of test X-axis is number of processes", "kBytes/sec", rows)
	add("CPU utilization report Y-axis is type of test X-axis is number of processes", "CPU%", cpu)
	if len(got) != len(want) {
		t.Fatalf("%d cells, want %d:\n got %+v\nwant %+v", len(got), len(want), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("cell %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if got[5].Value == 0 || got[5].Row != 4 || got[5].Col != 2 {
		t.Errorf("first value %+v: want the first job's Initial write at row 4, column 2", got[5])
	}
}

// A label longer than a record holds is cut to 255 bytes, with the
// length it was cut to.
func TestWorkbookLongLabel(t *testing.T) {
	cmd, err := Parse(words("-i0 -r 1m -s 8m -t 3 -b out.xls"))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 300)
	var buf bytes.Buffer
	if err := WriteWorkbook(&buf, []*result.Job{handJob(3)}, cmd, []string{long}); err != nil {
		t.Fatal(err)
	}
	if got := readSheet(t, buf.Bytes())[0].Text; got != long[:255] {
		t.Errorf("label of %d bytes, want the first 255", len(got))
	}
}

// ReadWorkbook refuses what IOzone's writer never makes.
func TestReadWorkbookRefuses(t *testing.T) {
	cmd, err := Parse(words("-i0 -r 1m -s 8m -t 3 -b out.xls"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteWorkbook(&buf, []*result.Job{handJob(3)}, cmd, []string{"iozone"}); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	for name, b := range map[string][]byte{
		"no end":         good[:len(good)-4],
		"cut":            good[:len(good)-6],
		"after the end":  append(append([]byte{}, good...), 0x0a, 0, 0, 0),
		"no BOF":         good[8:],
		"other version":  append([]byte{9, 0, 4, 0, 4, 0, 0x10, 0}, good[8:]...),
		"short label":    append(append([]byte{}, good[:8]...), 4, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 1, 'x'),
		"unknown record": append(append([]byte{}, good[:8]...), 0x42, 0, 0, 0),
	} {
		if _, err := ReadWorkbook(b); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
}
