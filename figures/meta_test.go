package figures

import (
	"strings"
	"testing"

	"ioswarm/result"
)

// The metadata figures follow from the records (worked by hand here), and
// Check catches each of them changed in the file.
func TestMetadataFiguresRecomputed(t *testing.T) {
	p := result.Phase{Name: "mdcreate", Iteration: 1, Threads: []result.Thread{
		{Thread: 0, Ops: 1000, StartNS: 0, EndNS: 500_000_000, OpsAtFirstDone: 1000},
		{Thread: 1, Ops: 1000, StartNS: 100_000_000, EndNS: 1_100_000_000, OpsAtFirstDone: 400},
	}}
	if err := Reduce(&p); err != nil {
		t.Fatal(err)
	}
	// 2000 ops over 1.1 s; 1400 by the first end at 0.5 s; threads at
	// 2000/s and 1000/s.
	if !agree(p.OpsPerSec, 2000/1.1) || p.OpsPerSec != p.IOPS || !agree(p.FirstDoneOpsPerSec, 2800) ||
		p.ThreadOpsPerSec == nil || *p.ThreadOpsPerSec != (result.Spread{Min: 1000, Mean: 1500, Max: 2000}) {
		t.Fatalf("ops/s %g (iops %g), first-done %g, threads %+v", p.OpsPerSec, p.IOPS, p.FirstDoneOpsPerSec, p.ThreadOpsPerSec)
	}
	for _, c := range []struct {
		field string
		lie   func(p *result.Phase)
	}{
		{"ops_per_sec", func(p *result.Phase) { p.OpsPerSec *= 1.01 }},
		{"first_done_ops_per_sec", func(p *result.Phase) { p.FirstDoneOpsPerSec = p.OpsPerSec }},
		{"thread_ops_per_sec.max", func(p *result.Phase) { s := *p.ThreadOpsPerSec; s.Max++; p.ThreadOpsPerSec = &s }},
		{"thread_ops_per_sec is", func(p *result.Phase) { p.ThreadOpsPerSec = nil }},
		{"ops_at_first_done", func(p *result.Phase) {
			p.Threads = append([]result.Thread(nil), p.Threads...)
			p.Threads[1].OpsAtFirstDone = 1001
		}},
	} {
		lied := p
		c.lie(&lied)
		err := Check(&result.Job{Config: result.Config{Fsync: true}, Phases: []result.Phase{lied}})
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s changed: Check says %v", c.field, err)
		}
	}
	if err := Check(&result.Job{Config: result.Config{Fsync: true}, Phases: []result.Phase{p}}); err != nil {
		t.Errorf("untouched: %v", err)
	}
	// A data phase carries none of them.
	d := p
	d.Name = "randread"
	if err := Reduce(&d); err != nil || d.OpsPerSec != 0 || d.ThreadOpsPerSec != nil {
		t.Errorf("randread: %v, ops/s %g, threads %v", err, d.OpsPerSec, d.ThreadOpsPerSec)
	}
}
