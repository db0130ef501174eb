package chart

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"ioswarm/result"
	"ioswarm/settings"
	"ioswarm/study"
)

func fixture(t *testing.T, names ...string) []*study.Sweep {
	t.Helper()
	var out []*study.Sweep
	for _, n := range names {
		s, err := study.Load(filepath.Join("..", "study", "testdata", n))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// Both files are written where asked, the PNG is exactly the size asked
// for, and the SVG carries the configuration in its labels.
func TestWriteBothFiles(t *testing.T) {
	base := filepath.Join(t.TempDir(), "study.json")
	svgPath, pngPath, err := Write(base, fixture(t, "gen2.json"), Size{Width: 800, Height: 600}, Labels{})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(svgPath) != "study.svg" || filepath.Base(pngPath) != "study.png" {
		t.Fatalf("paths %s %s", svgPath, pngPath)
	}
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 800 || b.Dy() != 600 {
		t.Errorf("PNG is %dx%d, want 800x600", b.Dx(), b.Dy())
	}
	svg, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "threads (log2 scale)", "aggregate 800MiB fixed, 2 nodes, gpfs",
		"bandwidth, GB/s", "8MiB records, 4KiB random ops, buffered, fsync", "IOPS, 4KiB ops", "randread",
		"ioswarm scaling study: gen2", "@font-face"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

// A PNG is really drawn: not one flat colour.
func TestPNGHasContent(t *testing.T) {
	var buf bytes.Buffer
	if err := PNG(&buf, fixture(t, "gen1.json", "gen2.json"), Size{Width: 640, Height: 480}, Labels{}); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	colours := map[[4]uint32]bool{}
	for y := 0; y < 480; y += 3 {
		for x := 0; x < 640; x += 3 {
			r, g, b, a := img.At(x, y).RGBA()
			colours[[4]uint32{r, g, b, a}] = true
		}
	}
	if len(colours) < 10 {
		t.Errorf("only %d colours in the picture", len(colours))
	}
}

// Two studies: one line per phase per study, named in the legend and
// the title.
func TestComparisonContent(t *testing.T) {
	c, err := contentOf(fixture(t, "gen1.json", "gen2.json"))
	if err != nil {
		t.Fatal(err)
	}
	var legends []string
	for _, l := range c.lines {
		legends = append(legends, l.legend)
	}
	want := []string{"write · gen1", "read · gen1", "randread · gen1", "write · gen2", "read · gen2", "randread · gen2"}
	if !reflect.DeepEqual(legends, want) {
		t.Errorf("legend %v, want %v", legends, want)
	}
	if !strings.HasPrefix(c.title, "ioswarm comparison: gen1 vs gen2\n") || !c.random || c.minX != 1 || c.maxX != 8 {
		t.Errorf("title %q random %v x %v..%v", c.title, c.random, c.minX, c.maxX)
	}
	if got := c.lines[3].bw[0].Y; got < 2.09 || got > 2.1 {
		t.Errorf("gen2 write at 1 thread drawn at %v GB/s, want 2.097", got)
	}
	if len(c.lines[0].iops) != 0 || len(c.lines[2].iops) != 3 {
		t.Errorf("IOPS points: write %d, randread %d", len(c.lines[0].iops), len(c.lines[2].iops))
	}
}

// Points of runs that ended early are not drawn; with none left there is
// nothing to draw and the error says so.
func TestIncompletePointsLeftOut(t *testing.T) {
	s := fixture(t, "gen1.json")[0]
	s.Points[2].Complete = false
	c, err := contentOf([]*study.Sweep{s})
	if err != nil {
		t.Fatal(err)
	}
	if c.maxX != 2 || len(c.lines[0].bw) != 2 {
		t.Errorf("incomplete 4-thread point drawn: max x %v, %d points", c.maxX, len(c.lines[0].bw))
	}
	for _, p := range s.Points {
		p.Complete = false
	}
	if _, err := contentOf([]*study.Sweep{s}); err == nil || !strings.Contains(err.Error(), "no complete point") {
		t.Errorf("error %v", err)
	}
}

// A damaged file must give an error, not a panic in the log scale.
func TestZeroThreadsIsAnError(t *testing.T) {
	s := fixture(t, "gen1.json")[0]
	s.Points[0].Config.Threads = 0
	var buf bytes.Buffer
	if err := PNG(&buf, []*study.Sweep{s}, Size{Width: 600, Height: 400}, Labels{}); err == nil || !strings.Contains(err.Error(), "0 threads") {
		t.Errorf("error %v", err)
	}
}

func TestSequentialOnlyHasNoIOPSPanel(t *testing.T) {
	s := fixture(t, "gen1.json")[0]
	for _, p := range s.Points {
		p.Phases = p.Phases[:2]
	}
	s.Setup.Phases = s.Setup.Phases[:2]
	var buf bytes.Buffer
	if err := SVG(&buf, []*study.Sweep{s}, Size{Width: 600, Height: 400}, Labels{}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("IOPS")) || !bytes.Contains(buf.Bytes(), []byte("bandwidth, GB/s")) {
		t.Errorf("sequential-only chart: IOPS panel drawn or bandwidth missing")
	}
}

func TestPowersOfTwoTicks(t *testing.T) {
	var got []string
	for _, tk := range powersOfTwo(0.8, 650) {
		got = append(got, tk.Label)
	}
	want := []string{"1", "2", "4", "8", "16", "32", "64", "128", "256", "512"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v", got)
	}
	if got := powersOfTwo(3, 5); len(got) != 1 || got[0].Value != 4 {
		t.Errorf("3..5: %v", got)
	}
}

func TestCountLabels(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 800: "800", 250000: "250k", 1.5e6: "1.5M", 12e6: "12M"} {
		if got := countText(v); got != want {
			t.Errorf("countText(%v) = %q, want %q", v, got, want)
		}
	}
	for _, tk := range niceTicks(func(v float64, _ byte, _, _ int) string { return countText(v) })(0, 900000) {
		if strings.Contains(tk.Label, ".00") {
			t.Errorf("tick label %q", tk.Label)
		}
	}
}

func TestPathsAndSize(t *testing.T) {
	for in, want := range map[string]string{"a/r.json": "a/r", "r.svg": "r", "r.PNG": "r", "r": "r", "r.v2": "r.v2"} {
		svg, png := Paths(in)
		if svg != want+".svg" || png != want+".png" {
			t.Errorf("Paths(%q) = %q, %q", in, svg, png)
		}
	}
	if s, err := ParseSize("1200x800"); err != nil || s != (Size{1200, 800}) {
		t.Errorf("ParseSize: %v %v", s, err)
	}
	for _, bad := range []string{"1200", "x", "12x8", "100000x800", "axb", "-5x300"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

// Every chart is opaque: a corner of the PNG is white, not transparent.
func TestBackgroundIsOpaque(t *testing.T) {
	var buf bytes.Buffer
	if err := PNG(&buf, fixture(t, "gen1.json"), Size{Width: 600, Height: 400}, Labels{}); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for _, pt := range [][2]int{{0, 0}, {599, 0}, {0, 399}, {599, 399}} {
		if r, g, b, a := img.At(pt[0], pt[1]).RGBA(); a != 0xffff || r != 0xffff || g != 0xffff || b != 0xffff {
			t.Errorf("pixel %v is %v %v %v alpha %v, want opaque white", pt, r, g, b, a)
		}
	}
}

// Five to nine labelled ticks at nice values, for any range.
func TestNiceTicks(t *testing.T) {
	ticks := niceTicks(strconv.FormatFloat)
	for _, hi := range []float64{0.004, 0.9, 1, 6.07, 10.9, 37, 123456, 9.9e6} {
		var labels []string
		for _, tk := range ticks(0, hi) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if len(labels) < 5 || len(labels) > 9 {
			t.Errorf("0..%g: %d labels %v", hi, len(labels), labels)
		}
		// Evenly spaced from 0 by 1, 2, 2.5 or 5 times a power of ten.
		first, _ := strconv.ParseFloat(labels[0], 64)
		second, _ := strconv.ParseFloat(labels[1], 64)
		step := second - first
		m := step / math.Pow(10, math.Floor(math.Log10(step)))
		if first != 0 || !slices.ContainsFunc([]float64{1, 2, 2.5, 5}, func(n float64) bool { return math.Abs(n-m) < 1e-6 }) {
			t.Errorf("0..%g: labels %v do not start at 0 with a nice step", hi, labels)
		}
		for i, l := range labels {
			if v, _ := strconv.ParseFloat(l, 64); math.Abs(v-float64(i)*step) > step*1e-6 {
				t.Errorf("0..%g: label %q is not %d steps of %g", hi, l, i, step)
			}
		}
	}
}

// With iterations, each point carries its min-max range, drawn as bars,
// and the title says so; a study of one point is titled as such.
func TestSpreadAndOnePointTitles(t *testing.T) {
	s := fixture(t, "gen1.json")[0]
	for _, job := range s.Points {
		var phases []result.Phase
		for _, p := range job.Phases {
			for i, f := range []float64{0.9, 1.1} {
				q := p
				q.Iteration, q.Bandwidth, q.IOPS = i+1, p.Bandwidth*f, p.IOPS*f
				phases = append(phases, q)
			}
		}
		job.Phases = phases
	}
	c, err := contentOf([]*study.Sweep{s})
	if err != nil {
		t.Fatal(err)
	}
	if !c.lines[0].spread || !strings.Contains(c.xLabel, "bars: ± sample stddev of 2 iterations") {
		t.Errorf("spread %v, x label %q", c.lines[0].spread, c.xLabel)
	}
	// The bars span what the tables print beside the mean: the sample
	// standard deviation of 0.9 and 1.1 times the figure, 0.1·√2 of it.
	e := c.lines[0].bwErr[0]
	if mean, sd := c.lines[0].bw[0].Y, 0.1*math.Sqrt2*c.lines[0].bw[0].Y; math.Abs(e.Low-sd) > 1e-9 || math.Abs(e.High-sd) > 1e-9 {
		t.Errorf("range %+v around %v, want ±%v", e, mean, sd)
	}
	var buf bytes.Buffer
	if err := SVG(&buf, []*study.Sweep{s}, Size{Width: 600, Height: 400}, Labels{}); err != nil {
		t.Fatal(err)
	}
	s.Points = s.Points[:1]
	c, err = contentOf([]*study.Sweep{s})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.title, "ioswarm scaling study at 1 threads: gen1") || strings.Count(c.title, "\n") != 1 {
		t.Errorf("one-point title %q", c.title)
	}
}

// Studies whose configurations differ get a two-line title naming the
// difference, not a line per study.
func TestDifferentConfigurationsTitle(t *testing.T) {
	ss := fixture(t, "gen1.json", "gen2.json")
	ss[1].Setup.Direct = true
	c, err := contentOf(ss)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(c.title, "\n") != 1 || !strings.Contains(c.title, "configurations differ: O_DIRECT: A off, B on") {
		t.Errorf("title %q", c.title)
	}
}

// A sweep over depth alone puts depth on the x axis; over threads and
// depths together, a line per phase and depth along threads.
func TestDepthSweeps(t *testing.T) {
	mk := func(threads, depths []int) *study.Sweep {
		s := &study.Sweep{Threads: threads, IODepths: depths, Setup: study.Setup{Phases: settings.PhaseList{"randread"}, RandBlockSize: 4096}}
		for _, n := range threads {
			for _, d := range depths {
				s.Points = append(s.Points, &result.Job{Complete: true, Config: result.Config{Threads: n, IODepth: d},
					Phases: []result.Phase{{Name: "randread", Iteration: 1, Bandwidth: float64(n*d) * 1e8, IOPS: float64(n*d) * 1e4}}})
			}
		}
		return s
	}
	c, err := contentOf([]*study.Sweep{mk([]int{4}, []int{1, 8, 32})})
	if err != nil {
		t.Fatal(err)
	}
	if !c.byDepth || c.minX != 1 || c.maxX != 32 || len(c.lines) != 1 || !strings.Contains(c.xLabel, "iodepth") {
		t.Errorf("depth alone: byDepth %v x %v..%v, %d lines, x label %q", c.byDepth, c.minX, c.maxX, len(c.lines), c.xLabel)
	}
	c, err = contentOf([]*study.Sweep{mk([]int{1, 2, 4}, []int{1, 16})})
	if err != nil {
		t.Fatal(err)
	}
	var legends []string
	for _, l := range c.lines {
		legends = append(legends, l.legend)
	}
	if c.byDepth || c.maxX != 4 || !reflect.DeepEqual(legends, []string{"randread qd1", "randread qd16"}) {
		t.Errorf("grid: byDepth %v max x %v legends %v", c.byDepth, c.maxX, legends)
	}
	// Neighbouring depths never share a dash pattern and mark.
	if a, b := styled(c.lines[0]), styled(c.lines[1]); a.glyph == b.glyph || slices.Equal(a.dash, b.dash) {
		t.Errorf("qd1 and qd16 drawn alike: %+v, %+v", a, b)
	}
	if got := c.lines[1].iops[2].Y; got != 4*16*1e4 {
		t.Errorf("4 threads at depth 16 drawn at %v IOPS", got)
	}
}

// The timeline places each interval at its middle on one time axis and
// a random phase's p99 per second in its own panel.
func TestTimeline(t *testing.T) {
	job := &result.Job{JobID: "abc", Config: result.Config{Threads: 2}, Hosts: []result.Host{{Host: "a"}, {Host: "b"}},
		Phases: []result.Phase{
			{Name: "write", Iteration: 1, WindowNS: 1e9, Series: &result.Series{StartNS: 1e9, StepNS: 5e8, Bytes: []int64{5e8, 1e9}, Ops: []int64{1, 2},
				ByHost: []result.HostSeries{{Host: "a", Bytes: []int64{5e8, 5e8}, Ops: []int64{1, 1}}, {Host: "b", Bytes: []int64{0, 5e8}, Ops: []int64{0, 1}}}}},
			{Name: "randread", Iteration: 1, Series: &result.Series{StartNS: 3e9, StepNS: 1e9, Bytes: []int64{4096e3}, Ops: []int64{1e3}},
				LatencySeries: &result.LatencySeries{StartNS: 3e9, StepNS: 1e9, P99: []int64{2e6}}},
		}}
	tl, err := timelineOf(job, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.lines) != 2 || !tl.random || len(tl.p99) != 1 {
		t.Fatalf("%d lines, random %v, %d p99 lines", len(tl.lines), tl.random, len(tl.p99))
	}
	// write's second interval: 1 GB over 0.5 s is 2 GB/s, drawn at 0.75 s.
	if pt := tl.lines[0].bw[1]; pt.X != 0.75 || pt.Y != 2 {
		t.Errorf("write interval 2 at %+v, want (0.75, 2)", pt)
	}
	if pt := tl.p99[0].bw[0]; pt.X != 2.5 || pt.Y != 2 {
		t.Errorf("randread p99 at %+v, want (2.5 s, 2 ms)", pt)
	}
	// A random phase of 0.4 s: its one second's p99 is drawn at the
	// middle of the 0.4 s it ran, not of the whole second.
	job.Phases[1].StartNS, job.Phases[1].WindowNS = 3e9, 4e8
	if tl, err = timelineOf(job, false); err != nil {
		t.Fatal(err)
	}
	if pt := tl.p99[0].bw[0]; math.Abs(pt.X-2.2) > 1e-9 || pt.Y != 2 {
		t.Errorf("p99 of a 0.4 s phase at %+v, want (2.2 s, 2 ms)", pt)
	}
	// Its 4 MB in its 0.4 s, at the middle of them, 2 s after the first
	// phase's start; the time axis ends where it did, at 2.4 s.
	if pt := tl.lines[1].bw[0]; math.Abs(pt.X-2.2) > 1e-9 || math.Abs(pt.Y-4096e3/0.4/1e9) > 1e-12 {
		t.Errorf("randread's cut interval at %+v, want (2.2, %g)", pt, 4096e3/0.4/1e9)
	}
	if f := tl.figure(); math.Abs(f.x.hi-2.4) > 1e-9 {
		t.Errorf("time axis ends at %g s, want 2.4", f.x.hi)
	}
	job.Phases[1].WindowNS = 0
	// A window that ends 0.3 s into the second interval: its 1 GB came in
	// 0.3 s, 3.33 GB/s, drawn at the middle of those 0.3 s.
	job.Phases[0].WindowNS = 8e8
	if tl, err = timelineOf(job, false); err != nil {
		t.Fatal(err)
	}
	if pt := tl.lines[0].bw[1]; math.Abs(pt.X-0.65) > 1e-9 || math.Abs(pt.Y-1/0.3) > 1e-9 {
		t.Errorf("write's cut interval at %+v, want (0.65, 3.333)", pt)
	}
	if pt := tl.lines[0].bw[0]; pt.X != 0.25 || pt.Y != 1 {
		t.Errorf("write's whole interval at %+v, want (0.25, 1)", pt)
	}
	// A last interval cut to a sliver (0.05 s of 0.5) joins the one
	// before: 1.5 GB over 0.55 s, drawn at the middle of those 0.55 s.
	job.Phases[0].WindowNS = 5.5e8
	if tl, err = timelineOf(job, false); err != nil {
		t.Fatal(err)
	}
	if l := tl.lines[0].bw; len(l) != 1 || math.Abs(l[0].X-0.275) > 1e-9 || math.Abs(l[0].Y-1.5/0.55) > 1e-9 {
		t.Errorf("write with a sliver of a last interval: %+v, want one point (0.275, %.4g)", l, 1.5/0.55)
	}
	job.Phases[0].WindowNS = 1e9
	byNode, err := timelineOf(job, true)
	if err != nil || len(byNode.lines) != 3 || byNode.lines[1].legend != "write · b" {
		t.Errorf("by node: %d lines, %v", len(byNode.lines), err)
	}
	if _, _, err := WriteTimeline(filepath.Join(t.TempDir(), "tl"), job, true, Size{Width: 600, Height: 500}, Labels{}); err != nil {
		t.Errorf("WriteTimeline: %v", err)
	}
	job.Phases[0].Series, job.Phases[1].Series, job.Phases[1].LatencySeries = nil, nil, nil
	if _, err := timelineOf(job, false); err == nil || !strings.Contains(err.Error(), "no phase with a time series") {
		t.Errorf("no series: %v", err)
	}
}
