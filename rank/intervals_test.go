package rank

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"ioswarm/histogram"
	"ioswarm/result"
	"ioswarm/wire"
)

// A rank's intervals hold exactly the latencies its workers recorded in
// each, however the workers' interval changes interleave and even when an
// operation is added long after its interval stopped being recent; and
// the store keeps them sparse, merged over the workers: ten minutes of
// four threads' lognormal latencies (as from real storage) take a small
// fraction of what a full histogram per thread and second took.
func TestLatencyStoreMergesWorkersIntervals(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	s := &state{workers: []*worker{{}, {}, {}, {}}}
	p := &phaseParams{latency: &s.latency}
	want := map[int]*histogram.Histogram{}
	rec := func(w *worker, k int, v int64) {
		if want[k] == nil {
			want[k] = histogram.New()
		}
		want[k].Record(v)
		w.recordInterval(p, int64(k)*wire.LatencyStep+r.Int64N(wire.LatencyStep), v)
	}
	const intervals = 600
	for k := range intervals {
		for _, w := range s.workers {
			for range 50 {
				rec(w, k, int64(math.Exp(math.Log(80e3)+0.8*r.NormFloat64())))
			}
		}
		if k%100 == 50 {
			// One operation that took 10 intervals, reaped now.
			rec(s.workers[k/100%4], k-10, 12345)
		}
	}
	got := s.intervalReply()
	if len(got) != intervals {
		t.Fatalf("%d intervals, want %d", len(got), intervals)
	}
	kept := 0
	for k, sp := range got {
		h, err := histogram.FromSparse(sp)
		if err != nil {
			t.Fatalf("interval %d: %v", k, err)
		}
		if *h != *want[k] {
			t.Fatalf("interval %d holds %d values (min %d max %d), want %d (min %d max %d)",
				k, h.Count(), h.Min(), h.Max(), want[k].Count(), want[k].Min(), want[k].Max())
		}
		kept += 16 * len(sp.Buckets)
	}
	full := len(s.workers) * intervals * histogram.NumBuckets * 8
	if kept*20 > full {
		t.Errorf("%d intervals of %d threads keep %d KiB of buckets, a full histogram per thread and interval %d KiB: want 1/20 at most",
			intervals, len(s.workers), kept>>10, full>>10)
	}
	t.Logf("%d intervals of %d threads keep %d KiB of buckets, a full histogram per thread and interval %d KiB",
		intervals, len(s.workers), kept>>10, full>>10)
}

// Recording allocates nothing, not even when the interval changes (the
// store's recent intervals are made once), and a new phase starts empty.
func TestLatencyIntervalsRecordWithoutAllocating(t *testing.T) {
	s := &state{workers: []*worker{{}}}
	w := s.workers[0]
	p := &phaseParams{latency: &s.latency}
	for k := range int64(recentIntervals) {
		w.recordInterval(p, k*wire.LatencyStep, 1000) // every recent interval made
	}
	k := int64(0)
	if n := testing.AllocsPerRun(1000, func() {
		w.recordInterval(p, k*wire.LatencyStep, 2000)
		k = (k + 1) % recentIntervals
	}); n != 0 {
		t.Errorf("%v allocations per operation", n)
	}
	s.latency.reset()
	w.interval.reset()
	w.recordInterval(p, wire.LatencyStep, 4000)
	got := s.intervalReply()
	if len(got) != 2 || len(got[0].Counts) != 0 || len(got[1].Counts) != 1 || got[1].Max != 4000 {
		t.Errorf("after a reset: %+v, want interval 0 empty and interval 1 with its one value", got)
	}
	s.latency.reset()
	if got := s.intervalReply(); got != nil {
		t.Errorf("a phase with no operations: %+v, want none", got)
	}
}

// The rank's reply merges the workers' intervals interval by interval.
func TestIntervalReplyMergesWorkers(t *testing.T) {
	s := &state{workers: []*worker{{}, {}}}
	p := &phaseParams{latency: &s.latency}
	a, b := s.workers[0], s.workers[1]
	a.recordInterval(p, 0, 100)
	a.recordInterval(p, 2*wire.LatencyStep, 300)
	b.recordInterval(p, wire.LatencyStep-1, 150)
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

// Workers add their intervals from their own threads at once; every
// operation still lands once, in its own interval (run with -race).
func TestLatencyStoreTakesConcurrentWorkers(t *testing.T) {
	const workers, intervals, perInterval = 8, 40, 100
	s := &state{}
	for range workers {
		s.workers = append(s.workers, &worker{})
	}
	p := &phaseParams{latency: &s.latency}
	var wg sync.WaitGroup
	for i, w := range s.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range int64(intervals) {
				for j := range int64(perInterval) {
					w.recordInterval(p, k*wire.LatencyStep+j, int64(1000*(i+1)))
				}
			}
		}()
	}
	wg.Wait()
	got := s.intervalReply()
	if len(got) != intervals {
		t.Fatalf("%d intervals, want %d", len(got), intervals)
	}
	for k, sp := range got {
		h, err := histogram.FromSparse(sp)
		if err != nil {
			t.Fatalf("interval %d: %v", k, err)
		}
		if h.Count() != workers*perInterval || h.Min() != 1000 || h.Max() != 1000*workers {
			t.Fatalf("interval %d: %d operations, min %d, max %d; want %d, 1000, %d",
				k, h.Count(), h.Min(), h.Max(), workers*perInterval, 1000*workers)
		}
	}
}
