package iozone

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"ioswarm/result"
)

// The JSON has one shape for one thread count or several, and holds the
// value of every IOzone line the stream prints.
func TestResultHasEveryLineInOneShape(t *testing.T) {
	for _, args := range []string{"-i0 -i1 -C -r 64k -s 1m -t 2", "-i0 -i1 -C -r 64k -s 1m -t 1 -t 2"} {
		cmd, err := Parse(strings.Fields(args))
		if err != nil {
			t.Fatal(err)
		}
		var jobs []*result.Job
		for _, n := range cmd.ThreadCounts() {
			jobs = append(jobs, handJob(3))
			jobs[len(jobs)-1].Config.Threads = n
		}
		r, err := NewResult(cmd, "iozone "+args, jobs)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := r.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := ReadResult(buf.Bytes())
		if err != nil {
			t.Fatalf("%s: the JSON is not one object: %v", args, err)
		}
		// The top level is the first thread count's job, as ioswarm run
		// writes it, so scripts, compare and plot read it as before.
		var top result.Job
		if err := json.Unmarshal(buf.Bytes(), &top); err != nil || top.Config.Threads != jobs[0].Config.Threads || len(top.Phases) == 0 {
			t.Fatalf("%s: the top level is not the first job: %v", args, err)
		}
		if len(back.Runs) != len(jobs) || len(back.ExcelRows) != 4 || back.Unit != "kB" || back.IOzoneVersion != Version {
			t.Fatalf("%s: %d runs, %d rows, unit %q, version %q", args, len(back.Runs), len(back.ExcelRows), back.Unit, back.IOzoneVersion)
		}
		want, err := Lines(handPhase("write"), true, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, run := range back.Runs {
			if len(run.Tests) != 4 || run.Job == nil {
				t.Fatalf("%s: run of %d threads has %d tests", args, run.Threads, len(run.Tests))
			}
			w := run.Tests[0]
			if w.Test != "initial writers" || w.ChildrenSee != want.ChildrenSee || w.ParentSees != want.ParentSees ||
				w.Min != want.Min || w.Max != want.Max || w.Avg != want.Avg || w.MinXfer != want.MinXfer || len(w.Child) != 3 {
				t.Errorf("%s: write test %+v, want the lines of %+v", args, w, want)
			}
		}
		if back.ExcelRows[0].Test != "Initial write" || back.ExcelRows[0].Values[0] != want.ChildrenSee {
			t.Errorf("%s: first -R row %+v", args, back.ExcelRows[0])
		}
	}
}
