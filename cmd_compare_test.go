package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// compare prints the compact table by default, every line in 80
// columns with a pointer to --details; --details prints today's full
// table byte for byte (the golden file kept from before the compact one).
func TestCompareDetailsIsTheFullTable(t *testing.T) {
	a, b := filepath.Join("study", "testdata", "gen1.json"), filepath.Join("study", "testdata", "gen2.json")
	print := func(details bool) string {
		var out bytes.Buffer
		o := compareOptions{NoChart: true, FullTable: details, invocation: invocation{args: []string{a, b}, stdout: &out},
			chartOptions: chartOptions{ChartSize: "1000x700"}}
		if err := runCompare(o); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	compact := print(false)
	for _, line := range strings.Split(compact, "\n") {
		if utf8.RuneCountInString(line) > 80 {
			t.Errorf("compact line over 80 columns: %q", line)
		}
	}
	if !strings.Contains(compact, "--details)") {
		t.Errorf("the compact table does not say how to see the rest:\n%s", compact)
	}
	want, err := os.ReadFile(filepath.Join("study", "testdata", "compare_table.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if got := print(true); got != string(want) {
		t.Errorf("--details differs from the full table:\n%s\nwant:\n%s", got, want)
	}
}
