package rank

import (
	"math"
	"math/rand/v2"
	"testing"

	"ioswarm/histogram"
	"ioswarm/result"
)

// Each interval holds exactly the latencies recorded in it, whatever the
// order they arrive in, and a finished interval is kept sparse: ten
// minutes of seconds of lognormal latencies (as from real storage) take a
// small fraction of what full histograms would.
func TestLatencyIntervalsKeepEachIntervalSparse(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var iv latencyIntervals
	iv.reset()
	want := map[int]*histogram.Histogram{}
	rec := func(k int, v int64) {
		if want[k] == nil {
			want[k] = histogram.New()
		}
		want[k].Record(v)
		iv.record(k, v)
	}
	const intervals = 600
	for k := range intervals {
		for range 200 {
			rec(k, int64(math.Exp(math.Log(80e3)+0.8*r.NormFloat64())))
		}
		if k%100 == 1 {
			rec(k-1, 12345) // reaped after its interval had ended
		}
	}
	iv.finish()
	if len(iv.done) != intervals {
		t.Fatalf("%d intervals kept, want %d", len(iv.done), intervals)
	}
	kept := 0
	for k, s := range iv.done {
		got, err := histogram.FromSparse(s)
		if err != nil {
			t.Fatalf("interval %d: %v", k, err)
		}
		if *got != *want[k] {
			t.Fatalf("interval %d holds %d values (min %d max %d), want %d (min %d max %d)",
				k, got.Count(), got.Min(), got.Max(), want[k].Count(), want[k].Min(), want[k].Max())
		}
		kept += 16 * len(s.Buckets)
	}
	full := intervals * histogram.NumBuckets * 8
	if kept*20 > full {
		t.Errorf("%d intervals keep %d KiB of buckets, full histograms %d KiB: want 1/20 at most", intervals, kept>>10, full>>10)
	}
	t.Logf("%d intervals keep %d KiB of buckets, full histograms %d KiB", intervals, kept>>10, full>>10)
}

// Recording into the interval under way allocates nothing, and a new
// phase starts from empty intervals.
func TestLatencyIntervalsRecordWithoutAllocating(t *testing.T) {
	var iv latencyIntervals
	iv.record(0, 1000)
	if n := testing.AllocsPerRun(1000, func() { iv.record(0, 2000) }); n != 0 {
		t.Errorf("%v allocations per operation", n)
	}
	iv.record(2, 3000)
	iv.reset()
	iv.record(1, 4000)
	iv.finish()
	if len(iv.done) != 2 || iv.done[0] != nil || iv.done[1] == nil || iv.done[1].Max != 4000 {
		t.Errorf("after a reset: %d intervals %v, want only interval 1 with its one value", len(iv.done), iv.done)
	}
}

// The rank's reply merges the workers' intervals interval by interval.
func TestIntervalReplyMergesWorkers(t *testing.T) {
	a, b := &worker{}, &worker{}
	a.intervals.record(0, 100)
	a.intervals.record(2, 300)
	b.intervals.record(0, 150)
	s := &state{workers: []*worker{a, b}}
	got := s.intervalReply()
	counts := func(h *result.Histogram) (n int64) {
		for _, c := range h.Counts {
			n += c
		}
		return n
	}
	if len(got) != 3 || counts(got[0]) != 2 || counts(got[1]) != 0 || counts(got[2]) != 1 ||
		got[0].Min != 100 || got[0].Max != 150 {
		t.Errorf("reply %+v, want intervals of 2, 0 and 1 operations, the first 100-150 ns", got)
	}
}
