package figures

import (
	"strings"
	"testing"

	"ioswarm/histogram"
	"ioswarm/result"
)

func TestCheckSeries(t *testing.T) {
	// 10 ms window, 4 intervals of 3 ms: 12 ms covers it, 9 would not.
	ok := func() *result.Phase {
		return &result.Phase{StartNS: 1000, WindowNS: 10e6, Bytes: 40, Ops: 10, Series: &result.Series{
			StartNS: 1000, StepNS: 3e6, Bytes: []int64{8, 16, 12, 4}, Ops: []int64{2, 4, 3, 1},
			ByHost: []result.HostSeries{
				{Host: "a", Bytes: []int64{4, 8, 8, 0}, Ops: []int64{1, 2, 2, 0}},
				{Host: "b", Bytes: []int64{4, 8, 4, 4}, Ops: []int64{1, 2, 1, 1}},
			}}}
	}
	if err := CheckSeries(ok()); err != nil {
		t.Fatalf("a good series: %v", err)
	}
	cases := map[string]func(p *result.Phase){
		"adds up":      func(p *result.Phase) { p.Series.Ops[1]++ },
		"start":        func(p *result.Phase) { p.Series.StartNS++ },
		"cover":        func(p *result.Phase) { p.Series.StepNS = 2e6 },
		"one interval": func(p *result.Phase) { p.Series.StepNS = 4e6 },
		"nodes":        func(p *result.Phase) { p.Series.ByHost[0].Bytes[0]++ },
		"intervals":    func(p *result.Phase) { p.Series.ByHost[1].Ops = p.Series.ByHost[1].Ops[:3] },
	}
	for name, breakIt := range cases {
		p := ok()
		breakIt(p)
		if err := CheckSeries(p); err == nil {
			t.Errorf("%s: a broken series passed", name)
		} else if !strings.Contains(err.Error(), "series") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCheckLatencySeries(t *testing.T) {
	mk := func(vals ...int64) *result.Histogram {
		h := histogram.New()
		for _, v := range vals {
			h.Record(v)
		}
		return h.Sparse()
	}
	all := mk(100, 200, 300, 5000)
	ok := func() *result.Phase {
		return &result.Phase{Histogram: all, LatencySeries: &result.LatencySeries{StepNS: 1e9,
			Histograms: []*result.Histogram{mk(100, 200), mk(), mk(300, 5000)}}}
	}
	p := ok()
	for _, h := range p.LatencySeries.Histograms {
		g, _ := histogram.FromSparse(h)
		var q int64
		if g.Count() > 0 {
			q = g.Quantile(0.99)
		}
		p.LatencySeries.P99 = append(p.LatencySeries.P99, q)
	}
	if err := CheckLatencySeries(p); err != nil {
		t.Fatalf("a good series: %v", err)
	}
	p99 := p.LatencySeries.P99
	bad := ok()
	bad.LatencySeries.P99 = append([]int64(nil), p99...)
	bad.LatencySeries.P99[2]++
	if err := CheckLatencySeries(bad); err == nil || !strings.Contains(err.Error(), "p99") {
		t.Errorf("a wrong p99 passed: %v", err)
	}
	bad = ok()
	bad.LatencySeries.P99 = append([]int64(nil), p99...)
	bad.LatencySeries.Histograms[1] = mk(400)
	bad.LatencySeries.P99[1] = 400
	if err := CheckLatencySeries(bad); err == nil || !strings.Contains(err.Error(), "operations") {
		t.Errorf("an extra operation passed: %v", err)
	}
}
