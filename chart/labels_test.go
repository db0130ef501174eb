package chart

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ioswarm/result"
)

// A report's words replace ioswarm's: the title, the subtitle (an empty
// one given on purpose leaves one line), and each axis; the bars' note
// stays on the x axis whatever its label.
func TestLabelsReplaceTheDefaults(t *testing.T) {
	ss := fixture(t, "gen2.json")
	c, err := contentWith(ss, Labels{Title: "Figure 15: Sequential N to N performance", XLabel: "client threads",
		YLabel: "GB/s", IOPSLabel: "4 KiB IOPS"})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(c.title, "\n")
	if len(lines) != 2 || lines[0] != "Figure 15: Sequential N to N performance" || !strings.Contains(lines[1], "gpfs") {
		t.Errorf("title %q: want the given title over ioswarm's configuration line", c.title)
	}
	if c.xLabel != "client threads" || c.bwLabel != "GB/s" || c.iopsLabel != "4 KiB IOPS" {
		t.Errorf("axes %q, %q, %q", c.xLabel, c.bwLabel, c.iopsLabel)
	}
	c, err = contentWith(ss, Labels{Title: "Figure 15", SubtitleSet: true})
	if err != nil || c.title != "Figure 15" {
		t.Errorf("empty subtitle given: title %q, %v", c.title, err)
	}
	c, err = contentWith(ss, Labels{Subtitle: "GPFS 5.1, 16 clients"})
	if err != nil || !strings.HasPrefix(c.title, "ioswarm scaling study") || !strings.HasSuffix(c.title, "\nGPFS 5.1, 16 clients") {
		t.Errorf("subtitle alone: title %q, %v", c.title, err)
	}

	// The words reach both files.
	base := filepath.Join(t.TempDir(), "fig15")
	svgPath, _, err := Write(base, ss, Size{Width: 800, Height: 600}, Labels{Title: "Figure 15: Sequential N to N performance"})
	if err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("Figure 15: Sequential N to N performance")) {
		t.Error("the SVG does not carry the given title")
	}
}

// Only the phases asked for are drawn, and the IOPS panel goes when no
// random phase is left; a list that matches nothing says so.
func TestLabelsPickThePhases(t *testing.T) {
	ss := fixture(t, "gen2.json")
	all, err := contentWith(ss, Labels{})
	if err != nil {
		t.Fatal(err)
	}
	if !all.random {
		t.Fatal("the fixture should hold a random phase")
	}
	c, err := contentWith(ss, Labels{Phases: []string{"write", "read"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.lines) == 0 || len(c.lines) >= len(all.lines) || c.random {
		t.Errorf("%d of %d lines, random panel %v", len(c.lines), len(all.lines), c.random)
	}
	for _, l := range c.lines {
		if l.phase != "write" && l.phase != "read" {
			t.Errorf("drew %s", l.phase)
		}
	}
	if _, err := contentWith(ss, Labels{Phases: []string{"mdstat"}}); err == nil || !strings.Contains(err.Error(), "mdstat") {
		t.Errorf("no point of mdstat: %v", err)
	}
	if _, err := ParsePhases("write,reed"); err == nil || !strings.Contains(err.Error(), `"reed"`) {
		t.Errorf("a misspelt phase: %v", err)
	}
	if got, err := ParsePhases(" write, read,write"); err != nil || strings.Join(got, ",") != "write,read" {
		t.Errorf("ParsePhases: %v %v", got, err)
	}
}

// A bar below a mean smaller than its stddev stops at zero: no bar
// reaches below nothing.
func TestBarsStopAtZero(t *testing.T) {
	if r := errorOf(1, 3, 4); r.Low != 1 || r.High != 3 {
		t.Errorf("errorOf(1, 3, 4) = %+v", r)
	}
	if r := errorOf(1, 3, 1); r != (yRange{}) {
		t.Errorf("one iteration drew a bar: %+v", r)
	}
}

// In a by-node timeline every node has its own look: neighbours differ
// in colour and in mark (greyscale print keeps the mark), and no two of
// the first 96 nodes look the same.
func TestNodesLookApart(t *testing.T) {
	seen := map[string]int{}
	for n := 0; n < 96; n++ {
		a := nodeLook(n)
		key := fmt.Sprint(a.color, a.glyph, a.dash)
		if m, ok := seen[key]; ok {
			t.Errorf("nodes %d and %d look the same: %s", m, n, key)
		}
		seen[key] = n
		if n > 0 {
			b := nodeLook(n - 1)
			if a.color == b.color || a.glyph == b.glyph {
				t.Errorf("nodes %d and %d share a colour or a mark", n-1, n)
			}
		}
	}
}

// A by-node timeline draws its nodes in their own looks, not in the
// phase's colour, and takes the report's words and phases too.
func TestTimelineByNodeAndLabels(t *testing.T) {
	job := &result.Job{JobID: "abc", Config: result.Config{Threads: 2}, Hosts: []result.Host{{Host: "a"}, {Host: "b"}},
		Phases: []result.Phase{
			{Name: "write", Iteration: 1, WindowNS: 1e9, Series: &result.Series{StartNS: 1e9, StepNS: 5e8, Bytes: []int64{5e8, 1e9}, Ops: []int64{1, 2},
				ByHost: []result.HostSeries{{Host: "a", Bytes: []int64{5e8, 5e8}, Ops: []int64{1, 1}}, {Host: "b", Bytes: []int64{0, 5e8}, Ops: []int64{0, 1}}}}},
			{Name: "read", Iteration: 1, WindowNS: 1e9, Series: &result.Series{StartNS: 3e9, StepNS: 5e8, Bytes: []int64{5e8, 1e9}, Ops: []int64{1, 2},
				ByHost: []result.HostSeries{{Host: "a", Bytes: []int64{5e8, 5e8}, Ops: []int64{1, 1}}, {Host: "b", Bytes: []int64{0, 5e8}, Ops: []int64{0, 1}}}}},
		}}
	tl, err := timelineWith(job, true, Labels{Title: "Figure 3: write over time", YLabel: "GB/s", Phases: []string{"write"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.lines) != 2 || tl.lines[0].phase != "write" || tl.lines[1].phase != "write" {
		t.Fatalf("lines %+v: want write on each of 2 nodes", tl.lines)
	}
	f := tl.figure()
	if !strings.HasPrefix(f.title, "Figure 3: write over time\n") || f.panels[0].y.label != "GB/s" {
		t.Errorf("title %q, y label %q", f.title, f.panels[0].y.label)
	}
	if len(f.legend) != 2 || f.legend[0].text != "a" || f.legend[1].text != "b" {
		t.Errorf("legend %+v: want one entry per node", f.legend)
	}
	a, b := f.panels[0].series[0].look, f.panels[0].series[1].look
	if a.color == b.color || a.glyph == b.glyph {
		t.Errorf("nodes a and b drawn alike: %+v, %+v", a, b)
	}
	if _, err := timelineWith(job, false, Labels{Phases: []string{"randread"}}); err == nil || !strings.Contains(err.Error(), "randread") {
		t.Errorf("a phase the run lacks: %v", err)
	}
}
