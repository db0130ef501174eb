package study

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"ioswarm/internal/golden"
)

// The committed result files are exactly what the fixture code builds,
// so the golden tables below rest on figures reduced by the real rules.
func TestFixtureFiles(t *testing.T) {
	a, b := fixtures(t)
	for name, s := range map[string]*Sweep{"gen1.json": a, "gen2.json": b} {
		var buf bytes.Buffer
		if err := WriteJSON(&buf, s); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, name, buf.Bytes())
	}
}

func load(t *testing.T, name string) *Sweep {
	t.Helper()
	s, err := Load(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSweepTableGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTable(&buf, load(t, "gen2.json")); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "sweep_table.golden", buf.Bytes())
}

func TestCompareTableGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCompare(&buf, load(t, "gen1.json"), load(t, "gen2.json")); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "compare_table.golden", buf.Bytes())
}

// B's 1-thread point took 25/31 of A's time in every interval: each of
// its figures is exactly 1.24 × A's and must read +24.0%; at 4 threads
// it took 5/4 of the time: −20.0%.
func TestCompareExactChanges(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCompare(&buf, load(t, "gen1.json"), load(t, "gen2.json")); err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(buf.String(), "\n") {
		f := strings.Fields(line)
		if len(f) > 2 {
			rows[f[0]+"@"+f[1]] = line
		}
	}
	cases := []struct {
		row, change string
		n           int
	}{
		// bandwidth, first-done, sum of rates, and for random phases IOPS.
		{"write@1", "+24.0%", 3}, {"read@1", "+24.0%", 3}, {"randread@1", "+24.0%", 4},
		{"write@2", "+0.0%", 3}, {"randread@4", "-20.0%", 4},
	}
	for _, c := range cases {
		line, ok := rows[c.row]
		if !ok {
			t.Fatalf("no row %s in\n%s", c.row, buf.String())
		}
		if got := strings.Count(line, c.change); got != c.n {
			t.Errorf("row %s: %q appears %d times, want %d:\n%s", c.row, c.change, got, c.n, line)
		}
	}
	if !regexp.MustCompile(`(?m)^only in B: 8 threads \(write, read, randread\)$`).MatchString(buf.String()) {
		t.Errorf("the 8-thread point only B has is not listed:\n%s", buf.String())
	}
}
