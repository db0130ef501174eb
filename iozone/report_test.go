package iozone

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"ioswarm/internal/golden"
	"ioswarm/result"
	"ioswarm/settings"
)

const (
	sec = int64(1e9)
	mib = int64(1 << 20)
)

// handPhase is three threads writing 8 MiB each in 1 MiB records:
//
//	thread 0: start 0 s, end 4 s (the first to finish), 8 MiB by 4 s
//	thread 1: start 1 s, end 6 s, 4 MiB done by 4 s
//	thread 2: start 0 s, end 8 s, 2 MiB done by 4 s
func handPhase(name string) *result.Phase {
	return &result.Phase{Name: name, Threads: []result.Thread{
		{Host: "n1", Thread: 0, Bytes: 8 * mib, Ops: 8, StartNS: 0, EndNS: 4 * sec, BytesAtFirstDone: 8 * mib},
		{Host: "n2", Thread: 1, Bytes: 8 * mib, Ops: 8, StartNS: 1 * sec, EndNS: 6 * sec, BytesAtFirstDone: 4 * mib},
		{Host: "n1", Thread: 2, Bytes: 8 * mib, Ops: 8, StartNS: 0, EndNS: 8 * sec, BytesAtFirstDone: 2 * mib},
	}}
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.6f, want %.6f", what, got, want)
	}
}

// TestLinesHand checks IOzone's figures against numbers worked out by hand
// for handPhase; the four headline figures all differ.
func TestLinesHand(t *testing.T) {
	// Stonewalled (IOzone's default). The first end is at 4 s.
	//   child 0: whole file, 8192 kB / 4 s        = 2048 kB/s
	//   child 1: 4096 kB by 4 s / (4 - 1) s       = 1365.333.. kB/s
	//   child 2: 2048 kB by 4 s / (4 - 0) s       =  512 kB/s
	//   Children see = 2048 + 1365.333 + 512       = 3925.333.. kB/s
	//   Min 512, Max 2048, Avg 3925.333/3 = 1308.444.., Min xfer 2048 kB
	//   Parent sees (writers finish untimed, so the whole 0..8 s window):
	//     (8192 + 4096 + 2048) kB / 8 s            = 1792 kB/s
	r, err := Lines(handPhase("write"), true, false)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "stonewalled Children see", r.ChildrenSee, 2048+4096.0/3+512)
	near(t, "stonewalled Parent sees", r.ParentSees, 1792)
	near(t, "Min", r.Min, 512)
	near(t, "Max", r.Max, 2048)
	near(t, "Avg", r.Avg, (2048+4096.0/3+512)/3)
	near(t, "Min xfer", r.MinXfer, 2048)
	// ioswarm's bandwidth: 24 MiB / 8 s = 3 MiB/s = 3072 kB/s.
	near(t, "bandwidth kB/s", r.Bandwidth/1024, 3072)

	// -x: every child its whole file over its own time.
	//   8192/4 + 8192/5 + 8192/8 = 2048 + 1638.4 + 1024 = 4710.4 kB/s
	//   Parent sees = 24576 kB / 8 s = 3072 kB/s (= the bandwidth)
	x, err := Lines(handPhase("write"), false, false)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "-x Children see", x.ChildrenSee, 4710.4)
	near(t, "-x Parent sees", x.ParentSees, 3072)
	near(t, "-x Min xfer", x.MinXfer, 8192)
	// -x Children see is ioswarm's sum_of_rates, Σ bytes_i/(end_i − start_i).
	var sum float64
	for _, th := range handPhase("write").Threads {
		sum += float64(th.Bytes) * 1e9 / float64(th.EndNS-th.StartNS)
	}
	near(t, "-x Children see vs sum_of_rates", x.ChildrenSee*1024, sum)

	// A stonewalled read: IOzone's readers stop at the stonewall, so the
	// parent's time ends at 4 s: 14336 kB / 4 s = 3584 kB/s.
	rd, err := Lines(handPhase("read"), true, false)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "stonewalled read Parent sees", rd.ParentSees, 3584)

	// -O: operations, a stonewalled child's share in proportion to bytes.
	//   child 0: 8 ops / 4 s = 2; child 1: 4 ops / 3 s; child 2: 2 ops / 4 s = 0.5
	o, err := Lines(handPhase("randwrite"), true, true)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "-O Children see", o.ChildrenSee, 2+4.0/3+0.5)
	near(t, "-O Min xfer", o.MinXfer, 2)
	near(t, "IOPS", o.IOPS, 24.0/8)
	if o.Unit != "ops" || o.Label != "random writers" {
		t.Errorf("unit %q label %q", o.Unit, o.Label)
	}
}

func TestLinesErrors(t *testing.T) {
	p := handPhase("write")
	p.Threads[1].BytesAtFirstDone = p.Threads[1].Bytes + 1
	if _, err := Lines(p, true, false); err == nil {
		t.Error("bytes_at_first_done above bytes accepted")
	}
	p = handPhase("write")
	p.Threads[0].EndNS = p.Threads[0].StartNS
	if _, err := Lines(p, true, false); err == nil {
		t.Error("empty thread interval accepted")
	}
	if _, err := Lines(&result.Phase{Name: "write"}, true, false); err == nil {
		t.Error("no threads accepted")
	}
	if _, err := Lines(&result.Phase{Name: "stat"}, true, false); err == nil {
		t.Error("a phase with no IOzone test accepted")
	}
}

// handJob is a job of -i0 and -i1 with the hand records, threads
// listed out of order to show the report sorts them.
func handJob(threads int) *result.Job {
	j := &result.Job{Config: result.Config{Threads: threads, BlockSize: mib, RandBlockSize: mib, FileSize: 8 * mib}}
	for _, name := range []string{"write", "rewrite", "read", "reread"} {
		p := handPhase(name)
		p.Threads[0], p.Threads[2] = p.Threads[2], p.Threads[0]
		j.Phases = append(j.Phases, *p)
	}
	return j
}

func TestReportGolden(t *testing.T) {
	cmd, err := Parse(words("-i0 -i1 -c -e -w -C -r 1m -s 8m -t 3"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteReport(&buf, handJob(3), cmd); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "report.golden", buf.Bytes())

	cmd.NoStonewall = true
	cmd.PerChild = false
	buf.Reset()
	if err := WriteReport(&buf, handJob(3), cmd); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "report_x.golden", buf.Bytes())
}

func TestExcelGolden(t *testing.T) {
	cmd, err := Parse(words("-i0 -i1 -R -r 1m -s 8m -l 3 -u 4"))
	if err != nil {
		t.Fatal(err)
	}
	second := handJob(3)
	second.Phases = second.Phases[:2] // a job that ran only -i0 shows 0 in the read rows
	var buf bytes.Buffer
	if err := WriteExcel(&buf, []*result.Job{handJob(3), second}, cmd); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "excel.golden", buf.Bytes())

	ops, err := Parse(words("-i2 -O -R -r 4k -t 3"))
	if err != nil {
		t.Fatal(err)
	}
	j := &result.Job{Config: result.Config{Threads: 3, BlockSize: 4 << 10, FileSize: 8 * mib}}
	j.Phases = []result.Phase{*handPhase("randread"), *handPhase("randwrite")}
	buf.Reset()
	if err := WriteAll(&buf, []*result.Job{j}, ops); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "excel_ops.golden", buf.Bytes())
}

// TestDropNote: a reading test after ioswarm emptied the page cache says
// that IOzone would not have, on stderr and in the JSON, in words no
// IOzone pattern matches; writers, and reads nothing was dropped before,
// say nothing.
func TestDropNote(t *testing.T) {
	cases := []struct {
		phase string
		drop  settings.DropMethod
		want  string // in the note; "" for no note
	}{
		{"randread", settings.DropCaches, "dropped the page cache (drop_caches) before randread"},
		{"read", settings.DropFadvise, "dropped the job's files from the page cache (fadvise) before read"},
		{"reread", settings.DropCaches, "before reread"},
		{"read", settings.DropNone, ""},
		{"read", settings.DropDirect, ""},
		{"write", settings.DropCaches, ""},
		{"randwrite", settings.DropCaches, ""},
	}
	for _, c := range cases {
		p := handPhase(c.phase)
		p.CacheDrop = c.drop
		r, err := Lines(p, false, false)
		if err != nil {
			t.Fatal(err)
		}
		var own bytes.Buffer
		if err := r.WriteOwn(&own); err != nil {
			t.Fatal(err)
		}
		js := testResult(r, 1).DropNote
		if c.want == "" {
			if r.DropNote() != "" || js != "" || strings.Contains(own.String(), "IOzone never does") {
				t.Errorf("%s after %s: note %q, json %q; want none", c.phase, c.drop, r.DropNote(), js)
			}
			continue
		}
		if !strings.Contains(r.DropNote(), c.want) || !strings.Contains(r.DropNote(), "--drop-caches off") {
			t.Errorf("%s after %s: note %q, want it to hold %q and the flag", c.phase, c.drop, r.DropNote(), c.want)
		}
		if !strings.Contains(own.String(), "  note: "+r.DropNote()+"\n") || js != r.DropNote() {
			t.Errorf("%s after %s: stderr %q, json %q; want the note in both", c.phase, c.drop, own.String(), js)
		}
		for _, pattern := range []string{r.Label, "Children see", "kB/sec", "Min xfer", "throughput"} {
			if strings.Contains(r.DropNote(), pattern) {
				t.Errorf("note %q holds IOzone's %q", r.DropNote(), pattern)
			}
		}
	}
}
