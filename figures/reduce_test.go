package figures

import (
	"math"
	"strings"
	"testing"

	"ioswarm/histogram"
	"ioswarm/result"
)

const (
	sec = int64(1e9)
	mb  = int64(1e6)
	// base puts the phase far from zero on the coordinator's clock, so a
	// figure that used an absolute time instead of a difference shows.
	base = int64(1_000_000) * sec
)

func near(t *testing.T, field string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("%s = %.15g, want %.15g", field, got, want)
	}
}

// skewedPhase is two threads that finish at different times:
//
//	A: 100 MB in [0 s, 1 s], 100 ops; it finishes first, so F = 1 s
//	B: 100 MB in [0.5 s, 2.5 s], 100 ops; 25 MB done by F
//
// window = 2.5 s − 0 s = 2.5 s
// bandwidth = 200 MB / 2.5 s = 80 MB/s
// first-done = (100 MB + 25 MB) / (1 s − 0 s) = 125 MB/s
// sum of rates = 100 MB/1 s + 100 MB/2 s = 100 + 50 = 150 MB/s
// IOPS = 200 ops / 2.5 s = 80 /s
// start skew = 0.5 s; thread rates min 50, mean 75, max 100 MB/s
func skewedPhase() result.Phase {
	return result.Phase{Name: "write", Iteration: 1, Threads: []result.Thread{
		{Host: "n1", Thread: 0, Bytes: 100 * mb, Ops: 100, StartNS: base, EndNS: base + sec, BytesAtFirstDone: 100 * mb},
		{Host: "n2", Thread: 1, Bytes: 100 * mb, Ops: 100, StartNS: base + sec/2, EndNS: base + 5*sec/2, BytesAtFirstDone: 25 * mb},
	}}
}

func TestReduceSkewedThreads(t *testing.T) {
	p := skewedPhase()
	p.CacheDrop, p.ResidentFraction, p.ReleaseSkewNS = "fadvise", 0.25, 42
	if err := Reduce(&p); err != nil {
		t.Fatal(err)
	}
	near(t, "bandwidth", p.Bandwidth, 80e6)
	near(t, "first_done_bandwidth", p.FirstDoneBandwidth, 125e6)
	near(t, "sum_of_rates", p.SumOfRates, 150e6)
	near(t, "iops", p.IOPS, 80)
	near(t, "thread_bandwidth.min", p.ThreadBandwidth.Min, 50e6)
	near(t, "thread_bandwidth.mean", p.ThreadBandwidth.Mean, 75e6)
	near(t, "thread_bandwidth.max", p.ThreadBandwidth.Max, 100e6)
	ints := map[string][2]int64{
		"bytes":         {p.Bytes, 200 * mb},
		"ops":           {p.Ops, 200},
		"window_ns":     {p.WindowNS, 5 * sec / 2},
		"start_skew_ns": {p.StartSkewNS, sec / 2},
		"start_ns":      {p.StartNS, base},
		"first_done_ns": {p.FirstDoneNS, base + sec},
	}
	for name, v := range ints {
		if v[0] != v[1] {
			t.Errorf("%s = %d, want %d", name, v[0], v[1])
		}
	}
	if p.CacheDrop != "fadvise" || p.ResidentFraction != 0.25 || p.ReleaseSkewNS != 42 {
		t.Errorf("Reduce touched fields it must leave alone: %q %v %d", p.CacheDrop, p.ResidentFraction, p.ReleaseSkewNS)
	}
	if p.Latency != (result.Latency{}) {
		t.Errorf("latency set without a histogram: %+v", p.Latency)
	}
}

// Three equal threads started together: every bandwidth figure agrees.
// 3 × 30 MB in [0, 3 s]: bandwidth = 90 MB / 3 s = 30 MB/s; first-done =
// 90 MB / 3 s = 30 MB/s; sum of rates = 3 × 10 MB/s = 30 MB/s.
func TestReduceEqualThreadsAgree(t *testing.T) {
	p := result.Phase{Name: "read"}
	for i := range 3 {
		p.Threads = append(p.Threads, result.Thread{Thread: i, Bytes: 30 * mb, Ops: 30,
			StartNS: base, EndNS: base + 3*sec, BytesAtFirstDone: 30 * mb})
	}
	if err := Reduce(&p); err != nil {
		t.Fatal(err)
	}
	near(t, "bandwidth", p.Bandwidth, 30e6)
	near(t, "first_done_bandwidth", p.FirstDoneBandwidth, 30e6)
	near(t, "sum_of_rates", p.SumOfRates, 30e6)
	if p.StartSkewNS != 0 {
		t.Errorf("start skew %d, want 0", p.StartSkewNS)
	}
}

// randPhase: 2 threads, 50 ops each over 0.5 s and [0.1 s, 0.6 s], 4 KiB
// ops; latencies: 99 ops of 100 ns and one of 5 ms.
// IOPS = 100 / 0.6 s = 166.666…; p50 = rank 50 → 100 ns (exact bucket);
// p99 = rank 99 → 100 ns; p99.9 = rank ceil(99.9) = 100 = n → the exact
// max, 5 ms (not the 5 ms bucket's midpoint 4997119); max = 5 ms.
func randPhase() result.Phase {
	h := histogram.New()
	for range 99 {
		h.Record(100)
	}
	h.Record(5_000_000)
	return result.Phase{Name: "randread", Iteration: 1, Histogram: h.Sparse(), Threads: []result.Thread{
		{Thread: 0, Bytes: 50 * 4096, Ops: 50, StartNS: base, EndNS: base + sec/2, BytesAtFirstDone: 50 * 4096},
		{Thread: 1, Bytes: 50 * 4096, Ops: 50, StartNS: base + sec/10, EndNS: base + 6*sec/10, BytesAtFirstDone: 40 * 4096},
	}}
}

func TestReduceLatencyFromHistogram(t *testing.T) {
	p := randPhase()
	if err := Reduce(&p); err != nil {
		t.Fatal(err)
	}
	near(t, "iops", p.IOPS, 100/0.6)
	want := result.Latency{P50: 100, P99: 100, P999: 5_000_000, Max: 5_000_000}
	if p.Latency != want {
		t.Errorf("latency %+v, want %+v", p.Latency, want)
	}
	// first-done: F = 0.5 s; (50 + 40) × 4096 B / 0.5 s = 737280 B/s.
	near(t, "first_done_bandwidth", p.FirstDoneBandwidth, 737280)
}

func TestReduceErrors(t *testing.T) {
	cases := []struct {
		name, want string
		edit       func(p *result.Phase)
	}{
		{"no threads", "no thread records", func(p *result.Phase) { p.Threads = nil }},
		{"end equals start", "not after start", func(p *result.Phase) { p.Threads[1].EndNS = p.Threads[1].StartNS }},
		{"end before start", "not after start", func(p *result.Phase) { p.Threads[0].EndNS = base - 1 }},
		{"overflowing span", "overflows", func(p *result.Phase) {
			p.Threads[0].StartNS, p.Threads[0].EndNS = math.MinInt64, math.MaxInt64
		}},
		{"negative bytes", "negative bytes", func(p *result.Phase) { p.Threads[0].Bytes = -1 }},
		{"first-done above bytes", "bytes_at_first_done", func(p *result.Phase) { p.Threads[1].BytesAtFirstDone = 101 * mb }},
		{"bad histogram", "latency histogram", func(p *result.Phase) {
			p.Histogram = &result.Histogram{SubBits: 3}
		}},
	}
	for _, c := range cases {
		p := skewedPhase()
		c.edit(&p)
		before := p.Bandwidth
		err := Reduce(&p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
		if p.Bandwidth != before || p.Bytes != 0 {
			t.Errorf("%s: Reduce changed the phase despite failing", c.name)
		}
	}
}

func TestReduceErrorNamesThread(t *testing.T) {
	p := skewedPhase()
	p.Threads[1].EndNS = 0
	err := Reduce(&p)
	if err == nil || !strings.Contains(err.Error(), `thread 1 (host "n2" rank 0)`) {
		t.Fatalf("error %v does not name the thread", err)
	}
}
